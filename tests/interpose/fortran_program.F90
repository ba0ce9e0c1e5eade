! A plain Fortran MPI program, built three times: BINDING=1 with mpif.h, 2 with `use mpi`, 3 with
! `use mpi_f08`. Run with and without the interposer; every result is checked against values computed
! locally. It calls each non-blocking and blocking collective, MPI_IN_PLACE, mixed arrays of
! collectives and its own point-to-point requests under MPI_Waitall, MPI_Waitany, MPI_Waitsome,
! MPI_Testall and MPI_Testany loops, MPI_Test polling, MPI_Request_get_status, MPI_Request_free (of its
! own send), a duplicated communicator, MPI_Init_thread / MPI_Query_thread, a bad root under
! MPI_ERRORS_RETURN, a user op freed while a collective applies it, and MPI_Alltoallw.
!
! EXPECT_INTERPOSED=1: Tandem must have served the non-blocking collectives (served_by_tandem.c);
! EXPECT_INTERPOSED=0: the program must run on MPI alone. EXPECT_WORLD_SIZE=n: MPI_COMM_WORLD must have n
! ranks (with the interposer in dcp progress, the ranks that are not dedicated collective processes).
! MPICH 4.0's own Fortran bindings get two answers wrong: mpif.h's MPI_Waitany on null requests gives
! MPI_UNDEFINED + 1 (pmodels/mpich#6402; MPICH_WAITANY_UNDEFINED_BUG leaves that check out) and mpi_f08
! counts indices from 0 (pmodels/mpich#6270; FIRST_INDEX=0 expects that, unless the interposer is
! loaded: its own mpi_f08 bindings of the waits and tests count from 1).
#ifndef FIRST_INDEX
#define FIRST_INDEX 1
#endif
#if BINDING == 3
#define REQUEST_T type(MPI_Request)
#define COMM_T type(MPI_Comm)
#define STATUS_DECL(x) type(MPI_Status) :: x
#define STATUSES_DECL(x, m) type(MPI_Status) :: x(m)
#define SOURCE_OF(s) s%MPI_SOURCE
#define SOURCE_IN(s, i) s(i)%MPI_SOURCE
#else
#define REQUEST_T integer
#define COMM_T integer
#define STATUS_DECL(x) integer :: x(MPI_STATUS_SIZE)
#define STATUSES_DECL(x, m) integer :: x(MPI_STATUS_SIZE, m)
#define SOURCE_OF(s) s(MPI_SOURCE)
#define SOURCE_IN(s, i) s(MPI_SOURCE, i)
#endif

program fortran_program
  use, intrinsic :: iso_c_binding, only : c_int, c_long
#if BINDING == 3
  use mpi_f08
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
  interface
    integer(c_int) function served_by_tandem(served, native) bind(C, name="served_by_tandem")
      import :: c_int, c_long
      integer(c_long) :: served, native
    end function
  end interface

  integer, parameter :: n = 100
  integer :: rank, nprocs, ierr, failures, checks, all_failures, provided, queried
  integer(c_long) :: served, native
  integer :: nonblocking_calls, first_index
  character(len=8) :: expect

  failures = 0
  checks = 0
  nonblocking_calls = 0
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  first_index = FIRST_INDEX
  if (served_by_tandem(served, native) == 1) first_index = 1
  call MPI_Query_thread(queried, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(queried == provided .and. provided >= MPI_THREAD_SINGLE, 'MPI_Query_thread = MPI_Init_thread', queried)

  call allreduce_polled_and_in_place()
  call mixed_waitall()
  call waitany_loop()
  call waitsome_loop()
  call testall_and_testany()
  call testsome_with_statuses()
  call freed_and_status()
  call duplicated_communicator()
  call blocking_collectives()
  call op_freed_in_flight()
  call bad_argument()
  call world_is_consistent()

  call get_environment_variable('EXPECT_INTERPOSED', expect)
  if (expect == '1') then
    call check(served_by_tandem(served, native) == 1, 'the interposer is loaded', 0)
    call check(served >= nonblocking_calls, 'collectives served by Tandem', int(served))
    call check(native == 1, 'collectives passed to MPI (the bad root)', int(native))
  else if (expect == '0') then
    call check(served_by_tandem(served, native) == 0, 'no interposer', 0)
  end if

  call MPI_Reduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all_failures == 0) then
      print '(a,i0,a,i0,a)', 'fortran_program (', nprocs, ' ranks): ', checks, ' checks, 0 failed: PASS'
    else
      print '(a,i0,a)', 'fortran_program: ', all_failures, ' failed: FAIL'
    end if
  end if
  call MPI_Finalize(ierr)
  if (all_failures /= 0 .and. rank == 0) stop 1

contains

  ! MPI_COMM_WORLD's size (EXPECT_WORLD_SIZE), name, a ring on it and a split of it agree.
  subroutine world_is_consistent()
    character(len=16) :: wanted
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: length, expected, from_left, half_size, half_sum
    COMM_T :: half
    call get_environment_variable('EXPECT_WORLD_SIZE', wanted, length)
    if (length > 0) then
      read (wanted, *) expected
      call check(nprocs == expected, 'MPI_Comm_size(MPI_COMM_WORLD) is EXPECT_WORLD_SIZE', nprocs)
    end if
    call MPI_Comm_get_name(MPI_COMM_WORLD, name, length, ierr)
    call check(name == 'MPI_COMM_WORLD', 'MPI_Comm_get_name(MPI_COMM_WORLD)', length)
    from_left = -1
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 4, from_left, 1, MPI_INTEGER, &
                      mod(rank - 1 + nprocs, nprocs), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(from_left == mod(rank - 1 + nprocs, nprocs), 'a ring on MPI_COMM_WORLD', from_left)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call MPI_Comm_size(half, half_size, ierr)
    call MPI_Allreduce(rank, half_sum, 1, MPI_INTEGER, MPI_SUM, half, ierr)
    call check(half_size == (nprocs + 1 - mod(rank, 2)) / 2 .and. half_sum == sum_of_half(mod(rank, 2)), &
               'MPI_Comm_split(MPI_COMM_WORLD) into even and odd ranks', half_sum)
    call MPI_Comm_free(half, ierr)
  end subroutine

  integer function sum_of_half(parity)
    integer, intent(in) :: parity
    integer :: r
    sum_of_half = 0
    do r = parity, nprocs - 1, 2
      sum_of_half = sum_of_half + r
    end do
  end function

#if BINDING == 3
  subroutine int_sum(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype == MPI_DATATYPE_NULL) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = b + a
  end subroutine
#else
  subroutine int_sum(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    if (datatype == MPI_DATATYPE_NULL) return
    inoutvec = inoutvec + invec
  end subroutine
#endif

  subroutine check(ok, what, arg)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: arg
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      if (failures <= 10) write (0, '(a,i0,a,a,a,i0,a)') '[fortran_program rank ', rank, '] FAIL: ', what, ' (', arg, ')'
    end if
  end subroutine

  logical function all_null(reqs)
    REQUEST_T, intent(in) :: reqs(:)
    integer :: i
    all_null = .true.
    do i = 1, size(reqs)
      if (reqs(i) /= MPI_REQUEST_NULL) all_null = .false.
    end do
  end function

  ! Rank r's element i, and the sum of it over ranks 0..m-1.
  integer function value(r, i)
    integer, intent(in) :: r, i
    value = 3 * r + i
  end function

  integer function sum_upto(m, i)
    integer, intent(in) :: m, i
    sum_upto = 3 * m * (m - 1) / 2 + m * i
  end function

  subroutine fill(a, r)
    integer, intent(out) :: a(0:n-1)
    integer, intent(in) :: r
    integer :: i
    do i = 0, n - 1
      a(i) = value(r, i)
    end do
  end subroutine

  ! How many of a(0:n-1) differ from the sum over m ranks.
  integer function wrong_sums(a, m)
    integer, intent(in) :: a(0:n-1), m
    integer :: i
    wrong_sums = 0
    do i = 0, n - 1
      if (a(i) /= sum_upto(m, i)) wrong_sums = wrong_sums + 1
    end do
  end function

  subroutine allreduce_polled_and_in_place()
    integer :: send(0:n-1), got(0:n-1), i, wrong
    logical :: flag
    REQUEST_T :: req
    call fill(send, rank)
    call MPI_Iallreduce(send, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(wrong_sums(got, nprocs) == 0 .and. ierr == MPI_SUCCESS, 'MPI_Iallreduce + MPI_Wait', wrong_sums(got, nprocs))

    got = send
    call MPI_Iallreduce(MPI_IN_PLACE, got, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
    wrong = 0
    do i = 0, n - 1
      if (got(i) /= value(nprocs - 1, i)) wrong = wrong + 1
    end do
    call check(wrong == 0 .and. all_null([req]), 'in-place MPI_Iallreduce polled with MPI_Test', wrong)
    nonblocking_calls = nonblocking_calls + 2
  end subroutine

  ! A collective and the program's own ring exchange in one array.
  subroutine mixed_waitall()
    integer :: send(0:n-1), sums(0:n-1), bc(4), ring_in, ring_out, i
    REQUEST_T :: reqs(4)
    STATUSES_DECL(statuses, 4)
    call fill(send, rank)
    ring_out = rank
    ring_in = -1
    bc = 0
    if (rank == 0) bc = [(40 + i, i = 1, 4)]
    call MPI_Iallreduce(send, sums, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(ring_out, 1, MPI_INTEGER, mod(rank + 1, nprocs), 7, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Irecv(ring_in, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 7, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Ibcast(bc, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_Waitall(4, reqs, statuses, ierr)
    call check(ierr == MPI_SUCCESS .and. all_null(reqs), 'MPI_Waitall on a mixed array', ierr)
    call check(ring_in == mod(rank - 1 + nprocs, nprocs) .and. SOURCE_IN(statuses, 3) == ring_in, &
               'the ring message and its status in a mixed MPI_Waitall', ring_in)
    call check(wrong_sums(sums, nprocs) == 0, 'MPI_Iallreduce in a mixed MPI_Waitall', wrong_sums(sums, nprocs))
    call check(all(bc == [(40 + i, i = 1, 4)]), 'MPI_Ibcast in a mixed MPI_Waitall', bc(1))
    nonblocking_calls = nonblocking_calls + 2
  end subroutine

  ! MPI_Waitany until all are done: each index once, counted from 1.
  subroutine waitany_loop()
    integer :: send(0:n-1), reduced(0:n-1), scanned(0:n-1), ring_in, ring_out, k, idx, seen(4), wrong, i
    REQUEST_T :: reqs(4)
    STATUS_DECL(status)
    call fill(send, rank)
    ring_out = 100 + rank
    call MPI_Ireduce(send, reduced, n, MPI_INTEGER, MPI_SUM, nprocs - 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(ring_in, 1, MPI_INTEGER, mod(rank + 1, nprocs), 8, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Iscan(send, scanned, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(ring_out, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 8, MPI_COMM_WORLD, reqs(4), ierr)
    seen = 0
    do k = 1, 4
      call MPI_Waitany(4, reqs, idx, status, ierr)
      idx = idx + 1 - first_index
      if (idx >= 1 .and. idx <= 4) seen(idx) = seen(idx) + 1
      if (idx == 2) call check(SOURCE_OF(status) == mod(rank + 1, nprocs), 'MPI_Waitany status source', idx)
    end do
    call check(all(seen == 1), 'MPI_Waitany returns each index once (from 1)', sum(seen))
#ifndef MPICH_WAITANY_UNDEFINED_BUG
    call MPI_Waitany(4, reqs, idx, MPI_STATUS_IGNORE, ierr)
    call check(idx == MPI_UNDEFINED, 'MPI_Waitany on an array of null requests', idx)
#endif
    if (rank == nprocs - 1) call check(wrong_sums(reduced, nprocs) == 0, 'MPI_Ireduce to the last rank', 0)
    call check(wrong_sums(scanned, rank + 1) == 0, 'MPI_Iscan', wrong_sums(scanned, rank + 1))
    call check(ring_in == 100 + mod(rank + 1, nprocs), 'the ring message under MPI_Waitany', ring_in)
    ! MPI_IN_PLACE at the root of a reduction
    reduced = send
    if (rank == 0) then
      call MPI_Ireduce(MPI_IN_PLACE, reduced, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, reqs(1), ierr)
    else
      call MPI_Ireduce(send, reduced, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, reqs(1), ierr)
    end if
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    wrong = 0
    if (rank == 0) wrong = wrong_sums(reduced, nprocs)
    do i = 0, n - 1
      if (rank /= 0 .and. reduced(i) /= send(i)) wrong = wrong + 1
    end do
    call check(wrong == 0, 'in-place MPI_Ireduce at the root', wrong)
    nonblocking_calls = nonblocking_calls + 3
  end subroutine

  ! An MPI_Waitsome loop over four collectives.
  subroutine waitsome_loop()
    integer :: gathered(0:nprocs-1), in_place(0:nprocs-1), excl(0:n-1), send(0:n-1)
    integer :: to_all(0:nprocs-1), from_all(0:nprocs-1), done, outcount, indices(4), i, j, wrong, seen(4)
    REQUEST_T :: reqs(4)
    STATUSES_DECL(statuses, 4)
    call fill(send, rank)
    do j = 0, nprocs - 1
      to_all(j) = 100 * rank + j
      in_place(j) = -1
    end do
    in_place(rank) = 7 * rank
    excl = -1
    call MPI_Iallgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Iexscan(send, excl, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Ialltoall(to_all, 1, MPI_INTEGER, from_all, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(4), ierr)
    done = 0
    seen = 0
    do while (done < 4)
      call MPI_Waitsome(4, reqs, outcount, indices, statuses, ierr)
      do i = 1, outcount
        call check(indices(i) >= first_index .and. indices(i) <= 3 + first_index, 'MPI_Waitsome indices from 1', indices(i))
        if (indices(i) >= first_index .and. indices(i) <= 3 + first_index) &
          seen(indices(i) + 1 - first_index) = seen(indices(i) + 1 - first_index) + 1
      end do
      done = done + outcount
    end do
    call check(all(seen == 1), 'MPI_Waitsome returns each index once', sum(seen))
    call MPI_Waitsome(4, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    call check(outcount == MPI_UNDEFINED, 'MPI_Waitsome on null requests', outcount)
    wrong = 0
    do j = 0, nprocs - 1
      if (gathered(j) /= j .or. from_all(j) /= 100 * j + rank .or. in_place(j) /= 7 * j) wrong = wrong + 1
    end do
    call check(wrong == 0, 'MPI_Iallgather (also in place) and MPI_Ialltoall under MPI_Waitsome', wrong)
    if (rank > 0) call check(wrong_sums(excl, rank) == 0, 'MPI_Iexscan', wrong_sums(excl, rank))
    nonblocking_calls = nonblocking_calls + 4
  end subroutine

  ! The rooted and v collectives under MPI_Testall and MPI_Testany polling.
  subroutine testall_and_testany()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), total, j, k, wrong, idx, done, root, twice
    integer :: mine(0:nprocs), all_v(0:(nprocs*(nprocs+1))/2), gathered(0:nprocs-1), scattered, piece(0:nprocs)
    integer :: scounts(0:nprocs-1), sdispls(0:nprocs-1), rcounts(0:nprocs-1), rdispls(0:nprocs-1)
    integer, allocatable :: a2a_send(:), a2a_recv(:), rs_send(:)
    integer :: rs_block(0:nprocs), rsb(2), gv(0:(nprocs*(nprocs+1))/2), sv_send(0:(nprocs*(nprocs+1))/2)
    logical :: flag
    REQUEST_T :: reqs(8)
    root = mod(1, nprocs)
    total = 0
    do j = 0, nprocs - 1
      counts(j) = j + 1
      displs(j) = total
      total = total + j + 1
    end do
    do k = 0, rank
      mine(k) = 10 * rank + k
    end do
    do j = 0, nprocs - 1
      do k = 0, j
        sv_send(displs(j) + k) = 1000 + 10 * j + k
      end do
    end do
    ! alltoallv: rank r sends r + j + 1 copies of 1000 r + j to rank j
    do j = 0, nprocs - 1
      scounts(j) = rank + j + 1
      rcounts(j) = j + rank + 1
    end do
    sdispls(0) = 0
    rdispls(0) = 0
    do j = 1, nprocs - 1
      sdispls(j) = sdispls(j - 1) + scounts(j - 1)
      rdispls(j) = rdispls(j - 1) + rcounts(j - 1)
    end do
    allocate(a2a_send(0:sum(scounts)), a2a_recv(0:sum(rcounts)), rs_send(0:2*nprocs+total))
    do j = 0, nprocs - 1
      a2a_send(sdispls(j):sdispls(j) + scounts(j) - 1) = 1000 * rank + j
    end do
    do k = 0, 2 * nprocs + total
      rs_send(k) = value(rank, k)
    end do

    twice = 2 * rank ! a non-blocking call's buffer must outlive the call: no expression
    call MPI_Igather(twice, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, root, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Iscatter(sv_send, 1, MPI_INTEGER, scattered, 1, MPI_INTEGER, root, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Igatherv(mine, rank + 1, MPI_INTEGER, gv, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Iscatterv(sv_send, counts, displs, MPI_INTEGER, piece, rank + 1, MPI_INTEGER, root, MPI_COMM_WORLD, &
                       reqs(4), ierr)
    call MPI_Testall(4, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    do while (.not. flag)
      call MPI_Testall(4, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_Iallgatherv(mine, rank + 1, MPI_INTEGER, all_v, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, reqs(5), ierr)
    call MPI_Ialltoallv(a2a_send, scounts, sdispls, MPI_INTEGER, a2a_recv, rcounts, rdispls, MPI_INTEGER, &
                        MPI_COMM_WORLD, reqs(6), ierr)
    call MPI_Ireduce_scatter(rs_send, rs_block, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(7), ierr)
    call MPI_Ireduce_scatter_block(rs_send, rsb, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(8), ierr)
    done = 0
    do while (done < 4)
      call MPI_Testany(4, reqs(5:8), idx, flag, MPI_STATUS_IGNORE, ierr)
      if (flag .and. idx /= MPI_UNDEFINED) then
        call check(idx >= first_index .and. idx <= 3 + first_index, 'MPI_Testany index from 1', idx)
        done = done + 1
      end if
    end do

    wrong = 0
    if (rank == root) then
      do j = 0, nprocs - 1
        if (gathered(j) /= 2 * j) wrong = wrong + 1
        do k = 0, j
          if (gv(displs(j) + k) /= 10 * j + k) wrong = wrong + 1
        end do
      end do
    end if
    call check(wrong == 0, 'MPI_Igather and MPI_Igatherv under MPI_Testall', wrong)
    wrong = 0
    if (scattered /= sv_send(rank)) wrong = wrong + 1
    do k = 0, rank
      if (piece(k) /= 1000 + 10 * rank + k) wrong = wrong + 1
    end do
    call check(wrong == 0, 'MPI_Iscatter and MPI_Iscatterv under MPI_Testall', wrong)
    wrong = 0
    do j = 0, nprocs - 1
      do k = 0, j
        if (all_v(displs(j) + k) /= 10 * j + k) wrong = wrong + 1
      end do
      if (any(a2a_recv(rdispls(j):rdispls(j) + rcounts(j) - 1) /= 1000 * j + rank)) wrong = wrong + 1
    end do
    call check(wrong == 0, 'MPI_Iallgatherv and MPI_Ialltoallv under MPI_Testany', wrong)
    wrong = 0
    do k = 0, rank
      if (rs_block(k) /= sum_upto(nprocs, displs(rank) + k)) wrong = wrong + 1
    end do
    do k = 1, 2
      if (rsb(k) /= sum_upto(nprocs, 2 * rank + k - 1)) wrong = wrong + 1
    end do
    call check(wrong == 0, 'MPI_Ireduce_scatter and MPI_Ireduce_scatter_block', wrong)
    nonblocking_calls = nonblocking_calls + 8
  end subroutine

  ! An MPI_Testsome loop whose statuses are read: the ring message sits third in the array.
  subroutine testsome_with_statuses()
    integer :: ring_in, ring_out, done, outcount, indices(3), i, k
    logical :: got_ring
    REQUEST_T :: reqs(3)
    STATUSES_DECL(statuses, 3)
    ring_out = 200 + rank
    ring_in = -1
    call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(ring_out, 1, MPI_INTEGER, mod(rank + 1, nprocs), 10, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Irecv(ring_in, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 10, MPI_COMM_WORLD, reqs(3), ierr)
    done = 0
    got_ring = .false.
    do while (done < 3)
      call MPI_Testsome(3, reqs, outcount, indices, statuses, ierr)
      if (outcount == MPI_UNDEFINED) exit
      do k = 1, outcount
        i = indices(k) + 1 - first_index
        if (i == 3) then
          got_ring = .true.
          call check(SOURCE_IN(statuses, k) == mod(rank - 1 + nprocs, nprocs), 'MPI_Testsome status source', k)
        end if
      end do
      done = done + outcount
    end do
    call check(done == 3 .and. got_ring .and. ring_in == 200 + mod(rank - 1 + nprocs, nprocs), &
               'MPI_Testsome on a collective and the ring messages', done)
    nonblocking_calls = nonblocking_calls + 1
  end subroutine

  ! MPI_Request_free of the program's own send; MPI_Request_get_status polling a collective. It passes a
  ! status: Open MPI 4.1's Fortran MPI_Request_get_status answers .false. forever for MPI_STATUS_IGNORE
  ! (open-mpi/ompi#13671, fixed in 2026).
  subroutine freed_and_status()
    integer :: token, got, parts(0:nprocs-1), part, j
    logical :: flag
    REQUEST_T :: sreq, rreq, creq
    STATUS_DECL(status)
    token = 500 + rank
    call MPI_Irecv(got, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 9, MPI_COMM_WORLD, rreq, ierr)
    call MPI_Isend(token, 1, MPI_INTEGER, mod(rank + 1, nprocs), 9, MPI_COMM_WORLD, sreq, ierr)
    call MPI_Request_free(sreq, ierr)
    call check(all_null([sreq]), 'MPI_Request_free sets MPI_REQUEST_NULL', ierr)
    parts = [(11 * j, j = 0, nprocs - 1)]
    part = -1
    call MPI_Iscatter(parts, 1, MPI_INTEGER, part, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, creq, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Request_get_status(creq, flag, status, ierr)
    end do
    call check(.not. all_null([creq]), 'MPI_Request_get_status leaves the request', 0)
    call MPI_Wait(creq, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(rreq, MPI_STATUS_IGNORE, ierr)
    call check(part == 11 * rank, 'MPI_Iscatter seen done by MPI_Request_get_status', part)
    call check(got == 500 + mod(rank - 1 + nprocs, nprocs), 'the freed send arrived', got)
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! the freed send is complete everywhere before its buffer goes
    nonblocking_calls = nonblocking_calls + 1
  end subroutine

  ! A communicator of the program's own (its handle converted, its shadow freed with it).
  subroutine duplicated_communicator()
    COMM_T :: reversed
    integer :: send(0:n-1), sums(0:n-1), crank
    REQUEST_T :: req
    call MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, reversed, ierr)
    call MPI_Comm_rank(reversed, crank, ierr)
    call fill(send, crank)
    call MPI_Iallreduce(send, sums, n, MPI_INTEGER, MPI_SUM, reversed, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(crank == nprocs - 1 - rank .and. wrong_sums(sums, nprocs) == 0, 'MPI_Iallreduce on a split', crank)
    call MPI_Ibarrier(reversed, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Comm_free(reversed, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_free of a communicator Tandem used', ierr)
    nonblocking_calls = nonblocking_calls + 2
  end subroutine

  ! Every blocking collective (Tandem's with TANDEM_INTERPOSE=all, MPI's otherwise).
  subroutine blocking_collectives()
    integer :: send(0:n-1), got(0:n-1), one, many(0:nprocs-1), counts(0:nprocs-1), displs(0:nprocs-1)
    integer :: big(0:2*nprocs-1), j, wrong, root
    root = nprocs - 1
    call fill(send, rank)
    wrong = 0
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(send, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    wrong = wrong + wrong_sums(got, nprocs)
    got = send
    call MPI_Allreduce(MPI_IN_PLACE, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    wrong = wrong + wrong_sums(got, nprocs)
    call MPI_Reduce(send, got, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    if (rank == root) wrong = wrong + wrong_sums(got, nprocs)
    one = 0
    if (rank == root) one = 77
    call MPI_Bcast(one, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (one /= 77) wrong = wrong + 1
    call MPI_Scan(send, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    wrong = wrong + wrong_sums(got, rank + 1)
    call MPI_Exscan(send, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank > 0) wrong = wrong + wrong_sums(got, rank)
    call MPI_Allgather(rank, 1, MPI_INTEGER, many, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    if (any(many /= [(j, j = 0, nprocs - 1)])) wrong = wrong + 1
    do j = 0, nprocs - 1
      counts(j) = 1
      displs(j) = j
      big(2 * j) = 10 * rank + j
      big(2 * j + 1) = -1
    end do
    call MPI_Allgatherv(rank + 1, 1, MPI_INTEGER, many, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    if (any(many /= [(j + 1, j = 0, nprocs - 1)])) wrong = wrong + 1
    call MPI_Gather(rank * 3, 1, MPI_INTEGER, many, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (rank == root .and. any(many /= [(3 * j, j = 0, nprocs - 1)])) wrong = wrong + 1
    call MPI_Gatherv(rank * 5, 1, MPI_INTEGER, many, counts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (rank == root .and. any(many /= [(5 * j, j = 0, nprocs - 1)])) wrong = wrong + 1
    do j = 0, nprocs - 1
      many(j) = 9 * j
    end do
    call MPI_Scatter(many, 1, MPI_INTEGER, one, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (one /= 9 * rank) wrong = wrong + 1
    call MPI_Scatterv(many, counts, displs, MPI_INTEGER, one, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    if (one /= 9 * rank) wrong = wrong + 1
    call MPI_Alltoall(big, 2, MPI_INTEGER, got, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do j = 0, nprocs - 1
      if (got(2 * j) /= 10 * j + rank .or. got(2 * j + 1) /= -1) wrong = wrong + 1
    end do
    do j = 0, nprocs - 1
      displs(j) = 2 * j
    end do
    call MPI_Alltoallv(big, counts, displs, MPI_INTEGER, many, counts, [(j, j = 0, nprocs - 1)], MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    if (any(many /= [(10 * j + rank, j = 0, nprocs - 1)])) wrong = wrong + 1
    call MPI_Reduce_scatter_block(send, got, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (got(0) /= sum_upto(nprocs, rank)) wrong = wrong + 1
    call MPI_Reduce_scatter(send, got, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (got(0) /= sum_upto(nprocs, rank)) wrong = wrong + 1
    call check(wrong == 0, 'the blocking collectives', wrong)
  end subroutine

  ! A user op freed while the collective applying it runs (MPI lets it finish), and alltoallw.
  subroutine op_freed_in_flight()
#if BINDING == 3
    type(MPI_Op) :: op
    type(MPI_Datatype) :: types(0:nprocs-1)
#else
    integer :: op, types(0:nprocs-1)
#endif
    integer :: send(0:n-1), sums(0:n-1), counts(0:nprocs-1), displs(0:nprocs-1), many(0:nprocs-1), j
    REQUEST_T :: req
    call fill(send, rank)
    call MPI_Op_create(int_sum, .true., op, ierr)
    call MPI_Iallreduce(send, sums, n, MPI_INTEGER, op, MPI_COMM_WORLD, req, ierr)
    call MPI_Op_free(op, ierr)
    call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL', 0)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(wrong_sums(sums, nprocs) == 0, 'MPI_Iallreduce with a user op freed before the wait', 0)
    nonblocking_calls = nonblocking_calls + 1
    do j = 0, nprocs - 1
      counts(j) = 1
      displs(j) = 4 * j ! bytes
      types(j) = MPI_INTEGER
      send(j) = 100 * rank + j
    end do
    call MPI_Alltoallw(send, counts, displs, types, many, counts, displs, types, MPI_COMM_WORLD, ierr)
    call check(all(many == [(100 * j + rank, j = 0, nprocs - 1)]), 'MPI_Alltoallw', 0)
  end subroutine

  ! A bad argument (a root past the last rank) comes back in ierror with MPI's class (Tandem refuses
  ! it, MPI reports it), under MPI_ERRORS_RETURN; the program goes on.
  subroutine bad_argument()
    integer :: buf(4), class, ierr2
    REQUEST_T :: req
    buf = rank
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Ibcast(buf, 4, MPI_INTEGER, nprocs, MPI_COMM_WORLD, req, ierr)
    class = MPI_SUCCESS
    if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, class, ierr2)
    call check(class == MPI_ERR_ROOT, 'MPI_Ibcast with root = size gives MPI_ERR_ROOT', class)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  end subroutine

end program

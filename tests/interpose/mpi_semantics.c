/*
 * A plain MPI program on the corners of MPI's semantics that real programs and suites rely on: a user
 * op freed while the collectives using it are in flight, datatypes of no bytes given non-zero counts,
 * (type, op) pairs outside the standard's list that the MPI accepts anyway (MPI_SUM on MPI_CHAR, as
 * the OSU benchmarks use it), alltoallw with a datatype per rank, persistent collectives and MPI 4's
 * large-count functions. Built plain and with the interposer: the results are compared with
 * values computed here or with MPI's own collectives (called by their PMPI names, which the interposer
 * does not take, on `world`: a duplicate of MPI_COMM_WORLD, the application's ranks in dcp progress),
 * and interposed, Tandem must have served the calls (EXPECT_INTERPOSED=1).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPICH's MPI_Waitall declares its status array's size: GCC then takes MPI_STATUSES_IGNORE, a constant
 * pointer, for an empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int served_by_tandem(long *served, long *native);

static int rank, size, failures, checks, interposed;
static MPI_Comm world; /* MPI_COMM_WORLD's duplicate, for the PMPI calls */

static void check(int ok, const char *what, long arg)
{
    checks++;
    if (!ok && ++failures <= 20)
        fprintf(stderr, "[mpi_semantics rank %d] FAIL: %s (%ld)\n", rank, what, arg);
}

static long served_now(void)
{
    long served, native;
    served_by_tandem(&served, &native);
    return served;
}

/* ---- user ops freed before their collectives complete ---- */

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* x -> m x + c (mod 2^32): composing maps is associative, not commutative, so a wrong order shows. */
typedef struct {
    uint32_t m, c;
} affine;

static affine then(affine first, affine second) /* first, then second */
{
    return (affine){second.m * first.m, second.m * first.c + second.c};
}

static void compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    affine *a = in, *b = inout; /* in comes from lower ranks: it applies first */
    for (int i = 0; i < *len; i++)
        b[i] = then(a[i], b[i]);
}

static affine map_of(int r, int i) { return (affine){2u * (uint32_t)(r + i) + 1u, (uint32_t)(7 * r + i)}; }

#define NOPS 64

static void freed_ops(void)
{
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);
    MPI_Op sum, comp;
    MPI_Op_create(int_sum, 1, &sum);
    MPI_Op_create(compose, 0, &comp);

    int mine[NOPS], total[NOPS];
    affine maps[NOPS], reduced[NOPS], scanned[NOPS];
    for (int i = 0; i < NOPS; i++) {
        mine[i] = rank * 100 + i;
        maps[i] = map_of(rank, i);
    }
    MPI_Request reqs[3];
    MPI_Iallreduce(mine, total, NOPS, MPI_INT, sum, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ireduce(maps, reduced, NOPS, pair, comp, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Iscan(maps, scanned, NOPS, pair, comp, MPI_COMM_WORLD, &reqs[2]);
    MPI_Op_free(&sum); /* MPI lets the calls in flight finish with them */
    MPI_Op_free(&comp);
    MPI_Type_free(&pair);
    check(sum == MPI_OP_NULL && comp == MPI_OP_NULL, "MPI_Op_free sets the handle to MPI_OP_NULL", 0);
    /* new ops may take the freed ones' handles: they must not be mistaken for them */
    MPI_Op other;
    MPI_Op_create(int_sum, 1, &other);
    int again = -1, one = 1;
    MPI_Allreduce(&one, &again, 1, MPI_INT, other, MPI_COMM_WORLD);
    check(again == size, "a new op after freed ones", again);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    MPI_Op_free(&other);

    int wrong = 0;
    for (int i = 0; i < NOPS; i++)
        wrong += total[i] != 100 * size * (size - 1) / 2 + size * i;
    check(wrong == 0, "MPI_Iallreduce with a user op freed before the wait", wrong);
    wrong = 0;
    for (int i = 0; i < NOPS; i++) {
        affine expect = map_of(0, i);
        for (int r = 1; r <= rank; r++)
            expect = then(expect, map_of(r, i));
        wrong += scanned[i].m != expect.m || scanned[i].c != expect.c;
        for (int r = rank + 1; r < size; r++)
            expect = then(expect, map_of(r, i));
        if (rank == 0)
            wrong += reduced[i].m != expect.m || reduced[i].c != expect.c;
    }
    check(wrong == 0, "MPI_Ireduce and MPI_Iscan with a non-commutative op freed before the wait", wrong);
}

/* ---- datatypes of no bytes with counts that are not zero ---- */

#define SENTINEL (-7)
#define NBUF 64

static int untouched(const int *buf)
{
    int changed = 0;
    for (int i = 0; i < NBUF; i++)
        changed += buf[i] != SENTINEL;
    return changed;
}

/* For reductions over empty elements (Open MPI refuses predefined ops on an empty datatype). */
static void no_elements(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)type;
    if (*len < 0)
        abort();
}

static void empty_types(void)
{
#if defined(MPICH)
    if (!interposed)
        return; /* MPICH's own (4.0) wait forever on several of these (MPI_Iallgatherv, MPI_Ialltoallv) */
    const int open_mpi = 0;
#else
    const int open_mpi = 1;
#endif
    MPI_Op op;
    MPI_Op_create(no_elements, 1, &op);
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int sbuf[NBUF], rbuf[NBUF];
    int *counts = malloc(sizeof(int) * (size_t)size), *zeros = calloc((size_t)size, sizeof(int));
    int *displs = calloc((size_t)size, sizeof(int));
    for (int i = 0; i < size; i++)
        counts[i] = 3;
    for (int i = 0; i < NBUF; i++)
        sbuf[i] = rbuf[i] = SENTINEL;
    long before = served_now();
    MPI_Request req;
    /* each as a non-blocking call, waited at once: a hang fails the test by its timeout */
#define RUN(call, what)                                                                                 \
    do {                                                                                                \
        call;                                                                                           \
        MPI_Wait(&req, MPI_STATUS_IGNORE);                                                              \
        check(untouched(rbuf) == 0 && untouched(sbuf) == 0, what ": no byte written", untouched(rbuf)); \
    } while (0)
    RUN(MPI_Ibcast(rbuf, 5, empty, 0, MPI_COMM_WORLD, &req), "MPI_Ibcast of 5 empty elements");
    RUN(MPI_Iallreduce(sbuf, rbuf, 4, empty, op, MPI_COMM_WORLD, &req), "MPI_Iallreduce of empty elements");
    RUN(MPI_Ireduce(sbuf, rbuf, 4, empty, op, size - 1, MPI_COMM_WORLD, &req), "MPI_Ireduce of empty elements");
    RUN(MPI_Iscan(sbuf, rbuf, 4, empty, op, MPI_COMM_WORLD, &req), "MPI_Iscan of empty elements");
    RUN(MPI_Iexscan(sbuf, rbuf, 4, empty, op, MPI_COMM_WORLD, &req), "MPI_Iexscan of empty elements");
    if (interposed || !open_mpi) { /* Open MPI's own (4.1) fail with MPI_ERR_SIZE: an extent of 0 */
        RUN(MPI_Ireduce_scatter_block(sbuf, rbuf, 2, empty, op, MPI_COMM_WORLD, &req),
            "MPI_Ireduce_scatter_block of empty elements");
        RUN(MPI_Ireduce_scatter(sbuf, rbuf, counts, empty, op, MPI_COMM_WORLD, &req),
            "MPI_Ireduce_scatter of empty elements");
    }
    /* the two sides' signatures match (both empty) with different counts */
    RUN(MPI_Igather(sbuf, 3, empty, rbuf, 0, MPI_INT, 0, MPI_COMM_WORLD, &req), "MPI_Igather: 3 empty, 0 int");
    RUN(MPI_Igather(sbuf, 0, MPI_INT, rbuf, 2, empty, 0, MPI_COMM_WORLD, &req), "MPI_Igather: 0 int, 2 empty");
    RUN(MPI_Igatherv(sbuf, 3, empty, rbuf, zeros, displs, MPI_INT, 0, MPI_COMM_WORLD, &req),
        "MPI_Igatherv: 3 empty, 0 int");
    RUN(MPI_Iscatter(sbuf, 0, MPI_INT, rbuf, 3, empty, 0, MPI_COMM_WORLD, &req), "MPI_Iscatter: 0 int, 3 empty");
    RUN(MPI_Iscatterv(sbuf, counts, displs, empty, rbuf, 0, MPI_INT, 0, MPI_COMM_WORLD, &req),
        "MPI_Iscatterv: 3 empty, 0 int");
    RUN(MPI_Iallgather(sbuf, 3, empty, rbuf, 0, MPI_INT, MPI_COMM_WORLD, &req), "MPI_Iallgather: 3 empty, 0 int");
    RUN(MPI_Iallgatherv(sbuf, 0, MPI_INT, rbuf, counts, displs, empty, MPI_COMM_WORLD, &req),
        "MPI_Iallgatherv: 0 int, 3 empty");
    RUN(MPI_Ialltoall(sbuf, 1, empty, rbuf, 0, MPI_INT, MPI_COMM_WORLD, &req), "MPI_Ialltoall: 1 empty, 0 int");
    RUN(MPI_Ialltoallv(sbuf, counts, displs, empty, rbuf, zeros, displs, MPI_INT, MPI_COMM_WORLD, &req),
        "MPI_Ialltoallv: 3 empty, 0 int");
    RUN(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, counts, displs, empty,
                       MPI_COMM_WORLD, &req),
        "MPI_Ialltoallv in place of 3 empty");
    /* and blocking, as the reported program did */
    MPI_Alltoallv(sbuf, counts, displs, empty, rbuf, zeros, displs, MPI_INT, MPI_COMM_WORLD);
    check(untouched(rbuf) == 0, "MPI_Alltoallv: 3 empty, 0 int", untouched(rbuf));
    MPI_Bcast(rbuf, 2, empty, size - 1, MPI_COMM_WORLD);
    check(untouched(rbuf) == 0, "MPI_Bcast of 2 empty elements", untouched(rbuf));
#undef RUN
    if (interposed)
        check(served_now() - before >= 17, "the calls with empty types were Tandem's", served_now() - before);
    MPI_Type_free(&empty);
    MPI_Op_free(&op);
    free(counts);
    free(zeros);
    free(displs);
}

/* ---- alltoallw: a datatype per rank, displacements in bytes ---- */

/* Rank r and rank j exchange 2 ints where r + j is even, 1 double and a vector of 3 shorts (stride 2)
 * where it is odd: per-rank datatypes, byte displacements in reverse rank order. Compared with MPI's
 * own alltoallw (PMPI), out of place and in place. */
static void alltoallw_mixed(void)
{
    MPI_Datatype dbl_vec, shorts;
    MPI_Type_vector(3, 1, 2, MPI_SHORT, &shorts);
    int lens[2] = {1, 1};
    MPI_Aint offsets[2] = {0, 16};
    MPI_Datatype parts[2] = {MPI_DOUBLE, shorts};
    MPI_Type_create_struct(2, lens, offsets, parts, &dbl_vec);
    MPI_Type_commit(&dbl_vec);
    MPI_Type_free(&shorts);
    enum { BLOCK = 32 }; /* bytes reserved per rank */
    int n = size;
    int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
    unsigned char *send = malloc((size_t)n * BLOCK), *ours = malloc((size_t)n * BLOCK),
                  *theirs = malloc((size_t)n * BLOCK);
    for (int j = 0; j < n; j++) {
        int ints = (rank + j) % 2 == 0;
        counts[j] = ints ? 2 : 1;
        types[j] = ints ? MPI_INT : dbl_vec;
        displs[j] = (n - 1 - j) * BLOCK;
    }
    for (int b = 0; b < n * BLOCK; b++)
        send[b] = (unsigned char)(rank * 29 + b * 7);
#if defined(MPICH)
    int in_place_max = interposed; /* MPICH's own (4.0) in-place MPI_Ialltoallw fails: "Invalid datatype" */
#else
    int in_place_max = 1;
#endif
    for (int in_place = 0; in_place <= in_place_max; in_place++) {
        memset(ours, 0xee, (size_t)n * BLOCK);
        memset(theirs, 0xee, (size_t)n * BLOCK);
        if (in_place) {
            memcpy(ours, send, (size_t)n * BLOCK);
            memcpy(theirs, send, (size_t)n * BLOCK);
        }
        long before = served_now();
        MPI_Request req;
        MPI_Ialltoallw(in_place ? MPI_IN_PLACE : send, counts, displs, types, ours, counts, displs, types,
                       MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (interposed)
            check(served_now() - before == 1, "MPI_Ialltoallw served by Tandem", served_now() - before);
        PMPI_Alltoallw(in_place ? MPI_IN_PLACE : send, counts, displs, types, theirs, counts, displs, types,
                       world);
        check(memcmp(ours, theirs, (size_t)n * BLOCK) == 0, in_place ? "in-place MPI_Ialltoallw: MPI's bytes"
                                                                     : "MPI_Ialltoallw: MPI's bytes", in_place);
    }
    MPI_Type_free(&dbl_vec);
    free(counts);
    free(displs);
    free(types);
    free(send);
    free(ours);
    free(theirs);
}

/* ---- persistent collectives (MPI-4, or Open MPI's MPIX_ forms) ---- */

#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif
#if MPI_VERSION >= 4
#define INIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(name) MPIX_##name##_init
#endif

#ifdef INIT
/* Three persistent collectives built once and started 3 times with new data (MPI_Start, MPI_Startall),
 * completed in one MPI_Waitall with the program's own ring exchange; against MPI's own calls. */
static void persistent_collectives(void)
{
    enum { N = 40 };
    int in[N], sum[N], bc[N], gathered[N * 16], ref[N * 16], ring_in = -1, ring_out;
    long before = served_now();
    MPI_Request reqs[4];
    INIT(Allreduce)(in, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    INIT(Bcast)(bc, N, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    INIT(Allgather)(in, 2, MPI_INT, gathered, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]);
    if (interposed)
        check(served_now() - before == 3, "persistent collectives served by Tandem", served_now() - before);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            in[i] = rank * 1000 + round * 10 + i;
            bc[i] = rank == size - 1 ? -in[i] : 0;
        }
        ring_out = rank * 10 + round;
        MPI_Irecv(&ring_in, 1, MPI_INT, (rank - 1 + size) % size, 3, MPI_COMM_WORLD, &reqs[3]);
        if (round == 1) {
            MPI_Startall(3, reqs);
        } else {
            for (int k = 0; k < 3; k++)
                MPI_Start(&reqs[k]);
        }
        MPI_Send(&ring_out, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        check(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL, "persistent requests stay after the wait",
              round);
        check(ring_in == ((rank - 1 + size) % size) * 10 + round, "the ring message beside them", ring_in);
        PMPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, world);
        check(memcmp(sum, ref, sizeof(int) * N) == 0, "persistent allreduce: MPI's result", round);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += bc[i] != -((size - 1) * 1000 + round * 10 + i);
        check(wrong == 0, "persistent bcast: the root's data", round);
        PMPI_Allgather(in, 2, MPI_INT, ref, 2, MPI_INT, world);
#if defined(MPICH) /* MPICH's own (4.0) keeps the other ranks' blocks of the first start */
        if (interposed || round == 0)
#endif
            check(memcmp(gathered, ref, sizeof(int) * 2 * (size_t)size) == 0, "persistent allgather: MPI's result",
                  round);
    }
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&reqs[k]);
    check(reqs[0] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL, "MPI_Request_free of persistent requests", 0);
}
#else
static void persistent_collectives(void) {} /* this MPI has none */
#endif

/* ---- the large-count (_c) functions of MPI 4 ---- */

#if MPI_VERSION >= 4
/* Served by Tandem where the counts fit in int; against MPI's own int calls. */
static void large_count_functions(void)
{
    enum { N = 24 };
    int in[N * 16], got[N * 16], ref[N * 16];
    MPI_Count counts[16];
    MPI_Aint displs[16];
    for (int i = 0; i < N * 16; i++)
        in[i] = rank * 100 + i;
    for (int j = 0; j < size; j++)
        counts[j] = 2, displs[j] = (MPI_Aint)j * 3;
    long before = served_now();
    MPI_Request req;
    MPI_Iallreduce_c(in, got, (MPI_Count)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, world);
    check(memcmp(got, ref, sizeof(int) * N) == 0, "MPI_Iallreduce_c: MPI's result", 0);
    int icounts[16], idispls[16];
    for (int j = 0; j < size; j++)
        icounts[j] = 2, idispls[j] = j * 3;
    memset(got, 0, sizeof got);
    memset(ref, 0, sizeof ref);
    MPI_Ialltoallv_c(in, counts, displs, MPI_INT, got, counts, displs, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Alltoallv(in, icounts, idispls, MPI_INT, ref, icounts, idispls, MPI_INT, world);
    check(memcmp(got, ref, sizeof(int) * 3 * (size_t)size) == 0, "MPI_Ialltoallv_c: MPI's result", 0);
    MPI_Allreduce_init_c(in, got, (MPI_Count)N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    PMPI_Allreduce(in, ref, N, MPI_INT, MPI_MAX, world);
    check(memcmp(got, ref, sizeof(int) * N) == 0, "MPI_Allreduce_init_c: MPI's result", 0);
    if (interposed)
        check(served_now() - before == 3, "the _c calls served by Tandem", served_now() - before);
    /* half the ranks call the int form of a small blocking call, half its _c form: one call (on one node
     * the int forms take Tandem's lines; the _c forms must too) */
    for (int root = 0; root < size; root++) {
        memcpy(got, in, sizeof(int) * N);
        if (rank % 2)
            MPI_Bcast_c(got, (MPI_Count)N, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Bcast(got, N, MPI_INT, root, MPI_COMM_WORLD);
        memcpy(ref, in, sizeof(int) * N);
        PMPI_Bcast(ref, N, MPI_INT, root, world);
        check(memcmp(got, ref, sizeof(int) * N) == 0, "MPI_Bcast and MPI_Bcast_c in one call: MPI's result", root);
    }
    if (rank % 2)
        MPI_Allreduce_c(in, got, (MPI_Count)N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Allreduce(in, got, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, world);
    check(memcmp(got, ref, sizeof(int) * N) == 0, "MPI_Allreduce and MPI_Allreduce_c in one call: MPI's result", 0);
}
#else
static void large_count_functions(void) {} /* this MPI has none */
#endif

/* ---- (type, op) pairs the MPI accepts beyond the standard's list ---- */

static void pairs_the_mpi_accepts(void)
{
    enum { N = 300 };
    char mine[N], got[N], reference[N];
    /* sums that fit in a char: Open MPI 4.1 adds chars with saturation, which makes the result depend on
     * the order of the additions, and Tandem's order is not MPI's */
    for (int i = 0; i < N; i++)
        mine[i] = (char)((rank * 37 + i) % (128 / size));
    long before = served_now();
    MPI_Request req;
    MPI_Iallreduce(mine, got, N, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &req); /* osu_iallreduce's default */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Allreduce(mine, reference, N, MPI_CHAR, MPI_SUM, world);
    check(memcmp(got, reference, N) == 0, "MPI_SUM on MPI_CHAR: the bytes MPI's own allreduce gives", 0);
    if (interposed)
        check(served_now() - before == 1, "MPI_SUM on MPI_CHAR served by Tandem", served_now() - before);

    /* what the MPI refuses, it refuses through Tandem with the same error class */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int a = rank, b = -1, ours, theirs;
    MPI_Error_class(MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_MINLOC, comm), &ours);
    MPI_Error_class(PMPI_Allreduce(&a, &b, 1, MPI_INT, MPI_MINLOC, comm), &theirs);
    check(ours == theirs && ours != MPI_SUCCESS, "MPI_MINLOC on MPI_INT refused with MPI's own error class", ours);
#ifndef OPEN_MPI /* Open MPI 4.1 does not check for it: it crashes, as the interposer then does in it */
    /* no request to hand the call back in: refused as MPI refuses it, nothing started */
    MPI_Error_class(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, comm, NULL), &ours);
    MPI_Error_class(PMPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, comm, NULL), &theirs);
    check(ours == theirs && ours != MPI_SUCCESS, "MPI_Iallreduce with no request refused with MPI's own error class",
          ours);
#ifdef INIT
    MPI_Error_class(INIT(Allreduce)(&a, &b, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, NULL), &ours);
    check(ours != MPI_SUCCESS, "a persistent allreduce with no request refused", ours);
#endif
#endif
    b = -1;
    MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, comm); /* the communicator still works */
    check(b == size * (size - 1) / 2, "an allreduce after the refused calls", b);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    long served, native;
    interposed = served_by_tandem(&served, &native);
    const char *expect = getenv("EXPECT_INTERPOSED");
    if (expect)
        check(interposed == (strcmp(expect, "1") == 0), "the interposer is loaded as expected", interposed);
    for (int rep = 0; rep < 2; rep++) {
        freed_ops();
        empty_types();
        pairs_the_mpi_accepts();
        alltoallw_mixed();
        if (size <= 16) {
            persistent_collectives();
            large_count_functions();
        }
    }
    int all_failures = 0;
    MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_semantics (%d ranks): %d checks, %d failed: %s\n", size, checks, all_failures,
               all_failures ? "FAIL" : "PASS");
    MPI_Comm_free(&world);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}

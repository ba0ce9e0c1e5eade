/*
 * The Fortran bindings of the collectives with choice buffers (Open MPI only: see fortran.h).
 */
#include "fortran.h"

#include <stdlib.h>

/* ---- non-blocking collectives ---- */

static void ibcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                   MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ibcast(BUF(buf), *count, TYPE(type), *root, COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_ibcast, ibcast);

static void ireduce(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                    MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ireduce(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), *root, COMM(comm), &r), &r, request,
                  ierr);
}
FORTRAN_NAMES(mpi_ireduce, ireduce);

static void iallreduce(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                       MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iallreduce(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm), &r), &r, request,
                  ierr);
}
FORTRAN_NAMES(mpi_iallreduce, iallreduce);

static void igather(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Igather(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), *root, COMM(comm),
                              &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_igather, igather);

static void igatherv(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts, MPI_Fint *displs,
                     MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Igatherv(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), rcounts, displs, TYPE(rtype), *root,
                               COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_igatherv, igatherv);

static void iscatter(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iscatter(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), *root, COMM(comm),
                               &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_iscatter, iscatter);

static void iscatterv(void *sbuf, MPI_Fint *scounts, MPI_Fint *displs, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                      MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iscatterv(BUF(sbuf), scounts, displs, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), *root,
                                COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_iscatterv, iscatterv);

static void iallgather(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iallgather(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), COMM(comm), &r),
                  &r, request, ierr);
}
FORTRAN_NAMES(mpi_iallgather, iallgather);

static void iallgatherv(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,
                        MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iallgatherv(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), rcounts, displs, TYPE(rtype),
                                  COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_iallgatherv, iallgatherv);

static void ireduce_scatter(void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                            MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ireduce_scatter(BUF(sbuf), BUF(rbuf), rcounts, TYPE(type), OP(op), COMM(comm), &r), &r,
                  request, ierr);
}
FORTRAN_NAMES(mpi_ireduce_scatter, ireduce_scatter);

static void ireduce_scatter_block(void *sbuf, void *rbuf, MPI_Fint *rcount, MPI_Fint *type, MPI_Fint *op,
                                  MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ireduce_scatter_block(BUF(sbuf), BUF(rbuf), *rcount, TYPE(type), OP(op), COMM(comm), &r), &r,
                  request, ierr);
}
FORTRAN_NAMES(mpi_ireduce_scatter_block, ireduce_scatter_block);

static void ialltoall(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                      MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ialltoall(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), COMM(comm), &r),
                  &r, request, ierr);
}
FORTRAN_NAMES(mpi_ialltoall, ialltoall);

static void ialltoallv(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,
                       MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *request,
        MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ialltoallv(BUF(sbuf), scounts, sdispls, TYPE(stype), BUF(rbuf), rcounts, rdispls, TYPE(rtype),
                                 COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_ialltoallv, ialltoallv);

static void iscan(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                  MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iscan(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_iscan, iscan);

static void iexscan(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                    MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Iexscan(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_iexscan, iexscan);

/* ---- blocking collectives (the interposer routes them with TANDEM_INTERPOSE=all) ---- */

static void bcast(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Bcast(BUF(buf), *count, TYPE(type), *root, COMM(comm)));
}
FORTRAN_NAMES(mpi_bcast, bcast);

static void reduce(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                   MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Reduce(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), *root, COMM(comm)));
}
FORTRAN_NAMES(mpi_reduce, reduce);

static void allreduce(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                      MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Allreduce(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm)));
}
FORTRAN_NAMES(mpi_allreduce, allreduce);

static void gather(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                   MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Gather(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), *root,
                                    COMM(comm)));
}
FORTRAN_NAMES(mpi_gather, gather);

static void gatherv(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts, MPI_Fint *displs,
                    MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Gatherv(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), rcounts, displs, TYPE(rtype),
                                     *root, COMM(comm)));
}
FORTRAN_NAMES(mpi_gatherv, gatherv);

static void scatter(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Scatter(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), *root,
                                     COMM(comm)));
}
FORTRAN_NAMES(mpi_scatter, scatter);

static void scatterv(void *sbuf, MPI_Fint *scounts, MPI_Fint *displs, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                     MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Scatterv(BUF(sbuf), scounts, displs, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype),
                                      *root, COMM(comm)));
}
FORTRAN_NAMES(mpi_scatterv, scatterv);

static void allgather(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                      MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Allgather(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), COMM(comm)));
}
FORTRAN_NAMES(mpi_allgather, allgather);

static void allgatherv(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts, MPI_Fint *displs,
                       MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Allgatherv(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), rcounts, displs, TYPE(rtype),
                                        COMM(comm)));
}
FORTRAN_NAMES(mpi_allgatherv, allgatherv);

static void reduce_scatter(void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                           MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Reduce_scatter(BUF(sbuf), BUF(rbuf), rcounts, TYPE(type), OP(op), COMM(comm)));
}
FORTRAN_NAMES(mpi_reduce_scatter, reduce_scatter);

static void reduce_scatter_block(void *sbuf, void *rbuf, MPI_Fint *rcount, MPI_Fint *type, MPI_Fint *op,
                                 MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Reduce_scatter_block(BUF(sbuf), BUF(rbuf), *rcount, TYPE(type), OP(op), COMM(comm)));
}
FORTRAN_NAMES(mpi_reduce_scatter_block, reduce_scatter_block);

static void alltoall(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount, MPI_Fint *rtype,
                     MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Alltoall(BUF(sbuf), *scount, TYPE(stype), BUF(rbuf), *rcount, TYPE(rtype), COMM(comm)));
}
FORTRAN_NAMES(mpi_alltoall, alltoall);

static void alltoallv(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,
                      MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Alltoallv(BUF(sbuf), scounts, sdispls, TYPE(stype), BUF(rbuf), rcounts, rdispls,
                                       TYPE(rtype), COMM(comm)));
}
FORTRAN_NAMES(mpi_alltoallv, alltoallv);

/* The C datatypes of a Fortran array of n; NULL if out of memory. */
static MPI_Datatype *types_f2c(const MPI_Fint *types, int n)
{
    MPI_Datatype *c = malloc(sizeof *c * (n > 0 ? (size_t)n : 1));
    for (int i = 0; c && i < n; i++)
        c[i] = PMPI_Type_f2c(types[i]);
    return c;
}

/* Blocking only: the non-blocking form would have to keep its converted arrays until the call
 * completes, and goes to MPI's own binding. */
static void alltoallw(void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stypes, void *rbuf,
                      MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtypes, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = COMM(comm);
    int n = 0, inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    (inter ? PMPI_Comm_remote_size : PMPI_Comm_size)(c, &n);
    void *send = BUF(sbuf);
    MPI_Datatype *st = send == MPI_IN_PLACE ? NULL : types_f2c(stypes, n), *rt = types_f2c(rtypes, n);
    int rc = (send != MPI_IN_PLACE && !st) || !rt
                 ? MPI_ERR_NO_MEM
                 : MPI_Alltoallw(send, scounts, sdispls, st, BUF(rbuf), rcounts, rdispls, rt, c);
    free(st);
    free(rt);
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_alltoallw, alltoallw);

static void scan(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                 MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Scan(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm)));
}
FORTRAN_NAMES(mpi_scan, scan);

static void exscan(void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                   MPI_Fint *ierr)
{
    tdm_f_set_ierr(ierr, MPI_Exscan(BUF(sbuf), BUF(rbuf), *count, TYPE(type), OP(op), COMM(comm)));
}
FORTRAN_NAMES(mpi_exscan, exscan);

/*
 * The neighbourhood collectives (MPI-3 section 7.6) on Cartesian, graph and distributed graph
 * communicators: the neighbours come from the topology, in MPI's order (for a Cartesian topology,
 * dimension by dimension, the negative then the positive neighbour, MPI_PROC_NULL at an open end), and
 * the arguments are checked as MPI defines them. MPI_IN_PLACE has no meaning here and is refused.
 */
#include "../base/error.h"
#include "api_internal.h"
#include "check.h"
#include "chunked_calls.h"
#include "persistent.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        if (rc_ != MPI_SUCCESS)                                                                         \
            return rc_;                                                                                 \
    } while (0)

/* The neighbour lists of comm's topology into a (freed by the caller with *lists). */
static int neighbours(const char *fn, MPI_Comm comm, tdm_coll_args *a, int **lists)
{
    int status = MPI_UNDEFINED, rc = MPI_Topo_test(comm, &status), n = 0, in = 0, out = 0, weighted = 0;
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "MPI_Topo_test", rc);
    if (status == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        in = out = 2 * n;
    } else if (status == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, a->rank, &n);
        in = out = n;
    } else if (status == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    } else {
        return tdm_error(fn, MPI_ERR_TOPOLOGY, "comm has no topology (argument comm): neighbourhood collectives "
                                               "need a Cartesian, graph or distributed graph communicator");
    }
    int *l = *lists = malloc(sizeof(int) * (size_t)(2 * (in + out) + 1));
    if (!l)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the neighbour lists");
    int *sources = l, *dests = l + in, *weights = l + in + out;
    if (status == MPI_CART) {
        for (int d = 0; d < n; d++) {
            MPI_Cart_shift(comm, d, 1, &sources[2 * d], &sources[2 * d + 1]);
            dests[2 * d] = sources[2 * d];
            dests[2 * d + 1] = sources[2 * d + 1];
        }
        a->cartesian = 1;
    } else if (status == MPI_GRAPH) {
        MPI_Graph_neighbors(comm, a->rank, n, sources);
        for (int i = 0; i < n; i++)
            dests[i] = sources[i];
    } else {
        MPI_Dist_graph_neighbors(comm, in, sources, weighted ? weights : MPI_UNWEIGHTED, out, dests,
                                 weighted ? weights + in : MPI_UNWEIGHTED);
    }
    a->nsources = in;
    a->ndests = out;
    a->sources = sources;
    a->dests = dests;
    return MPI_SUCCESS;
}

static int no_in_place(const char *fn, const void *sendbuf, const void *recvbuf)
{
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in neighbourhood collectives (argument %s)",
                         sendbuf == MPI_IN_PLACE ? "sendbuf" : "recvbuf");
    return MPI_SUCCESS;
}

/* One block of count elements of type, n times over (n: 0 or 1 for a buffer that is read whole). */
static int check_block(const char *fn, const char *side, const void *buf, int count, MPI_Datatype type, int n,
                       tdm_typeinfo *info)
{
    char name[16];
    snprintf(name, sizeof name, "%scount", side);
    CHECK(tdm_check_count(fn, name, count));
    snprintf(name, sizeof name, "%stype", side);
    CHECK(tdm_check_type(fn, name, type, info));
    snprintf(name, sizeof name, "%sbuf", side);
    return tdm_check_buffer(fn, name, buf, n > 0 ? count : 0, type);
}

/* Blocks at displacements (in elements of one type). */
static int check_blocks_v(const char *fn, const char *side, const void *buf, const int *counts, tdm_displs displs,
                          MPI_Datatype type, int n, tdm_typeinfo *info)
{
    char counts_name[16], displs_name[16], name[16];
    snprintf(counts_name, sizeof counts_name, "%scounts", side);
    snprintf(displs_name, sizeof displs_name, "%sdispls", side[0] == 's' ? "s" : "r");
    CHECK(tdm_check_counts(fn, counts_name, counts, displs_name, displs, n));
    snprintf(name, sizeof name, "%stype", side);
    CHECK(tdm_check_type(fn, name, type, info));
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= counts[i] > 0;
    snprintf(name, sizeof name, "%sbuf", side);
    return tdm_check_buffer(fn, name, buf, any, type);
}

int tdm_neighbor_degrees(MPI_Comm comm, int *in, int *out)
{
    int status = MPI_UNDEFINED, n = 0, weighted, rank;
    *in = *out = 0;
    if (comm == MPI_COMM_NULL || MPI_Topo_test(comm, &status) != MPI_SUCCESS)
        return 0;
    if (status == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        *in = *out = 2 * n;
    } else if (status == MPI_GRAPH) {
        MPI_Comm_rank(comm, &rank);
        MPI_Graph_neighbors_count(comm, rank, &n);
        *in = *out = n;
    } else if (status == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
    return status != MPI_UNDEFINED;
}

/* Checks, builds and starts (or keeps, for _init) a call whose neighbour lists are in a. */
static int begin(const char *fn, MPI_Comm comm, TDM_Request *request, tdm_coll_kind kind, tdm_coll_args *a,
                 int **lists)
{
    *lists = NULL;
    CHECK(tdm_check_call(fn, comm, request, kind, a));
    return neighbours(fn, comm, a, lists);
}

static int finish(const char *fn, tdm_coll_args *a, MPI_Comm comm, TDM_Request *request, int *lists, int rc)
{
    if (rc == MPI_SUCCESS && (a->kind == TDM_COLL_NEIGHBOR_ALLGATHER || a->kind == TDM_COLL_NEIGHBOR_ALLTOALL) &&
        tdm_blocks_need_chunks(a)) {
        free(lists);
        return tdm_chunked_blocks(fn, a->kind, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                                  a->recvtype, 0, comm, request);
    }
    if (rc == MPI_SUCCESS)
        rc = tdm_coll_start(fn, a, comm, request); /* the lists are read while building, not after */
    free(lists);
    return rc;
}

int tdm_ineighbor_allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            TDM_Request *request)
{
    tdm_coll_args a;
    int *lists, rc = begin(fn, comm, request, TDM_COLL_NEIGHBOR_ALLGATHER, &a, &lists);
    if (rc == MPI_SUCCESS && (rc = no_in_place(fn, sendbuf, recvbuf)) == MPI_SUCCESS &&
        (rc = check_block(fn, "send", sendbuf, sendcount, sendtype, a.ndests, &a.stype)) == MPI_SUCCESS)
        rc = check_block(fn, "recv", recvbuf, recvcount, recvtype, a.nsources, &a.rtype);
    a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
    a.recvbuf = recvbuf, a.recvcount = recvcount, a.recvtype = recvtype;
    return finish(fn, &a, comm, request, lists, rc);
}

int tdm_ineighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype,
                             MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    int *lists, rc = begin(fn, comm, request, TDM_COLL_NEIGHBOR_ALLGATHERV, &a, &lists);
    if (rc == MPI_SUCCESS && (rc = no_in_place(fn, sendbuf, recvbuf)) == MPI_SUCCESS &&
        (rc = check_block(fn, "send", sendbuf, sendcount, sendtype, a.ndests, &a.stype)) == MPI_SUCCESS)
        rc = check_blocks_v(fn, "recv", recvbuf, recvcounts, displs, recvtype, a.nsources, &a.rtype);
    a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
    a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = displs, a.recvtype = recvtype;
    return finish(fn, &a, comm, request, lists, rc);
}

int tdm_ineighbor_alltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    int *lists, rc = begin(fn, comm, request, TDM_COLL_NEIGHBOR_ALLTOALL, &a, &lists);
    if (rc == MPI_SUCCESS && (rc = no_in_place(fn, sendbuf, recvbuf)) == MPI_SUCCESS &&
        (rc = check_block(fn, "send", sendbuf, sendcount, sendtype, a.ndests, &a.stype)) == MPI_SUCCESS)
        rc = check_block(fn, "recv", recvbuf, recvcount, recvtype, a.nsources, &a.rtype);
    a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
    a.recvbuf = recvbuf, a.recvcount = recvcount, a.recvtype = recvtype;
    return finish(fn, &a, comm, request, lists, rc);
}

int tdm_ineighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                            MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    int *lists, rc = begin(fn, comm, request, TDM_COLL_NEIGHBOR_ALLTOALLV, &a, &lists);
    if (rc == MPI_SUCCESS && (rc = no_in_place(fn, sendbuf, recvbuf)) == MPI_SUCCESS &&
        (rc = check_blocks_v(fn, "send", sendbuf, sendcounts, sdispls, sendtype, a.ndests, &a.stype)) == MPI_SUCCESS)
        rc = check_blocks_v(fn, "recv", recvbuf, recvcounts, rdispls, recvtype, a.nsources, &a.rtype);
    a.sendbuf = sendbuf, a.sendcounts = sendcounts, a.sdispls = sdispls, a.sendtype = sendtype;
    a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = rdispls, a.recvtype = recvtype;
    return finish(fn, &a, comm, request, lists, rc);
}

int tdm_ineighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            tdm_displs rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm,
                            TDM_Request *request)
{
    tdm_coll_args a;
    int *lists, rc = begin(fn, comm, request, TDM_COLL_NEIGHBOR_ALLTOALLW, &a, &lists);
    if (rc == MPI_SUCCESS && (rc = no_in_place(fn, sendbuf, recvbuf)) == MPI_SUCCESS &&
        (rc = tdm_check_typed_blocks(fn, "send", sendbuf, sendcounts, sdispls, sendtypes, a.ndests)) == MPI_SUCCESS)
        rc = tdm_check_typed_blocks(fn, "recv", recvbuf, recvcounts, rdispls, recvtypes, a.nsources);
    a.sendbuf = sendbuf, a.sendcounts = sendcounts, a.sdispls = sdispls, a.sendtypes = sendtypes;
    a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = rdispls, a.recvtypes = recvtypes;
    return finish(fn, &a, comm, request, lists, rc);
}

/* ---- the public functions: non-blocking, blocking, persistent ---- */

int TDM_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ineighbor_allgather("TDM_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, comm, request);
}

int TDM_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             TDM_Request *request)
{
    return tdm_ineighbor_allgatherv("TDM_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                    tdm_displs_of_ints(displs), recvtype, comm, request);
}

int TDM_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ineighbor_alltoall("TDM_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, comm, request);
}

int TDM_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, TDM_Request *request)
{
    return tdm_ineighbor_alltoallv("TDM_Ineighbor_alltoallv", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype, recvbuf,
                                   recvcounts, tdm_displs_of_ints(rdispls), recvtype, comm, request);
}

int TDM_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            TDM_Request *request)
{
    return tdm_ineighbor_alltoallw("TDM_Ineighbor_alltoallw", sendbuf, sendcounts, tdm_displs_of_aints(sdispls), sendtypes, recvbuf,
                                   recvcounts, tdm_displs_of_aints(rdispls), recvtypes, comm, request);
}

#define BLOCKING(fn, start)                                                                             \
    do {                                                                                                \
        TDM_Request request;                                                                            \
        int rc = (start);                                                                               \
        return rc != MPI_SUCCESS ? rc : tdm_wait(fn, &request, MPI_STATUS_IGNORE);                      \
    } while (0)

int TDM_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    BLOCKING("TDM_Neighbor_allgather", tdm_ineighbor_allgather("TDM_Neighbor_allgather", sendbuf, sendcount, sendtype,
                                                               recvbuf, recvcount, recvtype, comm, &request));
}

int TDM_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    BLOCKING("TDM_Neighbor_allgatherv",
             tdm_ineighbor_allgatherv("TDM_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                      tdm_displs_of_ints(displs), recvtype, comm, &request));
}

int TDM_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    BLOCKING("TDM_Neighbor_alltoall", tdm_ineighbor_alltoall("TDM_Neighbor_alltoall", sendbuf, sendcount, sendtype,
                                                             recvbuf, recvcount, recvtype, comm, &request));
}

int TDM_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    BLOCKING("TDM_Neighbor_alltoallv",
             tdm_ineighbor_alltoallv("TDM_Neighbor_alltoallv", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype, recvbuf,
                                     recvcounts, tdm_displs_of_ints(rdispls), recvtype, comm, &request));
}

int TDM_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    BLOCKING("TDM_Neighbor_alltoallw",
             tdm_ineighbor_alltoallw("TDM_Neighbor_alltoallw", sendbuf, sendcounts, tdm_displs_of_aints(sdispls), sendtypes, recvbuf,
                                     recvcounts, tdm_displs_of_aints(rdispls), recvtypes, comm, &request));
}


int TDM_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ineighbor_allgather("TDM_Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, comm, request));
}

int TDM_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ineighbor_allgatherv("TDM_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                                        recvcounts, tdm_displs_of_ints(displs), recvtype, comm, request));
}

int TDM_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ineighbor_alltoall("TDM_Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                      recvtype, comm, request));
}

int TDM_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ineighbor_alltoallv("TDM_Neighbor_alltoallv_init", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype,
                                       recvbuf, recvcounts, tdm_displs_of_ints(rdispls), recvtype, comm, request));
}

int TDM_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ineighbor_alltoallw("TDM_Neighbor_alltoallw_init", sendbuf, sendcounts, tdm_displs_of_aints(sdispls), sendtypes,
                                       recvbuf, recvcounts, tdm_displs_of_aints(rdispls), recvtypes, comm, request));
}

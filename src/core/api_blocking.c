/* The blocking collectives: the non-blocking start followed by a wait, reported under their own name;
 * small barrier, bcast, reduce, allreduce and allgather on one node through its lines (api_lines.c). */
#include "api_internal.h"

int TDM_Barrier(MPI_Comm comm)
{
    int rc = tdm_lines_barrier("TDM_Barrier", comm);
    if (rc != TDM_LINES_NOT_TAKEN)
        return rc;
    TDM_Request request;
    rc = tdm_ibarrier("TDM_Barrier", comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Barrier", &request, MPI_STATUS_IGNORE);
}

int TDM_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rc = tdm_lines_bcast("TDM_Bcast", buffer, count, datatype, root, comm);
    if (rc != TDM_LINES_NOT_TAKEN)
        return rc;
    TDM_Request request;
    rc = tdm_ibcast("TDM_Bcast", buffer, count, datatype, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Bcast", &request, MPI_STATUS_IGNORE);
}

int TDM_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    int rc = tdm_lines_reduce("TDM_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
    if (rc != TDM_LINES_NOT_TAKEN)
        return rc;
    TDM_Request request;
    rc = tdm_ireduce("TDM_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Reduce", &request, MPI_STATUS_IGNORE);
}

int TDM_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc = tdm_lines_allreduce("TDM_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
    if (rc != TDM_LINES_NOT_TAKEN)
        return rc;
    TDM_Request request;
    rc = tdm_iallreduce("TDM_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Allreduce", &request, MPI_STATUS_IGNORE);
}

int TDM_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_igather("TDM_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Gather", &request, MPI_STATUS_IGNORE);
}

int TDM_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_igatherv("TDM_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs), recvtype, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Gatherv", &request, MPI_STATUS_IGNORE);
}

int TDM_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_iscatter("TDM_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Scatter", &request, MPI_STATUS_IGNORE);
}

int TDM_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_iscatterv("TDM_Scatterv", sendbuf, sendcounts, tdm_displs_of_ints(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Scatterv", &request, MPI_STATUS_IGNORE);
}

int TDM_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = tdm_lines_allgather("TDM_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    if (rc != TDM_LINES_NOT_TAKEN)
        return rc;
    TDM_Request request;
    rc = tdm_iallgather("TDM_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Allgather", &request, MPI_STATUS_IGNORE);
}

int TDM_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_iallgatherv("TDM_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs), recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Allgatherv", &request, MPI_STATUS_IGNORE);
}

int TDM_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_ireduce_scatter("TDM_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Reduce_scatter", &request, MPI_STATUS_IGNORE);
}

int TDM_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_ireduce_scatter_block("TDM_Reduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Reduce_scatter_block", &request, MPI_STATUS_IGNORE);
}

int TDM_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_ialltoall("TDM_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Alltoall", &request, MPI_STATUS_IGNORE);
}

int TDM_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_ialltoallv("TDM_Alltoallv", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype, recvbuf, recvcounts, tdm_displs_of_ints(rdispls), recvtype, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Alltoallv", &request, MPI_STATUS_IGNORE);
}

int TDM_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_ialltoallw("TDM_Alltoallw", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtypes, recvbuf, recvcounts, tdm_displs_of_ints(rdispls), recvtypes, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Alltoallw", &request, MPI_STATUS_IGNORE);
}

int TDM_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_iscan("TDM_Scan", sendbuf, recvbuf, count, datatype, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Scan", &request, MPI_STATUS_IGNORE);
}

int TDM_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_Request request;
    int rc = tdm_iexscan("TDM_Exscan", sendbuf, recvbuf, count, datatype, op, comm, &request);
    return rc != MPI_SUCCESS ? rc : tdm_wait("TDM_Exscan", &request, MPI_STATUS_IGNORE);
}

/*
 * The program's collectives, routed to Tandem: every non-blocking one, and with TANDEM_INTERPOSE=all
 * the blocking ones too (started as Tandem's non-blocking call and waited for). A call Tandem does not
 * take (an inter-communicator, interposition off) or refuses (MPI's argument checks come first) goes
 * to MPI unchanged; a call that fails under way returns its error.
 */
#include "interpose.h"

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ibarrier", comm, TDM_Ibarrier(comm, &treq_), PMPI_Ibarrier(comm, request));
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ibcast", comm, TDM_Ibcast(buffer, count, datatype, root, comm, &treq_),
                PMPI_Ibcast(buffer, count, datatype, root, comm, request));
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ireduce", comm, TDM_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, &treq_),
                PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iallreduce", comm, TDM_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &treq_),
                PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request));
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Igather", comm,
                TDM_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &treq_),
                PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Igatherv", comm,
                TDM_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &treq_),
                PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                              request));
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iscatter", comm,
                TDM_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &treq_),
                PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iscatterv", comm,
                TDM_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                              &treq_),
                PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                               request));
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iallgather", comm,
                TDM_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
                PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iallgatherv", comm,
                TDM_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &treq_),
                PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                 request));
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ireduce_scatter", comm,
                TDM_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &treq_),
                PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request));
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ireduce_scatter_block", comm,
                TDM_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &treq_),
                PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request));
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ialltoall", comm,
                TDM_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
                PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ialltoallv", comm,
                TDM_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               &treq_),
                PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                comm, request));
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ialltoallw", comm,
                TDM_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                               &treq_),
                PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm, request));
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iscan", comm, TDM_Iscan(sendbuf, recvbuf, count, datatype, op, comm, &treq_),
                PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request));
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Iexscan", comm, TDM_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &treq_),
                PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request));
}

/* ---- blocking collectives (TANDEM_INTERPOSE=all) ---- */

int MPI_Barrier(MPI_Comm comm)
{
    TDM_IP_BLOCKING_WHOLE("MPI_Barrier", comm, TDM_Barrier(comm), PMPI_Barrier(comm));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    TDM_IP_BLOCKING_WHOLE("MPI_Bcast", comm, TDM_Bcast(buffer, count, datatype, root, comm),
                          PMPI_Bcast(buffer, count, datatype, root, comm));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    TDM_IP_BLOCKING_WHOLE("MPI_Reduce", comm, TDM_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm),
                          PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_IP_BLOCKING_WHOLE("MPI_Allreduce", comm, TDM_Allreduce(sendbuf, recvbuf, count, datatype, op, comm),
                          PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Gather", comm,
             TDM_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &treq_),
             PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Gatherv", comm,
             TDM_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &treq_),
             PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Scatter", comm,
             TDM_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &treq_),
             PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Scatterv", comm,
             TDM_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &treq_),
             PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING_WHOLE("MPI_Allgather", comm,
                          TDM_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                          PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Allgatherv", comm,
             TDM_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &treq_),
             PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Reduce_scatter", comm, TDM_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &treq_),
             PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Reduce_scatter_block", comm,
             TDM_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &treq_),
             PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Alltoall", comm,
             TDM_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
             PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Alltoallv", comm,
             TDM_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            &treq_),
             PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Alltoallw", comm,
             TDM_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            &treq_),
             PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Scan", comm, TDM_Iscan(sendbuf, recvbuf, count, datatype, op, comm, &treq_),
             PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Exscan", comm, TDM_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, &treq_),
             PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm));
}

/* ---- neighbourhood collectives ---- */

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ineighbor_allgather", comm,
                TDM_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
                PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ineighbor_allgatherv", comm,
                TDM_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                         &treq_),
                PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                          request));
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ineighbor_alltoall", comm,
                TDM_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
                PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ineighbor_alltoallv", comm,
                TDM_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                        comm, &treq_),
                PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                         recvtype, comm, request));
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    TDM_IP_NONBLOCKING("MPI_Ineighbor_alltoallw", comm,
                TDM_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm, &treq_),
                PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm, request));
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Neighbor_allgather", comm,
             TDM_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
             PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Neighbor_allgatherv", comm,
             TDM_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                      &treq_),
             PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Neighbor_alltoall", comm,
             TDM_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &treq_),
             PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Neighbor_alltoallv", comm,
             TDM_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     comm, &treq_),
             PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                     comm));
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TDM_IP_BLOCKING("MPI_Neighbor_alltoallw", comm,
             TDM_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                     comm, &treq_),
             PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                     comm));
}

/*
 * Forced into every Tandem source of the interposer library (libtandem_mpi): the MPI functions the
 * interposer defines are called by their PMPI names inside Tandem, so that Tandem's own calls (the
 * engine's MPI_Test, placement's MPI_Allgather, TDM_Init's MPI_Init_thread) reach MPI, not the
 * interposer. Keep it in step with the functions of src/interpose/. It comes before everything (also
 * before a source's own feature macros), so it includes nothing but macros: mpi.h, read later, then
 * declares these names as the PMPI functions they are.
 */
#ifndef TANDEM_PMPI_NAMES_H
#define TANDEM_PMPI_NAMES_H

#define MPI_Init PMPI_Init
#define MPI_Init_thread PMPI_Init_thread
#define MPI_Finalize PMPI_Finalize
#define MPI_Query_thread PMPI_Query_thread
#define MPI_Wait PMPI_Wait
#define MPI_Test PMPI_Test
#define MPI_Waitall PMPI_Waitall
#define MPI_Testall PMPI_Testall
#define MPI_Waitany PMPI_Waitany
#define MPI_Testany PMPI_Testany
#define MPI_Waitsome PMPI_Waitsome
#define MPI_Testsome PMPI_Testsome
#define MPI_Request_free PMPI_Request_free
#define MPI_Start PMPI_Start
#define MPI_Startall PMPI_Startall
#define MPI_Op_free PMPI_Op_free
#define MPI_Request_get_status PMPI_Request_get_status
#define MPI_Ibarrier PMPI_Ibarrier
#define MPI_Ibcast PMPI_Ibcast
#define MPI_Ireduce PMPI_Ireduce
#define MPI_Iallreduce PMPI_Iallreduce
#define MPI_Igather PMPI_Igather
#define MPI_Igatherv PMPI_Igatherv
#define MPI_Iscatter PMPI_Iscatter
#define MPI_Iscatterv PMPI_Iscatterv
#define MPI_Iallgather PMPI_Iallgather
#define MPI_Iallgatherv PMPI_Iallgatherv
#define MPI_Ireduce_scatter PMPI_Ireduce_scatter
#define MPI_Ireduce_scatter_block PMPI_Ireduce_scatter_block
#define MPI_Ialltoall PMPI_Ialltoall
#define MPI_Ialltoallv PMPI_Ialltoallv
#define MPI_Ialltoallw PMPI_Ialltoallw
#define MPI_Iscan PMPI_Iscan
#define MPI_Iexscan PMPI_Iexscan
#define MPI_Barrier PMPI_Barrier
#define MPI_Bcast PMPI_Bcast
#define MPI_Reduce PMPI_Reduce
#define MPI_Allreduce PMPI_Allreduce
#define MPI_Gather PMPI_Gather
#define MPI_Gatherv PMPI_Gatherv
#define MPI_Scatter PMPI_Scatter
#define MPI_Scatterv PMPI_Scatterv
#define MPI_Allgather PMPI_Allgather
#define MPI_Allgatherv PMPI_Allgatherv
#define MPI_Reduce_scatter PMPI_Reduce_scatter
#define MPI_Reduce_scatter_block PMPI_Reduce_scatter_block
#define MPI_Alltoall PMPI_Alltoall
#define MPI_Alltoallv PMPI_Alltoallv
#define MPI_Alltoallw PMPI_Alltoallw
#define MPI_Ineighbor_allgather PMPI_Ineighbor_allgather
#define MPI_Ineighbor_allgatherv PMPI_Ineighbor_allgatherv
#define MPI_Ineighbor_alltoall PMPI_Ineighbor_alltoall
#define MPI_Ineighbor_alltoallv PMPI_Ineighbor_alltoallv
#define MPI_Ineighbor_alltoallw PMPI_Ineighbor_alltoallw
#define MPI_Neighbor_allgather PMPI_Neighbor_allgather
#define MPI_Neighbor_allgatherv PMPI_Neighbor_allgatherv
#define MPI_Neighbor_alltoall PMPI_Neighbor_alltoall
#define MPI_Neighbor_alltoallv PMPI_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw PMPI_Neighbor_alltoallw
#define MPI_Scan PMPI_Scan
#define MPI_Exscan PMPI_Exscan

/* The application world: the wrappers written by hand (interpose_world.c), then the generated ones. */
#define MPI_Comm_set_errhandler PMPI_Comm_set_errhandler
#include "app_world_names.h"

#endif

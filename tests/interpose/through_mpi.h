/*
 * Forced into second builds of test_collectives and test_neighbor (*_through_mpi): their Tandem calls
 * are written by MPI's names, so the correctness tests run through the interposer (the program's
 * MPI_Ixxx, MPI_Xxx_init, MPI_Start and MPI_Wait, Tandem's algorithms as TDM_Set_algorithm forces
 * them).
 */
#ifndef TANDEM_THROUGH_MPI_H
#define TANDEM_THROUGH_MPI_H

#include "tandem.h" /* first: its own declarations keep Tandem's names */

#define TANDEM_TEST_THROUGH_MPI 1
#define TDM_Request MPI_Request
#undef TDM_REQUEST_NULL
#define TDM_REQUEST_NULL MPI_REQUEST_NULL
#define TDM_Wait MPI_Wait
#define TDM_Ibarrier MPI_Ibarrier
#define TDM_Ibcast MPI_Ibcast
#define TDM_Ireduce MPI_Ireduce
#define TDM_Iallreduce MPI_Iallreduce
#define TDM_Igather MPI_Igather
#define TDM_Igatherv MPI_Igatherv
#define TDM_Iscatter MPI_Iscatter
#define TDM_Iscatterv MPI_Iscatterv
#define TDM_Iallgather MPI_Iallgather
#define TDM_Iallgatherv MPI_Iallgatherv
#define TDM_Ireduce_scatter MPI_Ireduce_scatter
#define TDM_Ireduce_scatter_block MPI_Ireduce_scatter_block
#define TDM_Ialltoall MPI_Ialltoall
#define TDM_Ialltoallv MPI_Ialltoallv
#define TDM_Ialltoallw MPI_Ialltoallw
#define TDM_Iscan MPI_Iscan
#define TDM_Iexscan MPI_Iexscan
#define TDM_Ineighbor_allgather MPI_Ineighbor_allgather
#define TDM_Ineighbor_allgatherv MPI_Ineighbor_allgatherv
#define TDM_Ineighbor_alltoall MPI_Ineighbor_alltoall
#define TDM_Ineighbor_alltoallv MPI_Ineighbor_alltoallv
#define TDM_Ineighbor_alltoallw MPI_Ineighbor_alltoallw
#define TDM_Neighbor_allgather MPI_Neighbor_allgather
#define TDM_Neighbor_allgatherv MPI_Neighbor_allgatherv
#define TDM_Neighbor_alltoall MPI_Neighbor_alltoall
#define TDM_Neighbor_alltoallv MPI_Neighbor_alltoallv
#define TDM_Neighbor_alltoallw MPI_Neighbor_alltoallw
#define TDM_Start MPI_Start
#define TDM_Request_free MPI_Request_free
/* persistent collectives: MPI-4's, or Open MPI's MPIX_ forms */
#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#define TDM_Neighbor_allgather_init MPIX_Neighbor_allgather_init
#define TDM_Neighbor_allgatherv_init MPIX_Neighbor_allgatherv_init
#define TDM_Neighbor_alltoall_init MPIX_Neighbor_alltoall_init
#define TDM_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#define TDM_Neighbor_alltoallw_init MPIX_Neighbor_alltoallw_init
#else
#define TDM_Neighbor_allgather_init MPI_Neighbor_allgather_init
#define TDM_Neighbor_allgatherv_init MPI_Neighbor_allgatherv_init
#define TDM_Neighbor_alltoall_init MPI_Neighbor_alltoall_init
#define TDM_Neighbor_alltoallv_init MPI_Neighbor_alltoallv_init
#define TDM_Neighbor_alltoallw_init MPI_Neighbor_alltoallw_init
#endif

#endif

/*
 * Forced into a second build of test_collectives (test_collectives_through_mpi): its Tandem calls are
 * written by MPI's names, so the whole correctness matrix runs through the interposer (the program's
 * MPI_Ixxx and MPI_Wait, Tandem's algorithms as TDM_Set_algorithm forces them).
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

#endif

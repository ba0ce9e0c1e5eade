/*
 * MPI 4's large counts (MPI_Count) in the v and w forms, as the int counts Tandem's schedules use: what
 * does not fit is refused with MPI_ERR_COUNT and a message naming the argument, on every rank. (Their displacements
 * are kept as MPI_Aint; the collectives of one count run in chunks instead, chunked_calls.h.)
 */
#ifndef TANDEM_LARGE_COUNT_H_INTERNAL
#define TANDEM_LARGE_COUNT_H_INTERNAL

#include <mpi.h>

/* A negative count stays negative (the int function's check reports it). */
int tdm_count_from_large(const char *fn, const char *name, MPI_Count count, int *out);
/* n counts into a malloc'ed int array; NULL stays NULL (the int function reports it). */
int tdm_counts_from_large(const char *fn, const char *name, const MPI_Count *in, int n, int **out);
/* The ranks agree: a v or w call refused on one rank (a count of its beyond INT_MAX) is refused on
 * all, so that none starts a collective the others never join (under the interposer: all leave it to
 * MPI). One small allreduce on comm, so these calls synchronize the ranks even when non-blocking
 * (not before TDM_Init, nor on an inter-communicator, which Tandem refuses anyway). Returns rc, or
 * MPI_ERR_COUNT if another rank's did not fit. */
int tdm_large_agree(const char *fn, MPI_Comm comm, int rc);
/* Blocks of comm's v and w arrays: its size (0 for MPI_COMM_NULL, which the int function reports). */
int tdm_large_blocks(MPI_Comm comm);
/* Whether the calling rank is the root (the arrays significant there only are converted there only). */
int tdm_large_is_root(MPI_Comm comm, int root);

#endif

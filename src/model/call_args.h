/*
 * The arguments of a call of a collective on p ranks, built without a communicator, for the models
 * that build every rank's schedule (schedule_cost.h): as tandem-bench sizes its calls, bytes is the
 * whole vector for bcast and the reductions (doubles, MPI_SUM; reduce_scatter_block: each rank's
 * block) and one rank's block for the others (bytes; the v-forms with every block alike). The ranks
 * form a balanced 2-D grid, not the network's torus; the root is rank 0. The buffers are allocated,
 * never touched: the builders only record addresses.
 */
#ifndef TANDEM_CALL_ARGS_H
#define TANDEM_CALL_ARGS_H

#include "../schedule/coll_args.h"

typedef struct tdm_call_args {
    tdm_coll_args a;
    double elem_bytes; /* of the datatype every action of its schedules carries */
    char *send, *recv;
    int *counts, *displs;
} tdm_call_args;

/* MPI_SUCCESS; MPI_ERR_ARG for a collective it cannot describe (alltoallw, neighbourhood), p < 1 or
 * bytes below one element; MPI_ERR_COUNT past INT_MAX; MPI_ERR_NO_MEM. */
int tdm_call_args_init(tdm_call_args *c, tdm_coll_kind kind, int p, double bytes, const tdm_loggp *m);
void tdm_call_args_free(tdm_call_args *c);

#endif

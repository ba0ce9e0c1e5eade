/*
 * The neighbourhood collectives: every message to and from the topology's neighbours posted at once, in
 * one round (a rank has few neighbours), in the order schedule/coll_blocks.h gives.
 */
#include "alg_util.h"

static int neighbor_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int count;
    MPI_Datatype type;
    for (int i = 0; i < a->nsources; i++) {
        void *buf = tdm_neighbor_recv_block(a, i, &count, &type);
        if (a->sources[i] != MPI_PROC_NULL)
            tdm_sched_recv(s, buf, count, type, a->sources[i]);
    }
    for (int k = 0; k < a->ndests; k++) {
        int j = tdm_neighbor_send_order(a, k);
        const void *buf = tdm_neighbor_send_block(a, j, &count, &type);
        if (a->dests[j] != MPI_PROC_NULL)
            tdm_sched_send(s, buf, count, type, a->dests[j]);
    }
    return tdm_sched_finish(s);
}

int tdm_neighbor_allgather_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_allgatherv_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoall_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoallv_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoallw_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }

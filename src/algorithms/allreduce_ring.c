/*
 * Ring allreduce: ring reduce-scatter then ring allgather, 2(p-1) steps moving 2 (p-1)/p n elements
 * per rank: bandwidth-optimal for long vectors. Reductions are pipelined by segments. Commutative ops
 * only (each block's partial result travels around the ring starting at a different rank); selection
 * gives non-commutative ops an order-keeping algorithm instead.
 */
#include "alg_util.h"

int tdm_allreduce_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    MPI_Aint *offset;
    int *count;
    if (!tdm_even_blocks(s, a->count, a->size, &offset, &count))
        return tdm_sched_finish(s);
    const void *input = tdm_reduction_input(a);
    void *own_block = tdm_elem(a->recvbuf, &a->dtype, offset[a->rank]);
    tdm_ring_reduce_scatter(s, a, input, offset, count, own_block);
    tdm_sched_round(s);
    tdm_ring_allgather(s, a->rank, a->size, a->recvbuf, &a->dtype, a->datatype, offset, count, 0);
    return tdm_sched_finish(s);
}

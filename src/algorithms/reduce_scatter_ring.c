/* Ring reduce-scatter (reduce_scatter and reduce_scatter_block): p-1 steps of one block each,
 * pipelined by segments. Commutative ops only; selection gives others reduce_scatter_pairwise. */
#include "alg_util.h"

int tdm_reduce_scatter_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    MPI_Aint *offset = tdm_prefix_offsets(s, a->recvcounts, a->size);
    if (!offset)
        return tdm_sched_finish(s);
    tdm_ring_reduce_scatter(s, a, tdm_reduction_input(a), offset, a->recvcounts, a->recvbuf);
    return tdm_sched_finish(s);
}

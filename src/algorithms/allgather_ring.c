/* Ring allgather and allgatherv: p-1 steps, each passing one block to the right neighbour; straight
 * into recvbuf, bandwidth-optimal for long blocks. */
#include "alg_util.h"

static int allgather_ring(tdm_schedule *s, const tdm_coll_args *a, const int *offset, const int *count)
{
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                       tdm_elem(a->recvbuf, &a->rtype, offset[a->rank]), count[a->rank], a->recvtype);
    tdm_ring_allgather(s, a->rank, a->size, a->recvbuf, &a->rtype, a->recvtype, offset, count);
    return tdm_sched_finish(s);
}

int tdm_allgather_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    int *offset, *count;
    if (!tdm_even_blocks(s, a->recvcount * a->size, a->size, &offset, &count))
        return tdm_sched_finish(s);
    return allgather_ring(s, a, offset, count);
}

int tdm_allgatherv_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    return allgather_ring(s, a, a->rdispls, a->recvcounts);
}

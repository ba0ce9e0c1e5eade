/* Ring allgather and allgatherv: p-1 steps, each passing one block to the right neighbour; straight
 * into recvbuf, bandwidth-optimal for long blocks. */
#include "alg_util.h"

/* Within one node a message is a copy the processes make, and a block larger than half the shared
 * cache streams from memory: copying it first and sending from the copy (as in place, and as Open
 * MPI's libnbc does) lets the neighbour read the copy's last part from the cache. A smaller block is
 * better copied while the neighbour reads it. 2 ranks, 32 MiB L3, ms (send from sendbuf while copying
 * / copy first): 4 MiB 0.41 / 0.50, 8 MiB 1.24 / 1.27, 16 MiB the same, 32 MiB 7.0-7.3 / 6.8-7.0,
 * 64 MiB 11.8-14.1 / 9.6-11.9. */
static int copy_first(const tdm_coll_args *a, int own_count)
{
    return a->shared_memory && a->cache_bytes > 0 && (double)own_count * a->rtype.size > a->cache_bytes / 2.0;
}

static int allgather_ring(tdm_schedule *s, const tdm_coll_args *a, const MPI_Aint *offset, const int *count)
{
    int r = a->rank, p = a->size, first_step = 0;
    void *own = tdm_elem(a->recvbuf, &a->rtype, offset[r]);
    if (!a->in_place && (p == 1 || copy_first(a, count[r]))) {
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, own, count[r], a->recvtype);
        tdm_sched_round(s);
    } else if (!a->in_place) {
        /* The first step straight from sendbuf, so that the local copy overlaps the transfer. */
        int left = (r - 1 + p) % p;
        tdm_sched_send(s, a->sendbuf, a->sendcount, a->sendtype, (r + 1) % p);
        tdm_sched_recv(s, tdm_elem(a->recvbuf, &a->rtype, offset[left]), count[left], a->recvtype, left);
        first_step = 1;
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, own, count[r], a->recvtype);
        tdm_sched_round(s);
    }
    tdm_ring_allgather(s, r, p, a->recvbuf, &a->rtype, a->recvtype, offset, count, first_step);
    return tdm_sched_finish(s);
}

int tdm_allgather_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    MPI_Aint *offset;
    int *count;
    if (!tdm_even_blocks(s, (MPI_Aint)a->recvcount * a->size, a->size, &offset, &count))
        return tdm_sched_finish(s);
    return allgather_ring(s, a, offset, count);
}

int tdm_allgatherv_ring(tdm_schedule *s, const tdm_coll_args *a)
{
    MPI_Aint *offset = tdm_aint_offsets(s, a->rdispls, a->size);
    if (!offset)
        return tdm_sched_finish(s);
    return allgather_ring(s, a, offset, a->recvcounts);
}

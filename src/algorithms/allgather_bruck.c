/*
 * Bruck allgather: ceil(log2 p) rounds for any p. Rank r gathers blocks r, r+1, ... in a packed
 * temporary, doubling what it has each round (receiving from r+k what it has, sending to r-k), then
 * rotates them into place. Latency-optimal: the choice for short blocks.
 */
#include "alg_util.h"

#include <limits.h>

int tdm_allgather_bruck(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t blk = (size_t)a->recvcount * a->rtype.size;
    if (blk * (size_t)p > INT_MAX) { /* the packed gathering buffer is counted in int bytes */
        s->algorithm = "allgather_ring";
        return tdm_allgather_ring(s, a);
    }
    char *gathered = tdm_sched_tmp(s, p * blk); /* block i: rank (r + i) % p */
    if (a->in_place)
        tdm_sched_copy(s, tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, r), a->recvcount,
                       a->recvtype, gathered, (int)blk, MPI_PACKED);
    else
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, gathered, (int)blk, MPI_PACKED);
    for (int k = 1; k < p; k <<= 1) {
        int n = k < p - k ? k : p - k;
        tdm_sched_send(s, gathered, (int)(n * blk), MPI_PACKED, (r - k + p) % p);
        tdm_sched_recv(s, gathered + k * blk, (int)(n * blk), MPI_PACKED, (r + k) % p);
        tdm_sched_round(s);
    }
    /* packed block i belongs to rank (r + i) % p: relative ranks 0..p-1 with r as the "root" */
    tdm_unpack_blocks(s, gathered, blk, 0, p, r, p, a->recvbuf, a->recvcount, a->recvtype, &a->rtype);
    return tdm_sched_finish(s);
}

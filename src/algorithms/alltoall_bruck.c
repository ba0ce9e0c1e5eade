/*
 * Bruck alltoall: ceil(log2 p) rounds for any p, at the price of moving each block log2(p)/2 times.
 * Blocks are kept packed and indexed by distance: slot i holds the block travelling to rank r+i. In
 * the round of bit k, every block whose distance has bit k set moves k ranks ahead. At the end slot i
 * holds the block that came from rank r-i. For short blocks and many ranks.
 */
#include "alg_util.h"

#include <limits.h>

int tdm_alltoall_bruck(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t blk = (size_t)a->recvcount * a->rtype.size;
    if (blk * (size_t)p > INT_MAX) { /* the packed slots are counted in int bytes */
        s->algorithm = "alltoall_pairwise";
        return tdm_alltoall_pairwise(s, a);
    }
    char *slots = tdm_sched_tmp(s, p * blk);
    char *outbox = tdm_sched_tmp(s, (p / 2 + 1) * blk), *inbox = tdm_sched_tmp(s, (p / 2 + 1) * blk);
    if (!slots || !outbox || !inbox)
        return tdm_sched_finish(s);

    if (a->in_place) /* recvbuf holds the outgoing blocks: block of rank (r+i) % p into slot i */
        tdm_pack_blocks(s, a->recvbuf, a->recvcount, a->recvtype, &a->rtype, 0, p, r, p, slots, blk);
    else
        tdm_pack_blocks(s, a->sendbuf, a->sendcount, a->sendtype, &a->stype, 0, p, r, p, slots, blk);

    for (int k = 1; k < p; k <<= 1) {
        int moved = 0;
        for (int i = 1; i < p; i++)
            if (i & k)
                tdm_sched_copy(s, slots + i * blk, (int)blk, MPI_PACKED, outbox + moved++ * blk, (int)blk,
                               MPI_PACKED);
        tdm_sched_send(s, outbox, (int)(moved * blk), MPI_PACKED, (r + k) % p);
        tdm_sched_recv(s, inbox, (int)(moved * blk), MPI_PACKED, (r - k + p) % p);
        tdm_sched_round(s);
        moved = 0;
        for (int i = 1; i < p; i++)
            if (i & k)
                tdm_sched_copy(s, inbox + moved++ * blk, (int)blk, MPI_PACKED, slots + i * blk, (int)blk,
                               MPI_PACKED);
    }
    for (int i = 0; i < p; i++)
        tdm_sched_copy(s, slots + i * blk, (int)blk, MPI_PACKED,
                       tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, (r - i + p) % p), a->recvcount,
                       a->recvtype);
    return tdm_sched_finish(s);
}

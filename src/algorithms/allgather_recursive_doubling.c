/* Recursive-doubling allgather for a power-of-two number of ranks: log2(p) exchanges, each doubling
 * the contiguous range of blocks a rank holds, straight in recvbuf (no packing, unlike Bruck). */
#include "alg_util.h"

#include <limits.h>

int tdm_allgather_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank, count = a->recvcount;
    if ((p & (p - 1)) != 0) { /* selection never picks it then; stay correct anyway */
        s->algorithm = "allgather_bruck";
        return tdm_allgather_bruck(s, a);
    }
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                       tdm_rank_block(a->recvbuf, &a->rtype, count, r), count, a->recvtype);
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        int mine = r & ~(mask - 1), theirs = peer & ~(mask - 1); /* first block of each range */
        /* one message per range, or per block when the range passes INT_MAX elements */
        int step = (long long)mask * count > INT_MAX ? 1 : mask;
        for (int b = 0; b < mask; b += step) {
            tdm_sched_send(s, tdm_rank_block(a->recvbuf, &a->rtype, count, mine + b), step * count,
                           a->recvtype, peer);
            tdm_sched_recv(s, tdm_rank_block(a->recvbuf, &a->rtype, count, theirs + b), step * count,
                           a->recvtype, peer);
        }
        tdm_sched_round(s);
    }
    return tdm_sched_finish(s);
}

/* Binomial-tree broadcast: ceil(log2 p) levels; every rank receives once and forwards to its subtrees,
 * largest first. An edge spanning `mask` ranks is at tree level log2(mask) + 1 (level 1 nearest the
 * leaves); split, the edges of the S lowest levels run after the others, in the foreground. */
#include "alg_util.h"

int tdm_bcast_binomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, vr = tdm_rel_rank(a->rank, a->root, p);
    int split = a->split_levels >= 0, foreground_mask = split ? 1 << a->split_levels : 0;
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            if (mask < foreground_mask)
                tdm_sched_split_foreground(s);
            tdm_sched_recv(s, a->recvbuf, a->count, a->datatype, tdm_abs_rank(vr - mask, a->root, p));
            tdm_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (mask < foreground_mask)
            tdm_sched_split_foreground(s);
        if (vr + mask < p)
            tdm_sched_send(s, a->recvbuf, a->count, a->datatype, tdm_abs_rank(vr + mask, a->root, p));
    }
    return tdm_sched_finish(s);
}

/* k-nomial broadcast: ceil(log_k p) levels. A rank receives once, from the rank its lowest nonzero
 * base-k digit points to, then starts its sends to all its children at once, the widest subtrees first:
 * at each span k^j below its own, the k - 1 ranks j * span above it. The radix is the model's
 * (tdm_best_knomial_radix): 2, the binomial tree, wherever each message pays its whole start-up; wider
 * where the messages a rank starts together share their latency and each costs it little, as on a
 * network whose latency is long beside a message's start-up (radix p: the linear bcast, one level).
 * Split: the edges spanning fewer than k^S ranks (the S lowest levels) run in the foreground. */
#include "alg_util.h"

#include "../model/collective_costs.h"

int tdm_bcast_knomial_radix(const tdm_coll_args *a)
{
    return tdm_best_knomial_radix(a->size, (double)a->count * (double)a->dtype.size, &a->loggp);
}

int tdm_bcast_knomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, vr = tdm_rel_rank(a->rank, a->root, p), k = tdm_bcast_knomial_radix(a);
    long foreground_span = 0; /* split: k^S (p or more: every edge) */
    if (a->split_levels >= 0) {
        foreground_span = 1;
        for (int level = 0; level < a->split_levels && foreground_span < p; level++)
            foreground_span *= k;
    }
    long span = 1;
    for (; span < p; span *= k) {
        long digit = vr / span % k;
        if (digit) {
            if (span < foreground_span)
                tdm_sched_split_foreground(s);
            tdm_sched_recv(s, a->recvbuf, a->count, a->datatype, tdm_abs_rank((int)(vr - digit * span), a->root, p));
            tdm_sched_round(s);
            break;
        }
    }
    for (span /= k; span > 0; span /= k) {
        if (span < foreground_span)
            tdm_sched_split_foreground(s);
        for (long j = 1; j < k && vr + j * span < p; j++)
            tdm_sched_send(s, a->recvbuf, a->count, a->datatype, tdm_abs_rank((int)(vr + j * span), a->root, p));
    }
    return tdm_sched_finish(s);
}

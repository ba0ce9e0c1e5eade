/*
 * Rabenseifner's allreduce: a reduce-scatter by recursive halving followed by an allgather by recursive
 * doubling, on the vector cut into pof2 blocks. 2 log2(p) messages and about 2 n beta + n gamma:
 * the choice for long vectors. Each step pairs contiguous, adjacent rank ranges, so the canonical order
 * holds for non-commutative ops.
 */
#include "alg_util.h"

#define MAX_STEPS 31

int tdm_allreduce_rabenseifner(tdm_schedule *s, const tdm_coll_args *a)
{
    int n = a->count, r = a->rank;
    int pof2 = tdm_pof2_floor(a->size), rem = a->size - pof2;
    void *acc = a->recvbuf;
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, n, a->datatype, acc, n, a->datatype);
    if (a->size == 1)
        return tdm_sched_finish(s);
    char *inbox = tdm_tmp_elems(s, &a->dtype, n);

    int newrank = tdm_pof2_fold(s, a, acc, inbox);
    if (newrank >= 0) {
        /* Block range [lo, hi) kept at each step, and the peer of that step. */
        int keep_lo[MAX_STEPS], keep_hi[MAX_STEPS], give_lo[MAX_STEPS], give_hi[MAX_STEPS];
        int peers[MAX_STEPS], steps = 0;
        int lo = 0, hi = pof2;
#define FIRST(block) tdm_block_offset(n, pof2, block)
#define AT(buf, block) tdm_elem(buf, &a->dtype, FIRST(block))
#define SPAN(b0, b1) (FIRST(b1) - FIRST(b0))
        for (int mask = 1; mask < pof2; mask <<= 1, steps++) {
            int mid = (lo + hi) / 2;
            int upper = (newrank & mask) != 0; /* the higher rank of the pair keeps the upper half */
            int peer = tdm_pof2_real_rank(newrank ^ mask, rem);
            keep_lo[steps] = upper ? mid : lo;
            keep_hi[steps] = upper ? hi : mid;
            give_lo[steps] = upper ? lo : mid;
            give_hi[steps] = upper ? mid : hi;
            peers[steps] = peer;
            int kl = keep_lo[steps], kh = keep_hi[steps];
            tdm_sched_send(s, AT(acc, give_lo[steps]), SPAN(give_lo[steps], give_hi[steps]),
                           a->datatype, peer);
            tdm_sched_recv(s, AT(inbox, kl), SPAN(kl, kh), a->datatype, peer);
            tdm_sched_round(s);
            if (peer < r)
                tdm_reduce_from_lower(s, a, AT(inbox, kl), AT(acc, kl), SPAN(kl, kh));
            else
                tdm_reduce_from_higher(s, a, AT(inbox, kl), AT(acc, kl), SPAN(kl, kh));
            lo = kl;
            hi = kh;
        }
        /* Allgather: undo the halving, the kept range travels and the given range comes back. */
        for (int k = steps - 1; k >= 0; k--) {
            tdm_sched_send(s, AT(acc, keep_lo[k]), SPAN(keep_lo[k], keep_hi[k]), a->datatype, peers[k]);
            tdm_sched_recv(s, AT(acc, give_lo[k]), SPAN(give_lo[k], give_hi[k]), a->datatype, peers[k]);
            tdm_sched_round(s);
        }
#undef FIRST
#undef AT
#undef SPAN
    }
    tdm_pof2_unfold(s, a, acc);
    return tdm_sched_finish(s);
}

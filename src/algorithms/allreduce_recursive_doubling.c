/*
 * Recursive-doubling allreduce: log2(p) exchanges of the whole vector (plus a fold for non-powers of
 * two). Latency-optimal: the choice for short vectors. Partners' ranges are contiguous and adjacent,
 * so combining lower-op-higher keeps the canonical order for non-commutative ops.
 */
#include "alg_util.h"

int tdm_allreduce_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a)
{
    int n = a->count, r = a->rank;
    int pof2 = tdm_pof2_floor(a->size), rem = a->size - pof2;
    void *acc = a->recvbuf;
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, n, a->datatype, acc, n, a->datatype);
    if (a->size == 1)
        return tdm_sched_finish(s);
    void *inbox = tdm_tmp_elems(s, &a->dtype, n);

    int newrank = tdm_pof2_fold(s, a, acc, inbox);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int peer = tdm_pof2_real_rank(newrank ^ mask, rem);
            tdm_sched_send(s, acc, n, a->datatype, peer);
            tdm_sched_recv(s, inbox, n, a->datatype, peer);
            tdm_sched_round(s);
            if (peer < r)
                tdm_reduce_from_lower(s, a, inbox, acc, n);
            else
                tdm_reduce_from_higher(s, a, inbox, acc, n);
        }
    }
    tdm_pof2_unfold(s, a, acc);
    return tdm_sched_finish(s);
}

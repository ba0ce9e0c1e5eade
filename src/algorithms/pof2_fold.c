/* Folding a non-power-of-two communicator onto a power of two for the reduction algorithms. */
#include "alg_util.h"

int tdm_pof2_fold(tdm_schedule *s, const tdm_coll_args *a, void *acc, void *scratch)
{
    int p = a->size, r = a->rank, rem = p - tdm_pof2_floor(p);
    if (r >= 2 * rem)
        return r - rem;
    if (r % 2 == 0) {
        tdm_sched_send(s, acc, a->count, a->datatype, r + 1);
        tdm_sched_round(s);
        return -1;
    }
    tdm_sched_recv(s, scratch, a->count, a->datatype, r - 1);
    tdm_sched_round(s);
    tdm_reduce_from_lower(s, a, scratch, acc, a->count);
    return r / 2;
}

void tdm_pof2_unfold(tdm_schedule *s, const tdm_coll_args *a, void *acc)
{
    int p = a->size, r = a->rank, rem = p - tdm_pof2_floor(p);
    if (r >= 2 * rem)
        return;
    tdm_sched_round(s);
    if (r % 2 == 0)
        tdm_sched_recv(s, acc, a->count, a->datatype, r + 1);
    else
        tdm_sched_send(s, acc, a->count, a->datatype, r - 1);
}

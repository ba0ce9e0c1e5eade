/*
 * Recursive-doubling scan and exscan: ceil(log2 p) exchanges instead of a chain of p-1. In the step
 * of bit k, rank r swaps with r^k the total over its aligned group of ranks; a lower partner's total
 * also joins r's prefix. Groups are contiguous and partners adjacent, so non-commutative ops keep
 * MPI's order. Exscan leaves recvbuf at rank 0 untouched (MPI leaves it undefined).
 */
#include "alg_util.h"

static int scan_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a, int exclusive)
{
    int p = a->size, r = a->rank, n = a->count;
    const void *input = tdm_reduction_input(a);
    void *total = tdm_tmp_elems(s, &a->dtype, n); /* over this rank's group so far */
    void *inbox = tdm_tmp_elems(s, &a->dtype, n);
    tdm_sched_copy(s, input, n, a->datatype, total, n, a->datatype);
    int have_prefix = !exclusive; /* the inclusive prefix starts as the rank's own input */
    if (!exclusive && !a->in_place)
        tdm_sched_copy(s, input, n, a->datatype, a->recvbuf, n, a->datatype);

    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= p)
            continue;
        tdm_sched_send(s, total, n, a->datatype, peer);
        tdm_sched_recv(s, inbox, n, a->datatype, peer);
        tdm_sched_round(s);
        if (peer < r) {
            if (have_prefix)
                tdm_reduce_from_lower(s, a, inbox, a->recvbuf, n);
            else
                tdm_sched_copy(s, inbox, n, a->datatype, a->recvbuf, n, a->datatype);
            have_prefix = 1;
            tdm_reduce_from_lower(s, a, inbox, total, n);
        } else {
            tdm_reduce_from_higher(s, a, inbox, total, n);
        }
    }
    return tdm_sched_finish(s);
}

int tdm_scan_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a)
{
    return scan_recursive_doubling(s, a, 0);
}

int tdm_exscan_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a)
{
    return scan_recursive_doubling(s, a, 1);
}

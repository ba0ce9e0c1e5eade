/*
 * Pairwise-exchange reduce-scatter: at step i rank r sends its contribution to block r+i straight to
 * rank r+i and receives rank r-i's contribution to its own block: p-1 steps, no forwarding. Any op:
 * contributions arrive from r-1, r-2, ..., 0 (each lower than all before: low = c op low) and then
 * from p-1, p-2, ..., r+1 (high = c op high); the result is low op high, MPI's canonical order.
 */
#include "alg_util.h"

int tdm_reduce_scatter_pairwise(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank, n = a->recvcounts[r];
    const int *count = a->recvcounts;
    MPI_Aint *offset = tdm_prefix_offsets(s, count, p);
    if (!offset)
        return tdm_sched_finish(s);
    const void *input = tdm_reduction_input(a);
    int split = !a->commutative && r < p - 1; /* contributions from above need their own accumulator */
    /* With MPI_IN_PLACE, recvbuf still holds blocks to send: accumulate aside. */
    void *low = a->in_place ? tdm_tmp_elems(s, &a->dtype, n) : a->recvbuf;
    void *high = split ? tdm_tmp_elems(s, &a->dtype, n) : NULL;
    void *inbox[2] = {tdm_tmp_elems(s, &a->dtype, n), tdm_tmp_elems(s, &a->dtype, n)};

    tdm_sched_copy(s, tdm_elem(input, &a->dtype, offset[r]), n, a->datatype, low, n, a->datatype);
    for (int i = 1; i <= p; i++) {
        if (i > 1) { /* fold what arrived last round */
            int src = (r - (i - 1) + p) % p;
            void *got = inbox[(i - 1) % 2];
            if (!split || src < r)
                tdm_sched_reduce(s, got, low, n, a->datatype, a->op);
            else if (src == p - 1)
                tdm_sched_copy(s, got, n, a->datatype, high, n, a->datatype);
            else
                tdm_sched_reduce(s, got, high, n, a->datatype, a->op);
        }
        if (i == p)
            break;
        int dst = (r + i) % p, src = (r - i + p) % p;
        tdm_sched_send(s, tdm_elem(input, &a->dtype, offset[dst]), count[dst], a->datatype, dst);
        tdm_sched_recv(s, inbox[i % 2], n, a->datatype, src);
        tdm_sched_round(s);
    }
    if (split) {
        tdm_sched_reduce(s, low, high, n, a->datatype, a->op); /* high = low op high */
        tdm_sched_copy(s, high, n, a->datatype, a->recvbuf, n, a->datatype);
    } else if (low != a->recvbuf) {
        tdm_sched_copy(s, low, n, a->datatype, a->recvbuf, n, a->datatype);
    }
    return tdm_sched_finish(s);
}

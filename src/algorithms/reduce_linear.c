/*
 * Linear reduce: every rank sends to the root, which combines the contributions in rank order
 * (c0 op (c1 op (... op c_{p-1}))), right for any op. Costs p buffers at the root: tiny p only.
 */
#include "alg_util.h"

int tdm_reduce_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, n = a->count;
    if (a->rank != a->root) {
        tdm_sched_send(s, a->sendbuf, n, a->datatype, a->root);
        return tdm_sched_finish(s);
    }
    const void *input = tdm_reduction_input(a);
    if (p == 1) {
        if (!a->in_place)
            tdm_sched_copy(s, input, n, a->datatype, a->recvbuf, n, a->datatype);
        return tdm_sched_finish(s);
    }
    /* Slot i holds rank i's contribution; the root copies its own there too, since with MPI_IN_PLACE
     * it lives in recvbuf, which the combination overwrites. */
    char *slots = tdm_tmp_elems(s, &a->dtype, n * p);
#define SLOT(i) tdm_elem(slots, &a->dtype, (MPI_Aint)(i) * n)
    tdm_sched_copy(s, input, n, a->datatype, SLOT(a->root), n, a->datatype);
    for (int i = 0; i < p; i++)
        if (i != a->root)
            tdm_sched_recv(s, SLOT(i), n, a->datatype, i);
    tdm_sched_round(s);
    tdm_sched_copy(s, SLOT(p - 1), n, a->datatype, a->recvbuf, n, a->datatype);
    for (int i = p - 2; i >= 0; i--)
        tdm_reduce_from_lower(s, a, SLOT(i), a->recvbuf, n);
#undef SLOT
    return tdm_sched_finish(s);
}

/* Linear gather and gatherv: every rank sends its block to the root, which receives them all at once. */
#include "alg_util.h"

static int gather_linear(tdm_schedule *s, const tdm_coll_args *a, const int *counts, tdm_displs displs)
{
    if (a->rank != a->root) {
        tdm_sched_send(s, a->sendbuf, a->sendcount, a->sendtype, a->root);
        return tdm_sched_finish(s);
    }
    for (int i = 0; i < a->size; i++) {
        void *block = tdm_elem(a->recvbuf, &a->rtype, counts ? tdm_displ(displs, i) : (MPI_Aint)i * a->recvcount);
        int count = counts ? counts[i] : a->recvcount;
        if (i != a->root)
            tdm_sched_recv(s, block, count, a->recvtype, i);
        else if (!a->in_place)
            tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, block, count, a->recvtype);
    }
    return tdm_sched_finish(s);
}

int tdm_gather_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    return gather_linear(s, a, NULL, (tdm_displs){0});
}

int tdm_gatherv_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    return gather_linear(s, a, a->recvcounts, a->rdispls);
}

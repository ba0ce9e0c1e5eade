/* Linear scatter and scatterv: the root sends every rank its block at once. */
#include "alg_util.h"

static int scatter_linear(tdm_schedule *s, const tdm_coll_args *a, const int *counts, tdm_displs displs)
{
    if (a->rank != a->root) {
        tdm_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, a->root);
        return tdm_sched_finish(s);
    }
    for (int i = 0; i < a->size; i++) {
        const void *block =
            tdm_elem(a->sendbuf, &a->stype, counts ? tdm_displ(displs, i) : (MPI_Aint)i * a->sendcount);
        int count = counts ? counts[i] : a->sendcount;
        if (i != a->root)
            tdm_sched_send(s, block, count, a->sendtype, i);
        else if (!a->in_place)
            tdm_sched_copy(s, block, count, a->sendtype, a->recvbuf, a->recvcount, a->recvtype);
    }
    return tdm_sched_finish(s);
}

int tdm_scatter_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    return scatter_linear(s, a, NULL, (tdm_displs){0});
}

int tdm_scatterv_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    return scatter_linear(s, a, a->sendcounts, a->sdispls);
}

/* Linear broadcast: the root sends to every rank at once. Best for 2 or 3 ranks. */
#include "alg_util.h"

int tdm_bcast_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    if (a->rank != a->root) {
        tdm_sched_recv(s, a->recvbuf, a->count, a->datatype, a->root);
        return tdm_sched_finish(s);
    }
    for (int i = 1; i < a->size; i++)
        tdm_sched_send(s, a->recvbuf, a->count, a->datatype, (a->root + i) % a->size);
    return tdm_sched_finish(s);
}

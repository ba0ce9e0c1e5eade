/* Linear allgatherv: every rank sends its block to every other at once; one round, p-1 messages each
 * way. For few ranks or very uneven blocks. */
#include "alg_util.h"

int tdm_allgatherv_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int r = a->rank;
    const void *mine = a->in_place ? tdm_elem(a->recvbuf, &a->rtype, tdm_displ(a->rdispls, r)) : a->sendbuf;
    int mine_count = a->in_place ? a->recvcounts[r] : a->sendcount;
    MPI_Datatype mine_type = a->in_place ? a->recvtype : a->sendtype;
    if (!a->in_place)
        tdm_sched_copy(s, mine, mine_count, mine_type, tdm_elem(a->recvbuf, &a->rtype, tdm_displ(a->rdispls, r)),
                       a->recvcounts[r], a->recvtype);
    for (int i = 1; i < a->size; i++) {
        int to = (r + i) % a->size, from = (r - i + a->size) % a->size;
        tdm_sched_send(s, mine, mine_count, mine_type, to);
        tdm_sched_recv(s, tdm_elem(a->recvbuf, &a->rtype, tdm_displ(a->rdispls, from)), a->recvcounts[from],
                       a->recvtype, from);
    }
    return tdm_sched_finish(s);
}

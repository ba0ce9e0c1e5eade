/* Linear alltoall, alltoallv and alltoallw: every message posted at once in one round. Fewest rounds; for few
 * ranks or short blocks. */
#include "alg_util.h"

static int alltoall_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, r = a->rank;
    tdm_outgoing_blocks out;
    if (!tdm_outgoing_blocks_init(s, a, &out))
        return tdm_sched_finish(s);
    for (int i = 0; i < p; i++) {
        int dst = (r + i) % p, src = (r - i + p) % p;
        const void *sbuf;
        int scount, rcount;
        MPI_Datatype stype, rtype;
        tdm_outgoing_block(&out, dst, &sbuf, &scount, &stype);
        void *rbuf = tdm_incoming_block(a, src, &rcount, &rtype);
        if (i == 0) {
            if (!a->in_place)
                tdm_sched_copy(s, sbuf, scount, stype, rbuf, rcount, rtype);
            continue;
        }
        tdm_sched_recv(s, rbuf, rcount, rtype, src);
        tdm_sched_send(s, sbuf, scount, stype, dst);
    }
    return tdm_sched_finish(s);
}

int tdm_alltoall_linear(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_linear(s, a); }
int tdm_alltoallv_linear(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_linear(s, a); }
int tdm_alltoallw_linear(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_linear(s, a); }

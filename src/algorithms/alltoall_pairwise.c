/* Pairwise-exchange alltoall, alltoallv and alltoallw: p-1 steps; at step i rank r sends to r+i and
 * receives from r-i, so each step is a permutation and no rank is flooded. For long blocks. */
#include "alg_util.h"

static int alltoall_pairwise(tdm_schedule *s, const tdm_coll_args *a)
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
        tdm_sched_send(s, sbuf, scount, stype, dst);
        tdm_sched_recv(s, rbuf, rcount, rtype, src);
        tdm_sched_round(s);
    }
    return tdm_sched_finish(s);
}

int tdm_alltoall_pairwise(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_pairwise(s, a); }
int tdm_alltoallv_pairwise(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_pairwise(s, a); }
int tdm_alltoallw_pairwise(tdm_schedule *s, const tdm_coll_args *a) { return alltoall_pairwise(s, a); }

/*
 * Binomial-tree gather: each rank collects its subtree's blocks (packed, see alg_util.h) and forwards
 * them in one message; log2(p) rounds at the root. The root receives each subtree straight into recvbuf
 * unless its ranks wrap past p-1, in which case it unpacks from a temporary.
 */
#include "alg_util.h"

int tdm_gather_binomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, root = a->root, vr = tdm_rel_rank(a->rank, root, p);
    int lowbit = 1;
    while (lowbit < p && !(vr & lowbit))
        lowbit <<= 1;
    int subtree = vr == 0 ? p : (lowbit < p - vr ? lowbit : p - vr);

    if (vr == 0) {
        size_t blk = (size_t)a->recvcount * a->rtype.size;
        if (!a->in_place)
            tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                           tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, root), a->recvcount,
                           a->recvtype);
        char *wrapped = NULL;
        int wrapped_rel = 0, wrapped_n = 0;
        for (int m = 1; m < p; m <<= 1) {
            int n = m < p - m ? m : p - m;
            if (root + m + n <= p) {
                tdm_sched_recv(s, tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, root + m),
                               n * a->recvcount, a->recvtype, tdm_abs_rank(m, root, p));
            } else if (root + m >= p) { /* the whole subtree lies at ranks below the root */
                tdm_sched_recv(s, tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, root + m - p),
                               n * a->recvcount, a->recvtype, tdm_abs_rank(m, root, p));
            } else {                    /* at most one subtree straddles rank p-1 */
                wrapped = tdm_sched_tmp(s, n * blk);
                wrapped_rel = m;
                wrapped_n = n;
                tdm_sched_recv(s, wrapped, (int)(n * blk), MPI_PACKED, tdm_abs_rank(m, root, p));
            }
        }
        tdm_sched_round(s);
        if (wrapped)
            tdm_unpack_blocks(s, wrapped, blk, wrapped_rel, wrapped_n, root, p, a->recvbuf,
                              a->recvcount, a->recvtype, &a->rtype);
        return tdm_sched_finish(s);
    }

    int parent = tdm_abs_rank(vr - lowbit, root, p);
    if (subtree == 1) {
        tdm_sched_send(s, a->sendbuf, a->sendcount, a->sendtype, parent);
        return tdm_sched_finish(s);
    }
    size_t blk = (size_t)a->sendcount * a->stype.size;
    char *collected = tdm_sched_tmp(s, subtree * blk);
    tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, collected, (int)blk, MPI_PACKED);
    for (int m = 1; m < lowbit && vr + m < p; m <<= 1) {
        int n = m < p - vr - m ? m : p - vr - m;
        tdm_sched_recv(s, collected + m * blk, (int)(n * blk), MPI_PACKED, tdm_abs_rank(vr + m, root, p));
    }
    tdm_sched_round(s);
    tdm_sched_send(s, collected, (int)(subtree * blk), MPI_PACKED, parent);
    return tdm_sched_finish(s);
}

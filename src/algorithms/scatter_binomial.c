/*
 * Binomial-tree scatter, the mirror of gather_binomial: the root sends each subtree its blocks in one
 * packed message (straight from sendbuf when sendtype is contiguous and the subtree's ranks do not
 * wrap past p-1), inner ranks keep their block and pass the rest on, largest subtree first. Split
 * (split-tree mode), the edges spanning fewer than 2^S ranks run last, in the foreground.
 */
#include "alg_util.h"

#include <limits.h>

int tdm_scatter_binomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, root = a->root, vr = tdm_rel_rank(a->rank, root, p);
    int lowbit = 1;
    while (lowbit < p && !(vr & lowbit))
        lowbit <<= 1;
    int subtree = vr == 0 ? p : (lowbit < p - vr ? lowbit : p - vr);
    int split = a->split_levels >= 0, foreground_mask = split ? 1 << a->split_levels : 0;
    /* packed subtrees are counted in int bytes: past 2 GiB the root sends each block itself */
    size_t block = a->rank == root ? (size_t)a->sendcount * a->stype.size : (size_t)a->recvcount * a->rtype.size;
    if (block * (size_t)p > INT_MAX) {
        s->algorithm = "scatter_linear";
        return tdm_scatter_linear(s, a);
    }

    if (vr == 0) {
        size_t blk = (size_t)a->sendcount * a->stype.size;
        if (!a->in_place)
            tdm_sched_copy(s, tdm_rank_block(a->sendbuf, &a->stype, a->sendcount, root), a->sendcount,
                           a->sendtype, a->recvbuf, a->recvcount, a->recvtype);
        int top = 1;
        while (top * 2 < p)
            top *= 2;
        for (int m = top; m >= 1 && p > 1; m >>= 1) {
            int n = m < p - m ? m : p - m;
            if (m < foreground_mask)
                tdm_sched_split_foreground(s);
            int first = (root + m) % p, child = tdm_abs_rank(m, root, p);
            if (a->stype.contiguous && first + n <= p) {
                tdm_sched_send(s, tdm_rank_block(a->sendbuf, &a->stype, a->sendcount, first),
                               (int)(n * blk), MPI_PACKED, child);
            } else {
                char *packed = tdm_sched_tmp(s, n * blk);
                tdm_pack_blocks(s, a->sendbuf, a->sendcount, a->sendtype, &a->stype, m, n, root, p,
                                packed, blk);
                tdm_sched_send(s, packed, (int)(n * blk), MPI_PACKED, child);
            }
        }
        return tdm_sched_finish(s);
    }

    int parent = tdm_abs_rank(vr - lowbit, root, p);
    if (lowbit < foreground_mask)
        tdm_sched_split_foreground(s);
    if (subtree == 1) {
        void *staged = tdm_recv_packed(s, a->recvbuf, a->recvcount, a->recvtype, &a->rtype, parent);
        tdm_sched_round(s);
        tdm_unpack_received(s, staged, a->recvbuf, a->recvcount, a->recvtype, &a->rtype);
        return tdm_sched_finish(s);
    }
    size_t blk = (size_t)a->recvcount * a->rtype.size;
    char *blocks = tdm_sched_tmp(s, subtree * blk);
    tdm_sched_recv(s, blocks, (int)(subtree * blk), MPI_PACKED, parent);
    tdm_sched_round(s);
    tdm_sched_copy(s, blocks, (int)blk, MPI_PACKED, a->recvbuf, a->recvcount, a->recvtype);
    for (int m = lowbit / 2; m >= 1; m >>= 1) {
        if (vr + m >= p)
            continue;
        int n = m < p - vr - m ? m : p - vr - m;
        if (m < foreground_mask)
            tdm_sched_split_foreground(s);
        tdm_sched_send(s, blocks + m * blk, (int)(n * blk), MPI_PACKED, tdm_abs_rank(vr + m, root, p));
    }
    return tdm_sched_finish(s);
}

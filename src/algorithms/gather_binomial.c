/*
 * Binomial-tree gather: each rank collects its subtree's blocks (packed, see alg_util.h) and forwards
 * them in one message; log2(p) rounds at the root. The root receives a subtree straight into recvbuf
 * when recvtype is contiguous and the subtree's ranks do not wrap past p-1; else it unpacks. Split
 * (split-tree mode), the edges spanning fewer than 2^S ranks run first, in the foreground.
 */
#include "alg_util.h"

#include <limits.h>

#define MAX_CHILDREN 32

/* Split: a subtree entirely in the foreground hands nothing to the background. */
static int finish(tdm_schedule *s, int split)
{
    if (split)
        tdm_sched_split_background(s);
    return tdm_sched_finish(s);
}

int tdm_gather_binomial(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, root = a->root, vr = tdm_rel_rank(a->rank, root, p);
    int lowbit = 1;
    while (lowbit < p && !(vr & lowbit))
        lowbit <<= 1;
    int subtree = vr == 0 ? p : (lowbit < p - vr ? lowbit : p - vr);
    int split = a->split_levels >= 0, foreground_mask = split ? 1 << a->split_levels : 0;
    /* packed subtrees are counted in int bytes: past 2 GiB each rank sends its block itself */
    size_t block = a->rank == root ? (size_t)a->recvcount * a->rtype.size : (size_t)a->sendcount * a->stype.size;
    if (block * (size_t)p > INT_MAX) {
        s->algorithm = "gather_linear";
        return tdm_gather_linear(s, a);
    }

    if (vr == 0) {
        size_t blk = (size_t)a->recvcount * a->rtype.size;
        if (!a->in_place)
            tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                           tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, root), a->recvcount,
                           a->recvtype);
        char *staged[MAX_CHILDREN];
        int staged_rel[MAX_CHILDREN], staged_n[MAX_CHILDREN], nstaged = 0;
        for (int m = 1; m < p; m <<= 1) {
            int n = m < p - m ? m : p - m;
            int first = (root + m) % p, child = tdm_abs_rank(m, root, p);
            if (split && m >= foreground_mask)
                tdm_sched_split_background(s);
            if (a->rtype.contiguous && first + n <= p) {
                tdm_sched_recv(s, tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, first),
                               (int)(n * blk), MPI_PACKED, child);
            } else {
                staged[nstaged] = tdm_sched_tmp(s, n * blk);
                staged_rel[nstaged] = m;
                staged_n[nstaged] = n;
                tdm_sched_recv(s, staged[nstaged++], (int)(n * blk), MPI_PACKED, child);
            }
        }
        tdm_sched_round(s);
        for (int i = 0; i < nstaged; i++)
            tdm_unpack_blocks(s, staged[i], blk, staged_rel[i], staged_n[i], root, p, a->recvbuf,
                              a->recvcount, a->recvtype, &a->rtype);
        return finish(s, split);
    }

    int parent = tdm_abs_rank(vr - lowbit, root, p);
    if (subtree == 1) {
        if (split && lowbit >= foreground_mask)
            tdm_sched_split_background(s);
        tdm_send_packed(s, a->sendbuf, a->sendcount, a->sendtype, &a->stype, parent);
        return finish(s, split);
    }
    size_t blk = (size_t)a->sendcount * a->stype.size;
    char *collected = tdm_sched_tmp(s, subtree * blk);
    tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, collected, (int)blk, MPI_PACKED);
    for (int m = 1; m < lowbit && vr + m < p; m <<= 1) {
        int n = m < p - vr - m ? m : p - vr - m;
        if (split && m >= foreground_mask)
            tdm_sched_split_background(s);
        tdm_sched_recv(s, collected + m * blk, (int)(n * blk), MPI_PACKED, tdm_abs_rank(vr + m, root, p));
    }
    tdm_sched_round(s);
    if (split && lowbit >= foreground_mask)
        tdm_sched_split_background(s);
    tdm_sched_send(s, collected, (int)(subtree * blk), MPI_PACKED, parent);
    return finish(s, split);
}

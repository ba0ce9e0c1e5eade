/*
 * Broadcast for long messages (van de Geijn): the root scatters the buffer in p blocks down a binomial
 * tree, then a ring allgather completes it everywhere. About 2 n beta instead of log2(p) n beta.
 * Block j (elements split as evenly as possible) belongs to the rank at relative position j.
 */
#include "alg_util.h"

static int first_elem(const tdm_coll_args *a, int block) /* block may be p: the end */
{
    return tdm_block_offset(a->count, a->size, block);
}

static void *block_addr(const tdm_coll_args *a, int block)
{
    return tdm_elem(a->recvbuf, &a->dtype, first_elem(a, block));
}

/* Elements of relative blocks [b0, b1). */
static int blocks_count(const tdm_coll_args *a, int b0, int b1)
{
    return first_elem(a, b1) - first_elem(a, b0);
}

int tdm_bcast_scatter_allgather(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, vr = tdm_rel_rank(a->rank, a->root, p);
    if (p == 1)
        return tdm_sched_finish(s);

    /* Scatter: rank vr receives blocks [vr, vr + subtree) from its parent. */
    int mask = 1;
    while (mask < p && !(vr & mask))
        mask <<= 1;
    if (vr != 0) {
        int end = vr + mask < p ? vr + mask : p;
        tdm_sched_recv(s, block_addr(a, vr), blocks_count(a, vr, end), a->datatype,
                       tdm_abs_rank(vr - mask, a->root, p));
        tdm_sched_round(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child >= p)
            continue;
        int end = child + mask < p ? child + mask : p;
        tdm_sched_send(s, block_addr(a, child), blocks_count(a, child, end), a->datatype,
                       tdm_abs_rank(child, a->root, p));
    }
    tdm_sched_round(s);

    /* Ring allgather over relative ranks: step t passes block vr - t to the right. */
    int right = tdm_abs_rank((vr + 1) % p, a->root, p), left = tdm_abs_rank((vr - 1 + p) % p, a->root, p);
    for (int t = 0; t < p - 1; t++) {
        int sb = (vr - t + p) % p, rb = (vr - t - 1 + p) % p;
        tdm_sched_send(s, block_addr(a, sb), blocks_count(a, sb, sb + 1), a->datatype, right);
        tdm_sched_recv(s, block_addr(a, rb), blocks_count(a, rb, rb + 1), a->datatype, left);
        tdm_sched_round(s);
    }
    return tdm_sched_finish(s);
}

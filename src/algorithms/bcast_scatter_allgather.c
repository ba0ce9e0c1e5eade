/*
 * Broadcast for long messages (van de Geijn): the root scatters the message in p blocks down a binomial
 * tree, then a ring allgather completes it everywhere. About 2 n beta instead of log2(p) n beta.
 *
 * Blocks are cut in bytes of the type signature, not in elements: MPI lets ranks describe the same
 * message with different (count, datatype) pairs. A contiguous buffer is used as bytes in place; any
 * other is packed (root) or unpacked (others) around the exchange. Block j belongs to relative rank j.
 */
#include "alg_util.h"

#include <limits.h>

typedef struct {
    char *bytes;
    long total;
    int p;
} byte_blocks;

static char *block_at(const byte_blocks *b, int block)
{
    return b->bytes + tdm_block_offset((int)b->total, b->p, block);
}

/* Bytes of blocks [b0, b1). */
static int span(const byte_blocks *b, int b0, int b1)
{
    return tdm_block_offset((int)b->total, b->p, b1) - tdm_block_offset((int)b->total, b->p, b0);
}

int tdm_bcast_scatter_allgather(tdm_schedule *s, const tdm_coll_args *a)
{
    int p = a->size, vr = tdm_rel_rank(a->rank, a->root, p), is_root = vr == 0;
    long total = (long)a->count * a->dtype.size;
    if (p == 1)
        return tdm_sched_finish(s);
    if (total > INT_MAX) { /* byte offsets are ints: the binomial tree moves it whole */
        s->algorithm = "bcast_binomial";
        return tdm_bcast_binomial(s, a);
    }
    byte_blocks b = {a->dtype.contiguous ? a->recvbuf : tdm_sched_tmp(s, (size_t)total), total, p};
    if (!a->dtype.contiguous && is_root)
        tdm_sched_copy(s, a->recvbuf, a->count, a->datatype, b.bytes, (int)total, MPI_PACKED);

    /* Scatter: rank vr receives blocks [vr, vr + subtree) from its parent. */
    int mask = 1;
    while (mask < p && !(vr & mask))
        mask <<= 1;
    if (!is_root) {
        int end = vr + mask < p ? vr + mask : p;
        tdm_sched_recv(s, block_at(&b, vr), span(&b, vr, end), MPI_BYTE, tdm_abs_rank(vr - mask, a->root, p));
        tdm_sched_round(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child >= p)
            continue;
        int end = child + mask < p ? child + mask : p;
        tdm_sched_send(s, block_at(&b, child), span(&b, child, end), MPI_BYTE, tdm_abs_rank(child, a->root, p));
    }
    tdm_sched_round(s);

    /* Ring allgather over relative ranks: step t passes block vr - t to the right. */
    int right = tdm_abs_rank((vr + 1) % p, a->root, p), left = tdm_abs_rank((vr - 1 + p) % p, a->root, p);
    for (int t = 0; t < p - 1; t++) {
        int sb = (vr - t + p) % p, rb = (vr - t - 1 + p) % p;
        tdm_sched_send(s, block_at(&b, sb), span(&b, sb, sb + 1), MPI_BYTE, right);
        tdm_sched_recv(s, block_at(&b, rb), span(&b, rb, rb + 1), MPI_BYTE, left);
        tdm_sched_round(s);
    }
    if (!a->dtype.contiguous && !is_root)
        tdm_sched_copy(s, b.bytes, (int)total, MPI_PACKED, a->recvbuf, a->count, a->datatype);
    return tdm_sched_finish(s);
}

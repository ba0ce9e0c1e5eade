/* Ring reduce-scatter and ring allgather, shared by the ring algorithms of several collectives. */
#include "alg_util.h"

int tdm_even_blocks(tdm_schedule *s, MPI_Aint n, int p, MPI_Aint **offset, int **count)
{
    MPI_Aint *off = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)p);
    int *cnt = tdm_sched_tmp(s, sizeof(int) * (size_t)p);
    if (!off || !cnt)
        return 0;
    MPI_Aint base = n / p, extra = n % p;
    for (int b = 0; b < p; b++) {
        off[b] = b * base + (b < extra ? b : extra);
        cnt[b] = (int)(base + (b < extra));
    }
    *offset = off;
    *count = cnt;
    return 1;
}

/*
 * Step t (0 <= t < p-1): rank r receives from its left neighbour the partial result of block r-t-2,
 * over the t+1 ranks before it, adds its own contribution and passes it right at step t+1. Step 0
 * sends the rank's own contribution to block r-1. After step p-2 the rank holds block r complete.
 * Each step's block is cut into nseg segments (the same number on every rank); unit u = t*nseg + k is
 * received in round u and reduced in round u+1, while unit u+1 is in flight: a round posts its
 * receive, then its send if that does not wait for the reduction, then the reduction.
 */
void tdm_ring_reduce_scatter(tdm_schedule *s, const tdm_coll_args *a, const void *input,
                             const MPI_Aint *offset, const int *count, void *out)
{
    int p = a->size, r = a->rank;
    const tdm_typeinfo *t = &a->dtype;
    if (p == 1) {
        if (input != out)
            tdm_sched_copy(s, input, count[0], a->datatype, out, count[0], a->datatype);
        return;
    }
    int max_block = 0;
    for (int b = 0; b < p; b++)
        if (count[b] > max_block)
            max_block = count[b];
    int nseg = tdm_segments(a, max_block, 1);
    /* partial results, double-buffered by step: receive into one while sending from the other */
    char *partial[2] = {tdm_tmp_elems(s, t, max_block), tdm_tmp_elems(s, t, max_block)};
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    /* In-place allreduce: the own contribution to block r already sits where the result goes. */
    int own_in_out = out == tdm_elem(input, t, offset[r]);
    /* Otherwise, with a separate send buffer (which MPI forbids to overlap the receive buffer), the last
     * step receives straight into the result and adds the own contribution there: no final copy. */
    int recv_into_out = !own_in_out && !a->in_place;

#define SEG_FIRST(b, k) tdm_block_offset(count[b], nseg, k)
#define SEG_COUNT(b, k) tdm_block_count(count[b], nseg, k)
    int units = (p - 1) * nseg;
    for (int u = 0; u <= units; u++) {
        int step = u / nseg, k = u % nseg;
        int sb = (r - step - 1 + p) % p, rb = (r - step - 2 + 2 * p) % p;
        /* the segment sent was reduced last round only if a step has one segment */
        int send_waits = step > 0 && nseg == 1;
        if (u < units) {
            char *into = step == p - 2 && recv_into_out ? out : partial[step % 2];
            tdm_sched_recv(s, tdm_elem(into, t, SEG_FIRST(rb, k)), SEG_COUNT(rb, k), a->datatype, left);
            if (!send_waits) {
                const void *src = step == 0 ? tdm_elem(input, t, offset[sb] + SEG_FIRST(sb, k))
                                            : tdm_elem(partial[(step - 1) % 2], t, SEG_FIRST(sb, k));
                tdm_sched_send(s, src, SEG_COUNT(sb, k), a->datatype, right);
            }
        }
        if (u > 0) { /* add own contribution to the unit received last round */
            int pstep = (u - 1) / nseg, pk = (u - 1) % nseg, b = (r - pstep - 2 + 2 * p) % p;
            int last = pstep == p - 2;
            void *seg = tdm_elem(last && recv_into_out ? out : partial[pstep % 2], t, SEG_FIRST(b, pk));
            const void *own = tdm_elem(input, t, offset[b] + SEG_FIRST(b, pk));
            if (last && own_in_out) /* straight into the result */
                tdm_sched_reduce(s, seg, tdm_elem(out, t, SEG_FIRST(b, pk)), SEG_COUNT(b, pk), a->datatype, a->op);
            else
                tdm_sched_reduce(s, own, seg, SEG_COUNT(b, pk), a->datatype, a->op);
        }
        if (u < units && send_waits)
            tdm_sched_send(s, tdm_elem(partial[(step - 1) % 2], t, SEG_FIRST(sb, k)), SEG_COUNT(sb, k), a->datatype,
                           right);
        tdm_sched_round(s);
    }
#undef SEG_FIRST
#undef SEG_COUNT
    if (!own_in_out && !recv_into_out)
        tdm_sched_copy(s, partial[(p - 2) % 2], count[r], a->datatype, out, count[r], a->datatype);
}

/* Step t: send block r-t to the right, receive block r-t-1 from the left. Steps before first_step
 * are the caller's. */
void tdm_ring_allgather(tdm_schedule *s, int rank, int size, void *buf, const tdm_typeinfo *t,
                        MPI_Datatype type, const MPI_Aint *offset, const int *count, int first_step)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int step = first_step; step < size - 1; step++) {
        int sb = (rank - step + size) % size, rb = (rank - step - 1 + size) % size;
        tdm_sched_send(s, tdm_elem(buf, t, offset[sb]), count[sb], type, right);
        tdm_sched_recv(s, tdm_elem(buf, t, offset[rb]), count[rb], type, left);
        tdm_sched_round(s);
    }
}

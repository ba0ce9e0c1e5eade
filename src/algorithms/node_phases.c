#include "node_phases.h"

#include <limits.h>

tdm_node_view tdm_node_view_of(const tdm_comm_nodes *l, int rank)
{
    int node = l->node_of[rank];
    return (tdm_node_view){.node = node, .local = l->local[rank], .n = tdm_node_ranks(l, node),
                           .members = tdm_node_members(l, node), .leader = tdm_node_members(l, node)[0]};
}

int tdm_node_fits(const tdm_comm_nodes *l, const tdm_typeinfo *t)
{
    return t->true_extent >= 0 && (size_t)t->true_extent <= l->cell_bytes;
}

int tdm_node_chunk(const tdm_comm_nodes *l, const tdm_typeinfo *t)
{
    if (!tdm_node_fits(l, t) || t->extent <= 0)
        return 1;
    size_t elems = (l->cell_bytes - (size_t)t->true_extent) / (size_t)t->extent + 1;
    return elems > INT_MAX ? INT_MAX : (int)elems;
}

const int *tdm_node_followers(tdm_schedule *s, const tdm_node_view *v)
{
    int *followers = tdm_sched_tmp(s, sizeof(int) * (size_t)(v->n > 1 ? v->n - 1 : 1));
    for (int i = 1; followers && i < v->n; i++)
        followers[i - 1] = v->members[i];
    return followers;
}

/* Element offset c * chunk of a buffer of type t. */
static void *chunk_at(const void *buf, const tdm_typeinfo *t, int chunk, int c)
{
    return tdm_elem(buf, t, (MPI_Aint)chunk * c);
}

static int chunks_of(int count, int chunk) { return count == 0 ? 1 : (count + chunk - 1) / chunk; }
static int chunk_count(int count, int chunk, int c) { return count - c * chunk < chunk ? count - c * chunk : chunk; }

void tdm_node_reduce(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                     const void *input, void *acc, int count)
{
    const tdm_typeinfo *t = &a->dtype;
    int chunk = tdm_node_chunk(a->nodes, t), chunks = chunks_of(count, chunk);
    if (a->rank != v->leader) {
        for (int c = 0; c < chunks; c++)
            tdm_sched_shm_put(s, chunk_at(input, t, chunk, c), chunk_count(count, chunk, c), a->datatype, v->members, 1);
        tdm_sched_round(s);
    } else if (a->commutative) {
        /* the leader's own first, then the others' as they come, highest rank first */
        if (acc != input)
            tdm_sched_copy(s, input, count, a->datatype, acc, count, a->datatype);
        for (int c = 0; c < chunks; c++)
            for (int i = v->n - 1; i >= 1; i--)
                tdm_sched_shm_get_reduce(s, chunk_at(acc, t, chunk, c), chunk_count(count, chunk, c), a->datatype, a->op,
                                         v->members[i], steps->member + c);
        tdm_sched_round(s);
    } else if (v->n > 1) {
        /* rank order: x0 op (x1 op (... op x_last)), folded from the highest rank down, the leader's
         * own (x0) last; into scratch where acc is the input */
        void *work = acc == input ? tdm_tmp_elems(s, t, count) : acc;
        for (int c = 0; c < chunks; c++) {
            void *at = chunk_at(work, t, chunk, c);
            int n = chunk_count(count, chunk, c);
            tdm_sched_shm_get(s, at, n, a->datatype, v->members[v->n - 1], steps->member + c);
            for (int i = v->n - 2; i >= 1; i--)
                tdm_sched_shm_get_reduce(s, at, n, a->datatype, a->op, v->members[i], steps->member + c);
        }
        tdm_sched_round(s);
        tdm_sched_reduce(s, input, work, count, a->datatype, a->op);
        tdm_sched_round(s);
        if (work != acc) {
            tdm_sched_copy(s, work, count, a->datatype, acc, count, a->datatype);
            tdm_sched_round(s);
        }
    } else if (acc != input) {
        tdm_sched_copy(s, input, count, a->datatype, acc, count, a->datatype);
    }
    if (v->n > 1)
        steps->member += chunks;
}

void tdm_node_bcast(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                    void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t)
{
    if (v->n == 1)
        return;
    int chunk = tdm_node_chunk(a->nodes, t), chunks = chunks_of(count, chunk);
    if (a->rank == v->leader) {
        const int *followers = tdm_node_followers(s, v);
        for (int c = 0; c < chunks; c++)
            tdm_sched_shm_put(s, chunk_at(buf, t, chunk, c), chunk_count(count, chunk, c), type, followers, v->n - 1);
    } else {
        for (int c = 0; c < chunks; c++)
            tdm_sched_shm_get(s, chunk_at(buf, t, chunk, c), chunk_count(count, chunk, c), type, v->leader,
                              steps->leader + c);
    }
    tdm_sched_round(s);
    steps->leader += chunks;
}

void tdm_node_allreduce_all(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                            const void *input, void *acc, int count)
{
    const tdm_typeinfo *t = &a->dtype;
    int chunk = tdm_node_chunk(a->nodes, t), chunks = chunks_of(count, chunk);
    if (acc == input) { /* the gets write acc while, as messages, the puts may still read it */
        void *copy = tdm_tmp_elems(s, t, count);
        tdm_sched_copy(s, input, count, a->datatype, copy, count, a->datatype);
        tdm_sched_round(s);
        input = copy;
    }
    /* Each rank reads every rank's chunk, its own too, and folds them in rank order from the highest
     * down: every rank computes the same result. Its puts go a few chunks ahead of its gets. */
    int ahead = TDM_SHM_CALL_CELLS - 1;
    for (int c = 0; c < chunks && c < ahead; c++)
        tdm_sched_shm_put(s, chunk_at(input, t, chunk, c), chunk_count(count, chunk, c), a->datatype, v->members, v->n);
    for (int c = 0; c < chunks; c++) {
        void *at = chunk_at(acc, t, chunk, c);
        int n = chunk_count(count, chunk, c);
        for (int i = v->n - 1; i >= 0; i--) {
            int writer = v->members[i], step = (writer == v->leader ? steps->leader : steps->member) + c;
            if (i == v->n - 1)
                tdm_sched_shm_get(s, at, n, a->datatype, writer, step);
            else
                tdm_sched_shm_get_reduce(s, at, n, a->datatype, a->op, writer, step);
        }
        if (c + ahead < chunks)
            tdm_sched_shm_put(s, chunk_at(input, t, chunk, c + ahead), chunk_count(count, chunk, c + ahead), a->datatype,
                              v->members, v->n);
    }
    tdm_sched_round(s);
    steps->leader += chunks;
    steps->member += chunks;
}

/* From this many bytes (or from a cell per rank, where cells are smaller) a node's ranks each reduce a
 * slice of the vector, where below it one rank (the leader, or each rank of a small node) reduces all of
 * it: the reduction's work and its reads of the segment are spread over the node's cores, at the cost of
 * a second hand-off (the slices back). 2 ranks, Open MPI, allreduce of 64 KiB: 11 us in slices, 22 us
 * through the leader. */
#define NODE_SLICES_BYTES (64 * 1024)

static int smallest_node(const tdm_comm_nodes *l)
{
    int least = INT_MAX;
    for (int k = 0; k < l->nnodes; k++)
        if (tdm_node_ranks(l, k) < least)
            least = tdm_node_ranks(l, k);
    return least;
}

int tdm_node_slices(const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    if (!l || !a->commutative || a->count <= 0)
        return 0;
    int slices = smallest_node(l);
    /* A reduce's leader reduces n - 1 vectors where in slices each rank reduces (n - 1) / n of one and
     * the root copies in (n - 1) / n more: the same work for 2 ranks a node, and the leader's form lets
     * the other rank run ahead to its next call (2 ranks, Open MPI, reduce of 256 KiB: 38-44 us
     * through the leader, 62-63 us in slices). Less from 3. */
    if (a->kind == TDM_COLL_REDUCE && slices < 3)
        return 0;
    size_t bytes = (size_t)a->count * (size_t)a->dtype.size, from = l->cell_bytes * (size_t)slices;
    if (bytes < (from < NODE_SLICES_BYTES ? from : NODE_SLICES_BYTES))
        return 0;
    if (slices > a->count)
        slices = a->count;
    return slices > 1 ? slices : 0;
}

void tdm_node_slice(int count, int slices, int j, int *first, int *n)
{
    long long from = (long long)count * j / slices, to = (long long)count * (j + 1) / slices;
    *first = (int)from;
    *n = (int)(to - from);
}

/* Slice j of a vector: elements first[j] .. first[j] + len[j] - 1, moving in chunks[j] chunks of a cell;
 * rows: the most chunks of a slice. */
typedef struct slicing {
    int slices, chunk, rows, total;
    int *first, *len, *chunks;
} slicing;

static int slicing_make(tdm_schedule *s, const tdm_comm_nodes *l, const tdm_typeinfo *t, int slices, slicing *g)
{
    g->slices = slices;
    g->chunk = tdm_node_chunk(l, t);
    g->rows = g->total = 0;
    g->first = tdm_sched_tmp(s, sizeof(int) * (size_t)slices);
    g->len = tdm_sched_tmp(s, sizeof(int) * (size_t)slices);
    g->chunks = tdm_sched_tmp(s, sizeof(int) * (size_t)slices);
    return g->first && g->len && g->chunks;
}

static void slicing_count(slicing *g)
{
    for (int j = 0; j < g->slices; j++) {
        g->chunks[j] = (g->len[j] + g->chunk - 1) / g->chunk;
        g->rows = g->chunks[j] > g->rows ? g->chunks[j] : g->rows;
        g->total += g->chunks[j];
    }
}

#define CHUNK_AT(g, buf, j, c) tdm_elem((buf), t, (MPI_Aint)(g)->first[j] + (MPI_Aint)(c) * (g)->chunk)
#define CHUNK_COUNT(g, j, c) ((g)->len[j] - (c) * (g)->chunk < (g)->chunk ? (g)->len[j] - (c) * (g)->chunk : (g)->chunk)

/*
 * The slices move in chunks of a cell, in rows: row c is every slice's chunk c. At each row, each rank
 * puts its chunk of slice (me + d) for that slice's owner (local rank me + d) and reduces into `mine`
 * (its own slice, where it owns one) the chunk that rank (me - d) put, for d = 1 .. n-1. Every rank
 * walks the same (row, d) positions in the same order, and a chunk is put at the position where it is
 * read: the rank furthest behind always finds its cells read and the chunks it waits for put, so a full
 * ring waits, never deadlocks. A writer's step at each position is counted for every rank (next[]) as
 * the schedule is built. `mine` starts as the rank's own input of its slice.
 */
static void reduce_rows(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const slicing *g, int *next,
                        const void *input, void *mine)
{
    const tdm_typeinfo *t = &a->dtype;
    int n = v->n, me = v->local, owner = me < g->slices;
    /* mine = input's slice, folded into each chunk's first get (mine = cell op input, one pass), or a
     * copy where there is no get */
    int apart = owner && mine != CHUNK_AT(g, input, me, 0);
    if (apart && n == 1)
        tdm_sched_copy(s, CHUNK_AT(g, input, me, 0), g->len[me], a->datatype, mine, g->len[me], a->datatype);
    for (int c = 0; c < g->rows; c++)
        for (int d = 1; d < n; d++) {
            int to = (me + d) % n, from = (me - d + n) % n, from_step = -1;
            for (int w = 0; w < n; w++) {
                int k = (w + d) % n;
                if (k < g->slices && c < g->chunks[k]) {
                    if (w == from)
                        from_step = next[w];
                    next[w]++;
                }
            }
            if (to < g->slices && c < g->chunks[to])
                tdm_sched_shm_put(s, CHUNK_AT(g, input, to, c), CHUNK_COUNT(g, to, c), a->datatype, v->members + to, 1);
            if (owner && c < g->chunks[me]) {
                void *at = tdm_elem(mine, t, (MPI_Aint)c * g->chunk);
                if (apart && d == 1)
                    tdm_sched_shm_get_reduce_from(s, CHUNK_AT(g, input, me, c), at, CHUNK_COUNT(g, me, c), a->datatype,
                                                  a->op, v->members[from], from_step);
                else
                    tdm_sched_shm_get_reduce(s, at, CHUNK_COUNT(g, me, c), a->datatype, a->op, v->members[from],
                                             from_step);
            }
        }
    tdm_sched_round(s);
}

static int *writer_steps(tdm_schedule *s, const tdm_node_view *v, const tdm_node_steps *steps)
{
    int *next = tdm_sched_tmp(s, sizeof(int) * (size_t)v->n);
    for (int w = 0; next && w < v->n; w++)
        next[w] = w == 0 ? steps->leader : steps->member;
    return next;
}

void tdm_node_reduce_slices(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                            const void *input, void *acc, int count, int slices, int root)
{
    const tdm_comm_nodes *l = a->nodes;
    const tdm_typeinfo *t = &a->dtype;
    int n = v->n, me = v->local, owner = me < slices;
    slicing g;
    int *next = writer_steps(s, v, steps);
    int *row_step = tdm_sched_tmp(s, sizeof(int) * (size_t)n);
    int *others = tdm_sched_tmp(s, sizeof(int) * (size_t)n);
    if (!slicing_make(s, l, t, slices, &g) || !next || !row_step || !others)
        return;
    for (int j = 0; j < slices; j++)
        tdm_node_slice(count, slices, j, &g.first[j], &g.len[j]);
    slicing_count(&g);
    reduce_rows(s, a, v, &g, next, input, owner ? CHUNK_AT(&g, acc, me, 0) : NULL);

    int root_node = root < 0 ? -1 : l->node_of[root];
    if (l->nnodes > 1 && owner) { /* the slice among its owners, one per node, in place */
        int *peers = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
        for (int k = 0; peers && k < l->nnodes; k++)
            peers[k] = tdm_node_rank(l, k, me);
        tdm_coll_args among = *a;
        among.rank = v->node;
        among.size = l->nnodes;
        among.count = g.len[me];
        among.root = root_node;
        among.in_place = root < 0 || v->node == root_node; /* a reduce's: MPI_IN_PLACE at its root only */
        among.sendbuf = among.recvbuf = CHUNK_AT(&g, acc, me, 0);
        among.nodes = NULL;
        tdm_node_among(s, &among, a->across_nodes, peers);
    }
    if (root >= 0) { /* the root's node's owners hand their slices to the root */
        if (v->node != root_node)
            return;
        int is_root = a->rank == root;
        for (int c = 0; c < g.rows; c++) {
            for (int w = 0; w < slices; w++)
                if (c < g.chunks[w])
                    row_step[w] = next[w]++;
            if (owner && !is_root && c < g.chunks[me])
                tdm_sched_shm_put(s, CHUNK_AT(&g, acc, me, c), CHUNK_COUNT(&g, me, c), a->datatype,
                                  &l->members[l->first[root_node] + l->local[root]], 1);
            for (int w = 0; is_root && w < slices; w++)
                if (w != me && c < g.chunks[w])
                    tdm_sched_shm_get(s, CHUNK_AT(&g, acc, w, c), CHUNK_COUNT(&g, w, c), a->datatype, v->members[w],
                                      row_step[w]);
        }
        tdm_sched_round(s);
        return;
    }

    for (int i = 0, k = 0; i < n; i++)
        if (i != me)
            others[k++] = v->members[i];
    for (int c = 0; c < g.rows; c++) {
        for (int w = 0; w < slices; w++)
            if (c < g.chunks[w])
                row_step[w] = next[w]++;
        if (owner && c < g.chunks[me])
            tdm_sched_shm_put(s, CHUNK_AT(&g, acc, me, c), CHUNK_COUNT(&g, me, c), a->datatype, others, n - 1);
        for (int d = 1; d < n; d++) {
            int w = (me + d) % n;
            if (w < slices && c < g.chunks[w])
                tdm_sched_shm_get(s, CHUNK_AT(&g, acc, w, c), CHUNK_COUNT(&g, w, c), a->datatype, v->members[w],
                                  row_step[w]);
        }
    }
    tdm_sched_round(s);
    steps->leader += g.total;
    steps->member += g.total;
}

void tdm_node_reduce_blocks(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const tdm_node_steps *steps,
                            const void *input, void *mine, const MPI_Aint *offset, const int *counts)
{
    slicing g;
    int *next = writer_steps(s, v, steps);
    if (!slicing_make(s, a->nodes, &a->dtype, v->n, &g) || !next)
        return;
    for (int j = 0; j < v->n; j++) {
        g.first[j] = (int)offset[v->members[j]];
        g.len[j] = counts[v->members[j]];
    }
    slicing_count(&g);
    reduce_rows(s, a, v, &g, next, input, mine);
}

/*
 * The hand-out of a reduce_scatter in slices: slice j's owner on this node holds `piece`, the part of
 * slice j that falls in this node's blocks (by-node elements lo .. lo + n - 1), and gives each rank of
 * the node what of it falls in that rank's block. Positions go slice by slice, rank by rank, chunk by
 * chunk, and every rank does its puts and gets in that order: the position furthest behind always
 * finds its writer's earlier cells read, so a full ring waits, never deadlocks.
 */
static void hand_out_pieces(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const slicing *g,
                            int *next, const MPI_Aint *node_begin, const MPI_Aint *pos, const void *piece, void *result)
{
    const tdm_typeinfo *t = &a->dtype;
    int me = v->local;
    MPI_Aint here = node_begin[v->node], after = node_begin[v->node + 1];
    for (int j = 0; j < g->slices; j++) {
        MPI_Aint lo = g->first[j] > here ? g->first[j] : here;
        MPI_Aint hi = g->first[j] + g->len[j] < after ? g->first[j] + g->len[j] : after;
        for (int i = 0; i < v->n && lo < hi; i++) {
            int r = v->members[i];
            MPI_Aint from = pos[r] > lo ? pos[r] : lo, to = pos[r] + a->recvcounts[r] < hi ? pos[r] + a->recvcounts[r] : hi;
            if (from >= to)
                continue;
            if (i == j) { /* the owner's own part of its block */
                if (me == j)
                    tdm_sched_copy(s, tdm_elem(piece, t, from - lo), (int)(to - from), a->datatype,
                                   tdm_elem(result, t, from - pos[r]), (int)(to - from), a->datatype);
                continue;
            }
            for (MPI_Aint x = from; x < to; x += g->chunk) {
                int part = to - x < g->chunk ? (int)(to - x) : g->chunk, step = next[j]++;
                if (me == j)
                    tdm_sched_shm_put(s, tdm_elem(piece, t, x - lo), part, a->datatype, &v->members[i], 1);
                else if (me == i)
                    tdm_sched_shm_get(s, tdm_elem(result, t, x - pos[r]), part, a->datatype, v->members[j], step);
            }
        }
    }
    tdm_sched_round(s);
}

void tdm_node_reduce_scatter_slices(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v,
                                    const tdm_node_steps *steps, const void *by_node, const MPI_Aint *pos, int total,
                                    int slices)
{
    const tdm_comm_nodes *l = a->nodes;
    const tdm_typeinfo *t = &a->dtype;
    int me = v->local, owner = me < slices;
    slicing g;
    int *next = writer_steps(s, v, steps);
    MPI_Aint *node_begin = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)(l->nnodes + 1));
    int *counts = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
    int *peers = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
    if (!slicing_make(s, l, t, slices, &g) || !next || !node_begin || !counts || !peers)
        return;
    for (int j = 0; j < slices; j++)
        tdm_node_slice(total, slices, j, &g.first[j], &g.len[j]);
    slicing_count(&g);
    node_begin[0] = 0;
    for (int k = 0; k < l->nnodes; k++) {
        node_begin[k + 1] = node_begin[k];
        for (int i = 0; i < tdm_node_ranks(l, k); i++)
            node_begin[k + 1] += a->recvcounts[tdm_node_rank(l, k, i)];
    }
    void *mine = owner ? tdm_tmp_elems(s, t, g.len[me] > 0 ? g.len[me] : 1) : NULL;
    reduce_rows(s, a, v, &g, next, by_node, mine);

    /* among the owners of this rank's slice, one per node: each node's part of it to that node */
    void *piece = NULL;
    if (owner) {
        MPI_Aint begin = g.first[me], end = begin + g.len[me];
        for (int k = 0; k < l->nnodes; k++) {
            MPI_Aint lo = begin > node_begin[k] ? begin : node_begin[k];
            MPI_Aint hi = end < node_begin[k + 1] ? end : node_begin[k + 1];
            counts[k] = hi > lo ? (int)(hi - lo) : 0;
            peers[k] = tdm_node_rank(l, k, me);
        }
        piece = tdm_tmp_elems(s, t, counts[v->node] > 0 ? counts[v->node] : 1);
        tdm_coll_args among = tdm_node_among_call(a, TDM_COLL_REDUCE_SCATTER, mine, piece);
        among.recvcounts = counts;
        among.count = g.len[me];
        if (mine && piece)
            tdm_node_among(s, &among, a->across_nodes, peers);
    }
    hand_out_pieces(s, a, v, &g, next, node_begin, pos, piece, a->recvbuf);
}
#undef CHUNK_AT
#undef CHUNK_COUNT

int tdm_node_byte_puts(const tdm_comm_nodes *l, size_t bytes) { return (int)((bytes + l->cell_bytes - 1) / l->cell_bytes); }

void tdm_node_put_bytes(tdm_schedule *s, const tdm_comm_nodes *l, const void *buf, size_t bytes, const int *readers,
                        int nreaders)
{
    for (size_t at = 0; at < bytes; at += l->cell_bytes) {
        size_t n = bytes - at < l->cell_bytes ? bytes - at : l->cell_bytes;
        tdm_sched_shm_put(s, (const char *)buf + at, (int)n, MPI_BYTE, readers, nreaders);
    }
}

void tdm_node_get_bytes(tdm_schedule *s, const tdm_comm_nodes *l, void *buf, size_t bytes, int writer, int step)
{
    for (size_t at = 0; at < bytes; at += l->cell_bytes, step++) {
        size_t n = bytes - at < l->cell_bytes ? bytes - at : l->cell_bytes;
        tdm_sched_shm_get(s, (char *)buf + at, (int)n, MPI_BYTE, writer, step);
    }
}

const void *tdm_node_bytes_of(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t)
{
    if (t->contiguous)
        return buf;
    int bytes = count * t->size; /* callers keep the call's bytes within INT_MAX (selection checks) */
    void *packed = tdm_sched_tmp(s, (size_t)bytes);
    if (packed)
        tdm_sched_copy(s, buf, count, type, packed, bytes, MPI_PACKED);
    return packed;
}

int tdm_nodes_uniform(const tdm_comm_nodes *l)
{
    for (int k = 1; k < l->nnodes; k++)
        if (tdm_node_ranks(l, k) != tdm_node_ranks(l, 0))
            return 0;
    return 1;
}

size_t tdm_node_block_bytes(const tdm_coll_args *a)
{
    int by_send = a->kind == TDM_COLL_GATHER ? !(a->in_place && a->rank == a->root)
                                              : a->kind == TDM_COLL_SCATTER && a->in_place && a->rank == a->root;
    return by_send ? (size_t)a->sendcount * a->stype.size : (size_t)a->recvcount * a->rtype.size;
}

tdm_coll_args tdm_node_among_blocks(tdm_schedule *s, const tdm_coll_args *a, size_t block)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_typeinfo byte = {.extent = 1, .true_lb = 0, .true_extent = 1, .size = 1, .contiguous = 1};
    tdm_coll_args among = *a;
    among.rank = l->node_of[a->rank];
    among.size = l->nnodes;
    among.nodes = NULL;
    among.sendtype = among.recvtype = MPI_BYTE;
    among.stype = among.rtype = byte;
    among.sendcount = among.recvcount = (int)(block * (size_t)tdm_node_ranks(l, among.rank));
    if (tdm_nodes_uniform(l))
        return among;
    int *counts = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
    int *displs = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
    for (int k = 0; counts && displs && k < l->nnodes; k++) {
        counts[k] = (int)(block * (size_t)tdm_node_ranks(l, k));
        displs[k] = (int)(block * (size_t)l->first[k]);
    }
    among.kind = a->kind == TDM_COLL_GATHER ? TDM_COLL_GATHERV
                 : a->kind == TDM_COLL_SCATTER ? TDM_COLL_SCATTERV : TDM_COLL_ALLGATHERV;
    among.sendcounts = among.recvcounts = counts;
    among.sdispls = among.rdispls = tdm_displs_of_ints(displs);
    return among;
}

int tdm_node_rooted_of(tdm_schedule *s, const tdm_coll_args *a, const void *user, const tdm_typeinfo *t,
                       tdm_node_rooted *r)
{
    const tdm_comm_nodes *l = a->nodes;
    r->v = tdm_node_view_of(l, a->rank);
    r->block = tdm_node_block_bytes(a);
    int *collectors = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
    if (r->block == 0 || !collectors)
        return 0;
    for (int k = 0; k < l->nnodes; k++)
        collectors[k] = k == l->node_of[a->root] ? a->root : l->leaders[k];
    r->collectors = collectors;
    r->collector = collectors[r->v.node];
    r->is_root = a->rank == a->root;
    r->direct = r->is_root && l->in_rank_order && t->contiguous;
    r->base = r->is_root ? (size_t)l->first[r->v.node] * r->block : 0;
    r->blocks = NULL;
    if (a->rank == r->collector) {
        r->blocks = r->direct ? (char *)user : tdm_sched_tmp(s, r->block * (size_t)(r->is_root ? a->size : r->v.n));
        if (!r->blocks)
            return 0;
    }
    return 1;
}

tdm_coll_args tdm_node_among_call(const tdm_coll_args *a, tdm_coll_kind kind, const void *sendbuf, void *recvbuf)
{
    tdm_coll_args among = *a;
    among.kind = kind;
    among.rank = a->nodes->node_of[a->rank];
    among.size = a->nodes->nnodes;
    among.nodes = NULL;
    among.in_place = 0;
    among.sendbuf = sendbuf;
    among.recvbuf = recvbuf;
    return among;
}

int tdm_node_among(tdm_schedule *s, const tdm_coll_args *sub, tdm_algorithm_fn build, const int *ranks)
{
    if (s->error != MPI_SUCCESS || !ranks) /* sub's arrays may be missing */
        return s->error != MPI_SUCCESS ? s->error : MPI_ERR_NO_MEM;
    tdm_schedule part;
    tdm_sched_init(&part, s->algorithm, sub->rank, sub->size);
    part.reduce_basic = s->reduce_basic;
    int rc = build(&part, sub);
    if (rc == MPI_SUCCESS)
        rc = tdm_sched_adopt(s, &part, ranks);
    tdm_sched_destroy(&part);
    if (rc != MPI_SUCCESS && s->error == MPI_SUCCESS)
        s->error = rc;
    return rc;
}

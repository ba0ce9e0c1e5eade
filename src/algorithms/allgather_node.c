/*
 * Node-aware allgather. The blocks travel as bytes (ranks may give different datatypes of one
 * signature). On one node every rank puts its block for the others and gets theirs: one step, pipelined
 * in cells. Across nodes, each node's ranks hand their blocks to the node's leader, the leaders
 * allgather their nodes' blocks over point-to-point (a->across_nodes), and each leader hands them all
 * to its node.
 */
#include "node_phases.h"

/* Copies the blocks of every rank but this one from `all` (bytes, each rank's at at(r)) into recvbuf. */
static void unpack_others(tdm_schedule *s, const tdm_coll_args *a, const char *all, int node_major, size_t block)
{
    for (int r = 0; r < a->size; r++)
        if (r != a->rank) {
            size_t at = node_major ? tdm_node_major_offset(a->nodes, r, block) : (size_t)r * block;
            tdm_sched_copy(s, all + at, (int)block, MPI_PACKED, tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, r),
                           a->recvcount, a->recvtype);
        }
    tdm_sched_round(s);
}

/* Cell c of the `block` bytes at mine, for the readers. */
static void put_cell(tdm_schedule *s, const tdm_comm_nodes *l, const char *mine, size_t block, int c, const int *readers,
                     int nreaders)
{
    size_t at = (size_t)c * l->cell_bytes, n = block - at < l->cell_bytes ? block - at : l->cell_bytes;
    tdm_sched_shm_put(s, mine + at, (int)n, MPI_BYTE, readers, nreaders);
}

/* One node: each rank's cells a few ahead of its gets of the others' (see tdm_node_allreduce_all). */
static void one_node(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const char *mine, size_t block)
{
    const tdm_comm_nodes *l = a->nodes;
    int *others = tdm_sched_tmp(s, sizeof(int) * (size_t)v->n);
    if (!others || v->n == 1)
        return;
    for (int i = 0, k = 0; i < v->n; i++)
        if (v->members[i] != a->rank)
            others[k++] = v->members[i];
    char *staged = a->rtype.contiguous ? NULL : tdm_sched_tmp(s, block * (size_t)a->size);
    int puts = tdm_node_byte_puts(l, block), ahead = TDM_SHM_CALL_CELLS - 1;
    size_t cell = l->cell_bytes;
    for (int c = 0; c < ahead && c < puts; c++)
        put_cell(s, l, mine, block, c, others, v->n - 1);
    for (int c = 0; c < puts; c++) {
        size_t at = c * cell, n = block - at < cell ? block - at : cell;
        for (int i = 0; i < v->n - 1; i++) {
            int w = others[i];
            char *dst = staged ? staged + (size_t)w * block
                               : (char *)tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, w);
            tdm_sched_shm_get(s, dst + at, (int)n, MPI_BYTE, w, c);
        }
        if (c + ahead < puts)
            put_cell(s, l, mine, block, c + ahead, others, v->n - 1);
    }
    tdm_sched_round(s);
    if (staged)
        unpack_others(s, a, staged, 0, block);
}

int tdm_allgather_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    size_t block = (size_t)a->recvcount * a->rtype.size;
    if (block == 0)
        return tdm_sched_finish(s);
    /* this rank's block in recvbuf, and as bytes to put from */
    void *own = tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, a->rank);
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, own, a->recvcount, a->recvtype);
    const char *mine = a->in_place || a->rtype.contiguous
                           ? tdm_node_bytes_of(s, own, a->recvcount, a->recvtype, &a->rtype)
                           : tdm_node_bytes_of(s, a->sendbuf, a->sendcount, a->sendtype, &a->stype);
    if (l->nnodes == 1) {
        one_node(s, a, &v, mine, block);
        return tdm_sched_finish(s);
    }
    /* every rank's block node by node: recvbuf itself where that is rank order and dense */
    int direct = l->in_rank_order && a->rtype.contiguous;
    size_t all_bytes = block * (size_t)a->size;
    char *all = direct ? (char *)a->recvbuf : tdm_sched_tmp(s, all_bytes);
    if (!all || !mine)
        return tdm_sched_finish(s);
    /* the node's blocks to its leader */
    if (a->rank != v.leader) {
        tdm_node_put_bytes(s, l, mine, block, v.members, 1);
    } else {
        if (!direct)
            tdm_sched_copy(s, mine, (int)block, MPI_BYTE, all + tdm_node_major_offset(l, a->rank, block), (int)block,
                           MPI_BYTE);
        for (int i = 1; i < v.n; i++)
            tdm_node_get_bytes(s, l, all + tdm_node_major_offset(l, v.members[i], block), block, v.members[i], 0);
    }
    tdm_sched_round(s);
    /* the leaders' allgather of their nodes' blocks, in place */
    if (a->rank == v.leader) {
        tdm_coll_args among = tdm_node_among_blocks(s, a, block);
        among.in_place = 1;
        among.sendbuf = NULL;
        among.recvbuf = all;
        tdm_node_among(s, &among, a->across_nodes, l->leaders);
    }
    /* every block to the node's ranks */
    if (v.n > 1) {
        if (a->rank == v.leader)
            tdm_node_put_bytes(s, l, all, all_bytes, tdm_node_followers(s, &v), v.n - 1);
        else
            tdm_node_get_bytes(s, l, all, all_bytes, v.leader, 0);
        tdm_sched_round(s);
    }
    if (!direct)
        unpack_others(s, a, all, 1, block);
    return tdm_sched_finish(s);
}

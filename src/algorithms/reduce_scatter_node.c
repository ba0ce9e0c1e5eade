/*
 * Node-aware reduce_scatter and reduce_scatter_block (a->recvcounts holds the blocks of both): the
 * ranks of each node reduce the whole vector through the node's shared segment to the node's leader,
 * the leaders reduce_scatter it over point-to-point (a->across_nodes) with each node's blocks as one
 * block, and each leader hands the ranks of its node their blocks. The leader reduces all its node's
 * vectors: for short vectors of a non-commutative op. A long vector of a commutative op goes in slices
 * as the allreduce's do: on one node each rank's block is its slice, and every rank reduces its own
 * block; on several nodes the owners of a slice reduce_scatter it among the nodes and hand each rank
 * of their node its part (node_phases.h). Rank order is kept for non-commutative ops where nodes hold
 * consecutive ranks (selection checks it).
 */
#include "node_phases.h"

int tdm_reduce_scatter_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    const tdm_typeinfo *t = &a->dtype;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    tdm_node_steps steps = {0, 0};
    MPI_Aint *offset = tdm_prefix_offsets(s, a->recvcounts, a->size);
    if (!offset)
        return tdm_sched_finish(s);
    int total = (int)(offset[a->size - 1] + a->recvcounts[a->size - 1]); /* selection keeps it an int */
    tdm_coll_args whole = *a; /* the reduction of the whole vector */
    whole.count = total;
    if (total == 0)
        return tdm_sched_finish(s);
    int slices = tdm_node_slices(&whole);
    if (l->nnodes == 1 && slices > 0) { /* every rank reduces its own block */
        const void *input = tdm_reduction_input(a);
        /* in place, the blocks of the input are read by the others while this rank's result grows */
        void *mine = a->in_place ? tdm_tmp_elems(s, t, a->recvcounts[a->rank]) : a->recvbuf;
        tdm_node_reduce_blocks(s, a, &v, &steps, input, mine, offset, a->recvcounts);
        if (a->in_place && mine) {
            tdm_sched_copy(s, mine, a->recvcounts[a->rank], a->datatype, a->recvbuf, a->recvcounts[a->rank], a->datatype);
            tdm_sched_round(s);
        }
        return tdm_sched_finish(s);
    }
    if (slices > 0) { /* several nodes: the vector node by node (a copy where ranks are not), in slices */
        const void *by_node = tdm_reduction_input(a);
        MPI_Aint *pos = offset;
        if (!l->in_rank_order) {
            void *copy = tdm_tmp_elems(s, t, total);
            pos = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)a->size);
            for (int k = 0, at = 0; copy && pos && k < l->nnodes; k++)
                for (int i = 0; i < tdm_node_ranks(l, k); i++) {
                    int r = tdm_node_rank(l, k, i);
                    tdm_sched_copy(s, tdm_elem(by_node, t, offset[r]), a->recvcounts[r], a->datatype,
                                   tdm_elem(copy, t, at), a->recvcounts[r], a->datatype);
                    pos[r] = at;
                    at += a->recvcounts[r];
                }
            tdm_sched_round(s);
            by_node = copy;
        }
        if (by_node && pos)
            tdm_node_reduce_scatter_slices(s, a, &v, &steps, by_node, pos, total, slices);
        return tdm_sched_finish(s);
    }
    void *acc = a->rank == v.leader ? tdm_tmp_elems(s, t, total) : NULL;
    tdm_node_reduce(s, &whole, &v, &steps, tdm_reduction_input(a), acc, total);
    /* the leader's node's blocks, in its ranks' order, from node_offset[i] on for its rank i */
    if (a->rank == v.leader && !acc)
        return tdm_sched_finish(s);
    void *mine = acc;
    MPI_Aint *node_offset = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)v.n);
    if (!node_offset)
        return tdm_sched_finish(s);
    for (int i = 0; i < v.n; i++)
        node_offset[i] = l->nnodes == 1 ? offset[v.members[i]] : i == 0 ? 0 : node_offset[i - 1] + a->recvcounts[v.members[i - 1]];
    if (l->nnodes > 1 && a->rank == v.leader) {
        /* the vector node by node (a copy where nodes do not hold consecutive ranks), each node's blocks
         * one block of the leaders' reduce_scatter */
        void *by_node = acc;
        if (!l->in_rank_order) {
            by_node = tdm_tmp_elems(s, t, total);
            for (int k = 0, at = 0; by_node && k < l->nnodes; k++)
                for (int i = 0; i < tdm_node_ranks(l, k); i++) {
                    int r = tdm_node_rank(l, k, i);
                    tdm_sched_copy(s, tdm_elem(acc, t, offset[r]), a->recvcounts[r], a->datatype,
                                   tdm_elem(by_node, t, at), a->recvcounts[r], a->datatype);
                    at += a->recvcounts[r];
                }
            tdm_sched_round(s);
        }
        int *counts = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
        for (int k = 0; counts && k < l->nnodes; k++) {
            counts[k] = 0;
            for (int i = 0; i < tdm_node_ranks(l, k); i++)
                counts[k] += a->recvcounts[tdm_node_rank(l, k, i)];
        }
        mine = counts ? tdm_tmp_elems(s, t, counts[v.node] > 0 ? counts[v.node] : 1) : NULL;
        tdm_coll_args among = tdm_node_among_call(a, TDM_COLL_REDUCE_SCATTER, by_node, mine);
        among.recvcounts = counts;
        if (by_node && mine)
            tdm_node_among(s, &among, a->across_nodes, l->leaders);
    }
    /* each rank's block from its leader */
    int chunk = tdm_node_chunk(l, t), step = 0;
    for (int i = 0; i < v.n; i++) {
        int r = v.members[i], n = a->recvcounts[r];
        if (i == 0 && a->rank == v.leader && n > 0)
            tdm_sched_copy(s, tdm_elem(mine, t, node_offset[0]), n, a->datatype, a->recvbuf, n, a->datatype);
        for (int c = 0; i > 0 && c * chunk < n; c++, step++) {
            int part = n - c * chunk < chunk ? n - c * chunk : chunk;
            if (a->rank == v.leader)
                tdm_sched_shm_put(s, tdm_elem(mine, t, node_offset[i] + (MPI_Aint)c * chunk), part, a->datatype,
                                  &v.members[i], 1);
            else if (a->rank == r)
                tdm_sched_shm_get(s, tdm_elem(a->recvbuf, t, (MPI_Aint)c * chunk), part, a->datatype, v.leader, step);
        }
    }
    return tdm_sched_finish(s);
}

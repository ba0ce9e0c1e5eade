/*
 * Node-aware scatter, gather's mirror (gather_node.c). The blocks travel as bytes. The root scatters
 * each node's blocks to the node's collector (itself on its own node, the leader on the others) over
 * point-to-point (a->across_nodes), and each collector hands every rank of its node its block.
 */
#include "node_phases.h"

int tdm_scatter_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_rooted g;
    if (!tdm_node_rooted_of(s, a, a->sendbuf, &a->stype, &g))
        return tdm_sched_finish(s);
    if (a->rank != g.collector) { /* its block, after the collector's puts for the node's ranks before it */
        int step = 0;
        for (int i = 0; i < g.v.local; i++)
            if (g.v.members[i] != g.collector)
                step += tdm_node_byte_puts(l, g.block);
        void *into = a->rtype.contiguous ? a->recvbuf : tdm_sched_tmp(s, g.block);
        if (into)
            tdm_node_get_bytes(s, l, into, g.block, g.collector, step);
        tdm_sched_round(s);
        if (into && into != a->recvbuf)
            tdm_sched_copy(s, into, (int)g.block, MPI_PACKED, a->recvbuf, a->recvcount, a->recvtype);
        return tdm_sched_finish(s);
    }
    if (g.is_root && !g.direct) {
        for (int r = 0; r < a->size; r++)
            if (r != a->root)
                tdm_sched_copy(s, tdm_rank_block(a->sendbuf, &a->stype, a->sendcount, r), a->sendcount, a->sendtype,
                               g.blocks + tdm_node_major_offset(l, r, g.block), (int)g.block, MPI_PACKED);
        tdm_sched_round(s);
    }
    if (l->nnodes > 1) {
        tdm_coll_args among = tdm_node_among_blocks(s, a, g.block);
        among.root = l->node_of[a->root];
        among.in_place = g.is_root; /* the root's node's blocks stay where they are */
        among.sendbuf = g.blocks;
        among.recvbuf = g.blocks;
        tdm_node_among(s, &among, a->across_nodes, g.collectors);
    }
    for (int i = 0; i < g.v.n; i++)
        if (g.v.members[i] != a->rank)
            tdm_node_put_bytes(s, l, g.blocks + g.base + (size_t)i * g.block, g.block, &g.v.members[i], 1);
    if (g.is_root && !a->in_place)
        tdm_sched_copy(s, tdm_rank_block(a->sendbuf, &a->stype, a->sendcount, a->root), a->sendcount, a->sendtype,
                       a->recvbuf, a->recvcount, a->recvtype);
    else if (!g.is_root)
        tdm_sched_copy(s, g.blocks + (size_t)g.v.local * g.block, (int)g.block, MPI_PACKED, a->recvbuf, a->recvcount,
                       a->recvtype);
    return tdm_sched_finish(s);
}

/*
 * Node-aware gather. The blocks travel as bytes (ranks may give different datatypes of one signature).
 * Each node's ranks hand their blocks to the node's collector (the root on the root's node, the leader
 * on the others), the collectors gather their nodes' blocks to the root over point-to-point
 * (a->across_nodes), and the root unpacks them where they are not already in place.
 */
#include "node_phases.h"

int tdm_gather_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_rooted g;
    if (!tdm_node_rooted_of(s, a, a->recvbuf, &a->rtype, &g))
        return tdm_sched_finish(s);
    if (a->rank != g.collector) {
        const char *mine = tdm_node_bytes_of(s, a->sendbuf, a->sendcount, a->sendtype, &a->stype);
        if (mine)
            tdm_node_put_bytes(s, l, mine, g.block, &g.collectors[g.v.node], 1);
        return tdm_sched_finish(s);
    }
    if (g.is_root && !a->in_place)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                       tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, a->root), a->recvcount, a->recvtype);
    else if (!g.is_root)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, g.blocks + (size_t)g.v.local * g.block, (int)g.block,
                       MPI_PACKED);
    for (int i = 0; i < g.v.n; i++)
        if (g.v.members[i] != a->rank)
            tdm_node_get_bytes(s, l, g.blocks + g.base + (size_t)i * g.block, g.block, g.v.members[i], 0);
    tdm_sched_round(s);
    if (l->nnodes > 1) {
        tdm_coll_args among = tdm_node_among_blocks(s, a, g.block);
        among.root = l->node_of[a->root];
        among.in_place = g.is_root; /* the root's node's blocks are in place */
        among.sendbuf = g.blocks;
        among.recvbuf = g.blocks;
        tdm_node_among(s, &among, a->across_nodes, g.collectors);
    }
    if (g.is_root && !g.direct)
        for (int r = 0; r < a->size; r++)
            if (r != a->root)
                tdm_sched_copy(s, g.blocks + tdm_node_major_offset(l, r, g.block), (int)g.block, MPI_PACKED,
                               tdm_rank_block(a->recvbuf, &a->rtype, a->recvcount, r), a->recvcount, a->recvtype);
    return tdm_sched_finish(s);
}

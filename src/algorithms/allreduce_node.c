/*
 * Node-aware allreduce: the ranks of each node reduce through the node's shared segment to the node's
 * leader, the leaders allreduce over point-to-point (a->across_nodes), and each leader hands the result
 * to its node. On one node of few ranks and a short vector, every rank reads every other's instead: one
 * step. A long vector of a commutative op goes in slices, one per rank of the smallest node: each rank
 * reduces its slice of its node's vectors, the owners of a slice allreduce it across nodes, and each
 * hands its slice to its node (several leaders per node). Rank order is kept for non-commutative ops
 * where nodes hold consecutive ranks (selection checks it).
 */
#include "node_phases.h"

/* One node: every rank reading every other's while the vector and the node are this small. */
#define ALL_READ_ALL_BYTES (16 * 1024)
#define ALL_READ_ALL_RANKS 16

int tdm_allreduce_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    tdm_node_steps steps = {0, 0};
    const void *input = tdm_reduction_input(a);
    void *acc = a->recvbuf;
    if (l->nnodes == 1 && v.n <= ALL_READ_ALL_RANKS && (size_t)a->count * a->dtype.size <= ALL_READ_ALL_BYTES) {
        tdm_node_allreduce_all(s, a, &v, &steps, input, acc, a->count);
        return tdm_sched_finish(s);
    }
    int slices = tdm_node_slices(a);
    if (slices > 0) {
        tdm_node_reduce_slices(s, a, &v, &steps, input, acc, a->count, slices, -1);
        return tdm_sched_finish(s);
    }
    tdm_node_reduce(s, a, &v, &steps, input, acc, a->count);
    if (l->nnodes > 1 && a->rank == v.leader) {
        tdm_coll_args among = *a;
        among.rank = v.node;
        among.size = l->nnodes;
        among.in_place = 1;
        among.sendbuf = acc;
        among.nodes = NULL;
        tdm_node_among(s, &among, a->across_nodes, l->leaders);
    }
    tdm_node_bcast(s, a, &v, &steps, acc, a->count, a->datatype, &a->dtype);
    return tdm_sched_finish(s);
}

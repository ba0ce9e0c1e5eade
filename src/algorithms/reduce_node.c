/*
 * Node-aware reduce: the ranks of each node reduce through the node's shared segment to the node's
 * leader, the leaders reduce over point-to-point (a->across_nodes) to the leader of the root's node,
 * which hands the result to the root if the root is not itself. Rank order is kept for non-commutative
 * ops where nodes hold consecutive ranks (selection checks it). A long vector of a commutative op goes
 * in slices (node_phases.h): every rank of a node reduces one, the owners of a slice reduce it across
 * nodes, and the root's node's owners hand theirs to the root.
 */
#include "node_phases.h"

int tdm_reduce_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    tdm_node_steps steps = {0, 0};
    int root_node = l->node_of[a->root], root_leader = l->leaders[root_node];
    const void *input = tdm_reduction_input(a);
    int slices = tdm_node_slices(a);
    if (slices > 0) { /* owners of slices reduce them, the root's node's hand them to the root */
        int owner = v.local < slices, is_root = a->rank == a->root;
        void *acc = is_root ? a->recvbuf : owner ? tdm_tmp_elems(s, &a->dtype, a->count) : NULL;
        tdm_node_reduce_slices(s, a, &v, &steps, input, acc, a->count, slices, a->root);
        return tdm_sched_finish(s);
    }
    void *acc = NULL;
    if (a->rank == v.leader) /* the node's result: the root's buffer, or scratch */
        acc = a->rank == a->root ? a->recvbuf : tdm_tmp_elems(s, &a->dtype, a->count);
    tdm_node_reduce(s, a, &v, &steps, input, acc, a->count);
    if (l->nnodes > 1 && a->rank == v.leader) {
        tdm_coll_args among = *a;
        among.rank = v.node;
        among.size = l->nnodes;
        among.root = root_node;
        among.nodes = NULL;
        among.in_place = v.node == root_node; /* MPI_IN_PLACE at the root only */
        among.sendbuf = acc;
        among.recvbuf = acc;
        tdm_node_among(s, &among, a->across_nodes, l->leaders);
    }
    if (a->root != root_leader && (a->rank == root_leader || a->rank == a->root)) {
        /* the root's leader hands the result to the root */
        const int *root = &l->members[l->first[root_node] + l->local[a->root]];
        int chunk = tdm_node_chunk(l, &a->dtype);
        for (int c = 0; c == 0 || (MPI_Aint)c * chunk < a->count; c++) {
            int n = a->count - c * chunk < chunk ? a->count - c * chunk : chunk;
            if (a->rank == root_leader)
                tdm_sched_shm_put(s, tdm_elem(acc, &a->dtype, (MPI_Aint)c * chunk), n, a->datatype, root, 1);
            else
                tdm_sched_shm_get(s, tdm_elem(a->recvbuf, &a->dtype, (MPI_Aint)c * chunk), n, a->datatype, root_leader,
                                  steps.leader + c);
        }
    }
    return tdm_sched_finish(s);
}

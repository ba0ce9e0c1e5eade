/*
 * Node-aware bcast: the root and the other nodes' leaders broadcast the data over point-to-point
 * (a->across_nodes), then the root hands it to the ranks of its node through the node's shared
 * segment, and each of those leaders to its node. The data travel as bytes (packed where the datatype
 * is not dense: ranks may give different datatypes of one signature).
 */
#include "node_phases.h"

int tdm_bcast_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    int root_node = l->node_of[a->root], bytes = a->count * a->dtype.size;
    /* bytes: the buffer itself where dense, else packed here before and unpacked after */
    void *data = a->recvbuf;
    if (!a->dtype.contiguous) {
        data = tdm_sched_tmp(s, (size_t)bytes);
        if (a->rank == a->root) {
            tdm_sched_copy(s, a->recvbuf, a->count, a->datatype, data, bytes, MPI_PACKED);
            tdm_sched_round(s);
        }
    }
    tdm_typeinfo byte = {.extent = 1, .true_lb = 0, .true_extent = 1, .size = 1, .contiguous = 1};
    /* the nodes' representatives (the root for its node, the leaders for the others) first: the
     * other nodes' wait for the root's messages, its node's ranks for nothing but its copy */
    int me = v.node == root_node ? a->root : v.leader;
    if (l->nnodes > 1 && a->rank == me) {
        int *reps = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
        for (int k = 0; reps && k < l->nnodes; k++)
            reps[k] = k == root_node ? a->root : l->leaders[k];
        tdm_coll_args among = *a;
        among.rank = v.node;
        among.size = l->nnodes;
        among.root = root_node;
        among.recvbuf = data;
        among.count = bytes;
        among.datatype = MPI_BYTE;
        among.dtype = byte;
        among.nodes = NULL;
        if (reps)
            tdm_node_among(s, &among, a->across_nodes, reps);
    }
    if (v.node == root_node && v.n > 1) { /* the root's node: from the root, a reader each */
        tdm_node_view from_root = v;
        from_root.leader = a->root;
        tdm_node_steps steps = {0, 0};
        if (a->rank == a->root) {
            int *readers = tdm_sched_tmp(s, sizeof(int) * (size_t)(v.n - 1));
            for (int i = 0, k = 0; readers && i < v.n; i++)
                if (v.members[i] != a->root)
                    readers[k++] = v.members[i];
            int chunk = tdm_node_chunk(l, &byte);
            for (int c = 0; c * chunk < bytes; c++)
                tdm_sched_shm_put(s, (char *)data + (size_t)c * chunk, bytes - c * chunk < chunk ? bytes - c * chunk : chunk,
                                  MPI_BYTE, readers, v.n - 1);
            if (bytes == 0)
                tdm_sched_shm_put(s, data, 0, MPI_BYTE, readers, v.n - 1);
            tdm_sched_round(s);
        } else {
            tdm_node_bcast(s, a, &from_root, &steps, data, bytes, MPI_BYTE, &byte);
        }
    }
    if (v.node != root_node) {
        tdm_node_steps steps = {0, 0};
        tdm_node_bcast(s, a, &v, &steps, data, bytes, MPI_BYTE, &byte);
    }
    if (!a->dtype.contiguous && a->rank != a->root)
        tdm_sched_copy(s, data, bytes, MPI_PACKED, a->recvbuf, a->count, a->datatype);
    return tdm_sched_finish(s);
}

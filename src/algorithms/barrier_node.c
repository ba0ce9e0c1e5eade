/*
 * Node-aware barrier: flags through the node's shared segment. On one node of few ranks every rank
 * raises a flag for all and waits for every other's: one step. Otherwise the node's ranks raise a flag for
 * its leader, the leaders run a barrier over point-to-point (a->across_nodes), and each leader raises
 * one for its node.
 */
#include "node_phases.h"

#define ALL_READ_ALL_RANKS 16

int tdm_barrier_node(tdm_schedule *s, const tdm_coll_args *a)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    if (l->nnodes == 1 && v.n <= ALL_READ_ALL_RANKS) {
        int *others = tdm_sched_tmp(s, sizeof(int) * (size_t)v.n);
        int k = 0;
        for (int i = 0; others && i < v.n; i++)
            if (v.members[i] != a->rank)
                others[k++] = v.members[i];
        tdm_sched_shm_put(s, NULL, 0, MPI_BYTE, others, k);
        for (int i = 0; i < v.n; i++)
            if (v.members[i] != a->rank)
                tdm_sched_shm_get(s, NULL, 0, MPI_BYTE, v.members[i], 0);
        return tdm_sched_finish(s);
    }
    if (v.n > 1) { /* in: each rank's flag to the leader */
        if (a->rank == v.leader)
            for (int i = 1; i < v.n; i++)
                tdm_sched_shm_get(s, NULL, 0, MPI_BYTE, v.members[i], 0);
        else
            tdm_sched_shm_put(s, NULL, 0, MPI_BYTE, v.members, 1);
        tdm_sched_round(s);
    }
    if (l->nnodes > 1 && a->rank == v.leader) {
        tdm_coll_args among = *a;
        among.rank = v.node;
        among.size = l->nnodes;
        among.nodes = NULL;
        tdm_node_among(s, &among, a->across_nodes, l->leaders);
    }
    if (v.n > 1) { /* out: the leader's flag to all */
        if (a->rank == v.leader)
            tdm_sched_shm_put(s, NULL, 0, MPI_BYTE, tdm_node_followers(s, &v), v.n - 1);
        else
            tdm_sched_shm_get(s, NULL, 0, MPI_BYTE, v.leader, 0);
    }
    return tdm_sched_finish(s);
}

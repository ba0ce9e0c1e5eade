/*
 * Node-aware scan and exscan, on nodes that hold consecutive ranks. Inside a node every rank puts its
 * input for the node's higher ranks and folds the lower ranks' inputs into its own in rank order (one
 * step, pipelined in cells). Across nodes, each node's last rank holds the node's total; the last ranks
 * run an exscan of the totals over point-to-point (a->across_nodes), and each hands its node's ranks the
 * prefix of the nodes before, which they fold in front of their results.
 */
#include "node_phases.h"

/* acc (count elements) = the inputs of the node's ranks before this one, in rank order, each folded in
 * front ("x_j op acc"), or, inclusive, those and this rank's own input (already in acc). The puts of
 * `input` for the node's higher ranks go a few cells ahead of the gets (see tdm_node_allreduce_all). */
static void fold_lower(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const void *input, void *acc,
                       int inclusive)
{
    const tdm_typeinfo *t = &a->dtype;
    int chunk = tdm_node_chunk(a->nodes, t), count = a->count;
    int chunks = (count + chunk - 1) / chunk, higher = v->n - 1 - v->local, ahead = TDM_SHM_CALL_CELLS - 1;
    const int *readers = v->members + v->local + 1;
    for (int c = 0; higher > 0 && c < chunks && c < ahead; c++)
        tdm_sched_shm_put(s, tdm_elem(input, t, (MPI_Aint)c * chunk), count - c * chunk < chunk ? count - c * chunk : chunk,
                          a->datatype, readers, higher);
    for (int c = 0; c < chunks; c++) {
        void *at = tdm_elem(acc, t, (MPI_Aint)c * chunk);
        int n = count - c * chunk < chunk ? count - c * chunk : chunk;
        for (int j = v->local - 1; j >= 0; j--)
            if (!inclusive && j == v->local - 1)
                tdm_sched_shm_get(s, at, n, a->datatype, v->members[j], c);
            else
                tdm_sched_shm_get_reduce(s, at, n, a->datatype, a->op, v->members[j], c);
        if (higher > 0 && c + ahead < chunks) {
            int next = c + ahead;
            tdm_sched_shm_put(s, tdm_elem(input, t, (MPI_Aint)next * chunk),
                              count - next * chunk < chunk ? count - next * chunk : chunk, a->datatype, readers, higher);
        }
    }
    tdm_sched_round(s);
}

static int scan_node(tdm_schedule *s, const tdm_coll_args *a, int inclusive)
{
    const tdm_comm_nodes *l = a->nodes;
    tdm_node_view v = tdm_node_view_of(l, a->rank);
    const tdm_typeinfo *t = &a->dtype;
    if (a->count == 0)
        return tdm_sched_finish(s);
    /* the input apart from recvbuf, which the gets write while the puts may still read the input */
    const void *input = a->sendbuf;
    if (a->in_place) {
        void *copy = tdm_tmp_elems(s, t, a->count);
        tdm_sched_copy(s, a->recvbuf, a->count, a->datatype, copy, a->count, a->datatype);
        input = copy;
    }
    if (inclusive)
        tdm_sched_copy(s, input, a->count, a->datatype, a->recvbuf, a->count, a->datatype);
    fold_lower(s, a, &v, input, a->recvbuf, inclusive);
    if (l->nnodes == 1)
        return tdm_sched_finish(s);
    int last = v.members[v.n - 1], has_lower = inclusive || v.local > 0;
    void *prefix = NULL; /* the nodes before this one, folded */
    if (a->rank == last) {
        /* the node's total: this rank's result, or for exscan its result and its own input after it */
        const void *total = a->recvbuf;
        if (!inclusive) {
            void *sum = tdm_tmp_elems(s, t, a->count);
            tdm_sched_copy(s, input, a->count, a->datatype, sum, a->count, a->datatype);
            if (v.local > 0)
                tdm_sched_reduce(s, a->recvbuf, sum, a->count, a->datatype, a->op);
            tdm_sched_round(s);
            total = sum;
        }
        int *lasts = tdm_sched_tmp(s, sizeof(int) * (size_t)l->nnodes);
        prefix = tdm_tmp_elems(s, t, a->count);
        for (int k = 0; lasts && k < l->nnodes; k++)
            lasts[k] = l->members[l->first[k + 1] - 1];
        tdm_coll_args among = tdm_node_among_call(a, TDM_COLL_EXSCAN, total, prefix);
        tdm_node_among(s, &among, a->across_nodes, lasts);
    }
    if (v.node == 0) /* no node before the first */
        return tdm_sched_finish(s);
    int chunk = tdm_node_chunk(l, t), chunks = (a->count + chunk - 1) / chunk;
    for (int c = 0; c < chunks; c++) {
        int n = a->count - c * chunk < chunk ? a->count - c * chunk : chunk;
        void *at = tdm_elem(a->recvbuf, t, (MPI_Aint)c * chunk);
        if (a->rank == last && v.n > 1)
            tdm_sched_shm_put(s, tdm_elem(prefix, t, (MPI_Aint)c * chunk), n, a->datatype, v.members, v.n - 1);
        else if (a->rank != last && has_lower)
            tdm_sched_shm_get_reduce(s, at, n, a->datatype, a->op, last, c);
        else if (a->rank != last)
            tdm_sched_shm_get(s, at, n, a->datatype, last, c);
    }
    if (a->rank == last) {
        if (has_lower)
            tdm_sched_reduce(s, prefix, a->recvbuf, a->count, a->datatype, a->op);
        else
            tdm_sched_copy(s, prefix, a->count, a->datatype, a->recvbuf, a->count, a->datatype);
    }
    return tdm_sched_finish(s);
}

int tdm_scan_node(tdm_schedule *s, const tdm_coll_args *a) { return scan_node(s, a, 1); }

int tdm_exscan_node(tdm_schedule *s, const tdm_coll_args *a) { return scan_node(s, a, 0); }

#include "schedule_cost.h"

#include <stdlib.h>
#include <string.h>

void tdm_schedule_loads(const tdm_schedule *s, double elem_bytes, tdm_round_load *loads)
{
    for (int r = 0; r < s->nrounds; r++) {
        tdm_round_load *l = &loads[r];
        memset(l, 0, sizeof *l);
        for (int i = tdm_sched_round_begin(s, r); i < tdm_sched_round_end(s, r); i++) {
            const tdm_action *a = &s->actions[i];
            double bytes = a->count * elem_bytes;
            switch (a->kind) {
            case TDM_ACT_SEND:
                l->messages++;
                l->bytes_sent += bytes;
                if (a->link >= 0 && a->link < TDM_LINKS) {
                    l->link_bytes[a->link] += bytes;
                    l->link_messages[a->link]++;
                } else {
                    l->port_bytes += bytes;
                }
                break;
            case TDM_ACT_REDUCE:
                l->reduced_bytes += bytes * a->repeat;
                break;
            case TDM_ACT_COPY:
                l->copied_bytes += bytes * a->repeat;
                break;
            case TDM_ACT_SHM_PUT: /* into a cell of the node's segment: a copy, no message */
                l->copied_bytes += bytes;
                l->shm_bytes += bytes;
                break;
            case TDM_ACT_SHM_GET:
                l->shm_waits++;
                if (a->op == MPI_OP_NULL) {
                    l->copied_bytes += bytes;
                    l->shm_bytes += bytes;
                } else {
                    l->reduced_bytes += bytes;
                    if (a->src && !tdm_action_reduce_fuses(a)) /* its other input copied first */
                        l->copied_bytes += bytes;
                }
                break;
            case TDM_ACT_MAILBOX_POST: /* a hand-off through the node's segment: a copy each way */
                l->copied_bytes += bytes;
                l->shm_bytes += bytes;
                break;
            case TDM_ACT_MAILBOX_TAKE:
                l->shm_waits++;
                l->copied_bytes += bytes;
                l->shm_bytes += bytes;
                break;
            case TDM_ACT_RECV:
                break;
            }
        }
    }
}

double tdm_round_time(const tdm_round_load *l, const tdm_loggp *m)
{
    double busiest = l->port_bytes;
    for (int k = 0; k < TDM_LINKS; k++)
        busiest = l->link_bytes[k] > busiest ? l->link_bytes[k] : busiest;
    double startups = l->messages > 0 ? m->latency + l->messages * (m->alpha - m->latency) : 0;
    /* a round's shm steps: one hand-off waited for (the others come meanwhile), and the cells' copies */
    double shm = (l->shm_waits > 0 ? tdm_loggp_shm_flag(m) : 0) + l->shm_bytes * tdm_loggp_shm_beta(m);
    return startups + busiest * m->beta + l->reduced_bytes * m->gamma + shm;
}

static int grow_rounds(double **slowest, int *cap, int need)
{
    if (need <= *cap)
        return 1;
    double *more = realloc(*slowest, sizeof(double) * (size_t)need);
    if (!more)
        return 0;
    memset(more + *cap, 0, sizeof(double) * (size_t)(need - *cap));
    *slowest = more;
    *cap = need;
    return 1;
}

/* Rank a->rank's schedule into s: built once, or, in lanes, each lane into lane[] (which keeps the
 * buffers) and their rounds side by side into s. */
static int build_rank(tdm_algorithm_fn build, tdm_coll_args *a, tdm_schedule *s, tdm_schedule lane[TDM_MAX_LANES])
{
    if (a->lanes <= 1)
        return build(s, a);
    int rounds = 0, rc = MPI_SUCCESS;
    for (int l = 0; l < a->lanes; l++) {
        tdm_sched_init(&lane[l], "costed", a->rank, a->size);
        a->lane = l;
        if (rc == MPI_SUCCESS)
            rc = build(&lane[l], a);
        rounds = lane[l].nrounds > rounds ? lane[l].nrounds : rounds;
    }
    for (int r = 0; r < rounds && rc == MPI_SUCCESS; r++) {
        for (int l = 0; l < a->lanes; l++)
            if (r < lane[l].nrounds)
                tdm_sched_append_round(s, &lane[l], r);
        tdm_sched_round(s);
    }
    s->torus_ndims = lane[0].torus_ndims, s->torus_form = lane[0].torus_form; /* its sends' links name them */
    memcpy(s->torus_dims, lane[0].torus_dims, sizeof s->torus_dims);
    return rc == MPI_SUCCESS ? tdm_sched_finish(s) : rc;
}

int tdm_cost_schedules(tdm_algorithm_fn build, const tdm_coll_args *args, double elem_bytes, const tdm_loggp *m,
                       tdm_schedule_cost *cost, tdm_schedule_visitor visit, void *context)
{
    memset(cost, 0, sizeof *cost);
    double *slowest = NULL; /* per round: the slowest rank's time */
    int cap = 0, rc = MPI_SUCCESS;
    for (int rank = 0; rank < args->size && rc == MPI_SUCCESS; rank++) {
        tdm_coll_args a = *args;
        a.rank = rank;
        tdm_schedule s, lane[TDM_MAX_LANES];
        tdm_sched_init(&s, "costed", rank, a.size);
        rc = build_rank(build, &a, &s, lane);
        tdm_round_load *loads = rc == MPI_SUCCESS ? malloc(sizeof *loads * (size_t)(s.nrounds + 1)) : NULL;
        if (rc == MPI_SUCCESS && (!loads || !grow_rounds(&slowest, &cap, s.nrounds)))
            rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            tdm_schedule_loads(&s, elem_bytes, loads);
            if (visit)
                visit(&s, loads, context);
            double messages = 0, sent = 0, reduced = 0;
            for (int r = 0; r < s.nrounds; r++) {
                double t = tdm_round_time(&loads[r], m);
                slowest[r] = t > slowest[r] ? t : slowest[r];
                messages += loads[r].messages;
                sent += loads[r].bytes_sent;
                reduced += loads[r].reduced_bytes;
            }
            cost->rounds = s.nrounds > cost->rounds ? s.nrounds : cost->rounds;
            cost->messages = messages > cost->messages ? messages : cost->messages;
            cost->bytes_sent = sent > cost->bytes_sent ? sent : cost->bytes_sent;
            cost->reduced_bytes = reduced > cost->reduced_bytes ? reduced : cost->reduced_bytes;
        }
        free(loads);
        tdm_sched_destroy(&s);
        for (int l = 0; a.lanes > 1 && l < a.lanes; l++)
            tdm_sched_destroy(&lane[l]);
    }
    for (int r = 0; r < cost->rounds; r++)
        cost->time += slowest[r];
    free(slowest);
    return rc;
}

int tdm_cost_call(tdm_algorithm_fn build, tdm_cost_collective collective, const tdm_torus *t, long n,
                  size_t segment_bytes, const tdm_loggp *m, tdm_schedule_cost *cost, tdm_schedule_visitor visit,
                  void *context)
{
    tdm_coll_args a;
    memset(&a, 0, sizeof a);
    a.size = tdm_torus_ranks(t);
    a.torus_ndims = t->ndims;
    memcpy(a.torus_dims, t->dims, sizeof a.torus_dims);
    a.segment_bytes = segment_bytes;
    a.loggp = *m;
    /* one chain of the torus bucket: round-by-round costing cannot express how the lanes of chains
     * overlap one another's start-ups, only their extra messages */
    a.bucket_chains = 1;
    a.split_levels = -1;
    a.datatype = a.sendtype = a.recvtype = MPI_DOUBLE;
    a.dtype = (tdm_typeinfo){sizeof(double), 0, sizeof(double), sizeof(double), 1};
    a.stype = a.rtype = a.dtype;
    a.op = MPI_SUM;
    a.commutative = 1;
    a.reduce_basic = MPI_DATATYPE_NULL;
    long block = n / a.size;
    if (n < 0 || n > 2147483647L) /* MPI's int counts */
        return MPI_ERR_COUNT;
    /* the builders only record addresses in these; nothing reads or writes them */
    double *send = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), *recv = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!send || !recv) {
        free(send), free(recv);
        return MPI_ERR_NO_MEM;
    }
    a.sendbuf = send;
    a.recvbuf = recv;
    switch (collective) {
    case TDM_COST_ALLREDUCE:
        a.kind = TDM_COLL_ALLREDUCE;
        a.count = (int)n;
        break;
    case TDM_COST_REDUCE_SCATTER:
        a.kind = TDM_COLL_REDUCE_SCATTER_BLOCK;
        a.count = (int)block;
        break;
    case TDM_COST_ALLGATHER:
        a.kind = TDM_COLL_ALLGATHER;
        a.sendcount = a.recvcount = (int)block;
        break;
    }
    int *counts = NULL;
    if (collective == TDM_COST_REDUCE_SCATTER) { /* the algorithms serve reduce_scatter_block through recvcounts */
        counts = malloc(sizeof(int) * (size_t)a.size);
        if (!counts) {
            free(send), free(recv);
            return MPI_ERR_NO_MEM;
        }
        for (int r = 0; r < a.size; r++)
            counts[r] = (int)block;
        a.recvcounts = counts;
    }
    int rc = tdm_cost_schedules(build, &a, sizeof(double), m, cost, visit, context);
    free(send), free(recv), free(counts);
    return rc;
}

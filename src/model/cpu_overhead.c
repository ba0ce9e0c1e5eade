#include "cpu_overhead.h"

#include "schedule_cost.h"
#include "schedule_timeline.h"
#include "torus_route.h"

#include <stdlib.h>
#include <string.h>

/* What the table measured at one size: o_s, o_r, the gap, or a lone message's one-way time (half the
 * round trip). */
typedef enum { AT_O_S, AT_O_R, AT_GAP, AT_ONE_WAY } table_field;

static double field_of(const tdm_loggp_size *s, table_field f)
{
    switch (f) {
    case AT_O_S: return s->o_s.median;
    case AT_O_R: return s->o_r.median;
    case AT_GAP: return s->gap.median;
    default: return s->rtt.median / 2;
    }
}

/* Linear between the sizes measured, extended along the last two beyond them; 0 without a table. */
static double table_at(const tdm_loggp_params *p, double bytes, table_field f)
{
    if (!p || p->nsizes == 0)
        return 0;
    const tdm_loggp_size *at = p->size;
    if (p->nsizes == 1 || bytes <= at[0].bytes)
        return field_of(&at[0], f);
    int k = 1; /* the segment [k-1, k] that holds bytes, or the last one */
    while (k < p->nsizes - 1 && bytes > at[k].bytes)
        k++;
    double x0 = at[k - 1].bytes, x1 = at[k].bytes, y0 = field_of(&at[k - 1], f), y1 = field_of(&at[k], f);
    double y = y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
    return y > 0 ? y : 0;
}

double tdm_loggp_overhead_at(const tdm_loggp_params *p, double bytes, int receive)
{
    return table_at(p, bytes, receive ? AT_O_R : AT_O_S);
}

static double bytes_of(const tdm_action *a, double elem_bytes)
{
    if (elem_bytes > 0)
        return a->count * elem_bytes;
    int size = 0;
    MPI_Type_size(a->type, &size);
    return (double)a->count * size;
}

void tdm_rank_work_of(const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p, tdm_rank_work *w)
{
    memset(w, 0, sizeof *w);
    for (int i = 0; i < s->nactions; i++) {
        const tdm_action *a = &s->actions[i];
        double bytes = bytes_of(a, elem_bytes);
        switch (a->kind) {
        case TDM_ACT_SEND:
            w->sends++;
            w->sent_bytes += bytes;
            w->send_cpu += tdm_loggp_overhead_at(p, bytes, 0);
            break;
        case TDM_ACT_RECV:
            w->recvs++;
            w->received_bytes += bytes;
            w->recv_cpu += tdm_loggp_overhead_at(p, bytes, 1);
            break;
        case TDM_ACT_REDUCE:
            w->reduced_bytes += bytes * a->repeat;
            break;
        case TDM_ACT_COPY:
        case TDM_ACT_SHM_PUT: /* a copy into a cell */
            w->copied_bytes += bytes * a->repeat;
            break;
        case TDM_ACT_MAILBOX_POST: /* a copy into or out of a mailbox slot */
        case TDM_ACT_MAILBOX_TAKE:
            w->copied_bytes += bytes;
            break;
        case TDM_ACT_SHM_GET: /* a copy or a reduction out of a cell (with another input: a copy first
                                 unless the two fuse) */
            if (a->op == MPI_OP_NULL)
                w->copied_bytes += bytes;
            else
                w->reduced_bytes += bytes;
            if (a->op != MPI_OP_NULL && a->src && !tdm_action_reduce_fuses(a))
                w->copied_bytes += bytes;
            break;
        }
    }
}

/* Links between two ranks of the torus (row-major coordinates, as MPI_Cart numbers them); 1 without one. */
static int hops(const tdm_torus *t, int a, int b)
{
    int n = t ? tdm_torus_route(t, a, b, NULL, 0) : 1;
    return n > 1 ? n : 1;
}

void tdm_action_cost_of(const tdm_schedule *s, int i, double elem_bytes,
                        const tdm_loggp_params *p, const tdm_cpu_costs *c, const tdm_torus *t, tdm_action_cost *out)
{
    const tdm_action *a = &s->actions[i];
    double bytes = bytes_of(a, elem_bytes);
    memset(out, 0, sizeof *out);
    switch (a->kind) {
    case TDM_ACT_SEND:
    case TDM_ACT_RECV: /* the pair measured is one link apart: each further link adds L */
        out->cpu = table_at(p, bytes, a->kind == TDM_ACT_SEND ? AT_O_S : AT_O_R);
        if (a->kind == TDM_ACT_SEND) { /* the gap's part that grows with the bytes: the rest is per message */
            double bytes_part = table_at(p, bytes, AT_GAP) - table_at(p, 0, AT_GAP);
            out->gap = bytes_part > 0 ? bytes_part : 0;
        }
        out->one_way = table_at(p, bytes, AT_ONE_WAY) + (p ? (hops(t, s->rank, a->peer) - 1) * p->L : 0);
        break;
    case TDM_ACT_REDUCE: out->cpu = bytes * a->repeat * c->gamma; break;
    case TDM_ACT_COPY: out->cpu = bytes * a->repeat * c->copy; break;
    /* shm actions: the copy or reduction their process makes; the model does not yet wait for a
     * put's cell (it costs them as local work) */
    case TDM_ACT_SHM_PUT: out->cpu = bytes * c->copy; break;
    case TDM_ACT_SHM_GET:
        out->cpu = bytes * (a->op == MPI_OP_NULL ? c->copy : c->gamma);
        if (a->op != MPI_OP_NULL && a->src && !tdm_action_reduce_fuses(a))
            out->cpu += bytes * c->copy;
        break;
    case TDM_ACT_MAILBOX_POST:
    case TDM_ACT_MAILBOX_TAKE: out->cpu = bytes * c->copy; break;
    }
}

/* Through a dedicated collective process a rank sends its data and receives its answer, a message each
 * way: their bytes for the busiest rank (a root's) of a call of `bytes` (as tdm_call_args counts them). */
static void dcp_messages(tdm_coll_kind kind, int p, double bytes, double *in, double *out)
{
    *in = *out = bytes;
    switch (kind) {
    case TDM_COLL_BARRIER: *in = *out = 0; break;
    case TDM_COLL_REDUCE_SCATTER: *out = bytes / p; break;
    case TDM_COLL_REDUCE_SCATTER_BLOCK: *in = p * bytes; break;
    case TDM_COLL_GATHER: case TDM_COLL_GATHERV: case TDM_COLL_ALLGATHER: case TDM_COLL_ALLGATHERV: *out = p * bytes; break;
    case TDM_COLL_SCATTER: case TDM_COLL_SCATTERV: *in = p * bytes; break;
    case TDM_COLL_ALLTOALL: case TDM_COLL_ALLTOALLV: *in = *out = p * bytes; break;
    default: break;
    }
}

/* Every rank's work, and with a table its program on the timeline, as tdm_cost_schedules builds each
 * rank's schedule. */
typedef struct {
    const tdm_loggp_params *table;
    const tdm_cpu_costs *costs;
    const tdm_torus *torus;
    tdm_rank_work *work;
    tdm_timeline *timeline;
    int failed;
} work_context;

static void count_work(const tdm_schedule *s, const tdm_round_load *loads, void *context)
{
    (void)loads;
    work_context *c = context;
    tdm_rank_work_of(s, 0, c->table, &c->work[s->rank]); /* bytes: each action's datatype */
    if (c->timeline && tdm_timeline_add(c->timeline, s, 0, c->table, c->costs, c->torus) != MPI_SUCCESS)
        c->failed = 1;
}

int tdm_cpu_estimate_of(const tdm_call_args *c, tdm_algorithm_fn build, double bytes, const tdm_loggp *m,
                        const tdm_torus *torus, const tdm_loggp_params *table, const tdm_cpu_costs *costs,
                        tdm_rank_work *work, tdm_cpu_estimate *out)
{
    int p = c->a.size;
    out->latency = out->most = out->mean = out->through_dcp = out->through_dcp_segment = 0;
    out->busiest = 0;
    if (!build || (torus && tdm_torus_ranks(torus) != p))
        return MPI_ERR_ARG;
    tdm_rank_work *own = work ? NULL : calloc((size_t)p, sizeof *own);
    work_context context = {table && table->nsizes ? table : NULL, costs, torus, work ? work : own, NULL, 0};
    if (context.table)
        context.timeline = tdm_timeline_new(p);
    tdm_schedule_cost cost;
    int rc = !context.work || (context.table && !context.timeline)
                 ? MPI_ERR_NO_MEM
                 : tdm_cost_schedules(build, &c->a, c->elem_bytes, m, &cost, count_work, &context);
    if (rc == MPI_SUCCESS && context.failed)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        double sum = 0;
        for (int r = 0; r < p; r++) {
            double cpu = tdm_rank_cpu(&context.work[r], costs);
            sum += cpu;
            if (cpu > out->most)
                out->most = cpu, out->busiest = r;
        }
        out->mean = sum / p;
        out->latency = cost.time;
        double replayed = 0;
        if (context.table && (rc = tdm_timeline_latency(context.timeline, &replayed)) == MPI_SUCCESS)
            out->latency = costs->call + replayed; /* every rank's rounds, messages as the table measured them */
        double in, answer;
        dcp_messages(c->a.kind, p, bytes, &in, &answer);
        out->through_dcp = tdm_loggp_overhead_at(context.table, in, 0) + tdm_loggp_overhead_at(context.table, answer, 1);
        out->through_dcp_segment = (in + answer) * costs->copy + costs->call;
    }
    free(own);
    tdm_timeline_free(context.timeline);
    return rc;
}

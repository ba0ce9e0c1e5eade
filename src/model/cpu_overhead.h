/*
 * The CPU time a collective costs a rank, counted from its schedule (the case for non-blocking
 * collectives: how much of a collective's time the CPU is busy, and so what an agent can give back to
 * the application). Per message sent LogGP's o_s(s), per message received o_r(s), both as
 * `tandem-model loggp` measured them (loggp_prtt.h: linear between the sizes measured, extended
 * along the last two beyond them), gamma per byte reduced and a copy cost per byte copied.
 */
#ifndef TANDEM_CPU_OVERHEAD_H
#define TANDEM_CPU_OVERHEAD_H

#include "../schedule/schedule.h"
#include "call_args.h"
#include "collective_costs.h"
#include "loggp_prtt.h"

/* What one rank's schedule does, in all its rounds. */
typedef struct tdm_rank_work {
    int sends, recvs;
    double sent_bytes, received_bytes, reduced_bytes, copied_bytes;
    double send_cpu, recv_cpu; /* seconds: o_s(s) summed over its sends, o_r(s) over its receives */
} tdm_rank_work;

/* o_s(bytes) (receive 0) or o_r(bytes) (receive 1) from the sizes p measured; 0 if it measured none. */
double tdm_loggp_overhead_at(const tdm_loggp_params *p, double bytes, int receive);

/* Counts s's actions (a repeated reduction or copy as many times as it repeats). Bytes: counts times
 * elem_bytes, or, if elem_bytes is 0, times the size of each action's datatype (MPI must be up). p may
 * be NULL: no CPU time for messages. */
void tdm_rank_work_of(const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p, tdm_rank_work *w);

/* The CPU's costs besides messages: seconds per byte reduced (gamma) and per byte copied, and per call,
 * the engine's own (starting the call's schedule, progressing and completing it, its messages aside);
 * and the MPI's eager limit: a message of more bytes starts only once its receive is posted (a
 * rendezvous; SMPI by default starts every message so, an eager limit of 0). */
typedef struct tdm_cpu_costs {
    double gamma, copy, call, eager_limit;
} tdm_cpu_costs;

/* Open MPI's shared-memory eager limit (btl_vader_eager_limit), the default of tandem-model and of
 * tandem-bench --cpu-overhead's model. */
#define TDM_DEFAULT_EAGER_LIMIT 4096

/* Its CPU time: the messages' overheads, the reductions, the copies and the call. */
static inline double tdm_rank_cpu(const tdm_rank_work *w, const tdm_cpu_costs *c)
{
    return w->send_cpu + w->recv_cpu + w->reduced_bytes * c->gamma + w->copied_bytes * c->copy + c->call;
}

/* What action i of s costs by the table: its CPU time (o_s, o_r, or a reduction's or copy's time, which
 * runs when its rank reaches it: by the schedule's rule it never reads what its own round receives), a
 * send's time on a link (what its bytes add to the gap: the gap of the smallest size is a per-message
 * cost, the sender's o_s or the receiver's o_r, which the CPUs' times already count; on SMPI, which has
 * no gap of its own, it is max(o_s, o_r)), and a message's one-way time to or from its peer (half the
 * round trip measured, o_s and o_r included; each torus link past the first adds L). */
typedef struct tdm_action_cost {
    double cpu, gap, one_way;
} tdm_action_cost;
void tdm_action_cost_of(const tdm_schedule *s, int i, double elem_bytes,
                        const tdm_loggp_params *p, const tdm_cpu_costs *c, const tdm_torus *t, tdm_action_cost *out);

/* A collective's cost by the model. */
typedef struct tdm_cpu_estimate {
    const char *algorithm; /* the one costed */
    double latency;        /* with a table, every rank's rounds replayed on their messages' times by it
                            * (schedule_timeline.h), and the call's cost; without, the LogGP cost of its
                            * schedules (schedule_cost.h) */
    double most, mean;     /* CPU seconds: the busiest rank's, the mean over the ranks */
    int busiest;
    double through_dcp;    /* an application rank's through a dedicated collective process: its data
                            * out and the answer in, a message each (the busiest rank's, a root's) */
    double through_dcp_segment; /* the same through its mailbox in the node's segment: a copy each way,
                                 * and the call's own cost */
} tdm_cpu_estimate;

/* A collective's CPU time on c->a.size ranks by the model: every rank's schedule of the call c describes
 * (its lanes and torus as the caller set them) built by `build` and counted; bytes as c was made with.
 * The model costs the builder it is given: the cost of what selection would choose is
 * select_estimate.h's. On the torus (NULL: the ranks as a 2-D grid, without hops; else dims whose
 * product is the size), the messages' overheads from table (NULL: none), the other costs c; m for the
 * latency without a table; work (one entry per rank, or NULL) gets each rank's counts. out->algorithm is
 * left to the caller. MPI_SUCCESS; MPI_ERR_ARG without a builder or for a torus of another size; the
 * builder's error. MPI must be up (the datatypes' sizes). */
int tdm_cpu_estimate_of(const tdm_call_args *c, tdm_algorithm_fn build, double bytes, const tdm_loggp *m,
                        const tdm_torus *torus, const tdm_loggp_params *table, const tdm_cpu_costs *costs,
                        tdm_rank_work *work, tdm_cpu_estimate *out);

#endif

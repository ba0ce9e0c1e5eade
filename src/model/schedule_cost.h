/*
 * The LogGP cost of schedules, counted from the schedules themselves: what every rank sends (messages,
 * bytes, per torus link) and reduces in every round. A round of a rank costs alpha per message it
 * sends, beta per byte on its busiest outgoing link (sends that name no torus link share one port)
 * and gamma per byte it reduces; a round of the collective costs what its slowest rank's does, and the
 * rounds add up. This is the model of the closed forms (collective_costs.h), so that formula and
 * schedule can be checked against each other; it does not credit the overlap of a reduction with the
 * messages of its round.
 *
 * Costing builds every rank's schedule in turn with the algorithm's own builder: no MPI is involved.
 */
#ifndef TANDEM_SCHEDULE_COST_H
#define TANDEM_SCHEDULE_COST_H

#include "../schedule/coll_args.h"
#include "../schedule/schedule.h"
#include "collective_costs.h"

#define TDM_LINKS (2 * TDM_TORUS_MAX_DIMS)

/* What one rank does in one round. Element counts times elem_bytes: the schedules costed carry one
 * datatype (copies, local, are counted apart and cost nothing). */
typedef struct {
    int messages;                    /* sends */
    double bytes_sent;
    double link_bytes[TDM_LINKS];    /* sends that name a torus link (tdm_action.link) */
    double port_bytes;               /* sends that name none */
    int link_messages[TDM_LINKS];
    double reduced_bytes, copied_bytes;
    int shm_waits;                   /* shm gets: each waits for a writer's hand-off */
    double shm_bytes;                /* copied into and out of the node's cells */
} tdm_round_load;

/* The load of every round of a schedule: loads has s->nrounds entries. */
void tdm_schedule_loads(const tdm_schedule *s, double elem_bytes, tdm_round_load *loads);
double tdm_round_time(const tdm_round_load *l, const tdm_loggp *m);

typedef struct {
    int rounds;
    double time;                              /* seconds: sum over rounds of the slowest rank */
    double messages, bytes_sent, reduced_bytes; /* per rank, the largest over ranks */
} tdm_schedule_cost;

/* Called with every rank's schedule and the loads of its rounds, if given (tests look inside). */
typedef void (*tdm_schedule_visitor)(const tdm_schedule *s, const tdm_round_load *loads, void *context);

/*
 * Builds the schedule of every rank of args->size with build (args as for rank 0; the rank is set for
 * each) and costs them. A call built in lanes (args->lanes > 1) is costed as one schedule per rank
 * whose round k holds round k of every lane: the lanes advance side by side, on one CPU. MPI_SUCCESS,
 * or the builder's error.
 */
int tdm_cost_schedules(tdm_algorithm_fn build, const tdm_coll_args *args, double elem_bytes, const tdm_loggp *m,
                       tdm_schedule_cost *cost, tdm_schedule_visitor visit, void *context);

/*
 * The same for a call of `collective` (allreduce, reduce_scatter_block or allgather) on n doubles in
 * all (reduce-scatter and allgather: n / p per rank) with MPI_SUM, p = the torus's ranks, steps cut
 * into segments of segment_bytes (0: as the model chooses with m).
 */
int tdm_cost_call(tdm_algorithm_fn build, tdm_cost_collective collective, const tdm_torus *t, long n,
                  size_t segment_bytes, const tdm_loggp *m, tdm_schedule_cost *cost, tdm_schedule_visitor visit,
                  void *context);

#endif

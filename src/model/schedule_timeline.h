/*
 * The latency of a collective from all its ranks' schedules at once, as a graph of their messages: each
 * rank runs its rounds in order on its own clock, and a receive completes only once the matching send
 * (the next one from that peer, as MPI matches them) has been made and has crossed the network. Costing
 * each round by its slowest rank would add the rounds of a tree as if every level began together; here
 * a leaf of a binomial broadcast waits for each level above it.
 *
 * Costs come from a table measured by `tandem-model loggp` (loggp_prtt.h), as for the CPU overhead:
 * a send takes o_s(s) of its rank's CPU; its data reach the peer one-way(s) after the send began, (k - 1) L
 * later across k torus links, where o_r(s) of the receiver's CPU completes it (one-way(s) is half the
 * round trip measured, o_s and o_r included), or, if it has more bytes than the eager limit and its
 * receive is posted after o_s, one-way(s) less o_s after that: a rendezvous, whose sender's round also
 * waits for its bytes to leave from then. A reduction or copy takes the CPU when its rank reaches it (by
 * the schedule's rule it never reads what its own round receives).
 *
 * Links: on a torus a message crosses the links of its route (torus_route.h), which every rank's
 * messages share; without one, a send takes the link it names, else its rank's port. What its bytes add
 * to the gap g(s) is its time on a link alone. Messages on a link at once share it evenly (processor
 * sharing, as a network's flows do), and a message is through when it is through its slowest link; on
 * a port they go one after the other. Who shares a link depends on when messages start, which depends on
 * how long those before took: the ranks are replayed again, each replay sharing the links by the starts
 * of the one before (its delays moved half way, after the first), until the latency settles.
 */
#ifndef TANDEM_SCHEDULE_TIMELINE_H
#define TANDEM_SCHEDULE_TIMELINE_H

#include "cpu_overhead.h"

typedef struct tdm_timeline tdm_timeline;

/* For p ranks; NULL if out of memory. */
tdm_timeline *tdm_timeline_new(int p);
void tdm_timeline_free(tdm_timeline *tl);

/* Records the program of rank s->rank (each rank once), costed by table p, c and torus t (NULL: none;
 * else of the timeline's p ranks); bytes as tdm_rank_work_of counts them. MPI_SUCCESS, MPI_ERR_ARG (a
 * torus of another size) or MPI_ERR_NO_MEM. */
int tdm_timeline_add(tdm_timeline *tl, const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p,
                     const tdm_cpu_costs *c, const tdm_torus *t);

/* Runs every rank's rounds from time 0: *latency is the last rank's end. MPI_ERR_INTERN if a receive
 * has no matching send (or a send above the eager limit no receive) or a rank was not added. */
int tdm_timeline_latency(tdm_timeline *tl, double *latency);

#endif

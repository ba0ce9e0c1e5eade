/*
 * Closed-form costs of the large-message collectives and their lower bounds, in the notation of the
 * bucket-algorithm literature: p ranks, n elements, alpha the start-up cost of a message, beta the time
 * per element on a link, gamma the time per element of a reduction. A torus has N dimensions
 * d_1..d_N (d_s the shortest, d_l the longest); each rank has 2N links; "bidirectional" means every
 * link carries one message each way at once.
 *
 *   ring reduce-scatter    (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma; allgather without gamma;
 *                          allreduce = reduce-scatter + allgather
 *   lower bounds           reduce-scatter, allgather: (p-1)/p n beta / (2N) bidirectional, / N
 *                          unidirectional; allreduce twice that; reductions (p-1)/p n gamma
 *   torus bucket (multi-color), bidirectional:
 *     T_RS = 2N sum_i (d_i - 1) alpha + (p-1)/p n gamma
 *            + (d_l - 1)/d_l n beta / (2N) (d_s^N - 1)/d_s^N d_s/(d_s - 1)
 *     unidirectional: 2N becomes N in the alpha and beta terms; allgather without gamma.
 *     halfway allgather (bidirectional, every part the shorter way round each ring): the same with
 *     sum_i floor(d_i / 2) steps in place of sum_i (d_i - 1).
 *   pipelined step         a message of m elements cut into k segments, each reduced while the next
 *                          arrives: k alpha + m max(beta, gamma) + m/k min(beta, gamma), least at
 *                          k = sqrt(m min(beta, gamma) / alpha)
 *   recursive doubling allreduce   log2(p) (alpha + n beta + n gamma)
 *   Rabenseifner allreduce         2 log2(p) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma
 */
#ifndef TANDEM_COLLECTIVE_COSTS_H
#define TANDEM_COLLECTIVE_COSTS_H

#include "../base/loggp_params.h"
#include "../schedule/coll_args.h" /* TDM_TORUS_MAX_DIMS */

typedef struct tdm_torus {
    int ndims;
    int dims[TDM_TORUS_MAX_DIMS];
    int bidirectional;
} tdm_torus;

typedef enum { TDM_COST_REDUCE_SCATTER, TDM_COST_ALLGATHER, TDM_COST_ALLREDUCE } tdm_cost_collective;

int tdm_torus_ranks(const tdm_torus *t);
/* "8x8x8" into a torus (bidirectional); 0 if malformed. */
int tdm_torus_parse(const char *text, tdm_torus *t);

/* Lower bound on any algorithm's time on the torus (bandwidth term + computation term). */
double tdm_cost_lower_bound(tdm_cost_collective c, const tdm_torus *t, double n, const tdm_loggp *m);
double tdm_cost_ring(tdm_cost_collective c, int p, double n, const tdm_loggp *m);
double tdm_cost_torus_bucket(tdm_cost_collective c, const tdm_torus *t, double n, const tdm_loggp *m);
/* The halfway allgather (bidirectional, every part the shorter way round): the bidirectional bucket's
 * bandwidth term with sum_i floor(d_i / 2) steps instead of sum_i (d_i - 1). */
double tdm_cost_torus_halfway_allgather(const tdm_torus *t, double n, const tdm_loggp *m);
/* The segment count that minimizes a pipelined step of m elements (1 if nothing is reduced), and its cost. */
int tdm_best_segments(double m_elems, const tdm_loggp *m);
double tdm_cost_pipelined_step(double m_elems, int segments, const tdm_loggp *m);
/* The ring with its reduce-scatter steps pipelined in tdm_best_segments segments (what allreduce_ring
 * and reduce_scatter_ring run when no segment size is forced). */
double tdm_cost_ring_pipelined(tdm_cost_collective c, int p, double n, const tdm_loggp *m);
/* The modelled cost of an algorithm by its full name ("allreduce_ring", "allgather_torus_bucket",
 * ...) for a vector of `bytes` in all on the torus t (its ranks: p); negative if the model has none. */
double tdm_cost_of_algorithm(const char *full_name, const tdm_torus *t, double bytes, const tdm_loggp *m);
double tdm_cost_recursive_doubling_allreduce(int p, double n, const tdm_loggp *m);
/* A k-nomial bcast of n bytes over p ranks: ceil(log_k p) levels, each a parent's k - 1 messages
 * started one after another and sharing the latency (m->latency). */
double tdm_cost_knomial_bcast(int p, int k, double n, const tdm_loggp *m);
/* The radix of least cost (2 to p; past TDM_KNOMIAL_MOST_RADIX only p itself, one level): 2 (the
 * binomial tree) wherever each message pays its whole start-up (latency 0); wider where messages started
 * together share their latency and each costs its sender little. */
#define TDM_KNOMIAL_MOST_RADIX 64
int tdm_best_knomial_radix(int p, double n, const tdm_loggp *m);
double tdm_cost_rabenseifner_allreduce(int p, double n, const tdm_loggp *m);

#endif

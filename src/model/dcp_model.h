/*
 * The dedicated-collective-process model: an allreduce of B bytes among N ranks, directly or through K
 * dedicated collective processes (DCPs) that serve R application ranks each (the ratio 1:R), in the
 * terms of the CDCP paper and of LogGP. alpha is a message's start-up, of which `latency` (L) is what
 * messages started at once wait out together, so that a process receiving R messages at once pays
 * L + R max(g, o) with g = alpha - L; beta and gamma are the time per byte sent and reduced; o is the
 * CPU time a process spends on one message it posts and completes (the application's, and the DCP's for
 * each of its clients' messages).
 *
 *   an allreduce among P processes, as a reduce-scatter and an allgather (2 log2 P message steps with
 *   log2 P reduction steps between them: 3 log2 P; each process sends and reduces parts of the buffer):
 *     T_ar(P, B)   = 2 ceil(log2 P) alpha + 2 s B beta + s B gamma,  s = (P - 1) / P
 *   directly: T_direct(N) = T_ar(N, B)
 *   through K DCPs of R clients each (3 log2 K + 2 steps: the R clients' messages to their DCP, the
 *   allreduce among the DCPs, the results back):
 *     T_whole(B)   = 2 (L + R (max(g, o) + B beta)) + (R - 1) B gamma + T_ar(K, B)
 *   a buffer longer than the segment S goes in n = ceil(B / S) segments, pipelined through the DCP:
 *   the first segment's way, then one more per the time of the DCP's busiest resource per segment,
 *   its link (its clients' pieces and its share of the DCPs' allreduce) or its CPU:
 *     T_dcp(K, R)  = T_whole(S) + (n - 1) max(R (max(g, o) + S beta) + 2 s S beta, (R - 1 + s) S gamma)
 *   the application's overhead: one send and one receive posted, and completed: O_app = 3 o
 *
 * Two ways to find the DCPs (the paper's distributions), for N ranks and the ratio 1:R:
 *   from the job: K = ceil(N / (R + 1)) of the N ranks serve the other N - K, among which a computation
 *     of T per iteration on N ranks is shared (T N / (N - K) each);
 *   added: the application keeps its N ranks and K = ceil(N / R) more are started.
 * With a computation T per iteration that the collective overlaps:
 *   iteration = O_app + max(computation, T_dcp);  without DCPs (blocking): T + T_direct(N).
 * The ratio recommended is the one of the least iteration time (without computation: of the least
 * latency), the DCPs taken from the job.
 */
#ifndef TANDEM_DCP_MODEL_H
#define TANDEM_DCP_MODEL_H

#include "../base/loggp_params.h"

typedef struct tdm_dcp_model {
    tdm_loggp m;     /* alpha, beta and gamma per byte, latency */
    double overhead; /* o: a process's CPU time per message */
    double bytes;    /* B */
    double compute;  /* T: computation per iteration on N ranks; 0: none */
    double segment;  /* S: bytes per segment through the DCPs (TANDEM_DCP_SEGMENT); 0: whole */
    int max_segments; /* the most a call is cut into (TDM_DCP_MAX_SEGMENTS: longer segments past it); 0: no most */
} tdm_dcp_model;

typedef enum { TDM_DCP_FROM_JOB, TDM_DCP_ADDED } tdm_dcp_distribution;

/* One ratio's prediction, for one distribution. */
typedef struct tdm_dcp_prediction {
    int ratio;           /* R: application ranks per DCP */
    int dcps, app_ranks; /* K and the application's ranks */
    double latency;      /* T_dcp */
    double overhead;     /* O_app */
    double iteration;    /* O_app + max(computation per rank, T_dcp) */
} tdm_dcp_prediction;

int tdm_dcp_ceil_log2(int n);
double tdm_dcp_t_direct(const tdm_dcp_model *d, int n);
double tdm_dcp_t_through(const tdm_dcp_model *d, int dcps, int ratio);
double tdm_dcp_app_overhead(const tdm_dcp_model *d);
/* The blocking iteration without DCPs: T + T_direct(N). */
double tdm_dcp_iteration_direct(const tdm_dcp_model *d, int n);
/* The prediction for N ranks at the ratio 1:R (1 <= R; from the job, R < N). */
tdm_dcp_prediction tdm_dcp_predict(const tdm_dcp_model *d, int n, int ratio, tdm_dcp_distribution how);
/* The ratio of the least iteration time (least latency without computation) for N ranks, the DCPs
 * taken from the job; the smallest such R. */
int tdm_dcp_best_ratio(const tdm_dcp_model *d, int n);

#endif

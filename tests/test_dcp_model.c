/*
 * The dedicated-collective-process model against its definition (src/model/dcp_model.h) and the CDCP
 * paper's findings: 3 log2 K + 2 steps through K DCPs against 3 log2 N directly; long buffers
 * reduce-scattered and pipelined through the DCPs in segments; an application
 * overhead flat in the ranks and the bytes; the two distributions' counts of ranks; and an optimal
 * ratio strictly inside 1:1 .. 1:N-1 where a message's start-up is mostly latency that messages
 * arriving together share (the paper finds one near 1:8 at 512 ranks).
 */
#include "../src/model/dcp_model.h"

#include <math.h>
#include <stdio.h>

static int checks, failures;

static void expect(int ok, const char *what, double got, double want)
{
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s: got %g, expected %g\n", what, got, want);
    }
}

static void near(double got, double want, const char *what) { expect(fabs(got - want) <= 1e-12 * (1 + fabs(want)), what, got, want); }

int main(void)
{
    /* in steps: messages of one unit whose start-up is all shared latency, nothing sent or reduced per
     * byte: through K DCPs, 2 steps to and from them and 2 log2 K among them (the log2 K reduction
     * steps cost gamma: 0 here); directly, 2 log2 N */
    tdm_dcp_model steps = {.m = {.alpha = 1, .beta = 0, .gamma = 0, .latency = 1}, .overhead = 0, .bytes = 8};
    for (int k = 1; k <= 512; k *= 2)
        for (int r = 1; r <= 64; r *= 4)
            near(tdm_dcp_t_through(&steps, k, r), 2 + 2 * tdm_dcp_ceil_log2(k), "steps through K DCPs");
    near(tdm_dcp_t_direct(&steps, 512), 18, "steps directly among 512");
    near(tdm_dcp_t_direct(&steps, 600), 20, "steps directly among 600 (ceil log2)");
    /* the bytes: R - 1 buffers reduced at a DCP, R sent to it and R back; among P processes each sends
     * 2 (P - 1) / P of the buffer and reduces (P - 1) / P of it (reduce-scatter and allgather) */
    tdm_dcp_model reduce = {.m = {.alpha = 0, .beta = 0, .gamma = 1, .latency = 0}, .bytes = 1};
    near(tdm_dcp_t_through(&reduce, 64, 8), 7 + 63.0 / 64, "reductions through 64 DCPs of 8 clients");
    near(tdm_dcp_t_direct(&reduce, 512), 511.0 / 512, "reductions directly among 512");
    tdm_dcp_model sent = {.m = {.alpha = 0, .beta = 1, .gamma = 0, .latency = 0}, .bytes = 1};
    near(tdm_dcp_t_through(&sent, 64, 8), 2 * 8 + 2 * 63.0 / 64, "bytes sent through 64 DCPs of 8 clients");
    near(tdm_dcp_t_direct(&sent, 8), 2 * 7.0 / 8, "bytes sent directly among 8");

    /* in segments: the first segment's way, then one more per segment at the DCP's busiest resource.
     * Its link: R pieces in (out at the same time) and its share of the DCPs' allreduce; here 2 DCPs of
     * 3 clients, a buffer of 4 segments S, only bytes sent cost: the first segment 2 (3 S) + S (the
     * DCPs' reduce-scatter and allgather), then 3 (3 S + S) */
    double S = 1000;
    tdm_dcp_model piped = {.m = {.alpha = 0, .beta = 1, .gamma = 0, .latency = 0}, .bytes = 4 * S, .segment = S};
    near(tdm_dcp_t_through(&piped, 2, 3), 7 * S + 3 * 4 * S, "4 segments, link-bound");
    piped.segment = 0;
    near(tdm_dcp_t_through(&piped, 2, 3), 7 * 4 * S, "the same buffer whole");
    /* its CPU: R - 1 pieces combined and its share of the DCPs' reductions */
    piped = (tdm_dcp_model){.m = {.alpha = 0, .beta = 0, .gamma = 1, .latency = 0}, .bytes = 4 * S, .segment = S};
    near(tdm_dcp_t_through(&piped, 2, 3), 2.5 * S + 3 * 2.5 * S, "4 segments, CPU-bound");
    piped.segment = 3 * S; /* 2 segments, the last one shorter: counted whole */
    near(tdm_dcp_t_through(&piped, 2, 3), 2.5 * 3 * S + 2.5 * 3 * S, "2 segments of 3 S");

    /* the overhead: 3 messages' worth, whatever the ranks and bytes */
    tdm_dcp_model d = {.m = {.alpha = 4e-6, .beta = 1e-10, .gamma = 2.5e-10, .latency = 3.35e-6}, .overhead = 5e-7};
    for (int n = 8; n <= 512; n *= 4)
        for (double b = 8; b <= 1 << 20; b *= 256) {
            d.bytes = b;
            tdm_dcp_prediction p = tdm_dcp_predict(&d, n, 4, TDM_DCP_FROM_JOB);
            near(p.overhead, 1.5e-6, "application overhead");
        }

    /* the distributions' ranks */
    for (int n = 2; n <= 100; n += 7)
        for (int r = 1; r < n; r += 3) {
            tdm_dcp_prediction job = tdm_dcp_predict(&d, n, r, TDM_DCP_FROM_JOB);
            tdm_dcp_prediction added = tdm_dcp_predict(&d, n, r, TDM_DCP_ADDED);
            expect(job.dcps + job.app_ranks == n && job.dcps == (n + r) / (r + 1) && job.app_ranks >= 1,
                   "DCPs from the job: K = ceil(N / (R + 1)) of N", job.dcps, (n + r) / (r + 1));
            expect(added.app_ranks == n && added.dcps == (n + r - 1) / r, "DCPs added: K = ceil(N / R)", added.dcps,
                   (n + r - 1) / r);
        }

    /* an optimum inside the ratios, at 512 ranks and 8 bytes, near the paper's 1:8 */
    d.bytes = 8;
    d.compute = 0;
    int best = tdm_dcp_best_ratio(&d, 512);
    double at_best = tdm_dcp_predict(&d, 512, best, TDM_DCP_FROM_JOB).latency;
    expect(best >= 4 && best <= 16, "best ratio at 512 ranks, 8 B", best, 8);
    expect(at_best < tdm_dcp_predict(&d, 512, 1, TDM_DCP_FROM_JOB).latency, "the best ratio beats 1:1", at_best, 0);
    expect(at_best < tdm_dcp_predict(&d, 512, 511, TDM_DCP_FROM_JOB).latency, "the best ratio beats 1:511", at_best, 0);
    expect(at_best < tdm_dcp_t_direct(&d, 512), "through DCPs, faster than directly", at_best, tdm_dcp_t_direct(&d, 512));
    /* every message paying all of alpha: contention grows faster than steps shrink, 1:1 is best */
    tdm_dcp_model unshared = d;
    unshared.m.latency = 0;
    expect(tdm_dcp_best_ratio(&unshared, 512) == 1, "best ratio without shared latency", tdm_dcp_best_ratio(&unshared, 512), 1);

    /* the iteration: overhead + the longer of the computation (shared by the application's ranks) and
     * the collective; without DCPs, computation then the blocking collective */
    d.compute = 1e-3;
    tdm_dcp_prediction p = tdm_dcp_predict(&d, 512, 7, TDM_DCP_FROM_JOB);
    near(p.iteration, 1.5e-6 + 1e-3 * 512 / p.app_ranks, "iteration, computation longer");
    near(tdm_dcp_iteration_direct(&d, 512), 1e-3 + tdm_dcp_t_direct(&d, 512), "iteration without DCPs");
    d.compute = 1e-6;
    p = tdm_dcp_predict(&d, 512, 7, TDM_DCP_FROM_JOB);
    near(p.iteration, 1.5e-6 + p.latency, "iteration, collective longer");

    printf("test_dcp_model: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures != 0;
}

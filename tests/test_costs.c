/*
 * The closed-form costs against each other: the bucket algorithm on a symmetric bidirectional torus
 * meets the bandwidth lower bound, its alpha term is 2N^2 (d-1) (N^2 (d-1) unidirectional), a 1-D
 * unidirectional torus is the ring, allreduce is reduce-scatter plus allgather, and length-1
 * dimensions change nothing. With a shared latency, a step's messages pay it once. The k-nomial
 * bcast's cost and radix. TANDEM_LOGGP's forms, with and without the latency, and what they refuse.
 */
#include "../src/model/loggp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int checks, failures;

static void expect(double got, double want, const char *what)
{
    checks++;
    if (fabs(got - want) > 1e-12 * (fabs(want) + 1)) {
        failures++;
        fprintf(stderr, "FAIL: %s: got %.12g, expected %.12g\n", what, got, want);
    }
}

int main(void)
{
    const double n = 1 << 24;
    tdm_loggp beta_only = {0, 1e-9, 0, 0, 0, 0}, alpha_only = {1e-6, 0, 0, 0, 0, 0}, gamma_only = {0, 0, 3e-10, 0, 0, 0};
    tdm_torus t;
    tdm_torus_parse("8x8x8", &t);
    expect(tdm_torus_ranks(&t), 512, "ranks of 8x8x8");
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &beta_only),
           tdm_cost_lower_bound(TDM_COST_REDUCE_SCATTER, &t, n, &beta_only), "8x8x8 bucket RS meets the bound");
    expect(tdm_cost_torus_bucket(TDM_COST_ALLREDUCE, &t, n, &beta_only),
           tdm_cost_lower_bound(TDM_COST_ALLREDUCE, &t, n, &beta_only), "8x8x8 bucket allreduce meets the bound");
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &alpha_only), 2 * 9 * 7 * 1e-6,
           "8x8x8 bidirectional alpha term 2N^2(d-1)");
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &gamma_only), 511.0 / 512 * n * 3e-10,
           "computation term (p-1)/p n gamma");
    expect(tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &t, n, &gamma_only), 0, "allgather reduces nothing");
    t.bidirectional = 0;
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &alpha_only), 9 * 7 * 1e-6,
           "8x8x8 unidirectional alpha term N^2(d-1)");
    expect(tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &t, n, &beta_only),
           tdm_cost_lower_bound(TDM_COST_ALLGATHER, &t, n, &beta_only), "unidirectional bucket AG meets its bound");

    tdm_loggp m = {2e-6, 1e-9, 3e-10, 0, 0, 0};
    tdm_torus ring;
    tdm_torus_parse("12", &ring);
    ring.bidirectional = 0;
    for (int c = 0; c < 3; c++)
        expect(tdm_cost_torus_bucket((tdm_cost_collective)c, &ring, n, &m), tdm_cost_ring((tdm_cost_collective)c, 12, n, &m),
               "a unidirectional 1-D torus is the ring");

    tdm_torus a, b;
    tdm_torus_parse("8x4x2", &a);
    expect(tdm_cost_torus_bucket(TDM_COST_ALLREDUCE, &a, n, &m),
           tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &a, n, &m) + tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &a, n, &m),
           "allreduce = reduce-scatter + allgather");
    /* 8x4x2: d_s = 2, d_l = 8, N = 3: beta term 7/8 n beta / 6 * (7/8) * 2 */
    expect(tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &a, n, &beta_only), 7.0 / 8 * n * 1e-9 / 6 * (7.0 / 8) * 2,
           "8x4x2 asymmetric beta term");
    tdm_torus_parse("8x1x4x2x1", &b);
    expect(tdm_cost_torus_bucket(TDM_COST_ALLREDUCE, &b, n, &m), tdm_cost_torus_bucket(TDM_COST_ALLREDUCE, &a, n, &m),
           "length-1 dimensions change nothing");
    expect(tdm_cost_rabenseifner_allreduce(8, n, &beta_only), 2 * 7.0 / 8 * n * 1e-9, "Rabenseifner bandwidth");
    expect(tdm_cost_recursive_doubling_allreduce(8, n, &alpha_only), 3e-6, "recursive doubling latency");
    /* shared latency: 8x8x8 runs 3 phases of 7 rounds, each with a message on each of 6 links */
    tdm_loggp shared = {1e-6, 0, 0, 1e-6, 0, 0}, mixed = {1e-6, 0, 0, 2.5e-7, 0, 0};
    tdm_torus_parse("8x8x8", &t);
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &shared), 3 * 7 * 1e-6,
           "8x8x8 all of alpha shared: a latency per step");
    expect(tdm_cost_torus_bucket(TDM_COST_REDUCE_SCATTER, &t, n, &mixed), 3 * 7 * 2.5e-7 + 6 * 3 * 7 * 7.5e-7,
           "8x8x8 latency once per step, the rest of alpha per message");
    /* 8x4x2: each phase as long as its longest ring (3 x 7 rounds); 6 x (7 + 3 + 1) messages */
    expect(tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &a, n, &mixed), 3 * 7 * 2.5e-7 + 6 * 11 * 7.5e-7,
           "8x4x2 latency once per round of the longest ring");

    /* halfway allgather: floor(d/2) steps a ring, the bidirectional form's bytes */
    expect(tdm_cost_torus_halfway_allgather(&t, n, &shared), 3 * 4 * 1e-6, "8x8x8 halfway: 3 phases of 4 rounds");
    expect(tdm_cost_torus_halfway_allgather(&a, n, &mixed), 3 * 4 * 2.5e-7 + 6 * (4 + 2 + 1) * 7.5e-7,
           "8x4x2 halfway: rounds of the longest ring, 6 x (4 + 2 + 1) messages");
    expect(tdm_cost_torus_halfway_allgather(&a, n, &beta_only),
           tdm_cost_torus_bucket(TDM_COST_ALLGATHER, &a, n, &beta_only),
           "halfway: the bidirectional bucket's beta term");
    tdm_torus_parse("16x16x16", &t);
    expect(tdm_cost_torus_halfway_allgather(&t, n, &alpha_only), 6 * 3 * 8 * 1e-6, "16x16x16 halfway alpha 2N^2 d/2");

    /* k-nomial bcast: levels x (latency + (k - 1) messages' own start-up); the model's radix */
    tdm_loggp knomial = {3e-6, 0, 0, 2e-6, 0, 0};
    expect(tdm_cost_knomial_bcast(8, 2, 0, &knomial), 3 * 3e-6, "binomial on 8: 3 levels of one message");
    expect(tdm_cost_knomial_bcast(8, 3, 0, &knomial), 2 * (2e-6 + 2 * 1e-6), "3-nomial on 8: 2 levels of 2");
    expect(tdm_cost_knomial_bcast(8, 8, 0, &knomial), 2e-6 + 7 * 1e-6, "linear on 8: one level of 7");
    static const int ranks[] = {2, 3, 4, 5, 7, 8, 17}, radix[] = {2, 3, 4, 5, 3, 3, 3}; /* test_collectives_*_knomial's */
    for (int i = 0; i < 7; i++) {
        char what[80];
        snprintf(what, sizeof what, "the radix on %d ranks with a shared latency", ranks[i]);
        expect(tdm_best_knomial_radix(ranks[i], 8, &knomial), radix[i], what);
        snprintf(what, sizeof what, "the binomial tree on %d ranks without one", ranks[i]);
        expect(tdm_best_knomial_radix(ranks[i], 8, &alpha_only), 2, what);
    }
    expect(tdm_best_knomial_radix(256, 8, &shared), 256, "all of alpha shared, 8 bytes: the linear bcast");
    expect(tdm_best_knomial_radix(4096, 8, &shared), 4096, "4096 ranks: p itself past the radix considered");
    tdm_loggp shared_links = {1e-6, 1e-10, 0, 1e-6, 0, 0};
    expect(tdm_best_knomial_radix(256, 1 << 20, &shared_links), 2, "1 MiB through one port: the binomial tree");

    /* TANDEM_LOGGP */
    tdm_loggp parsed;
    expect(tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10", &parsed) && parsed.alpha == 1e-6 && parsed.latency == 0, 1,
           "alpha,beta,gamma: no shared latency");
    expect(tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10,4e-7", &parsed) && parsed.gamma == 1.5e-10 &&
               parsed.latency == 4e-7,
           1, "alpha,beta,gamma,latency");
    expect(tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10,2e-6", &parsed) == 0 &&
               tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10,-1e-7", &parsed) == 0 &&
               tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10,", &parsed) == 0 &&
               tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10,1e-7,1", &parsed) == 0,
           1, "a latency above alpha or below 0, a trailing comma, a fifth value are refused");
    char path[] = "/tmp/tandem_test_loggp_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    tdm_loggp saved = {2e-6, 1e-9, 3e-10, 5e-7, 2.5e-7, 1.25e-10};
    int written = f && tdm_loggp_write(f, &saved, "test");
    if (f)
        fclose(f);
    expect(written && tdm_loggp_parse_setting(path, &parsed) && parsed.alpha == 2e-6 && parsed.beta == 1e-9 &&
               parsed.latency == 5e-7 && parsed.shm_flag == 2.5e-7 && parsed.shm_beta == 1.25e-10,
           1, "a saved file keeps the latency and the shared-memory costs");
    f = fopen(path, "w");
    if (f) {
        fputs("alpha 2e-6\nbeta 1e-9\ngamma 3e-10\nshm_flag -1\n", f);
        fclose(f);
    }
    expect(f && tdm_loggp_parse_setting(path, &parsed) == 0, 1, "a negative shm_flag is refused");
    if (fd >= 0)
        remove(path);
    expect(tdm_loggp_parse_setting("1e-6,1e-10,1.5e-10", &parsed) && parsed.shm_flag == 0 && parsed.shm_beta == 0 &&
               tdm_loggp_shm_flag(&parsed) == TDM_LOGGP_DEFAULT_SHM_FLAG &&
               tdm_loggp_shm_beta(&parsed) == TDM_LOGGP_DEFAULT_SHM_BETA,
           1, "inline parameters leave the shared-memory costs to their defaults");

    expect(tdm_torus_parse("8x", &b) == 0 && tdm_torus_parse("0x3", &b) == 0 && tdm_torus_parse("", &b) == 0, 1,
           "malformed dimensions are refused");

    printf("test_costs: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

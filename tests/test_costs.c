/*
 * The closed-form costs against each other: the bucket algorithm on a symmetric bidirectional torus
 * meets the bandwidth lower bound, its alpha term is 2N^2 (d-1) (N^2 (d-1) unidirectional), a 1-D
 * unidirectional torus is the ring, allreduce is reduce-scatter plus allgather, and length-1
 * dimensions change nothing.
 */
#include "../src/model/collective_costs.h"

#include <math.h>
#include <stdio.h>

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
    tdm_loggp beta_only = {0, 1e-9, 0}, alpha_only = {1e-6, 0, 0}, gamma_only = {0, 0, 3e-10};
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

    tdm_loggp m = {2e-6, 1e-9, 3e-10};
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
    expect(tdm_torus_parse("8x", &b) == 0 && tdm_torus_parse("0x3", &b) == 0 && tdm_torus_parse("", &b) == 0, 1,
           "malformed dimensions are refused");

    printf("test_costs: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

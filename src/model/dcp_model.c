#include "dcp_model.h"

#include <math.h>

int tdm_dcp_ceil_log2(int n)
{
    int h = 0;
    while ((1L << h) < n)
        h++;
    return h;
}

/* One message of the buffer from one process to another. */
static double message(const tdm_dcp_model *d) { return d->m.alpha + d->bytes * d->m.beta; }

double tdm_dcp_t_direct(const tdm_dcp_model *d, int n)
{
    int h = tdm_dcp_ceil_log2(n);
    return 2.0 * h * message(d) + h * d->bytes * d->m.gamma;
}

double tdm_dcp_t_through(const tdm_dcp_model *d, int dcps, int ratio)
{
    /* what each of R messages arriving at once adds: the gap, or the DCP's CPU time per message (LogGP's
     * max(g, o)) */
    double gap = d->m.alpha - d->m.latency, per_message = gap > d->overhead ? gap : d->overhead;
    double fan = d->m.latency + ratio * (per_message + d->bytes * d->m.beta);
    int h = tdm_dcp_ceil_log2(dcps);
    return 2.0 * fan + (ratio - 1) * d->bytes * d->m.gamma + 2.0 * h * message(d) + h * d->bytes * d->m.gamma;
}

double tdm_dcp_app_overhead(const tdm_dcp_model *d) { return 3.0 * d->overhead; }

double tdm_dcp_iteration_direct(const tdm_dcp_model *d, int n) { return d->compute + tdm_dcp_t_direct(d, n); }

tdm_dcp_prediction tdm_dcp_predict(const tdm_dcp_model *d, int n, int ratio, tdm_dcp_distribution how)
{
    tdm_dcp_prediction p = {.ratio = ratio};
    if (how == TDM_DCP_FROM_JOB) {
        p.dcps = (n + ratio) / (ratio + 1); /* ceil(N / (R + 1)) */
        p.app_ranks = n - p.dcps;
    } else {
        p.dcps = (n + ratio - 1) / ratio; /* ceil(N / R) */
        p.app_ranks = n;
    }
    int busiest = (p.app_ranks + p.dcps - 1) / p.dcps; /* the clients of the busiest DCP */
    p.latency = tdm_dcp_t_through(d, p.dcps, busiest);
    p.overhead = tdm_dcp_app_overhead(d);
    double computation = d->compute * n / p.app_ranks;
    p.iteration = p.overhead + (computation > p.latency ? computation : p.latency);
    return p;
}

int tdm_dcp_best_ratio(const tdm_dcp_model *d, int n)
{
    int best = 1;
    double best_t = HUGE_VAL;
    for (int r = 1; r < n; r++) {
        tdm_dcp_prediction p = tdm_dcp_predict(d, n, r, TDM_DCP_FROM_JOB);
        double t = d->compute > 0 ? p.iteration : p.latency;
        if (t < best_t) {
            best_t = t;
            best = r;
        }
    }
    return best;
}

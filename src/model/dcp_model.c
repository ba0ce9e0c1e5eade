#include "dcp_model.h"

#include <math.h>

int tdm_dcp_ceil_log2(int n)
{
    int h = 0;
    while ((1L << h) < n)
        h++;
    return h;
}

/* An allreduce of `bytes` among n processes as a reduce-scatter and an allgather: 2 log2 n messages
 * (log2 n steps of reductions between them), each process sending 2 (n-1)/n of the buffer and reducing
 * (n-1)/n of it. (A binomial reduce and bcast takes as many steps, each with the whole buffer.) */
static double allreduce(const tdm_loggp *m, int n, double bytes)
{
    double share = (n - 1) / (double)n;
    return 2.0 * tdm_dcp_ceil_log2(n) * m->alpha + 2.0 * share * bytes * m->beta + share * bytes * m->gamma;
}

double tdm_dcp_t_direct(const tdm_dcp_model *d, int n) { return allreduce(&d->m, n, d->bytes); }

/* What each of R messages arriving at once adds at the DCP: the gap, or its CPU time per message
 * (LogGP's max(g, o)). */
static double per_message(const tdm_dcp_model *d)
{
    double gap = d->m.alpha - d->m.latency;
    return gap > d->overhead ? gap : d->overhead;
}

/* One call of `bytes` through the DCPs, whole. */
static double whole(const tdm_dcp_model *d, int dcps, int ratio, double bytes)
{
    double fan = d->m.latency + ratio * (per_message(d) + bytes * d->m.beta);
    return 2.0 * fan + (ratio - 1) * bytes * d->m.gamma + allreduce(&d->m, dcps, bytes);
}

double tdm_dcp_t_through(const tdm_dcp_model *d, int dcps, int ratio)
{
    double segment = d->segment > 0 && d->segment < d->bytes ? d->segment : d->bytes;
    double segments = ceil(d->bytes / segment);
    if (d->max_segments > 0 && segments > d->max_segments) { /* as the clients cut it */
        segment = ceil(d->bytes / d->max_segments);
        segments = ceil(d->bytes / segment);
    }
    if (segments <= 1)
        return whole(d, dcps, ratio, d->bytes);
    /* in segments: the first one's way through, then one more per the DCP's busiest resource's time
     * per segment: its link (its clients' pieces, and its share of the DCPs' allreduce) or its CPU (the
     * clients' pieces combined, and its share of the DCPs' reductions) */
    double share = (dcps - 1) / (double)dcps;
    double link = ratio * (per_message(d) + segment * d->m.beta) + 2.0 * share * segment * d->m.beta;
    double cpu = (ratio - 1 + share) * segment * d->m.gamma;
    return whole(d, dcps, ratio, segment) + (segments - 1) * (link > cpu ? link : cpu);
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

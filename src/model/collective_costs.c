#include "collective_costs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tdm_torus_ranks(const tdm_torus *t)
{
    int p = 1;
    for (int i = 0; i < t->ndims; i++)
        p *= t->dims[i];
    return p;
}

int tdm_torus_parse(const char *text, tdm_torus *t)
{
    t->ndims = 0;
    t->bidirectional = 1;
    const char *s = text;
    while (*s) {
        char *end;
        long d = strtol(s, &end, 10);
        if (end == s || d < 1 || t->ndims == TDM_TORUS_MAX_DIMS)
            return 0;
        t->dims[t->ndims++] = (int)d;
        s = end;
        if (*s == 'x' || *s == 'X') {
            if (!*++s)
                return 0; /* "8x" */
        } else if (*s) {
            return 0;
        }
    }
    return t->ndims > 0;
}

/* Dimensions of length 1 carry nothing: the torus the formulas see is the one without them. */
static int real_dims(const tdm_torus *t)
{
    int n = 0;
    for (int i = 0; i < t->ndims; i++)
        n += t->dims[i] > 1;
    return n;
}

/* Links used at once: 2N on a bidirectional torus, N on a unidirectional one. */
static double links(const tdm_torus *t)
{
    int n = real_dims(t);
    return (t->bidirectional ? 2.0 : 1.0) * (n > 0 ? n : 1);
}

/* A ring is a 1-D torus whose messages all go one way. */
static double fraction(int p) { return (double)(p - 1) / p; }

/* Every collective here is a reduce-scatter half, an allgather half, or both in sequence. */
static double of_halves(tdm_cost_collective c, double reduce_scatter, double allgather)
{
    switch (c) {
    case TDM_COST_REDUCE_SCATTER:
        return reduce_scatter;
    case TDM_COST_ALLGATHER:
        return allgather;
    case TDM_COST_ALLREDUCE:
        return reduce_scatter + allgather;
    }
    return 0;
}

double tdm_cost_lower_bound(tdm_cost_collective c, const tdm_torus *t, double n, const tdm_loggp *m)
{
    int p = tdm_torus_ranks(t);
    double bandwidth = fraction(p) * n * m->beta / links(t);
    double compute = fraction(p) * n * m->gamma;
    return of_halves(c, bandwidth + compute, bandwidth);
}

double tdm_cost_ring(tdm_cost_collective c, int p, double n, const tdm_loggp *m)
{
    double step = (p - 1) * m->alpha + fraction(p) * n * m->beta;
    double compute = fraction(p) * n * m->gamma;
    return of_halves(c, step + compute, step);
}

int tdm_best_segments(double m_elems, const tdm_loggp *m)
{
    double overlapped = fmin(m->beta, m->gamma);
    if (m_elems <= 1 || overlapped <= 0 || m->alpha <= 0)
        return 1;
    double k = floor(sqrt(m_elems * overlapped / m->alpha) + 0.5);
    return (int)fmax(1, fmin(k, fmin(m_elems, 1 << 20)));
}

double tdm_cost_pipelined_step(double m_elems, int segments, const tdm_loggp *m)
{
    return segments * m->alpha + m_elems * fmax(m->beta, m->gamma) + m_elems / segments * fmin(m->beta, m->gamma);
}

double tdm_cost_ring_pipelined(tdm_cost_collective c, int p, double n, const tdm_loggp *m)
{
    double block = n / p;
    double rs = (p - 1) * tdm_cost_pipelined_step(block, tdm_best_segments(block, m), m);
    double ag = (p - 1) * (m->alpha + block * m->beta);
    return of_halves(c, rs, ag);
}

/* Steps of a ring of d: d - 1, or d / 2 when the parts go the shorter way round (halfway). */
static int ring_steps(int d, int halfway) { return halfway ? d / 2 : d - 1; }

/* The multi-color bucket reduce-scatter or allgather (without gamma). */
static double bucket_half(const tdm_torus *t, double n, const tdm_loggp *m, int with_reduction, int halfway)
{
    int p = tdm_torus_ranks(t), ds = 0, dl = 1, steps = 0, nd = real_dims(t);
    if (p == 1)
        return 0;
    for (int i = 0; i < t->ndims; i++) {
        if (t->dims[i] == 1)
            continue;
        ds = ds == 0 || t->dims[i] < ds ? t->dims[i] : ds;
        dl = t->dims[i] > dl ? t->dims[i] : dl;
        steps += ring_steps(t->dims[i], halfway);
    }
    /* every sub-color sends a message per step; the colors' phases run in the same rounds, each as long
     * as its longest ring, and a round's messages share the latency */
    double alpha = links(t) * steps * (m->alpha - m->latency) + nd * (double)ring_steps(dl, halfway) * m->latency;
    double shrink = (pow(ds, nd) - 1) / pow(ds, nd) * ds / (ds - 1.0);
    double beta = (dl - 1.0) / dl * n * m->beta / links(t) * shrink;
    return alpha + beta + (with_reduction ? fraction(p) * n * m->gamma : 0.0);
}

double tdm_cost_torus_bucket(tdm_cost_collective c, const tdm_torus *t, double n, const tdm_loggp *m)
{
    return of_halves(c, bucket_half(t, n, m, 1, 0), bucket_half(t, n, m, 0, 0));
}

double tdm_cost_torus_halfway_allgather(const tdm_torus *t, double n, const tdm_loggp *m)
{
    tdm_torus both_ways = *t;
    both_ways.bidirectional = 1;
    return bucket_half(&both_ways, n, m, 0, 1);
}

double tdm_cost_recursive_doubling_allreduce(int p, double n, const tdm_loggp *m)
{
    return ceil(log2(p)) * (m->alpha + n * m->beta + n * m->gamma);
}

double tdm_cost_rabenseifner_allreduce(int p, double n, const tdm_loggp *m)
{
    return 2 * ceil(log2(p)) * m->alpha + 2 * fraction(p) * n * m->beta + fraction(p) * n * m->gamma;
}

/* Levels of a k-nomial tree over p ranks: ceil(log_k p). */
static int knomial_levels(int p, int k)
{
    int levels = 0;
    for (long span = 1; span < p; span *= k)
        levels++;
    return levels;
}

double tdm_cost_knomial_bcast(int p, int k, double n, const tdm_loggp *m)
{
    /* a parent starts its k - 1 messages one after another (each its share of the start-up beyond the
     * latency, and its bytes through the parent's port); they share the latency */
    double per_message = m->alpha - m->latency + n * m->beta;
    return knomial_levels(p, k) * (m->latency + (k - 1) * per_message);
}

int tdm_best_knomial_radix(int p, double n, const tdm_loggp *m)
{
    int best = 2;
    double best_cost = tdm_cost_knomial_bcast(p, 2, n, m);
    for (int k = 3; k <= p; k++) {
        if (k > TDM_KNOMIAL_MOST_RADIX && k != p)
            continue;
        double cost = tdm_cost_knomial_bcast(p, k, n, m);
        if (cost < best_cost * (1 - 1e-9)) /* ties go to the narrower tree */
            best = k, best_cost = cost;
    }
    return best;
}

double tdm_cost_of_algorithm(const char *full_name, const tdm_torus *t, double bytes, const tdm_loggp *m)
{
    static const struct {
        const char *prefix;
        tdm_cost_collective c;
    } collectives[] = {{"allreduce_", TDM_COST_ALLREDUCE},
                       {"reduce_scatter_", TDM_COST_REDUCE_SCATTER},
                       {"allgather_", TDM_COST_ALLGATHER}};
    int p = tdm_torus_ranks(t);
    for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; i++) {
        size_t len = strlen(collectives[i].prefix);
        if (strncmp(full_name, collectives[i].prefix, len) != 0)
            continue;
        const char *alg = full_name + len;
        tdm_cost_collective c = collectives[i].c;
        tdm_torus torus = *t;
        torus.bidirectional = strcmp(alg, "torus_bucket_uni") != 0;
        if (!strcmp(alg, "ring"))
            return tdm_cost_ring_pipelined(c, p, bytes, m);
        if (c == TDM_COST_ALLGATHER && !strcmp(alg, "torus_bucket_halfway"))
            return tdm_cost_torus_halfway_allgather(t, bytes, m);
        if (!strcmp(alg, "torus_bucket") || !strcmp(alg, "torus_bucket_uni"))
            return tdm_cost_torus_bucket(c, &torus, bytes, m);
        if (c == TDM_COST_ALLREDUCE && !strcmp(alg, "rabenseifner"))
            return tdm_cost_rabenseifner_allreduce(p, bytes, m);
        if (c == TDM_COST_ALLREDUCE && !strcmp(alg, "recursive_doubling"))
            return tdm_cost_recursive_doubling_allreduce(p, bytes, m);
    }
    return -1;
}

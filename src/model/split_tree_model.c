#include "split_tree_model.h"

#include <math.h>

int tdm_split_height(int n)
{
    int h = 0;
    while ((1L << h) < n)
        h++;
    return h;
}

int tdm_split_level_messages(int n, int level)
{
    return (int)floor((double)n / (double)(1L << level) + 0.5);
}

static double weight(const tdm_split_model *m, int level) { return m->variable ? (double)(1L << (level - 1)) : 1.0; }

/* The first s levels, on the application cores. */
static double foreground(const tdm_split_model *m, int s, int n)
{
    int h = tdm_split_height(n), top = s < h ? s : h;
    double t = 0;
    for (int i = 1; i <= top; i++)
        t += weight(m, i);
    return t;
}

/* Levels s+1..H(N), folded on the free cores. */
static double background(const tdm_split_model *m, int s, int n)
{
    int h = tdm_split_height(n), free_cores = m->cores - n;
    double t = 0;
    for (int i = s + 1; i <= h; i++) {
        if (free_cores <= 0)
            return HUGE_VAL;
        t += ceil((double)tdm_split_level_messages(n, i) / free_cores) * weight(m, i);
    }
    return t;
}

double tdm_split_t_blocking(const tdm_split_model *m, int n) { return foreground(m, tdm_split_height(n), n); }

double tdm_split_computation(const tdm_split_model *m, int n)
{
    return (double)m->cores / n * tdm_split_t_blocking(m, m->cores);
}

double tdm_split_t_nonblocking(const tdm_split_model *m, int s, int n)
{
    return foreground(m, s, n) + background(m, s, n);
}

double tdm_split_t_overlapped(const tdm_split_model *m, int s, int n)
{
    double c = tdm_split_computation(m, n), b = background(m, s, n);
    return foreground(m, s, n) + (b > c ? b : c);
}

int tdm_split_best_s(const tdm_split_model *m, int n)
{
    int best = 0, h = tdm_split_height(n);
    for (int s = 1; s <= h; s++)
        if (tdm_split_t_overlapped(m, s, n) < tdm_split_t_overlapped(m, best, n))
            best = s;
    return best;
}

/*
 * The tile and window of an overlap pattern, where the spec leaves them to the library.
 *
 * The model (the first run, after its first tile, computed, exchanged and consumed: one item if the tile
 * is auto): c, the slowest rank's time to compute one item, and u, the least time a rank took to consume
 * one item's results; T(n), the model's latency of the collective of a tile of n items
 * (TDM_Model_estimate, plus the sizes' exchange for the v-forms) and T0 its latency for one element
 * (what W tiles in flight share; the rest, the bytes, they do not). With K tiles of the remaining N
 * items, the last of m items, a tile costs in the pipeline's steady state the longest of its computation
 * and consumption (plus the calling thread's share of the collective, o), T(n) / W and T(n) - T0; the
 * last tile's collective starts before the tile before it is consumed, which hides that much of it:
 *     total(n, W) = (K - 1) max(n (c + u) + o, T(n) / W, T(n) - T0) + m (c + u) + o + max(0, T(m) - n u).
 * Rank 0 evaluates it for n = 1, 2, 4, ..., N and W = 1 .. 8 and sends the best to the others.
 *
 * The tuner (spec.tune): each run's time, the slowest rank's, against the best so far; the next run
 * tries the best's neighbours in turn (twice and half the tile, then the window); a better one becomes
 * the best; when none is better, or after TUNER_MAX_TRIALS runs, it settles on the best.
 */
#include "pattern.h"

#include <math.h>

/* Per collective, the calling thread's start and completion beside what the model counts (reductions,
 * copies): about what tandem-bench --cpu-overhead measures for a small call. */
#define CALL_SECONDS 1e-6

static const char *model_name(TDM_Pattern_kind k)
{
    static const char *const names[] = {"allgather", "allgatherv", "gather",    "gatherv",
                                        "alltoall",  "alltoallv",  "allreduce", "reduce_scatter_block"};
    return names[k];
}

/* The model's latency (and *cpu) for a tile of `elements` per item part; -1 if it cannot say. */
static double tile_latency(const struct tdm_pattern *pt, double elements, double *cpu)
{
    double bytes = elements * (pt->elem_size > 0 ? pt->elem_size : 1), latency = 0, sizes = 0, ignored = 0;
    if (TDM_Model_estimate(model_name(pt->spec.kind), pt->spec.comm, bytes < 8 ? 8 : bytes, &latency, cpu) != MPI_SUCCESS)
        return -1;
    if (pt->variable && TDM_Model_estimate(pt->per_rank ? "alltoall" : "allgather", pt->spec.comm, 8, &sizes, &ignored) != MPI_SUCCESS)
        return -1;
    return latency + sizes;
}

/* Rank 0's choice for the items after the first. */
static void choose(const struct tdm_pattern *pt, double c, double u, int *best_tile, int *best_window)
{
    int rest = pt->items_max - pt->tile, most = tdm_pattern_max_tile(pt); /* after the first tile */
    double item_elements = pt->spec.item_count > 0 ? pt->spec.item_count : 1, cpu0 = 0;
    double t0 = tile_latency(pt, 1, &cpu0), best = INFINITY;
    *best_tile = pt->plan_tile ? (rest < 1 ? 1 : rest < most ? rest : most) : pt->tile;
    *best_window = pt->plan_window ? 1 : pt->window;
    if (rest < 1 || t0 < 0)
        return;
    for (int n = 1; n <= rest && n <= most; n = n > rest / 2 && n < rest ? rest : n * 2) {
        if (!pt->plan_tile && n != pt->tile)
            continue;
        double cpu = 0, cpu_last = 0;
        double t = tile_latency(pt, n * item_elements, &cpu);
        int tiles = (rest + n - 1) / n, last = rest - (tiles - 1) * n;
        double t_last = tile_latency(pt, last * item_elements, &cpu_last);
        if (t < 0 || t_last < 0)
            continue;
        for (int w = 1; w <= TDM_PATTERN_MAX_AUTO_WINDOW && (w == 1 || w <= tiles - 1); w++) {
            if (!pt->plan_window && w != pt->window)
                continue;
            double o = cpu + CALL_SECONDS;
            double steady = fmax(n * (c + u) + o, fmax(t / w, t - t0));
            double hidden = tiles > 1 ? n * u : 0; /* the tile before the last one, consumed meanwhile */
            double total = (tiles - 1) * steady + last * (c + u) + cpu_last + CALL_SECONDS + fmax(0, t_last - hidden);
            if (total < best * (1 - 1e-9)) /* ties: the larger tile, the smaller window */
                best = total, *best_tile = n, *best_window = w;
        }
        if (n == rest)
            break;
    }
    if (!pt->plan_window && pt->window > 0)
        *best_window = pt->window;
}

int tdm_pattern_plan(struct tdm_pattern *pt, double compute_seconds, double consume_seconds)
{
    double mine[2] = {compute_seconds, -consume_seconds}, most[2] = {0, 0}; /* the slowest compute, the least consume */
    int rc = TDM_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, pt->sizes_comm);
    int chosen[2] = {1, 1};
    if (rc == MPI_SUCCESS && pt->rank == 0)
        choose(pt, most[0], -most[1], &chosen[0], &chosen[1]);
    if (rc == MPI_SUCCESS)
        rc = TDM_Bcast(chosen, 2, MPI_INT, 0, pt->sizes_comm);
    if (rc != MPI_SUCCESS)
        return rc;
    pt->tile = chosen[0] > 0 ? chosen[0] : 1;
    pt->window = chosen[1] > 0 ? chosen[1] : 1;
    pt->plan_tile = pt->plan_window = 0;
    return MPI_SUCCESS;
}

static int tried(const tile_tuner *t, int tile, int window)
{
    for (int i = 0; i < t->trials; i++)
        if (t->tried_tile[i] == tile && t->tried_window[i] == window)
            return 1;
    return 0;
}

void tdm_pattern_tuner_step(struct tdm_pattern *pt, double run_seconds)
{
    tile_tuner *t = &pt->tuner;
    if (t->trials < TUNER_MAX_TRIALS)
        t->tried_tile[t->trials] = pt->tile, t->tried_window[t->trials] = pt->window;
    t->trials++;
    if (t->best_time == 0 || run_seconds < t->best_time * 0.97) /* 3%: a better one, not the noise */
        t->best_tile = pt->tile, t->best_window = pt->window, t->best_time = run_seconds, t->next_neighbour = 0;
    else
        t->next_neighbour++;
    int most_tile = tdm_pattern_max_tile(pt) < pt->items_max ? tdm_pattern_max_tile(pt) : pt->items_max;
    for (; t->trials < TUNER_MAX_TRIALS && t->next_neighbour < 4; t->next_neighbour++) {
        int i = t->next_neighbour;
        int tile = t->best_tile * (i == 0 ? 2 : 1) / (i == 1 ? 2 : 1);
        int window = t->best_window * (i == 2 ? 2 : 1) / (i == 3 ? 2 : 1);
        int tiles = tile > 0 ? (pt->items_max + tile - 1) / tile : 0;
        if (tile < 1 || tile > most_tile || window < 1 || window + 1 > pt->nslots || (window > 1 && window > tiles) ||
            tried(t, tile, window))
            continue;
        pt->tile = tile, pt->window = window;
        return;
    }
    pt->tile = t->best_tile, pt->window = t->best_window;
    pt->settled = 1, pt->tuning = 0;
}

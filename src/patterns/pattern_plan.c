/*
 * The tile and window of an overlap pattern, where the spec leaves them to the library.
 *
 * The model (the first run, after its first tile, computed, exchanged and consumed: one item if the tile
 * is auto): c, the slowest rank's time to compute one item, and u, the least time a rank took to consume
 * one item's results; T(n), the model's latency of the collective of a tile of n items
 * (TDM_Model_estimate, plus the sizes' exchange for the v-forms) and T0 its latency for one element
 * (tiles in flight share it; the rest, the bytes, wait for the tile before). For each tile n = 1, 2,
 * 4, ..., N and window W = 1 .. 8, rank 0 replays the run on these costs, as pattern_run.c does it
 * (computation, consumption after each start, waits for room in the window), and
 * sends the fastest to the others. A closed form missed what matters at few tiles: the first tile after
 * the plan has no consumption before it to hide its collective, the last one has.
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

/* A candidate's costs: per item, c to compute and u to consume; per tile (of n items, and the last of
 * m), its collective's latency, the part of it the network serializes (the latency less T0) and the
 * calling thread's share. */
typedef struct pipeline_costs {
    double c, u;
    double latency[2], serial[2], call[2]; /* [0]: a tile of n items; [1]: the last tile */
    int n, last, window;
} pipeline_costs;

#define REPLAY_EXACT 256                  /* tiles replayed; past them the steady state is extrapolated */
#define REPLAY_RING (REPLAY_EXACT + 1) /* tiles held at once: at most window + 1, and no more than the tiles */

/* The calling thread's time for `tiles` tiles (the last of m items), replaying what pattern_run.c does:
 * a tile starts once fewer than `window` collectives run and a slot is free, then the tiles seen
 * completed are consumed in order. Each collective's bytes wait for the one before it; its T0 overlaps. */
static double replay(const pipeline_costs *k, int tiles)
{
    double now = 0, net_free = 0, done[REPLAY_RING];
    int items[REPLAY_RING], head = 0, started = 0;
    for (int t = 0; t < tiles; t++) {
        int last = t == tiles - 1, n = last ? k->last : k->n;
        now += n * k->c;
        for (;;) { /* room: fewer than `window` running, and fewer than `window` held or the oldest done */
            int running = 0, oldest = -1;
            for (int q = head; q < started; q++)
                if (done[q % REPLAY_RING] > now)
                    running++, oldest = oldest < 0 ? q : oldest;
            if (running < k->window && (started - head < k->window || oldest != head))
                break;
            now = done[oldest % REPLAY_RING];
        }
        double finish = fmax(now + k->latency[last], net_free + k->serial[last]);
        done[started % REPLAY_RING] = net_free = finish, items[started % REPLAY_RING] = n, started++;
        now += k->call[last];
        double look = now; /* the tiles seen done at this look, consumed */
        while (head < started && done[head % REPLAY_RING] <= look)
            now += items[head % REPLAY_RING] * k->u, head++;
    }
    for (; head < started; head++)
        now = fmax(now, done[head % REPLAY_RING]) + items[head % REPLAY_RING] * k->u;
    return now;
}

/* The replay of all the tiles; past REPLAY_EXACT tiles, the steady state's time per tile extrapolated. */
static double pipeline_time(const pipeline_costs *k, int tiles)
{
    if (tiles <= REPLAY_EXACT)
        return replay(k, tiles);
    double half = replay(k, REPLAY_EXACT / 2), full = replay(k, REPLAY_EXACT);
    return full + (double)(tiles - REPLAY_EXACT) * (full - half) / (REPLAY_EXACT / 2);
}

/* Rank 0's choice for the items after the first: the tiles 1, 2, 4, ... and the windows 1 .. 8 where
 * they are auto, else the spec's. */
static void choose(const struct tdm_pattern *pt, double c, double u, int *best_tile, int *best_window)
{
    int rest = pt->items_max - pt->tile, most = tdm_pattern_max_tile(pt); /* after the first tile */
    double item_elements = pt->item_count_max > 0 ? pt->item_count_max : 1, cpu0 = 0;
    double t0 = tile_latency(pt, 1, &cpu0), best = INFINITY;
    *best_tile = pt->plan_tile ? (rest < 1 ? 1 : rest < most ? rest : most) : pt->spec.tile;
    *best_window = pt->plan_window ? 1 : pt->spec.window;
    if (rest < 1 || t0 < 0)
        return;
    for (int n = pt->plan_tile ? 1 : pt->spec.tile; n <= most;) {
        int tiles = (rest - 1) / n + 1; /* not rest + n - 1: n may be near INT_MAX */
        pipeline_costs k = {.c = c, .u = u, .n = n, .last = rest - (tiles - 1) * n};
        double cpu = 0, cpu_last = 0;
        k.latency[0] = tile_latency(pt, (double)n * item_elements, &cpu);
        k.latency[1] = tile_latency(pt, k.last * item_elements, &cpu_last);
        k.serial[0] = fmax(0, k.latency[0] - t0), k.serial[1] = fmax(0, k.latency[1] - t0);
        k.call[0] = cpu + CALL_SECONDS, k.call[1] = cpu_last + CALL_SECONDS;
        int w_first = pt->plan_window ? 1 : pt->spec.window;
        int w_last = pt->plan_window ? TDM_PATTERN_MAX_AUTO_WINDOW : pt->spec.window;
        for (int w = w_first; k.latency[0] >= 0 && k.latency[1] >= 0 && w <= w_last && (w == w_first || w <= tiles - 1);
             w++) {
            k.window = w;
            double total = pipeline_time(&k, tiles);
            if (total < best * (1 - 1e-9)) /* ties: the larger tile, the smaller window */
                best = total, *best_tile = n, *best_window = w;
        }
        if (!pt->plan_tile || n >= rest)
            break;
        n = n > rest / 2 ? rest : n * 2;
    }
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

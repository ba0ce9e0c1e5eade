/*
 * The tile and window of an overlap pattern, where the spec leaves them to the library.
 *
 * The model (the first run, after its first tile, computed, exchanged and consumed: one item if the tile
 * is auto): c, the slowest rank's time to compute one item, and u, the least time a rank took to consume
 * one item's results; T(n), the model's latency of the collective of a tile of n items
 * (TDM_Model_estimate; the v-forms exchange their sizes first) and T0 its latency for one element
 * (tiles in flight share it; the rest, the bytes, wait for the tile before). For each tile n = 1, 2,
 * 4, ..., N and window W = 1 .. 8, every rank replays the run on these costs (c and u agreed in one
 * allreduce), as pattern_run.c does it (computation, looks between items, consumption after each
 * start, waits for room in the window), and takes the fastest. A closed form missed what matters at few tiles: the first tile after
 * the plan has no consumption before it to hide its collective, the last one has.
 *
 * The tuner (spec.tune): each run's time, the slowest rank's, against the best so far; the next run
 * tries the best's neighbours in turn (twice and half the tile, then the window: of the two, those the
 * spec left auto); a better one becomes the best; when none is better, or after TUNER_MAX_TRIALS runs,
 * it settles on the best.
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

/* The model's latency (and *cpu) for the data of a tile of `elements` per item part, and in *sizes
 * that of the sizes' exchange before it (the v-forms; else 0); -1 if it cannot say. */
static double tile_latency(const struct tdm_pattern *pt, double elements, double *cpu, double *sizes)
{
    double bytes = elements * (pt->elem_size > 0 ? pt->elem_size : 1), latency = 0, ignored = 0;
    *sizes = 0;
    if (TDM_Model_estimate(model_name(pt->spec.kind), pt->spec.comm, bytes < 8 ? 8 : bytes, &latency, cpu) != MPI_SUCCESS)
        return -1;
    if (pt->variable && TDM_Model_estimate(pt->per_rank ? "alltoall" : "allgather", pt->spec.comm, 8, sizes, &ignored) != MPI_SUCCESS)
        return -1;
    return latency;
}

typedef tdm_pipeline_costs pipeline_costs;

#define REPLAY_EXACT TDM_PATTERN_REPLAY_EXACT /* tiles replayed; past them the steady state is extrapolated */
#define REPLAY_RING (REPLAY_EXACT + 1) /* tiles held at once: at most window + 1, and no more than the tiles */

/* A tile in the replay: its sizes in at sizes_done, its data collective started (data_on) and done. */
typedef struct replay_tile {
    double sizes_done, done;
    int items, last, data_on;
} replay_tile;

typedef struct replay_state {
    const pipeline_costs *k;
    replay_tile ring[REPLAY_RING];
    int head, started; /* the oldest tile held, and the tiles started */
    double net_free;   /* when the network is done with the data collectives started so far */
} replay_state;

static replay_tile *tile_at(replay_state *r, int q) { return &r->ring[q % REPLAY_RING]; }

/* The tile's data collective started at `at`: done after its latency, and after the bytes of the one
 * before it (the network serializes them; their T0 overlaps). */
static void start_data(replay_state *r, replay_tile *t, double at)
{
    t->data_on = 1;
    t->done = r->net_free = fmax(at + r->k->latency[t->last], r->net_free + r->k->serial[t->last]);
}

/* The looks between the items of a tile, computed from `from` (n items of c each): as pattern_run.c's
 * look, a v-form tile whose sizes are in by one of them starts its data there, in tile order. */
static void look_between_items(replay_state *r, double from, int n)
{
    double c = r->k->c, previous = from;
    for (int q = r->head; q < r->started; q++) {
        replay_tile *t = tile_at(r, q);
        if (t->data_on)
            continue;
        double wait = t->sizes_done - from; /* the first look at or after its sizes, and after the tile before's */
        double at = wait <= c ? from + c : c > 0 ? from + ceil(wait / c) * c : INFINITY;
        at = fmax(at, previous);
        if (at > from + n * c)
            return;
        start_data(r, t, at);
        previous = at;
    }
}

/* One look at `at` (after a start): the v-form tiles whose sizes are in start their data, in order. */
static void look_at(replay_state *r, double at)
{
    for (int q = r->head; q < r->started; q++) {
        replay_tile *t = tile_at(r, q);
        if (t->data_on)
            continue;
        if (t->sizes_done > at)
            return;
        start_data(r, t, at);
    }
}

/* A wait for tile q from `now` (its sizes first, then its data): when it returns. */
static double wait_tile(replay_state *r, int q, double now)
{
    replay_tile *t = tile_at(r, q);
    if (!t->data_on)
        start_data(r, t, fmax(now, t->sizes_done));
    return fmax(now, t->done);
}

/* The calling thread's time for `tiles` tiles (the last of m items), replaying what pattern_run.c does:
 * a tile computed item by item (looking at the others in between), started once fewer than `window`
 * collectives run and a slot is free, then the tiles seen completed consumed in order. A v-form's data
 * starts at the first look after its sizes are in: with one tile in flight, only when it is waited for. */
double tdm_pattern_replay(const pipeline_costs *k, int tiles)
{
    replay_state r; /* 8 KiB */
    r.k = k, r.head = r.started = 0, r.net_free = 0;
    double now = 0;
    for (int t = 0; t < tiles; t++) {
        int last = t == tiles - 1, n = last ? k->last : k->n;
        look_between_items(&r, now, n);
        now += n * k->c;
        for (;;) { /* room: fewer than `window` running, and fewer than `window` held or the oldest done */
            int running = 0, oldest = -1;
            for (int q = r.head; q < r.started; q++) {
                const replay_tile *h = tile_at(&r, q);
                if (!h->data_on || h->done > now)
                    running++, oldest = oldest < 0 ? q : oldest;
            }
            if (running < k->window && (r.started - r.head < k->window || oldest != r.head))
                break;
            now = wait_tile(&r, oldest, now);
        }
        replay_tile *s = tile_at(&r, r.started++);
        *s = (replay_tile){.sizes_done = now + k->sizes, .items = n, .last = last};
        if (!k->two_steps)
            start_data(&r, s, now);
        now += k->call[last];
        double seen = now; /* one look; the tiles seen done at it, consumed */
        look_at(&r, seen);
        for (replay_tile *h; r.head < r.started && (h = tile_at(&r, r.head))->data_on && h->done <= seen; r.head++)
            now += h->items * k->u;
    }
    for (; r.head < r.started; r.head++)
        now = wait_tile(&r, r.head, now) + tile_at(&r, r.head)->items * k->u;
    return now;
}

/* The replay of all the tiles; past REPLAY_EXACT tiles, the steady state's time per tile extrapolated. */
static double pipeline_time(const pipeline_costs *k, int tiles)
{
    if (tiles <= REPLAY_EXACT)
        return tdm_pattern_replay(k, tiles);
    double half = tdm_pattern_replay(k, REPLAY_EXACT / 2), full = tdm_pattern_replay(k, REPLAY_EXACT);
    return full + (double)(tiles - REPLAY_EXACT) * (full - half) / (REPLAY_EXACT / 2);
}

/* The choice for the items after the first: the tiles 1, 2, 4, ... and the windows 1 .. 8 where
 * they are auto, else the spec's. Every rank makes it from the same agreed inputs (as the tuner does),
 * so one allreduce plans the run: ranks leave it together, where a reduce and a broadcast would send
 * them into the pipeline one tree level apart. */
static void choose(const struct tdm_pattern *pt, double c, double u, int *best_tile, int *best_window)
{
    int rest = pt->items_max - pt->tile, most = tdm_pattern_max_tile(pt); /* after the first tile */
    double item_elements = pt->item_count_max > 0 ? pt->item_count_max : 1, cpu0 = 0, sizes = 0;
    double t0 = tile_latency(pt, 1, &cpu0, &sizes), best = INFINITY;
    *best_tile = pt->plan_tile ? (rest < 1 ? 1 : rest < most ? rest : most) : pt->spec.tile;
    *best_window = pt->plan_window ? 1 : pt->spec.window;
    if (rest < 1 || t0 < 0)
        return;
    for (int n = pt->plan_tile ? 1 : pt->spec.tile; n <= most;) {
        int tiles = (rest - 1) / n + 1; /* not rest + n - 1: n may be near INT_MAX */
        pipeline_costs k = {.c = c, .u = u, .sizes = sizes, .n = n, .last = rest - (tiles - 1) * n,
                            .two_steps = pt->variable};
        double cpu = 0, cpu_last = 0;
        k.latency[0] = tile_latency(pt, (double)n * item_elements, &cpu, &sizes);
        k.latency[1] = tile_latency(pt, k.last * item_elements, &cpu_last, &sizes);
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
    double agreed[2] = {compute_seconds, -consume_seconds}; /* the slowest compute, the least consume */
    int rc = TDM_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_DOUBLE, MPI_MAX, pt->sizes_comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int tile = 1, window = 1;
    choose(pt, agreed[0], -agreed[1], &tile, &window);
    pt->tile = tile > 0 ? tile : 1;
    pt->window = window > 0 ? window : 1;
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
        if ((i < 2 && pt->spec.tile != TDM_PATTERN_AUTO) || (i >= 2 && pt->spec.window != TDM_PATTERN_AUTO))
            continue; /* the caller's own tile or window stays */
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

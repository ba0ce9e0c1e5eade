/*
 * Running an overlap pattern: the loop over the items, a tile at a time into a free slot (window + 1
 * slots: up to `window` tiles' collectives in flight while the next one is computed, as the paper's
 * listings wait for tile i - w after computing tile i); between items, a look at the tiles in flight
 * (under inline progress, what advances them). A computed tile starts (after waiting for the oldest
 * collective still running if the window is full), and only then are the completed ones consumed, in
 * tile order: their consumer's work hides the new tile's collective, the last tile's included (consumed
 * between items, they would leave the last tile's collective nothing to hide behind). The end drains
 * the window.
 * An auto pattern's first run times its first tile (its first item alone if the tile is auto), computed
 * and consumed (that tile's collective is not overlapped): the model's tile and window (pattern_plan.c)
 * are chosen from that, the same on every rank, before the second tile.
 */
#include "pattern.h"

#include "../base/error.h"

#include <stdlib.h>

static const char *fn_run = "TDM_Pattern_run";

typedef struct window_ring {
    int head, count; /* the oldest tile in flight, and how many are */
} window_ring;

static tile_slot *slot_at(struct tdm_pattern *pt, const window_ring *w, int k)
{
    return &pt->slots[(w->head + k) % (pt->window + 1)];
}

/* The slots of the largest window this run may have, before any tile is in flight (a tile's sizes
 * collective writes into its slot), their buffers kept from earlier runs. */
static int ensure_slots(struct tdm_pattern *pt)
{
    int most = pt->plan_window || pt->tuning ? TDM_PATTERN_MAX_AUTO_WINDOW : 0;
    most = (most > pt->window ? most : pt->window) + 1; /* the tile being computed */
    if (pt->nslots >= most)
        return MPI_SUCCESS;
    tile_slot *more = realloc(pt->slots, (size_t)most * sizeof *more);
    if (!more)
        return tdm_error(fn_run, MPI_ERR_NO_MEM, "no memory for a window of %d tiles", most);
    for (int i = pt->nslots; i < most; i++)
        more[i] = (tile_slot){0};
    pt->slots = more, pt->nslots = most;
    return MPI_SUCCESS;
}

/* The oldest tile, done, consumed and its slot freed. */
static void retire_oldest(struct tdm_pattern *pt, window_ring *w)
{
    tdm_tile_consume(pt, slot_at(pt, w, 0));
    w->head = (w->head + 1) % (pt->window + 1), w->count--;
}

/* Every tile in flight looked at once; with consume, the completed prefix consumed. */
static int look(struct tdm_pattern *pt, window_ring *w, int consume)
{
    int in_order = 1;
    for (int k = 0; k < w->count; k++) {
        tile_slot *s = slot_at(pt, w, k);
        int done = 0;
        int rc = tdm_tile_test(pt, s, in_order, &done);
        if (rc != MPI_SUCCESS)
            return rc;
        in_order = in_order && s->state != TILE_SIZES;
    }
    while (consume && w->count && slot_at(pt, w, 0)->state == TILE_DONE)
        retire_oldest(pt, w);
    return MPI_SUCCESS;
}

static int wait_oldest(struct tdm_pattern *pt, window_ring *w)
{
    int rc = tdm_tile_wait(pt, slot_at(pt, w, 0));
    if (rc == MPI_SUCCESS)
        retire_oldest(pt, w);
    return rc;
}

/* After an MPI error: every tile in flight waited for, its data collective started after its sizes as
 * on the other ranks, so that no collective writes into a slot once the run has returned (the slots'
 * buffers may then be freed). Their own errors are dropped: the run reports the first. */
static void settle(struct tdm_pattern *pt, window_ring *w)
{
    for (; w->count; w->head = (w->head + 1) % (pt->window + 1), w->count--) {
        tile_slot *s = slot_at(pt, w, 0);
        tdm_tile_wait(pt, s);
        s->state = TILE_FREE;
    }
}

/* Room to start a tile: fewer than `window` collectives running, and a slot for the tile after it (fewer
 * than `window` tiles held, or the oldest done, to be consumed right after the start). Waits for the
 * oldest running collective until so. */
static int make_room(struct tdm_pattern *pt, window_ring *w)
{
    for (;;) {
        int running = 0, oldest = -1;
        for (int k = 0; k < w->count; k++)
            if (slot_at(pt, w, k)->state != TILE_DONE)
                running++, oldest = oldest < 0 ? k : oldest;
        if (running < pt->window && (w->count < pt->window || oldest != 0))
            return MPI_SUCCESS;
        int rc = tdm_tile_wait(pt, slot_at(pt, w, oldest));
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

/* One tile: its slot filled item by item, looking at the others in between, then started once the
 * window has room, then the tiles completed by then consumed. */
static int run_tile(struct tdm_pattern *pt, window_ring *w, int first, int items)
{
    tile_slot *s = slot_at(pt, w, w->count);
    int rc = tdm_tile_prepare(pt, s, first, items);
    for (int j = 0; rc == MPI_SUCCESS && j < items; j++) {
        tdm_tile_compute(pt, s, j);
        if (w->count)
            rc = look(pt, w, 0);
    }
    if (rc == MPI_SUCCESS)
        rc = make_room(pt, w);
    if (rc == MPI_SUCCESS)
        rc = tdm_tile_start(pt, s);
    if (rc == MPI_SUCCESS)
        w->count++;
    if (rc == MPI_SUCCESS)
        rc = look(pt, w, 1);
    return rc;
}

int TDM_Pattern_run(TDM_Pattern pattern)
{
    if (!pattern)
        return tdm_error(fn_run, MPI_ERR_ARG, "pattern is NULL (argument pattern)");
    struct tdm_pattern *pt = pattern;
    double start = MPI_Wtime();
    pt->error = MPI_SUCCESS;
    pt->compute_time_sum = pt->consume_time_sum = 0;
    int planning = pt->plan_tile || pt->plan_window;
    int rc = ensure_slots(pt);
    if (planning) /* the first tile (its first item alone if the tile is auto) timed; one slot until the plan */
        pt->tile = pt->plan_tile ? 1 : pt->spec.tile, pt->window = 1;
    window_ring w = {0, 0};
    int first = 0;
    if (rc == MPI_SUCCESS && planning && pt->items_max > 0) {
        first = pt->items_max < pt->tile ? pt->items_max : pt->tile;
        rc = run_tile(pt, &w, 0, first);
        while (rc == MPI_SUCCESS && w.count) /* consumed too, so that the plan knows the consumer's time */
            rc = wait_oldest(pt, &w);
        if (rc == MPI_SUCCESS)
            rc = tdm_pattern_plan(pt, pt->compute_time_sum / first, pt->consume_time_sum / first);
    }
    while (rc == MPI_SUCCESS && first < pt->items_max) {
        int items = pt->items_max - first < pt->tile ? pt->items_max - first : pt->tile;
        rc = run_tile(pt, &w, first, items);
        first += items;
    }
    while (rc == MPI_SUCCESS && w.count)
        rc = wait_oldest(pt, &w);
    if (rc != MPI_SUCCESS) { /* MPI's own error underneath: the run cannot go on */
        settle(pt, &w);
        return rc;
    }
    TDM_Pattern_times *t = &pt->last;
    t->total = MPI_Wtime() - start;
    t->compute = pt->compute_time_sum, t->consume = pt->consume_time_sum;
    t->communication = t->total - t->compute - t->consume;
    if (pt->tuning && !planning) { /* the planning run's first tile is not like the others */
        double slowest = t->total;
        rc = TDM_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, pt->sizes_comm);
        if (rc != MPI_SUCCESS)
            return rc;
        tdm_pattern_tuner_step(pt, slowest);
    }
    return pt->error;
}

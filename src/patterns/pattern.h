/*
 * The overlap pattern's inside (include/tandem_patterns.h is its contract). A pattern holds the spec,
 * a duplicate of its communicator for the tiles' data and, for the v-forms, another for their sizes (so
 * that a tile's data collective can wait for its sizes while later tiles' sizes go ahead), a ring of
 * `window` tile slots with their buffers, and the plan: the tile and window of the next run, chosen by
 * the model and the tuner where the spec says auto (pattern_plan.c).
 */
#ifndef TANDEM_PATTERN_H
#define TANDEM_PATTERN_H

#include "tandem_patterns.h"

#include <stddef.h>

typedef enum tile_state {
    TILE_FREE,  /* no collective */
    TILE_SIZES, /* the v-forms: its sizes are being exchanged */
    TILE_DATA,  /* its data collective is in flight */
    TILE_DONE   /* complete, waiting for the tiles before it to be consumed */
} tile_state;

/* A tile in flight and the buffers of its slot (kept between tiles and runs, grown when needed). */
typedef struct tile_slot {
    int first, items; /* its items: first .. first + items - 1 */
    tile_state state;
    TDM_Request sizes_request, data_request;
    char *send_alloc, *recv_alloc; /* where the elements' span starts (see tdm_pattern.true_lb) */
    size_t send_cap, recv_cap;     /* in elements */
    int *send_counts, *send_displs; /* size entries each (alltoallv: per destination) */
    int *recv_counts, *recv_displs;
    int own_count; /* the one-destination v-forms: the elements this rank put in */
} tile_slot;

/* The largest window the model or the tuner chooses (the slots: one more, for the tile being computed). */
#define TDM_PATTERN_MAX_AUTO_WINDOW 8

/* The tuner: coordinate search around the best (tile, window) measured so far, one run per trial. */
#define TUNER_MAX_TRIALS 12
typedef struct tile_tuner {
    int trials;
    int tried_tile[TUNER_MAX_TRIALS + 1], tried_window[TUNER_MAX_TRIALS + 1];
    int best_tile, best_window;
    double best_time; /* 0: none yet */
    int next_neighbour; /* of the best: 2 tile, tile / 2, 2 window, window / 2 */
} tile_tuner;

struct tdm_pattern {
    TDM_Pattern_spec spec;
    MPI_Comm data_comm, sizes_comm; /* the same but in the v-forms */
    int rank, size;
    int items_max;            /* the most items of any rank: the tiles cover 0 .. items_max - 1 */
    int item_count_max;       /* the largest item_count of any rank (the v-forms' may differ) */
    int per_rank;             /* 1 if an item sends each rank its own part (out[r]) */
    int variable;             /* a v-form: sizes exchanged first */
    MPI_Aint extent, true_lb, true_extent;
    int elem_size;            /* MPI_Type_size: the bytes the model counts */
    int tile, window;         /* of the next run */
    int plan_tile, plan_window; /* 1: chosen by the model at the first run's first tile (spec says auto) */
    int tuning, settled;
    tile_tuner tuner;
    tile_slot *slots;
    int nslots;
    TDM_Pattern_times last;
    double compute_time_sum, consume_time_sum;
    int error;                /* the first error of this run (callbacks), MPI_SUCCESS if none */
};

/* The most items a tile may hold: its counts stay within int (p * items * item_count). */
int tdm_pattern_max_tile(const struct tdm_pattern *pt);

/* pattern_tiles.c: one tile's buffers, collectives and result. */
int tdm_tile_prepare(struct tdm_pattern *pt, tile_slot *s, int first, int items);
char *tdm_tile_out(const struct tdm_pattern *pt, const tile_slot *s, int dest, size_t element);
void tdm_tile_compute(struct tdm_pattern *pt, tile_slot *s, int j);
int tdm_tile_start(struct tdm_pattern *pt, tile_slot *s);
int tdm_tile_test(struct tdm_pattern *pt, tile_slot *s, int may_start_data, int *done);
int tdm_tile_wait(struct tdm_pattern *pt, tile_slot *s);
void tdm_tile_consume(struct tdm_pattern *pt, tile_slot *s);
void tdm_tile_slot_free(tile_slot *s);
void tdm_pattern_fail(struct tdm_pattern *pt, int error);

/* pattern_plan.c: the model's tile and window from the computation measured on the first item, and
 * the tuner's next trial from a run's time (the slowest rank's). */
int tdm_pattern_plan(struct tdm_pattern *pt, double compute_seconds, double consume_seconds);
void tdm_pattern_tuner_step(struct tdm_pattern *pt, double run_seconds);

/* A candidate's costs for the plan: per item, c to compute and u to consume; per tile (of n items, and
 * the last of m), its data collective's latency, the part of it the network serializes (the latency
 * less T0) and the calling thread's share; the sizes' exchange before the data (v-forms: two_steps). */
typedef struct tdm_pipeline_costs {
    double c, u, sizes;
    double latency[2], serial[2], call[2]; /* [0]: a tile of n items; [1]: the last tile */
    int n, last, window, two_steps;
} tdm_pipeline_costs;

/* The calling thread's time for `tiles` tiles (at most TDM_PATTERN_REPLAY_EXACT) on these costs,
 * replaying what pattern_run.c does (exported for the tests). */
#define TDM_PATTERN_REPLAY_EXACT 256
double tdm_pattern_replay(const tdm_pipeline_costs *k, int tiles);

#endif

/*
 * Tandem's overlap patterns: a loop of items whose computation feeds a collective, run as a pipeline.
 *
 * The loop "for each item: compute it; then one collective over all the items' data" becomes: the items
 * in tiles of `tile` items, each tile's collective started (non-blocking) as soon as its items are
 * computed, at most `window` tiles' collectives in flight, each tile's result handed back (consumed) as
 * its collective completes, in tile order. The pattern owns the buffers, tests the collectives in flight
 * between items (what makes them progress under inline progress) and, for the v-forms, exchanges each
 * tile's sizes first (the two-step gather of the overlap-patterns paper, pipelined as well).
 *
 *   TDM_Pattern_spec spec = {.kind = TDM_PATTERN_ALLTOALL, .comm = comm, .datatype = MPI_DOUBLE,
 *                            .items = planes, .item_count = per_rank, .compute = fft_plane,
 *                            .consume = unpack, .user = &state};  (tile, window: 0 = auto)
 *   TDM_Pattern pattern;
 *   TDM_Pattern_create(&spec, &pattern);   collective over spec.comm
 *   TDM_Pattern_run(pattern);              the whole loop; as often as the application iterates
 *   TDM_Pattern_free(&pattern);
 *
 * Functions return MPI error classes, with a message naming the argument in TDM_Last_error(). A C++
 * front taking lambdas is in tandem_patterns.hpp.
 */
#ifndef TANDEM_PATTERNS_H
#define TANDEM_PATTERNS_H

#include "tandem.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The collective each tile's data goes through. */
typedef enum TDM_Pattern_kind {
    TDM_PATTERN_ALLGATHER,
    TDM_PATTERN_ALLGATHERV,
    TDM_PATTERN_GATHER,
    TDM_PATTERN_GATHERV,
    TDM_PATTERN_ALLTOALL,
    TDM_PATTERN_ALLTOALLV,
    TDM_PATTERN_ALLREDUCE,
    TDM_PATTERN_REDUCE_SCATTER /* each rank receives the reduction of its block: reduce_scatter_block */
} TDM_Pattern_kind;

#define TDM_PATTERN_AUTO 0 /* tile or window: the model proposes it from the measured computation */

/*
 * Computes item `item` (0 .. items - 1) of this rank's loop. Where its data goes: out[0], or, for the
 * kinds that send each rank its own part (alltoall, alltoallv, reduce_scatter), out[r] for rank r's.
 * counts[] (one, or one per rank) holds item_count on entry; the v-forms set the elements they wrote,
 * 0 .. item_count; the others leave it. Returns 0, or an error (see TDM_Pattern_run).
 */
typedef int TDM_Pattern_compute_fn(int item, void *const out[], int counts[], void *user);

/*
 * A tile's result, in tile order: the items first_item .. first_item + items - 1 of every rank. in holds
 * counts[r] elements from rank r at element displs[r] (allgather(v), gather(v) at the root only,
 * alltoall(v): what each rank's items sent this rank), or the reduced items in counts[0] elements
 * (allreduce, reduce_scatter: this rank's block). Ranks past their last item give zeros (v-forms: no
 * elements).
 * Returns 0, or an error (see TDM_Pattern_run).
 */
typedef int TDM_Pattern_consume_fn(int first_item, int items, const void *in, const int counts[],
                                   const int displs[], void *user);

typedef struct TDM_Pattern_spec {
    TDM_Pattern_kind kind;
    MPI_Comm comm;
    MPI_Datatype datatype; /* of the items' data */
    MPI_Op op;             /* allreduce, reduce_scatter */
    int root;              /* gather, gatherv */
    int items;             /* this rank's items: the same on every rank for the reductions; elsewhere a
                              rank past its last item gives stand-ins: zeros, or no elements (v-forms) */
    int item_count;        /* elements one item produces (for each rank where it sends each its own);
                              the v-forms: the most it may produce */
    int tile;              /* items per collective, 1 .. ; TDM_PATTERN_AUTO */
    int window;            /* tiles' collectives in flight at most, 1 .. ; TDM_PATTERN_AUTO */
    int tune;              /* non-zero: the first runs also try twice and half the tile and the window,
                              those of the two that are TDM_PATTERN_AUTO, and keep the fastest (the
                              tuner; a tile and a window both given are kept as they are) */
    TDM_Pattern_compute_fn *compute;
    TDM_Pattern_consume_fn *consume; /* NULL: the results are not looked at */
    void *user;                      /* passed to both */
} TDM_Pattern_spec;

typedef struct tdm_pattern *TDM_Pattern;

/* Where a run's time went on this rank, in seconds. */
typedef struct TDM_Pattern_times {
    double total;         /* TDM_Pattern_run, from call to return */
    double compute;       /* in the compute function */
    double consume;       /* in the consume function */
    double communication; /* the rest: starting, testing and waiting for the collectives */
} TDM_Pattern_times;

/* Collective over spec->comm: every rank with the same kind, root, op, tile, window and tune (and, for
 * the reductions, items; but for the v-forms, item_count). MPI_ERR_ARG for a mismatch or a bad field (named), MPI_ERR_COMM,
 * MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_ROOT, MPI_ERR_COUNT as MPI would give them. */
int TDM_Pattern_create(const TDM_Pattern_spec *spec, TDM_Pattern *pattern);
/* Runs the loop: every item computed, every tile consumed. Collective. If a compute or consume
 * function fails, this rank stops calling them, sends what the collectives still need (zeros, or no
 * elements for the v-forms) so that no rank waits forever, and returns that error (MPI_ERR_OTHER for a
 * function's own non-MPI code) once the collectives are done; the other ranks are not told, as with
 * MPI's errors. On an MPI error (MPI_ERR_NO_MEM for a tile's buffers, or a collective's) it starts no
 * more tiles, waits for those in flight and returns the error. */
int TDM_Pattern_run(TDM_Pattern pattern);
/* The tile and window the next run uses (after an auto pattern's first run: the model's choice, or the
 * tuner's current candidate) and whether the tuner has settled. */
int TDM_Pattern_get_params(TDM_Pattern pattern, int *tile, int *window, int *settled);
int TDM_Pattern_get_times(TDM_Pattern pattern, TDM_Pattern_times *times); /* of the last run */
int TDM_Pattern_free(TDM_Pattern *pattern);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* TANDEM_PATTERNS_H */

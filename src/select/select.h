/*
 * Selection: which algorithm a call gets. One table per collective lists its algorithms; "auto"
 * picks by message size and communicator size with the named thresholds of select.c. Any choice can
 * be forced (TANDEM_ALLREDUCE=ring or TDM_Set_algorithm). An algorithm that cannot serve a call (a
 * ring for a non-commutative op, a power-of-two algorithm on 6 ranks) hands it to the collective's
 * fallback, which can; TANDEM_VERBOSE=1 says so once.
 */
#ifndef TANDEM_SELECT_H
#define TANDEM_SELECT_H

#include "../algorithms/algorithms.h"

typedef struct tdm_algorithm {
    const char *name;         /* as forced: "ring" */
    const char *full_name;    /* as dumped: "allreduce_ring" */
    tdm_algorithm_fn build;
    unsigned needs;           /* TDM_NEEDS_* */
    tdm_lanes_fn lanes;       /* NULL: its calls run as one schedule */
} tdm_algorithm;

#define TDM_NEEDS_COMMUTATIVE 1u
#define TDM_NEEDS_POWER_OF_TWO 2u
#define TDM_NEEDS_NODES 4u /* node-aware: ranks sharing nodes (tdm_coll_args.nodes), see select.c */

/* Reads TANDEM_<COLLECTIVE> for every collective; MPI_ERR_ARG (and a message) on unknown names. */
int tdm_select_init_from_env(const char *fn);
/* The algorithm for a call. */
const tdm_algorithm *tdm_select(const tdm_coll_args *a);
/* A node-aware algorithm was selected: the algorithm of its phase among one rank per node, chosen for
 * that phase's call (a->across_nodes). */
void tdm_select_across_nodes(tdm_coll_args *a);
/* Long data inside a node: whether a byte through a cell (two copies, shm_beta each) costs less than in
 * `messages` point-to-point messages between two processes of a node (beta each). Selection takes the
 * node-aware forms for long data only where it does (select.c). */
int tdm_select_cells_beat_messages(const tdm_loggp *m, double messages);
/* Forces an algorithm by name ("auto" restores the automatic choice); the names known, space separated. */
int tdm_select_force(const char *fn, const char *collective, const char *algorithm);
const char *tdm_select_names(const char *collective);
/* The lanes a call of this algorithm is built in (the torus bucket's chains, times TANDEM_COLOR_THREADS
 * as far as it has independent colors), or 1 if more than `most`; 1 for most algorithms. *per_thread:
 * consecutive lanes one color thread drives. The same on every rank (it depends only on the call and
 * the settings). */
int tdm_select_lanes(const tdm_algorithm *alg, const tdm_coll_args *a, int most, int *per_thread);
/* Whether the collective's algorithm is chosen automatically (no TANDEM_<COLLECTIVE>, nor TDM_Set's). */
int tdm_select_automatic(int kind);
/* The collective named ("allreduce", "neighbor_alltoallw"): its tdm_coll_kind, or -1. */
int tdm_select_kind(const char *collective);
/* An algorithm by its names ("allreduce", "ring"); NULL if unknown. */
const tdm_algorithm *tdm_select_named(const char *collective, const char *algorithm);
/* Its builder; NULL if unknown. */
tdm_algorithm_fn tdm_select_builder(const char *collective, const char *algorithm);

/* TANDEM_TORUS_DIMS, read at TDM_Init. */
int tdm_torus_init_from_env(const char *fn);
/* Fills a->torus_ndims and a->torus_dims for the communicator (see torus_dims.c). */
void tdm_torus_of(MPI_Comm comm, tdm_coll_args *a);

#endif

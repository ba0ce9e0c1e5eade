/*
 * Where progress threads run. A policy maps the node's cores and the ranks on it to the core of each
 * rank's progress thread:
 *   none      the thread inherits the rank's binding (the default);
 *   bind      the thread shares its rank's core;
 *   numa      threads go to the last free cores of their rank's NUMA node (P_numa below);
 *   odd-even  consecutive ranks never share a communication core (P_odd_even below);
 *   cores:L   an explicit list of cores, the i-th rank on the node taking L[i mod |L|].
 * The policy functions are pure (topology in, core out); placement.c reads the real topology with
 * hwloc and binds the thread.
 */
#ifndef TANDEM_PLACEMENT_H
#define TANDEM_PLACEMENT_H

#include <stddef.h>

#define TDM_PLACEMENT_MAX_LIST 256

typedef enum {
    TDM_PLACE_NONE,
    TDM_PLACE_BIND,
    TDM_PLACE_NUMA,
    TDM_PLACE_ODD_EVEN,
    TDM_PLACE_LIST
} tdm_placement_kind;

typedef struct tdm_placement_policy {
    tdm_placement_kind kind;
    int list[TDM_PLACEMENT_MAX_LIST]; /* cores:LIST */
    int nlist;
} tdm_placement_policy;

/* Parses "bind", "numa", "odd-even", "cores:0,2,4-7" or "none"; MPI_ERR_ARG with a message if bad. */
int tdm_placement_parse(const char *fn, const char *text, tdm_placement_policy *policy);

/* P_numa(N, n, M): the core (numbered within the NUMA node) of the progress thread of the task at
 * position M of n tasks on a NUMA node of N cores: M itself if the tasks fill the node, else
 * (floor(M / d) + 1) * d - 1 with d = floor(N / (N - n)). */
int tdm_place_numa(int cores, int tasks, int position);
/* P_odd_even(p, n, r) = floor(p / (p - n)) * (r mod (p - n)) + floor(p / (p - n)) - 1 for p cores,
 * n tasks and node rank r; r itself if the tasks fill the cores. */
int tdm_place_odd_even(int cores, int tasks, int rank);

/* A node as the policies see it: cores numbered 0..ncores-1, each in a NUMA node, and the core of
 * each task (rank on the node) in node-rank order. */
typedef struct tdm_node_layout {
    int ncores;
    const int *numa_of_core;
    int ntasks;
    const int *task_core;
} tdm_node_layout;

/* The core of the progress thread of node task `task`, or -1 for none (inherit the binding). */
int tdm_placement_core(const tdm_placement_policy *policy, const tdm_node_layout *node, int task);

/* Color threads (TANDEM_COLOR_THREADS): the core of thread `lane` of node task `task` (lane 0 is the
 * progress thread). An explicit list is dealt out task by task, then lane by lane: task t's lane l
 * takes L[(t + l * ntasks) mod |L|], so with cores:0-3 and two tasks, task 0 runs on 0 and 2, task 1
 * on 1 and 3. The other policies name one communication core per task: every lane shares it. */
int tdm_placement_lane_core(const tdm_placement_policy *policy, const tdm_node_layout *node, int task, int lane);

/* With the real machine (hwloc) and the ranks of this node (a collective over MPI_COMM_WORLD):
 * computes where this rank's progress thread goes. */
int tdm_placement_init(const char *fn, const tdm_placement_policy *policy);
void tdm_placement_finalize(void);
/* Called by the progress thread when it starts: binds it to its core, if the policy names one. */
void tdm_placement_bind_progress_thread(void);
/* Called by color thread `lane` (1 ..) when it starts: binds it to its core, if the policy names one. */
void tdm_placement_bind_lane_thread(int lane);
#define TDM_PLACEMENT_MAX_LANES 16
/* Cores (hwloc logical core numbers) where the calling thread and the progress thread last ran;
 * -1 if unknown or no progress thread. */
int tdm_placement_current_core(void);
/* Cores of this machine (hwloc; the online processors if hwloc fails). */
int tdm_placement_node_cores(void);
/* Bytes of the last-level cache (L3, else L2) of the machine's first one; 0 if hwloc cannot tell. */
size_t tdm_placement_last_cache_bytes(void);
int tdm_placement_progress_core(void);
/* Where color thread `lane` (1 ..) found itself once bound; -1 if it has not started or is unknown. */
int tdm_placement_lane_thread_core(int lane);

#endif

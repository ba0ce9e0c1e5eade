/*
 * Placement on the real machine: hwloc gives the cores, their NUMA nodes and each rank's binding;
 * the ranks of a node exchange their cores, the policy picks this rank's progress core, and the
 * progress thread binds itself there when it starts.
 */
#define _GNU_SOURCE /* sched_getcpu */
#include "placement.h"

#include "../base/error.h"
#include "../base/state.h"

#include <hwloc.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static hwloc_topology_t topology;
static int have_topology;
static int target_core = -1;   /* logical core of this rank's progress thread; -1: inherit */
static int lane_core[TDM_PLACEMENT_MAX_LANES]; /* of its color threads (lane 0: target_core) */
/* atomic: where each thread found itself once bound (0: the progress thread, l: color thread l); -1
 * before it starts */
static int found_core[TDM_PLACEMENT_MAX_LANES] = {[0 ... TDM_PLACEMENT_MAX_LANES - 1] = -1};

static pthread_once_t topology_once = PTHREAD_ONCE_INIT;

static void load_topology_once(void)
{
    if (hwloc_topology_init(&topology) != 0)
        return;
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return;
    }
    have_topology = 1;
}

/* Loaded once, by whichever thread asks first; read-only afterwards. */
static int load_topology(void)
{
    pthread_once(&topology_once, load_topology_once);
    return have_topology;
}

/* The logical core a cpuset lies within, or -1 if it spans several cores (or none). */
static int core_of_cpuset(hwloc_const_cpuset_t set)
{
    int ncores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    for (int c = 0; c < ncores; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)c);
        if (!hwloc_bitmap_iszero(set) && hwloc_bitmap_isincluded(set, core->cpuset))
            return c;
    }
    return -1;
}

/* NUMA node of each core (all 0 on a machine hwloc sees without NUMA nodes). */
static int *numa_of_cores(int ncores)
{
    int *numa = calloc((size_t)ncores, sizeof *numa);
    if (!numa)
        return NULL;
    int nnuma = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    for (int c = 0; c < ncores; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)c);
        for (int n = 0; n < nnuma; n++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, (unsigned)n);
            if (hwloc_bitmap_isincluded(core->cpuset, node->cpuset))
                numa[c] = n;
        }
    }
    return numa;
}

int tdm_placement_init(const char *fn, const tdm_placement_policy *policy)
{
    target_core = -1;
    for (int l = 0; l < TDM_PLACEMENT_MAX_LANES; l++)
        lane_core[l] = -1;
    if (policy->kind == TDM_PLACE_NONE)
        return MPI_SUCCESS;
    if (!load_topology())
        return tdm_error(fn, MPI_ERR_OTHER, "hwloc could not read the machine's topology");
    int ncores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);

    /* this rank's core, from its binding; the cores of the node's ranks, in node-rank order */
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int my_core = -1;
    if (set && hwloc_get_cpubind(topology, set, HWLOC_CPUBIND_PROCESS) == 0)
        my_core = core_of_cpuset(set);
    hwloc_bitmap_free(set);
    MPI_Comm node;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "finding the ranks of this node", rc);
    int task, ntasks;
    MPI_Comm_rank(node, &task);
    MPI_Comm_size(node, &ntasks);
    int *task_core = malloc(sizeof(int) * (size_t)ntasks), *numa = numa_of_cores(ncores);
    if (!task_core || !numa) {
        free(task_core), free(numa);
        MPI_Comm_free(&node);
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the placement");
    }
    rc = MPI_Allgather(&my_core, 1, MPI_INT, task_core, 1, MPI_INT, node);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) {
        free(task_core), free(numa);
        return tdm_mpi_error(fn, "exchanging the cores of this node's ranks", rc);
    }
    int unbound = 0;
    for (int t = 0; t < ntasks; t++)
        if (task_core[t] < 0) { /* not bound to one core: assume one rank per core, in order */
            task_core[t] = t % ncores;
            unbound = 1;
        }
    tdm_node_layout layout = {ncores, numa, ntasks, task_core};
    target_core = tdm_placement_core(policy, &layout, task);
    for (int l = 0; l < TDM_PLACEMENT_MAX_LANES; l++)
        lane_core[l] = tdm_placement_lane_core(policy, &layout, task, l);
    free(task_core), free(numa);
    if (target_core >= ncores) /* a color thread's core past the end is reported when it binds */
        return tdm_error(fn, MPI_ERR_ARG, "placement names core %d; this node has cores 0..%d", target_core,
                         ncores - 1);
    if (unbound && tdm_global.verbose && task == 0)
        fprintf(stderr, "tandem: ranks are not bound to single cores; placement assumes rank i on core i\n");
    return MPI_SUCCESS;
}

void tdm_placement_finalize(void)
{
    target_core = -1; /* the topology stays loaded: it describes the machine */
    for (int l = 0; l < TDM_PLACEMENT_MAX_LANES; l++) /* the threads have stopped */
        __atomic_store_n(&found_core[l], -1, __ATOMIC_RELAXED);
}

int tdm_placement_current_core(void)
{
    int cpu = sched_getcpu();
    if (cpu < 0 || !load_topology())
        return -1;
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, (unsigned)cpu);
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu) : NULL;
    return core ? (int)core->logical_index : -1;
}

static void bind_thread(int target, const char *what)
{
    if (target >= 0 && have_topology) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, (unsigned)target);
        if ((!core || hwloc_set_cpubind(topology, core->cpuset, HWLOC_CPUBIND_THREAD) != 0) && tdm_global.verbose)
            fprintf(stderr, "tandem: could not bind the %s to core %d\n", what, target);
    }
}

void tdm_placement_bind_progress_thread(void)
{
    bind_thread(target_core, "progress thread");
    __atomic_store_n(&found_core[0], tdm_placement_current_core(), __ATOMIC_RELAXED);
}

void tdm_placement_bind_lane_thread(int lane)
{
    bind_thread(lane_core[lane], "color thread"); /* lanes < TDM_PLACEMENT_MAX_LANES (thread.c asserts) */
    __atomic_store_n(&found_core[lane], tdm_placement_current_core(), __ATOMIC_RELAXED);
}

int tdm_placement_lane_thread_core(int lane)
{
    return lane > 0 && lane < TDM_PLACEMENT_MAX_LANES ? __atomic_load_n(&found_core[lane], __ATOMIC_RELAXED) : -1;
}

int tdm_placement_progress_core(void) { return __atomic_load_n(&found_core[0], __ATOMIC_RELAXED); }

size_t tdm_placement_last_cache_bytes(void)
{
    if (!load_topology())
        return 0;
    hwloc_obj_type_t levels[] = {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        hwloc_obj_t cache = hwloc_get_obj_by_type(topology, levels[i], 0);
        if (cache && cache->attr)
            return (size_t)cache->attr->cache.size;
    }
    return 0;
}

int tdm_placement_node_cores(void)
{
    if (load_topology()) {
        int n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

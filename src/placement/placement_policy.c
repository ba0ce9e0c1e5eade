/* The placement policies as pure functions of the node's layout (see placement.h). */
#include "placement.h"

#include "../base/error.h"

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

int tdm_place_numa(int cores, int tasks, int position)
{
    if (tasks >= cores)
        return position;
    int d = cores / (cores - tasks);
    return (position / d + 1) * d - 1;
}

int tdm_place_odd_even(int cores, int tasks, int rank)
{
    if (tasks >= cores)
        return rank;
    int stride = cores / (cores - tasks);
    return stride * (rank % (cores - tasks)) + stride - 1;
}

/* The NUMA policy: the task's position among the tasks of its NUMA node and that node's cores. */
static int numa_core(const tdm_node_layout *node, int task)
{
    int numa = node->numa_of_core[node->task_core[task]];
    int ncores = 0, ntasks = 0, position = 0;
    for (int c = 0; c < node->ncores; c++)
        ncores += node->numa_of_core[c] == numa;
    for (int t = 0; t < node->ntasks; t++) {
        if (node->numa_of_core[node->task_core[t]] != numa)
            continue;
        if (t < task)
            position++;
        ntasks++;
    }
    int local = tdm_place_numa(ncores, ntasks, position);
    for (int c = 0; c < node->ncores; c++) /* the local-th core of that NUMA node */
        if (node->numa_of_core[c] == numa && local-- == 0)
            return c;
    return node->task_core[task];
}

int tdm_placement_core(const tdm_placement_policy *policy, const tdm_node_layout *node, int task)
{
    switch (policy->kind) {
    case TDM_PLACE_NONE:
        return -1;
    case TDM_PLACE_BIND:
        return node->task_core[task];
    case TDM_PLACE_NUMA:
        return numa_core(node, task);
    case TDM_PLACE_ODD_EVEN:
        return tdm_place_odd_even(node->ncores, node->ntasks, task);
    case TDM_PLACE_LIST:
        return policy->list[task % policy->nlist];
    }
    return -1;
}

int tdm_placement_lane_core(const tdm_placement_policy *policy, const tdm_node_layout *node, int task, int lane)
{
    if (policy->kind == TDM_PLACE_LIST)
        return policy->list[(task + lane * node->ntasks) % policy->nlist];
    return tdm_placement_core(policy, node, task);
}

/* "0,2,4-7" into policy->list. */
static int parse_list(const char *fn, const char *text, tdm_placement_policy *policy)
{
    const char *p = text;
    policy->nlist = 0;
    while (*p) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0)
            break;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first)
                break;
            p = end;
        }
        for (long c = first; c <= last; c++) {
            if (policy->nlist == TDM_PLACEMENT_MAX_LIST)
                return tdm_error(fn, MPI_ERR_ARG, "cores:%s lists more than %d cores", text,
                                 TDM_PLACEMENT_MAX_LIST);
            policy->list[policy->nlist++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            break;
    }
    if (*p || policy->nlist == 0)
        return tdm_error(fn, MPI_ERR_ARG,
                         "placement \"cores:%s\": expected a list of core numbers such as cores:0,2,4-7", text);
    return MPI_SUCCESS;
}

int tdm_placement_parse(const char *fn, const char *text, tdm_placement_policy *policy)
{
    memset(policy, 0, sizeof *policy);
    if (!text)
        return tdm_error(fn, MPI_ERR_ARG, "placement is NULL (argument policy)");
    if (strcmp(text, "none") == 0)
        policy->kind = TDM_PLACE_NONE;
    else if (strcmp(text, "bind") == 0)
        policy->kind = TDM_PLACE_BIND;
    else if (strcmp(text, "numa") == 0)
        policy->kind = TDM_PLACE_NUMA;
    else if (strcmp(text, "odd-even") == 0)
        policy->kind = TDM_PLACE_ODD_EVEN;
    else if (strncmp(text, "cores:", 6) == 0) {
        policy->kind = TDM_PLACE_LIST;
        return parse_list(fn, text + 6, policy);
    } else
        return tdm_error(fn, MPI_ERR_ARG,
                         "unknown placement \"%s\"; known: none bind numa odd-even cores:LIST", text);
    return MPI_SUCCESS;
}

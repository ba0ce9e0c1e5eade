/*
 * The placement policies as pure functions, on synthetic nodes: the figures of the placement design
 * (64 cores, two NUMA nodes, 62 tasks: threads of tasks 0..30 on core 31, of 31..61 on core 63; odd-even
 * puts even ranks on 31, odd on 63), smaller nodes, full nodes, and the parsing of policies.
 */
#include "../src/placement/placement.h"

#include <mpi.h>
#include <stdio.h>

static int checks, failures;

static void expect(int got, int want, const char *what, int arg)
{
    checks++;
    if (got != want) {
        failures++;
        fprintf(stderr, "FAIL: %s (%d): got %d, expected %d\n", what, arg, got, want);
    }
}

/* ncores cores split evenly into nnuma NUMA nodes; tasks on the given cores. */
static int layout_core(const tdm_placement_policy *policy, int ncores, int nnuma, const int *task_core,
                       int ntasks, int task)
{
    int numa[256];
    for (int c = 0; c < ncores; c++)
        numa[c] = c / (ncores / nnuma);
    tdm_node_layout node = {ncores, numa, ntasks, task_core};
    return tdm_placement_core(policy, &node, task);
}

static void figures_of_the_design(void)
{
    /* 64 cores, NUMA nodes 0-31 and 32-63, 62 tasks: 31 on each node, on its first 31 cores */
    int task_core[62];
    for (int t = 0; t < 62; t++)
        task_core[t] = t < 31 ? t : t + 1;
    tdm_placement_policy numa = {.kind = TDM_PLACE_NUMA}, odd_even = {.kind = TDM_PLACE_ODD_EVEN};
    for (int t = 0; t < 62; t++) {
        expect(layout_core(&numa, 64, 2, task_core, 62, t), t < 31 ? 31 : 63, "numa, 64 cores, 62 tasks, task", t);
        expect(layout_core(&odd_even, 64, 2, task_core, 62, t), t % 2 ? 63 : 31, "odd-even, 64 cores, 62 tasks, rank", t);
    }
    for (int m = 0; m < 31; m++)
        expect(tdm_place_numa(32, 31, m), 31, "P_numa(32, 31, M), M", m);
}

static void smaller_nodes(void)
{
    /* 16 cores, one NUMA node, 12 tasks: d = 4, so tasks 0-3 -> 3, 4-7 -> 7, 8-11 -> 11 */
    for (int m = 0; m < 12; m++)
        expect(tdm_place_numa(16, 12, m), (m / 4 + 1) * 4 - 1, "P_numa(16, 12, M), M", m);
    /* odd-even with 4 free cores: ranks cycle over cores 3, 7, 11, 15 */
    for (int r = 0; r < 12; r++)
        expect(tdm_place_odd_even(16, 12, r), 4 * (r % 4) + 3, "P_odd_even(16, 12, r), r", r);
    /* 8 cores in two NUMA nodes, 6 tasks on cores 0-2 and 4-6 */
    int task_core[6] = {0, 1, 2, 4, 5, 6};
    tdm_placement_policy numa = {.kind = TDM_PLACE_NUMA}, bind = {.kind = TDM_PLACE_BIND};
    for (int t = 0; t < 6; t++) {
        expect(layout_core(&numa, 8, 2, task_core, 6, t), t < 3 ? 3 : 7, "numa, 8 cores, 6 tasks, task", t);
        expect(layout_core(&bind, 8, 2, task_core, 6, t), task_core[t], "bind, task", t);
    }
    /* a full node: no free core, every thread stays with its task */
    for (int m = 0; m < 8; m++) {
        expect(tdm_place_numa(8, 8, m), m, "P_numa(8, 8, M), M", m);
        expect(tdm_place_odd_even(8, 8, m), m, "P_odd_even(8, 8, r), r", m);
    }
    tdm_placement_policy none = {.kind = TDM_PLACE_NONE};
    expect(layout_core(&none, 8, 2, task_core, 6, 0), -1, "none", 0);
}

/* Color threads: an explicit list is dealt task by task, then lane by lane; other policies keep every
 * lane on the task's one communication core. */
static void color_threads(void)
{
    int numa[4] = {0, 0, 0, 0}, task_core[2] = {0, 1};
    tdm_node_layout node = {4, numa, 2, task_core};
    tdm_placement_policy list = {.kind = TDM_PLACE_LIST, .list = {0, 1, 2, 3}, .nlist = 4};
    for (int t = 0; t < 2; t++)
        for (int l = 0; l < 4; l++)
            expect(tdm_placement_lane_core(&list, &node, t, l), (t + 2 * l) % 4, "cores:0-3, 2 tasks, lane of task 0/1",
                   10 * t + l);
    tdm_placement_policy bind = {.kind = TDM_PLACE_BIND}, none = {.kind = TDM_PLACE_NONE};
    for (int l = 0; l < 3; l++) {
        expect(tdm_placement_lane_core(&bind, &node, 1, l), 1, "bind, task 1, lane", l);
        expect(tdm_placement_lane_core(&none, &node, 1, l), -1, "none, task 1, lane", l);
    }
}

static void parsing(void)
{
    tdm_placement_policy p;
    expect(tdm_placement_parse("test", "cores:0,2,4-7", &p), MPI_SUCCESS, "parse cores:0,2,4-7", 0);
    int want[] = {0, 2, 4, 5, 6, 7};
    expect(p.nlist, 6, "cores:0,2,4-7 count", 0);
    for (int i = 0; i < 6 && i < p.nlist; i++)
        expect(p.list[i], want[i], "cores:0,2,4-7 entry", i);
    int task_core[3] = {0, 1, 2};
    tdm_node_layout node = {8, (int[8]){0}, 3, task_core};
    expect(tdm_placement_core(&p, &node, 2), 4, "list, third task", 2);
    const char *good[] = {"none", "bind", "numa", "odd-even", "cores:3"};
    for (int i = 0; i < 5; i++)
        expect(tdm_placement_parse("test", good[i], &p), MPI_SUCCESS, good[i], i);
    const char *bad[] = {"", "numa2", "cores:", "cores:a", "cores:3-1", "cores:1,,2", "cores:-1"};
    for (int i = 0; i < 7; i++)
        expect(tdm_placement_parse("test", bad[i], &p), MPI_ERR_ARG, bad[i], i);
    expect(tdm_placement_parse("test", NULL, &p), MPI_ERR_ARG, "NULL policy", 0);
}

int main(void)
{
    figures_of_the_design();
    smaller_nodes();
    color_threads();
    parsing();
    printf("test_placement: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

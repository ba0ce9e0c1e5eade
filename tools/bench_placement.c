/* tandem-bench --show-placement: where every rank, its progress thread and its color threads run. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A torus bucket allreduce, which runs in lanes: it starts the color threads that get a lane (on the
 * torus of the application's world, 2 per dimension longer than 1; higher threads stay unstarted, -1). Called
 * on every rank. */
static void start_color_threads(void)
{
    enum { COUNT = 1 << 16 };
    double *x = calloc(COUNT, sizeof *x), *y = calloc(COUNT, sizeof *y);
    int count = x && y ? COUNT : 0;
    MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_MIN, bench_world);
    if (TDM_Set_algorithm("allreduce", "torus_bucket") == MPI_SUCCESS) {
        TDM_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, bench_world);
        TDM_Set_algorithm("allreduce", "auto");
    }
    free(x), free(y);
}

int bench_show_placement(void)
{
    int rank, size;
    MPI_Comm_rank(bench_world, &rank);
    MPI_Comm_size(bench_world, &size);
    /* in dcp progress, this rank's dedicated collective process (the DCPs themselves never got here) */
    int dcp, first, clients, same_node;
    TDM_Get_dcp_placement(&dcp, &first, &clients, &same_node);
    /* the progress thread exists once thread mode is on; a collective makes sure it has run */
    int rc = dcp >= 0 ? MPI_SUCCESS : TDM_Set_progress("thread");
    if (rc != MPI_SUCCESS && rank == 0)
        printf("no progress thread: %s\n", TDM_Last_error());
    double x = 1, y;
    TDM_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, bench_world);
    /* TANDEM_COLOR_THREADS should be the same everywhere; rows are as wide as the largest */
    int mycolor = 0, ncolor = 0;
    TDM_Get_color_placement(0, NULL, &mycolor);
    MPI_Allreduce(&mycolor, &ncolor, 1, MPI_INT, MPI_MAX, bench_world);
    if (ncolor > 0)
        start_color_threads();
    /* per rank: app core, progress core, its DCP, the DCP's block and node, then the color threads' cores */
    int width = 6 + ncolor, *mine = malloc(sizeof(int) * (size_t)width);
    int *all = rank == 0 ? malloc(sizeof(int) * (size_t)width * (size_t)size) : NULL;
    if (!mine || (rank == 0 && !all)) {
        fprintf(stderr, "tandem-bench: out of memory for the placement table\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < width; i++)
        mine[i] = -1;
    TDM_Get_placement(&mine[0], &mine[1]);
    mine[2] = dcp, mine[3] = first, mine[4] = clients, mine[5] = same_node;
    TDM_Get_color_placement(ncolor, mine + 6, &mycolor);
    char host[MPI_MAX_PROCESSOR_NAME], *hosts = rank == 0 ? malloc((size_t)MPI_MAX_PROCESSOR_NAME * size) : NULL;
    int len;
    memset(host, 0, sizeof host);
    MPI_Get_processor_name(host, &len);
    MPI_Gather(mine, width, MPI_INT, all, width, MPI_INT, 0, bench_world);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, bench_world);
    if (rank == 0) {
        const char *policy = getenv("TANDEM_PROGRESS_PLACEMENT");
        printf("placement %s (cores are hwloc logical core numbers; -1: unknown)\n", policy ? policy : "none");
        if (dcp >= 0)
            printf("dcp progress: the ranks below are the application's (TDM_Comm_world()); DCP is the "
                   "MPI_COMM_WORLD rank of each one's dedicated collective process, which serves the block\n");
        printf("%6s  %-20s %9s %14s%s%s\n", "rank", "host", "app core", "progress core",
               dcp >= 0 ? "     DCP  block    DCP's node" : "", ncolor ? "  color thread cores (1..)" : "");
        for (int r = 0; r < size; r++) {
            const int *row = all + (size_t)r * width;
            printf("%6d  %-20s %9d %14d", r, hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME, row[0], row[1]);
            if (dcp >= 0) {
                char block[32];
                snprintf(block, sizeof block, "%d-%d", row[3], row[3] + row[4] - 1);
                printf("  %6d  %-8s %s", row[2], block, row[5] ? "this one" : "another");
            }
            for (int t = 0; t < ncolor; t++)
                printf("%s%d", t ? "," : "  ", row[6 + t]);
            printf("\n");
        }
    }
    free(mine);
    free(all);
    free(hosts);
    if (dcp < 0)
        TDM_Set_progress("inline");
    return 0;
}

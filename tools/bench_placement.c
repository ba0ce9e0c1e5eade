/* tandem-bench --show-placement: where every rank and its progress thread run. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

int bench_show_placement(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the progress thread exists once thread mode is on; a collective makes sure it has run */
    int rc = TDM_Set_progress("thread");
    if (rc != MPI_SUCCESS && rank == 0)
        printf("no progress thread: %s\n", TDM_Last_error());
    double x = 1, y;
    TDM_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int mine[2], *all = rank == 0 ? malloc(sizeof(int) * 2 * (size_t)size) : NULL;
    TDM_Get_placement(&mine[0], &mine[1]);
    char host[MPI_MAX_PROCESSOR_NAME], *hosts = rank == 0 ? malloc((size_t)MPI_MAX_PROCESSOR_NAME * size) : NULL;
    int len;
    memset(host, 0, sizeof host);
    MPI_Get_processor_name(host, &len);
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const char *policy = getenv("TANDEM_PROGRESS_PLACEMENT");
        printf("placement %s (cores are hwloc logical core numbers; -1: unknown)\n", policy ? policy : "none");
        printf("%6s  %-20s %9s %14s\n", "rank", "host", "app core", "progress core");
        for (int r = 0; r < size; r++)
            printf("%6d  %-20s %9d %14d\n", r, hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME, all[2 * r],
                   all[2 * r + 1]);
    }
    free(all);
    free(hosts);
    TDM_Set_progress("inline");
    return 0;
}

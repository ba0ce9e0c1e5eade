/*
 * A dedicated collective process dies (SIGKILL) while its clients call collectives: the job must end
 * with an error, not hang. MPI is initialized first so that every rank learns the others' process ids;
 * TDM_Init then divides the job (the DCPs stay inside it), and an application rank kills its DCP and
 * calls an allreduce through it. The launcher reports the killed process and ends the job (the ctest
 * expects its message); the test fails if the allreduce returns or the job outlives its timeout.
 */
#include "harness.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int provided, world, me;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    pid_t *pids = malloc(sizeof(pid_t) * (size_t)world), mine = getpid();
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, pids, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    if (TDM_Init(&argc, &argv) != MPI_SUCCESS) { /* a DCP never returns from it */
        fprintf(stderr, "test_dcp_dies: TDM_Init failed: %s\n", TDM_Last_error());
        return 2;
    }
    int dcp, first, clients, same_node, rank;
    MPI_Comm app = TDM_Comm_world();
    MPI_Comm_rank(app, &rank);
    TDM_Get_dcp_placement(&dcp, &first, &clients, &same_node);
    if (rank == 0) {
        fprintf(stderr, "test_dcp_dies: killing the dedicated collective process (MPI_COMM_WORLD rank %d)\n", dcp);
        kill(pids[dcp], SIGKILL);
    }
    double x = 1, y = 0;
    int rc = TDM_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, app);
    fprintf(stderr, "test_dcp_dies: FAIL: the allreduce returned (%d) with its DCP dead\n", rc);
    free(pids);
    TDM_Finalize();
    return 1;
}

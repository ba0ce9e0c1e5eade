/*
 * Many communicators alive at once, a Tandem collective on each: every call either gives MPI's result
 * or, where MPI refuses what Tandem needs (a communicator of its own, past MPI's limit: MPICH gives a
 * process 2,046), returns an error class with a message that says so, on every rank. Then the program
 * frees them all and goes on: a collective on the world still works, and TDM_Finalize ends cleanly (no
 * crash in MPI_Comm_free, no hang). Prints how many communicators MPI gave and on how many Tandem ran.
 *   test_comm_limits [communicators (default 2100)]
 */
#include "harness.h"

#include <string.h>

/* Whether every rank says yes. */
static int all(int yes)
{
    int every = 0;
    MPI_Allreduce(&yes, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return every;
}

int main(int argc, char **argv)
{
    harness_init("test_comm_limits", &argc, &argv);
    int wanted = argc > 1 ? atoi(argv[1]) : 2100, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm *comms = malloc(sizeof *comms * (size_t)wanted);
    int made = 0;
    while (made < wanted && all(MPI_Comm_dup(MPI_COMM_WORLD, &comms[made]) == MPI_SUCCESS))
        MPI_Comm_set_errhandler(comms[made++], MPI_ERRORS_RETURN);

    int served = 0, refused = -1;
    for (int i = 0; i < made; i++) {
        int mine = rank + i, sum = -1, want = size * (size - 1) / 2 + size * i;
        int rc = TDM_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comms[i]);
        if (rc == MPI_SUCCESS) {
            check(sum == want, "communicator %d: allreduce gives %d, not %d", i, sum, want);
        } else {
            int error_class = MPI_SUCCESS;
            MPI_Error_class(rc, &error_class);
            check(error_class == rc && rc != MPI_ERR_UNKNOWN, "communicator %d: %d is not an error class", i, rc);
            check(strstr(TDM_Last_error(), "TDM_Allreduce: creating Tandem's private duplicate") != NULL,
                  "communicator %d: the message does not say what ran out: %s", i, TDM_Last_error());
        }
        if (!all(rc == MPI_SUCCESS)) { /* every rank refused alike: a rank that ran would wait forever */
            check(rc != MPI_SUCCESS, "communicator %d: this rank ran the call, another refused it", i);
            refused = i;
            break;
        }
        served++;
    }
    for (int i = 0; i < made; i++)
        MPI_Comm_free(&comms[i]);
    free(comms);

    /* the program goes on */
    int one = 1, ranks = 0;
    CHECK_TDM(TDM_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(ranks == size, "after the communicators were freed: allreduce gives %d, not %d", ranks, size);
    if (rank == 0)
        printf("test_comm_limits: MPI gave %d communicators of %d asked; Tandem ran on %d%s\n", made, wanted, served,
               refused >= 0 ? ", then refused with a clear error" : "");
    return harness_finish();
}

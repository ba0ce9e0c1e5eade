/*
 * Many communicators alive at once, a Tandem collective on each. Tandem takes one communicator of
 * MPI's in all (the shared one, engine/shadow_slots.h), so it runs on every communicator MPI gives the
 * program (MPICH gives a process 2,046). With TANDEM_OWN_DUPLICATES=1 each communicator takes a
 * duplicate of its own, and past MPI's limit every call returns an error class with a message that
 * says what ran out, on every rank. Either way the program then frees them all and goes on: a
 * collective on the world still works, and TDM_Finalize ends cleanly (no crash in MPI_Comm_free, no
 * hang). Prints how many communicators MPI gave and on how many Tandem ran.
 * First, communicators of overlapping groups (duplicates of the world, halves, odd and even ranks)
 * whose first collectives each rank starts in an order of its own: their slots are agreed while
 * other agreements cross them, and every result must still be MPI's.
 * Then batches of 3 to 24 new communicators whose first calls are pending together, one wait for all.
 * With TANDEM_OWN_SLOTS=n (fewer own slots than the rounds need) they must come back when freed.
 *   test_comm_limits [communicators (default 2100)] [rounds of crossing first calls (default 3)]
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

/* Rounds of 3 x KINDS communicators created together, first used in a rank-dependent order, freed in
 * another. */
#define KINDS 8
static void crossing_first_calls(int rank, int size, int rounds)
{
    for (int round = 0; round < rounds; round++) {
        MPI_Comm comms[3 * KINDS];
        for (int k = 0; k < KINDS; k++) {
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[3 * k]);
            MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &comms[3 * k + 1]);
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comms[3 * k + 2]);
        }
        int n = 3 * KINDS, order[3 * KINDS], sums[3 * KINDS], mine[3 * KINDS];
        TDM_Request reqs[3 * KINDS];
        for (int i = 0; i < n; i++) /* rank r starts them rotated by 5r, every other one reversed */
            order[i] = ((rank % 2 ? n - 1 - i : i) + 5 * rank) % n;
        for (int i = 0; i < n; i++) {
            int c = order[i];
            mine[c] = rank * 100 + c + round;
            CHECK_TDM(TDM_Iallreduce(&mine[c], &sums[c], 1, MPI_INT, MPI_SUM, comms[c], &reqs[c]));
        }
        CHECK_TDM(TDM_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        for (int c = 0; c < n; c++) {
            int want = 0;
            MPI_Allreduce(&mine[c], &want, 1, MPI_INT, MPI_SUM, comms[c]);
            check(sums[c] == want, "round %d, communicator %d: Tandem's allreduce gives %d, MPI's %d", round, c,
                  sums[c], want);
        }
        for (int i = 0; i < n; i++) /* freed in yet another order: slots come free at different times */
            MPI_Comm_free(&comms[(i * 7 + rank) % n]);
    }
}

/* Batches of new communicators, each batch larger than the last, whose first calls are all pending
 * when one wait gathers their creations (a duplicate each: its idup and its ring's agreement). */
static void growing_batches_of_first_calls(int rank, int size)
{
    for (int n = 3; n <= 24; n *= 2) {
        MPI_Comm comms[24];
        TDM_Request requests[24];
        int mine[24], sums[24];
        for (int i = 0; i < n; i++) /* first: MPI_Comm_dup would move the creations on */
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        for (int i = 0; i < n; i++) {
            mine[i] = rank + i;
            CHECK_TDM(TDM_Iallreduce(&mine[i], &sums[i], 1, MPI_INT, MPI_SUM, comms[i], &requests[i]));
        }
        CHECK_TDM(TDM_Waitall(n, requests, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            check(sums[i] == size * (size - 1) / 2 + size * i, "batch of %d, communicator %d: %d", n, i, sums[i]);
            MPI_Comm_free(&comms[i]);
        }
    }
}

int main(int argc, char **argv)
{
    harness_init("test_comm_limits", &argc, &argv);
    int wanted = argc > 1 ? atoi(argv[1]) : 2100, rounds = argc > 2 ? atoi(argv[2]) : 3, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *own = getenv("TANDEM_OWN_DUPLICATES");
    int own_duplicates = own && *own && strcmp(own, "0") != 0;
    /* (not with a duplicate each: MPICH 4.0's MPI_Comm_idup, started on communicators in different
     * orders on different ranks, loops allocating memory until the job is killed) */
    if (!own_duplicates)
        crossing_first_calls(rank, size, rounds);
    growing_batches_of_first_calls(rank, size);
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
    if (!own_duplicates)
        check(served == made, "Tandem ran on %d of the %d communicators MPI gave", served, made);
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

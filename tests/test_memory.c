/*
 * Long runs of collectives must not grow the process: the resident set after the first 10% of a run
 * and at its end are compared. The first run (100,000 iterations by default) repeats calls the
 * schedule cache serves; the second (as many) takes the paths that build and free a schedule
 * every call (a derived datatype, a user-defined op), calls refused for a bad argument, and
 * communicators created and freed with their shadows. Not run under AddressSanitizer, whose quarantine
 * holds freed memory (and whose leak checker that build turns off: MPI's own allocations at exit
 * would bury Tandem's).
 */
#include "harness.h"

#include <stdio.h>
#include <unistd.h>

static long resident_kib(void)
{
    long pages_total = 0, pages_resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2)
        pages_resident = -1;
    fclose(f);
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* MPI_SUM on pairs of ints described by a vector type (ints 0 and 2 of each 3) */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        b[3 * i] += a[3 * i];
        b[3 * i + 2] += a[3 * i + 2];
    }
}

/* Growth of the resident set over iterations of one_iteration (from 10% of them to the end), in KiB. */
static long growth_kib(long iterations, int (*one_iteration)(long i, void *arg), void *arg, int *bad)
{
    long warm = -1;
    for (long i = 0; i < iterations; i++) {
        if (i == iterations / 10)
            warm = resident_kib();
        if (!one_iteration(i, arg))
            (*bad)++;
    }
    return resident_kib() - warm;
}

typedef struct {
    int rank, size;
    MPI_Datatype pair;
    MPI_Op pair_op;
} uncached_args;

static int cached_iteration(long i, void *arg)
{
    const uncached_args *u = arg;
    int in[2] = {u->rank, (int)i}, out[2] = {0, 0}, gathered[64];
    TDM_Request reqs[3];
    int rc = TDM_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    rc |= TDM_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
    rc |= TDM_Iallgather(in, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD, &reqs[2]);
    rc |= TDM_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS && out[0] == u->size * (u->size - 1) / 2 && out[1] == (int)i * u->size;
}

/* Calls the schedule cache does not keep, a refused call, and every 500th iteration a communicator. */
static int uncached_iteration(long i, void *arg)
{
    const uncached_args *u = arg;
    int in[6] = {u->rank, -1, (int)i, 1, -1, 2}, out[6] = {0, -7, 0, 0, -7, 0}, root_value[3] = {0, 0, 0};
    if (u->rank == 0)
        root_value[0] = (int)i, root_value[2] = 5;
    TDM_Request reqs[2];
    int rc = TDM_Iallreduce(in, out, 2, u->pair, u->pair_op, MPI_COMM_WORLD, &reqs[0]);
    rc |= TDM_Ibcast(root_value, 1, u->pair, 0, MPI_COMM_WORLD, &reqs[1]);
    rc |= TDM_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    int ok = rc == MPI_SUCCESS && out[0] == u->size * (u->size - 1) / 2 && out[1] == -7 &&
             out[2] == (int)i * u->size && out[3] == u->size && out[4] == -7 && out[5] == 2 * u->size &&
             root_value[0] == (int)i && root_value[1] == 0 && root_value[2] == 5;
    ok &= TDM_Iallreduce(in, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]) == MPI_ERR_COUNT;
    if (i % 500 == 0) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        int sum = -1;
        ok &= TDM_Allreduce(&u->rank, &sum, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS &&
              sum == u->size * (u->size - 1) / 2;
        MPI_Comm_free(&dup);
    }
    return ok;
}

/* The MPI alone: the derived datatype duplicated and freed twice, as the two uncached calls do. */
static int mpi_type_dup_iteration(long i, void *arg)
{
    (void)i;
    const uncached_args *u = arg;
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        MPI_Datatype copy;
        ok &= MPI_Type_dup(u->pair, &copy) == MPI_SUCCESS && MPI_Type_free(&copy) == MPI_SUCCESS;
    }
    return ok;
}

int main(int argc, char **argv)
{
    harness_init("test_memory", &argc, &argv);
    long iterations = argc > 1 ? atol(argv[1]) : 100000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uncached_args u = {.rank = rank, .size = size};
    MPI_Type_vector(2, 1, 2, MPI_INT, &u.pair);
    MPI_Type_commit(&u.pair);
    MPI_Op_create(pair_sum, 1, &u.pair_op);

    int bad = 0;
    long grown = growth_kib(iterations, cached_iteration, &u, &bad);
    check(bad == 0, "%d of %ld cached iterations gave wrong results", bad, iterations);
    /* 3 x iterations collectives; a leak of even 8 bytes per call would show as > 1.5 MiB */
    check(grown < 1024, "resident set grew by %ld KiB over %ld cached collectives", grown, 3 * iterations);

    /* A leak on one of these paths loses a malloc chunk (>= 32 bytes) per iteration: > 2.5 MiB. Each
     * uncached call duplicates its derived datatype (the caller may free it before the call completes),
     * and some MPIs leak a little with every derived datatype freed (MPICH 4.0.2, in some processes:
     * about 58 bytes): what the MPI alone grows by over as many duplicates is allowed. */
    long uncached = iterations;
    bad = 0;
    long grown_by_mpi = growth_kib(uncached, mpi_type_dup_iteration, &u, &bad);
    long grown_uncached = growth_kib(uncached, uncached_iteration, &u, &bad);
    check(bad == 0, "%d of %ld uncached iterations gave wrong results", bad, uncached);
    check(grown_uncached < grown_by_mpi + 1024,
          "resident set grew by %ld KiB over %ld uncached iterations (MPI's own datatype duplicates: %ld KiB)",
          grown_uncached, uncached, grown_by_mpi);
    if (rank == 0)
        printf("test_memory: resident set grew by %ld KiB over %ld cached collectives, by %ld KiB over %ld "
               "uncached and refused calls and %ld communicators (MPI alone, by %ld KiB over their "
               "datatype duplicates)\n",
               grown, 3 * iterations, grown_uncached, 3 * uncached, uncached / 500 + 1, grown_by_mpi);
    MPI_Op_free(&u.pair_op);
    MPI_Type_free(&u.pair);
    return harness_finish();
}

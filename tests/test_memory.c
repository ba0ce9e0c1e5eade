/*
 * A long run of small collectives (100,000 by default) must not grow the process: the resident set
 * after the first 10% and at the end are compared. Not meaningful under AddressSanitizer, whose
 * quarantine holds freed memory; its leak checker covers that build instead.
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

int main(int argc, char **argv)
{
    harness_init("test_memory", &argc, &argv);
    long iterations = argc > 1 ? atol(argv[1]) : 100000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long warm = -1;
    int bad = 0;
    for (long i = 0; i < iterations; i++) {
        if (i == iterations / 10)
            warm = resident_kib();
        int in[2] = {rank, (int)i}, out[2] = {0, 0}, gathered[64];
        TDM_Request reqs[3];
        int rc = TDM_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
        rc |= TDM_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
        rc |= TDM_Iallgather(in, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD, &reqs[2]);
        rc |= TDM_Waitall(3, reqs, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || out[0] != size * (size - 1) / 2 || out[1] != (int)i * size)
            bad++;
    }
    long end = resident_kib();
    check(bad == 0, "%d of %ld iterations gave wrong results", bad, iterations);
    /* 3 x iterations collectives; a leak of even 8 bytes per call would show as > 1.5 MiB */
    check(end - warm < 1024, "resident set grew from %ld KiB to %ld KiB over %ld collectives", warm, end,
          3 * iterations);
    if (rank == 0)
        printf("test_memory: %ld collectives, resident %ld KiB after 10%%, %ld KiB at the end\n",
               3 * iterations, warm, end);
    return harness_finish();
}

/*
 * A count beyond INT_MAX for real: 2^31 + 8 bytes per rank through TDM_Allreduce_c (in chunks:
 * chunked_calls.h), every byte checked against what the standard defines, the bitwise xor of the
 * ranks' bytes. The other collectives' chunks, and displacements past INT_MAX, are checked against
 * MPI's own on small data by test_large_count with small chunks.
 * Not MPI_SUM: Open MPI 4.1's vectorized MPI_SUM on MPI_UNSIGNED_CHAR saturates at 255 (op/avx), and
 * Tandem's reductions are MPI's own MPI_Reduce_local. Not against MPI_Allreduce_c: MPICH's takes twice
 * Tandem's time here. About 6 GiB on two ranks: the test says it skips where less memory is free.
 */
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEEDED_GIB 8

static const MPI_Count n = ((MPI_Count)1 << 31) + 8;
#define MAXRANKS 2
static int rank, p;

/* Rank r's bytes: a pattern of a prime period, so that a block moved by any amount short of a whole
 * period is seen; filled and checked a period at a time, at memory speed. */
#define PERIOD 65521
static unsigned char period[MAXRANKS][PERIOD];

static void make_periods(void)
{
    for (int r = 0; r < MAXRANKS; r++)
        for (int i = 0; i < PERIOD; i++)
            period[r][i] = (unsigned char)(i * 131 + r * 17 + i / 251);
}

static void fill(unsigned char *buf, const unsigned char *with)
{
    for (MPI_Count i = 0; i < n; i += PERIOD)
        memcpy(buf + i, with, (size_t)(n - i < PERIOD ? n - i : PERIOD));
}

static unsigned char *filled(int r)
{
    unsigned char *buf = malloc((size_t)n);
    if (buf)
        fill(buf, period[r]);
    return buf;
}

/* The first index where buf differs from the periodic pattern `with` (to within a period), or -1. */
static MPI_Count first_wrong(const unsigned char *buf, const unsigned char *with)
{
    for (MPI_Count i = 0; i < n; i += PERIOD)
        if (memcmp(buf + i, with, (size_t)(n - i < PERIOD ? n - i : PERIOD)) != 0)
            return i;
    return -1;
}

static long long available_gib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    long long kib = -1;
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : kib >> 20;
}

static void allreduce(void)
{
    unsigned char *in = filled(rank), *out = calloc((size_t)n, 1);
    check(in && out, "out of memory");
    if (in && out) {
        CHECK_TDM(TDM_Allreduce_c(in, out, n, MPI_UNSIGNED_CHAR, MPI_BXOR, MPI_COMM_WORLD));
        unsigned char xor[PERIOD];
        for (int i = 0; i < PERIOD; i++)
            xor[i] = period[0][i] ^ period[1][i];
        MPI_Count wrong = first_wrong(out, xor);
        check(wrong < 0, "allreduce of %lld bytes: byte %lld is not the xor (within a period)", (long long)n, (long long)wrong);
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    harness_init("test_large_count_huge", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long long gib = available_gib(), least = gib;
    MPI_Allreduce(&gib, &least, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (p != MAXRANKS || least < NEEDED_GIB) {
        if (rank == 0)
            printf("test_large_count_huge: skipped: needs 2 ranks and %d GiB free (%d ranks, %lld GiB)\n",
                   NEEDED_GIB, p, least);
        return harness_finish();
    }
    make_periods();
    allreduce();
    return harness_finish();
}

/*
 * Memory refused: a limit on the process's data (RLIMIT_DATA, a few MiB above what it uses, set around
 * one call only) makes an allreduce's temporary, then an overlap pattern's third tile, fail to
 * allocate. Each call returns MPI_ERR_NO_MEM on every rank, with a message saying what ran out; the
 * pattern first waits for its tiles in flight, so that no collective writes into its buffers once it
 * has returned. Then the program goes on: the same calls, smaller, give MPI's results.
 *   test_out_of_memory          all of it
 *   test_out_of_memory settle   up to the pattern's failure, then TDM_Finalize at once: run with
 *                               TANDEM_VERBOSE=1, it must not report collectives still running
 * (Not under the sanitizers: their shadow memory counts as data.)
 */
#include "harness.h"
#include "tandem_patterns.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int rank, size;
static struct rlimit saved;

/* Allocations past `more` bytes from now fail, until unlimit(). */
static void limit(long more)
{
    long now = harness_data_bytes();
    check(now > 0, "VmData not found in /proc/self/status");
    getrlimit(RLIMIT_DATA, &saved);
    struct rlimit tight = {(rlim_t)(now + more), saved.rlim_max};
    check(setrlimit(RLIMIT_DATA, &tight) == 0, "setrlimit(RLIMIT_DATA) refused");
}

static void unlimit(void) { setrlimit(RLIMIT_DATA, &saved); }

/* The call failed with MPI_ERR_NO_MEM on this rank and on every other one. */
static void refused_everywhere(int rc, const char *what, const char *message_part)
{
    const char *message = TDM_Last_error();
    check(rc == MPI_ERR_NO_MEM, "%s: returned %d, expected MPI_ERR_NO_MEM (%s)", what, rc, message);
    check(rc != MPI_ERR_NO_MEM || strstr(message, message_part), "%s: message '%s' does not say '%s'", what, message,
          message_part);
    int mine = rc == MPI_ERR_NO_MEM, all = 0;
    REFERENCE(MPI_Iallreduce, &mine, &all, 1, MPI_INT, MPI_LAND, harness_world());
    check(all, "%s: not refused on every rank", what);
}

/* An allreduce of 64 MiB of ints with 4 MiB to spare: whatever the point-to-point algorithm, its
 * temporary does not fit (the node-aware one needs none that large: its data go through the node's
 * shared segment in cells). */
static void allreduce_temporary(void)
{
    enum { LARGE = 16 << 20, SMALL = 1000 };
    int *send = malloc(sizeof(int) * LARGE), *recv = malloc(sizeof(int) * LARGE); /* never touched */
    CHECK_TDM(TDM_Set_algorithm("allreduce", "recursive_doubling"));
    limit(4 << 20);
    int rc = TDM_Allreduce(send, recv, LARGE, MPI_INT, MPI_SUM, harness_world());
    unlimit();
    CHECK_TDM(TDM_Set_algorithm("allreduce", "auto"));
    refused_everywhere(rc, "TDM_Allreduce of 64 MiB", "out of memory");
    free(send), free(recv);

    int mine[SMALL], got[SMALL], want[SMALL];
    for (int i = 0; i < SMALL; i++)
        mine[i] = rank * 1000 + i;
    REFERENCE(MPI_Iallreduce, mine, want, SMALL, MPI_INT, MPI_SUM, harness_world());
    CHECK_TDM(TDM_Allreduce(mine, got, SMALL, MPI_INT, MPI_SUM, harness_world()));
    check(memcmp(got, want, sizeof got) == 0, "the allreduce after the refused one is not MPI's");
}

/* Item i of every rank: item_count bytes of (rank * 7 + i) mod 256. */
static int compute(int item, void *const out[], int counts[], void *user)
{
    (void)user;
    memset(out[0], (rank * 7 + item) & 0xff, (size_t)counts[0]);
    return 0;
}

typedef struct gathered {
    int item_count, tiles, wrong;
} gathered;

static int consume(int first_item, int items, const void *in, const int counts[], const int displs[], void *user)
{
    gathered *g = user;
    g->tiles++;
    const unsigned char *bytes = in;
    for (int r = 0; r < size; r++)
        for (int j = 0; j < items; j++)
            for (int k = 0; k < g->item_count; k++)
                g->wrong += bytes[(size_t)displs[r] + (size_t)j * g->item_count + k] != ((r * 7 + first_item + j) & 0xff);
    (void)counts;
    return 0;
}

static TDM_Pattern_spec allgather_spec(int item_count, gathered *g)
{
    g->item_count = item_count, g->tiles = g->wrong = 0;
    return (TDM_Pattern_spec){.kind = TDM_PATTERN_ALLGATHER, .comm = harness_world(), .datatype = MPI_CHAR,
                              .items = 3, .item_count = item_count, .tile = 1, .window = 2,
                              .compute = compute, .consume = consume, .user = g};
}

/* Three tiles of 8 MiB per rank, room for two: the third's buffers fail while the second's allgather
 * (on the inline agent, several rounds) is still running. */
static void pattern_third_tile(void)
{
    enum { ITEM = 8 << 20 };
    gathered g;
    TDM_Pattern_spec spec = allgather_spec(ITEM, &g);
    TDM_Pattern pattern;
    CHECK_TDM(TDM_Pattern_create(&spec, &pattern));
    long slot = (long)ITEM * (size + 1); /* a tile's send and receive buffers */
    limit(2 * slot + ITEM / 2);
    int rc = TDM_Pattern_run(pattern);
    unlimit();
    refused_everywhere(rc, "TDM_Pattern_run, its third tile", "no memory for a tile");
    CHECK_TDM(TDM_Pattern_free(&pattern));
}

static void pattern_goes_on(void)
{
    gathered g;
    TDM_Pattern_spec spec = allgather_spec(1000, &g);
    TDM_Pattern pattern;
    CHECK_TDM(TDM_Pattern_create(&spec, &pattern));
    CHECK_TDM(TDM_Pattern_run(pattern));
    check(g.tiles == 3 && g.wrong == 0, "the pattern after the refused one: %d tiles consumed, %d bytes wrong", g.tiles,
          g.wrong);
    CHECK_TDM(TDM_Pattern_free(&pattern));
}

int main(int argc, char **argv)
{
    harness_init("test_out_of_memory", &argc, &argv);
    MPI_Comm_rank(harness_world(), &rank);
    MPI_Comm_size(harness_world(), &size);
    int settle_only = argc > 1 && strcmp(argv[1], "settle") == 0;
    if (!settle_only)
        allreduce_temporary();
    pattern_third_tile();
    if (!settle_only)
        pattern_goes_on();
    return harness_finish();
}

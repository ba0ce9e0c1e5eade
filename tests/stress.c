/*
 * Stress: what a long-running code asks of Tandem at once, every result checked against MPI's own.
 *   communicators  `comms` alive at once (duplicates and splits), their first allreduces started in an
 *                  order of each rank's own and waited for together, then freed in another; then
 *                  `cycles` of create, allreduce, free;
 *   outstanding    `outstanding` allreduces of one int in flight at once, spread over `spread`
 *                  communicators, each rank interleaving the communicators in its own order (a
 *                  communicator's calls in one order everywhere, as MPI asks), then one TDM_Waitall;
 *   persistent     `persistent` persistent collectives (allreduce, bcast, allgather, barrier),
 *                  started in an order of each rank's own, `rounds` times.
 * In split progress every part starts its calls in one order on every rank, its documented limit (a
 * reduce's start waits for the ranks below it in the tree). Under any agent (TANDEM_PROGRESS), dedicated collective processes included. Rank 0 prints each
 * part's time (the slowest rank's); with --native, the first two parts again with MPI's own calls
 * (--native-outstanding: fewer outstanding there). scripts/stress runs it at a benchmark's sizes.
 *   stress [--comms N] [--cycles N] [--outstanding N] [--spread N] [--persistent N] [--rounds N] [--native]
 *          [--native-outstanding N]
 */
#include "harness.h"

#include <string.h>

static MPI_Comm world;
static int rank, size;
/* split progress: a reduce's start waits for the ranks below it in the tree, so calls start in one
 * order everywhere (docs/progress.md) */
static int one_order;

typedef struct sizes {
    int comms, cycles, outstanding, spread, persistent, rounds;
    int native; /* the first two parts again with MPI's own calls, for their times */
    int native_outstanding; /* ... with this many outstanding (MPICH 4.0.2 aborts past 80,000 or so) */
} sizes;

/* An allreduce of one int into reqs[i]: Tandem's, or MPI's (native); and the wait for n of them. */
static int iallreduce(const int *in, int *out, MPI_Comm comm, int native, void *reqs, int i)
{
    return native ? MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, comm, (MPI_Request *)reqs + i)
                  : TDM_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, comm, (TDM_Request *)reqs + i);
}

static int waitall(int n, void *reqs, int native)
{
    if (!native)
        return TDM_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    /* statuses, not MPI_STATUSES_IGNORE: MPICH's header has GCC check the array's size */
    MPI_Status *statuses = malloc(sizeof *statuses * (size_t)n);
    int rc = MPI_Waitall(n, reqs, statuses);
    free(statuses);
    return rc;
}

static int allreduce(const int *in, int *out, MPI_Comm comm, int native)
{
    return native ? MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, comm) : TDM_Allreduce(in, out, 1, MPI_INT, MPI_SUM, comm);
}

static void report(const char *part, int native, double seconds)
{
    if (rank == 0)
        printf("%s, %s: %.3f s\n", part, native ? "MPI" : "Tandem", seconds);
}

/* A permutation of 0 .. n-1 of this rank's own (and of `salt`); in split progress, the identity. */
static void shuffled(int *order, int n, unsigned salt)
{
    unsigned state = 2654435761u * (unsigned)(rank + 1) + 40503u * salt;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0 && !one_order; i--) {
        state = state * 1103515245u + 12345u;
        int j = (int)((state >> 8) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
}

static double since(double start)
{
    double mine = MPI_Wtime() - start, slowest = 0;
    REFERENCE(MPI_Iallreduce, &mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, world);
    return slowest;
}

static void communicators(const sizes *z, int native)
{
    double start = MPI_Wtime();
    int n = z->comms;
    MPI_Comm *comms = malloc(sizeof *comms * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    int *got = malloc(sizeof(int) * (size_t)n), *want = malloc(sizeof(int) * (size_t)n);
    void *reqs = malloc(sizeof(TDM_Request) > sizeof(MPI_Request) ? sizeof(TDM_Request) * (size_t)n
                                                                   : sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++) {
        if (i % 3 == 0)
            MPI_Comm_dup(world, &comms[i]);
        else
            MPI_Comm_split(world, i % 3 == 1 ? rank % 2 : rank < size / 2, i % 3 == 1 ? rank : size - rank, &comms[i]);
        in[i] = rank * 7 + i;
    }
    shuffled(order, n, 1);
    for (int k = 0; k < n; k++)
        CHECK_TDM(iallreduce(&in[order[k]], &got[order[k]], comms[order[k]], native, reqs, order[k]));
    CHECK_TDM(waitall(n, reqs, native));
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        REFERENCE(MPI_Iallreduce, &in[i], &want[i], 1, MPI_INT, MPI_SUM, comms[i]);
        wrong += got[i] != want[i];
    }
    check(wrong == 0, "communicators: %d of %d first allreduces not MPI's", wrong, n);
    shuffled(order, n, 2);
    for (int k = 0; k < n; k++)
        MPI_Comm_free(&comms[order[k]]);

    wrong = 0;
    for (int c = 0; c < z->cycles; c++) {
        MPI_Comm comm;
        MPI_Comm_dup(world, &comm);
        int mine = rank + c, sum = 0, reference = 0;
        CHECK_TDM(allreduce(&mine, &sum, comm, native));
        REFERENCE(MPI_Iallreduce, &mine, &reference, 1, MPI_INT, MPI_SUM, comm);
        wrong += sum != reference;
        MPI_Comm_free(&comm);
    }
    check(wrong == 0, "communicators: %d of %d create-use-free cycles not MPI's", wrong, z->cycles);
    free(comms), free(order), free(in), free(got), free(want), free(reqs);
    char part[96];
    snprintf(part, sizeof part, "communicators: %d alive, %d cycles", n, z->cycles);
    report(part, native, since(start));
}

static void outstanding(const sizes *z, int native)
{
    double start = MPI_Wtime();
    int n = native && z->native_outstanding ? z->native_outstanding : z->outstanding, spread = z->spread;
    MPI_Comm *comms = malloc(sizeof *comms * (size_t)spread);
    int *order = malloc(sizeof(int) * (size_t)spread), *in = malloc(sizeof(int) * (size_t)n);
    int *got = malloc(sizeof(int) * (size_t)n), *want = malloc(sizeof(int) * (size_t)n);
    void *reqs = malloc(sizeof(TDM_Request) > sizeof(MPI_Request) ? sizeof(TDM_Request) * (size_t)n
                                                                   : sizeof(MPI_Request) * (size_t)n);
    for (int c = 0; c < spread; c++)
        MPI_Comm_dup(world, &comms[c]);
    for (int i = 0; i < n; i++)
        in[i] = rank + i % 1000;
    /* call i on communicator i % spread: each rank takes the communicators of a turn in its own order */
    for (int turn = 0; turn * spread < n; turn++) {
        shuffled(order, spread, (unsigned)turn + 3);
        for (int k = 0; k < spread; k++) {
            int i = turn * spread + order[k];
            if (i < n)
                CHECK_TDM(iallreduce(&in[i], &got[i], comms[i % spread], native, reqs, i));
        }
    }
    CHECK_TDM(waitall(n, reqs, native));
    REFERENCE(MPI_Iallreduce, in, want, n, MPI_INT, MPI_SUM, world);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += got[i] != want[i];
    check(wrong == 0, "outstanding: %d of %d allreduces not MPI's", wrong, n);
    for (int c = 0; c < spread; c++)
        MPI_Comm_free(&comms[c]);
    free(comms), free(order), free(in), free(got), free(want), free(reqs);
    char part[96];
    snprintf(part, sizeof part, "outstanding: %d allreduces on %d communicators", n, spread);
    report(part, native, since(start));
}

/* Persistent call k: an allreduce, a bcast from rank k % size, an allgather or a barrier, of 3 ints. */
enum { PERSISTENT_KINDS = 4, COUNT = 3 };

static void persistent(const sizes *z)
{
    double start = MPI_Wtime();
    int n = z->persistent;
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    size_t per = (size_t)COUNT * (size_t)size;
    int *in = malloc(sizeof(int) * per * (size_t)n), *out = malloc(sizeof(int) * per * (size_t)n);
    int *want = malloc(sizeof(int) * per), *order = malloc(sizeof(int) * (size_t)n);
    TDM_Request *reqs = malloc(sizeof *reqs * (size_t)n), *started = malloc(sizeof *started * (size_t)n);
    for (int k = 0; k < n; k++) {
        int *i = in + per * (size_t)k, *o = out + per * (size_t)k;
        switch (k % PERSISTENT_KINDS) {
        case 0: CHECK_TDM(TDM_Allreduce_init(i, o, COUNT, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &reqs[k])); break;
        case 1: CHECK_TDM(TDM_Bcast_init(o, COUNT, MPI_INT, k % size, comm, MPI_INFO_NULL, &reqs[k])); break;
        case 2:
            CHECK_TDM(TDM_Allgather_init(i, COUNT, MPI_INT, o, COUNT, MPI_INT, comm, MPI_INFO_NULL, &reqs[k]));
            break;
        default: CHECK_TDM(TDM_Barrier_init(comm, MPI_INFO_NULL, &reqs[k]));
        }
    }
    int wrong = 0;
    for (int round = 0; round < z->rounds; round++) {
        for (int k = 0; k < n; k++)
            for (int j = 0; j < COUNT; j++) {
                in[per * (size_t)k + (size_t)j] = rank * 1000 + k * 10 + j + round;
                out[per * (size_t)k + (size_t)j] = k % PERSISTENT_KINDS == 1 && rank == k % size ? k + j + round : -1;
            }
        shuffled(order, n, (unsigned)round + 100);
        for (int k = 0; k < n; k++)
            started[k] = reqs[order[k]];
        for (int k = 0; k < n; k++)
            CHECK_TDM(TDM_Start(&started[k]));
        CHECK_TDM(TDM_Waitall(n, started, MPI_STATUSES_IGNORE));
        for (int k = 0; k < n; k++) {
            int *i = in + per * (size_t)k, *o = out + per * (size_t)k, kind = k % PERSISTENT_KINDS;
            size_t len = kind == 2 ? per : COUNT;
            if (kind == 0)
                REFERENCE(MPI_Iallreduce, i, want, COUNT, MPI_INT, MPI_SUM, comm);
            else if (kind == 1)
                for (int j = 0; j < COUNT; j++)
                    want[j] = k + j + round;
            else if (kind == 2)
                REFERENCE(MPI_Iallgather, i, COUNT, MPI_INT, want, COUNT, MPI_INT, comm);
            wrong += kind != 3 && memcmp(o, want, sizeof(int) * len) != 0;
        }
    }
    check(wrong == 0, "persistent: %d results of %d calls x %d rounds not MPI's", wrong, n, z->rounds);
    for (int k = 0; k < n; k++)
        CHECK_TDM(TDM_Request_free(&reqs[k]));
    MPI_Comm_free(&comm);
    free(in), free(out), free(want), free(order), free(reqs), free(started);
    char part[96];
    snprintf(part, sizeof part, "persistent: %d calls, %d rounds", n, z->rounds);
    report(part, 0, since(start));
}

static int parse(int argc, char **argv, sizes *z)
{
    struct {
        const char *name;
        int *value, least;
    } options[] = {{"--comms", &z->comms, 1},           {"--cycles", &z->cycles, 0},
                   {"--outstanding", &z->outstanding, 1}, {"--spread", &z->spread, 1},
                   {"--persistent", &z->persistent, 1}, {"--rounds", &z->rounds, 1},
                   {"--native-outstanding", &z->native_outstanding, 1}};
    for (int a = 1; a < argc; a += 2) {
        if (strcmp(argv[a], "--native") == 0) {
            z->native = 1;
            a--;
            continue;
        }
        size_t o = 0, n = sizeof options / sizeof options[0];
        while (o < n && strcmp(argv[a], options[o].name) != 0)
            o++;
        char *end = NULL;
        long v = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : -1;
        if (o == n || !end || *end || v < options[o].least || v > 1 << 24) {
            if (rank == 0)
                fprintf(stderr, "stress: bad option '%s%s%s' (options: --comms, --cycles, --outstanding, --spread, "
                                "--persistent, --rounds, --native-outstanding, each with a number; --native)\n",
                        argv[a], a + 1 < argc ? " " : "", a + 1 < argc ? argv[a + 1] : "");
            return 0;
        }
        *options[o].value = (int)v;
    }
    return 1;
}

int main(int argc, char **argv)
{
    harness_init("stress", &argc, &argv);
    world = harness_world();
    const char *progress = getenv("TANDEM_PROGRESS");
    one_order = progress && strcmp(progress, "split") == 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    sizes z = {.comms = 100, .cycles = 100, .outstanding = 2000, .spread = 4, .persistent = 32, .rounds = 3};
    if (!parse(argc, argv, &z)) {
        TDM_Finalize();
        return 2;
    }
    communicators(&z, 0);
    outstanding(&z, 0);
    persistent(&z);
    if (z.native) {
        communicators(&z, 1);
        outstanding(&z, 1);
    }
    return harness_finish();
}

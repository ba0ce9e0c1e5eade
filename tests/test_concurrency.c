/*
 * Many collectives in flight at once, every kind: 48 on one communicator and more across two, started in the
 * same order everywhere and completed in a different order on every rank (Waitall, Waitany, Test
 * loops), with the application's own point-to-point traffic (MPI_ANY_SOURCE / MPI_ANY_TAG, on the same
 * communicator) going on in between. Results are compared with MPI's blocking collectives afterwards.
 * Then 300 collectives running at once on one communicator, and every kind as a persistent collective
 * started again and again. Run with TANDEM_TAG_RANGE=4 and 3 as well,
 * so that sequence tags wrap many times.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define N_OPS 48
#define MANY 300 /* collectives running at once in part 6 */
#define LEN 257
#define MAX_RANKS 64 /* of the count and displacement arrays of the v forms */

/* every collective; the barrier last (part 4 leaves it out) */
enum { ALLREDUCE, BCAST, ALLGATHER, ALLTOALL, SCAN, REDUCE, GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHERV,
       ALLTOALLV, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, EXSCAN, BARRIER, NKINDS };

typedef struct {
    int kind;
    MPI_Comm comm;
    int in[LEN * 8], out[LEN * 8], root;
    /* the v forms' arrays, which must stay as they are until the call completes */
    int sendcounts[MAX_RANKS], sdispls[MAX_RANKS], recvcounts[MAX_RANKS], rdispls[MAX_RANKS];
} op;

static int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int size_of(MPI_Comm c)
{
    int s;
    MPI_Comm_size(c, &s);
    return s;
}

/* Elements per block: 32 on up to 8 ranks (the buffers hold 8 x 257 ints), none beyond. */
static int block_of(MPI_Comm c) { return size_of(c) <= 8 ? LEN / 8 : 0; }

/* Block sizes of the v forms, some of them empty: rank i's block for rank j. */
static int vblock(int base, int i, int j) { return base && (i + j) % 4 != 3 ? base - (i + j) % 3 : 0; }

static void set_layout(op *o)
{
    int p = size_of(o->comm), r = rank_of(o->comm), base = block_of(o->comm);
    int sd = 0, rd = 0;
    for (int j = 0; j < p && j < MAX_RANKS; j++) {
        /* alltoallv: rank r sends vblock(r, j) to j and receives vblock(j, r) from it; the gathers,
         * scatters and reduce_scatter use the blocks of rank 0's row */
        int mine = o->kind == ALLTOALLV ? vblock(base, r, j) : vblock(base, 0, j);
        int theirs = o->kind == ALLTOALLV ? vblock(base, j, r) : vblock(base, 0, j);
        o->sendcounts[j] = mine, o->sdispls[j] = sd, sd += mine;
        o->recvcounts[j] = theirs, o->rdispls[j] = rd, rd += theirs;
    }
}

static void fill(op *o, int i)
{
    int r = rank_of(o->comm);
    for (int k = 0; k < LEN * 8; k++)
        o->in[k] = (r + 1) * 1000 + i * 37 + k;
    memset(o->out, 0, sizeof o->out);
    o->root = i % size_of(o->comm);
    set_layout(o);
}

static int v_forms_fit(const op *o) { return size_of(o->comm) <= MAX_RANKS; }

/* Tandem's non-blocking call, or (persistent) its _init form with the same arguments. */
#define TANDEM(nonblocking, init, ...) (persistent ? init(__VA_ARGS__, MPI_INFO_NULL, req) : nonblocking(__VA_ARGS__, req))

/* A broadcast's root starts from its data in the buffer. */
static void prepare(op *o, int *dst)
{
    if (o->kind == BCAST && rank_of(o->comm) == o->root)
        memcpy(dst, o->in, sizeof(int) * (size_of(o->comm) <= 8 ? LEN : 1));
}

/* Tandem's call (req != NULL; persistent: its persistent request, not started) or MPI's own into dst,
 * waited for (req == NULL), for the same operation. */
static int run(op *o, int *dst, TDM_Request *req, int persistent)
{
    int p = size_of(o->comm), r = rank_of(o->comm), len = p <= 8 ? LEN : 1, b = block_of(o->comm);
    int mpi = req == NULL, rb = o->recvcounts[r]; /* this rank's block of a scatterv / reduce_scatter */
    if (!v_forms_fit(o) && (o->kind == GATHERV || o->kind == SCATTERV || o->kind == ALLGATHERV ||
                            o->kind == ALLTOALLV || o->kind == REDUCE_SCATTER))
        return mpi ? MPI_SUCCESS : TANDEM(TDM_Ibarrier, TDM_Barrier_init, o->comm);
    switch (o->kind) {
    case ALLREDUCE:
        return mpi ? REFERENCE(MPI_Iallreduce, o->in, dst, len, MPI_INT, MPI_SUM, o->comm)
                   : TANDEM(TDM_Iallreduce, TDM_Allreduce_init, o->in, dst, len, MPI_INT, MPI_SUM, o->comm);
    case BCAST:
        prepare(o, dst);
        return mpi ? REFERENCE(MPI_Ibcast, dst, len, MPI_INT, o->root, o->comm) : TANDEM(TDM_Ibcast, TDM_Bcast_init, dst, len, MPI_INT, o->root, o->comm);
    case ALLGATHER:
        return mpi ? REFERENCE(MPI_Iallgather, o->in, b, MPI_INT, dst, b, MPI_INT, o->comm)
                   : TANDEM(TDM_Iallgather, TDM_Allgather_init, o->in, b, MPI_INT, dst, b, MPI_INT, o->comm);
    case ALLTOALL:
        return mpi ? REFERENCE(MPI_Ialltoall, o->in, b, MPI_INT, dst, b, MPI_INT, o->comm)
                   : TANDEM(TDM_Ialltoall, TDM_Alltoall_init, o->in, b, MPI_INT, dst, b, MPI_INT, o->comm);
    case SCAN:
        return mpi ? REFERENCE(MPI_Iscan, o->in, dst, len, MPI_INT, MPI_SUM, o->comm)
                   : TANDEM(TDM_Iscan, TDM_Scan_init, o->in, dst, len, MPI_INT, MPI_SUM, o->comm);
    case REDUCE:
        return mpi ? REFERENCE(MPI_Ireduce, o->in, dst, len, MPI_INT, MPI_MAX, o->root, o->comm)
                   : TANDEM(TDM_Ireduce, TDM_Reduce_init, o->in, dst, len, MPI_INT, MPI_MAX, o->root, o->comm);
    case GATHER:
        return mpi ? REFERENCE(MPI_Igather, o->in, b, MPI_INT, dst, b, MPI_INT, o->root, o->comm)
                   : TANDEM(TDM_Igather, TDM_Gather_init, o->in, b, MPI_INT, dst, b, MPI_INT, o->root, o->comm);
    case GATHERV:
        return mpi ? REFERENCE(MPI_Igatherv, o->in, rb, MPI_INT, dst, o->recvcounts, o->rdispls, MPI_INT, o->root, o->comm)
                   : TANDEM(TDM_Igatherv, TDM_Gatherv_init, o->in, rb, MPI_INT, dst, o->recvcounts, o->rdispls, MPI_INT, o->root, o->comm);
    case SCATTER:
        return mpi ? REFERENCE(MPI_Iscatter, o->in, b, MPI_INT, dst, b, MPI_INT, o->root, o->comm)
                   : TANDEM(TDM_Iscatter, TDM_Scatter_init, o->in, b, MPI_INT, dst, b, MPI_INT, o->root, o->comm);
    case SCATTERV:
        return mpi ? REFERENCE(MPI_Iscatterv, o->in, o->sendcounts, o->sdispls, MPI_INT, dst, rb, MPI_INT, o->root, o->comm)
                   : TANDEM(TDM_Iscatterv, TDM_Scatterv_init, o->in, o->sendcounts, o->sdispls, MPI_INT, dst, rb, MPI_INT, o->root, o->comm);
    case ALLGATHERV:
        return mpi ? REFERENCE(MPI_Iallgatherv, o->in, rb, MPI_INT, dst, o->recvcounts, o->rdispls, MPI_INT, o->comm)
                   : TANDEM(TDM_Iallgatherv, TDM_Allgatherv_init, o->in, rb, MPI_INT, dst, o->recvcounts, o->rdispls, MPI_INT, o->comm);
    case ALLTOALLV:
        return mpi ? REFERENCE(MPI_Ialltoallv, o->in, o->sendcounts, o->sdispls, MPI_INT, dst, o->recvcounts, o->rdispls,
                                   MPI_INT, o->comm)
                   : TANDEM(TDM_Ialltoallv, TDM_Alltoallv_init, o->in, o->sendcounts, o->sdispls, MPI_INT, dst, o->recvcounts, o->rdispls,
                                    MPI_INT, o->comm);
    case REDUCE_SCATTER:
        return mpi ? REFERENCE(MPI_Ireduce_scatter, o->in, dst, o->recvcounts, MPI_INT, MPI_SUM, o->comm)
                   : TANDEM(TDM_Ireduce_scatter, TDM_Reduce_scatter_init, o->in, dst, o->recvcounts, MPI_INT, MPI_SUM, o->comm);
    case REDUCE_SCATTER_BLOCK:
        return mpi ? REFERENCE(MPI_Ireduce_scatter_block, o->in, dst, b, MPI_INT, MPI_SUM, o->comm)
                   : TANDEM(TDM_Ireduce_scatter_block, TDM_Reduce_scatter_block_init, o->in, dst, b, MPI_INT, MPI_SUM, o->comm);
    case EXSCAN:
        return mpi ? REFERENCE(MPI_Iexscan, o->in, dst, len, MPI_INT, MPI_SUM, o->comm)
                   : TANDEM(TDM_Iexscan, TDM_Exscan_init, o->in, dst, len, MPI_INT, MPI_SUM, o->comm);
    default: return mpi ? MPI_SUCCESS : TANDEM(TDM_Ibarrier, TDM_Barrier_init, o->comm);
    }
}

static int start(op *o, TDM_Request *req) { return run(o, o->out, req, 0); }

/* MPI's answer for the same operation. */
static void expect(op *o, int *ref)
{
    memset(ref, 0, sizeof(int) * LEN * 8);
    check(run(o, ref, NULL, 0) == MPI_SUCCESS, "MPI's own call (kind %d) failed", o->kind);
}

/* Where the result means something: the root of a reduce or gather, every rank but 0 of an exscan. */
static int significant(const op *o)
{
    int r = rank_of(o->comm);
    if (o->kind == REDUCE || o->kind == GATHER || o->kind == GATHERV)
        return r == o->root;
    return o->kind != EXSCAN || r > 0;
}

static void verify(op *ops, int n, const char *what)
{
    static int ref[LEN * 8];
    for (int i = 0; i < n; i++) {
        expect(&ops[i], ref);
        check(!significant(&ops[i]) || memcmp(ref, ops[i].out, sizeof ref) == 0, "%s: operation %d (kind %d) differs",
              what, i, ops[i].kind);
    }
}

/* Application traffic on MPI_COMM_WORLD with tags that collide with Tandem's sequence tags. */
typedef struct {
    int send_val[4], recv_val[4];
    MPI_Request reqs[8];
} app_traffic;

static void app_start(app_traffic *t, int round)
{
    int r = rank_of(MPI_COMM_WORLD), p = size_of(MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++) {
        t->send_val[k] = -(r * 100000 + round * 10 + k); /* negative: never a Tandem value here */
        MPI_Irecv(&t->recv_val[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &t->reqs[k]);
        MPI_Isend(&t->send_val[k], 1, MPI_INT, (r + 1) % p, k, MPI_COMM_WORLD, &t->reqs[4 + k]);
    }
}

static void app_finish(app_traffic *t, int round)
{
    MPI_Status st[8];
    MPI_Waitall(8, t->reqs, st);
    int r = rank_of(MPI_COMM_WORLD), p = size_of(MPI_COMM_WORLD), from = (r - 1 + p) % p;
    for (int k = 0; k < 4; k++) {
        int v = -t->recv_val[k];
        check(v / 100000 == from && (v % 100000) / 10 == round && st[k].MPI_SOURCE == from,
              "application message %d carries %d: not what rank %d sent", k, t->recv_val[k], from);
    }
}

static op ops[2 * N_OPS];

/* 7. Every kind as a persistent request on two communicators, built once and started 4 times with new
 * data, in a rank-dependent order (TDM_Startall and TDM_Start), beside non-blocking calls, completed
 * in a rank-dependent order; then freed. */
static void persistent_rounds(MPI_Comm world, MPI_Comm other)
{
    enum { N = 2 * NKINDS, ROUNDS = 4 };
    const char *progress = getenv("TANDEM_PROGRESS");
    int split_mode = progress && strcmp(progress, "split") == 0;
    TDM_Request reqs[N], beside[2];
    for (int i = 0; i < N; i++) {
        ops[i].kind = i % NKINDS;
        ops[i].comm = i < NKINDS ? world : other;
        fill(&ops[i], i);
        CHECK_TDM(run(&ops[i], ops[i].out, &reqs[i], 1));
    }
    int rank = rank_of(world), p = size_of(world), in[2] = {rank, -rank}, out[2];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            fill(&ops[i], i + (round + 1) * N * p); /* new data, the same root */
            prepare(&ops[i], ops[i].out);
        }
        /* MPI-4 matches persistent collectives by their _init: each rank starts them in an order of its
         * own (odd ranks backwards, rotated by rank and round), half at once, half one by one; but in
         * split mode a reduce's starting call runs its leaf levels, waiting for the ranks below
         * (docs/progress.md): there, one order */
        TDM_Request shuffled[N];
        for (int k = 0; k < N; k++)
            shuffled[k] = reqs[split_mode ? k : ((rank % 2 ? N - 1 - k : k) + 3 * rank + round) % N];
        CHECK_TDM(TDM_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, world, &beside[0]));
        CHECK_TDM(TDM_Startall(N / 2, shuffled));
        CHECK_TDM(TDM_Ibarrier(other, &beside[1]));
        for (int k = N / 2; k < N; k++)
            CHECK_TDM(TDM_Start(&shuffled[k]));
        if (round % 2 == 0) {
            CHECK_TDM(TDM_Waitall(N, reqs, MPI_STATUSES_IGNORE));
        } else {
            for (int k = 0; k < N; k++) { /* Test loops, from a rank-dependent request on */
                int i = (k + rank * 5) % N, flag = 0;
                while (!flag)
                    CHECK_TDM(TDM_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
            }
        }
        CHECK_TDM(TDM_Waitall(2, beside, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            check(reqs[i] != TDM_REQUEST_NULL, "round %d: a completed persistent request %d was released", round, i);
        verify(ops, N, "persistent");
    }
    /* inactive: Wait and Test return at once, Waitany finds nothing */
    int flag = 0, index = 0;
    CHECK_TDM(TDM_Wait(&reqs[0], MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Test(&reqs[1], &flag, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Waitany(N, reqs, &index, MPI_STATUS_IGNORE));
    check(flag == 1 && index == MPI_UNDEFINED, "inactive persistent requests: Test flag %d, Waitany index %d", flag,
          index);
    for (int i = 0; i < N; i++)
        CHECK_TDM(TDM_Request_free(&reqs[i]));
    check(reqs[0] == TDM_REQUEST_NULL && reqs[N - 1] == TDM_REQUEST_NULL, "TDM_Request_free sets the request to null");
}

int main(int argc, char **argv)
{
    harness_init("test_concurrency", &argc, &argv);
    int rank = rank_of(MPI_COMM_WORLD);
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    TDM_Request reqs[2 * N_OPS];

    /* 1. N_OPS on one communicator, Waitall, application traffic in between. */
    for (int round = 0; round < 3; round++) {
        app_traffic t;
        for (int i = 0; i < N_OPS; i++) {
            ops[i].kind = (i + round) % NKINDS;
            ops[i].comm = MPI_COMM_WORLD;
            fill(&ops[i], i + round);
            if (i == N_OPS / 2)
                app_start(&t, round);
            CHECK_TDM(start(&ops[i], &reqs[i]));
        }
        app_finish(&t, round);
        CHECK_TDM(TDM_Waitall(N_OPS, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N_OPS; i++)
            check(reqs[i] == TDM_REQUEST_NULL, "Waitall left request %d set", i);
        verify(ops, N_OPS, "Waitall");
    }

    /* 2. Two communicators interleaved, completed with Waitany in a rank-dependent order. */
    for (int i = 0; i < 2 * N_OPS; i++) {
        ops[i].kind = i % NKINDS;
        ops[i].comm = i % 2 ? other : MPI_COMM_WORLD;
        fill(&ops[i], i);
    }
    for (int i = 0; i < 2 * N_OPS; i++)
        CHECK_TDM(start(&ops[i], &reqs[i]));
    int done = 0, seen[2 * N_OPS] = {0};
    while (done < 2 * N_OPS) {
        /* present the requests rotated by rank, so each rank completes in its own order */
        TDM_Request view[2 * N_OPS];
        int map[2 * N_OPS];
        for (int k = 0; k < 2 * N_OPS; k++) {
            map[k] = (k + rank * 7) % (2 * N_OPS);
            view[k] = reqs[map[k]];
        }
        int index;
        CHECK_TDM(TDM_Waitany(2 * N_OPS, view, &index, MPI_STATUS_IGNORE));
        check(index != MPI_UNDEFINED, "Waitany found nothing with %d left", 2 * N_OPS - done);
        if (index == MPI_UNDEFINED)
            break;
        check(!seen[map[index]], "Waitany returned request %d twice", map[index]);
        seen[map[index]] = 1;
        reqs[map[index]] = TDM_REQUEST_NULL;
        done++;
    }
    int index = 0;
    CHECK_TDM(TDM_Waitany(2 * N_OPS, reqs, &index, MPI_STATUS_IGNORE));
    check(index == MPI_UNDEFINED, "Waitany on null requests gave index %d", index);
    verify(ops, 2 * N_OPS, "Waitany");

    /* 3. Test loops, completing in reverse order, with application traffic pending meanwhile. */
    app_traffic t;
    for (int i = 0; i < N_OPS; i++) {
        ops[i].kind = (3 * i) % NKINDS;
        ops[i].comm = i % 3 ? MPI_COMM_WORLD : other;
        fill(&ops[i], 1000 + i);
        CHECK_TDM(start(&ops[i], &reqs[i]));
    }
    app_start(&t, 9);
    for (int i = N_OPS - 1; i >= 0; i--) {
        int flag = 0;
        while (!flag)
            CHECK_TDM(TDM_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
        check(reqs[i] == TDM_REQUEST_NULL, "Test left request %d set", i);
    }
    app_finish(&t, 9);
    verify(ops, N_OPS, "Test");

    /* 4. Testall until done. */
    for (int i = 0; i < N_OPS; i++) {
        ops[i].kind = i % BARRIER; /* no barrier */
        ops[i].comm = MPI_COMM_WORLD;
        fill(&ops[i], 2000 + i);
        CHECK_TDM(start(&ops[i], &reqs[i]));
    }
    for (int flag = 0; !flag;)
        CHECK_TDM(TDM_Testall(N_OPS, reqs, &flag, MPI_STATUSES_IGNORE));
    verify(ops, N_OPS, "Testall");

    /* 5. The communicator is freed while its collectives run (MPI lets them finish), and a derived
     * datatype is freed right after the start. Where ranks share a node, the barrier and the allreduce
     * are node-aware: their cells in the freed communicator's ring are still read. */
    MPI_Comm temp;
    MPI_Comm_dup(MPI_COMM_WORLD, &temp);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int in[64], out[64], expected[64];
    for (int k = 0; k < 64; k++)
        in[k] = rank * 3 + k;
    long sum_in[3] = {rank, -rank, 7L * rank}, sum_out[3], sum_expected[3];
    TDM_Request r1, r2, r3;
    CHECK_TDM(TDM_Iallgather(in, 64 / size_of(MPI_COMM_WORLD) / 2, pair, out, 64 / size_of(MPI_COMM_WORLD) / 2,
                             pair, temp, &r1));
    CHECK_TDM(TDM_Ibarrier(temp, &r2));
    CHECK_TDM(TDM_Iallreduce(sum_in, sum_out, 3, MPI_LONG, MPI_SUM, temp, &r3));
    MPI_Type_free(&pair);
    MPI_Comm_free(&temp);
    CHECK_TDM(TDM_Wait(&r3, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Wait(&r1, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Wait(&r2, MPI_STATUS_IGNORE));
    REFERENCE(MPI_Iallreduce, sum_in, sum_expected, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    check(memcmp(sum_out, sum_expected, sizeof sum_out) == 0, "allreduce on a freed communicator differs");
    int n = 64 / size_of(MPI_COMM_WORLD) / 2 * 2; /* ints per rank: whole pairs */
    REFERENCE(MPI_Iallgather, in, n, MPI_INT, expected, n, MPI_INT, MPI_COMM_WORLD);
    check(memcmp(out, expected, sizeof(int) * n * size_of(MPI_COMM_WORLD)) == 0,
          "allgather on a freed communicator with a freed datatype differs");

    /* 6. More collectives running at once on one communicator than its first tag window holds (64):
     * rank 0 starts them all before any other rank starts one, so none can complete meanwhile. Not
     * with a forced small tag range (once the tags wrap, rank 0 would wait for the other ranks), nor
     * in split mode (its starting call runs the leaves' levels of a reduction, with the other ranks). */
    const char *range = getenv("TANDEM_TAG_RANGE"), *progress = getenv("TANDEM_PROGRESS");
    if ((!range || atoi(range) > 2 * MANY) && !(progress && strcmp(progress, "split") == 0)) {
        static int many_in[MANY], many_out[MANY];
        static TDM_Request many[MANY];
        if (rank != 0)
            REFERENCE(MPI_Ibarrier, MPI_COMM_WORLD);
        for (int i = 0; i < MANY; i++) {
            many_in[i] = rank * 1000 + i;
            CHECK_TDM(TDM_Iallreduce(&many_in[i], &many_out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &many[i]));
        }
        if (rank == 0)
            REFERENCE(MPI_Ibarrier, MPI_COMM_WORLD);
        CHECK_TDM(TDM_Waitall(MANY, many, MPI_STATUSES_IGNORE));
        int p = size_of(MPI_COMM_WORLD);
        for (int i = 0; i < MANY; i++)
            check(many_out[i] == 1000 * p * (p - 1) / 2 + p * i, "allreduce %d of %d running at once gave %d", i,
                  MANY, many_out[i]);
    }

    persistent_rounds(MPI_COMM_WORLD, other);
    MPI_Comm_free(&other);
    return harness_finish();
}

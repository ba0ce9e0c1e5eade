/*
 * The schedule cache: identical calls (same buffers, counts, types, op, root) reuse the schedule of
 * an earlier call. These tests repeat calls with new data every time and compare each result with
 * MPI's own collective, and they change what a cached schedule must not outlive: the algorithm
 * setting, a user op or derived datatype freed and created again (MPI may hand out the same handle),
 * the communicator. Run with TANDEM_VERBOSE=1, CTest also checks that schedules were reused.
 */
#include "harness.h"

#include <string.h>

#define N 5 /* elements per rank block */
#define ITERATIONS 12

static int rank, size;

static int value(int iter, int r, int i) { return (iter + 1) * 1000 + r * 37 + i * 3 - 50; }

static void check_ints(const int *got, const int *want, int n, const char *what, int iter)
{
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    check(bad < 0, "%s, iteration %d: element %d is %d, MPI gives %d", what, iter, bad,
          bad < 0 ? 0 : got[bad], bad < 0 ? 0 : want[bad]);
}

/* Every cacheable collective, each with the same buffers in every iteration and fresh data. More
 * distinct calls than the cache has slots, so that kept schedules are also replaced. */
static void repeated_calls(void)
{
    int p = size;
    int *send = malloc(sizeof(int) * N * p), *recv = malloc(sizeof(int) * N * p);
    int *send2 = malloc(sizeof(int) * N), *recv2 = malloc(sizeof(int) * N);
    int *inplace = malloc(sizeof(int) * N), *bcast_first = malloc(sizeof(int) * N);
    int *bcast_last = malloc(sizeof(int) * N), *want = malloc(sizeof(int) * N * p);
    for (int iter = 0; iter < ITERATIONS; iter++) {
        for (int i = 0; i < N * p; i++)
            send[i] = value(iter, rank, i);
        for (int i = 0; i < N; i++) {
            send2[i] = value(iter, rank, i) * 2 + 1;
            inplace[i] = value(iter, rank, i) - 7;
            bcast_first[i] = rank == 0 ? value(iter, 0, i) : -1;
            bcast_last[i] = rank == p - 1 ? value(iter, p - 1, i) + 5 : -1;
        }
        TDM_Request r;

        /* two allreduces in turn, as a CG iteration has */
        CHECK_TDM(TDM_Allreduce(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(recv, want, N, "allreduce", iter);
        CHECK_TDM(TDM_Iallreduce(send2, recv2, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r));
        CHECK_TDM(TDM_Wait(&r, MPI_STATUS_IGNORE));
        REFERENCE(MPI_Iallreduce, send2, want, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        check_ints(recv2, want, N, "second allreduce", iter);

        memcpy(want, inplace, sizeof(int) * N);
        CHECK_TDM(TDM_Allreduce(MPI_IN_PLACE, inplace, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        REFERENCE(MPI_Iallreduce, MPI_IN_PLACE, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(inplace, want, N, "in-place allreduce", iter);

        CHECK_TDM(TDM_Bcast(bcast_first, N, MPI_INT, 0, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++)
            want[i] = value(iter, 0, i);
        check_ints(bcast_first, want, N, "bcast from rank 0", iter);
        CHECK_TDM(TDM_Bcast(bcast_last, N, MPI_INT, p - 1, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++)
            want[i] = value(iter, p - 1, i) + 5;
        check_ints(bcast_last, want, N, "bcast from the last rank", iter);

        CHECK_TDM(TDM_Reduce(send, recv, N, MPI_INT, MPI_SUM, p - 1, MPI_COMM_WORLD));
        REFERENCE(MPI_Ireduce, send, want, N, MPI_INT, MPI_SUM, p - 1, MPI_COMM_WORLD);
        if (rank == p - 1)
            check_ints(recv, want, N, "reduce", iter);

        CHECK_TDM(TDM_Allgather(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));
        REFERENCE(MPI_Iallgather, send, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD);
        check_ints(recv, want, N * p, "allgather", iter);

        CHECK_TDM(TDM_Alltoall(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));
        REFERENCE(MPI_Ialltoall, send, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD);
        check_ints(recv, want, N * p, "alltoall", iter);

        CHECK_TDM(TDM_Gather(send, N, MPI_INT, recv, N, MPI_INT, 0, MPI_COMM_WORLD));
        REFERENCE(MPI_Igather, send, N, MPI_INT, want, N, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0)
            check_ints(recv, want, N * p, "gather", iter);

        CHECK_TDM(TDM_Scatter(send, N, MPI_INT, recv, N, MPI_INT, 0, MPI_COMM_WORLD));
        REFERENCE(MPI_Iscatter, send, N, MPI_INT, want, N, MPI_INT, 0, MPI_COMM_WORLD);
        check_ints(recv, want, N, "scatter", iter);

        CHECK_TDM(TDM_Scan(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        REFERENCE(MPI_Iscan, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(recv, want, N, "scan", iter);

        CHECK_TDM(TDM_Exscan(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        REFERENCE(MPI_Iexscan, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank > 0)
            check_ints(recv, want, N, "exscan", iter);

        CHECK_TDM(TDM_Reduce_scatter_block(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        REFERENCE(MPI_Ireduce_scatter_block, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(recv, want, N, "reduce_scatter_block", iter);

        CHECK_TDM(TDM_Barrier(MPI_COMM_WORLD));
    }
    free(send), free(recv), free(send2), free(recv2), free(inplace), free(bcast_first), free(bcast_last);
    free(want);
}

/* More distinct calls than the cache keeps: kept schedules are replaced, results stay right. */
static void more_calls_than_slots(void)
{
    enum { CALLS = 20 };
    int send[CALLS * N], recv[CALLS * N], want[N];
    for (int round = 0; round < 3; round++)
        for (int c = 0; c < CALLS; c++) {
            for (int i = 0; i < N; i++)
                send[c * N + i] = value(round * CALLS + c, rank, i);
            CHECK_TDM(TDM_Allreduce(&send[c * N], &recv[c * N], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            REFERENCE(MPI_Iallreduce, &send[c * N], want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            check_ints(&recv[c * N], want, N, "allreduce, one of many distinct calls", round);
        }
}

/* A cached schedule must not outlive the algorithm setting it was selected under. */
static void algorithm_changes(void)
{
    static const char *algorithms[] = {"reduce_bcast", "recursive_doubling", "reduce_bcast"};
    int send[N], recv[N], want[N];
    for (int k = 0; k < 3; k++) {
        CHECK_TDM(TDM_Set_algorithm("allreduce", algorithms[k]));
        for (int iter = 0; iter < 3; iter++) {
            for (int i = 0; i < N; i++)
                send[i] = value(iter + k, rank, i);
            TDM_Request r;
            CHECK_TDM(TDM_Iallreduce(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
            char expected[64];
            snprintf(expected, sizeof expected, "allreduce_%s", algorithms[k]);
            const char *used = TDM_Request_algorithm(r);
            check(used && strcmp(used, expected) == 0, "after TDM_Set_algorithm(%s) the call ran %s",
                  algorithms[k], used ? used : "(null)");
            CHECK_TDM(TDM_Wait(&r, MPI_STATUS_IGNORE));
            REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            check_ints(recv, want, N, "allreduce after an algorithm change", iter);
        }
    }
    CHECK_TDM(TDM_Set_algorithm("allreduce", "auto"));
}

static void max_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static void min_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] < ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

/* A user op freed and created again may get the same handle: the call must use the new op. */
static void user_op_recreated(void)
{
    int send[N], recv[N], want[N];
    for (int k = 0; k < 4; k++) {
        MPI_Op op;
        MPI_Op_create(k % 2 ? min_fn : max_fn, 1, &op);
        for (int i = 0; i < N; i++)
            send[i] = value(k, (rank * 7 + i) % size, i);
        CHECK_TDM(TDM_Allreduce(send, recv, N, MPI_INT, op, MPI_COMM_WORLD));
        REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, k % 2 ? MPI_MIN : MPI_MAX, MPI_COMM_WORLD);
        check_ints(recv, want, N, k % 2 ? "allreduce with a user min" : "allreduce with a user max", k);
        MPI_Op_free(&op);
    }
}

/* A derived datatype freed and created again with another layout may get the same handle. */
static void datatype_recreated(void)
{
    int buf[2 * N], want[2 * N];
    for (int k = 0; k < 4; k++) {
        MPI_Datatype type;
        int stride = k % 2 ? 2 : 1; /* N ints, dense or every other one */
        MPI_Type_vector(N, 1, stride, MPI_INT, &type);
        MPI_Type_commit(&type);
        for (int i = 0; i < 2 * N; i++)
            buf[i] = want[i] = rank == 0 ? value(k, 0, i) : -1 - i;
        CHECK_TDM(TDM_Bcast(buf, 1, type, 0, MPI_COMM_WORLD));
        REFERENCE(MPI_Ibcast, want, 1, type, 0, MPI_COMM_WORLD);
        check_ints(buf, want, 2 * N, stride == 2 ? "bcast of a strided vector" : "bcast of a dense vector", k);
        MPI_Type_free(&type);
    }
}

/* Communicators come and go (MPI may reuse a freed handle); their kept schedules go with them. */
static void communicators_freed(void)
{
    int send[N], recv[N], want[N];
    for (int k = 0; k < 4; k++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, k % 2 ? rank % 2 : 0, rank, &comm);
        for (int iter = 0; iter < 3; iter++) {
            for (int i = 0; i < N; i++)
                send[i] = value(iter + k, rank, i);
            CHECK_TDM(TDM_Allreduce(send, recv, N, MPI_INT, MPI_SUM, comm));
            REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, MPI_SUM, comm);
            check_ints(recv, want, N, "allreduce on a new communicator", iter);
        }
        MPI_Comm_free(&comm);
    }
}

/* Identical calls running at once: each gets its own schedule, and each completes. */
static void identical_calls_at_once(void)
{
    for (int iter = 0; iter < 3; iter++) {
        TDM_Request r[3];
        for (int k = 0; k < 3; k++)
            CHECK_TDM(TDM_Ibarrier(MPI_COMM_WORLD, &r[k]));
        for (int k = 2; k >= 0; k--)
            CHECK_TDM(TDM_Wait(&r[k], MPI_STATUS_IGNORE));
        check(r[0] == TDM_REQUEST_NULL && r[1] == TDM_REQUEST_NULL && r[2] == TDM_REQUEST_NULL,
              "identical barriers at once: a request was not set to TDM_REQUEST_NULL");
    }
}

/* A persistent call's schedule, freed, serves the same call made non-blocking: that call runs and
 * completes as any other (not as an inactive persistent request, which Wait would return at once). */
static void persistent_schedule_reused(void)
{
    int send[N], recv[N], want[N];
    TDM_Request req;
    CHECK_TDM(TDM_Allreduce_init(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int i = 0; i < N; i++)
        send[i] = value(40, rank, i);
    CHECK_TDM(TDM_Start(&req));
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Request_free(&req));
    for (int iter = 0; iter < 3; iter++) {
        for (int i = 0; i < N; i++)
            send[i] = value(41 + iter, rank, i);
        CHECK_TDM(TDM_Iallreduce(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        check(req == TDM_REQUEST_NULL, "a non-blocking call on a persistent call's schedule stays set");
        REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(recv, want, N, "allreduce on a freed persistent call's schedule", iter);
    }
}

/* A persistent barrier, freed, goes to the cache, and a later blocking barrier runs its schedule: on
 * several nodes (test_sched_cache_np4_nodes2) that call takes its turn on the node's ring like any other.
 * It did not: each such turn was lost, and after as many rounds as the cache keeps schedules every later
 * call of the communicator waited for it. */
static void persistent_barrier_reused(void)
{
    int send[8], recv[8], want[8];
    for (int round = 0; round < 40; round++) {
        TDM_Request req;
        CHECK_TDM(TDM_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        for (int i = 0; i < 8; i++)
            send[i] = value(round, rank, i);
        CHECK_TDM(TDM_Allreduce(send, recv, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_TDM(TDM_Barrier(MPI_COMM_WORLD));
        CHECK_TDM(TDM_Start(&req));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_TDM(TDM_Request_free(&req));
        REFERENCE(MPI_Iallreduce, send, want, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(recv, want, 8, "allreduce beside persistent barriers freed", round);
    }
}

int main(int argc, char **argv)
{
    harness_init("test_sched_cache", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    repeated_calls();
    more_calls_than_slots();
    algorithm_changes();
    user_op_recreated();
    datatype_recreated();
    communicators_freed();
    identical_calls_at_once();
    persistent_schedule_reused();
    persistent_barrier_reused();
    return harness_finish();
}

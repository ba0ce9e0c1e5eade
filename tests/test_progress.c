/*
 * Progress modes: switching between inline and thread progress between collectives, with requests of
 * both agents outstanding and completed together; several application threads calling Tandem at once
 * on their own communicators in thread mode; bad mode names; thread mode refused when MPI gives less
 * than MPI_THREAD_MULTIPLE (run with the argument "funneled"). Results are compared with MPI's own.
 */
#include "harness.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define N 7
#define APP_THREADS 4
#define THREAD_ITERATIONS 40

static int rank, size;

static int value(int iter, int r, int i) { return iter * 131 + r * 17 + i - 40; }

static void check_sum(const int *got, int iter, const char *what)
{
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += value(iter, r, i);
        if (got[i] != want) {
            check(0, "%s, iteration %d: element %d is %d, expected %d", what, iter, i, got[i], want);
            return;
        }
    }
    check(1, "%s", what);
}

/* Rounds of collectives started under modes in turn, completed all at once. */
static void switch_modes(void)
{
    enum { ROUNDS = 6, PER_ROUND = 3 };
    int send[ROUNDS * PER_ROUND][N], recv[ROUNDS * PER_ROUND][N];
    TDM_Request req[ROUNDS * PER_ROUND];
    for (int round = 0; round < ROUNDS; round++) {
        static const char *modes[3] = {"inline", "thread", "split"};
        CHECK_TDM(TDM_Set_progress(modes[round % 3]));
        for (int k = 0; k < PER_ROUND; k++) {
            int c = round * PER_ROUND + k;
            for (int i = 0; i < N; i++)
                send[c][i] = value(c, rank, i);
            CHECK_TDM(TDM_Iallreduce(send[c], recv[c], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[c]));
        }
    }
    /* half through Waitany, the rest through Waitall: requests of both agents in one array */
    for (int k = 0; k < ROUNDS * PER_ROUND / 2; k++) {
        int index = -1;
        CHECK_TDM(TDM_Waitany(ROUNDS * PER_ROUND, req, &index, MPI_STATUS_IGNORE));
        check(index >= 0 && index < ROUNDS * PER_ROUND && req[index] == TDM_REQUEST_NULL,
              "Waitany over both agents returned index %d", index);
    }
    CHECK_TDM(TDM_Waitall(ROUNDS * PER_ROUND, req, MPI_STATUSES_IGNORE));
    for (int c = 0; c < ROUNDS * PER_ROUND; c++)
        check_sum(recv[c], c, "allreduce started under a switched mode");

    /* blocking forms and Test loops in thread and split mode (the tree form of allreduce) */
    for (int iter = 0; iter < 20; iter++) {
        CHECK_TDM(TDM_Set_progress(iter % 2 ? "split" : "thread"));
        int s[N], r[N], flag = 0;
        for (int i = 0; i < N; i++)
            s[i] = value(iter, rank, i);
        TDM_Request q;
        CHECK_TDM(TDM_Iallreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
        while (!flag)
            CHECK_TDM(TDM_Test(&q, &flag, MPI_STATUS_IGNORE));
        check_sum(r, iter, "allreduce completed by TDM_Test in thread mode");
        CHECK_TDM(TDM_Allreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        check_sum(r, iter, "blocking allreduce in thread mode");
    }
    int app_core = -2, progress_core = -2;
    CHECK_TDM(TDM_Get_placement(&app_core, &progress_core));
    check(app_core >= 0 && progress_core >= 0, "TDM_Get_placement in thread mode: app core %d, progress core %d",
          app_core, progress_core);
    CHECK_TDM(TDM_Set_progress("inline"));
}

typedef struct {
    MPI_Comm comm;
    int id;
    long failures;
} app_thread;

/* One application thread: its own communicator, collectives checked against MPI's. */
static void *app_thread_main(void *arg)
{
    app_thread *t = arg;
    int p;
    MPI_Comm_size(t->comm, &p);
    int send[N], recv[N * 64], want[N * 64];
    for (int iter = 0; iter < THREAD_ITERATIONS; iter++) {
        for (int i = 0; i < N; i++)
            send[i] = value(iter + t->id * 1000, rank, i);
        TDM_Request q;
        if (TDM_Iallreduce(send, recv, N, MPI_INT, MPI_SUM, t->comm, &q) != MPI_SUCCESS ||
            TDM_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            t->failures++;
        REFERENCE(MPI_Iallreduce, send, want, N, MPI_INT, MPI_SUM, t->comm);
        t->failures += memcmp(recv, want, sizeof(int) * N) != 0;
        if (TDM_Allgather(send, N, MPI_INT, recv, N, MPI_INT, t->comm) != MPI_SUCCESS)
            t->failures++;
        REFERENCE(MPI_Iallgather, send, N, MPI_INT, want, N, MPI_INT, t->comm);
        t->failures += memcmp(recv, want, sizeof(int) * N * (size_t)p) != 0;
        if (TDM_Bcast(send, N, MPI_INT, iter % p, t->comm) != MPI_SUCCESS)
            t->failures++;
    }
    return NULL;
}

static void application_threads(void)
{
    CHECK_TDM(TDM_Set_progress("thread"));
    app_thread threads[APP_THREADS];
    pthread_t ids[APP_THREADS];
    for (int k = 0; k < APP_THREADS; k++) {
        threads[k] = (app_thread){MPI_COMM_NULL, k, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &threads[k].comm);
    }
    for (int k = 0; k < APP_THREADS; k++)
        pthread_create(&ids[k], NULL, app_thread_main, &threads[k]);
    for (int k = 0; k < APP_THREADS; k++) {
        pthread_join(ids[k], NULL);
        check(threads[k].failures == 0, "application thread %d: %ld wrong or failed collectives", k,
              threads[k].failures);
        MPI_Comm_free(&threads[k].comm);
    }
    CHECK_TDM(TDM_Set_progress("inline"));
}

/* Split mode: a rank blocked in the starting call of one collective (the leading segment of a reduce)
 * must still send the tail of an earlier bcast that another rank waits for. Rank 0 starts the reduce
 * before waiting for the bcast; the others wait for the bcast first. (Run with TANDEM_SPLIT_S=1 to cut
 * the trees; otherwise the model may keep whole trees on the application thread.) */
static void split_tails_progress(void)
{
    CHECK_TDM(TDM_Set_progress("split"));
    for (int iter = 0; iter < 10; iter++) {
        int b[N], s[N], r[N];
        for (int i = 0; i < N; i++) {
            b[i] = rank == 0 ? value(iter, 0, i) : -1;
            s[i] = value(iter, rank, i);
        }
        TDM_Request bcast, reduce;
        CHECK_TDM(TDM_Ibcast(b, N, MPI_INT, 0, MPI_COMM_WORLD, &bcast));
        if (rank == 0) {
            CHECK_TDM(TDM_Ireduce(s, r, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &reduce));
            CHECK_TDM(TDM_Wait(&reduce, MPI_STATUS_IGNORE));
            CHECK_TDM(TDM_Wait(&bcast, MPI_STATUS_IGNORE));
            check_sum(r, iter, "reduce started before waiting for an earlier split bcast");
        } else {
            CHECK_TDM(TDM_Wait(&bcast, MPI_STATUS_IGNORE));
            CHECK_TDM(TDM_Ireduce(s, r, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &reduce));
            CHECK_TDM(TDM_Wait(&reduce, MPI_STATUS_IGNORE));
        }
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= b[i] == value(iter, 0, i);
        check(ok, "split bcast completed out of order, iteration %d", iter);
    }
    CHECK_TDM(TDM_Set_progress("inline"));
}

/* Thread mode: a call waited for at once is driven by the waiting thread itself, one left alone while
 * the application sleeps completes on the progress thread. TANDEM_VERBOSE reports which completed
 * how many; CTest checks that both did (test_progress_np2_verbose). */
static void who_drives(void)
{
    CHECK_TDM(TDM_Set_progress("thread"));
    int s[N], r[N];
    for (int iter = 0; iter < 60; iter++) {
        for (int i = 0; i < N; i++)
            s[i] = value(iter, rank, i);
        TDM_Request req;
        CHECK_TDM(TDM_Iallreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        if (iter % 3 == 0)
            usleep(3000); /* leaves the core to the progress thread */
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        check_sum(r, iter, "allreduce in thread mode, waited for at once or after a sleep");
    }
    CHECK_TDM(TDM_Set_progress("inline"));
}

static void bad_modes(void)
{
    check(TDM_Set_progress("fast") == MPI_ERR_ARG && strstr(TDM_Last_error(), "mode"),
          "TDM_Set_progress(\"fast\") should be MPI_ERR_ARG naming the mode: %s", TDM_Last_error());
    check(TDM_Set_progress(NULL) == MPI_ERR_ARG, "TDM_Set_progress(NULL) should be MPI_ERR_ARG");
    check(TDM_Set_progress_placement("bind") == MPI_ERR_OTHER,
          "TDM_Set_progress_placement after TDM_Init should be MPI_ERR_OTHER");
    check(TDM_Get_placement(NULL, NULL) == MPI_ERR_ARG, "TDM_Get_placement(NULL) should be MPI_ERR_ARG");
    int dcp = 0, first = 1, clients = 1, same_node = 1;
    CHECK_TDM(TDM_Get_dcp_placement(&dcp, &first, &clients, &same_node));
    check(dcp == -1 && first == 0 && clients == 0 && same_node == 0, "TDM_Get_dcp_placement without DCPs: %d %d %d %d",
          dcp, first, clients, same_node);
    check(TDM_Get_dcp_placement(&dcp, &first, NULL, &same_node) == MPI_ERR_ARG &&
              strstr(TDM_Last_error(), "argument clients"),
          "TDM_Get_dcp_placement with clients NULL: %s", TDM_Last_error());
}

/* MPI initialized by the program with less than MPI_THREAD_MULTIPLE: thread mode is refused. */
static int refused_main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    harness_init("test_progress (funneled)", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        int rc = TDM_Set_progress("thread");
        check(rc == MPI_ERR_OTHER && strstr(TDM_Last_error(), "MPI_THREAD_MULTIPLE"),
              "thread mode under %d should be refused naming MPI_THREAD_MULTIPLE: %d %s", provided, rc,
              TDM_Last_error());
    }
    int s[N], r[N];
    for (int i = 0; i < N; i++)
        s[i] = value(3, rank, i);
    CHECK_TDM(TDM_Allreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check_sum(r, 3, "allreduce after thread mode was refused");
    int code = harness_finish();
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "funneled") == 0)
        return refused_main(argc, argv);
    harness_init("test_progress", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bad_modes();
    switch_modes();
    split_tails_progress();
    application_threads();
    who_drives();
    return harness_finish();
}

/*
 * Tandem built for SimGrid's SMPI, run on a simulated platform (tests/smpi/CMakeLists.txt): every
 * algorithm of every collective, compared bit for bit with SMPI's own blocking collectives, on integer
 * data, at counts that do and do not divide evenly, in place and not; several collectives outstanding
 * on two communicators; thread progress refused with a clear message; and the reductions charged as
 * simulated computation (the time of a reduction-bound allreduce is at least its computation bound);
 * on hosts of several ranks, the node algorithms' steps inside a host go through the simulated segment.
 * The simulation build differs from the real one where SMPI does (src/base/smpi_support.h): this test
 * is what shows those paths give correct results. The full matrix of datatypes and ops runs on real
 * MPIs (tests/test_collectives.c).
 */
#include "harness.h"

#include "../../src/engine/node.h"

#include <simgrid/host.h>
#include <string.h>

static int rank, size;

static int value(int r, long i, int salt) { return (int)((r * 131 + i * 7 + salt * 13) % 1009) - 500; }

static void fill(int *buf, long n, int salt)
{
    for (long i = 0; i < n; i++)
        buf[i] = value(rank, i, salt);
}

static int *ints(long n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(int)); }

static int same(const int *a, const int *b, long n) { return memcmp(a, b, sizeof(int) * (size_t)n) == 0; }

/* Runs `test` once for each algorithm of `collective` (auto first), then restores auto. */
static void each_algorithm(const char *collective, void (*test)(const char *alg, int count), const int *counts,
                           int ncounts)
{
    char names[512];
    snprintf(names, sizeof names, "%s", TDM_Algorithm_names(collective));
    for (char *save, *alg = strtok_r(names, " ", &save); alg; alg = strtok_r(NULL, " ", &save)) {
        CHECK_TDM(TDM_Set_algorithm(collective, alg));
        for (int k = 0; k < ncounts; k++)
            test(alg, counts[k]);
    }
    CHECK_TDM(TDM_Set_algorithm(collective, "auto"));
}

static void allreduce_case(const char *alg, int count)
{
    int *send = ints(count), *mine = ints(count), *ref = ints(count);
    fill(send, count, count);
    MPI_Allreduce(send, ref, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Allreduce(send, mine, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(same(ref, mine, count), "allreduce %s count %d", alg, count);
    memcpy(mine, send, sizeof(int) * (size_t)count);
    CHECK_TDM(TDM_Allreduce(MPI_IN_PLACE, mine, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(same(ref, mine, count), "allreduce %s count %d in place", alg, count);
    free(send), free(mine), free(ref);
}

static void reduce_scatter_case(const char *alg, int count)
{
    long n = (long)count * size;
    int *send = ints(n), *mine = ints(count), *ref = ints(count);
    fill(send, n, count);
    MPI_Reduce_scatter_block(send, ref, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Reduce_scatter_block(send, mine, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(same(ref, mine, count), "reduce_scatter_block %s count %d", alg, count);
    int *counts = ints(size);
    for (int r = 0; r < size; r++)
        counts[r] = count;
    CHECK_TDM(TDM_Set_algorithm("reduce_scatter", alg)); /* the same algorithms */
    CHECK_TDM(TDM_Reduce_scatter(MPI_IN_PLACE, send, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(same(ref, send, count), "reduce_scatter %s count %d in place", alg, count);
    free(send), free(mine), free(ref), free(counts);
}

static void allgather_case(const char *alg, int count)
{
    long n = (long)count * size;
    int *send = ints(count), *mine = ints(n), *ref = ints(n);
    fill(send, count, count);
    MPI_Allgather(send, count, MPI_INT, ref, count, MPI_INT, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Allgather(send, count, MPI_INT, mine, count, MPI_INT, MPI_COMM_WORLD));
    check(same(ref, mine, n), "allgather %s count %d", alg, count);
    memset(mine, 0, sizeof(int) * (size_t)n);
    memcpy(mine + (long)rank * count, send, sizeof(int) * (size_t)count);
    CHECK_TDM(TDM_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, count, MPI_INT, MPI_COMM_WORLD));
    check(same(ref, mine, n), "allgather %s count %d in place", alg, count);
    free(send), free(mine), free(ref);
}

static void bcast_case(const char *alg, int count)
{
    int root = count % size;
    int *mine = ints(count), *ref = ints(count);
    fill(mine, count, count);
    memcpy(ref, mine, sizeof(int) * (size_t)count);
    MPI_Bcast(ref, count, MPI_INT, root, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Bcast(mine, count, MPI_INT, root, MPI_COMM_WORLD));
    check(same(ref, mine, count), "bcast %s count %d root %d", alg, count, root);
    free(mine), free(ref);
}

static void reduce_case(const char *alg, int count)
{
    int root = (count + 5) % size;
    int *send = ints(count), *mine = ints(count), *ref = ints(count);
    fill(send, count, count);
    MPI_Reduce(send, ref, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Reduce(send, mine, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    check(rank != root || same(ref, mine, count), "reduce %s count %d root %d", alg, count, root);
    free(send), free(mine), free(ref);
}

static void gather_scatter_case(const char *alg, int count)
{
    int root = size - 1 - count % size;
    long n = (long)count * size;
    int *block = ints(count), *all = ints(n), *ref = ints(n), *back = ints(count);
    fill(block, count, count);
    MPI_Gather(block, count, MPI_INT, ref, count, MPI_INT, root, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Gather(block, count, MPI_INT, all, count, MPI_INT, root, MPI_COMM_WORLD));
    check(rank != root || same(ref, all, n), "gather %s count %d root %d", alg, count, root);
    CHECK_TDM(TDM_Set_algorithm("scatter", alg)); /* the same algorithms */
    CHECK_TDM(TDM_Scatter(ref, count, MPI_INT, back, count, MPI_INT, root, MPI_COMM_WORLD));
    check(same(block, back, count), "scatter %s count %d root %d", alg, count, root);
    free(block), free(all), free(ref), free(back);
}

static void alltoall_case(const char *alg, int count)
{
    long n = (long)count * size;
    int *send = ints(n), *mine = ints(n), *ref = ints(n);
    fill(send, n, count);
    MPI_Alltoall(send, count, MPI_INT, ref, count, MPI_INT, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Alltoall(send, count, MPI_INT, mine, count, MPI_INT, MPI_COMM_WORLD));
    check(same(ref, mine, n), "alltoall %s count %d", alg, count);
    free(send), free(mine), free(ref);
}

static void scan_case(const char *alg, int count)
{
    int *send = ints(count), *mine = ints(count), *ref = ints(count);
    fill(send, count, count);
    MPI_Scan(send, ref, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Scan(send, mine, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(same(ref, mine, count), "scan %s count %d", alg, count);
    free(send), free(mine), free(ref);
}

static void barrier_case(const char *alg, int count)
{
    (void)count;
    CHECK_TDM(TDM_Barrier(MPI_COMM_WORLD));
    check(1, "barrier %s", alg);
}

/* Three collectives outstanding on the world and two on a split communicator, completed together. */
static void outstanding_at_once(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    enum { N = 3000 };
    int *a = ints(N), *b = ints(N), *c = ints((long)N * size), *d = ints(N), *e = ints(N);
    int *ra = ints(N), *rb = ints(N), *rc = ints((long)N * size), *rd = ints(N), *re = ints(N);
    fill(a, N, 1), fill(d, N, 2), fill(e, N, 3), fill(b, N, 4);
    MPI_Allreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(a, N, MPI_INT, rc, N, MPI_INT, MPI_COMM_WORLD);
    memcpy(rb, b, sizeof(int) * N);
    MPI_Bcast(rb, N, MPI_INT, 3 % size, MPI_COMM_WORLD);
    MPI_Allreduce(d, rd, N, MPI_INT, MPI_MAX, half);
    memcpy(re, e, sizeof(int) * N);
    int half_size;
    MPI_Comm_size(half, &half_size);
    MPI_Bcast(re, N, MPI_INT, 1 % half_size, half);
    int *sum = ints(N);
    TDM_Request reqs[5];
    CHECK_TDM(TDM_Iallreduce(a, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
    CHECK_TDM(TDM_Iallreduce(d, d, 0, MPI_INT, MPI_MAX, half, &reqs[1])); /* count 0 between them */
    CHECK_TDM(TDM_Iallgather(a, N, MPI_INT, c, N, MPI_INT, MPI_COMM_WORLD, &reqs[2]));
    CHECK_TDM(TDM_Ibcast(b, N, MPI_INT, 3 % size, MPI_COMM_WORLD, &reqs[3]));
    CHECK_TDM(TDM_Ibcast(e, N, MPI_INT, 1 % half_size, half, &reqs[4]));
    CHECK_TDM(TDM_Waitall(5, reqs, MPI_STATUSES_IGNORE));
    TDM_Request last;
    CHECK_TDM(TDM_Iallreduce(MPI_IN_PLACE, d, N, MPI_INT, MPI_MAX, half, &last));
    CHECK_TDM(TDM_Wait(&last, MPI_STATUS_IGNORE));
    check(same(ra, sum, N) && same(rc, c, (long)N * size) && same(rb, b, N), "outstanding on the world");
    check(same(rd, d, N) && same(re, e, N), "outstanding on the split communicator");
    MPI_Comm_free(&half);
    free(a), free(b), free(c), free(d), free(e), free(ra), free(rb), free(rc), free(rd), free(re), free(sum);
}

static void threads_refused(void)
{
    int rc = TDM_Set_progress("thread");
    check(rc == MPI_ERR_OTHER && strstr(TDM_Last_error(), "SMPI cannot simulate threads"),
          "thread progress in simulation: %d, %s", rc, TDM_Last_error());
    rc = TDM_Set_progress("split");
    check(rc == MPI_ERR_OTHER, "split progress in simulation: %d", rc);
    CHECK_TDM(TDM_Set_progress("inline"));
}

/* A ring allreduce reduces (p-1)/p of the vector on every rank: its simulated time cannot be less than
 * that many bytes times gamma = 1/(the host's speed), which only holds if the reductions are charged. */
static void reductions_charged(void)
{
    enum { COUNT = 1 << 18 }; /* 1 MiB of ints */
    int *send = ints(COUNT), *recv = ints(COUNT);
    fill(send, COUNT, 7);
    CHECK_TDM(TDM_Set_algorithm("allreduce", "ring"));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CHECK_TDM(TDM_Allreduce(send, recv, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Set_algorithm("allreduce", "auto"));
    double gamma = 1 / sg_host_get_speed(sg_host_self());
    double bound = (double)(size - 1) / size * COUNT * sizeof(int) * gamma;
    check(size == 1 || slowest >= 0.999 * bound, "ring allreduce of 1 MiB took %g s, below the %g s of its reductions",
          slowest, bound);
    if (rank == 0)
        printf("ring allreduce of 1 MiB: %g simulated s; its reductions alone: %g s\n", slowest, bound);
    free(send), free(recv);
}

/* With TANDEM_SMPI_COPY_NS_PER_BYTE=c the torus bucket allgather on a torus of two or more dimensions,
 * which copies the whole gathered vector out of its temporary, takes at least that many bytes times c
 * (its messages alone take a fraction of it). Runs only where the variable is set. */
/* The simulated segment (smpi_support.h): every host of more than one rank has one (unless
 * TANDEM_SHM=off), so that the node algorithms' steps inside it, checked below against SMPI's
 * collectives, run through its cells. */
static void segment_made(void)
{
    const char *shm = getenv("TANDEM_SHM");
    int wanted = tdm_node_size() > 1 && !(shm && strcmp(shm, "off") == 0);
    check(tdm_node_has_segment() == wanted, "a node of %d ranks %s a segment", tdm_node_size(),
          tdm_node_has_segment() ? "has" : "has no");
}

static void copies_charged(void)
{
    const char *env = getenv("TANDEM_SMPI_COPY_NS_PER_BYTE");
    if (!env || size < 4)
        return;
    enum { COUNT = 1 << 12 }; /* ints per rank */
    int *send = ints(COUNT), *recv = ints((size_t)COUNT * size);
    fill(send, COUNT, 3);
    CHECK_TDM(TDM_Set_algorithm("allgather", "torus_bucket"));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CHECK_TDM(TDM_Allgather(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, MPI_COMM_WORLD));
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Set_algorithm("allgather", "auto"));
    long wrong = 0;
    for (int b = 0; b < size; b++)
        for (long i = 0; i < COUNT; i++)
            wrong += recv[(size_t)b * COUNT + i] != value(b, i, 3);
    check(wrong == 0, "torus bucket allgather: %ld elements wrong", wrong);
    double bound = (double)COUNT * size * sizeof(int) * atof(env) * 1e-9;
    check(slowest >= 0.999 * bound, "torus bucket allgather took %g s, below the %g s of copying its result",
          slowest, bound);
    if (rank == 0)
        printf("torus bucket allgather of %d x 16 KiB: %g simulated s; copying its result alone: %g s\n", size,
               slowest, bound);
    free(send), free(recv);
}

int main(int argc, char **argv)
{
    harness_init("test_smpi", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* counts: none, one, odd, and more elements than ranks x 2N colors that do not divide evenly */
    const int counts[] = {0, 1, 37, 2000};
    const int nc = sizeof counts / sizeof counts[0];
    const int small[] = {0, 1, 19};
    segment_made();
    each_algorithm("allreduce", allreduce_case, counts, nc);
    each_algorithm("reduce_scatter_block", reduce_scatter_case, small, 3);
    each_algorithm("allgather", allgather_case, small, 3);
    each_algorithm("bcast", bcast_case, counts, nc);
    each_algorithm("reduce", reduce_case, counts, nc);
    each_algorithm("gather", gather_scatter_case, small, 3);
    CHECK_TDM(TDM_Set_algorithm("reduce_scatter", "auto"));
    CHECK_TDM(TDM_Set_algorithm("scatter", "auto"));
    each_algorithm("alltoall", alltoall_case, small, 3);
    each_algorithm("scan", scan_case, small, 3);
    each_algorithm("barrier", barrier_case, small, 1);
    outstanding_at_once();
    threads_refused();
    reductions_charged();
    copies_charged();
    return harness_finish();
}

/*
 * The simulated segment's waits (src/base/smpi_support.h), run with small cells (TANDEM_SHM_CELL_BYTES,
 * tests/smpi/CMakeLists.txt) so that every node call pipelines through many of them. Simulated ranks run
 * one at a time, and only until they take simulated time: a wait for a cell that takes none never ends.
 * - Many node calls in flight on two communicators (the world's even and odd ranks), their results
 *   against SMPI's collectives: a round whose message a blocking wait completed while its cells were
 *   not used to be tested forever (SMPI's MPI_Test of a null request with no status says not done).
 * - A program's own test loop on a node call that another rank of its host starts late: each test that
 *   finds nothing takes a poll's time, as SMPI charges an MPI_Test, so the late rank runs.
 * - A long pipelined call's simulated time stays that of its cells: a wait's polls grow with the wait,
 *   and a wait begins again at each step done (they grew with the whole call: 200 KB through 64-byte
 *   cells took 16 simulated seconds).
 */
#include "harness.h"

#include <smpi/smpi.h>
#include <string.h>

#define IN_FLIGHT 10
#define COUNT 1000

static int world_rank;

static void in_flight(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
    int rank, size;
    MPI_Comm_rank(half, &rank);
    MPI_Comm_size(half, &size);
    int *in = malloc(sizeof(int) * IN_FLIGHT * COUNT), *sums = malloc(sizeof(int) * IN_FLIGHT * COUNT);
    int *data = malloc(sizeof(int) * IN_FLIGHT * COUNT), *ref = malloc(sizeof(int) * IN_FLIGHT * COUNT * 2);
    for (int k = 0; k < IN_FLIGHT; k++)
        for (int i = 0; i < COUNT; i++) {
            in[k * COUNT + i] = rank * 7 + i + k;
            data[k * COUNT + i] = rank == k % size ? i * k : -1;
        }
    memcpy(&ref[IN_FLIGHT * COUNT], data, sizeof(int) * IN_FLIGHT * COUNT);
    /* the communicator's first calls: its ranks come to them at their own times */
    TDM_Request reqs[2 * IN_FLIGHT];
    for (int k = 0; k < IN_FLIGHT; k++) {
        CHECK_TDM(TDM_Iallreduce(&in[k * COUNT], &sums[k * COUNT], COUNT, MPI_INT, MPI_BXOR, half, &reqs[2 * k]));
        CHECK_TDM(TDM_Ibcast(&data[k * COUNT], COUNT, MPI_INT, k % size, half, &reqs[2 * k + 1]));
    }
    CHECK_TDM(TDM_Waitall(2 * IN_FLIGHT, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < IN_FLIGHT; k++) {
        MPI_Allreduce(&in[k * COUNT], &ref[k * COUNT], COUNT, MPI_INT, MPI_BXOR, half);
        MPI_Bcast(&ref[(IN_FLIGHT + k) * COUNT], COUNT, MPI_INT, k % size, half);
    }
    check(memcmp(sums, ref, sizeof(int) * IN_FLIGHT * COUNT) == 0, "%d node allreduces in flight: not SMPI's",
          IN_FLIGHT);
    check(memcmp(data, &ref[IN_FLIGHT * COUNT], sizeof(int) * IN_FLIGHT * COUNT) == 0,
          "%d node bcasts in flight: not SMPI's", IN_FLIGHT);
    free(in), free(sums), free(data), free(ref);
    MPI_Comm_free(&half);
}

static void test_loop(void)
{
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &host);
    int rank;
    MPI_Comm_rank(host, &rank);
    enum { SHORT = 10 }; /* in one cell: the call waits for cells only, no MPI request tests take time */
    int in[SHORT], out[SHORT], ref[SHORT];
    for (int i = 0; i < SHORT; i++)
        in[i] = rank * 3 + i;
    MPI_Allreduce(in, ref, SHORT, MPI_INT, MPI_SUM, host);
    CHECK_TDM(TDM_Allreduce(in, out, SHORT, MPI_INT, MPI_SUM, host)); /* its duplicate and ring are made */
    if (rank == 0)
        smpi_execute_benched(1e-3); /* the others reach their test loops first (simulated computation) */
    TDM_Request req;
    memset(out, 0, sizeof out);
    CHECK_TDM(TDM_Iallreduce(in, out, SHORT, MPI_INT, MPI_SUM, host, &req));
    int flag = 0;
    while (!flag)
        CHECK_TDM(TDM_Test(&req, &flag, MPI_STATUS_IGNORE));
    check(memcmp(out, ref, sizeof ref) == 0, "a node allreduce completed by a test loop: not SMPI's");
    MPI_Comm_free(&host);
}

static void pipelined_time(void)
{
    enum { LONG = 50000 }; /* 200 KB: 3,125 cells of 64 bytes on every rank */
    int *in = malloc(sizeof(int) * LONG), *out = malloc(sizeof(int) * LONG), *ref = malloc(sizeof(int) * LONG);
    for (int i = 0; i < LONG; i++)
        in[i] = world_rank + i;
    MPI_Allreduce(in, ref, LONG, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    CHECK_TDM(TDM_Allreduce(in, out, LONG, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    double took = MPI_Wtime() - start, slowest;
    MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    check(memcmp(out, ref, sizeof(int) * LONG) == 0, "a pipelined node allreduce: not SMPI's");
    /* a flag (0.2 us) and a poll's slice for each of a rank's cells in and out, and their copies and
     * reductions, are some 2 ms; the rest of the call is the hosts' allreduce */
    check(slowest < 0.02, "a node allreduce of 200 KB through 64-byte cells took %g simulated s", slowest);
    if (world_rank == 0)
        printf("node allreduce of 200 KB through 64-byte cells: %g simulated s\n", slowest);
    free(in), free(out), free(ref);
}

int main(int argc, char **argv)
{
    harness_init("test_smpi_cells", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    CHECK_TDM(TDM_Set_algorithm("allreduce", "node"));
    CHECK_TDM(TDM_Set_algorithm("bcast", "node"));
    in_flight();
    test_loop();
    pipelined_time();
    return harness_finish();
}

/*
 * A DCP's memory when its clients run ahead (issue 52): the clients of the first DCP start many 1 MiB
 * reduces on a communicator X, then a blocking allreduce on Y; the other ranks make the allreduce first,
 * then the reduces one at a time, so none of the reduces can complete until the first DCP's clients
 * have started them all. A DCP takes a call's data only when it can use it, so it holds the calls'
 * headers, a few MiB ahead and the calls that run; before, it received every call's data as its header
 * came (600 MiB here).
 *
 * Every process runs under a data limit (RLIMIT_DATA, set before MPI_Init: `limit` MiB above what it
 * uses then, 256 by default), so that a DCP that buffered the calls would fail to allocate and end the
 * job. The reduces' results are checked at their root, the allreduce against MPI's.
 *   test_dcp_lagging [calls [limit]]     (300 reduces by default)
 * With TANDEM_DCP_SEGMENT above 1 MiB the calls are whole messages, else segmented. Not under the
 * sanitizers (their shadow memory counts as data); 3 application ranks and 2 DCPs.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { COUNT = 1 << 18 }; /* ints: 1 MiB */

/* Element i of a second-group rank's contribution to reduce k: differs from call to call. */
static int lagging_value(int rank, int k, int i) { return rank * 1000 + k * 7 + (i & 1023); }
static int leading_value(int rank, int i) { return rank * 3 + (i & 511); }

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 300;
    long limit_mib = argc > 2 ? atol(argv[2]) : 256;
    long now = harness_data_bytes();
    struct rlimit old, tight;
    getrlimit(RLIMIT_DATA, &old);
    tight = (struct rlimit){(rlim_t)(now + (limit_mib << 20)), old.rlim_max};
    if (now <= 0 || setrlimit(RLIMIT_DATA, &tight) != 0) {
        fprintf(stderr, "test_dcp_lagging: cannot limit the data of the process\n");
        return 2;
    }
    harness_init("test_dcp_lagging", &argc, &argv);
    MPI_Comm world = harness_world();
    int rank, size, dcp, first, clients, same_node;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    CHECK_TDM(TDM_Get_dcp_placement(&dcp, &first, &clients, &same_node));
    int leading_dcp = dcp;
    MPI_Bcast(&leading_dcp, 1, MPI_INT, 0, world);
    int leading = dcp == leading_dcp; /* served by the first rank's DCP */
    int *is_leading = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&leading, 1, MPI_INT, is_leading, 1, MPI_INT, world);
    int root = 0, sum_leading = 0;
    while (root < size && is_leading[root])
        root++;
    for (int r = 0; r < size; r++)
        sum_leading += is_leading[r] ? r * 3 : 0;
    check(dcp >= 0 && root < size, "needs dcp progress and ranks served by two DCPs");
    if (dcp < 0 || root == size)
        return harness_finish();

    MPI_Comm x, y;
    MPI_Comm_dup(world, &x);
    MPI_Comm_dup(world, &y);
    int *send = malloc(sizeof(int) * COUNT), *got = rank == root ? malloc(sizeof(int) * COUNT) : NULL;
    int mine = rank + 1, total = 0, want = size * (size + 1) / 2;
    if (leading) {
        TDM_Request *reqs = malloc(sizeof *reqs * (size_t)calls);
        for (int i = 0; i < COUNT; i++)
            send[i] = leading_value(rank, i);
        for (int k = 0; k < calls; k++) /* one send buffer for all: MPI lets concurrent calls read it */
            CHECK_TDM(TDM_Ireduce(send, NULL, COUNT, MPI_INT, MPI_SUM, root, x, &reqs[k]));
        CHECK_TDM(TDM_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, y));
        CHECK_TDM(TDM_Waitall(calls, reqs, MPI_STATUSES_IGNORE));
        free(reqs);
    } else {
        CHECK_TDM(TDM_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, y));
        int wrong = 0;
        for (int k = 0; k < calls; k++) {
            for (int i = 0; i < COUNT; i++)
                send[i] = lagging_value(rank, k, i);
            CHECK_TDM(TDM_Reduce(send, got, COUNT, MPI_INT, MPI_SUM, root, x));
            for (int i = 0; rank == root && i < COUNT && !wrong; i++) {
                int expect = sum_leading;
                for (int r = 0; r < size; r++)
                    expect += is_leading[r] ? (i & 511) : lagging_value(r, k, i);
                if (got[i] != expect) {
                    check(0, "reduce %d: element %d is %d, expected %d", k, i, got[i], expect);
                    wrong = 1;
                }
            }
        }
        check(rank != root || !wrong, "every reduce's result at the root");
    }
    check(total == want, "the allreduce on the other communicator: %d, expected %d", total, want);
    free(send);
    free(got);
    free(is_leading);
    MPI_Comm_free(&x);
    MPI_Comm_free(&y);
    return harness_finish();
}

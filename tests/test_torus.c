/*
 * Torus bucket algorithms on a Cartesian communicator: the torus is the communicator's own topology
 * (MPI_Cart_create over MPI_Dims_create's 3-D factorization), which the schedule dump must name;
 * allreduce, reduce_scatter_block and allgather in both directions, compared with MPI's results.
 */
#include "harness.h"

#include <string.h>

static int value(int r, int i) { return r * 1000 + i * 7 - 3; }

int main(int argc, char **argv)
{
    harness_init("test_torus", &argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int rank;
    MPI_Comm_rank(cart, &rank);
    char expected[64] = "torus ";
    for (int i = 0, first = 1; i < 3; i++) /* the dump names the dimensions longer than 1 */
        if (dims[i] > 1) {
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%d", first ? "" : "x", dims[i]);
            first = 0;
        }
    enum { BLOCK = 13 };
    int n = BLOCK * size;
    int *send = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n),
        *want = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        send[i] = value(rank, i);
    const char *forms[2] = {"torus_bucket", "torus_bucket_uni"};
    for (int f = 0; f < 2; f++) {
        CHECK_TDM(TDM_Set_algorithm("allreduce", forms[f]));
        CHECK_TDM(TDM_Set_algorithm("reduce_scatter_block", forms[f]));
        CHECK_TDM(TDM_Set_algorithm("allgather", forms[f]));

        TDM_Request req;
        CHECK_TDM(TDM_Iallreduce(send, got, n, MPI_INT, MPI_SUM, cart, &req));
        if (size > 1) {
            char *dump = NULL;
            size_t len = 0;
            FILE *out = open_memstream(&dump, &len);
            TDM_Request_dump(req, out);
            fclose(out);
            check(dump && strstr(dump, expected), "the dump of a %s schedule should name the %s: %s", forms[f], expected,
                  dump ? dump : "(none)");
            free(dump);
        }
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Allreduce(send, want, n, MPI_INT, MPI_SUM, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)n) == 0, "allreduce %s on the Cartesian communicator", forms[f]);

        CHECK_TDM(TDM_Reduce_scatter_block(send, got, BLOCK, MPI_INT, MPI_SUM, cart));
        MPI_Reduce_scatter_block(send, want, BLOCK, MPI_INT, MPI_SUM, cart);
        check(memcmp(got, want, sizeof(int) * BLOCK) == 0, "reduce_scatter_block %s", forms[f]);

        CHECK_TDM(TDM_Allgather(send, BLOCK, MPI_INT, got, BLOCK, MPI_INT, cart));
        MPI_Allgather(send, BLOCK, MPI_INT, want, BLOCK, MPI_INT, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)n) == 0, "allgather %s", forms[f]);
    }
    free(send), free(got), free(want);
    MPI_Comm_free(&cart);
    return harness_finish();
}

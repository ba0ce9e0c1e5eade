/*
 * An erroneous program: the two clients of one DCP call an allreduce with different counts. The DCP
 * must end the job with a message naming the disagreement, instead of combining past the shorter
 * contribution (the ctest expects the message; the test fails if the allreduce returns).
 */
#include "harness.h"

int main(int argc, char **argv)
{
    harness_init("test_dcp_mismatch", &argc, &argv); /* a DCP never returns from it */
    MPI_Comm app = TDM_Comm_world();
    int rank, in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    MPI_Comm_rank(app, &rank);
    TDM_Allreduce(in, out, rank == 0 ? 4 : 8, MPI_INT, MPI_SUM, app);
    fprintf(stderr, "test_dcp_mismatch: rank %d: the allreduce returned\n", rank);
    return harness_finish();
}

/*
 * A call the dedicated collective processes cannot carry must stop the job, not leave the other ranks
 * waiting: a gatherv whose root would get more than INT_MAX bytes from its DCP in one message (under
 * TANDEM_DCP_SEGMENT=0, which the ctest sets: in segments it would be carried). Only
 * the root knows the total; it gets MPI_ERR_COUNT and its DCP stops the job with a message (the ctest
 * expects both). The other ranks send small blocks (what they send does not matter: the root refuses
 * the call as soon as it sees its counts, before any data moves); their gatherv completes with their
 * send, and their next call, an allreduce, would wait for the root's gatherv forever. The test fails if
 * that allreduce returns or the job outlives its timeout.
 */
#include "harness.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (TDM_Init(&argc, &argv) != MPI_SUCCESS) { /* a DCP never returns from it */
        fprintf(stderr, "test_dcp_too_long: TDM_Init failed: %s\n", TDM_Last_error());
        return 2;
    }
    MPI_Comm app = TDM_Comm_world();
    int rank, size;
    MPI_Comm_rank(app, &rank);
    MPI_Comm_size(app, &size);
    char block[8] = {0}, small[64];
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) { /* in all, past INT_MAX: the root's buffer is never written */
        counts[r] = INT_MAX / 2;
        displs[r] = 0;
    }
    int rc = TDM_Gatherv(block, rank == 0 ? 0 : 8, MPI_BYTE, small, counts, displs, MPI_BYTE, 0, app);
    if (rank == 0) {
        char name[MPI_MAX_ERROR_STRING];
        int len, class;
        MPI_Error_class(rc, &class);
        MPI_Error_string(class, name, &len);
        fprintf(stderr, "test_dcp_too_long: the root's gatherv: error class %d (%s): %s\n", class, name,
                TDM_Last_error());
        for (;;) /* until the job stops */
            sleep(1);
    }
    double x = 1, y = 0;
    rc = TDM_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, app);
    fprintf(stderr, "test_dcp_too_long: FAIL: rank %d's allreduce after the gatherv returned (%d)\n", rank, rc);
    TDM_Finalize();
    return 1;
}

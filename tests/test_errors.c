/*
 * Every bad input returns its MPI error class and a message naming the function and the argument,
 * and the program carries on: a correct collective after each error must still give MPI's answer.
 */
#include "harness.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The call must fail with error_class and a message mentioning fn and what. */
#define EXPECT_ERROR(error_class, fn, what, call)                                                       \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        check(rc_ == (error_class), "%s: got %d, expected %s (%d); message: %s", #call, rc_, #error_class, \
              error_class, TDM_Last_error());                                                           \
        check(strstr(TDM_Last_error(), fn) != NULL && strstr(TDM_Last_error(), what) != NULL,          \
              "%s: message \"%s\" does not name %s and %s", #call, TDM_Last_error(), fn, what);         \
        carry_on();                                                                                     \
    } while (0)

/* A correct collective works after the error. */
static void carry_on(void)
{
    int rank, mine, sum = -1, expected;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank + 1;
    check(TDM_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "allreduce after an error failed: %s", TDM_Last_error());
    MPI_Allreduce(&mine, &expected, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(sum == expected, "allreduce after an error gave %d, expected %d", sum, expected);
}

int main(int argc, char **argv)
{
    int buf[16] = {0}, out[16] = {0}, counts[16], displs[16];
    TDM_Request req = TDM_REQUEST_NULL;

    int flag = -1;
    check(TDM_Initialized(&flag) == MPI_SUCCESS && flag == 0, "TDM_Initialized before TDM_Init must say 0");
    /* Before TDM_Init (MPI is not even initialized): a clear error, no crash. */
    check(TDM_Iallreduce(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_ERR_OTHER,
          "a call before TDM_Init must fail with MPI_ERR_OTHER");
    check(strstr(TDM_Last_error(), "TDM_Init") != NULL, "message should mention TDM_Init: %s", TDM_Last_error());

    /* An unknown algorithm in the environment makes TDM_Init fail with MPI_ERR_ARG; fixed, it works. */
    setenv("TANDEM_ALLREDUCE", "bogus", 1);
    int rc = TDM_Init(&argc, &argv);
    int init_failed = rc == MPI_ERR_ARG && strstr(TDM_Last_error(), "TANDEM_ALLREDUCE=bogus") &&
                      strstr(TDM_Last_error(), "ring");
    unsetenv("TANDEM_ALLREDUCE");
    /* the same for the progress mode and its placement */
    setenv("TANDEM_PROGRESS", "fast", 1);
    rc = TDM_Init(&argc, &argv);
    int progress_failed = rc == MPI_ERR_ARG && strstr(TDM_Last_error(), "TANDEM_PROGRESS=fast") &&
                          strstr(TDM_Last_error(), "thread");
    unsetenv("TANDEM_PROGRESS");
    setenv("TANDEM_PROGRESS_PLACEMENT", "cores:x", 1);
    rc = TDM_Init(&argc, &argv);
    int placement_failed = rc == MPI_ERR_ARG && strstr(TDM_Last_error(), "cores:x");
    unsetenv("TANDEM_PROGRESS_PLACEMENT");
    harness_init("test_errors", &argc, &argv);
    check(init_failed, "TDM_Init with TANDEM_ALLREDUCE=bogus: expected MPI_ERR_ARG listing the known names");
    check(progress_failed, "TDM_Init with TANDEM_PROGRESS=fast: expected MPI_ERR_ARG listing the modes");
    check(placement_failed, "TDM_Init with TANDEM_PROGRESS_PLACEMENT=cores:x: expected MPI_ERR_ARG");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm world = MPI_COMM_WORLD;
    for (int i = 0; i < 16; i++)
        counts[i] = 1, displs[i] = i;

    EXPECT_ERROR(MPI_ERR_OTHER, "TDM_Init", "already", TDM_Init(&argc, &argv));
    check(TDM_Initialized(&flag) == MPI_SUCCESS && flag == 1, "TDM_Initialized after TDM_Init must say 1");
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Initialized", "flag", TDM_Initialized(NULL));

    /* request pointer, communicator */
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iallreduce", "request",
                 TDM_Iallreduce(buf, out, 1, MPI_INT, MPI_SUM, world, NULL));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ibarrier", "comm", TDM_Ibarrier(MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Barrier", "comm", TDM_Barrier(MPI_COMM_NULL));
    if (size >= 2) { /* an inter-communicator between the two halves */
        MPI_Comm half, inter;
        MPI_Comm_split(world, rank < size / 2, rank, &half);
        MPI_Intercomm_create(half, 0, world, rank < size / 2 ? size / 2 : 0, 7, &inter);
        EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ibcast", "inter-communicator",
                     TDM_Ibcast(buf, 1, MPI_INT, 0, inter, &req));
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    /* counts */
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iallreduce", "count", TDM_Iallreduce(buf, out, -1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Bcast", "count", TDM_Bcast(buf, -5, MPI_INT, 0, world));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iallgather", "sendcount",
                 TDM_Iallgather(buf, -1, MPI_INT, out, 1, MPI_INT, world, &req));
    counts[size - 1] = -2;
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iallgatherv", "recvcounts",
                 TDM_Iallgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, world, &req));
    counts[size - 1] = 1;
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iallgatherv", "recvcounts",
                 TDM_Iallgatherv(buf, 1, MPI_INT, out, NULL, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ialltoallv", "sdispls",
                 TDM_Ialltoallv(buf, counts, NULL, MPI_INT, out, counts, displs, MPI_INT, world, &req));

    /* buffers */
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallreduce", "recvbuf",
                 TDM_Iallreduce(buf, NULL, 4, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ibcast", "buffer", TDM_Ibcast(NULL, 4, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallreduce", "sendbuf",
                 TDM_Iallreduce(buf, buf, 4, MPI_INT, MPI_SUM, world, &req));

    /* MPI_IN_PLACE where MPI forbids it */
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallreduce", "recvbuf",
                 TDM_Iallreduce(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ibcast", "buffer", TDM_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallgather", "recvbuf",
                 TDM_Iallgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world, &req));
    if (size >= 2) { /* at a non-root rank: rank 1 with root 0; the other ranks pass correct arguments */
        if (rank == 1) {
            EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce", "sendbuf",
                         TDM_Ireduce(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, 0, world, &req));
        } else {
            carry_on();
        }
    }

    /* datatypes and ops */
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Iallreduce", "datatype",
                 TDM_Iallreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Iallgather", "recvtype",
                 TDM_Iallgather(buf, 1, MPI_INT, out, 1, MPI_DATATYPE_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iallreduce", "op", TDM_Iallreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iallreduce", "MPI_SUM", TDM_Iallreduce(buf, out, 1, MPI_C_BOOL, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iallreduce", "MPI_BAND", TDM_Iallreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iallreduce", "MPI_MINLOC", TDM_Iallreduce(buf, out, 1, MPI_INT, MPI_MINLOC, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iscan", "MPI_REPLACE", TDM_Iscan(buf, out, 1, MPI_INT, MPI_REPLACE, world, &req));
    {
        typedef struct { int i; double d; } s_t;
        int bl[2] = {1, 1};
        MPI_Aint dp[2] = {offsetof(s_t, i), offsetof(s_t, d)};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, mixed;
        MPI_Type_create_struct(2, bl, dp, ty, &mixed);
        MPI_Type_commit(&mixed);
        EXPECT_ERROR(MPI_ERR_OP, "TDM_Ireduce", "mixes", TDM_Ireduce(buf, out, 1, mixed, MPI_SUM, 0, world, &req));
        MPI_Type_free(&mixed);
    }

    /* roots */
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Ibcast", "root", TDM_Ibcast(buf, 1, MPI_INT, -1, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Ireduce", "root", TDM_Ireduce(buf, out, 1, MPI_INT, MPI_SUM, size, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Scatter", "root", TDM_Scatter(buf, 1, MPI_INT, out, 1, MPI_INT, size + 3, world));

    /* completion calls */
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Wait", "request", TDM_Wait(NULL, MPI_STATUS_IGNORE));
    TDM_Request stale;
    CHECK_TDM(TDM_Ibarrier(world, &req));
    stale = req;
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Wait", "request", TDM_Wait(&stale, MPI_STATUS_IGNORE));
    EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Test", "request", TDM_Test(&stale, &rc, MPI_STATUS_IGNORE));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Waitall", "count", TDM_Waitall(-1, &req, MPI_STATUSES_IGNORE));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Waitany", "requests", TDM_Waitany(2, NULL, &rc, MPI_STATUS_IGNORE));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Test", "flag", TDM_Test(&req, NULL, MPI_STATUS_IGNORE));
    {
        MPI_Status st;
        req = TDM_REQUEST_NULL;
        CHECK_TDM(TDM_Wait(&req, &st)); /* a null request completes at once with an empty status */
        check(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status expected");
    }

    /* algorithm names */
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Set_algorithm", "known: auto", TDM_Set_algorithm("allreduce", "fastest"));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Set_algorithm", "collective", TDM_Set_algorithm("allreduction", "ring"));
    /* the halfway form is the allgather's alone */
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Set_algorithm", "known: auto",
                 TDM_Set_algorithm("allreduce", "torus_bucket_halfway"));
    check(TDM_Algorithm_names("nonsense") == NULL, "names of an unknown collective should be NULL");

    /* An error from the MPI underneath is passed up: the ranks disagree on the count of a broadcast
     * (an erroneous program), so MPI reports truncation at the receivers. */
    if (size >= 2) {
        CHECK_TDM(TDM_Set_algorithm("bcast", "linear"));
        rc = TDM_Ibcast(buf, rank == 0 ? 8 : 4, MPI_INT, 0, world, &req);
        check(rc == MPI_SUCCESS, "the start itself is fine: %s", TDM_Last_error());
        rc = TDM_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == 0) {
            check(rc == MPI_SUCCESS, "the root's sends complete: %s", TDM_Last_error());
        } else {
            check(rc == MPI_ERR_TRUNCATE, "a receiver gets MPI's MPI_ERR_TRUNCATE, got %d: %s", rc, TDM_Last_error());
            check(strstr(TDM_Last_error(), "TDM_Wait") && strstr(TDM_Last_error(), "bcast_linear"),
                  "the message names the call and the schedule: %s", TDM_Last_error());
        }
        check(req == TDM_REQUEST_NULL, "a failed request is released too");
        CHECK_TDM(TDM_Set_algorithm("bcast", "auto"));
        carry_on();
    }
    return harness_finish();
}

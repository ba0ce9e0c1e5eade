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

/* Pairs outside the standard's list: Tandem accepts what the MPI underneath accepts, with MPI's result,
 * and refuses the rest with the error class MPI gives. */
static void beyond_the_standard(MPI_Comm world)
{
    struct {
        MPI_Datatype type;
        MPI_Op op;
    } pairs[] = {{MPI_CHAR, MPI_SUM}, {MPI_C_BOOL, MPI_SUM}, {MPI_DOUBLE, MPI_BAND}, {MPI_INT, MPI_MINLOC},
                 {MPI_WCHAR, MPI_MAX}, {MPI_C_DOUBLE_COMPLEX, MPI_MAX}, {MPI_CHAR, MPI_PROD},
                 {MPI_CHAR, MPI_BXOR}, {MPI_CHAR, MPI_MAXLOC}}; /* not MPI_LAND on MPI_DOUBLE: MPICH 4.0 aborts */
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        unsigned char in[64], ours[64], theirs[64];
        for (int b = 0; b < 64; b++)
            in[b] = (unsigned char)(b % 5 == 0 ? 0 : rank + b); /* a few zeros: logical ops see false */
        memset(ours, 0, sizeof ours);
        memset(theirs, 0, sizeof theirs);
        int count = 2, mpi_rc = MPI_OWN(MPI_Allreduce)(in, theirs, count, pairs[i].type, pairs[i].op, comm);
        int mpi_class = MPI_SUCCESS;
        MPI_Error_class(mpi_rc, &mpi_class);
        int rc = TDM_Allreduce(in, ours, count, pairs[i].type, pairs[i].op, comm);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_get_name(pairs[i].type, name, &len);
        check(rc == mpi_class, "pair %zu (%s): Tandem gives class %d, MPI %d: %s", i, name, rc, mpi_class,
              rc ? TDM_Last_error() : "");
        if (rc == MPI_SUCCESS && mpi_class == MPI_SUCCESS)
            check(memcmp(ours, theirs, sizeof ours) == 0, "pair %zu (%s): not MPI's bytes", i, name);
        else if (rc != MPI_SUCCESS)
            check(strstr(TDM_Last_error(), "TDM_Allreduce") && strstr(TDM_Last_error(), "op"),
                  "pair %zu: the message names the call and the op: %s", i, TDM_Last_error());
    }
    MPI_Comm_free(&comm);
}

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* TDM_Op_free while calls apply the op: they finish with it, as MPI_Op_free allows for MPI's own. */
static void freed_op_in_flight(MPI_Comm world)
{
    enum { N = 1000, CALLS = 4 };
    static int in[N], got[CALLS][N], want[N];
    int rank;
    MPI_Comm_rank(world, &rank);
    for (int i = 0; i < N; i++)
        in[i] = rank * 7 + i;
    MPI_Op op;
    MPI_Op_create(int_sum, 1, &op);
    TDM_Request reqs[CALLS];
    for (int c = 0; c < CALLS; c++)
        CHECK_TDM(TDM_Iallreduce(in, got[c], N, MPI_INT, op, world, &reqs[c]));
    CHECK_TDM(TDM_Op_free(&op));
    check(op == MPI_OP_NULL, "TDM_Op_free sets the handle to MPI_OP_NULL");
    CHECK_TDM(TDM_Waitall(CALLS, reqs, MPI_STATUSES_IGNORE));
    REFERENCE(MPI_Iallreduce, in, want, N, MPI_INT, MPI_SUM, world);
    for (int c = 0; c < CALLS; c++)
        check(memcmp(got[c], want, sizeof want) == 0, "call %d with an op freed in flight: wrong sums", c);
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
    check(strstr(TDM_Last_error(), "TDM_Init") != NULL && strstr(TDM_Last_error(), "TDM_Iallreduce") != NULL,
          "message should name the call and TDM_Init: %s", TDM_Last_error());
    check(TDM_Wait(&req, MPI_STATUS_IGNORE) == MPI_ERR_OTHER && strstr(TDM_Last_error(), "TDM_Wait") != NULL,
          "TDM_Wait before TDM_Init must fail with MPI_ERR_OTHER naming TDM_Wait: %s", TDM_Last_error());

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
    /* A valid algorithm in the environment is forced (a two-word collective's variable included). */
    setenv("TANDEM_ALLREDUCE", "ring", 1);
    setenv("TANDEM_REDUCE_SCATTER_BLOCK", "pairwise", 1);
    harness_init("test_errors", &argc, &argv);
    unsetenv("TANDEM_ALLREDUCE");
    unsetenv("TANDEM_REDUCE_SCATTER_BLOCK");
    check(init_failed, "TDM_Init with TANDEM_ALLREDUCE=bogus: expected MPI_ERR_ARG listing the known names");
    check(progress_failed, "TDM_Init with TANDEM_PROGRESS=fast: expected MPI_ERR_ARG listing the modes");
    check(placement_failed, "TDM_Init with TANDEM_PROGRESS_PLACEMENT=cores:x: expected MPI_ERR_ARG");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm world = MPI_COMM_WORLD;
    for (int i = 0; i < 16; i++)
        counts[i] = 1, displs[i] = i;
    {
        const char *expected[3] = {"allreduce_ring", "reduce_scatter_pairwise", NULL}, *running[3];
        TDM_Request forced[3];
        CHECK_TDM(TDM_Iallreduce(buf, out, 4, MPI_INT, MPI_SUM, world, &forced[0]));
        CHECK_TDM(TDM_Ireduce_scatter_block(buf, out, 1, MPI_INT, MPI_SUM, world, &forced[1]));
        CHECK_TDM(TDM_Ireduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, world, &forced[2]));
        for (int i = 0; i < 3; i++)
            running[i] = TDM_Request_algorithm(forced[i]);
        CHECK_TDM(TDM_Waitall(3, forced, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 2; i++)
            check(running[i] && strcmp(running[i], expected[i]) == 0, "TANDEM_%s forced %s, but %s ran",
                  i ? "REDUCE_SCATTER_BLOCK" : "ALLREDUCE", expected[i], running[i] ? running[i] : "nothing");
        CHECK_TDM(TDM_Set_algorithm("allreduce", "auto"));
        CHECK_TDM(TDM_Set_algorithm("reduce_scatter_block", "auto"));
    }

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

    beyond_the_standard(world);
    freed_op_in_flight(world);
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Op_free", "op", TDM_Op_free(NULL));
    {
        MPI_Op null_op = MPI_OP_NULL, sum = MPI_SUM;
        EXPECT_ERROR(MPI_ERR_OP, "TDM_Op_free", "MPI_OP_NULL", TDM_Op_free(&null_op));
        EXPECT_ERROR(MPI_ERR_OP, "TDM_Op_free", "MPI_SUM", TDM_Op_free(&sum));
    }

    /* alltoallw's arrays (every rank gives the same bad argument) */
    {
        MPI_Datatype types[16], bad_types[16];
        for (int i = 0; i < 16; i++) {
            types[i] = MPI_INT;
            bad_types[i] = i == size - 1 ? MPI_DATATYPE_NULL : MPI_INT;
            counts[i] = 1;
            displs[i] = (int)sizeof(int) * i;
        }
        EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ialltoallw", "sendtypes",
                     TDM_Ialltoallw(buf, counts, displs, NULL, out, counts, displs, types, world, &req));
        EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Ialltoallw", "recvtypes[",
                     TDM_Ialltoallw(buf, counts, displs, types, out, counts, displs, bad_types, world, &req));
        EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ialltoallw", "rdispls",
                     TDM_Ialltoallw(buf, counts, displs, types, out, counts, NULL, types, world, &req));
        counts[0] = -1;
        EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Alltoallw", "sendcounts",
                     TDM_Alltoallw(buf, counts, displs, types, out, counts + 1, displs, types, world));
        EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ialltoallw", "recvbuf",
                     TDM_Ialltoallw(buf, counts + 1, displs, types, MPI_IN_PLACE, counts + 1, displs, types, world, &req));
    }

    /* persistent requests */
    {
        TDM_Request nb, pers[2];
        EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Allreduce_init", "count",
                     TDM_Allreduce_init(buf, out, -2, MPI_INT, MPI_SUM, world, MPI_INFO_NULL, &pers[0]));
        EXPECT_ERROR(MPI_ERR_ARG, "TDM_Start", "request", TDM_Start(NULL));
        CHECK_TDM(TDM_Allreduce_init(buf, out, 2, MPI_INT, MPI_SUM, world, MPI_INFO_NULL, &pers[0]));
        CHECK_TDM(TDM_Bcast_init(out + 4, 2, MPI_INT, 0, world, MPI_INFO_NULL, &pers[1]));
        CHECK_TDM(TDM_Ibarrier(world, &nb));
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Start", "not a persistent request", TDM_Start(&nb));
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Request_free", "TDM_Wait", TDM_Request_free(&nb));
        CHECK_TDM(TDM_Wait(&nb, MPI_STATUS_IGNORE));
        TDM_Request twice[2] = {pers[0], pers[0]};
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Startall", "requests[1]", TDM_Startall(2, twice));
        CHECK_TDM(TDM_Startall(2, pers));
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Start", "active", TDM_Start(&pers[0]));
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Request_free", "active", TDM_Request_free(&pers[1]));
        CHECK_TDM(TDM_Waitall(2, pers, MPI_STATUSES_IGNORE));
        CHECK_TDM(TDM_Request_free(&pers[0]));
        CHECK_TDM(TDM_Request_free(&pers[1]));
        EXPECT_ERROR(MPI_ERR_REQUEST, "TDM_Request_free", "request", TDM_Request_free(&pers[1]));
    }

    /* roots */
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Ibcast", "root", TDM_Ibcast(buf, 1, MPI_INT, -1, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Ireduce", "root", TDM_Ireduce(buf, out, 1, MPI_INT, MPI_SUM, size, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Scatter", "root", TDM_Scatter(buf, 1, MPI_INT, out, 1, MPI_INT, size + 3, world));

    /* Every collective checks its own arguments: the sweep below gives each one every kind of bad
     * argument it takes. Arguments significant at the root only are tried on MPI_COMM_SELF, where the
     * calling rank is the root, so that no other rank starts a call the root refuses. */
    MPI_Comm self = MPI_COMM_SELF;
    TDM_Request *no_request = NULL;
    /* the communicator */
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ibcast", "comm", TDM_Ibcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ireduce", "comm", TDM_Ireduce(buf, out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iallreduce", "comm", TDM_Iallreduce(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Igather", "comm", TDM_Igather(buf, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Igatherv", "comm",
                 TDM_Igatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iscatter", "comm", TDM_Iscatter(buf, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iscatterv", "comm",
                 TDM_Iscatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iallgather", "comm", TDM_Iallgather(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iallgatherv", "comm",
                 TDM_Iallgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ireduce_scatter", "comm",
                 TDM_Ireduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ireduce_scatter_block", "comm",
                 TDM_Ireduce_scatter_block(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ialltoall", "comm", TDM_Ialltoall(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Ialltoallv", "comm",
                 TDM_Ialltoallv(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iscan", "comm", TDM_Iscan(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Iexscan", "comm", TDM_Iexscan(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Allgather", "comm", TDM_Allgather(buf, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_NULL));
    /* the request pointer */
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ibarrier", "request", TDM_Ibarrier(world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ibcast", "request", TDM_Ibcast(buf, 1, MPI_INT, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ireduce", "request", TDM_Ireduce(buf, out, 1, MPI_INT, MPI_SUM, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Igather", "request", TDM_Igather(buf, 1, MPI_INT, out, 1, MPI_INT, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Igatherv", "request",
                 TDM_Igatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iscatter", "request", TDM_Iscatter(buf, 1, MPI_INT, out, 1, MPI_INT, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iscatterv", "request",
                 TDM_Iscatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, 0, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iallgather", "request", TDM_Iallgather(buf, 1, MPI_INT, out, 1, MPI_INT, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iallgatherv", "request",
                 TDM_Iallgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ireduce_scatter", "request",
                 TDM_Ireduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ireduce_scatter_block", "request",
                 TDM_Ireduce_scatter_block(buf, out, 1, MPI_INT, MPI_SUM, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ialltoall", "request", TDM_Ialltoall(buf, 1, MPI_INT, out, 1, MPI_INT, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Ialltoallv", "request",
                 TDM_Ialltoallv(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iscan", "request", TDM_Iscan(buf, out, 1, MPI_INT, MPI_SUM, world, no_request));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Iexscan", "request", TDM_Iexscan(buf, out, 1, MPI_INT, MPI_SUM, world, no_request));
    /* negative counts */
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Ireduce", "count", TDM_Ireduce(buf, out, -1, MPI_INT, MPI_SUM, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Igather", "sendcount", TDM_Igather(buf, -1, MPI_INT, out, 1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Igather", "recvcount", TDM_Igather(buf, 1, MPI_INT, out, -1, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iscatter", "recvcount", TDM_Iscatter(buf, 1, MPI_INT, out, -1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iscatter", "sendcount", TDM_Iscatter(buf, -1, MPI_INT, out, 1, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iallgather", "recvcount", TDM_Iallgather(buf, 1, MPI_INT, out, -1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Ireduce_scatter_block", "recvcount",
                 TDM_Ireduce_scatter_block(buf, out, -1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Ialltoall", "sendcount", TDM_Ialltoall(buf, -1, MPI_INT, out, 1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iscan", "count", TDM_Iscan(buf, out, -1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iexscan", "count", TDM_Iexscan(buf, out, -1, MPI_INT, MPI_SUM, world, &req));
    counts[0] = -1; /* the same on every rank, so that each one refuses the call */
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Ireduce_scatter", "recvcounts",
                 TDM_Ireduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Ialltoallv", "sendcounts",
                 TDM_Ialltoallv(buf, counts, displs, MPI_INT, out, counts + 1, displs, MPI_INT, self, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Igatherv", "recvcounts",
                 TDM_Igatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_COUNT, "TDM_Iscatterv", "sendcounts",
                 TDM_Iscatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, 0, self, &req));
    counts[0] = 1;
    /* NULL buffers with a count */
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce", "sendbuf", TDM_Ireduce(NULL, out, 4, MPI_INT, MPI_SUM, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce", "recvbuf", TDM_Ireduce(buf, NULL, 4, MPI_INT, MPI_SUM, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallreduce", "sendbuf", TDM_Iallreduce(NULL, out, 4, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Igather", "sendbuf", TDM_Igather(NULL, 1, MPI_INT, out, 1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Igather", "recvbuf", TDM_Igather(buf, 1, MPI_INT, NULL, 1, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscatter", "recvbuf", TDM_Iscatter(buf, 1, MPI_INT, NULL, 1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscatter", "sendbuf", TDM_Iscatter(NULL, 1, MPI_INT, out, 1, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallgather", "sendbuf", TDM_Iallgather(NULL, 1, MPI_INT, out, 1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallgatherv", "recvbuf",
                 TDM_Iallgatherv(buf, 1, MPI_INT, NULL, counts, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce_scatter_block", "recvbuf",
                 TDM_Ireduce_scatter_block(buf, NULL, 1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ialltoall", "sendbuf", TDM_Ialltoall(NULL, 1, MPI_INT, out, 1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ialltoallv", "recvbuf",
                 TDM_Ialltoallv(buf, counts, displs, MPI_INT, NULL, counts, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscan", "recvbuf", TDM_Iscan(buf, NULL, 4, MPI_INT, MPI_SUM, world, &req));
    /* invalid roots */
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Igather", "root", TDM_Igather(buf, 1, MPI_INT, out, 1, MPI_INT, -1, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Igatherv", "root",
                 TDM_Igatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, size, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Iscatterv", "root",
                 TDM_Iscatterv(buf, counts, displs, MPI_INT, out, 1, MPI_INT, -2, world, &req));
    EXPECT_ERROR(MPI_ERR_ROOT, "TDM_Bcast", "root", TDM_Bcast(buf, 1, MPI_INT, MPI_PROC_NULL, world));
    /* null datatypes and ops */
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Ibcast", "datatype", TDM_Ibcast(buf, 1, MPI_DATATYPE_NULL, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Iallgather", "sendtype",
                 TDM_Iallgather(buf, 1, MPI_DATATYPE_NULL, out, 1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Igather", "sendtype", TDM_Igather(buf, 1, MPI_DATATYPE_NULL, out, 1, MPI_INT, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Iscatter", "recvtype", TDM_Iscatter(buf, 1, MPI_INT, out, 1, MPI_DATATYPE_NULL, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Ialltoall", "recvtype", TDM_Ialltoall(buf, 1, MPI_INT, out, 1, MPI_DATATYPE_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Ialltoallv", "sendtype",
                 TDM_Ialltoallv(buf, counts, displs, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Iallgatherv", "recvtype",
                 TDM_Iallgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_DATATYPE_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_TYPE, "TDM_Ireduce_scatter_block", "datatype",
                 TDM_Ireduce_scatter_block(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Ireduce", "op", TDM_Ireduce(buf, out, 1, MPI_INT, MPI_OP_NULL, 0, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Ireduce_scatter", "op",
                 TDM_Ireduce_scatter(buf, out, counts, MPI_INT, MPI_OP_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Ireduce_scatter_block", "op",
                 TDM_Ireduce_scatter_block(buf, out, 1, MPI_INT, MPI_OP_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iscan", "op", TDM_Iscan(buf, out, 1, MPI_INT, MPI_OP_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Iexscan", "op", TDM_Iexscan(buf, out, 1, MPI_INT, MPI_OP_NULL, world, &req));
    EXPECT_ERROR(MPI_ERR_OP, "TDM_Ireduce_scatter_block", "MPI_LAND",
                 TDM_Ireduce_scatter_block(buf, out, 1, MPI_FLOAT, MPI_LAND, world, &req));
    /* MPI_IN_PLACE where MPI forbids it: as the receive buffer (sendbuf is the in-place one) ... */
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iallgatherv", "recvbuf",
                 TDM_Iallgatherv(buf, 1, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ialltoall", "recvbuf",
                 TDM_Ialltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ialltoallv", "recvbuf",
                 TDM_Ialltoallv(buf, counts, displs, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce_scatter", "recvbuf",
                 TDM_Ireduce_scatter(buf, MPI_IN_PLACE, counts, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Ireduce_scatter_block", "recvbuf",
                 TDM_Ireduce_scatter_block(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscan", "recvbuf", TDM_Iscan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world, &req));
    /* ... at the root, in the buffer MPI does not name (gather's recvbuf, scatter's sendbuf) ... */
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Igather", "recvbuf", TDM_Igather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, self, &req));
    EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscatter", "sendbuf", TDM_Iscatter(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, 0, self, &req));
    /* ... and at a non-root rank (rank 1, root 0; the other ranks pass correct arguments) */
    if (size >= 2) {
        if (rank == 1)
            EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Igather", "sendbuf",
                         TDM_Igather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, 0, world, &req));
        else
            carry_on();
        if (rank == 1)
            EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iscatter", "recvbuf",
                         TDM_Iscatter(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, world, &req));
        else
            carry_on();
        if (rank == 1) /* exscan's recvbuf is not significant at rank 0: any value goes there */
            EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Iexscan", "recvbuf",
                         TDM_Iexscan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world, &req));
        else
            carry_on();
        if (rank == 1)
            EXPECT_ERROR(MPI_ERR_BUFFER, "TDM_Igatherv", "sendbuf",
                         TDM_Igatherv(MPI_IN_PLACE, 1, MPI_INT, out, counts, displs, MPI_INT, 0, world, &req));
        else
            carry_on();
    }

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

    /* The model's estimate: a real one for a known collective, the bad arguments named */
    double latency = -1, cpu = -1;
    CHECK_TDM(TDM_Model_estimate("allgather", world, 1 << 16, &latency, &cpu));
    check((size == 1 ? latency >= 0 : latency > 0) && cpu >= 0, "allgather of 64 KiB: latency %g cpu %g", latency, cpu);
    double longer = -1;
    CHECK_TDM(TDM_Model_estimate("allgather", world, 1 << 20, &longer, &cpu));
    check(size == 1 || longer > latency, "1 MiB takes no longer than 64 KiB (%g, %g)", longer, latency);
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Model_estimate", "collective", TDM_Model_estimate("allgatter", world, 8, &latency, &cpu));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Model_estimate", "bytes", TDM_Model_estimate("allgather", world, -1, &latency, &cpu));
    EXPECT_ERROR(MPI_ERR_ARG, "TDM_Model_estimate", "latency", TDM_Model_estimate("allgather", world, 8, NULL, &cpu));
    EXPECT_ERROR(MPI_ERR_COMM, "TDM_Model_estimate", "comm", TDM_Model_estimate("allgather", MPI_COMM_NULL, 8, &latency, &cpu));
    return harness_finish();
}

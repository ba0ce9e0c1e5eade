/*
 * Dedicated collective processes (TANDEM_PROGRESS=dcp, TANDEM_DCP_COUNT or TANDEM_DCP_RATIO): the
 * application ranks see TDM_Comm_world() without the DCPs; allreduce, reduce, bcast and barrier of
 * predefined datatypes and ops through the DCPs give MPI's own results on it (one at a time, in place,
 * every root, 40 outstanding completed in any order); calls the DCPs do not serve yet (a user op, an
 * allgather) run inline and give MPI's results;
 * every rank, DCPs included, exits with status 0.
 */
#include "harness.h"

#include <string.h>

#define N 1000
#define OUTSTANDING 40

static int rank, size;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void served(TDM_Request req, const char *name)
{
    const char *running = TDM_Request_algorithm(req);
    check(running && strcmp(running, name) == 0, "a call the DCP serves runs %s, not %s", running ? running : "(null)",
          name);
}

static void same_as_mpi(MPI_Comm app, MPI_Datatype type, MPI_Op op, int count, int in_place)
{
    static long long in[N], ours[N], theirs[N];
    for (int i = 0; i < count; i++)
        in[i] = (rank + 1) * 7 + i % 13;
    if (type == MPI_DOUBLE)
        for (int i = 0; i < count; i++)
            ((double *)in)[i] = (double)((rank + 1) * 7 + i % 13);
    memcpy(ours, in, sizeof in);
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(in_place ? MPI_IN_PLACE : in, ours, count, type, op, app, &req));
    served(req, "allreduce_dcp");
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Allreduce(in, theirs, count, type, op, app);
    int bytes;
    MPI_Type_size(type, &bytes);
    check(memcmp(ours, theirs, (size_t)count * (size_t)bytes) == 0, "allreduce of %d elements (in place %d): not MPI's",
          count, in_place);
}

int main(int argc, char **argv)
{
    harness_init("test_dcp", &argc, &argv); /* a DCP never returns from it */
    MPI_Comm app = TDM_Comm_world();
    int world;
    MPI_Comm_rank(app, &rank);
    MPI_Comm_size(app, &size);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    const char *count = getenv("TANDEM_DCP_COUNT");
    check(count && size == world - atoi(count), "TDM_Comm_world() has %d ranks of %d, with %s DCPs", size, world,
          count ? count : "?");

    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_LONG_LONG, MPI_UNSIGNED_CHAR};
    MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR};
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < 4; o++)
            if (!(types[t] == MPI_DOUBLE && ops[o] == MPI_BXOR))
                for (int in_place = 0; in_place < 2; in_place++) {
                    same_as_mpi(app, types[t], ops[o], 1, in_place);
                    same_as_mpi(app, types[t], ops[o], N, in_place);
                }

    /* 40 outstanding, completed in reverse order */
    static int in[OUTSTANDING][64], out[OUTSTANDING][64], ref[OUTSTANDING][64];
    TDM_Request reqs[OUTSTANDING];
    for (int k = 0; k < OUTSTANDING; k++) {
        for (int i = 0; i < 64; i++)
            in[k][i] = rank * 100 + k * 3 + i;
        CHECK_TDM(TDM_Iallreduce(in[k], out[k], 64, MPI_INT, MPI_SUM, app, &reqs[k]));
    }
    for (int k = OUTSTANDING - 1; k >= 0; k--)
        CHECK_TDM(TDM_Wait(&reqs[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < OUTSTANDING; k++) {
        MPI_Allreduce(in[k], ref[k], 64, MPI_INT, MPI_SUM, app);
        check(memcmp(out[k], ref[k], sizeof ref[k]) == 0, "outstanding allreduce %d: not MPI's", k);
    }

    /* reduce and bcast from every root, barrier */
    for (int root = 0; root < size; root++) {
        int data[N], got[N], want[N];
        for (int i = 0; i < N; i++)
            data[i] = rank * 31 + root + i % 17;
        TDM_Request req;
        CHECK_TDM(TDM_Ireduce(data, got, N, MPI_INT, MPI_MAX, root, app, &req));
        served(req, "reduce_dcp");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Reduce(data, want, N, MPI_INT, MPI_MAX, root, app);
        check(rank != root || memcmp(got, want, sizeof want) == 0, "reduce to %d: not MPI's", root);
        if (rank == root) /* in place at the root */
            memcpy(got, data, sizeof data);
        CHECK_TDM(TDM_Reduce(rank == root ? MPI_IN_PLACE : data, got, N, MPI_INT, MPI_SUM, root, app));
        MPI_Reduce(data, want, N, MPI_INT, MPI_SUM, root, app);
        check(rank != root || memcmp(got, want, sizeof want) == 0, "reduce in place to %d: not MPI's", root);
        for (int i = 0; i < N; i++)
            got[i] = rank == root ? data[i] : -1;
        CHECK_TDM(TDM_Ibcast(got, N, MPI_INT, root, app, &req));
        served(req, "bcast_dcp");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        memcpy(want, data, sizeof data);
        MPI_Bcast(want, N, MPI_INT, root, app);
        check(memcmp(got, want, sizeof want) == 0, "bcast from %d: not MPI's", root);
    }
    TDM_Request barrier;
    CHECK_TDM(TDM_Ibarrier(app, &barrier));
    served(barrier, "barrier_dcp");
    CHECK_TDM(TDM_Wait(&barrier, MPI_STATUS_IGNORE));

    /* not served by the DCPs yet: inline */
    MPI_Op mine;
    MPI_Op_create(user_sum, 1, &mine);
    CHECK_TDM(TDM_Allreduce(in[0], out[0], 64, MPI_INT, mine, app));
    MPI_Allreduce(in[0], ref[0], 64, MPI_INT, MPI_SUM, app);
    check(memcmp(out[0], ref[0], sizeof ref[0]) == 0, "allreduce with a user op: not MPI's");
    MPI_Op_free(&mine);
    int mine_int = rank * 3 + 1, all[64];
    CHECK_TDM(TDM_Allgather(&mine_int, 1, MPI_INT, all, 1, MPI_INT, app));
    for (int r = 0; r < size; r++)
        check(all[r] == r * 3 + 1, "allgather: block %d is %d", r, all[r]);

    int rc = TDM_Set_progress("dcp");
    check(rc == MPI_ERR_OTHER && strstr(TDM_Last_error(), "before TDM_Init"), "dcp progress after TDM_Init: got %d: %s",
          rc, TDM_Last_error());

    /* the report over the application ranks (harness_finish's is over MPI_COMM_WORLD, DCPs included) */
    long totals[2], mine_counts[2] = {harness_checks, harness_failures};
    MPI_Allreduce(mine_counts, totals, 2, MPI_LONG, MPI_SUM, app);
    if (rank == 0)
        printf("test_dcp (%d application ranks of %d): %ld checks, %ld failed: %s\n", size, world, totals[0],
               totals[1], totals[1] == 0 && totals[0] > 0 ? "PASS" : "FAIL");
    TDM_Finalize();
    return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}

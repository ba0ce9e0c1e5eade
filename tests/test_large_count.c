/*
 * The large-count (_c) forms: every collective's non-blocking, blocking and persistent _c function with
 * counts that fit in int, against MPI's own int collective on the same data (with TANDEM_CHUNK_BYTES=4,
 * every call of one count runs in chunks of one int); a v form's count beyond INT_MAX refused with
 * MPI_ERR_COUNT naming it; displacements beyond INT_MAX taken. test_large_count_huge moves more than
 * INT_MAX elements.
 */
#include "harness.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#define B 3        /* ints per block */
#define MAXP 64

static int rank, p;
static int in[MAXP * B], ours[MAXP * B], theirs[MAXP * B];
static MPI_Count ccounts[MAXP];
static MPI_Aint cdispls[MAXP], bdispls[MAXP];
static int icounts[MAXP], idispls[MAXP], ibdispls[MAXP];
static MPI_Datatype types[MAXP];
static MPI_Comm ring; /* a ring: the neighbourhood collectives' */

/* form 0: non-blocking + wait, 1: blocking, 2: persistent, started twice (the second result counts) */
#define RUN(form, blocking, nonblocking, init, ...)                                                     \
    do {                                                                                                \
        TDM_Request req_;                                                                               \
        if ((form) == 1) {                                                                              \
            CHECK_TDM(blocking(__VA_ARGS__));                                                           \
        } else if ((form) == 0) {                                                                       \
            CHECK_TDM(nonblocking(__VA_ARGS__, &req_));                                                 \
            CHECK_TDM(TDM_Wait(&req_, MPI_STATUS_IGNORE));                                              \
        } else {                                                                                        \
            CHECK_TDM(init(__VA_ARGS__, MPI_INFO_NULL, &req_));                                         \
            for (int k_ = 0; k_ < 2; k_++) {                                                            \
                CHECK_TDM(TDM_Start(&req_));                                                            \
                CHECK_TDM(TDM_Wait(&req_, MPI_STATUS_IGNORE));                                          \
            }                                                                                           \
            CHECK_TDM(TDM_Request_free(&req_));                                                         \
        }                                                                                               \
    } while (0)

static void same(const char *what, int form, int n)
{
    check(memcmp(ours, theirs, sizeof(int) * (size_t)n) == 0, "%s_c (form %d): not MPI's result", what, form);
}

static void reset(int form)
{
    for (int i = 0; i < MAXP * B; i++)
        in[i] = rank * 1000 + i + form * 7;
    memset(ours, 0, sizeof ours);
    memset(theirs, 0, sizeof theirs);
}

static void collectives(int form)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int root = p - 1, all = p * B;
#define COMPARE(name, reference, n)                                                                     \
    do {                                                                                                \
        reference;                                                                                      \
        same(name, form, n);                                                                            \
        reset(form);                                                                                    \
    } while (0)
    reset(form);
    if (rank == root)
        memcpy(ours, in, sizeof(int) * B), memcpy(theirs, in, sizeof(int) * B);
    RUN(form, TDM_Bcast_c, TDM_Ibcast_c, TDM_Bcast_init_c, ours, (MPI_Count)B, MPI_INT, root, w);
    COMPARE("bcast", REFERENCE(MPI_Ibcast, theirs, B, MPI_INT, root, w), B);
    RUN(form, TDM_Reduce_c, TDM_Ireduce_c, TDM_Reduce_init_c, in, ours, (MPI_Count)B, MPI_INT, MPI_SUM, root, w);
    COMPARE("reduce", REFERENCE(MPI_Ireduce, in, theirs, B, MPI_INT, MPI_SUM, root, w), B);
    RUN(form, TDM_Allreduce_c, TDM_Iallreduce_c, TDM_Allreduce_init_c, in, ours, (MPI_Count)B, MPI_INT, MPI_MAX, w);
    COMPARE("allreduce", REFERENCE(MPI_Iallreduce, in, theirs, B, MPI_INT, MPI_MAX, w), B);
    RUN(form, TDM_Gather_c, TDM_Igather_c, TDM_Gather_init_c, in, (MPI_Count)B, MPI_INT, ours, (MPI_Count)B, MPI_INT,
        root, w);
    COMPARE("gather", REFERENCE(MPI_Igather, in, B, MPI_INT, theirs, B, MPI_INT, root, w), all);
    RUN(form, TDM_Gatherv_c, TDM_Igatherv_c, TDM_Gatherv_init_c, in, (MPI_Count)icounts[rank], MPI_INT, ours, ccounts,
        cdispls, MPI_INT, root, w);
    COMPARE("gatherv", REFERENCE(MPI_Igatherv, in, icounts[rank], MPI_INT, theirs, icounts, idispls, MPI_INT, root, w),
            all);
    RUN(form, TDM_Scatter_c, TDM_Iscatter_c, TDM_Scatter_init_c, in, (MPI_Count)B, MPI_INT, ours, (MPI_Count)B,
        MPI_INT, root, w);
    COMPARE("scatter", REFERENCE(MPI_Iscatter, in, B, MPI_INT, theirs, B, MPI_INT, root, w), B);
    RUN(form, TDM_Scatterv_c, TDM_Iscatterv_c, TDM_Scatterv_init_c, in, ccounts, cdispls, MPI_INT, ours,
        (MPI_Count)icounts[rank], MPI_INT, root, w);
    COMPARE("scatterv",
            REFERENCE(MPI_Iscatterv, in, icounts, idispls, MPI_INT, theirs, icounts[rank], MPI_INT, root, w), B);
    RUN(form, TDM_Allgather_c, TDM_Iallgather_c, TDM_Allgather_init_c, in, (MPI_Count)B, MPI_INT, ours, (MPI_Count)B,
        MPI_INT, w);
    COMPARE("allgather", REFERENCE(MPI_Iallgather, in, B, MPI_INT, theirs, B, MPI_INT, w), all);
    RUN(form, TDM_Allgatherv_c, TDM_Iallgatherv_c, TDM_Allgatherv_init_c, in, (MPI_Count)icounts[rank], MPI_INT, ours,
        ccounts, cdispls, MPI_INT, w);
    COMPARE("allgatherv",
            REFERENCE(MPI_Iallgatherv, in, icounts[rank], MPI_INT, theirs, icounts, idispls, MPI_INT, w), all);
    RUN(form, TDM_Reduce_scatter_c, TDM_Ireduce_scatter_c, TDM_Reduce_scatter_init_c, in, ours, ccounts, MPI_INT,
        MPI_SUM, w);
    COMPARE("reduce_scatter", REFERENCE(MPI_Ireduce_scatter, in, theirs, icounts, MPI_INT, MPI_SUM, w), B);
    RUN(form, TDM_Reduce_scatter_block_c, TDM_Ireduce_scatter_block_c, TDM_Reduce_scatter_block_init_c, in, ours,
        (MPI_Count)B, MPI_INT, MPI_SUM, w);
    COMPARE("reduce_scatter_block", REFERENCE(MPI_Ireduce_scatter_block, in, theirs, B, MPI_INT, MPI_SUM, w), B);
    RUN(form, TDM_Alltoall_c, TDM_Ialltoall_c, TDM_Alltoall_init_c, in, (MPI_Count)B, MPI_INT, ours, (MPI_Count)B,
        MPI_INT, w);
    COMPARE("alltoall", REFERENCE(MPI_Ialltoall, in, B, MPI_INT, theirs, B, MPI_INT, w), all);
    RUN(form, TDM_Alltoallv_c, TDM_Ialltoallv_c, TDM_Alltoallv_init_c, in, ccounts, cdispls, MPI_INT, ours, ccounts,
        cdispls, MPI_INT, w);
    COMPARE("alltoallv",
            REFERENCE(MPI_Ialltoallv, in, icounts, idispls, MPI_INT, theirs, icounts, idispls, MPI_INT, w), all);
    RUN(form, TDM_Alltoallw_c, TDM_Ialltoallw_c, TDM_Alltoallw_init_c, in, ccounts, bdispls, types, ours, ccounts,
        bdispls, types, w);
    COMPARE("alltoallw",
            REFERENCE(MPI_Ialltoallw, in, icounts, ibdispls, types, theirs, icounts, ibdispls, types, w), all);
    RUN(form, TDM_Scan_c, TDM_Iscan_c, TDM_Scan_init_c, in, ours, (MPI_Count)B, MPI_INT, MPI_SUM, w);
    COMPARE("scan", REFERENCE(MPI_Iscan, in, theirs, B, MPI_INT, MPI_SUM, w), B);
    RUN(form, TDM_Exscan_c, TDM_Iexscan_c, TDM_Exscan_init_c, in, ours, (MPI_Count)B, MPI_INT, MPI_SUM, w);
    COMPARE("exscan", REFERENCE(MPI_Iexscan, in, theirs, B, MPI_INT, MPI_SUM, w), rank > 0 ? B : 0);
    /* the neighbourhood collectives on a ring: 2 neighbours */
    RUN(form, TDM_Neighbor_allgather_c, TDM_Ineighbor_allgather_c, TDM_Neighbor_allgather_init_c, in, (MPI_Count)B,
        MPI_INT, ours, (MPI_Count)B, MPI_INT, ring);
    COMPARE("neighbor_allgather", REFERENCE(MPI_Ineighbor_allgather, in, B, MPI_INT, theirs, B, MPI_INT, ring), 2 * B);
    RUN(form, TDM_Neighbor_allgatherv_c, TDM_Ineighbor_allgatherv_c, TDM_Neighbor_allgatherv_init_c, in,
        (MPI_Count)B, MPI_INT, ours, ccounts, cdispls, MPI_INT, ring);
    COMPARE("neighbor_allgatherv",
            REFERENCE(MPI_Ineighbor_allgatherv, in, B, MPI_INT, theirs, icounts, idispls, MPI_INT, ring), 2 * B);
    RUN(form, TDM_Neighbor_alltoall_c, TDM_Ineighbor_alltoall_c, TDM_Neighbor_alltoall_init_c, in, (MPI_Count)B,
        MPI_INT, ours, (MPI_Count)B, MPI_INT, ring);
    COMPARE("neighbor_alltoall", REFERENCE(MPI_Ineighbor_alltoall, in, B, MPI_INT, theirs, B, MPI_INT, ring), 2 * B);
    RUN(form, TDM_Neighbor_alltoallv_c, TDM_Ineighbor_alltoallv_c, TDM_Neighbor_alltoallv_init_c, in, ccounts, cdispls,
        MPI_INT, ours, ccounts, cdispls, MPI_INT, ring);
    COMPARE("neighbor_alltoallv",
            REFERENCE(MPI_Ineighbor_alltoallv, in, icounts, idispls, MPI_INT, theirs, icounts, idispls, MPI_INT, ring),
            2 * B);
    RUN(form, TDM_Neighbor_alltoallw_c, TDM_Ineighbor_alltoallw_c, TDM_Neighbor_alltoallw_init_c, in, ccounts, bdispls,
        types, ours, ccounts, bdispls, types, ring);
    COMPARE("neighbor_alltoallw",
            REFERENCE(MPI_Ineighbor_alltoallw, in, icounts, bdispls, types, theirs, icounts, bdispls, types, ring),
            2 * B);
#undef COMPARE
}

static void beyond_int(void)
{
    /* a v form's count beyond INT_MAX: refused, naming it, before any buffer is touched */
    MPI_Count big = (MPI_Count)INT_MAX + 1, counts[MAXP];
    for (int i = 0; i < p; i++)
        counts[i] = i == p - 1 ? big : 1;
    int rc = TDM_Alltoallv_c(in, counts, cdispls, MPI_INT, ours, counts, cdispls, MPI_INT, MPI_COMM_WORLD);
    check(rc == MPI_ERR_COUNT && strstr(TDM_Last_error(), "sendcounts["), "counts beyond INT_MAX: got %d: %s", rc,
          TDM_Last_error());
    /* beyond INT_MAX between ranks 0 and p-1 only (a valid call): every rank refuses, none is left
     * waiting (nor, under the interposer, left in Tandem's call while the others go to MPI's) */
    MPI_Count scounts[MAXP], rcounts[MAXP];
    for (int i = 0; i < p; i++)
        scounts[i] = rcounts[i] = 1;
    if (rank == 0)
        scounts[p - 1] = big;
    if (rank == p - 1)
        rcounts[0] = big;
    TDM_Request one;
    rc = TDM_Ialltoallv_c(in, scounts, cdispls, MPI_INT, ours, rcounts, cdispls, MPI_INT, MPI_COMM_WORLD, &one);
    const char *expected = rank == 0 ? "sendcounts[" : rank == p - 1 ? "recvcounts[" : "another rank";
    check(rc == MPI_ERR_COUNT && strstr(TDM_Last_error(), expected), "a count beyond INT_MAX on ranks 0 and %d only: "
          "got %d: %s", p - 1, rc, TDM_Last_error());
    /* displacements beyond INT_MAX are taken: the same blocks, addressed from a base that far below the
     * buffer (a valid call: MPI adds displacement times extent to the base) */
    MPI_Aint far = (MPI_Aint)INT_MAX + 5, displs[MAXP];
    for (int i = 0; i < p; i++)
        displs[i] = far + cdispls[i];
    void *below = (void *)((uintptr_t)ours - (uintptr_t)(far * (MPI_Aint)sizeof(int)));
    reset(0);
    TDM_Request req;
    CHECK_TDM(TDM_Iallgatherv_c(in, B, MPI_INT, below, ccounts, displs, MPI_INT, MPI_COMM_WORLD, &req));
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Allgatherv(in, B, MPI_INT, theirs, icounts, idispls, MPI_INT, MPI_COMM_WORLD);
    same("allgatherv with displacements beyond INT_MAX", 0, p * B);
}

/* In chunks (TANDEM_CHUNK_BYTES=4): a reduce_scatter in place reads a copy of its input taken at the
 * start, which a persistent call cannot take again at each start: refused, naming the argument. */
static void in_place_in_chunks(void)
{
    if (!getenv("TANDEM_CHUNK_BYTES"))
        return;
    reset(0);
    memcpy(ours, in, sizeof(int) * (size_t)(p * B));
    memcpy(theirs, in, sizeof(int) * (size_t)(p * B));
    CHECK_TDM(TDM_Reduce_scatter_block_c(MPI_IN_PLACE, ours, (MPI_Count)B, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_Reduce_scatter_block(MPI_IN_PLACE, theirs, B, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    same("reduce_scatter_block in place", 0, B);
    TDM_Request req;
    int rc = TDM_Reduce_scatter_block_init_c(MPI_IN_PLACE, ours, (MPI_Count)B, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                             MPI_INFO_NULL, &req);
    check(rc == MPI_ERR_COUNT && strstr(TDM_Last_error(), "persistent") && strstr(TDM_Last_error(), "sendbuf"),
          "a persistent reduce_scatter in place in chunks: got %d: %s", rc, TDM_Last_error());
}

/* In chunks: ranks that describe the same data with datatypes of other sizes cut it at the same bytes
 * (a dense datatype's data travels as bytes); a datatype with gaps whose size does not divide the
 * chunk is refused, naming it. */
static void mixed_datatypes_in_chunks(void)
{
    if (!getenv("TANDEM_CHUNK_BYTES"))
        return;
    MPI_Datatype triple, gappy;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_vector(2, 1, 2, MPI_INT, &gappy); /* 8 bytes of data in 12 */
    MPI_Type_commit(&triple);
    MPI_Type_commit(&gappy);
    int root = p - 1;
    reset(0);
    if (rank == root)
        memcpy(ours, in, sizeof(int) * 3 * B), memcpy(theirs, in, sizeof(int) * 3 * B);
    if (rank == root)
        CHECK_TDM(TDM_Bcast_c(ours, (MPI_Count)B, triple, root, MPI_COMM_WORLD));
    else
        CHECK_TDM(TDM_Bcast_c(ours, (MPI_Count)3 * B, MPI_INT, root, MPI_COMM_WORLD));
    MPI_Bcast(theirs, 3 * B, MPI_INT, root, MPI_COMM_WORLD);
    same("bcast of 3-int elements at the root, ints elsewhere", 0, 3 * B);
    /* an algorithm named keeps the call off the lines (where a small call on one node goes whole) */
    CHECK_TDM(TDM_Set_algorithm("bcast", "binomial"));
    int rc = TDM_Bcast_c(ours, (MPI_Count)B, gappy, root, MPI_COMM_WORLD);
    CHECK_TDM(TDM_Set_algorithm("bcast", "auto"));
    long chunk = atol(getenv("TANDEM_CHUNK_BYTES"));
    check(chunk % 8 == 0 ? rc == MPI_SUCCESS
                         : rc == MPI_ERR_TYPE && strstr(TDM_Last_error(), "datatype") &&
                               strstr(TDM_Last_error(), "TANDEM_CHUNK_BYTES"),
          "a datatype with gaps whose size does not divide the chunk: got %d: %s", rc, TDM_Last_error());
    MPI_Type_free(&triple);
    MPI_Type_free(&gappy);
}

/* With one tag (TANDEM_TAG_RANGE=1) the chunks of a call are one: past INT_MAX elements, refused
 * before any buffer is touched. */
static void too_few_tags(void)
{
    const char *range = getenv("TANDEM_TAG_RANGE");
    if (!range || strcmp(range, "1") != 0)
        return;
    TDM_Request req;
    int rc = TDM_Iallreduce_c(in, ours, (MPI_Count)INT_MAX + 1, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD, &req);
    check(rc == MPI_ERR_COUNT && strstr(TDM_Last_error(), "TANDEM_TAG_RANGE") && strstr(TDM_Last_error(), "count"),
          "more than INT_MAX elements with one tag: got %d: %s", rc, TDM_Last_error());
}

int main(int argc, char **argv)
{
    harness_init("test_large_count", &argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > MAXP / 2) {
        check(0, "at most %d ranks", MAXP / 2);
        return harness_finish();
    }
    for (int i = 0; i < MAXP; i++) {
        icounts[i] = ccounts[i] = 1 + i % B; /* v forms: fewer than B per block, at B-spaced displacements */
        idispls[i] = (int)(cdispls[i] = (MPI_Aint)i * B);
        ibdispls[i] = (int)(bdispls[i] = cdispls[i] * (MPI_Aint)sizeof(int));
        types[i] = MPI_INT;
    }
    for (int i = 0; i < p; i++) /* reduce_scatter and the v forms take counts that every rank agrees on */
        icounts[i] = (int)(ccounts[i] = B);
    /* periodic from 3 ranks: below, a rank would be both its neighbours, where MPIs deliver other blocks
     * than the standard says (test_neighbor checks Tandem there) */
    MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){p}, (int[]){p >= 3}, 0, &ring);
    for (int form = 0; form < 3; form++)
        collectives(form);
    beyond_int();
    in_place_in_chunks();
    mixed_datatypes_in_chunks();
    too_few_tags();
    MPI_Comm_free(&ring);
    return harness_finish();
}

/*
 * A plain MPI program: only MPI_* calls, no Tandem header. Run with and without the interposer
 * (linked before MPI, or LD_PRELOAD); every result is checked against values computed locally, so both
 * runs must agree. It uses each non-blocking collective, MPI_IN_PLACE, arrays that mix collectives with
 * its own point-to-point requests under MPI_Waitall, MPI_Waitany and an MPI_Waitsome loop, MPI_Test
 * polling, MPI_Request_free (of its own send: MPI forbids it on a collective), MPI_Request_get_status, blocking collectives and an inter-communicator.
 *
 * EXPECT_INTERPOSED=1: the interposer must be there and must have served the collectives (it asks the
 * library's counter, served_by_tandem.c); EXPECT_INTERPOSED=off: it is loaded but serves nothing;
 * EXPECT_INTERPOSED=0: the program must run on MPI alone. EXPECT_WORLD_SIZE=n: MPI_COMM_WORLD must have n
 * ranks (with the interposer in dcp progress, the ranks that are not dedicated collective processes).
 * THREAD_MULTIPLE set: the program asks for MPI_THREAD_MULTIPLE (else MPI_THREAD_SERIALIZED).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPICH's MPI_Waitall and MPI_Waitsome declare their status array's size: GCC then takes
 * MPI_STATUSES_IGNORE, a constant pointer, for an empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int served_by_tandem(long *served, long *native);

static int rank, size, failures, checks;

static void check(int ok, const char *what, int arg)
{
    checks++;
    if (!ok && ++failures <= 10)
        fprintf(stderr, "[mpi_program rank %d] FAIL: %s (%d)\n", rank, what, arg);
}

static int value(int r, int i) { return 3 * r + i; } /* rank r's element i */

/* Sum over ranks 0..n-1 of value(r, i). */
static int sum_upto(int n, int i) { return 3 * n * (n - 1) / 2 + n * i; }

#define N 1000

static void allreduce_and_in_place(void)
{
    int send[N], got[N];
    for (int i = 0; i < N; i++)
        send[i] = value(rank, i);
    MPI_Request req;
    MPI_Iallreduce(send, got, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != sum_upto(size, i);
    check(wrong == 0, "MPI_Iallreduce + MPI_Wait, elements wrong", wrong);

    memcpy(got, send, sizeof got);
    MPI_Iallreduce(MPI_IN_PLACE, got, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    int flag = 0, polls = 0;
    while (!flag) { /* MPI_Test polling alone must finish it */
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        polls++;
    }
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != value(size - 1, i);
    check(wrong == 0 && req == MPI_REQUEST_NULL, "in-place MPI_Iallreduce polled with MPI_Test", wrong);
}

/* A collective and the program's own ring exchange in one array: Waitall, then Waitany. */
static void mixed_arrays(void)
{
    int bsum[N], ring_in = -1, ring_out = rank, bc[4] = {0, 0, 0, 0};
    int send[N];
    for (int i = 0; i < N; i++)
        send[i] = value(rank, i);
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            bc[i] = 40 + i;
    MPI_Request reqs[4];
    MPI_Irecv(&ring_in, 1, MPI_INT, (rank - 1 + size) % size, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Iallreduce(send, bsum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &reqs[2]);
    MPI_Ibcast(bc, 4, MPI_INT, 0, MPI_COMM_WORLD, &reqs[3]);
    MPI_Status statuses[4];
    MPI_Waitall(4, reqs, statuses);
    check(ring_in == (rank - 1 + size) % size, "MPI_Waitall: the ring message", ring_in);
    check(statuses[0].MPI_TAG == 7 && statuses[0].MPI_SOURCE == (rank - 1 + size) % size,
          "MPI_Waitall: the receive's status", statuses[0].MPI_TAG);
    check(bsum[N - 1] == sum_upto(size, N - 1) && bc[3] == 43, "MPI_Waitall: the collectives", bc[3]);

    /* Waitany over a mix, until every request is done */
    int gathered[64 * 2], mine[2] = {rank, -rank};
    ring_in = -1;
    MPI_Irecv(&ring_in, 1, MPI_INT, (rank - 1 + size) % size, 8, MPI_COMM_WORLD, &reqs[0]);
    MPI_Iallgather(mine, 2, MPI_INT, gathered, 2, MPI_INT, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 8, MPI_COMM_WORLD, &reqs[2]);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[3]);
    int seen = 0;
    for (int k = 0; k < 4; k++) {
        int index;
        MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE);
        seen |= 1 << index;
    }
    int index = 0;
    MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE);
    check(seen == 15 && index == MPI_UNDEFINED, "MPI_Waitany returned every request once", seen);
    int wrong = 0;
    for (int r = 0; r < size; r++)
        wrong += gathered[2 * r] != r || gathered[2 * r + 1] != -r;
    check(wrong == 0 && ring_in == (rank - 1 + size) % size, "MPI_Waitany: allgather and ring", wrong);
}

/* An MPI_Waitsome loop over collectives and point-to-point, as event loops do. */
static void waitsome_loop(void)
{
    int scan[8], exscan[8], mine[8], a2a_in[64], a2a_out[64], block[8], ring_in = -1, ring_out = rank;
    for (int i = 0; i < 8; i++)
        mine[i] = value(rank, i);
    for (int r = 0; r < size; r++)
        a2a_out[r] = 100 * rank + r;
    MPI_Request reqs[6];
    MPI_Iscan(mine, scan, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&ring_in, 1, MPI_INT, (rank - 1 + size) % size, 9, MPI_COMM_WORLD, &reqs[1]);
    MPI_Iexscan(mine, exscan, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[2]);
    MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, &reqs[3]);
    MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &reqs[4]);
    int rsb_in[64 * 8];
    for (int i = 0; i < 8 * size; i++)
        rsb_in[i] = value(rank, i);
    MPI_Ireduce_scatter_block(rsb_in, block, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[5]);
    int done = 0, rounds = 0;
    while (done < 6) {
        int outcount, indices[6];
        MPI_Waitsome(6, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
        check(outcount > 0 && outcount != MPI_UNDEFINED, "MPI_Waitsome completes something", outcount);
        if (outcount <= 0)
            break;
        done += outcount;
        rounds++;
    }
    int wrong = 0;
    for (int i = 0; i < 8; i++) {
        wrong += scan[i] != sum_upto(rank + 1, i);
        if (rank > 0)
            wrong += exscan[i] != sum_upto(rank, i);
        wrong += block[i] != sum_upto(size, 8 * rank + i);
    }
    for (int r = 0; r < size; r++)
        wrong += a2a_in[r] != 100 * r + rank;
    check(wrong == 0 && ring_in == (rank - 1 + size) % size, "MPI_Waitsome loop: scan, exscan, alltoall, rsb", wrong);
}

/* Rooted collectives with v forms, a freed request and a status query. */
static void rooted_and_freed(void)
{
    int root = size - 1, mine[3] = {rank, rank + 1, rank + 2}, all[64 * 3], counts[64], displs[64];
    for (int r = 0; r < size; r++) {
        counts[r] = 1 + r % 3;
        displs[r] = 3 * r;
    }
    MPI_Request req;
    MPI_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int wrong = 0;
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < counts[r]; k++)
                wrong += all[displs[r] + k] != r + k;
    check(wrong == 0, "MPI_Igatherv at the root", wrong);

    int back[3] = {-1, -1, -1};
    MPI_Iscatterv(all, counts, displs, MPI_INT, back, counts[rank], MPI_INT, root, MPI_COMM_WORLD, &req);
    int flag = 0;
    while (!flag)
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    wrong = 0;
    for (int k = 0; k < counts[rank]; k++)
        wrong += back[k] != rank + k;
    check(wrong == 0, "MPI_Iscatterv after MPI_Request_get_status", wrong);

    int sum = -1;
    MPI_Ireduce(&rank, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(rank != root || sum == size * (size - 1) / 2, "MPI_Ireduce", sum);

    /* the program frees its own send while a collective runs (MPI forbids freeing a collective's
     * request); the message still arrives */
    int token = 1000 + rank, got_token = -1, bar[1] = {rank}, bar_max = -1;
    MPI_Request send_req, coll_req;
    MPI_Iallreduce(bar, &bar_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &coll_req);
    MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD, &send_req);
    MPI_Request_free(&send_req);
    check(send_req == MPI_REQUEST_NULL, "MPI_Request_free sets MPI_REQUEST_NULL", 0);
    MPI_Recv(&got_token, 1, MPI_INT, (rank - 1 + size) % size, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&coll_req, MPI_STATUS_IGNORE);
    check(got_token == 1000 + (rank - 1 + size) % size && bar_max == size - 1, "a freed send, a collective", got_token);
    MPI_Barrier(MPI_COMM_WORLD);
    int total = 0;
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(total == size * (size - 1) / 2, "blocking MPI_Allreduce", total);
}

/* The other kinds, each waited for in one MPI_Waitall. */
static void remaining_kinds(void)
{
    int root = 0, one = value(rank, 1), gathered[64], scattered = -1, counts[64], displs[64], allv[64 * 2];
    int ones[64], rs_in[64 * 2], rs_out[2] = {-1, -1}, a2av_out[64 * 2], a2av_in[64 * 2], pair[2] = {rank, 2 * rank};
    int scatter_src[64];
    for (int r = 0; r < size; r++)
        counts[r] = r % 2 + 1; /* 1 or 2 elements from rank r */
    for (int r = 0; r < size; r++) {
        displs[r] = 2 * r;
        ones[r] = counts[rank]; /* what every rank sends me: counts[rank] */
        scatter_src[r] = 10 * r;
        a2av_out[2 * r] = 1000 * rank + r;
        a2av_out[2 * r + 1] = -(1000 * rank + r);
    }
    for (int i = 0; i < 2 * size; i++)
        rs_in[i] = value(rank, i);
    int rs_counts[64];
    for (int r = 0; r < size; r++)
        rs_counts[r] = counts[r];
    int rs_displ = 0; /* where this rank's reduce-scatter block starts in rs_in */
    for (int r = 0; r < rank; r++)
        rs_displ += rs_counts[r];
    MPI_Request reqs[5];
    MPI_Igather(&one, 1, MPI_INT, gathered, 1, MPI_INT, root, MPI_COMM_WORLD, &reqs[0]);
    MPI_Iscatter(scatter_src, 1, MPI_INT, &scattered, 1, MPI_INT, root, MPI_COMM_WORLD, &reqs[1]);
    MPI_Iallgatherv(pair, counts[rank], MPI_INT, allv, counts, displs, MPI_INT, MPI_COMM_WORLD, &reqs[2]);
    MPI_Ireduce_scatter(rs_in, rs_out, rs_counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[3]);
    MPI_Ialltoallv(a2av_out, counts, displs, MPI_INT, a2av_in, ones, displs, MPI_INT, MPI_COMM_WORLD, &reqs[4]);
    MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE);
    int wrong = 0;
    for (int r = 0; r < size && rank == root; r++)
        wrong += gathered[r] != value(r, 1);
    wrong += scattered != 10 * rank;
    for (int r = 0; r < size; r++)
        for (int k = 0; k < counts[r]; k++)
            wrong += allv[displs[r] + k] != (k ? 2 * r : r);
    for (int k = 0; k < rs_counts[rank]; k++)
        wrong += rs_out[k] != sum_upto(size, rs_displ + k);
    /* rank r sends me counts[me] elements from its a2av_out[displs[me]] */
    for (int r = 0; r < size; r++)
        for (int k = 0; k < counts[rank]; k++)
            wrong += a2av_in[displs[r] + k] != (k ? -(1000 * r + rank) : 1000 * r + rank);
    check(wrong == 0, "gather, scatter, allgatherv, reduce_scatter, alltoallv", wrong);
}

/* An inter-communicator between the two halves: Tandem leaves it to MPI, which must answer right. */
static void inter_communicator(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter;
    int low = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 5, &inter);
    int got = -1;
    MPI_Request req;
    MPI_Iallreduce(&rank, &got, 1, MPI_INT, MPI_SUM, inter, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int lo_sum = (size / 2) * (size / 2 - 1) / 2, hi_sum = size * (size - 1) / 2 - lo_sum;
    check(got == (low ? hi_sum : lo_sum), "MPI_Iallreduce on an inter-communicator (the remote group's sum)", got);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* MPI_COMM_WORLD as a program knows it: its size, name, group, attributes, error handler, topologies
 * and the communicators made from it agree with each other (and with EXPECT_WORLD_SIZE). */
static void world_is_consistent(void)
{
    const char *expect = getenv("EXPECT_WORLD_SIZE");
    if (expect)
        check(size == atoi(expect), "MPI_Comm_size(MPI_COMM_WORLD) is EXPECT_WORLD_SIZE", size);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    check(strcmp(name, "MPI_COMM_WORLD") == 0, "MPI_Comm_get_name(MPI_COMM_WORLD)", len);

    MPI_Group group, self_group;
    int group_size = -1, group_rank = -1, in_world = -1, zero = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &group);
    MPI_Group_size(group, &group_size);
    MPI_Group_rank(group, &group_rank);
    MPI_Comm_group(MPI_COMM_SELF, &self_group);
    MPI_Group_translate_ranks(self_group, 1, &zero, group, &in_world);
    check(group_size == size && group_rank == rank && in_world == rank, "MPI_COMM_WORLD's group", group_size);
    MPI_Group_free(&self_group);
    MPI_Group_free(&group);

    int *tag_ub = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    check(flag && *tag_ub >= 32767, "the attribute MPI_TAG_UB on MPI_COMM_WORLD", flag);
    int keyval, mine = 10 + rank, *got = NULL;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &mine);
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &got, &flag);
    check(flag && got == &mine, "a program's attribute on MPI_COMM_WORLD", flag);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);

    /* the world's size bounds its ranks: a send to rank `size` is an error the program's handler sees */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(&mine, 1, MPI_INT, size, 0, MPI_COMM_WORLD), class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    check(class == MPI_ERR_RANK, "a send to rank MPI_Comm_size(MPI_COMM_WORLD) fails with MPI_ERR_RANK", class);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Comm dup, cart, node;
    int result = -1, node_size = -1;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    check(result == MPI_CONGRUENT, "MPI_Comm_compare(MPI_COMM_WORLD, its duplicate)", result);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    check(node_size >= 1 && node_size <= size, "MPI_Comm_split_type(MPI_COMM_WORLD) on a node", node_size);
    int dims[1] = {size}, periods[1] = {1}, left = -1, right = -1, from_left = -1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &left, &right);
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &from_left, 1, MPI_INT, left, 3, cart, MPI_STATUS_IGNORE);
    check(left == (rank - 1 + size) % size && from_left == left, "a ring on MPI_Cart_create(MPI_COMM_WORLD)", from_left);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&node);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    int provided = -1, required = getenv("THREAD_MULTIPLE") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
    MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int queried = -1;
    MPI_Query_thread(&queried);
    check(provided <= required && queried == provided, "the thread level reported is the one asked for", queried);
    if (size > 64) {
        fprintf(stderr, "mpi_program: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int rep = 0; rep < 3; rep++) {
        allreduce_and_in_place();
        mixed_arrays();
        waitsome_loop();
        rooted_and_freed();
        remaining_kinds();
    }
    inter_communicator();
    world_is_consistent();

    const char *expect = getenv("EXPECT_INTERPOSED");
    long served, native;
    int loaded = served_by_tandem(&served, &native);
    if (expect && strcmp(expect, "1") == 0) {
        check(loaded, "the interposer is loaded", 0);
        /* 3 reps x 19 non-blocking collectives, and an inter-communicator call to MPI if size > 1 */
        check(served >= 57, "collectives served by Tandem", (int)served);
        check(native == (size > 1), "collectives passed to MPI (the inter-communicator)", (int)native);
    } else if (expect && strcmp(expect, "off") == 0) { /* loaded, switched off */
        check(loaded && served == 0 && native == 0, "an interposer switched off serves nothing", (int)served);
    } else if (expect) {
        check(!loaded, "no interposer", 0);
    }

    int all_failures = 0;
    MPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_program (%d ranks): %d checks, %d failed: %s\n", size, checks, all_failures,
               all_failures ? "FAIL" : "PASS");
    MPI_Finalize();
    return all_failures ? 1 : 0;
}

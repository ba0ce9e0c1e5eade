/*
 * Blocking barrier, bcast, reduce, allreduce and allgather of up to 1 KiB through the node's lines
 * (api_lines.c), against MPI's own: every reduction type and op the lines take (exact bits: integers,
 * and floating-point values that sum exactly), a non-commutative user op, in place, every root, counts
 * 0 to past the lines' limit, bcast and allgather with different datatypes of one signature; barrier
 * order seen through a shared window; lines calls beside non-blocking calls another rank waits for
 * first; communicators made and freed while a late reader is still in the last call; bad arguments.
 * TDM_Get_line_calls says the lines served the calls meant for them (on a communicator of one node),
 * and none elsewhere.
 */
#include "harness.h"

#include <string.h>
#include <unistd.h>

static int rank, size;
static long lines_before;

static long line_calls(void)
{
    long n = -1;
    CHECK_TDM(TDM_Get_line_calls(&n));
    return n;
}

/* Whether comm's blocking small calls take the lines: one node (emulated ones too), of 2 to 16 ranks. */
static int takes_lines(MPI_Comm comm)
{
    int shared, in_order, several, n;
    harness_nodes_of(comm, &shared, &in_order, &several);
    MPI_Comm_size(comm, &n);
    return !several && n >= 2 && n <= 16 && !getenv("TANDEM_SHM");
}

/* 2x2 matrices of unsigned ints, multiplied mod 2^32: associative, not commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                         a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

typedef struct {
    MPI_Datatype type;
    int bytes;
    const char *name;
    int integer; /* bitwise ops apply */
} typed;

/* Small positive values; for products 1 to 3, whose products over 8 ranks a float holds exactly. */
static void fill(void *buf, const typed *t, int count, int salt, int product)
{
    for (int i = 0; i < count; i++) {
        long v = (salt * 7 + i * 3 + rank * 5) % (product ? 3 : 11) + 1;
        switch (t->bytes) {
        case 1: ((signed char *)buf)[i] = (signed char)v; break;
        case 2: ((short *)buf)[i] = (short)v; break;
        case 4:
            if (t->type == MPI_FLOAT) ((float *)buf)[i] = (float)v;
            else ((int *)buf)[i] = (int)v;
            break;
        default:
            if (t->type == MPI_DOUBLE) ((double *)buf)[i] = (double)v;
            else ((long long *)buf)[i] = v;
        }
    }
}

#define MAXB 1100 /* past the lines' 1024 bytes */

static void reductions(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    static const typed types[] = {{MPI_INT, 4, "MPI_INT", 1},         {MPI_LONG_LONG, 8, "MPI_LONG_LONG", 1},
                                  {MPI_UNSIGNED, 4, "MPI_UNSIGNED", 1}, {MPI_SHORT, 2, "MPI_SHORT", 1},
                                  {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR", 1}, {MPI_UINT64_T, 8, "MPI_UINT64_T", 1},
                                  {MPI_DOUBLE, 8, "MPI_DOUBLE", 0},   {MPI_FLOAT, 4, "MPI_FLOAT", 0}};
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND};
    static const char *op_names[] = {"SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR", "LAND"};
    static char in[MAXB], out[MAXB], want[MAXB];
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const typed *t = &types[ti];
        int counts[] = {0, 1, 7, 1024 / t->bytes, 1024 / t->bytes + 1}; /* the last takes the schedules */
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            if (!t->integer && oi >= 4)
                continue;
            if (ops[oi] == MPI_PROD && t->bytes == 1 && n > 4)
                continue; /* 3^n overflows a signed char: MPI's result is as undefined as ours */
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    int count = counts[ci];
                    fill(in, t, count, (int)(ti + oi + ci), ops[oi] == MPI_PROD);
                    REFERENCE(MPI_Iallreduce, in, want, count, t->type, ops[oi], comm);
                    memcpy(out, in, MAXB);
                    CHECK_TDM(TDM_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, t->type, ops[oi], comm));
                    check(memcmp(out, want, (size_t)count * t->bytes) == 0, "%s: allreduce %s %s count %d%s differs from MPI",
                          where, t->name, op_names[oi], count, in_place ? " in place" : "");
                    int root = (int)(ci + oi) % n;
                    REFERENCE(MPI_Ireduce, in, want, count, t->type, ops[oi], root, comm);
                    memcpy(out, in, MAXB);
                    CHECK_TDM(TDM_Reduce(in_place && me == root ? MPI_IN_PLACE : in, out, count, t->type, ops[oi],
                                         root, comm));
                    if (me == root)
                        check(memcmp(out, want, (size_t)count * t->bytes) == 0,
                              "%s: reduce %s %s count %d root %d%s differs from MPI", where, t->name, op_names[oi],
                              count, root, in_place ? " in place" : "");
                }
        }
    }
    /* MPI_MAXLOC on pairs, and a user op that does not commute: the order of the ranks matters */
    int pairs[2 * 64], pairs_out[2 * 64], pairs_want[2 * 64];
    for (int i = 0; i < 64; i++)
        pairs[2 * i] = (i * 7 + me * 3) % 5, pairs[2 * i + 1] = me;
    REFERENCE(MPI_Iallreduce, pairs, pairs_want, 64, MPI_2INT, MPI_MAXLOC, comm);
    CHECK_TDM(TDM_Allreduce(pairs, pairs_out, 64, MPI_2INT, MPI_MAXLOC, comm));
    check(memcmp(pairs_out, pairs_want, sizeof pairs_want) == 0, "%s: allreduce MPI_2INT MAXLOC differs", where);
    MPI_Datatype mat;
    MPI_Op mul;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &mul);
    unsigned m[4 * 16], m_out[4 * 16], m_want[4 * 16];
    for (int i = 0; i < 4 * 16; i++)
        m[i] = (unsigned)(i * 13 + me * 7 + 1);
    REFERENCE(MPI_Iallreduce, m, m_want, 16, mat, mul, comm);
    CHECK_TDM(TDM_Allreduce(m, m_out, 16, mat, mul, comm));
    check(memcmp(m_out, m_want, sizeof m_want) == 0, "%s: allreduce of a non-commutative op differs", where);
    for (int root = 0; root < n; root++) {
        REFERENCE(MPI_Ireduce, m, m_want, 16, mat, mul, root, comm);
        CHECK_TDM(TDM_Reduce(m, m_out, 16, mat, mul, root, comm));
        if (me == root)
            check(memcmp(m_out, m_want, sizeof m_want) == 0, "%s: reduce of a non-commutative op to %d differs", where,
                  root);
    }
    /* a predefined op on a dense derived datatype: MPI_Reduce_local refuses it in both MPIs, Tandem
     * applies it through the basic type (MPI's reference: the same words as MPI_UNSIGNED) */
    REFERENCE(MPI_Iallreduce, m, m_want, 3 * 4, MPI_UNSIGNED, MPI_SUM, comm);
    CHECK_TDM(TDM_Allreduce(m, m_out, 3, mat, MPI_SUM, comm));
    check(memcmp(m_out, m_want, 3 * 4 * sizeof m[0]) == 0, "%s: allreduce MPI_SUM of contiguous(4, MPI_UNSIGNED) differs",
          where);
    REFERENCE(MPI_Ireduce, m, m_want, 3 * 4, MPI_UNSIGNED, MPI_MAX, n - 1, comm);
    CHECK_TDM(TDM_Reduce(m, m_out, 3, mat, MPI_MAX, n - 1, comm));
    if (me == n - 1)
        check(memcmp(m_out, m_want, 3 * 4 * sizeof m[0]) == 0, "%s: reduce MPI_MAX of contiguous(4, MPI_UNSIGNED) differs",
              where);
    MPI_Op_free(&mul);
    MPI_Type_free(&mat);
}

static void bcasts(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    static char buf[MAXB], want[MAXB];
    int counts[] = {0, 1, 56, 57, 1024, 1025};
    for (int root = 0; root < n; root++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            for (int i = 0; i < MAXB; i++)
                want[i] = buf[i] = (char)(me == root ? i * 3 + root + (int)ci : -1);
            REFERENCE(MPI_Ibcast, want, counts[ci], MPI_BYTE, root, comm);
            CHECK_TDM(TDM_Bcast(buf, counts[ci], MPI_BYTE, root, comm));
            check(memcmp(buf, want, MAXB) == 0, "%s: bcast of %d bytes from %d differs from MPI", where, counts[ci], root);
        }
    /* one signature, two datatypes: the root sends every other int of 2 x 100, the others take 100 */
    MPI_Datatype every_other;
    MPI_Type_vector(100, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int root = 0; root < n; root++) {
        int spread[200], dense[100];
        for (int i = 0; i < 200; i++)
            spread[i] = i % 2 ? -1 : i * 5 + root;
        for (int i = 0; i < 100; i++)
            dense[i] = -7;
        if (me == root)
            CHECK_TDM(TDM_Bcast(spread, 1, every_other, root, comm));
        else
            CHECK_TDM(TDM_Bcast(dense, 100, MPI_INT, root, comm));
        int ok = 1;
        for (int i = 0; i < 100 && me != root; i++)
            ok &= dense[i] == i * 10 + root;
        check(ok, "%s: bcast of a vector type from %d differs", where, root);
    }
    MPI_Type_free(&every_other);
}

static void allgathers(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    static int in[300], out[300 * 16], want[300 * 16];
    int counts[] = {0, 1, 14, 256, 257}; /* ints: 257 is past the lines' 1 KiB a block */
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int count = counts[ci];
            for (int i = 0; i < 300; i++)
                in[i] = me * 1000 + i + (int)ci;
            for (int i = 0; i < 300 * 16; i++)
                out[i] = want[i] = -1;
            REFERENCE(MPI_Iallgather, in, count, MPI_INT, want, count, MPI_INT, comm);
            if (in_place)
                memcpy(out + me * count, in, sizeof(int) * (size_t)count);
            CHECK_TDM(TDM_Allgather(in_place ? MPI_IN_PLACE : in, count, MPI_INT, out, count, MPI_INT, comm));
            check(memcmp(out, want, sizeof want) == 0, "%s: allgather of %d ints%s differs from MPI", where, count,
                  in_place ? " in place" : "");
        }
    /* blocks received as every other int of a vector type, sent as dense ints, and the other way round */
    MPI_Datatype every_other;
    MPI_Type_vector(50, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Datatype spread; /* the vector with the extent of its 100 ints, so that blocks follow each other */
    MPI_Type_create_resized(every_other, 0, 100 * sizeof(int), &spread);
    MPI_Type_commit(&spread);
    int spread_in[100];
    for (int i = 0; i < 100; i++)
        spread_in[i] = i % 2 ? -5 : me * 100 + i / 2;
    for (int i = 0; i < 100 * 16; i++)
        out[i] = -1;
    CHECK_TDM(TDM_Allgather(spread_in, 1, spread, out, 50, MPI_INT, comm));
    int ok = 1;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 50; i++)
            ok &= out[r * 50 + i] == r * 100 + i;
    check(ok, "%s: allgather sent as a vector type differs", where);
    for (int i = 0; i < 100 * 16; i++)
        out[i] = -1;
    int dense[50];
    for (int i = 0; i < 50; i++)
        dense[i] = me * 100 + i;
    CHECK_TDM(TDM_Allgather(dense, 50, MPI_INT, out, 1, spread, comm));
    ok = 1;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 100; i++)
            ok &= out[r * 100 + i] == (i % 2 ? -1 : r * 100 + i / 2);
    check(ok, "%s: allgather received as a vector type differs", where);
    MPI_Type_free(&spread);
    MPI_Type_free(&every_other);
}

/* Barriers in a row, each seen to order a write before it and reads after it, in a shared window. */
static void barriers(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int node_size;
    MPI_Comm_size(node, &node_size);
    if (node_size != n) { /* the window needs every rank on the machine's node */
        MPI_Comm_free(&node);
        return;
    }
    MPI_Win win;
    volatile int *flag;
    MPI_Win_allocate_shared(me == 0 ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, node, (void *)&flag, &win);
    MPI_Aint bytes;
    int unit;
    MPI_Win_shared_query(win, 0, &bytes, &unit, (void *)&flag);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int ok = 1;
    for (int i = 1; i <= 60; i++) {
        int writer = i % n;
        if (me == writer) {
            if (i % 7 == 0)
                usleep(2000); /* late: the others must wait for it */
            *flag = i;
            MPI_Win_sync(win);
        }
        CHECK_TDM(TDM_Barrier(comm));
        MPI_Win_sync(win);
        ok &= *flag == i;
        CHECK_TDM(TDM_Barrier(comm)); /* nobody writes the next before all read this one */
    }
    check(ok, "%s: a barrier let a rank through before the write before it", where);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* A large non-blocking allreduce runs while a blocking one waits on the lines: rank 0 makes the blocking
 * call before its wait, the others after theirs, so rank 0 must move the first along while it waits. */
static void beside_nonblocking(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    enum { BIG = 1 << 17 };
    int *big = malloc(sizeof(int) * BIG), *big_out = malloc(sizeof(int) * BIG);
    for (int i = 0; i < BIG; i++)
        big[i] = i + me;
    int small = me + 1, small_out = 0;
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(big, big_out, BIG, MPI_INT, MPI_SUM, comm, &req));
    if (me == 0) {
        CHECK_TDM(TDM_Allreduce(&small, &small_out, 1, MPI_INT, MPI_SUM, comm));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_TDM(TDM_Allreduce(&small, &small_out, 1, MPI_INT, MPI_SUM, comm));
    }
    int ok = small_out == n * (n + 1) / 2;
    for (int i = 0; i < BIG; i++)
        ok &= big_out[i] == n * i + n * (n - 1) / 2;
    check(ok, "%s: allreduce beside a non-blocking one differs", where);
    free(big);
    free(big_out);
}

/* Communicators made and freed while the last reader of a call on the lines is late: rank 0's ring must
 * not serve the next communicator (made without that reader) before the reader is done. */
static void late_reader(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (n < 3)
        return;
    MPI_Group all, first;
    MPI_Comm_group(comm, &all);
    int range[1][3] = {{0, n - 2, 1}};
    MPI_Group_range_incl(all, 1, range, &first);
    int ok = 1;
    for (int i = 0; i < 12; i++) {
        MPI_Comm a, b;
        MPI_Comm_dup(comm, &a);
        int v = me == 0 ? 1000 + i : -1;
        CHECK_TDM(TDM_Barrier(a)); /* the shadow, then the lines */
        CHECK_TDM(TDM_Bcast(&v, 1, MPI_INT, 0, a));
        ok &= v == 1000 + i;
        v = me == 0 ? 2000 + i : -1;
        if (me == n - 1)
            usleep(3000);
        CHECK_TDM(TDM_Bcast(&v, 1, MPI_INT, 0, a));
        ok &= v == 2000 + i;
        MPI_Comm_free(&a);
        if (me < n - 1) { /* without the late rank */
            MPI_Comm_create_group(comm, first, i, &b);
            int w = me == 0 ? 3000 + i : -1, s = 1, sum = 0;
            CHECK_TDM(TDM_Barrier(b));
            for (int j = 0; j < 6; j++) {
                CHECK_TDM(TDM_Bcast(&w, 1, MPI_INT, 0, b));
                CHECK_TDM(TDM_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, b));
            }
            ok &= w == 3000 + i && sum == n - 1;
            MPI_Comm_free(&b);
        }
    }
    check(ok, "%s: a bcast read late, or a communicator after it, differs", where);
    MPI_Group_free(&first);
    MPI_Group_free(&all);
}

static void bad_arguments(MPI_Comm comm)
{
    int me, n, x = 1, y = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    TDM_Barrier(comm); /* the shadow exists: the checks are the lines' */
    check(TDM_Allreduce(&x, &y, -1, MPI_INT, MPI_SUM, comm) == MPI_ERR_COUNT, "negative count: MPI_ERR_COUNT");
    check(TDM_Allreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, comm) == MPI_ERR_TYPE, "null datatype: MPI_ERR_TYPE");
    check(TDM_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm) == MPI_ERR_OP, "null op: MPI_ERR_OP");
    check(TDM_Allreduce(&x, NULL, 1, MPI_INT, MPI_SUM, comm) == MPI_ERR_BUFFER, "NULL recvbuf: MPI_ERR_BUFFER");
    check(TDM_Bcast(&x, 1, MPI_INT, n, comm) == MPI_ERR_ROOT, "root out of range: MPI_ERR_ROOT");
    check(TDM_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -1, comm) == MPI_ERR_ROOT, "negative root: MPI_ERR_ROOT");
    if (me != 0)
        check(TDM_Reduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, 0, comm) == MPI_ERR_BUFFER,
              "MPI_IN_PLACE off the root: MPI_ERR_BUFFER");
    check(TDM_Get_line_calls(NULL) == MPI_ERR_ARG, "TDM_Get_line_calls(NULL): MPI_ERR_ARG");
    /* and the calls after them still agree */
    CHECK_TDM(TDM_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm));
    check(y == n, "an allreduce after the refused calls gives %d, not %d", y, n);
}

/* Ranks calling the int and the large-count (_c) form of one small call, half each: they take the same
 * path (the _c forms try the lines too), or the ranks on the lines would wait for the others forever. */
static void mixed_bindings(MPI_Comm comm, const char *where)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int large = me % 2, in[8], out[8 * 16], want[8 * 16];
    for (int i = 0; i < 8; i++)
        in[i] = me * 100 + i;
    for (int root = 0; root < n; root++) {
        memcpy(out, in, sizeof in);
        REFERENCE(MPI_Ibcast, out, 8, MPI_INT, root, comm);
        memcpy(want, out, sizeof in);
        memcpy(out, in, sizeof in);
        CHECK_TDM(large ? TDM_Bcast_c(out, 8, MPI_INT, root, comm) : TDM_Bcast(out, 8, MPI_INT, root, comm));
        check(memcmp(out, want, sizeof in) == 0, "%s: bcast from %d by int and _c forms differs", where, root);
        REFERENCE(MPI_Ireduce, in, want, 8, MPI_INT, MPI_SUM, root, comm);
        CHECK_TDM(large ? TDM_Reduce_c(in, out, 8, MPI_INT, MPI_SUM, root, comm)
                        : TDM_Reduce(in, out, 8, MPI_INT, MPI_SUM, root, comm));
        check(me != root || memcmp(out, want, sizeof in) == 0, "%s: reduce to %d by int and _c forms differs", where,
              root);
    }
    REFERENCE(MPI_Iallreduce, in, want, 8, MPI_INT, MPI_MAX, comm);
    CHECK_TDM(large ? TDM_Allreduce_c(in, out, 8, MPI_INT, MPI_MAX, comm) : TDM_Allreduce(in, out, 8, MPI_INT, MPI_MAX, comm));
    check(memcmp(out, want, sizeof in) == 0, "%s: allreduce by int and _c forms differs", where);
    REFERENCE(MPI_Iallgather, in, 8, MPI_INT, want, 8, MPI_INT, comm);
    CHECK_TDM(large ? TDM_Allgather_c(in, 8, MPI_INT, out, 8, MPI_INT, comm)
                    : TDM_Allgather(in, 8, MPI_INT, out, 8, MPI_INT, comm));
    check(memcmp(out, want, sizeof in * (size_t)n) == 0, "%s: allgather by int and _c forms differs", where);
}

static void run(MPI_Comm comm, const char *where)
{
    CHECK_TDM(TDM_Barrier(comm)); /* the communicator's first collective makes its shadow */
    long before = line_calls();
    bcasts(comm, where);
    long after_bcasts = line_calls();
    reductions(comm, where);
    allgathers(comm, where);
    barriers(comm, where);
    beside_nonblocking(comm, where);
    late_reader(comm, where);
    mixed_bindings(comm, where);
    bad_arguments(comm);
    long taken = line_calls() - before;
    if (takes_lines(comm))
        check(after_bcasts - before >= 5 * 2 && taken > 100, "%s: only %ld calls took the lines", where, taken);
    else
        check(taken == 0, "%s: %ld calls took the lines, which it has none of", where, taken);
}

int main(int argc, char **argv)
{
    harness_init("test_lines", &argc, &argv);
    MPI_Comm w = harness_world();
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
    lines_before = line_calls();
    run(w, "world");
    /* the ranks of one (emulated) node: the lines there, whatever the world spans */
    MPI_Comm node;
    MPI_Comm_split(w, (int)(harness_node_key % 1000003), rank, &node);
    run(node, "node");
    MPI_Comm_free(&node);
    return harness_finish();
}

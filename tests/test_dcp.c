/*
 * Dedicated collective processes (TANDEM_PROGRESS=dcp, TANDEM_DCP_COUNT or TANDEM_DCP_RATIO): the
 * application ranks see TDM_Comm_world() without the DCPs; allreduce, reduce, bcast and barrier of
 * predefined datatypes and ops through the DCPs give MPI's own results on it (one at a time, in place,
 * every root, 40 outstanding completed in any order) and on communicators made from it (halves,
 * reversed, every other rank, a duplicate; two named by first calls started in opposite orders; thirty
 * made and freed with a call pending); calls the DCPs do not serve (a user op, a persistent call, a
 * communicator of one rank, a scan whose ranks a DCP serves are not consecutive) run inline and give
 * MPI's results; under TANDEM_DCP_SEGMENT=64, a vector of 16 MiB and an alltoallv of blocks up to tens
 * of kilobytes, which go in more segments than a DCP posts at once; every rank, DCPs included, exits
 * with status 0. Calls go through the node's segment where the DCP shares the rank's node, as messages
 * elsewhere (TDM_Get_dcp_handoffs). test_collectives runs its whole matrix through the DCPs too.
 */
#include "harness.h"

#include <stddef.h>
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

static void same_as_mpi(MPI_Comm comm, MPI_Datatype type, MPI_Op op, int count, int in_place)
{
    static long long in[N], ours[N], theirs[N];
    int me;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < count; i++)
        in[i] = (me + 1) * 7 + i % 13;
    if (type == MPI_DOUBLE)
        for (int i = 0; i < count; i++)
            ((double *)in)[i] = (double)((me + 1) * 7 + i % 13);
    memcpy(ours, in, sizeof in);
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(in_place ? MPI_IN_PLACE : in, ours, count, type, op, comm, &req));
    served(req, "allreduce_dcp");
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Allreduce(in, theirs, count, type, op, comm);
    int bytes;
    MPI_Type_size(type, &bytes);
    check(memcmp(ours, theirs, (size_t)count * (size_t)bytes) == 0, "allreduce of %d elements (in place %d): not MPI's",
          count, in_place);
}

/* Every predefined type a predefined op takes goes through the DCP, Fortran and complex ones too,
 * and gives MPI's result; a pair type with padding (MPI_DOUBLE_INT) runs inline, and right. */
enum { INTEGER, REAL, COMPLEX, LOGICAL, PAIR_INT, PAIR_SAME };
typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    int kind, through_dcp;
    const char *name;
} typed_op;

typedef struct {
    float value;
    int index;
} float_int;
typedef struct {
    double value;
    int index;
} double_int;

/* Element i of this rank, as the type's kind wants it: valid logicals, ties for MAXLOC, and values whose
 * sums and products are exact on up to 16 ranks in any order (products: small factors). */
static void element(const typed_op *t, int size, int me, int i, unsigned char *at)
{
    int v = t->op == MPI_PROD ? 1 + (me + i) % 2 : (me + 1) * 3 + i % 5, half = size / 2;
    memset(at, 0, (size_t)size);
    if (t->kind == INTEGER) {
        at[0] = (unsigned char)v; /* a small integer of any width (little endian) */
    } else if (t->kind == LOGICAL) {
        at[0] = (unsigned char)((me + i) % 3 == 0);
    } else if (t->kind == REAL || t->kind == COMPLEX) {
        int parts = t->kind == COMPLEX ? 2 : 1, part = size / parts;
        for (int k = 0; k < parts; k++) {
            int x = k == 0 ? v : t->op == MPI_PROD ? me % 2 : v + 1; /* a product: 1 + i at most */
            if (part == sizeof(float))
                ((float *)at)[k] = (float)x;
            else if (part == sizeof(double))
                ((double *)at)[k] = (double)x;
            else
                ((long double *)at)[k] = (long double)x;
        }
    } else if (t->kind == PAIR_INT) { /* value and index; ties broken by the index */
        if (t->type == MPI_FLOAT_INT)
            *(float_int *)at = (float_int){(float)((me * 7 + i) % 3), me};
        else
            *(double_int *)at = (double_int){(double)((me * 7 + i) % 3), me};
    } else { /* PAIR_SAME: two of one type, value and index */
        if (half == sizeof(float))
            ((float *)at)[0] = (float)((me * 7 + i) % 3), ((float *)at)[1] = (float)me;
        else if (half == sizeof(double))
            ((double *)at)[0] = (double)((me * 7 + i) % 3), ((double *)at)[1] = (double)me;
        else
            ((int *)at)[0] = (me * 7 + i) % 3, ((int *)at)[1] = me;
    }
}

static void every_predefined_type(MPI_Comm comm)
{
    const typed_op table[] = {
        {MPI_INTEGER, MPI_SUM, INTEGER, 1, "MPI_INTEGER"},
        {MPI_INTEGER8, MPI_PROD, INTEGER, 1, "MPI_INTEGER8"},
        {MPI_REAL, MPI_MAX, REAL, 1, "MPI_REAL"},
        {MPI_DOUBLE_PRECISION, MPI_SUM, REAL, 1, "MPI_DOUBLE_PRECISION"},
        {MPI_LOGICAL, MPI_LOR, LOGICAL, 1, "MPI_LOGICAL"},
        {MPI_COMPLEX, MPI_SUM, COMPLEX, 1, "MPI_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, MPI_PROD, COMPLEX, 1, "MPI_DOUBLE_COMPLEX"},
        {MPI_C_BOOL, MPI_LAND, LOGICAL, 1, "MPI_C_BOOL"},
        {MPI_C_DOUBLE_COMPLEX, MPI_SUM, COMPLEX, 1, "MPI_C_DOUBLE_COMPLEX"},
        {MPI_C_FLOAT_COMPLEX, MPI_PROD, COMPLEX, 1, "MPI_C_FLOAT_COMPLEX"},
        {MPI_LONG_DOUBLE, MPI_MAX, REAL, 1, "MPI_LONG_DOUBLE"},
        {MPI_BYTE, MPI_BXOR, INTEGER, 1, "MPI_BYTE"},
        {MPI_OFFSET, MPI_MIN, INTEGER, 1, "MPI_OFFSET"},
        {MPI_AINT, MPI_SUM, INTEGER, 1, "MPI_AINT"},
        {MPI_2INT, MPI_MAXLOC, PAIR_SAME, 1, "MPI_2INT"},
        {MPI_FLOAT_INT, MPI_MINLOC, PAIR_INT, 1, "MPI_FLOAT_INT"},
        {MPI_2DOUBLE_PRECISION, MPI_MAXLOC, PAIR_SAME, 1, "MPI_2DOUBLE_PRECISION"},
        {MPI_2REAL, MPI_MINLOC, PAIR_SAME, 1, "MPI_2REAL"},
        {MPI_2INTEGER, MPI_MINLOC, PAIR_SAME, 1, "MPI_2INTEGER"},
        {MPI_DOUBLE_INT, MPI_MAXLOC, PAIR_INT, 1, "MPI_DOUBLE_INT"}, /* 12 bytes in 16 (SMPI: 16) */
    };
    enum { COUNT = 9 };
    static unsigned char in[COUNT * 64], ours[COUNT * 64], theirs[COUNT * 64];
    int me;
    MPI_Comm_rank(comm, &me);
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        const typed_op *t = &table[k];
        int size;
        MPI_Aint lb, extent;
        MPI_Type_size(t->type, &size);
        MPI_Type_get_extent(t->type, &lb, &extent);
        memset(in, 0, sizeof in);
        for (int i = 0; i < COUNT; i++)
            element(t, size, me, i, in + i * extent);
        memset(ours, 0, sizeof ours);
        memset(theirs, 0, sizeof theirs);
        TDM_Request req;
        CHECK_TDM(TDM_Iallreduce(in, ours, COUNT, t->type, t->op, comm, &req));
        const char *algorithm = TDM_Request_algorithm(req);
        int dcp = algorithm && strcmp(algorithm, "allreduce_dcp") == 0, packed = lb == 0 && extent == size;
        check(dcp == (t->through_dcp || packed), "an allreduce of %s (%d bytes in %ld) runs %s", t->name, size,
              (long)extent, algorithm ? algorithm : "(null)");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Allreduce(in, theirs, COUNT, t->type, t->op, comm);
        int same = 1;
        for (int i = 0; i < COUNT && same; i++) { /* padding bytes are not data: those types by value */
            const unsigned char *a = ours + i * extent, *b = theirs + i * extent;
            if (t->type == MPI_LONG_DOUBLE)
                same = *(const long double *)a == *(const long double *)b;
            else if (t->type == MPI_FLOAT_INT)
                same = ((const float_int *)a)->value == ((const float_int *)b)->value &&
                       ((const float_int *)a)->index == ((const float_int *)b)->index;
            else if (t->type == MPI_DOUBLE_INT)
                same = ((const double_int *)a)->value == ((const double_int *)b)->value &&
                       ((const double_int *)a)->index == ((const double_int *)b)->index;
            else
                same = memcmp(a, b, (size_t)size) == 0;
        }
        check(same, "an allreduce of %s with its op: not MPI's", t->name);
    }
}

/* The pairs with padding (MPI_DOUBLE_INT: 12 bytes of data in 16) through the DCPs: MAXLOC and MINLOC
 * in allreduce, reduce, scan and reduce_scatter_block, and a derived type of two pairs; compared with
 * MPI by value and index (padding is not data). Values tie across ranks, so the index decides. */
typedef struct {
    MPI_Datatype type;
    const char *name;
    int value_bytes, index_at, extent;
} padded_pair;

#define PADDED_PAIR(mpi_type, c_type)                                                                         \
    {mpi_type, #mpi_type, (int)sizeof(((struct { c_type value; int index; } *)0)->value),                    \
     (int)offsetof(struct { c_type value; int index; }, index), (int)sizeof(struct { c_type value; int index; })}

static void pair_element(const padded_pair *p, int me, int i, unsigned char *at)
{
    int v = (me * 7 + i) % 3;
    memset(at, 0, (size_t)p->extent);
    if (p->type == MPI_DOUBLE_INT)
        *(double *)at = v;
    else if (p->type == MPI_LONG_INT)
        *(long *)at = v;
    else if (p->type == MPI_SHORT_INT)
        *(short *)at = (short)v;
    else
        *(long double *)at = v;
    memcpy(at + p->index_at, &me, sizeof me);
}

/* The elements at a and b hold the same value and index. */
static int same_pairs(const padded_pair *p, const unsigned char *a, const unsigned char *b, int count)
{
    for (int i = 0; i < count; i++, a += p->extent, b += p->extent) {
        int same_value = p->type == MPI_LONG_DOUBLE_INT ? *(const long double *)a == *(const long double *)b
                                                        : memcmp(a, b, (size_t)p->value_bytes) == 0;
        if (!same_value || memcmp(a + p->index_at, b + p->index_at, sizeof(int)) != 0)
            return 0;
    }
    return 1;
}

static void padded_pairs(MPI_Comm comm)
{
    const padded_pair pairs[] = {PADDED_PAIR(MPI_DOUBLE_INT, double), PADDED_PAIR(MPI_LONG_INT, long),
                                 PADDED_PAIR(MPI_SHORT_INT, short), PADDED_PAIR(MPI_LONG_DOUBLE_INT, long double)};
    enum { COUNT = 12 }; /* per rank in reduce_scatter_block: COUNT * size in all */
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const padded_pair *p = &pairs[k];
        MPI_Aint lb, extent;
        MPI_Type_get_extent(p->type, &lb, &extent);
        if (extent != p->extent) /* an MPI that lays the pair out otherwise (SMPI's are packed) */
            continue;
        size_t bytes = (size_t)(COUNT * n) * (size_t)extent;
        unsigned char *in = malloc(bytes), *ours = calloc(1, bytes), *theirs = calloc(1, bytes);
        for (int i = 0; i < COUNT * n; i++)
            pair_element(p, me, i, in + (size_t)i * (size_t)extent);
        MPI_Datatype two;
        MPI_Type_contiguous(2, p->type, &two);
        MPI_Type_commit(&two);
        for (int form = 0; form < 5; form++) {
            MPI_Op op = form % 2 ? MPI_MINLOC : MPI_MAXLOC;
            const char *names[] = {"allreduce_dcp", "reduce_dcp", "scan_dcp", "reduce_scatter_block_dcp",
                                   "allreduce_dcp"};
            memset(ours, 0, bytes);
            memset(theirs, 0, bytes);
            TDM_Request req = TDM_REQUEST_NULL;
            int compared = COUNT, rc;
            if (form == 0)
                rc = TDM_Iallreduce(in, ours, COUNT, p->type, op, comm, &req);
            else if (form == 1)
                rc = TDM_Ireduce(in, ours, COUNT, p->type, op, 1 % n, comm, &req);
            else if (form == 2)
                rc = TDM_Iscan(in, ours, COUNT, p->type, op, comm, &req);
            else if (form == 3)
                rc = TDM_Ireduce_scatter_block(in, ours, COUNT, p->type, op, comm, &req);
            else
                rc = TDM_Iallreduce(in, ours, COUNT / 2, two, op, comm, &req);
            check(rc == MPI_SUCCESS, "%s, form %d: %s", p->name, form, TDM_Last_error());
            if (rc != MPI_SUCCESS)
                continue;
            const char *running = TDM_Request_algorithm(req);
            /* a scan runs inline where a DCP's ranks are not consecutive: not in this program's world */
            check(running && strcmp(running, names[form]) == 0, "%s, form %d: runs %s, not %s", p->name, form,
                  running ? running : "(null)", names[form]);
            CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
            if (form == 0)
                MPI_Allreduce(in, theirs, COUNT, p->type, op, comm);
            else if (form == 1)
                MPI_Reduce(in, theirs, COUNT, p->type, op, 1 % n, comm), compared = me == 1 % n ? COUNT : 0;
            else if (form == 2)
                MPI_Scan(in, theirs, COUNT, p->type, op, comm);
            else if (form == 3)
                MPI_Reduce_scatter_block(in, theirs, COUNT, p->type, op, comm);
            else /* (MPIs refuse MAXLOC on a derived type: the same elements, one by one) */
                MPI_Allreduce(in, theirs, COUNT, p->type, op, comm);
            check(same_pairs(p, ours, theirs, compared), "%s, form %d (%s): not MPI's", p->name, form,
                  names[form]);
        }
        MPI_Type_free(&two);
        free(in), free(ours), free(theirs);
    }
}

/* The clients of the first DCP start more calls on one communicator than the DCPs hold tags for
 * (1,024 a communicator, fewer with TANDEM_DCP_WINDOW), then a blocking call on another; the other DCPs' clients make the two in the
 * other order. Legal: the DCPs must keep serving the blocking call while the first communicator's calls
 * wait for tags (a DCP blocked inside its service loop would deadlock here). */
static void past_the_window(MPI_Comm app, int first, int calls)
{
    enum { CALLS = 11000 };
    MPI_Comm many, one;
    MPI_Comm_dup(app, &many);
    MPI_Comm_dup(app, &one);
    static int in[CALLS], out[CALLS];
    static TDM_Request reqs[CALLS];
    int mine = rank + 1, sum = 0;
    for (int k = 0; k < calls; k++)
        in[k] = rank * 3 + k;
    if (!first)
        CHECK_TDM(TDM_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, one));
    for (int k = 0; k < calls; k++)
        CHECK_TDM(TDM_Iallreduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, many, &reqs[k]));
    if (first)
        CHECK_TDM(TDM_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, one));
    CHECK_TDM(TDM_Waitall(calls, reqs, MPI_STATUSES_IGNORE));
    int bad = 0;
    for (int k = 0; k < calls; k++)
        bad += out[k] != 3 * size * (size - 1) / 2 + size * k;
    check(sum == size * (size + 1) / 2 && bad == 0, "%d calls on one communicator crossing a blocking one: sum %d, "
          "%d wrong", calls, sum, bad);
    MPI_Comm_free(&many);
    MPI_Comm_free(&one);
}

/* Every call the DCPs serve on comm against MPI's: allreduce (every type and op of the matrix, or two
 * of each), 40 outstanding completed in reverse order, reduce and bcast from every root, barrier. */
/* Four calls in flight at a time, against MPI's: under TANDEM_DCP_FIRST_CALL near 2^32
 * (test_dcp_np5_call_wrap) their call numbers wrap inside a batch, which a DCP must still run in order. */
static void calls_four_at_once(MPI_Comm comm)
{
    for (int batch = 0; batch < 8; batch++) {
        int in[4], out[4], want[4];
        TDM_Request reqs[4];
        for (int k = 0; k < 4; k++) {
            in[k] = rank * 10 + batch * 4 + k;
            CHECK_TDM(TDM_Iallreduce(&in[k], &out[k], 1, MPI_INT, k % 2 ? MPI_MAX : MPI_SUM, comm, &reqs[k]));
        }
        CHECK_TDM(TDM_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 4; k++) {
            MPI_Allreduce(&in[k], &want[k], 1, MPI_INT, k % 2 ? MPI_MAX : MPI_SUM, comm);
            check(out[k] == want[k], "batch %d, call %d of 4 in flight: %d, MPI %d", batch, k, out[k], want[k]);
        }
    }
}

static void served_calls(MPI_Comm comm, int whole_matrix)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_LONG_LONG, MPI_UNSIGNED_CHAR};
    MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR};
    int kinds = whole_matrix ? 4 : 2;
    for (int t = 0; t < kinds; t++)
        for (int o = 0; o < kinds; o++)
            if (!(types[t] == MPI_DOUBLE && ops[o] == MPI_BXOR))
                for (int in_place = 0; in_place < 2; in_place++) {
                    same_as_mpi(comm, types[t], ops[o], 1, in_place);
                    same_as_mpi(comm, types[t], ops[o], N, in_place);
                }

    static int in[OUTSTANDING][64], out[OUTSTANDING][64], ref[OUTSTANDING][64];
    TDM_Request reqs[OUTSTANDING];
    for (int k = 0; k < OUTSTANDING; k++) {
        for (int i = 0; i < 64; i++)
            in[k][i] = me * 100 + k * 3 + i;
        CHECK_TDM(TDM_Iallreduce(in[k], out[k], 64, MPI_INT, MPI_SUM, comm, &reqs[k]));
    }
    for (int k = OUTSTANDING - 1; k >= 0; k--)
        CHECK_TDM(TDM_Wait(&reqs[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < OUTSTANDING; k++) {
        MPI_Allreduce(in[k], ref[k], 64, MPI_INT, MPI_SUM, comm);
        check(memcmp(out[k], ref[k], sizeof ref[k]) == 0, "outstanding allreduce %d: not MPI's", k);
    }

    for (int root = 0; root < n; root++) {
        int data[N], got[N], want[N];
        for (int i = 0; i < N; i++)
            data[i] = me * 31 + root + i % 17;
        TDM_Request req;
        CHECK_TDM(TDM_Ireduce(data, got, N, MPI_INT, MPI_MAX, root, comm, &req));
        served(req, "reduce_dcp");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Reduce(data, want, N, MPI_INT, MPI_MAX, root, comm);
        check(me != root || memcmp(got, want, sizeof want) == 0, "reduce to %d: not MPI's", root);
        if (me == root) /* in place at the root */
            memcpy(got, data, sizeof data);
        CHECK_TDM(TDM_Reduce(me == root ? MPI_IN_PLACE : data, got, N, MPI_INT, MPI_SUM, root, comm));
        MPI_Reduce(data, want, N, MPI_INT, MPI_SUM, root, comm);
        check(me != root || memcmp(got, want, sizeof want) == 0, "reduce in place to %d: not MPI's", root);
        for (int i = 0; i < N; i++)
            got[i] = me == root ? data[i] : -1;
        CHECK_TDM(TDM_Ibcast(got, N, MPI_INT, root, comm, &req));
        served(req, "bcast_dcp");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        memcpy(want, data, sizeof data);
        MPI_Bcast(want, N, MPI_INT, root, comm);
        check(memcmp(got, want, sizeof want) == 0, "bcast from %d: not MPI's", root);
    }
    TDM_Request barrier;
    CHECK_TDM(TDM_Ibarrier(comm, &barrier));
    served(barrier, "barrier_dcp");
    CHECK_TDM(TDM_Wait(&barrier, MPI_STATUS_IGNORE));
}

/* The same short calls again and again (the same buffers, new values each time): through the mailbox,
 * their schedules are kept and run again (TANDEM_VERBOSE counts them reused), each with a free slot and
 * its call number (express calls, after the first). Allreduce, a reduce (no answer on the other ranks), a
 * bcast from the last rank, barrier, an allreduce in place; then sixteen allreduces outstanding at once,
 * more than a mailbox has slots. */
static void repeated_calls(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    double in[4], out[4], want[4];
    int value, got, expected;
    for (int k = 0; k < 50; k++) {
        for (int i = 0; i < 4; i++)
            in[i] = me * 0.5 + k + i;
        CHECK_TDM(TDM_Allreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, comm));
        MPI_Allreduce(in, want, 4, MPI_DOUBLE, MPI_SUM, comm);
        check(memcmp(out, want, sizeof want) == 0, "repeated allreduce %d: not MPI's", k);
        value = me + k;
        got = -1;
        CHECK_TDM(TDM_Reduce(&value, &got, 1, MPI_INT, MPI_MAX, 0, comm));
        MPI_Reduce(&value, &expected, 1, MPI_INT, MPI_MAX, 0, comm);
        check(me != 0 || got == expected, "repeated reduce %d: %d, MPI %d", k, got, expected);
        value = me == n - 1 ? 1000 + k : -1;
        CHECK_TDM(TDM_Bcast(&value, 1, MPI_INT, n - 1, comm));
        check(value == 1000 + k, "repeated bcast %d: %d", k, value);
        CHECK_TDM(TDM_Barrier(comm));
        int inout[3] = {me + k, -me, 7 * me}, mine[3] = {me + k, -me, 7 * me}, ref[3];
        CHECK_TDM(TDM_Allreduce(MPI_IN_PLACE, inout, 3, MPI_INT, MPI_SUM, comm));
        MPI_Allreduce(mine, ref, 3, MPI_INT, MPI_SUM, comm);
        check(memcmp(inout, ref, sizeof ref) == 0, "repeated in-place allreduce %d: not MPI's", k);
    }
    enum { AT_ONCE = 16 };
    int many_in[AT_ONCE], many_out[AT_ONCE], many_want[AT_ONCE];
    for (int round = 0; round < 3; round++) {
        TDM_Request reqs[AT_ONCE];
        for (int k = 0; k < AT_ONCE; k++) {
            many_in[k] = me * 7 + k + round;
            CHECK_TDM(TDM_Iallreduce(&many_in[k], &many_out[k], 1, MPI_INT, MPI_SUM, comm, &reqs[k]));
        }
        CHECK_TDM(TDM_Waitall(AT_ONCE, reqs, MPI_STATUSES_IGNORE));
        MPI_Allreduce(many_in, many_want, AT_ONCE, MPI_INT, MPI_SUM, comm);
        check(memcmp(many_out, many_want, sizeof many_want) == 0, "%d allreduces at once, round %d: not MPI's",
              AT_ONCE, round);
    }
}

/* Express calls (a repeated small call through the mailbox, without the engine): results against MPI's
 * completed by TDM_Wait and TDM_Test, by the array forms (which settle them into regular runs), two
 * identical calls in flight at once (the second takes the general path), the communicator's express
 * call changing between two calls, and the communicator freed with one in flight. Counted where the
 * mailbox serves this rank (expected: how TDM_Get_dcp_handoffs found it). */
static void express_calls(MPI_Comm app, int through_mailbox)
{
    MPI_Comm comm;
    MPI_Comm_dup(app, &comm);
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    long before, after;
    CHECK_TDM(TDM_Get_express_calls(&before));
    double in[2], out[2], want[2];
    int value = 0;
    for (int k = 0; k < 40; k++) {
        in[0] = me + k, in[1] = me * 0.25 - k;
        TDM_Request reqs[3];
        CHECK_TDM(TDM_Iallreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, comm, &reqs[0]));
        int form = k % 4, flag = 0;
        if (form == 0)
            CHECK_TDM(TDM_Wait(&reqs[0], MPI_STATUS_IGNORE));
        while (form == 1 && !flag)
            CHECK_TDM(TDM_Test(&reqs[0], &flag, MPI_STATUS_IGNORE));
        if (form >= 2) { /* beside two barriers in flight at once, and a bcast: the same communicator */
            CHECK_TDM(TDM_Ibarrier(comm, &reqs[1]));
            CHECK_TDM(TDM_Ibarrier(comm, &reqs[2]));
            CHECK_TDM(TDM_Wait(&reqs[2], MPI_STATUS_IGNORE));
            if (form == 2)
                CHECK_TDM(TDM_Waitall(2, reqs, MPI_STATUSES_IGNORE));
            while (form == 3 && !flag)
                CHECK_TDM(TDM_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
            value = me == 0 ? 7 * k : -1;
            CHECK_TDM(TDM_Ibcast(&value, 1, MPI_INT, 0, comm, &reqs[0]));
            CHECK_TDM(TDM_Wait(&reqs[0], MPI_STATUS_IGNORE));
            check(value == 7 * k, "express: bcast %d gave %d", k, value);
        }
        MPI_Allreduce(in, want, 2, MPI_DOUBLE, MPI_SUM, comm);
        check(memcmp(out, want, sizeof want) == 0, "express: allreduce %d (form %d) not MPI's", k, form);
    }
    CHECK_TDM(TDM_Get_express_calls(&after));
    check(through_mailbox ? after - before >= 20 : after == before, "express: %ld calls of 40 loops %s", after - before,
          through_mailbox ? "(the mailbox serves this rank)" : "(no mailbox)");
    /* freed with one in flight: the call completes, its communicator's state goes after it */
    in[0] = me, in[1] = -me;
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, comm, &req));
    MPI_Allreduce(in, want, 2, MPI_DOUBLE, MPI_SUM, app);
    MPI_Comm_free(&comm);
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    check(memcmp(out, want, sizeof want) == 0, "express: allreduce on a freed communicator not MPI's");
    check(TDM_Get_express_calls(NULL) == MPI_ERR_ARG && strstr(TDM_Last_error(), "calls"),
          "TDM_Get_express_calls(NULL): %s", TDM_Last_error());
}

/* More calls without an answer in flight at once than the mailbox has slots (reduces, seen from the
 * non-roots), started on a communicator not named yet: each takes a slot when it is built, but posts
 * only once the communicator's rank 0 has named it, which it does in its first call, made after them. */
static void unanswered_calls_at_once(MPI_Comm app)
{
    enum { CALLS = 12 };
    MPI_Comm comm;
    MPI_Comm_dup(app, &comm);
    int me;
    MPI_Comm_rank(comm, &me);
    int in[CALLS], out[CALLS], want[CALLS];
    TDM_Request reqs[CALLS];
    long posts_before, posts_after, messages;
    CHECK_TDM(TDM_Get_dcp_handoffs(&posts_before, &messages));
    int n;
    MPI_Comm_size(comm, &n);
    for (int r = 1; me == 0 && r < n; r++) /* the others' calls built first */
        MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 77, comm, MPI_STATUS_IGNORE);
    for (int k = 0; k < CALLS; k++) {
        in[k] = me * 100 + k, out[k] = -1;
        CHECK_TDM(TDM_Ireduce(&in[k], &out[k], 1, MPI_INT, MPI_SUM, 0, comm, &reqs[k]));
    }
    if (me > 0)
        MPI_Send(NULL, 0, MPI_INT, 0, 77, comm);
    CHECK_TDM(TDM_Waitall(CALLS, reqs, MPI_STATUSES_IGNORE));
    /* a slot is a call's from its build: on a non-root, those past the slots went as messages */
    CHECK_TDM(TDM_Get_dcp_handoffs(&posts_after, &messages));
    check(me == 0 || (posts_after - posts_before > 0 && posts_after - posts_before < CALLS),
          "unanswered calls at once: %ld of %d through the mailbox", posts_after - posts_before, CALLS);
    for (int k = 0; k < CALLS; k++) {
        MPI_Reduce(&in[k], &want[k], 1, MPI_INT, MPI_SUM, 0, comm);
        check(me != 0 || out[k] == want[k], "unanswered calls at once: reduce %d gave %d, MPI %d", k, out[k], want[k]);
    }
    MPI_Comm_free(&comm);
}

/* A call left in flight to TDM_Finalize on a communicator the program never frees (an express call
 * where the mailbox serves the rank): TDM_Finalize abandons it, as it does any, and ends. */
static void left_in_flight(MPI_Comm app, int through_mailbox)
{
    static MPI_Comm kept; /* never freed: TDM_Finalize finds the call on it */
    static double in[2], out[2];
    static TDM_Request req;
    MPI_Comm_dup(app, &kept);
    for (int k = 0; k < 4; k++) { /* built, kept, then adopted as its communicator's express call */
        in[0] = rank + k, in[1] = -k;
        CHECK_TDM(TDM_Iallreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, kept, &req));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    }
    long before, after;
    CHECK_TDM(TDM_Get_express_calls(&before));
    CHECK_TDM(TDM_Iallreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, kept, &req));
    CHECK_TDM(TDM_Get_express_calls(&after));
    check(after - before == through_mailbox, "left in flight: an express call %s",
          through_mailbox ? "expected" : "unexpected");
}

/* Short calls through the mailbox (no agent drives them: whoever waits or tests looks for the answer)
 * beside long ones that go as messages, completed by each form: TDM_Waitany (the short call first in
 * the array, then last), TDM_Testall, TDM_Test on each in turn. */
static void completion_forms(MPI_Comm comm)
{
    int me;
    MPI_Comm_rank(comm, &me);
    enum { LONG = 4096 }; /* ints: more than a mailbox slot holds */
    static int long_in[LONG], long_out[LONG], long_want[LONG];
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < LONG; i++)
            long_in[i] = me * 3 + i + round;
        int short_in = me + 10 * round, short_out = -1, short_want;
        int s = round % 2; /* the short call's place in the array */
        TDM_Request reqs[2];
        CHECK_TDM(TDM_Iallreduce(&short_in, &short_out, 1, MPI_INT, MPI_SUM, comm, &reqs[s]));
        CHECK_TDM(TDM_Iallreduce(long_in, long_out, LONG, MPI_INT, MPI_MAX, comm, &reqs[1 - s]));
        int form = round / 2 % 3, flag = 0, flags[2] = {0, 0}, index = -1;
        if (form == 0) {
            for (int k = 0; k < 2; k++) {
                CHECK_TDM(TDM_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
                check(index == 0 || index == 1, "TDM_Waitany: index %d", index);
            }
            CHECK_TDM(TDM_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
            check(index == MPI_UNDEFINED, "TDM_Waitany with both done: index %d", index);
        }
        while (form == 1 && !flag)
            CHECK_TDM(TDM_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
        while (form == 2 && !(flags[0] && flags[1]))
            for (int k = 0; k < 2; k++)
                if (!flags[k])
                    CHECK_TDM(TDM_Test(&reqs[k], &flags[k], MPI_STATUS_IGNORE));
        check(reqs[0] == TDM_REQUEST_NULL && reqs[1] == TDM_REQUEST_NULL, "form %d left a request", form);
        MPI_Allreduce(&short_in, &short_want, 1, MPI_INT, MPI_SUM, comm);
        MPI_Allreduce(long_in, long_want, LONG, MPI_INT, MPI_MAX, comm);
        check(short_out == short_want, "form %d: short allreduce %d, MPI %d", form, short_out, short_want);
        check(memcmp(long_out, long_want, sizeof long_want) == 0, "form %d: long allreduce not MPI's", form);
    }
}

/* An allreduce on comm against MPI's, whoever runs it (a communicator of one rank: not the DCPs). */
/* Calls went to the DCP through the node's segment where it shares this rank's node (emulated nodes of
 * TANDEM_NODE_SIZE, one size, counted), as messages where not or under TANDEM_SHM=off; persistent calls
 * and long ones always as messages. */
/* Whether this rank hands its short calls to its DCP through the node's segment. */
static int mailbox_serves_me(void)
{
    int dcp, first, clients, same, world;
    CHECK_TDM(TDM_Get_dcp_placement(&dcp, &first, &clients, &same));
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    const char *off = getenv("TANDEM_SHM"), *cut = getenv("TANDEM_NODE_SIZE");
    int k = cut ? atoi(cut) : 0;
#ifdef TANDEM_SMPI
    (void)same, (void)off, (void)k, (void)world;
    return 0; /* in simulation the DCPs take their calls as messages (engine/node.c) */
#else
    return same && !(off && strcmp(off, "off") == 0) && (k <= 0 || world / k == dcp / k);
#endif
}

static void handoffs_where_expected(void)
{
    int dcp, first, clients, same, world;
    CHECK_TDM(TDM_Get_dcp_placement(&dcp, &first, &clients, &same));
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    long shm = -1, messages = -1;
    CHECK_TDM(TDM_Get_dcp_handoffs(&shm, &messages));
    int shared = mailbox_serves_me();
    check(messages > 0 && (shared ? shm > 0 : shm == 0),
          "world rank %d (its DCP %d %s): %ld calls through the segment, %ld as messages", world, dcp,
          shared ? "on its node" : "elsewhere or without the segment", shm, messages);
    check(TDM_Get_dcp_handoffs(NULL, &messages) == MPI_ERR_ARG && strstr(TDM_Last_error(), "through_segment"),
          "TDM_Get_dcp_handoffs(NULL, ...): %s", TDM_Last_error());
}

static void allreduce_right(MPI_Comm comm, const char *what)
{
    int me, sum = 0, want = 0;
    MPI_Comm_rank(comm, &me);
    int mine = rank * 5 + 3;
    CHECK_TDM(TDM_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm));
    MPI_Allreduce(&mine, &want, 1, MPI_INT, MPI_SUM, comm);
    check(sum == want, "%s: allreduce gave %d, MPI %d", what, sum, want);
}

/* Sub-communicators of the application world: each named among its DCPs at its first call. */
/* More communicators with calls outstanding than the first DCP has slots to lend (TANDEM_DCP_SLOTS, a
 * testing setting): the calls of the later ones wait until the program frees earlier ones, which it
 * does as their calls complete. */
static void more_communicators_than_slots(MPI_Comm app)
{
    enum { COMMS = 6 };
    MPI_Comm comms[COMMS];
    TDM_Request reqs[COMMS];
    int in[COMMS], got[COMMS], want[COMMS];
    for (int c = 0; c < COMMS; c++) {
        MPI_Comm_dup(app, &comms[c]);
        in[c] = rank * 10 + c;
        CHECK_TDM(TDM_Iallreduce(&in[c], &got[c], 1, MPI_INT, MPI_SUM, comms[c], &reqs[c]));
    }
    for (int c = 0; c < COMMS; c++) {
        CHECK_TDM(TDM_Wait(&reqs[c], MPI_STATUS_IGNORE));
        MPI_Allreduce(&in[c], &want[c], 1, MPI_INT, MPI_SUM, comms[c]);
        check(got[c] == want[c], "communicator %d of %d alive (past the slots): %d, MPI %d", c, COMMS, got[c], want[c]);
        MPI_Comm_free(&comms[c]);
    }
}

static void sub_communicators(MPI_Comm app)
{
    MPI_Comm halves, reversed, odd_even, dup, alone;
    MPI_Comm_split(app, rank < size / 2, rank, &halves);
    MPI_Comm_split(app, 0, size - rank, &reversed);
    /* every other rank: a DCP serves some of its clients' neighbours in it, not the others */
    MPI_Comm_split(app, rank % 2, rank, &odd_even);
    MPI_Comm_dup(app, &dup);
    MPI_Comm_split(app, rank, 0, &alone);
    MPI_Comm all[] = {halves, reversed, odd_even, dup};
    for (int c = 0; c < 4; c++) {
        int n;
        MPI_Comm_size(all[c], &n);
        if (n > 1)
            served_calls(all[c], 0);
        else
            allreduce_right(all[c], "a communicator of one rank");
    }
    allreduce_right(alone, "MPI_Comm_split to single ranks");

#ifndef TANDEM_SMPI /* SMPI has no MPI_Comm_idup: there a communicator's first call waits for its ranks */
    /* first calls on two new communicators started in opposite orders on even and odd ranks (MPI allows
     * it for non-blocking calls): naming them must not wait for the other ranks */
    MPI_Comm x, y;
    MPI_Comm_dup(app, &x);
    MPI_Comm_dup(reversed, &y);
    int vx = rank + 1, vy = 2 * rank + 1, sx = 0, sy = 0, wx = 0, wy = 0;
    TDM_Request rx, ry;
    if (rank % 2) {
        CHECK_TDM(TDM_Iallreduce(&vy, &sy, 1, MPI_INT, MPI_SUM, y, &ry));
        CHECK_TDM(TDM_Iallreduce(&vx, &sx, 1, MPI_INT, MPI_SUM, x, &rx));
    } else {
        CHECK_TDM(TDM_Iallreduce(&vx, &sx, 1, MPI_INT, MPI_SUM, x, &rx));
        CHECK_TDM(TDM_Iallreduce(&vy, &sy, 1, MPI_INT, MPI_SUM, y, &ry));
    }
    CHECK_TDM(TDM_Wait(&ry, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Wait(&rx, MPI_STATUS_IGNORE));
    MPI_Allreduce(&vx, &wx, 1, MPI_INT, MPI_SUM, x);
    MPI_Allreduce(&vy, &wy, 1, MPI_INT, MPI_SUM, y);
    check(sx == wx && sy == wy, "first calls in opposite orders: %d %d, MPI %d %d", sx, sy, wx, wy);
    MPI_Comm_free(&x);
    MPI_Comm_free(&y);
#endif

    /* a communicator's first call, then rank 0 blocks in MPI until rank 1 has that call's result: rank 0's
     * naming of the communicator must reach the others without another Tandem call of rank 0 */
    MPI_Comm named;
    MPI_Comm_dup(app, &named);
    int mine = rank + 5, sum = 0, mpi_sum = 0, token = 0;
    TDM_Request naming_call;
    CHECK_TDM(TDM_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, named, &naming_call));
    if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, 1, 77, app, MPI_STATUS_IGNORE);
        CHECK_TDM(TDM_Wait(&naming_call, MPI_STATUS_IGNORE));
    } else {
        CHECK_TDM(TDM_Wait(&naming_call, MPI_STATUS_IGNORE));
        if (rank == 1)
            MPI_Send(&token, 1, MPI_INT, 0, 77, app);
    }
    MPI_Allreduce(&mine, &mpi_sum, 1, MPI_INT, MPI_SUM, named);
    check(sum == mpi_sum, "first call with rank 0 blocked in MPI_Recv: %d, MPI %d", sum, mpi_sum);
    MPI_Comm_free(&named);

    /* a communicator's first two calls, a short one then one long enough for segments (under
     * TANDEM_DCP_SEGMENT=64): waiting for the communicator's name, either may reach the DCP first, and
     * only the first tells it the members */
    MPI_Comm z;
    MPI_Comm_dup(reversed, &z);
    static int long_in[N], long_ours[N], long_mpi[N];
    for (int i = 0; i < N; i++)
        long_in[i] = rank * 3 + i;
    int one = rank, one_ours = 0, one_mpi = 0;
    TDM_Request first, second;
    CHECK_TDM(TDM_Iallreduce(&one, &one_ours, 1, MPI_INT, MPI_SUM, z, &first));
    CHECK_TDM(TDM_Iallreduce(long_in, long_ours, N, MPI_INT, MPI_SUM, z, &second));
    CHECK_TDM(TDM_Wait(&second, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Wait(&first, MPI_STATUS_IGNORE));
    MPI_Allreduce(&one, &one_mpi, 1, MPI_INT, MPI_SUM, z);
    MPI_Allreduce(long_in, long_mpi, N, MPI_INT, MPI_SUM, z);
    check(one_ours == one_mpi && memcmp(long_ours, long_mpi, sizeof long_mpi) == 0,
          "a short then a long first call on a communicator: not MPI's results");
    MPI_Comm_free(&z);

    /* communicators made and freed again and again, a call pending on each when it is freed */
    for (int k = 0; k < 30; k++) {
        MPI_Comm c;
        MPI_Comm_split(app, (rank + k) % 3 == 0, (k % 2 ? -1 : 1) * rank, &c);
        int v = rank + k, s = 0, w = 0;
        TDM_Request r;
        CHECK_TDM(TDM_Iallreduce(&v, &s, 1, MPI_INT, MPI_MAX, c, &r));
        MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, c);
        MPI_Comm_free(&c);
        CHECK_TDM(TDM_Wait(&r, MPI_STATUS_IGNORE));
        check(s == w, "communicator %d, freed with a call pending: %d, MPI %d", k, s, w);
    }
    MPI_Comm_free(&halves);
    MPI_Comm_free(&odd_even);
    MPI_Comm_free(&alone);
    /* reversed and dup are left to TDM_Finalize */
    (void)dup;
}

/* A vector of 16 MiB per rank: in segments of 64 bytes (test_dcp_np5_segments) that would be a quarter
 * of a million segments per client, whose receives a DCP posts at once (MPICH fails an assertion near
 * 400 000); it goes in longer ones instead. */
static void long_vector(MPI_Comm app)
{
    enum { LONG = 1 << 22 };
    int *in = malloc(sizeof(int) * LONG), *ours = malloc(sizeof(int) * LONG), *theirs = malloc(sizeof(int) * LONG);
    for (int i = 0; i < LONG; i++)
        in[i] = rank + i % 1000;
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(in, ours, LONG, MPI_INT, MPI_SUM, app, &req));
    served(req, "allreduce_dcp");
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Allreduce(in, theirs, LONG, MPI_INT, MPI_SUM, app);
    check(memcmp(ours, theirs, sizeof(int) * LONG) == 0, "allreduce of %d ints: not MPI's", LONG);
    free(in);
    free(ours);
    free(theirs);
}

/* An alltoallv whose blocks differ from rank to rank (rank s sends rank r (s + 2 r + 1) * 3000 bytes): in
 * segments of 64 bytes, up to about a thousand per client, each rank counting its own, more than a DCP
 * posts at once; and an allreduce right behind it, whose message the DCP takes only after the last of
 * the alltoallv's segment receives is posted. */
static void long_v_form(MPI_Comm app)
{
    int *scounts = malloc(sizeof(int) * (size_t)size), *rcounts = malloc(sizeof(int) * (size_t)size);
    int *sdispls = malloc(sizeof(int) * (size_t)size), *rdispls = malloc(sizeof(int) * (size_t)size);
    int sent = 0, got = 0;
    for (int r = 0; r < size; r++) {
        scounts[r] = (rank + 2 * r + 1) * 3000;
        rcounts[r] = (r + 2 * rank + 1) * 3000;
        sdispls[r] = sent, rdispls[r] = got;
        sent += scounts[r], got += rcounts[r];
    }
    char *in = malloc((size_t)sent), *ours = malloc((size_t)got), *theirs = malloc((size_t)got);
    for (int i = 0; i < sent; i++)
        in[i] = (char)(rank * 31 + i % 251);
    int one = rank + 1, sum = 0;
    TDM_Request req, next;
    CHECK_TDM(TDM_Ialltoallv(in, scounts, sdispls, MPI_BYTE, ours, rcounts, rdispls, MPI_BYTE, app, &req));
    served(req, "alltoallv_dcp");
    CHECK_TDM(TDM_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, app, &next));
    CHECK_TDM(TDM_Wait(&next, MPI_STATUS_IGNORE));
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Alltoallv(in, scounts, sdispls, MPI_BYTE, theirs, rcounts, rdispls, MPI_BYTE, app);
    check(memcmp(ours, theirs, (size_t)got) == 0 && sum == size * (size + 1) / 2,
          "alltoallv of blocks up to %d bytes, then an allreduce: not MPI's", (3 * size) * 3000);
    free(in), free(ours), free(theirs);
    free(scounts), free(rcounts), free(sdispls), free(rdispls);
}

/* Persistent calls go through the DCPs too: started again and again, beside other calls, and on a
 * communicator whose first call is a start and that is freed before the request. */
static void persistent_calls(MPI_Comm app)
{
    int in[N], out[N], ref[N];
    for (int i = 0; i < N; i++)
        in[i] = rank * N + i;
    MPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, app);
    TDM_Request req;
    CHECK_TDM(TDM_Allreduce_init(in, out, N, MPI_INT, MPI_SUM, app, MPI_INFO_NULL, &req));
    served(req, "allreduce_dcp");
    for (int k = 0; k < 3; k++) {
        memset(out, 0, sizeof out);
        CHECK_TDM(TDM_Start(&req));
        if (k == 1) { /* another call in between */
            int one = 1, all = 0;
            CHECK_TDM(TDM_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, app));
            check(all == size, "an allreduce between starts: %d", all);
        }
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        check(memcmp(out, ref, sizeof ref) == 0, "persistent allreduce, start %d: not MPI's", k);
    }
    CHECK_TDM(TDM_Request_free(&req));

    /* a persistent call identical to short calls before it, whose schedule the cache kept: a
     * persistent call of its own all the same, started again and again among other short calls */
    int small_in = rank, small_out, small_ref;
    for (int k = 0; k < 3; k++)
        CHECK_TDM(TDM_Allreduce(&small_in, &small_out, 1, MPI_INT, MPI_SUM, app));
    CHECK_TDM(TDM_Allreduce_init(&small_in, &small_out, 1, MPI_INT, MPI_SUM, app, MPI_INFO_NULL, &req));
    for (int k = 0; k < 20; k++) {
        small_in = rank + k;
        small_out = -1;
        CHECK_TDM(TDM_Start(&req));
        int one = k, all = -1;
        CHECK_TDM(TDM_Allreduce(&one, &all, 1, MPI_INT, MPI_MAX, app));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Allreduce(&small_in, &small_ref, 1, MPI_INT, MPI_SUM, app);
        check(small_out == small_ref && all == k, "persistent allreduce after cached ones, start %d: %d, MPI %d "
              "(between: %d)", k, small_out, small_ref, all);
    }
    CHECK_TDM(TDM_Request_free(&req));

    MPI_Comm fresh;
    MPI_Comm_split(app, 0, size - rank, &fresh); /* reversed */
    int me, root = 0;
    MPI_Comm_rank(fresh, &me);
    CHECK_TDM(TDM_Bcast_init(out, N, MPI_INT, root, fresh, MPI_INFO_NULL, &req));
    served(req, "bcast_dcp");
    MPI_Comm_free(&fresh); /* the request keeps it for its DCPs */
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < N; i++)
            out[i] = me == root ? k * N + i : -1;
        CHECK_TDM(TDM_Start(&req));
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        int right = 1;
        for (int i = 0; i < N; i++)
            right &= out[i] == k * N + i;
        check(right, "persistent bcast on a fresh communicator, start %d: wrong data", k);
    }
    CHECK_TDM(TDM_Request_free(&req));
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

    /* this rank's DCP: not an application rank, serving a block that holds this rank, on this node */
    int dcp, first, clients, same_node, in_app;
    CHECK_TDM(TDM_Get_dcp_placement(&dcp, &first, &clients, &same_node));
    MPI_Group world_group, app_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(app, &app_group);
    MPI_Group_translate_ranks(world_group, 1, &dcp, app_group, &in_app);
    check(dcp >= 0 && dcp < world && in_app == MPI_UNDEFINED && first <= rank && rank < first + clients,
          "TDM_Get_dcp_placement: DCP %d (application rank %d), block %d+%d", dcp, in_app, first, clients);
#ifndef TANDEM_SMPI /* a simulated platform's hosts are nodes of their own */
    check(same_node, "TDM_Get_dcp_placement: the DCP is on another node of this one-node job");
#endif
    MPI_Group_free(&world_group);
    MPI_Group_free(&app_group);

    /* MPI_COMM_WORLD holds the DCPs, which never call: refused at once, every kind, not a hang */
    int one = 1, sum = 0;
    TDM_Request refused = TDM_REQUEST_NULL;
    check(TDM_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &refused) == MPI_ERR_COMM &&
              refused == TDM_REQUEST_NULL && strstr(TDM_Last_error(), "dedicated collective processes"),
          "TDM_Iallreduce on MPI_COMM_WORLD, which holds DCPs: %s", TDM_Last_error());
    check(TDM_Barrier(MPI_COMM_WORLD) == MPI_ERR_COMM && strstr(TDM_Last_error(), "argument comm"),
          "TDM_Barrier on MPI_COMM_WORLD, which holds DCPs: %s", TDM_Last_error());
    struct {
        double value;
        int rank;
    } pair = {1.0, rank}, max; /* a call the DCPs do not carry (it would run inline) is refused alike */
    check(TDM_Allreduce(&pair, &max, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_ERR_COMM,
          "TDM_Allreduce(MPI_MAXLOC) on MPI_COMM_WORLD, which holds DCPs: %s", TDM_Last_error());

    if (getenv("TANDEM_DCP_SLOTS")) { /* that alone: the other parts keep several communicators alive */
        more_communicators_than_slots(app);
        return harness_finish();
    }
    calls_four_at_once(app);
    served_calls(app, 1);
    repeated_calls(app);
    completion_forms(app);
    express_calls(app, mailbox_serves_me());
    /* where the mailbox serves every rank (its subject); not with few tags, where a start completes
     * earlier calls first, and so waits for rank 0's */
    int everywhere = 0, served_here = mailbox_serves_me();
    MPI_Allreduce(&served_here, &everywhere, 1, MPI_INT, MPI_LAND, app);
    if (everywhere && !getenv("TANDEM_TAG_RANGE"))
        unanswered_calls_at_once(app);
    every_predefined_type(app);
    padded_pairs(app);
    /* past the DCPs' tags for a communicator: 1,024, or the testing TANDEM_DCP_WINDOW (the suite's, to
     * be quick); TANDEM_TEST_DCP_CALLS sets the number (a stress run: 1100, 11000) */
    const char *window = getenv("TANDEM_DCP_WINDOW"), *calls = getenv("TANDEM_TEST_DCP_CALLS");
    int past = calls ? atoi(calls) : window ? 3 * atoi(window) : 0;
    if (atoi(count) >= 2 && past > 0 && past <= 11000)
        past_the_window(app, first == 0, past); /* this rank's DCP is the first, or not */
    sub_communicators(app);
    if (getenv("TANDEM_DCP_SEGMENT")) { /* in short segments (test_dcp_np5_segments): many of them */
        long_vector(app);
        long_v_form(app);
    }

    /* run on the application rank: a user op; scans where a DCP's ranks are not consecutive (evens, then
     * odds) */
    MPI_Op mine;
    MPI_Op_create(user_sum, 1, &mine);
    int in[64], out[64], ref[64];
    for (int i = 0; i < 64; i++)
        in[i] = rank * 64 + i;
    TDM_Request req;
    CHECK_TDM(TDM_Iallreduce(in, out, 64, MPI_INT, mine, app, &req));
    const char *name = TDM_Request_algorithm(req);
    check(name && !strstr(name, "_dcp"), "a user op ran %s", name ? name : "(null)");
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    MPI_Allreduce(in, ref, 64, MPI_INT, MPI_SUM, app);
    check(memcmp(out, ref, sizeof ref) == 0, "allreduce with a user op: not MPI's");
    MPI_Op_free(&mine);
    persistent_calls(app);
    MPI_Comm interleaved;
    MPI_Comm_split(app, 0, (rank % 2) * size + rank, &interleaved);
    int s = 0, want = 0;
    CHECK_TDM(TDM_Scan(&in[1], &s, 1, MPI_INT, MPI_SUM, interleaved));
    MPI_Scan(&in[1], &want, 1, MPI_INT, MPI_SUM, interleaved);
    check(s == want, "scan on evens then odds: %d, MPI %d", s, want);
    int me;
    MPI_Comm_rank(interleaved, &me);
    CHECK_TDM(TDM_Exscan(&in[1], &s, 1, MPI_INT, MPI_SUM, interleaved));
    MPI_Exscan(&in[1], &want, 1, MPI_INT, MPI_SUM, interleaved);
    check(me == 0 || s == want, "exscan on evens then odds: %d, MPI %d", s, want);
    MPI_Comm_free(&interleaved);

    check(TDM_Set_progress("thread") == MPI_ERR_OTHER && strstr(TDM_Last_error(), "dcp progress"),
          "thread progress in a dcp job: %s", TDM_Last_error());
    CHECK_TDM(TDM_Set_progress("inline"));
    int rc = TDM_Set_progress("dcp");
    check(rc == MPI_ERR_OTHER && strstr(TDM_Last_error(), "before TDM_Init"), "dcp progress after TDM_Init: got %d: %s",
          rc, TDM_Last_error());

    handoffs_where_expected();
    left_in_flight(app, mailbox_serves_me());

    /* the report over the application ranks (harness_finish's is over MPI_COMM_WORLD, DCPs included) */
    long totals[2], mine_counts[2] = {harness_checks, harness_failures};
    MPI_Allreduce(mine_counts, totals, 2, MPI_LONG, MPI_SUM, app);

    /* The last call: a reduce to rank 0 on a communicator it is the first call on, of rank 0 and the
     * last rank, whose DCPs differ when there are two. The last rank's side ends with its send and it
     * finalizes at once, maybe before its DCP heard from rank 0's which DCP tags the call takes: its DCP
     * must still run the call, then end. */
    MPI_Comm ends;
    MPI_Comm_split(app, rank == 0 || rank == size - 1 ? 0 : MPI_UNDEFINED, rank, &ends);
    if (ends != MPI_COMM_NULL) {
        int mine_value[N], sum[N];
        for (int i = 0; i < N; i++)
            mine_value[i] = rank * N + i;
        CHECK_TDM(TDM_Reduce(mine_value, sum, N, MPI_INT, MPI_SUM, 0, ends));
        for (int i = 0; rank == 0 && i < N; i++)
            if (sum[i] != (size > 1 ? (size - 1) * N + 2 * i : i))
                totals[1]++;
        /* a short one after it: through the mailbox where it can, the last rank's side done once posted,
         * so that its FINALIZED may reach the DCP before the call does: the DCP takes the call first */
        for (int i = 0; i < 4; i++)
            mine_value[i] = rank + i;
        CHECK_TDM(TDM_Reduce(mine_value, sum, 4, MPI_INT, MPI_SUM, 0, ends));
        for (int i = 0; rank == 0 && i < 4; i++)
            if (sum[i] != (size > 1 ? size - 1 + 2 * i : i))
                totals[1]++;
        MPI_Comm_free(&ends);
    }
    if (rank == 0)
        printf("test_dcp (%d application ranks of %d): %ld checks, %ld failed: %s\n", size, world, totals[0] + 1,
               totals[1], totals[1] == 0 && totals[0] > 0 ? "PASS" : "FAIL");
    TDM_Finalize();
    return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}

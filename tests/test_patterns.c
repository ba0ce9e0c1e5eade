/*
 * The overlap patterns against MPI's own collectives: every kind, every tile 1 .. N and window 1 .. N,
 * the auto parameters and the tuner, variable sizes (the v-forms, and ranks with fewer items), a derived
 * datatype with a hole; then the errors: bad fields named, a spec that differs between ranks, a compute
 * function that fails or sets bad counts on one rank only (no rank may hang).
 */
#include "harness.h"
#include "tandem_patterns.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 5      /* N: a rank's items (odd ranks one fewer in the v-forms) */
#define ITEM_COUNT 3 /* elements an item produces (per destination where each rank gets its own) */

static const char *const kind_names[] = {"allgather", "allgatherv", "gather",         "gatherv",
                                         "alltoall",  "alltoallv",  "allreduce", "reduce_scatter"};

static int rank, size;

/* The test's element: one int, or (the derived case) two ints, the second the first's negation, in a
 * 12-byte extent (a hole after them). */
typedef struct element_kind {
    MPI_Datatype type;
    int ints;      /* per element */
    size_t extent; /* bytes */
} element_kind;

typedef struct test_case {
    TDM_Pattern_kind kind;
    element_kind elem;
    int items;     /* this rank's */
    int variable;  /* a v-form */
    int per_rank;  /* out[d] for each rank */
    /* what the consume function collected: per source rank (or [0] for the reductions), appended */
    int *got[64];
    size_t got_len[64];
    int bad_counts_item; /* >= 0: compute sets a bad count for that item (on rank 0) */
    int fail_item;       /* >= 0: compute fails at that item (on the last rank) */
} test_case;

static int value(int src, int item, int dest, int k) { return src * 100003 + item * 1009 + dest * 101 + k + 1; }
static int count_of(const test_case *t, int src, int item, int dest)
{
    return t->variable ? (src + 2 * item + dest) % (ITEM_COUNT + 1) : ITEM_COUNT;
}
static void put(const element_kind *e, void *buf, size_t k, int v)
{
    int *at = (int *)((char *)buf + k * e->extent);
    at[0] = v;
    if (e->ints == 2)
        at[1] = -v;
}
static int same(const element_kind *e, const void *a, const void *b, size_t k)
{
    const int *x = (const int *)((const char *)a + k * e->extent), *y = (const int *)((const char *)b + k * e->extent);
    return x[0] == y[0] && (e->ints == 1 || x[1] == y[1]);
}

static int compute(int item, void *const out[], int counts[], void *user)
{
    test_case *t = user;
    if (t->fail_item == item && rank == size - 1)
        return MPI_ERR_BUFFER;
    int parts = t->per_rank ? size : 1;
    for (int d = 0; d < parts; d++) {
        int n = count_of(t, rank, item, d);
        for (int k = 0; k < n; k++)
            put(&t->elem, out[d], (size_t)k, value(rank, item, d, k));
        if (t->variable)
            counts[d] = n;
    }
    if (t->bad_counts_item == item && rank == 0)
        counts[0] = t->variable ? ITEM_COUNT + 1 : ITEM_COUNT - 1;
    return 0;
}

static int consume(int first, int items, const void *in, const int counts[], const int displs[], void *user)
{
    test_case *t = user;
    (void)first, (void)items;
    int reduced = t->kind == TDM_PATTERN_ALLREDUCE || t->kind == TDM_PATTERN_REDUCE_SCATTER;
    for (int r = 0; r < (reduced ? 1 : size); r++) {
        size_t n = (size_t)counts[r];
        t->got[r] = realloc(t->got[r], (t->got_len[r] + n) * t->elem.extent + 1);
        size_t span = n ? (n - 1) * t->elem.extent + (size_t)t->elem.ints * sizeof(int) : 0; /* no hole at the end */
        memcpy((char *)t->got[r] + t->got_len[r] * t->elem.extent, (const char *)in + (size_t)displs[r] * t->elem.extent,
               span);
        t->got_len[r] += n;
    }
    return 0;
}

/* This rank's whole contribution, every item in order: for one destination (dest 0), or for rank d;
 * past its items, zeros up to ITEMS (the fixed-size kinds) or nothing (the v-forms). */
static size_t contribution(const test_case *t, int dest, void *buf)
{
    size_t n = 0;
    for (int i = 0; i < (t->variable ? t->items : ITEMS); i++)
        for (int k = 0; k < count_of(t, rank, i, dest); k++, n++)
            if (buf)
                put(&t->elem, buf, n, i < t->items ? value(rank, i, dest, k) : 0);
    return n;
}

/* MPI's answer, per source rank (or [0]): want[r] with want_len[r] elements. */
static void reference(const test_case *t, MPI_Comm comm, void *want, int *want_counts, int *want_displs)
{
    MPI_Datatype type = t->elem.type;
    int parts = t->per_rank ? size : 1;
    int send_counts[64], send_displs[64];
    size_t total = 0;
    for (int d = 0; d < parts; d++)
        send_displs[d] = (int)total, send_counts[d] = (int)contribution(t, d, NULL), total += (size_t)send_counts[d];
    char *send = calloc(total + 1, t->elem.extent);
    for (int d = 0; d < parts; d++)
        contribution(t, d, send + (size_t)send_displs[d] * t->elem.extent);
    int fixed = ITEMS * ITEM_COUNT;
    switch (t->kind) {
    case TDM_PATTERN_ALLGATHER:
    case TDM_PATTERN_GATHER:
    case TDM_PATTERN_ALLTOALL:
        for (int r = 0; r < size; r++)
            want_counts[r] = fixed, want_displs[r] = r * fixed;
        if (t->kind == TDM_PATTERN_ALLGATHER)
            REFERENCE(MPI_Iallgather, send, fixed, type, want, fixed, type, comm);
        else if (t->kind == TDM_PATTERN_GATHER)
            REFERENCE(MPI_Igather, send, fixed, type, want, fixed, type, 0, comm);
        else
            REFERENCE(MPI_Ialltoall, send, fixed, type, want, fixed, type, comm);
        break;
    case TDM_PATTERN_ALLGATHERV:
    case TDM_PATTERN_GATHERV:
    case TDM_PATTERN_ALLTOALLV:
        if (t->kind == TDM_PATTERN_ALLTOALLV)
            REFERENCE(MPI_Ialltoall, send_counts, 1, MPI_INT, want_counts, 1, MPI_INT, comm);
        else
            REFERENCE(MPI_Iallgather, send_counts, 1, MPI_INT, want_counts, 1, MPI_INT, comm);
        for (int r = 0, at = 0; r < size; r++)
            want_displs[r] = at, at += want_counts[r];
        if (t->kind == TDM_PATTERN_ALLGATHERV)
            REFERENCE(MPI_Iallgatherv, send, send_counts[0], type, want, want_counts, want_displs, type, comm);
        else if (t->kind == TDM_PATTERN_GATHERV)
            REFERENCE(MPI_Igatherv, send, send_counts[0], type, want, want_counts, want_displs, type, 0, comm);
        else
            REFERENCE(MPI_Ialltoallv, send, send_counts, send_displs, type, want, want_counts, want_displs, type, comm);
        break;
    case TDM_PATTERN_ALLREDUCE:
        want_counts[0] = fixed, want_displs[0] = 0;
        REFERENCE(MPI_Iallreduce, send, want, fixed, type, MPI_SUM, comm);
        break;
    case TDM_PATTERN_REDUCE_SCATTER:
        want_counts[0] = fixed, want_displs[0] = 0;
        REFERENCE(MPI_Ireduce_scatter_block, send, want, fixed, type, MPI_SUM, comm);
        break;
    }
    free(send);
}

static void reset(test_case *t)
{
    for (int r = 0; r < size; r++)
        free(t->got[r]), t->got[r] = NULL, t->got_len[r] = 0;
}

static TDM_Pattern_spec spec_of(test_case *t, MPI_Comm comm, int tile, int window, int tune)
{
    TDM_Pattern_spec s = {.kind = t->kind, .comm = comm, .datatype = t->elem.type, .op = MPI_SUM, .root = 0,
                          .items = t->items, .item_count = ITEM_COUNT, .tile = tile, .window = window,
                          .tune = tune, .compute = compute, .consume = consume, .user = t};
    return s;
}

static test_case case_of(TDM_Pattern_kind kind, const element_kind *elem)
{
    test_case t = {.kind = kind, .elem = *elem, .bad_counts_item = -1, .fail_item = -1};
    t.variable = kind == TDM_PATTERN_ALLGATHERV || kind == TDM_PATTERN_GATHERV || kind == TDM_PATTERN_ALLTOALLV;
    t.per_rank = kind == TDM_PATTERN_ALLTOALL || kind == TDM_PATTERN_ALLTOALLV || kind == TDM_PATTERN_REDUCE_SCATTER;
    int reduction = kind == TDM_PATTERN_ALLREDUCE || kind == TDM_PATTERN_REDUCE_SCATTER;
    t.items = !reduction && rank % 2 ? ITEMS - 1 : ITEMS; /* odd ranks one item fewer, but in the reductions */
    return t;
}

/* Runs the pattern `runs` times and checks each run's result against MPI's. */
static void check_runs(test_case *t, MPI_Comm comm, int tile, int window, int tune, int runs)
{
    const char *name = kind_names[t->kind];
    TDM_Pattern_spec s = spec_of(t, comm, tile, window, tune);
    TDM_Pattern pattern;
    int rc = TDM_Pattern_create(&s, &pattern);
    check(rc == MPI_SUCCESS, "%s tile %d window %d: create returned %d: %s", name, tile, window, rc, TDM_Last_error());
    if (rc != MPI_SUCCESS)
        return;
    size_t cap = (size_t)size * ITEMS * ITEM_COUNT + 1;
    char *want = calloc(cap, t->elem.extent);
    int want_counts[64], want_displs[64];
    reference(t, comm, want, want_counts, want_displs);
    int receives = !(t->kind == TDM_PATTERN_GATHER || t->kind == TDM_PATTERN_GATHERV) || rank == 0;
    int sources = t->kind == TDM_PATTERN_ALLREDUCE || t->kind == TDM_PATTERN_REDUCE_SCATTER ? 1 : size;
    for (int run = 0; run < runs; run++) {
        int used_tile = 0, used_window = 0;
        TDM_Pattern_get_params(pattern, &used_tile, &used_window, NULL);
        reset(t);
        rc = TDM_Pattern_run(pattern);
        check(rc == MPI_SUCCESS, "%s tile %d window %d run %d: returned %d: %s", name, tile, window, run, rc,
              TDM_Last_error());
        for (int r = 0; receives && r < sources; r++) {
            int ok = t->got_len[r] == (size_t)want_counts[r];
            for (size_t k = 0; ok && k < t->got_len[r]; k++)
                ok = same(&t->elem, t->got[r], want + (size_t)want_displs[r] * t->elem.extent, k);
            check(ok, "%s tile %d window %d (run %d with tile %d window %d): from rank %d %zu elements, %s", name, tile,
                  window, run, used_tile, used_window, r, t->got_len[r],
                  t->got_len[r] == (size_t)want_counts[r] ? "not MPI's" : "not as many as MPI's");
        }
        if (!receives)
            check(t->got_len[0] == 0, "%s: consume called on a rank that is not the root", name);
        TDM_Pattern_times times;
        TDM_Pattern_get_times(pattern, &times);
        check(times.total >= times.compute && times.compute >= 0 && times.communication >= -1e-9,
              "%s: times of a run inconsistent (total %g compute %g communication %g)", name, times.total,
              times.compute, times.communication);
    }
    if (tile == TDM_PATTERN_AUTO || window == TDM_PATTERN_AUTO || tune) {
        int used_tile = 0, used_window = 0, settled = 0;
        TDM_Pattern_get_params(pattern, &used_tile, &used_window, &settled);
        check(used_tile >= 1 && used_tile <= ITEMS && used_window >= 1 && used_window <= 8,
              "%s auto: tile %d window %d chosen for %d items", name, used_tile, used_window, ITEMS);
        if (tile != TDM_PATTERN_AUTO) /* the tuner too keeps what the spec gives */
            check(used_tile == tile, "%s: tile %d given, %d used", name, tile, used_tile);
        if (window != TDM_PATTERN_AUTO)
            check(used_window == window, "%s: window %d given, %d used", name, window, used_window);
        if (tune)
            check(settled, "%s: the tuner has not settled after %d runs", name, runs);
    }
    reset(t);
    free(want);
    TDM_Pattern_free(&pattern);
    check(pattern == NULL, "TDM_Pattern_free left the handle");
}

/* Every tile and window 1 .. N; TEST_PATTERNS_SMALL=1 (the configurations that run fewer variants):
 * 1, 2 and N only, where a pattern's creation (two communicator duplications) costs most. */
static int in_matrix(int v)
{
    const char *small = getenv("TEST_PATTERNS_SMALL");
    return !(small && *small == '1') || v <= 2 || v == ITEMS;
}

static void test_matrix(MPI_Comm comm)
{
    element_kind plain = {MPI_INT, 1, sizeof(int)};
    for (int kind = TDM_PATTERN_ALLGATHER; kind <= TDM_PATTERN_REDUCE_SCATTER; kind++)
        for (int tile = 1; tile <= ITEMS; tile++)
            for (int window = 1; window <= ITEMS; window++) {
                if (!in_matrix(tile) || !in_matrix(window))
                    continue;
                test_case t = case_of((TDM_Pattern_kind)kind, &plain);
                check_runs(&t, comm, tile, window, 0, 2);
            }
}

static void test_auto(MPI_Comm comm)
{
    element_kind plain = {MPI_INT, 1, sizeof(int)};
    for (int kind = TDM_PATTERN_ALLGATHER; kind <= TDM_PATTERN_REDUCE_SCATTER; kind++) {
        test_case t = case_of((TDM_Pattern_kind)kind, &plain);
        check_runs(&t, comm, TDM_PATTERN_AUTO, TDM_PATTERN_AUTO, 0, 2);
        check_runs(&t, comm, 2, TDM_PATTERN_AUTO, 0, 2); /* the window alone */
        check_runs(&t, comm, TDM_PATTERN_AUTO, 3, 0, 2); /* the tile alone: the window kept */
        check_runs(&t, comm, TDM_PATTERN_AUTO, TDM_PATTERN_AUTO, 1, 14); /* the tuner settles within 13 */
        if (kind == TDM_PATTERN_ALLGATHER) { /* the tuner varies only what is auto */
            check_runs(&t, comm, 2, TDM_PATTERN_AUTO, 1, 8);
            check_runs(&t, comm, TDM_PATTERN_AUTO, 3, 1, 8);
            check_runs(&t, comm, 2, 3, 1, 1); /* nothing to tune: settled from the start */
        }
    }
}

/* Elements of two ints in 12 bytes, the last 4 a hole the pattern must neither need nor send. */
static void test_derived(MPI_Comm comm)
{
    MPI_Datatype pair, holed;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 0, 12, &holed);
    MPI_Type_commit(&holed);
    element_kind elem = {holed, 2, 12};
    const TDM_Pattern_kind kinds[] = {TDM_PATTERN_ALLGATHER, TDM_PATTERN_ALLTOALLV, TDM_PATTERN_GATHERV};
    for (int i = 0; i < 3; i++) {
        test_case t = case_of(kinds[i], &elem);
        check_runs(&t, comm, 2, 2, 0, 1);
    }
    MPI_Type_free(&holed);
    MPI_Type_free(&pair);
}

/* A create that must fail on every rank with this class and a message naming `field`. */
static void refused(TDM_Pattern_spec *s, int want, const char *field, const char *what)
{
    TDM_Pattern pattern = (TDM_Pattern)&pattern; /* not NULL: create must clear it */
    int rc = TDM_Pattern_create(s, &pattern);
    const char *message = TDM_Last_error();
    check(rc == want, "%s: create returned %d, expected %d (%s)", what, rc, want, message);
    check(pattern == NULL, "%s: the handle was not cleared", what);
    if (field)
        check(strstr(message, field) != NULL, "%s: the message does not name %s: %s", what, field, message);
}

static void test_errors(MPI_Comm comm)
{
    element_kind plain = {MPI_INT, 1, sizeof(int)};
    test_case t = case_of(TDM_PATTERN_ALLGATHER, &plain);
    TDM_Pattern_spec good = spec_of(&t, comm, 2, 2, 0), s;
    s = good, s.tile = -1;
    refused(&s, MPI_ERR_ARG, "tile", "tile -1");
    s = good, s.window = -3;
    refused(&s, MPI_ERR_ARG, "window", "window -3");
    s = good, s.items = -1;
    refused(&s, MPI_ERR_ARG, "items", "items -1");
    s = good, s.item_count = -1;
    refused(&s, MPI_ERR_COUNT, "item_count", "item_count -1");
    s = good, s.compute = NULL;
    refused(&s, MPI_ERR_ARG, "compute", "compute NULL");
    s = good, s.kind = (TDM_Pattern_kind)42;
    refused(&s, MPI_ERR_ARG, "kind", "kind 42");
    s = good, s.datatype = MPI_DATATYPE_NULL;
    refused(&s, MPI_ERR_TYPE, "datatype", "datatype NULL");
    s = good, s.kind = TDM_PATTERN_ALLREDUCE, s.op = MPI_OP_NULL;
    refused(&s, MPI_ERR_OP, "op", "op NULL");
    s = good, s.kind = TDM_PATTERN_GATHER, s.root = size;
    refused(&s, MPI_ERR_ROOT, "root", "root past the ranks");
    s = good, s.comm = MPI_COMM_NULL;
    refused(&s, MPI_ERR_COMM, "comm", "comm NULL");
    refused(NULL, MPI_ERR_ARG, "spec", "spec NULL");
    s = good;
    check(TDM_Pattern_create(&s, NULL) == MPI_ERR_ARG, "pattern NULL accepted");
    check(TDM_Pattern_run(NULL) == MPI_ERR_ARG, "run of NULL accepted");
    check(TDM_Pattern_free(NULL) == MPI_ERR_ARG, "free of NULL accepted");
    s = good, s.tile = 1 << 30;
    refused(&s, MPI_ERR_COUNT, "tile", "a tile past INT_MAX elements");
    if (size > 1) {
        /* refused on one rank only: the others must not wait for it */
        s = good, s.tile = rank == 1 ? -1 : 2;
        refused(&s, MPI_ERR_ARG, rank == 1 ? "tile" : "another rank", "tile -1 on rank 1 only");
        s = good, s.window = rank == 0 ? 3 : 2;
        refused(&s, MPI_ERR_ARG, "window differs", "a window that differs");
        s = good, s.kind = TDM_PATTERN_ALLREDUCE, s.items = rank == size - 1 ? ITEMS - 1 : ITEMS;
        refused(&s, MPI_ERR_ARG, "items differs", "items that differ in a reduction");
        /* a v-form's item_count may differ: the tile's limit is the largest's, on every rank */
        s = good, s.kind = TDM_PATTERN_GATHERV, s.root = 0, s.item_count = rank == 1 ? 1 << 20 : 1;
        s.tile = INT_MAX / ((1 << 20) * size) + 1;
        refused(&s, MPI_ERR_COUNT, "tile", "a tile past INT_MAX elements on one rank's item_count");
        s = good, s.tile = TDM_PATTERN_AUTO, s.item_count = INT_MAX / size + 1;
        refused(&s, MPI_ERR_COUNT, "item_count", "one item past INT_MAX elements, tile auto");
    }
    /* a compute function's error on the last rank, bad counts on rank 0: those ranks get the error,
     * every rank completes */
    for (int kind = TDM_PATTERN_ALLGATHER; kind <= TDM_PATTERN_REDUCE_SCATTER; kind++) {
        for (int bad = 0; bad < 2; bad++) {
            test_case e = case_of((TDM_Pattern_kind)kind, &plain);
            if (bad)
                e.bad_counts_item = 1;
            else
                e.fail_item = 2;
            TDM_Pattern_spec es = spec_of(&e, comm, 1, 2, 0);
            TDM_Pattern pattern;
            CHECK_TDM(TDM_Pattern_create(&es, &pattern));
            int rc = TDM_Pattern_run(pattern);
            int mine = bad ? rank == 0 : rank == size - 1;
            int want = !mine ? MPI_SUCCESS : bad ? MPI_ERR_COUNT : MPI_ERR_BUFFER;
            check(rc == want, "%s with %s: run returned %d, expected %d (%s)", kind_names[kind],
                  bad ? "bad counts" : "a failing compute", rc, want, TDM_Last_error());
            if (mine)
                check(strstr(TDM_Last_error(), bad ? "counts[0]" : "item 2") != NULL, "%s: the message: %s",
                      kind_names[kind], TDM_Last_error());
            /* the pattern stays usable: the next run without the failure gives MPI's answer */
            e.bad_counts_item = e.fail_item = -1;
            reset(&e);
            TDM_Pattern_free(&pattern);
            check_runs(&e, comm, 1, 2, 0, 1);
        }
    }
}

int main(int argc, char **argv)
{
    harness_init("test_patterns", &argc, &argv);
    MPI_Comm comm = harness_world();
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size > 64) {
        fprintf(stderr, "test_patterns: up to 64 ranks\n");
        return 2;
    }
    test_matrix(comm);
    test_auto(comm);
    test_derived(comm);
    test_errors(comm);
    return harness_finish();
}

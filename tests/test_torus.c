/*
 * Torus bucket algorithms on Cartesian communicators: for every ordered factorization of the size into
 * 1, 2 and 3 dimensions (lengths 1 included) and every form (one direction, both, and for the
 * allgather halfway: every part the shorter way round; the other collectives then run bidirectional),
 * allreduce (in place and not, a strided derived datatype), reduce_scatter with uneven and zero counts,
 * reduce_scatter_block in place and allgather (in place and not), on vectors shorter than the ranks and
 * of lengths that do not divide; every result compared with MPI's. The schedule dump must name the
 * torus. Run it also with TANDEM_SEGMENT_BYTES set small, so that every bucket step is cut into many
 * segments, and with TANDEM_COLOR_THREADS, so that calls run in lanes (the dump must list them), inline
 * and on threads.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static int value(int r, int i) { return r * 1000 + i * 7 - 3; }

static int most_lanes = 1; /* the most lanes any call of this run was built in */

/* The form the collectives other than the allgather run in when the allgather runs `form`. */
static const char *form_of(const char *form, int allgather)
{
    return strstr(form, "halfway") && !allgather ? "torus_bucket" : form;
}

/* The lanes a call is built in under TANDEM_COLOR_THREADS=k and TANDEM_BUCKET_CHAINS=c: c per thread,
 * one thread per sub-color at most (2 per dimension longer than 1 when bidirectional, 1 when not;
 * halfway, one per color: 1 per dimension); one lane for an in-place reduce-scatter, or when
 * TANDEM_TAG_RANGE leaves fewer tags than lanes. (The calls here are too short for chains chosen by
 * size.) */
static int expected_lanes(const int *dims, int ndims, const char *form, int in_place_reduce_scatter)
{
    const char *env = getenv("TANDEM_COLOR_THREADS"), *chains_env = getenv("TANDEM_BUCKET_CHAINS");
    const char *auto_env = getenv("TEST_AUTO_CHAINS");
    int wanted = env ? atoi(env) : 1, sub = 0;
    int chains = chains_env ? atoi(chains_env) : auto_env ? atoi(auto_env) : 1;
    for (int i = 0; i < ndims; i++)
        sub += dims[i] > 1;
    int colors = sub;
    sub *= strstr(form, "uni") ? 1 : 2;
    int units = strstr(form, "halfway") ? colors : sub; /* halfway, threads take whole colors */
    int threads = wanted < units ? wanted : units;
    if (threads * chains > 16) /* TDM_MAX_LANES */
        threads = 16 / chains;
    int lanes = threads * chains;
    const char *tags = getenv("TANDEM_TAG_RANGE"); /* each lane holds a tag: fewer tags, one schedule */
    lanes = in_place_reduce_scatter || sub < 1 || (tags && atoi(tags) < lanes) ? 1 : lanes;
    if (lanes > most_lanes)
        most_lanes = lanes;
    return lanes;
}

/* The dump must say the call runs in `lanes` lanes (every lane's schedule listed), or in one. */
static void check_dump_lanes(TDM_Request req, int lanes, const char *what)
{
    char *dump = harness_dump(req), expected[64];
    snprintf(expected, sizeof expected, "lane %d of %d", lanes - 1, lanes);
    if (lanes > 1)
        check(dump && strstr(dump, expected), "the dump of %s should list %s: %s", what, expected, dump ? dump : "");
    else
        check(dump && !strstr(dump, "lane "), "the dump of %s should show one lane: %s", what, dump ? dump : "");
    free(dump);
}

static void check_dump_names_torus(TDM_Request req, const int *dims, int ndims, const char *form)
{
    char expected[64] = "torus ";
    for (int i = 0, first = 1; i < ndims; i++) /* the dump names the dimensions longer than 1 */
        if (dims[i] > 1) {
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%d", first ? "" : "x", dims[i]);
            first = 0;
        }
    if (strstr(form, "halfway"))
        strcat(expected, " (bidirectional, halfway)");
    char *dump = harness_dump(req);
    check(dump && strstr(dump, expected), "the dump of a %s schedule should name the %s: %s", form, expected,
          dump ? dump : "(none)");
    free(dump);
}

static void on_torus(MPI_Comm cart, const int *dims, int ndims, const char *form)
{
    int rank, size;
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    const int lengths[] = {0, 1, 2 * size - 1, 13 * size + 5};
    int max_n = 13 * size + 5;
    int *send = malloc(sizeof(int) * 3 * (size_t)max_n), *got = malloc(sizeof(int) * 3 * (size_t)max_n),
        *want = malloc(sizeof(int) * 3 * (size_t)max_n);
    int *counts = malloc(sizeof(int) * (size_t)size);
    char where[96];
    snprintf(where, sizeof where, "%s on %dx%dx%d", form, dims[0], ndims > 1 ? dims[1] : 1, ndims > 2 ? dims[2] : 1);

    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        int n = lengths[l];
        for (int i = 0; i < 3 * max_n; i++)
            send[i] = value(rank, i);
        TDM_Request req;
        CHECK_TDM(TDM_Iallreduce(send, got, n, MPI_INT, MPI_SUM, cart, &req));
        if (size > 1 && n == max_n) {
            check_dump_names_torus(req, dims, ndims, form_of(form, 0));
            check_dump_lanes(req, expected_lanes(dims, ndims, form_of(form, 0), 0), "an allreduce");
        }
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        REFERENCE(MPI_Iallreduce, send, want, n, MPI_INT, MPI_SUM, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)n) == 0, "allreduce %s, %d elements", where, n);

        memcpy(got, send, sizeof(int) * (size_t)n);
        CHECK_TDM(TDM_Allreduce(MPI_IN_PLACE, got, n, MPI_INT, MPI_MAX, cart));
        REFERENCE(MPI_Iallreduce, send, want, n, MPI_INT, MPI_MAX, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)n) == 0, "in-place allreduce %s, %d elements", where, n);

        /* two ints in every three: a non-contiguous derived datatype (MPI itself refuses a predefined op
         * on it, so the reference is the sum over plain ints, and the gaps must stay untouched) */
        MPI_Datatype strided, pair;
        MPI_Type_vector(1, 2, 3, MPI_INT, &pair);
        MPI_Type_create_resized(pair, 0, 3 * (MPI_Aint)sizeof(int), &strided);
        MPI_Type_commit(&strided);
        int pairs = n / 2;
        for (int i = 0; i < 3 * pairs; i++)
            got[i] = -1;
        CHECK_TDM(TDM_Allreduce(send, got, pairs, strided, MPI_SUM, cart));
        REFERENCE(MPI_Iallreduce, send, want, 3 * pairs, MPI_INT, MPI_SUM, cart);
        int wrong = 0;
        for (int i = 0; i < 3 * pairs; i++)
            wrong += got[i] != (i % 3 == 2 ? -1 : want[i]);
        check(wrong == 0, "strided allreduce %s, %d pairs: %d ints wrong", where, pairs, wrong);
        MPI_Type_free(&strided);
        MPI_Type_free(&pair);

        int total = 0; /* uneven blocks, some empty, adding up to about n */
        for (int r = 0; r < size; r++)
            total += counts[r] = n ? (r * 7 + 3) % (n / size + 2) : 0;
        CHECK_TDM(TDM_Reduce_scatter(send, got, counts, MPI_INT, MPI_SUM, cart));
        REFERENCE(MPI_Ireduce_scatter, send, want, counts, MPI_INT, MPI_SUM, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)counts[rank]) == 0, "reduce_scatter %s, %d elements", where,
              total);

        int block = n / size;
        memcpy(got, send, sizeof(int) * (size_t)block * size);
        CHECK_TDM(TDM_Ireduce_scatter_block(MPI_IN_PLACE, got, block, MPI_INT, MPI_SUM, cart, &req));
        if (size > 1 && n == max_n)
            check_dump_lanes(req, expected_lanes(dims, ndims, form_of(form, 0), 1), "an in-place reduce_scatter_block");
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        REFERENCE(MPI_Ireduce_scatter_block, send, want, block, MPI_INT, MPI_SUM, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)block) == 0, "in-place reduce_scatter_block %s, block %d", where,
              block);

        CHECK_TDM(TDM_Iallgather(send, block, MPI_INT, got, block, MPI_INT, cart, &req));
        if (size > 1 && n == max_n) {
            check_dump_names_torus(req, dims, ndims, form);
            check_dump_lanes(req, expected_lanes(dims, ndims, form, 0), "an allgather");
        }
        CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
        REFERENCE(MPI_Iallgather, send, block, MPI_INT, want, block, MPI_INT, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)block * size) == 0, "allgather %s, block %d", where, block);

        for (int i = 0; i < block * size; i++)
            got[i] = i / (block ? block : 1) == rank ? send[i] : -7;
        CHECK_TDM(TDM_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, block, MPI_INT, cart));
        REFERENCE(MPI_Iallgather, send + rank * block, block, MPI_INT, want, block, MPI_INT, cart);
        check(memcmp(got, want, sizeof(int) * (size_t)block * size) == 0, "in-place allgather %s, block %d", where,
              block);
    }
    free(send), free(got), free(want), free(counts);
}

/* Every way to write size as an ordered product of ndims lengths. */
static void each_factorization(int size, int ndims, int *dims, int at, int left)
{
    if (at == ndims - 1) {
        dims[at] = left;
        int periods[3] = {1, 1, 1};
        MPI_Comm cart;
        MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
        const char *forms[3] = {"torus_bucket", "torus_bucket_uni", "torus_bucket_halfway"};
        for (int f = 0; f < 3; f++) {
            CHECK_TDM(TDM_Set_algorithm("allreduce", form_of(forms[f], 0)));
            CHECK_TDM(TDM_Set_algorithm("reduce_scatter", form_of(forms[f], 0)));
            CHECK_TDM(TDM_Set_algorithm("reduce_scatter_block", form_of(forms[f], 0)));
            CHECK_TDM(TDM_Set_algorithm("allgather", forms[f]));
            on_torus(cart, dims, ndims, forms[f]);
        }
        MPI_Comm_free(&cart);
        return;
    }
    for (int d = 1; d <= left; d++)
        if (left % d == 0) {
            dims[at] = d;
            each_factorization(size, ndims, dims, at + 1, left / d);
        }
}

/* Where the color threads run: one per color thread past the progress thread; a thread has started
 * (core known) exactly when some call had a lane for it and ran under the thread agent (a progress
 * thread exists); inline, lanes run on the application thread and no color thread starts. */
static void color_placement(void)
{
    const char *env = getenv("TANDEM_COLOR_THREADS");
    int k = env ? atoi(env) : 1, cores[16], n = -1, app_core, progress_core;
    CHECK_TDM(TDM_Get_placement(&app_core, &progress_core));
    int threaded = progress_core >= 0;
    for (int t = 0; t < 16; t++)
        cores[t] = -2;
    CHECK_TDM(TDM_Get_color_placement(16, cores, &n));
    check(n == (k > 1 ? k - 1 : 0), "TDM_Get_color_placement: %d color threads, expected %d", n, k > 1 ? k - 1 : 0);
    for (int t = 1; t <= n && t <= 16; t++) {
        if (threaded && t < most_lanes)
            check(cores[t - 1] >= 0, "color thread %d had lanes (up to %d per call) and should know its core: %d",
                  t, most_lanes, cores[t - 1]);
        else
            check(cores[t - 1] == -1, "color thread %d never had a lane (%s, up to %d per call), yet is on core %d",
                  t, threaded ? "thread agent" : "inline", most_lanes, cores[t - 1]);
    }
    for (int t = n; t < 16; t++)
        check(cores[t] == -2, "TDM_Get_color_placement wrote cores[%d] past its %d threads", t, n);
    check(TDM_Get_color_placement(16, cores, NULL) == MPI_ERR_ARG && strstr(TDM_Last_error(), "nthreads"),
          "TDM_Get_color_placement(nthreads NULL) should be MPI_ERR_ARG naming nthreads: %s", TDM_Last_error());
    check(TDM_Get_color_placement(-1, cores, &n) == MPI_ERR_ARG && strstr(TDM_Last_error(), "maxthreads"),
          "TDM_Get_color_placement(maxthreads -1) should be MPI_ERR_ARG naming maxthreads: %s", TDM_Last_error());
    check(TDM_Get_color_placement(1, NULL, &n) == MPI_ERR_ARG && strstr(TDM_Last_error(), "cores"),
          "TDM_Get_color_placement(cores NULL) should be MPI_ERR_ARG naming cores: %s", TDM_Last_error());
    CHECK_TDM(TDM_Get_color_placement(0, NULL, &n));
}

/* Chains chosen by size (TANDEM_LOGGP makes one byte take alpha) only on a torus that is the network's:
 * none on the Cartesian communicators above (TEST_AUTO_CHAINS is what they expect: 1), two on
 * MPI_COMM_WORLD as TANDEM_TORUS_DIMS describes it. */
static void auto_chains_on_network(int size)
{
    const char *dims = getenv("TANDEM_TORUS_DIMS");
    if (!dims || !getenv("TEST_AUTO_CHAINS") || size < 2)
        return;
    int block = 64, rank, *send = malloc(sizeof(int) * (size_t)block);
    int *got = calloc((size_t)block * size, sizeof(int)), *want = calloc((size_t)block * size, sizeof(int));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < block; i++)
        send[i] = rank * 1000 + i;
    REFERENCE(MPI_Iallgather, send, block, MPI_INT, want, block, MPI_INT, MPI_COMM_WORLD);
    TDM_Request req;
    CHECK_TDM(TDM_Set_algorithm("allgather", "torus_bucket"));
    CHECK_TDM(TDM_Iallgather(send, block, MPI_INT, got, block, MPI_INT, MPI_COMM_WORLD, &req));
    char *dump = harness_dump(req);
    check(dump && strstr(dump, "lane 1 of 2"), "an allgather on the network's torus %s should run in 2 chains: %s",
          dims, dump ? dump : "");
    free(dump);
    CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
    check(memcmp(got, want, sizeof(int) * (size_t)block * size) == 0,
          "the allgather in 2 chains on the network's torus %s should equal MPI_Allgather's", dims);
    free(send);
    free(got);
    free(want);
}

int main(int argc, char **argv)
{
    harness_init("test_torus", &argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int ndims = 1; ndims <= 3; ndims++) {
        int dims[3];
        each_factorization(size, ndims, dims, 0, size);
    }
    color_placement();
    auto_chains_on_network(size);
    return harness_finish();
}

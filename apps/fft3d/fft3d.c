/*
 * tandem-fft3d: a distributed 3-D complex FFT (forward, unnormalized, as FFTW_FORWARD) of an
 * NX x NY x NZ array in C order, in slabs: rank r holds the x-planes [x0_r, x0_r + nx_r).
 *   1. each x-plane: a 2-D FFT over (y, z) (FFTW), its rows cut into the y-slabs of the ranks;
 *   2. the transpose: every rank gets the rows of its y-slab from every plane (alltoallv), and puts
 *      them x fastest ([ny][NZ][NX]: the x transforms then read contiguous lines);
 *   3. 1-D FFTs along x of the y-slab (FFTW).
 * The result stays in y-slabs; rank 0 gathers it to write --out or compare with --check.
 *
 * blocking:  every plane, then one TDM_Alltoallv, then the x transforms;
 * pipelined: an alltoall overlap pattern (tandem_patterns.h): tiles of planes transposed while the
 *            next planes are transformed, each tile's rows put in place as it arrives. Each plane sends
 *            every rank the rows of the largest y-slab (the smaller slabs padded), so that no sizes need
 *            exchanging; a rank with fewer planes sends the pattern's stand-ins for the missing ones.
 */
#include "../common/app_cli.h"
#include "../common/app_kernel.h"
#include "fft3d.h"
#include "tandem_patterns.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *usage =
    "usage: tandem-fft3d --n NXxNYxNZ [options]\n"
    "  the forward 3-D FFT of a complex array (complex128, C order), in slabs over the ranks\n"
    "  --in FILE                      the input, raw little-endian complex128 (NX*NY*NZ*16 bytes; rank 0 reads it);\n"
    "                                 without it, a made-up array\n"
    "  --out FILE                     the result, the same format (rank 0 writes it)\n"
    "  --check                        compare with FFTW's own MPI 3-D transform on the same input\n"
    "  --variant blocking|pipelined   one alltoallv after all planes, or pipelined (default)\n"
    "  --tile N|auto --window N|auto  planes per alltoallv and alltoallvs in flight (default auto)\n"
    "  --tune                         let the pattern's tuner try neighbouring tiles and windows\n"
    "  --reps R                       runs (the table shows medians)\n"
    "  --csv FILE                     the table's row, also as CSV\n";

/* The x-planes of this rank hold [nx][NY][NZ]; the y-slab [ny][NZ][NX]. */
typedef struct fft_job {
    app_common common;
    const char *in_path, *out_path;
    int check;
    int n[3];
    int x0, nx, y0, ny;   /* this rank's slabs */
    int *ys, *yn;         /* every rank's y-slab: first, count */
    int *xs, *xn;         /* every rank's x-slab */
    fftw_complex *input;  /* this rank's x-planes as read */
    fftw_complex *planes; /* the x-planes being transformed */
    fftw_complex *slab;   /* the y-slab */
    fftw_plan plane_2d, along_x;
    app_kernel plane_kernel, unpack_kernel, x_kernel; /* timed (and, under SMPI, charged) */
    size_t per_plane;     /* pipelined: elements each plane sends each rank (the largest slab's) */
    double compute; /* seconds of this run in FFTs, packing and unpacking */
} fft_job;

/* The large arrays: FFTW's aligned memory, or SMPI's shared memory when kernels are sampled. */
static void *big(size_t bytes) { return app_kernel_sampling() ? app_alloc(bytes) : fftw_malloc(bytes ? bytes : 1); }
static void big_free(void *p)
{
    if (app_kernel_sampling())
        app_free(p);
    else
        fftw_free(p);
}

static size_t plane_elems(const fft_job *j) { return (size_t)j->n[1] * (size_t)j->n[2]; }

/* Step 1 for plane i of this rank: its 2-D FFT, and its rows for rank d at out[d]. */
static int transform_plane(int item, void *const out[], int counts[], void *user)
{
    fft_job *j = user;
    fftw_complex *plane = j->planes + (size_t)item * plane_elems(j);
    for (app_kernel_begin(&j->plane_kernel, 1); app_kernel_next(&j->plane_kernel);) {
        fftw_execute_dft(j->plane_2d, plane, plane);
        for (int d = 0; d < app_size; d++)
            memcpy(out[d], plane + (size_t)j->ys[d] * (size_t)j->n[2], (size_t)j->yn[d] * (size_t)j->n[2] * sizeof(fftw_complex));
    }
    (void)counts; /* the pattern's fixed size: the largest slab's rows */
    j->compute += app_kernel_end(&j->plane_kernel);
    return 0;
}

/* Step 2's arrival: the rows of this rank's y-slab from the planes first .. first + items - 1 of each
 * rank r, per_plane elements apart in rank r's part of in, put at their x (x fastest in the slab). */
static void unpack(fft_job *j, int first, int items, const fftw_complex *in, const int displs[], size_t per_plane)
{
    size_t lines = (size_t)j->ny * (size_t)j->n[2], nx = (size_t)j->n[0];
    double planes_in = 0;
    for (int r = 0; r < app_size; r++)
        planes_in += j->xn[r] - first < items ? (j->xn[r] - first > 0 ? j->xn[r] - first : 0) : items;
    for (app_kernel_begin(&j->unpack_kernel, planes_in * (double)lines); app_kernel_next(&j->unpack_kernel);)
        for (int r = 0; r < app_size; r++) {
            const fftw_complex *from = in + displs[r];
            int planes = j->xn[r] - first < items ? j->xn[r] - first : items;
            for (int k = 0; k < planes; k++, from += per_plane) {
                fftw_complex *to = j->slab + (size_t)(j->xs[r] + first + k);
                for (size_t l = 0; l < lines; l++)
                    to[l * nx][0] = from[l][0], to[l * nx][1] = from[l][1];
            }
        }
    j->compute += app_kernel_end(&j->unpack_kernel);
}

/* The pattern's consumer: each plane sent the largest slab's rows. */
static int place_rows(int first, int items, const void *in, const int counts[], const int displs[], void *user)
{
    fft_job *j = user;
    (void)counts;
    unpack(j, first, items, in, displs, j->per_plane);
    return 0;
}

/* Step 3: the x transforms of the y-slab. */
static void transform_x(fft_job *j)
{
    for (app_kernel_begin(&j->x_kernel, 1); app_kernel_next(&j->x_kernel);)
        if (j->ny > 0)
            fftw_execute(j->along_x);
    j->compute += app_kernel_end(&j->x_kernel);
}

/* The blocking variant: every plane, then the one transpose. */
static int run_blocking(fft_job *j)
{
    size_t most = (size_t)(j->n[1] / app_size + 1) * (size_t)j->n[2] * (size_t)(j->nx > 0 ? j->nx : 1);
    fftw_complex *send = big((size_t)app_size * most * sizeof *send);
    fftw_complex *recv = big((size_t)j->n[0] * (size_t)j->ny * (size_t)j->n[2] * sizeof *recv + 1);
    int *sc = calloc((size_t)app_size * 4, sizeof *sc), *sd = sc + app_size, *rc = sd + app_size, *rd = rc + app_size;
    void *out[app_size];
    int counts[app_size];
    for (int d = 0; d < app_size; d++)
        sd[d] = (int)((size_t)d * most), sc[d] = 0;
    for (int i = 0; i < j->nx; i++) {
        for (int d = 0; d < app_size; d++)
            out[d] = send + sd[d] + sc[d];
        transform_plane(i, out, counts, j);
        for (int d = 0; d < app_size; d++)
            sc[d] += j->yn[d] * j->n[2];
    }
    for (int r = 0, at = 0; r < app_size; r++)
        rc[r] = j->xn[r] * j->ny * j->n[2], rd[r] = at, at += rc[r];
    int err = TDM_Alltoallv(send, sc, sd, fft_complex_type, recv, rc, rd, fft_complex_type, app_comm);
    if (err == MPI_SUCCESS)
        unpack(j, 0, j->n[0], recv, rd, (size_t)j->ny * (size_t)j->n[2]);
    free(sc);
    big_free(send);
    big_free(recv);
    return err;
}

static void parse(fft_job *j, int argc, char **argv)
{
    app_common *c = &j->common;
    int have_n = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (app_common_option(c, argc, argv, &i, "blocking"))
            continue;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            if (app_rank == 0)
                fputs(usage, stdout);
            app_finish();
            exit(0);
        } else if (strcmp(o, "--n") == 0) {
            const char *v = app_value(c, argc, argv, &i);
            char tail;
            if (sscanf(v, "%dx%dx%d%c", &j->n[0], &j->n[1], &j->n[2], &tail) != 3 || j->n[0] < 1 || j->n[1] < 1 ||
                j->n[2] < 1)
                app_fail(c, "--n %s: expected NXxNYxNZ, three positive numbers (such as 64x64x64)", v);
            have_n = 1;
        } else if (strcmp(o, "--in") == 0) {
            j->in_path = app_value(c, argc, argv, &i);
        } else if (strcmp(o, "--out") == 0) {
            j->out_path = app_value(c, argc, argv, &i);
        } else if (strcmp(o, "--check") == 0) {
            j->check = 1;
        } else {
            app_fail(c, "unknown option %s (see --help)", o);
        }
    }
    if (!have_n)
        app_fail(c, "--n NXxNYxNZ is missing (see --help)");
    if (app_kernel_sampling() && (j->in_path || j->out_path || j->check))
        app_fail(c, "TANDEM_APP_SAMPLE: sampled kernels compute no data: no --in, --out or --check");
    double elems = (double)j->n[0] * j->n[1] * j->n[2];
    if ((double)j->n[1] * j->n[2] * j->n[0] / app_size * 2 > 2147483647.0 || elems * 16 > 1e15)
        app_fail(c, "--n %dx%dx%d: too large for int counts on %d ranks", j->n[0], j->n[1], j->n[2], app_size);
}

/* A made-up array element, the same on any number of ranks. */
static void made_up(size_t index, fftw_complex v)
{
    unsigned long long x = index * 0x9E3779B97F4A7C15ull + 12345;
    x ^= x >> 29, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 32;
    v[0] = (double)(x & 0xFFFFF) / 0x100000 - 0.5;
    v[1] = (double)((x >> 20) & 0xFFFFF) / 0x100000 - 0.5;
}

/* This rank's x-planes of the input: from --in (rank 0 reads, sends each rank its planes) or made up. */
static void read_input(fft_job *j)
{
    size_t plane = plane_elems(j);
    j->input = big(((size_t)j->nx * plane + 1) * sizeof(fftw_complex));
    if (!j->in_path) {
        for (size_t k = 0; k < (size_t)j->nx * plane && !app_kernel_sampling(); k++)
            made_up((size_t)j->x0 * plane + k, j->input[k]);
        return;
    }
    size_t want = (size_t)j->n[0] * plane * sizeof(fftw_complex);
    fftw_complex *all = NULL;
    static char text[700];
    const char *message = NULL;
    if (app_rank == 0) {
        struct stat st;
        FILE *f = NULL;
        if (stat(j->in_path, &st) != 0 || !(f = fopen(j->in_path, "rb")))
            snprintf(text, sizeof text, "--in %s: cannot open: %s", j->in_path, strerror(errno)), message = text;
        else if (!S_ISREG(st.st_mode))
            snprintf(text, sizeof text, "--in %s: not a regular file", j->in_path), message = text;
        else if ((size_t)st.st_size != want)
            snprintf(text, sizeof text, "--in %s: %s (%lld bytes); --n %dx%dx%d needs %zu (16 bytes per complex128)",
                     j->in_path, st.st_size == 0 ? "empty" : (size_t)st.st_size < want ? "truncated" : "too long",
                     (long long)st.st_size, j->n[0], j->n[1], j->n[2], want),
                message = text;
        else if (!(all = fftw_malloc(want)) || fread(all, 1, want, f) != want)
            snprintf(text, sizeof text, "--in %s: cannot read %zu bytes", j->in_path, want), message = text;
        if (f)
            fclose(f);
    }
    app_agree(&j->common, message);
    int counts[app_size], displs[app_size];
    for (int r = 0; r < app_size; r++)
        counts[r] = (int)((size_t)j->xn[r] * plane), displs[r] = (int)((size_t)j->xs[r] * plane);
    TDM_Scatterv(all, counts, displs, fft_complex_type, j->input, counts[app_rank], fft_complex_type, 0, app_comm);
    fftw_free(all);
}

/* Rank 0: the whole result in C order, gathered from the y-slabs (NULL elsewhere). */
static fftw_complex *gather_result(fft_job *j)
{
    size_t rows = (size_t)j->n[2];
    int counts[app_size], displs[app_size];
    for (int r = 0, at = 0; r < app_size; r++)
        counts[r] = (int)((size_t)j->n[0] * (size_t)j->yn[r] * rows), displs[r] = at, at += counts[r];
    size_t total = (size_t)j->n[0] * plane_elems(j);
    fftw_complex *slabs = app_rank == 0 ? fftw_malloc(total * sizeof *slabs) : NULL;
    TDM_Gatherv(j->slab, counts[app_rank], fft_complex_type, slabs, counts, displs, fft_complex_type, 0, app_comm);
    if (app_rank != 0)
        return NULL;
    fftw_complex *whole = fftw_malloc(total * sizeof *whole);
    size_t nx = (size_t)j->n[0];
    for (int r = 0; r < app_size; r++) /* rank r's [ny_r][NZ][NX] into [NX][NY][NZ] */
        for (size_t y = 0; y < (size_t)j->yn[r]; y++)
            for (size_t z = 0; z < rows; z++) {
                const fftw_complex *line = slabs + displs[r] + (y * rows + z) * nx;
                for (size_t x = 0; x < nx; x++) {
                    fftw_complex *to = whole + (x * (size_t)j->n[1] + (size_t)j->ys[r] + y) * rows + z;
                    (*to)[0] = line[x][0], (*to)[1] = line[x][1];
                }
            }
    fftw_free(slabs);
    return whole;
}

static void write_output(fft_job *j, const fftw_complex *whole)
{
    static char text[600];
    const char *message = NULL;
    if (app_rank == 0) {
        size_t total = (size_t)j->n[0] * plane_elems(j);
        FILE *f = fopen(j->out_path, "wb");
        if (!f)
            snprintf(text, sizeof text, "--out %s: cannot create: %s", j->out_path, strerror(errno)), message = text;
        else if (fwrite(whole, sizeof *whole, total, f) != total || fclose(f) != 0)
            snprintf(text, sizeof text, "--out %s: cannot write", j->out_path), message = text;
    }
    app_agree(&j->common, message);
}

int main(int argc, char **argv)
{
    fft_job j = {0};
    app_start(&j.common, "tandem-fft3d", &argc, &argv);
    parse(&j, argc, argv);
    fft_types_init();
    j.ys = malloc((size_t)app_size * 4 * sizeof(int)), j.yn = j.ys + app_size, j.xs = j.yn + app_size, j.xn = j.xs + app_size;
    for (int r = 0; r < app_size; r++) {
        app_block_of(j.n[0], app_size, r, &j.xs[r], &j.xn[r]);
        app_block_of(j.n[1], app_size, r, &j.ys[r], &j.yn[r]);
    }
    j.x0 = j.xs[app_rank], j.nx = j.xn[app_rank], j.y0 = j.ys[app_rank], j.ny = j.yn[app_rank];
    j.plane_kernel.name = "fft3d-plane", j.unpack_kernel.name = "fft3d-unpack", j.x_kernel.name = "fft3d-x";
    read_input(&j);
    size_t plane = plane_elems(&j);
    j.planes = big(((size_t)j.nx * plane + 1) * sizeof(fftw_complex));
    j.slab = big(((size_t)j.n[0] * (size_t)j.ny * (size_t)j.n[2] + 1) * sizeof(fftw_complex));
    /* unaligned: it runs on every plane, some of them not at the planned array's SIMD alignment */
    j.plane_2d = fftw_plan_dft_2d(j.n[1], j.n[2], j.planes, j.planes, FFTW_FORWARD, FFTW_ESTIMATE | FFTW_UNALIGNED);
    int along = j.n[0], lines = j.ny * j.n[2];
    if (j.ny > 0)
        j.along_x = fftw_plan_many_dft(1, &along, lines, j.slab, NULL, 1, along, j.slab, NULL, 1, along, FFTW_FORWARD,
                                       FFTW_ESTIMATE);

    TDM_Pattern pattern = NULL;
    if (j.common.pipelined) {
        int most_rows = j.n[1] / app_size + (j.n[1] % app_size != 0);
        j.per_plane = (size_t)most_rows * (size_t)j.n[2];
        TDM_Pattern_spec spec = {.kind = TDM_PATTERN_ALLTOALL, .comm = app_comm, .datatype = fft_complex_type,
                                 .items = j.nx, .item_count = most_rows * j.n[2], .tile = j.common.tile,
                                 .window = j.common.window, .tune = j.common.tune, .compute = transform_plane,
                                 .consume = place_rows, .user = &j};
        if (TDM_Pattern_create(&spec, &pattern) != MPI_SUCCESS)
            app_fail(&j.common, "%s", TDM_Last_error());
    }
    int reps = j.common.reps;
    double *total = malloc((size_t)reps * 3 * sizeof *total), *compute = total + reps, *overhead = compute + reps;
    for (int rep = 0; rep < reps; rep++) {
        if (!app_kernel_sampling())
            memcpy(j.planes, j.input, (size_t)j.nx * plane * sizeof(fftw_complex));
        j.compute = 0;
        MPI_Barrier(app_comm);
        double start = MPI_Wtime();
        int rc = pattern ? TDM_Pattern_run(pattern) : run_blocking(&j);
        if (rc == MPI_SUCCESS)
            transform_x(&j);
        double took = MPI_Wtime() - start;
        app_agree(&j.common, rc == MPI_SUCCESS ? NULL : TDM_Last_error());
        total[rep] = app_max(took), compute[rep] = app_max(j.compute), overhead[rep] = app_max(took - j.compute);
    }
    fftw_complex *whole = j.out_path || j.check ? gather_result(&j) : NULL;
    if (j.out_path)
        write_output(&j, whole);
    int failed = 0;
    if (j.check)
        failed = fft_check(j.n, j.in_path, whole, made_up);
    int tile = 0, window = 0;
    if (pattern)
        TDM_Pattern_get_params(pattern, &tile, &window, NULL);
    if (app_rank == 0)
        printf("tandem-fft3d: %dx%dx%d complex128 on %d ranks%s%s\n", j.n[0], j.n[1], j.n[2], app_size,
               j.in_path ? ", from " : " (made-up input)", j.in_path ? j.in_path : "");
    app_table_header();
    app_table_row(&j.common, pattern ? "pipelined" : "blocking", tile, window, app_median(total, reps),
                  app_median(compute, reps), app_median(overhead, reps));
    if (pattern)
        TDM_Pattern_free(&pattern);
    fftw_destroy_plan(j.plane_2d);
    if (j.along_x)
        fftw_destroy_plan(j.along_x);
    fftw_free(whole);
    big_free(j.input);
    big_free(j.planes);
    big_free(j.slab);
    free(j.ys);
    free(total);
    fft_types_free();
    app_finish();
    return failed;
}

/*
 * tandem-cg: conjugate gradients on the 5-point Laplacian of an M x N grid (4 on the diagonal, -1 for
 * each of the four neighbours, Dirichlet boundary: no neighbour past the edge), in the shape of an ocean
 * model's barotropic solver. Exact solution all ones, b = A 1, x0 = 0, Jacobi preconditioner; stops when
 * ||r||_2 / ||b||_2 < rtol. The grid's rows are dealt in blocks to the ranks; a matrix-vector product
 * exchanges one halo row with each neighbour rank.
 *
 * classic:   preconditioned CG, two blocking allreduces per iteration ((p, Ap); then (r, z) and (r, r));
 * pipelined: Ghysels and Vanroose's pipelined preconditioned CG, one non-blocking allreduce per
 *            iteration ((r, u), (w, u), (r, r)) overlapped with the preconditioner and the
 *            matrix-vector product, which test it between rows (what advances it under inline progress).
 * The last line, as PETSc's KSP example ex2 prints its solve: iterations K relres R error E, with
 * E = ||x - 1||_2 and R the last ||r||_2 / ||b||_2 the solver tested.
 */
#include "../common/app_cli.h"
#include "../common/app_kernel.h"
#include "tandem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
    "usage: tandem-cg --grid MxN [options]\n"
    "  solves A x = A 1 for the 5-point Laplacian of an MxN grid (Dirichlet), Jacobi-preconditioned CG\n"
    "  --rtol R                       stop at ||r||/||b|| < R (default 1e-6)\n"
    "  --max-it K                     at most K iterations (default 100000)\n"
    "  --variant classic|pipelined    two blocking allreduces per iteration, or one non-blocking one\n"
    "                                 overlapped with the matrix-vector product (Ghysels-Vanroose; default)\n"
    "  --reps R                       solves (the table shows medians)\n"
    "  --csv FILE                     the table's row, also as CSV\n";

/* This rank's rows [row0, row0 + rows) of the grid, n columns; vectors hold a halo row above and below. */
typedef struct grid {
    int m, n, row0, rows;
    int up, down;           /* neighbour ranks, MPI_PROC_NULL at the edges */
    size_t len;             /* (rows + 2) n */
    TDM_Request *overlapped; /* tested between rows of a product (pipelined CG's allreduce), or NULL */
    app_kernel rows_kernel, vector_kernel; /* timed (and, under SMPI, charged) */
    double compute;         /* seconds in products and vector operations */
} grid;

#define AT(g, v, i, j) ((v)[(size_t)((i) + 1) * (size_t)(g)->n + (size_t)(j)])

static double *vec(const grid *g) { return calloc(g->len, sizeof(double)); }

/* Rows between tests of the overlapped allreduce. */
#define ROWS_PER_TEST 8

static void product_rows(grid *g, const double *x, double *y, double scale, int from, int to)
{
    for (int first = from; first < to; first += ROWS_PER_TEST) {
        if (g->overlapped) {
            int done;
            TDM_Test(g->overlapped, &done, MPI_STATUS_IGNORE);
        }
        int last = first + ROWS_PER_TEST < to ? first + ROWS_PER_TEST : to;
        for (app_kernel_begin(&g->rows_kernel, last - first); app_kernel_next(&g->rows_kernel);)
            for (int i = first; i < last; i++)
                for (int j = 0; j < g->n; j++) {
                    double v = 4 * AT(g, x, i, j) - AT(g, x, i - 1, j) - AT(g, x, i + 1, j);
                    if (j > 0)
                        v -= AT(g, x, i, j - 1);
                    if (j + 1 < g->n)
                        v -= AT(g, x, i, j + 1);
                    AT(g, y, i, j) = scale * v;
                }
        g->compute += app_kernel_end(&g->rows_kernel);
    }
}

/* y = A (scale x): the halo rows exchanged while the inner rows are computed. The halo of a rank at the
 * grid's edge stays zero: the Dirichlet boundary. */
static void product(grid *g, double *x, double *y, double scale)
{
    MPI_Request halo[4];
    MPI_Irecv(&AT(g, x, -1, 0), g->n, MPI_DOUBLE, g->up, 0, app_comm, &halo[0]);
    MPI_Irecv(&AT(g, x, g->rows, 0), g->n, MPI_DOUBLE, g->down, 1, app_comm, &halo[1]);
    MPI_Isend(&AT(g, x, 0, 0), g->n, MPI_DOUBLE, g->up, 1, app_comm, &halo[2]);
    MPI_Isend(&AT(g, x, g->rows - 1, 0), g->n, MPI_DOUBLE, g->down, 0, app_comm, &halo[3]);
    if (g->rows > 2)
        product_rows(g, x, y, scale, 1, g->rows - 1);
    MPI_Status statuses[4]; /* not MPI_STATUSES_IGNORE: MPICH's header declares an array GCC then checks */
    MPI_Waitall(4, halo, statuses);
    product_rows(g, x, y, scale, 0, g->rows < 1 ? 0 : 1);
    if (g->rows > 1)
        product_rows(g, x, y, scale, g->rows - 1, g->rows);
}

/* The local parts of dot products, over this rank's rows. */
static double dot(const grid *g, const double *a, const double *b)
{
    double s = 0;
    for (size_t k = (size_t)g->n; k < g->len - (size_t)g->n; k++)
        s += a[k] * b[k];
    return s;
}

typedef struct solve_result {
    int iterations;
    double relres, error;
} solve_result;

/* Jacobi: M^-1 = D^-1, and the diagonal is 4 everywhere. A pointwise preconditioner is applied where
 * its result is used (M^-1 r inside the pass that updates r, M^-1 w inside the product) rather than
 * stored: both solvers then read and write fewer vectors, and pipelined CG keeps u = M^-1 r exactly
 * instead of by its recurrence. */
static const double jacobi = 0.25;

static double error_norm(const grid *g, const double *x)
{
    double local = 0, all = 0;
    for (size_t k = (size_t)g->n; k < g->len - (size_t)g->n; k++)
        local += (x[k] - 1) * (x[k] - 1);
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, app_comm);
    return sqrt(all);
}

/* Vector operations, timed as one kernel (CG computes its data: no sampling, the body runs once). */
static void timed_start(grid *g)
{
    app_kernel_begin(&g->vector_kernel, (double)g->len);
    app_kernel_next(&g->vector_kernel);
}
static void timed_stop(grid *g)
{
    app_kernel_next(&g->vector_kernel);
    g->compute += app_kernel_end(&g->vector_kernel);
}

static solve_result classic(grid *g, const double *b, double *x, double rtol, int max_it)
{
    double *r = vec(g), *p = vec(g), *q = vec(g);
    size_t from = (size_t)g->n, to = g->len - (size_t)g->n; /* this rank's rows, not the halos */
    memcpy(r, b, g->len * sizeof *r); /* x0 = 0 */
    double local[2] = {0, 0}, sums[2];
    for (size_t k = from; k < to; k++) {
        p[k] = jacobi * r[k]; /* z = M^-1 r */
        local[0] += r[k] * p[k], local[1] += r[k] * r[k];
    }
    TDM_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, app_comm);
    double rz = sums[0], bnorm = sqrt(sums[1]), relres = bnorm > 0 ? 1 : 0;
    int it = 0;
    while (relres >= rtol && it < max_it) {
        product(g, p, q, 1);
        timed_start(g);
        double pq_local = dot(g, p, q), pq;
        timed_stop(g);
        TDM_Allreduce(&pq_local, &pq, 1, MPI_DOUBLE, MPI_SUM, app_comm);
        double alpha = rz / pq, rz_local = 0, rr_local = 0;
        timed_start(g);
        for (size_t k = from; k < to; k++) { /* the updates and both dot products (z = M^-1 r) in one pass */
            x[k] += alpha * p[k], r[k] -= alpha * q[k];
            rz_local += r[k] * (jacobi * r[k]), rr_local += r[k] * r[k];
        }
        timed_stop(g);
        local[0] = rz_local, local[1] = rr_local;
        TDM_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, app_comm);
        timed_start(g);
        double beta = sums[0] / rz;
        rz = sums[0], relres = sqrt(sums[1]) / bnorm, it++;
        for (size_t k = from; k < to; k++)
            p[k] = jacobi * r[k] + beta * p[k];
        timed_stop(g);
    }
    free(r), free(p), free(q);
    return (solve_result){it, relres, error_norm(g, x)};
}

/* Ghysels and Vanroose's preconditioned pipelined CG: the three dot products of iteration i reduced
 * while n = A m (m = M^-1 w) is computed. The vector updates and the next dot products are one pass
 * over the vectors. With the preconditioner applied in place, u = M^-1 r, q = M^-1 s and m = M^-1 w
 * need no vectors of their own: pipelined CG keeps three vectors more than CG (w, n, s, z against q),
 * not seven. The test of ||r_i|| comes with iteration i's reduction, so the iterations counted are those
 * whose residual was not yet below rtol. */
static solve_result pipelined(grid *g, const double *b, double *x, double rtol, int max_it, TDM_Request *reduction,
                              double *local, double *sums)
{
    double *r = vec(g), *w = vec(g), *nv = vec(g), *zv = vec(g), *sv = vec(g), *pv = vec(g);
    size_t from = (size_t)g->n, to = g->len - (size_t)g->n; /* this rank's rows, not the halos */
    memcpy(r, b, g->len * sizeof *r); /* x0 = 0 */
    product(g, r, w, jacobi);            /* w = A u, u = M^-1 r */
    timed_start(g);
    local[0] = local[1] = local[2] = 0;
    for (size_t k = from; k < to; k++) {
        double u = jacobi * r[k];
        local[0] += r[k] * u, local[1] += w[k] * u, local[2] += r[k] * r[k];
    }
    timed_stop(g);
    double bnorm = 0, gamma_old = 0, alpha_old = 0, relres = 1;
    int it = 0;
    for (;; it++) {
        TDM_Start(reduction);
        g->overlapped = reduction;
        product(g, w, nv, jacobi); /* n = A M^-1 w; tests the reduction between rows */
        g->overlapped = NULL;
        TDM_Wait(reduction, MPI_STATUS_IGNORE);
        double gamma = sums[0], delta = sums[1];
        if (it == 0)
            bnorm = sqrt(sums[2]);
        relres = bnorm > 0 ? sqrt(sums[2]) / bnorm : 0;
        if (relres < rtol || it >= max_it)
            break;
        double beta = it > 0 ? gamma / gamma_old : 0;
        double alpha = it > 0 ? gamma / (delta - beta * gamma / alpha_old) : gamma / delta;
        double ru = 0, wu = 0, rr = 0;
        timed_start(g);
        for (size_t k = from; k < to; k++) {
            zv[k] = nv[k] + beta * zv[k];
            sv[k] = w[k] + beta * sv[k];
            pv[k] = jacobi * r[k] + beta * pv[k]; /* p = u + beta p */
            x[k] += alpha * pv[k];
            r[k] -= alpha * sv[k];
            w[k] -= alpha * zv[k];
            double u = jacobi * r[k];
            ru += r[k] * u, wu += w[k] * u, rr += r[k] * r[k];
        }
        timed_stop(g);
        local[0] = ru, local[1] = wu, local[2] = rr;
        gamma_old = gamma, alpha_old = alpha;
    }
    free(r), free(w), free(nv), free(zv), free(sv), free(pv);
    return (solve_result){it, relres, error_norm(g, x)};
}

int main(int argc, char **argv)
{
    app_common c;
    app_start(&c, "tandem-cg", &argc, &argv);
    grid g = {0};
    double rtol = 1e-6;
    int max_it = 100000, have_grid = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (app_common_option(&c, argc, argv, &i, "classic"))
            continue;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            if (app_rank == 0)
                fputs(usage, stdout);
            app_finish();
            return 0;
        } else if (strcmp(o, "--grid") == 0) {
            const char *v = app_value(&c, argc, argv, &i);
            char tail;
            if (sscanf(v, "%dx%d%c", &g.m, &g.n, &tail) != 2 || g.m < 1 || g.n < 1)
                app_fail(&c, "--grid %s: expected MxN, two positive numbers (such as 100x80)", v);
            have_grid = 1;
        } else if (strcmp(o, "--rtol") == 0) {
            const char *v = app_value(&c, argc, argv, &i);
            char *end;
            rtol = strtod(v, &end);
            if (end == v || *end || !(rtol > 0 && rtol < 1))
                app_fail(&c, "--rtol %s: expected a number between 0 and 1", v);
        } else if (strcmp(o, "--max-it") == 0) {
            max_it = (int)app_number(&c, o, app_value(&c, argc, argv, &i), 1, 1 << 30);
        } else {
            app_fail(&c, "unknown option %s (see --help)", o);
        }
    }
    if (!have_grid)
        app_fail(&c, "--grid MxN is missing (see --help)");
    if (app_kernel_sampling())
        app_fail(&c, "TANDEM_APP_SAMPLE: CG's iterations need their data; run it without sampling");
    if (g.m < app_size)
        app_fail(&c, "--grid %dx%d: fewer rows (%d) than ranks (%d)", g.m, g.n, g.m, app_size);
    if ((double)g.n * (g.m / app_size + 3) > 1e10)
        app_fail(&c, "--grid %dx%d: too large", g.m, g.n);
    app_block_of(g.m, app_size, app_rank, &g.row0, &g.rows);
    g.up = app_rank > 0 ? app_rank - 1 : MPI_PROC_NULL;
    g.down = app_rank + 1 < app_size ? app_rank + 1 : MPI_PROC_NULL;
    g.len = (size_t)(g.rows + 2) * (size_t)g.n;

    double *ones = vec(&g), *b = vec(&g), *x = vec(&g);
    for (size_t k = (size_t)g.n; k < g.len - (size_t)g.n; k++)
        ones[k] = 1;
    product(&g, ones, b, 1);
    double local[3], sums[3];
    TDM_Request reduction = TDM_REQUEST_NULL;
    if (c.pipelined && TDM_Allreduce_init(local, sums, 3, MPI_DOUBLE, MPI_SUM, app_comm, MPI_INFO_NULL, &reduction) !=
                           MPI_SUCCESS)
        app_fail(&c, "%s", TDM_Last_error());
    double *total = malloc((size_t)c.reps * 3 * sizeof *total), *compute = total + c.reps, *overhead = compute + c.reps;
    solve_result result = {0};
    for (int rep = 0; rep < c.reps; rep++) {
        memset(x, 0, g.len * sizeof *x);
        g.compute = 0;
        MPI_Barrier(app_comm);
        double start = MPI_Wtime();
        result = c.pipelined ? pipelined(&g, b, x, rtol, max_it, &reduction, local, sums) : classic(&g, b, x, rtol, max_it);
        double took = MPI_Wtime() - start;
        total[rep] = app_max(took), compute[rep] = app_max(g.compute), overhead[rep] = app_max(took - g.compute);
    }
    if (reduction != TDM_REQUEST_NULL)
        TDM_Request_free(&reduction);
    if (app_rank == 0)
        printf("tandem-cg: %dx%d grid (%lld unknowns) on %d ranks, rtol %g\n", g.m, g.n, (long long)g.m * g.n, app_size,
               rtol);
    app_table_header();
    app_table_row(&c, c.pipelined ? "pipelined" : "classic", 0, 0, app_median(total, c.reps), app_median(compute, c.reps),
                  app_median(overhead, c.reps));
    if (app_rank == 0)
        printf("iterations %d relres %.6e error %.6e\n", result.iterations, result.relres, result.error);
    free(ones), free(b), free(x), free(total);
    app_finish();
    return 0;
}

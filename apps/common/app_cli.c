/* The applications' common command line, errors and timing table (app_cli.h). */
#include "app_cli.h"

#include "app_kernel.h"
#include "tandem.h"
#ifdef TANDEM_SMPI
#include <smpi/smpi.h>
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MPI_Comm app_comm = MPI_COMM_NULL;
int app_rank, app_size;

void app_start(app_common *c, const char *program, int *argc, char ***argv)
{
    *c = (app_common){.program = program, .pipelined = 1, .reps = 1};
    if (TDM_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "%s: TDM_Init failed: %s\n", program, TDM_Last_error());
        exit(1);
    }
    app_comm = TDM_Comm_world();
    MPI_Comm_rank(app_comm, &app_rank);
    MPI_Comm_size(app_comm, &app_size);
}

void app_fail(const app_common *c, const char *fmt, ...)
{
    if (app_rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", c->program);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    TDM_Finalize();
    exit(1);
}

void app_agree(const app_common *c, const char *message)
{
    int mine = message ? app_rank : app_size, first = app_size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, app_comm);
    if (first == app_size)
        return;
    if (app_rank == first)
        fprintf(stderr, "%s: %s\n", c->program, message);
    TDM_Finalize();
    exit(1);
}

const char *app_value(const app_common *c, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        app_fail(c, "%s needs a value (see --help)", argv[*i]);
    return argv[++*i];
}

long app_number(const app_common *c, const char *option, const char *value, long min, long max)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < min || v > max)
        app_fail(c, "%s %s: expected a whole number from %ld to %ld", option, value, min, max);
    return v;
}

static int count_or_auto(const app_common *c, const char *option, const char *value)
{
    if (strcmp(value, "auto") == 0)
        return 0;
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < 1 || v > (1L << 30))
        app_fail(c, "%s %s: expected auto or a whole number from 1 to %ld", option, value, 1L << 30);
    return (int)v;
}

int app_common_option(app_common *c, int argc, char **argv, int *i, const char *blocking_name)
{
    const char *o = argv[*i];
    if (strcmp(o, "--variant") == 0) {
        const char *v = app_value(c, argc, argv, i);
        if (strcmp(v, blocking_name) != 0 && strcmp(v, "pipelined") != 0)
            app_fail(c, "--variant %s: expected %s or pipelined", v, blocking_name);
        c->pipelined = strcmp(v, "pipelined") == 0;
    } else if (strcmp(o, "--tile") == 0) {
        c->tile = count_or_auto(c, o, app_value(c, argc, argv, i));
    } else if (strcmp(o, "--window") == 0) {
        c->window = count_or_auto(c, o, app_value(c, argc, argv, i));
    } else if (strcmp(o, "--tune") == 0) {
        c->tune = 1;
    } else if (strcmp(o, "--csv") == 0) {
        c->csv = app_value(c, argc, argv, i);
    } else if (strcmp(o, "--reps") == 0) {
        c->reps = (int)app_number(c, o, app_value(c, argc, argv, i), 1, 1000000);
    } else {
        return 0;
    }
    return 1;
}

void app_block_of(int n, int size, int rank, int *first, int *count)
{
    int base = n / size, extra = n % size;
    *count = base + (rank < extra);
    *first = rank * base + (rank < extra ? rank : extra);
}

const char *app_progress_name(void)
{
    const char *p = getenv("TANDEM_PROGRESS");
    return p && *p ? p : "inline";
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double app_median(const double *values, int n)
{
    double *sorted = malloc((size_t)n * sizeof *sorted);
    memcpy(sorted, values, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    double m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    return m;
}

double app_max(double mine)
{
    double most = mine;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, app_comm);
    return most;
}

void app_table_header(void)
{
    if (app_rank == 0)
        printf("%-10s %-8s %5s %6s %6s %4s %12s %12s %12s\n", "variant", "progress", "ranks", "tile", "window", "reps",
               "total s", "compute s", "overhead s");
}

void app_table_row(const app_common *c, const char *variant, int tile, int window, double total, double compute,
                   double overhead)
{
    if (app_rank != 0)
        return;
    char t[16] = "-", w[16] = "-";
    if (tile > 0)
        snprintf(t, sizeof t, "%d", tile);
    if (window > 0)
        snprintf(w, sizeof w, "%d", window);
    printf("%-10s %-8s %5d %6s %6s %4d %12.6f %12.6f %12.6f\n", variant, app_progress_name(), app_size, t, w, c->reps,
           total, compute, overhead);
    FILE *f = c->csv ? fopen(c->csv, "w") : NULL;
    if (c->csv && !f)
        fprintf(stderr, "%s: --csv %s: cannot write\n", c->program, c->csv);
    if (f) {
        fprintf(f, "app,variant,progress,ranks,tile,window,reps,total_s,compute_s,overhead_s\n");
        fprintf(f, "%s,%s,%s,%d,%d,%d,%d,%.9g,%.9g,%.9g\n", c->program, variant, app_progress_name(), app_size, tile,
                window, c->reps, total, compute, overhead);
        fclose(f);
    }
}

void *app_alloc(size_t bytes)
{
#ifdef TANDEM_SMPI
    if (app_kernel_sampling())
        return SMPI_SHARED_MALLOC(bytes ? bytes : 1);
#endif
    return malloc(bytes ? bytes : 1);
}

void app_free(void *p)
{
#ifdef TANDEM_SMPI
    if (app_kernel_sampling()) {
        SMPI_SHARED_FREE(p);
        return;
    }
#endif
    free(p);
}

void app_finish(void) { TDM_Finalize(); }

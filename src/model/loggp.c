#include "loggp.h"

#include <stdlib.h>
#include <string.h>

tdm_loggp tdm_loggp_defaults(void)
{
    return (tdm_loggp){TDM_LOGGP_DEFAULT_ALPHA, TDM_LOGGP_DEFAULT_BETA, TDM_LOGGP_DEFAULT_GAMMA, 0};
}

static int positive(double v) { return v > 0 && v < 1; }

/* "alpha A" lines (any order, # comments); latency optional */
static int parse_file(FILE *in, tdm_loggp *m)
{
    char line[256], name[32];
    double v;
    int seen = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || sscanf(line, "%31s %lf", name, &v) != 2)
            continue;
        if (!strcmp(name, "alpha"))
            m->alpha = v, seen |= 1;
        else if (!strcmp(name, "beta"))
            m->beta = v, seen |= 2;
        else if (!strcmp(name, "gamma"))
            m->gamma = v, seen |= 4;
        else if (!strcmp(name, "latency"))
            m->latency = v;
    }
    return seen == 7;
}

int tdm_loggp_parse_setting(const char *setting, tdm_loggp *m)
{
    tdm_loggp v = {0, 0, 0, 0};
    char rest;
    int given = sscanf(setting, "%lf,%lf,%lf,%lf%c", &v.alpha, &v.beta, &v.gamma, &v.latency, &rest);
    if (given == 3 && sscanf(setting, "%*f,%*f,%*f%c", &rest) == 1)
        given = 0; /* "a,b,c" followed by something other than ",latency" */
    if (given != 3 && given != 4) {
        FILE *in = fopen(setting, "r");
        if (!in)
            return 0;
        int ok = parse_file(in, &v);
        fclose(in);
        if (!ok)
            return 0;
    }
    if (!positive(v.alpha) || !positive(v.beta) || !positive(v.gamma) || !tdm_loggp_latency_valid(&v))
        return 0;
    *m = v;
    return 1;
}

int tdm_loggp_write(FILE *out, const tdm_loggp *m, const char *how)
{
    int ok = fprintf(out, "# LogGP parameters for Tandem (TANDEM_LOGGP=this file)%s%s\n"
                          "alpha %.6g\nbeta %.6g\ngamma %.6g\n",
                     how ? ": " : "", how ? how : "", m->alpha, m->beta, m->gamma) > 0;
    if (ok && m->latency > 0)
        ok = fprintf(out, "latency %.6g\n", m->latency) > 0;
    return ok;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tdm_loggp_measure_gamma(MPI_Comm comm, int reps)
{
    enum { BYTES = 16 << 20 };
    int rank, n = BYTES / (int)sizeof(double);
    MPI_Comm_rank(comm, &rank);
    double gamma = 0, *a = malloc(BYTES), *b = malloc(BYTES), *times = malloc(sizeof(double) * (size_t)reps);
    if (rank == 0 && a && b && times) {
        for (int i = 0; i < n; i++)
            a[i] = 1.0 + i % 7, b[i] = 2.0 - i % 5;
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            double t0 = MPI_Wtime();
            MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
            if (r >= 0)
                times[r] = (MPI_Wtime() - t0) / BYTES;
        }
        gamma = median(times, reps);
    }
    MPI_Bcast(&gamma, 1, MPI_DOUBLE, 0, comm);
    free(a), free(b), free(times);
    return gamma;
}

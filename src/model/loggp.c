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

/* Median half round trip of a message of `bytes` between ranks 0 and 1. */
static double half_round_trip(MPI_Comm comm, int rank, char *buf, int bytes, int reps, double *times)
{
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, comm);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, comm);
        }
        if (r >= 0)
            times[r] = (MPI_Wtime() - t0) / 2;
    }
    return median(times, reps);
}

int tdm_loggp_measure(MPI_Comm comm, int reps, tdm_loggp *m)
{
    enum { LARGE = 16 << 20, SMALL = 1 << 20, MEDIUM = 256 << 10 };
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2 || reps < 1)
        return MPI_ERR_ARG;
    char *buf = malloc(LARGE);
    double *times = malloc(sizeof(double) * (size_t)reps);
    double *a = malloc(LARGE), *b = malloc(LARGE);
    if (!buf || !times || !a || !b) {
        free(buf), free(times), free(a), free(b);
        return MPI_ERR_NO_MEM;
    }
    memset(buf, 1, LARGE);
    double v[3] = {0, 0, 0};
    double latency = half_round_trip(comm, rank, buf, 1, reps, times);
    double t_medium = half_round_trip(comm, rank, buf, MEDIUM, reps, times);
    double t_small = half_round_trip(comm, rank, buf, SMALL, reps, times);
    double t_large = half_round_trip(comm, rank, buf, LARGE, reps, times);
    v[1] = (t_large - t_small) / (LARGE - SMALL);
    /* the start-up of the large messages the model cuts into segments (a rendezvous, often several
     * times the latency of a short message): where the line through the large sizes meets 256 KiB */
    v[0] = t_medium - v[1] * MEDIUM;
    if (v[0] < latency)
        v[0] = latency;
    int n = LARGE / (int)sizeof(double);
    for (int i = 0; i < n; i++)
        a[i] = 1.0 + i % 7, b[i] = 2.0 - i % 5;
    for (int r = -1; r < reps; r++) {
        double t0 = MPI_Wtime();
        MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
        if (r >= 0)
            times[r] = (MPI_Wtime() - t0) / LARGE;
    }
    v[2] = median(times, reps);
    MPI_Bcast(v, 3, MPI_DOUBLE, 0, comm);
    m->alpha = v[0];
    m->beta = v[1] > 0 ? v[1] : t_large / LARGE; /* a slope lost in noise: the plain average */
    m->gamma = v[2];
    free(buf), free(times), free(a), free(b);
    return MPI_SUCCESS;
}

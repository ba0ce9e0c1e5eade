#include "loggp.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

tdm_loggp tdm_loggp_defaults(void)
{
    return (tdm_loggp){TDM_LOGGP_DEFAULT_ALPHA, TDM_LOGGP_DEFAULT_BETA, TDM_LOGGP_DEFAULT_GAMMA, 0, 0, 0};
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
        else if (!strcmp(name, "shm_flag"))
            m->shm_flag = v;
        else if (!strcmp(name, "shm_beta"))
            m->shm_beta = v;
    }
    return seen == 7;
}

int tdm_loggp_parse_setting(const char *setting, tdm_loggp *m)
{
    tdm_loggp v = {0, 0, 0, 0, 0, 0};
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
    if (!positive(v.alpha) || !positive(v.beta) || !positive(v.gamma) || !tdm_loggp_latency_valid(&v) ||
        !(v.shm_flag == 0 || positive(v.shm_flag)) || !(v.shm_beta == 0 || positive(v.shm_beta)))
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
    if (ok && m->shm_flag > 0)
        ok = fprintf(out, "shm_flag %.6g\n", m->shm_flag) > 0;
    if (ok && m->shm_beta > 0)
        ok = fprintf(out, "shm_beta %.6g\n", m->shm_beta) > 0;
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

int tdm_loggp_measure_shm(MPI_Comm comm, int reps, tdm_loggp *m)
{
    enum { FLAGS = 20000, COPY = 64 << 10, LINE = 64 };
    int rank, shared = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm node = MPI_COMM_NULL, pair = MPI_COMM_NULL;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank = -1, zero_here = 0;
    MPI_Comm_rank(node, &node_rank);
    int first = rank == 0; /* ranks 0 and the next on its node measure */
    MPI_Bcast(&first, 1, MPI_INT, 0, node);
    zero_here = first;
    MPI_Comm_free(&node);
    /* the pair: rank 0 and the lowest other rank that shares its node */
    int color = zero_here && node_rank <= 1 ? 0 : MPI_UNDEFINED;
    MPI_Comm_split(comm, color, rank, &pair);
    int pair_size = 0;
    if (pair != MPI_COMM_NULL)
        MPI_Comm_size(pair, &pair_size);
    double flag = 0, beta = 0;
    if (pair_size == 2) {
        int me;
        MPI_Comm_rank(pair, &me);
        char *base;
        MPI_Win win;
        if (MPI_Win_allocate_shared(me == 0 ? 2 * LINE + COPY : 0, 1, MPI_INFO_NULL, pair, &base, &win) == MPI_SUCCESS) {
            MPI_Aint bytes;
            int unit;
            MPI_Win_shared_query(win, 0, &bytes, &unit, &base);
            _Atomic long *ping = (_Atomic long *)base, *pong = (_Atomic long *)(base + LINE);
            char *cell = base + 2 * LINE, *src = malloc(COPY), *dst = malloc(COPY);
            double *times = malloc(sizeof(double) * (size_t)reps);
            if (src && dst && times) {
                memset(src, 1, COPY);
                for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
                    atomic_store(ping, 0), atomic_store(pong, 0);
                    MPI_Barrier(pair);
                    double t0 = MPI_Wtime();
                    for (long i = 1; i <= FLAGS; i++)
                        if (me == 0) {
                            atomic_store_explicit(ping, i, memory_order_release);
                            while (atomic_load_explicit(pong, memory_order_acquire) != i)
                                ;
                        } else {
                            while (atomic_load_explicit(ping, memory_order_acquire) != i)
                                ;
                            atomic_store_explicit(pong, i, memory_order_release);
                        }
                    if (r >= 0)
                        times[r] = (MPI_Wtime() - t0) / FLAGS / 2;
                    MPI_Barrier(pair);
                }
                flag = median(times, reps);
                for (int r = -1; r < reps; r++) { /* a cell in by one process, out by the other */
                    MPI_Barrier(pair);
                    double t0 = MPI_Wtime();
                    for (int k = 0; k < 16; k++) {
                        if (me == 0)
                            memcpy(cell, src, COPY);
                        MPI_Barrier(pair);
                        if (me == 1)
                            memcpy(dst, cell, COPY);
                        MPI_Barrier(pair);
                    }
                    if (r >= 0)
                        times[r] = (MPI_Wtime() - t0) / 16 / 2 / COPY;
                }
                beta = median(times, reps);
            }
            free(src), free(dst), free(times);
            MPI_Win_free(&win);
        }
    }
    if (pair != MPI_COMM_NULL)
        MPI_Comm_free(&pair);
    double got[2] = {flag, beta};
    MPI_Bcast(got, 2, MPI_DOUBLE, 0, comm);
    shared = got[0] > 0 && got[1] > 0;
    if (shared)
        m->shm_flag = got[0], m->shm_beta = got[1];
    return shared;
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

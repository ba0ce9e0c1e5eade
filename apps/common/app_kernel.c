/* Measured kernels, charged to the simulated clock under SMPI (app_kernel.h). */
#include "app_kernel.h"

#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#ifdef TANDEM_SMPI
#include <smpi/smpi.h>
#endif

#ifdef TANDEM_SMPI
static double host_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double setting(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v && *v ? atof(v) : fallback;
}

int app_kernel_sampling(void) { return setting("TANDEM_APP_SAMPLE", 0) > 0; }

double app_kernel_start(app_kernel *k)
{
    double samples = setting("TANDEM_APP_SAMPLE", 0);
    k->skip = samples > 0 && k->runs >= (long)samples;
    return k->skip ? 0 : host_now();
}

int app_kernel_runs(const app_kernel *k) { return !k->skip; }

double app_kernel_stop(app_kernel *k, double start)
{
    double host;
    if (k->skip) {
        host = k->sum / (double)k->runs;
        k->skipped++;
    } else {
        host = host_now() - start;
        k->sum += host, k->runs++;
    }
    double simulated = host * setting("TANDEM_APP_CPU_SCALE", 1);
    smpi_execute_benched(simulated);
    return simulated;
}
#else
int app_kernel_sampling(void) { return 0; }
double app_kernel_start(app_kernel *k)
{
    k->skip = 0;
    return MPI_Wtime();
}
int app_kernel_runs(const app_kernel *k) { (void)k; return 1; }
double app_kernel_stop(app_kernel *k, double start)
{
    double took = MPI_Wtime() - start;
    k->sum += took, k->runs++;
    return took;
}
#endif

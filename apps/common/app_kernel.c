/* Measured kernels, charged to the simulated clock under SMPI (app_kernel.h). */
#include "app_kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#ifdef TANDEM_SMPI
#include <smpi/smpi.h>
/* smpicc's smpi_helpers.h makes clock_gettime the simulated clock: this one is the host's */
#undef clock_gettime
#endif

static double now(void)
{
#ifdef TANDEM_SMPI
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#else
    return MPI_Wtime();
#endif
}

#ifdef TANDEM_SMPI
static double setting(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v && *v ? atof(v) : fallback;
}
#endif

static int samples(void)
{
#ifdef TANDEM_SMPI
    return (int)setting("TANDEM_APP_SAMPLE", 0);
#else
    return 0;
#endif
}

int app_kernel_sampling(void) { return samples() > 0; }

#ifdef TANDEM_SMPI
/* Sampling: the kernels' calibrations, in memory every simulated rank shares (SMPI_SHARED_MALLOC gives
 * every rank the same block for the same call site). */
#define KERNELS 16
typedef struct calibration {
    char name[40];
    double per_unit;
} calibration;

static calibration *calibrations(void)
{
    static calibration *table; /* this rank's pointer to the shared table */
    if (!table)
        table = SMPI_SHARED_MALLOC(KERNELS * sizeof *table);
    return table;
}

static calibration *calibration_of(const char *name, int add)
{
    calibration *t = calibrations();
    for (int i = 0; i < KERNELS; i++) {
        if (t[i].name[0] && strcmp(t[i].name, name) == 0)
            return &t[i];
        if (!t[i].name[0] && add) {
            snprintf(t[i].name, sizeof t[i].name, "%s", name);
            return &t[i];
        }
    }
    return NULL;
}
#endif

void app_kernel_begin(app_kernel *k, double units)
{
    k->units = units, k->round = 0, k->best = INFINITY;
#ifdef TANDEM_SMPI
    calibration *known = samples() > 0 && !k->calibrated && k->name ? calibration_of(k->name, 0) : NULL;
    if (known)
        k->per_unit = known->per_unit, k->calibrated = 1;
#endif
}

int app_kernel_next(app_kernel *k)
{
    if (k->round > 0)
        k->best = fmin(k->best, now() - k->start);
    int rounds = samples() > 0 ? (k->calibrated ? 0 : samples()) : 1;
    if (k->round >= rounds)
        return 0;
    k->round++;
    k->start = now();
    return 1;
}

double app_kernel_end(app_kernel *k)
{
    double seconds = k->best;
    if (samples() > 0) {
        if (!k->calibrated) {
            k->per_unit = k->units > 0 ? k->best / k->units : k->best, k->calibrated = 1;
#ifdef TANDEM_SMPI
            calibration *c = k->name ? calibration_of(k->name, 1) : NULL;
            if (c)
                c->per_unit = k->per_unit;
#endif
        }
        seconds = k->per_unit * (k->units > 0 ? k->units : 1);
    }
    if (!isfinite(seconds))
        seconds = 0;
#ifdef TANDEM_SMPI
    seconds *= setting("TANDEM_APP_CPU_SCALE", 1);
    smpi_execute_benched(seconds);
#endif
    return seconds;
}

/* Measured kernels, charged to the simulated clock under SMPI (app_kernel.h). */
#include "app_kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
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
/* Sampling: the kernels' calibrations, "name seconds-per-unit" lines in a file every simulated rank
 * reads (the ranks share the process, not their globals; SMPI's shared memory is scratch that every
 * shared allocation folds onto): TANDEM_APP_CALIBRATION, else one per simulation (its process id). A
 * study that names one file for all its runs charges the same kernels the same, whatever the variant. */
static const char *calibration_path(void)
{
    static char path[256];
    const char *given = getenv("TANDEM_APP_CALIBRATION");
    if (given && *given)
        return given;
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/tandem-app-kernels.%ld", (long)getpid());
    return path;
}

static int calibration_of(const char *name, double *per_unit)
{
    FILE *f = fopen(calibration_path(), "r");
    char known[64];
    double value;
    int found = 0;
    while (f && !found && fscanf(f, "%63s %lf", known, &value) == 2)
        if (strcmp(known, name) == 0)
            *per_unit = value, found = 1;
    if (f)
        fclose(f);
    return found;
}

static void remember(const char *name, double per_unit)
{
    FILE *f = fopen(calibration_path(), "a");
    if (f) {
        fprintf(f, "%s %.9g\n", name, per_unit);
        fclose(f);
    }
}
#endif

int app_kernel_value(const char *name, double *value)
{
#ifdef TANDEM_SMPI
    return samples() > 0 && calibration_of(name, value);
#else
    (void)name, (void)value;
    return 0;
#endif
}

void app_kernel_keep(const char *name, double value)
{
#ifdef TANDEM_SMPI
    double known;
    if (samples() > 0 && !calibration_of(name, &known))
        remember(name, value);
#else
    (void)name, (void)value;
#endif
}

void app_kernel_begin(app_kernel *k, double units)
{
    k->units = units, k->round = 0, k->best = INFINITY;
#ifdef TANDEM_SMPI
    if (samples() > 0 && !k->calibrated && k->name && calibration_of(k->name, &k->per_unit))
        k->calibrated = 1;
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
            if (k->name)
                remember(k->name, k->per_unit);
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

/*
 * A stretch of an application's computation (a kernel), timed. In a real run its seconds are the
 * clock's. Under SimGrid's SMPI, where computation between MPI calls costs no simulated time on
 * Tandem's platforms (smpi/simulate-computation:no), the kernel is timed on the host's clock and its time
 * charged to the simulated clock (smpi_execute_benched): a measured kernel, times TANDEM_APP_CPU_SCALE
 * (default 1: a simulated core as fast as this one).
 *
 * Sampling, SMPI only (TANDEM_APP_SAMPLE=N): a kernel's first call in the simulation (the first rank's)
 * runs its body N times back to back and keeps the fastest, per unit of work (a plane, a byte, a row);
 * every later call, on every rank, charges that times its units without running. Hundreds of simulated
 * ranks then cost the host little, and every rank and every variant of an application is charged the
 * same for the same work: measured one call at a time, a kernel would find the cache cold whenever
 * other simulated ranks ran in between (on a real machine they do not), and each rank would carry its
 * own measurement's noise, an imbalance that the collectives would turn into waiting. The data are
 * garbage: timing only.
 *
 *   for (app_kernel_begin(&k, units); app_kernel_next(&k);)
 *       ...the computation...
 *   seconds += app_kernel_end(&k);
 */
#ifndef TANDEM_APP_KERNEL_H
#define TANDEM_APP_KERNEL_H

typedef struct app_kernel {
    const char *name; /* sampling: the kernel's calibration is shared by this name */
    double per_unit;  /* sampling: host seconds per unit, from the first call */
    int calibrated;
    double units, start, best;
    int round;
} app_kernel;

void app_kernel_begin(app_kernel *k, double units);
/* Whether to run the body (again). */
int app_kernel_next(app_kernel *k);
/* The seconds this call took, or was charged: what to add to the application's computation. */
double app_kernel_end(app_kernel *k);
/* Whether kernels are sampled (SMPI with TANDEM_APP_SAMPLE): the data are not computed. */
int app_kernel_sampling(void);
/* Sampling: a value measured beside a kernel (a compression ratio), kept and found as the kernels'
 * calibrations are. Elsewhere nothing is kept: 0. */
int app_kernel_value(const char *name, double *value);
void app_kernel_keep(const char *name, double value);

#endif

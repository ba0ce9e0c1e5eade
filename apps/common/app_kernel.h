/*
 * A stretch of an application's computation, timed. In a real run its seconds are the clock's. Under
 * SimGrid's SMPI, where computation between MPI calls costs no simulated time on Tandem's platforms
 * (smpi/simulate-computation:no), the stretch is timed on the host's clock and charged as simulated
 * time (smpi_execute_benched): a measured kernel, times TANDEM_APP_CPU_SCALE (default 1: a simulated
 * core as fast as this one).
 *
 * Sampling, SMPI only (TANDEM_APP_SAMPLE=N): a kernel runs for real its first N times on each rank,
 * then its mean is charged without running it, so that hundreds of simulated ranks cost the host
 * little. The data are then garbage: timing only (the apps refuse --check and --out with it).
 *
 *   double t = app_kernel_start(&k);
 *   if (app_kernel_runs(&k)) { ...the computation... }
 *   seconds += app_kernel_stop(&k, t);
 */
#ifndef TANDEM_APP_KERNEL_H
#define TANDEM_APP_KERNEL_H

typedef struct app_kernel {
    double sum; /* host seconds of the real runs */
    long runs, skipped;
    int skip;   /* this call is sampled: not run */
} app_kernel;

double app_kernel_start(app_kernel *k);
int app_kernel_runs(const app_kernel *k);
/* The seconds this call took (or was charged): the time to add to the application's computation. */
double app_kernel_stop(app_kernel *k, double start);
/* Whether kernels are sampled (SMPI with TANDEM_APP_SAMPLE): the data are not computed. */
int app_kernel_sampling(void);

#endif

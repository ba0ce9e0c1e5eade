/*
 * A collective timed with a computation between its start and its wait, under each mode: the engine
 * of tandem-bench --overlap (bench_overlap.c) and --cpu-overhead (bench_cpu_overhead.c).
 *
 * Modes: native MPI_Ixxx + MPI_Wait, the same with MPI_Test calls inside the computation, the blocking
 * MPI_Xxx after the computation (nothing overlaps: the reference), Tandem inline (with and without
 * TDM_Test calls), Tandem thread and Tandem split-tree (if MPI gives MPI_THREAD_MULTIPLE; split uses
 * the split-tree model's S unless TANDEM_SPLIT_S is set). In a job started with TANDEM_PROGRESS=dcp the
 * Tandem modes are tandem-dcp (and +test): dedicated collective processes serve the application ranks.
 *
 * The computation is a fixed amount of arithmetic (calibrated once), so a progress thread that steals
 * its core makes it longer, as it should; --compute sleep makes it a sleep that leaves the core idle (on
 * a machine without a free core per rank it emulates one for the progress thread); built for SMPI it
 * is simulated time (smpi_execute_benched).
 */
#include "bench.h"

#include "../src/base/clock_cost.h"
#include "../src/base/smpi_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *const bench_timed_modes[BENCH_NTIMED] = {"mpi",           "mpi+test",           "mpi-blocking",
                                                     "tandem-inline", "tandem-inline+test", "tandem-thread",
                                                     "tandem-split",  "tandem-dcp",         "tandem-dcp+test"};
#define IS_MPI(mode) ((mode) <= BENCH_MPI_BLOCKING)

static double work_per_second; /* calibrated iterations of compute_work per second */
static double clock_read;      /* seconds per MPI_Wtime call (clock_cost.h) */
static volatile double sink;

/* busy: arithmetic; sleep: the computation leaves its core idle; simulated: SMPI's simulated time */
static enum { COMPUTE_BUSY, COMPUTE_SLEEP, COMPUTE_SIMULATED } compute_kind;

static void compute_work(long iterations)
{
    if (compute_kind == COMPUTE_SIMULATED) { /* iterations are nanoseconds */
        tdm_smpi_execute(iterations * 1e-9);
        return;
    }
    if (compute_kind == COMPUTE_SLEEP) { /* iterations are nanoseconds */
        struct timespec ts = {iterations / 1000000000L, iterations % 1000000000L};
        if (iterations > 0)
            nanosleep(&ts, NULL);
        return;
    }
    double x = 1.0;
    for (long i = 0; i < iterations; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Iterations per second of compute_work on this core, the median of a few trials. */
static void calibrate(void)
{
    if (compute_kind != COMPUTE_BUSY) {
        work_per_second = 1e9;
        return;
    }
    double rates[7];
    for (int t = 0; t < 7; t++) {
        long n = 200000;
        double t0 = MPI_Wtime();
        compute_work(n);
        rates[t] = n / (MPI_Wtime() - t0);
    }
    double mine = bench_median(rates, 7);
    /* the slowest rank's rate: every rank then computes at least Tcomp */
    MPI_Allreduce(&mine, &work_per_second, 1, MPI_DOUBLE, MPI_MIN, bench_world);
}

/* The calling thread's CPU seconds (not its progress thread's); 0 in simulation, where SMPI charges
 * simulated time, not the host's. */
static double thread_cpu(void)
{
    struct timespec ts;
    if (TDM_SIMULATED || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_timed_with_tests(int mode)
{
    return mode == BENCH_MPI_TEST || mode == BENCH_INLINE_TEST || mode == BENCH_DCP_TEST;
}

int bench_timed_is_tandem(int mode) { return !IS_MPI(mode); }

double bench_sample_overhead(const bench_sample *x) { return x->overhead; }

long bench_work_for(double seconds) { return (long)(seconds * work_per_second); }

const char *bench_compute_description(void)
{
    return compute_kind == COMPUTE_SIMULATED ? "simulated time (smpi_execute_benched)"
           : compute_kind == COMPUTE_SLEEP   ? "SLEEP (the core stays idle: emulates a free core for the progress "
                                               "thread; not a real computation)"
                                             : "busy arithmetic on the application's core";
}

static int start_op(int mode, const bench_collective *c, bench_buffers *b, TDM_Request *t, MPI_Request *m)
{
    if (mode == BENCH_MPI_BLOCKING)
        return bench_run_blocking(c, b);
    return IS_MPI(mode) ? bench_start_mpi(c, b, m) : bench_start_tandem(c, b, t);
}

static int test_op(int mode, TDM_Request *t, MPI_Request *m)
{
    int flag;
    return IS_MPI(mode) ? MPI_Test(m, &flag, MPI_STATUS_IGNORE) : TDM_Test(t, &flag, MPI_STATUS_IGNORE);
}

static int wait_op(int mode, TDM_Request *t, MPI_Request *m)
{
    if (mode == BENCH_MPI_BLOCKING)
        return MPI_SUCCESS; /* done in the start */
    return IS_MPI(mode) ? MPI_Wait(m, MPI_STATUS_IGNORE) : TDM_Wait(t, MPI_STATUS_IGNORE);
}

double bench_clock_read(void) { return clock_read; }

bench_sample bench_timed_point(int mode, const bench_collective *c, bench_buffers *b, long work, int iters,
                               int test_calls)
{
    int with_tests = bench_timed_with_tests(mode);
    int intervals = 2 + (with_tests ? test_calls : 0); /* timed per iteration: start, tests, wait */
    double in_start = 0, in_test = 0, in_wait = 0;
    TDM_Request treq = TDM_REQUEST_NULL;
    MPI_Request mreq = MPI_REQUEST_NULL;
    start_op(mode, c, b, &treq, &mreq); /* warm-up */
    wait_op(mode, &treq, &mreq);
    MPI_Barrier(bench_world);
    double t0 = MPI_Wtime(), cpu0 = thread_cpu();
    for (int i = 0; i < iters; i++) {
        double a = MPI_Wtime();
        int rc = start_op(mode, c, b, &treq, &mreq);
        double s = MPI_Wtime();
        if (with_tests) {
            for (int k = 0; k < test_calls; k++) {
                compute_work(work / test_calls);
                double t = MPI_Wtime();
                rc |= test_op(mode, &treq, &mreq);
                in_test += MPI_Wtime() - t;
            }
        } else {
            compute_work(work);
        }
        double w = MPI_Wtime();
        rc |= wait_op(mode, &treq, &mreq);
        double e = MPI_Wtime();
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "tandem-bench: %s (%s) failed: %s\n", c->name, bench_timed_modes[mode],
                    IS_MPI(mode) ? "MPI error" : TDM_Last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        in_start += s - a;
        in_wait += e - w;
    }
    double cpu = thread_cpu() - cpu0;
    /* Not the clock's own cost: each timed interval counts one read beyond what it times, and an iteration
     * reads the clock twice per interval. At 8 B that is a third of what the calls take. */
    double reads = 2 * intervals * clock_read;
    double mine[6] = {fmax(0, in_start / iters - clock_read),
                      fmax(0, in_test / iters - (intervals - 2) * clock_read),
                      fmax(0, in_wait / iters - clock_read),
                      fmax(0, (MPI_Wtime() - t0) / iters - reads),
                      fmax(0, cpu / iters - reads),
                      fmax(0, (in_start + in_test + in_wait) / iters - intervals * clock_read)};
    double slowest[6];
    MPI_Allreduce(mine, slowest, 6, MPI_DOUBLE, MPI_MAX, bench_world);
    return (bench_sample){slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5]};
}

double bench_compute_time(long work, int iters, int pieces)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < pieces; k++)
            compute_work(work / pieces);
    double mine = (MPI_Wtime() - t0) / iters, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, bench_world);
    return slowest;
}

int bench_timed_progress(int mode)
{
    if (mode == BENCH_DCP || mode == BENCH_DCP_TEST)
        return MPI_SUCCESS; /* chosen for the whole job at TDM_Init */
    return TDM_Set_progress(mode == BENCH_THREAD ? "thread" : mode == BENCH_SPLIT ? "split" : "inline");
}

int bench_timed_setup(const bench_options *o, int available[BENCH_NTIMED], const char *why[BENCH_NTIMED])
{
    int rank;
    MPI_Comm_rank(bench_world, &rank);
    /* --compute was checked: busy or sleep, and not in simulation */
    compute_kind = TDM_SIMULATED                                ? COMPUTE_SIMULATED
                   : o->compute && !strcmp(o->compute, "sleep") ? COMPUTE_SLEEP
                                                                : COMPUTE_BUSY;
    if (!bench_modes_known(o, bench_timed_modes, BENCH_NTIMED, rank))
        return 0;
    int dcp = 0;
    MPI_Comm_compare(bench_world, MPI_COMM_WORLD, &dcp);
    dcp = dcp != MPI_IDENT; /* dcp progress: the application's world is not MPI's */
    int threads = !dcp && TDM_Set_progress("thread") == MPI_SUCCESS;
    if (!dcp)
        TDM_Set_progress("inline");
    for (int m = 0; m < BENCH_NTIMED; m++) {
        int is_dcp = m == BENCH_DCP || m == BENCH_DCP_TEST, tandem = !IS_MPI(m);
        int threaded = m == BENCH_THREAD || m == BENCH_SPLIT;
        why[m] = is_dcp && !dcp    ? "start the job with TANDEM_PROGRESS=dcp"
                 : tandem && dcp   ? "dcp progress runs every Tandem collective of the job"
                 : TDM_SIMULATED   ? "SMPI cannot simulate threads"
                                   : "MPI does not provide MPI_THREAD_MULTIPLE";
        available[m] = bench_mode_wanted(o, bench_timed_modes[m]) &&
                       (is_dcp ? dcp : !tandem || (!dcp && (threads || !threaded)));
    }
    calibrate();
    clock_read = tdm_wtime_cost();
    return 1;
}

const double bench_sweep_factors[BENCH_SWEEP_POINTS] = {0, 0.25, 0.5, 1, 1.5, 2, 3, 4};

void bench_sweep_run(const bench_collective *c, long bytes, const bench_options *o, const int *available,
                     int test_calls, const double *factors, int npoints, bench_sweep *out)
{
    out->npoints = npoints < BENCH_SWEEP_POINTS ? npoints : BENCH_SWEEP_POINTS;
    int size;
    MPI_Comm_size(bench_world, &size);
    bench_buffers b;
    bench_buffers_alloc(&b, c, bytes, size);
    int iters = (int)(16L * 1024 * 1024 / (bytes > 16384 ? bytes : 16384));
    iters = bench_iterations(o, iters > 200 ? 200 : iters < 8 ? 8 : iters);
    int reps = o->reps;

    /* pure latencies, and the calling thread's CPU time in them */
    for (int m = 0; m < BENCH_NTIMED; m++) {
        out->pure[m] = out->pure_cpu[m] = 0;
        if (!available[m])
            continue;
        bench_timed_progress(m);
        double s[BENCH_MAX_REPS], cpu[BENCH_MAX_REPS];
        for (int r = 0; r < reps; r++) {
            bench_sample x = bench_timed_point(m, c, &b, 0, iters, test_calls);
            s[r] = x.total, cpu[r] = x.cpu;
        }
        out->pure[m] = bench_median(s, reps);
        out->pure_cpu[m] = bench_median(cpu, reps);
    }
    bench_timed_progress(BENCH_MPI);
    /* Tcomp runs up to a few times the native latency (or the slowest latency measured, without it) */
    double ref = out->pure[BENCH_MPI];
    for (int m = 0; !available[BENCH_MPI] && m < BENCH_NTIMED; m++)
        ref = out->pure[m] > ref ? out->pure[m] : ref;

    long work[BENCH_SWEEP_POINTS];
    for (int p = 0; p < out->npoints; p++) {
        out->tcomp[p] = factors[p] * ref;
        work[p] = bench_work_for(out->tcomp[p]);
        for (int cut = 0; cut < 2; cut++) {
            double s[BENCH_MAX_REPS];
            for (int r = 0; r < reps; r++)
                s[r] = bench_compute_time(work[p], iters, cut ? test_calls : 1);
            out->tcompute[p][cut] = bench_median(s, reps);
        }
    }
    for (int m = 0; m < BENCH_NTIMED; m++) {
        if (!available[m])
            continue;
        bench_timed_progress(m);
        for (int p = 0; p < out->npoints; p++) {
            double st[BENCH_MAX_REPS], te[BENCH_MAX_REPS], wt[BENCH_MAX_REPS], tt[BENCH_MAX_REPS], cpu[BENCH_MAX_REPS];
            double ovh[BENCH_MAX_REPS];
            for (int r = 0; r < reps; r++) {
                bench_sample x = bench_timed_point(m, c, &b, work[p], iters, test_calls);
                st[r] = x.start, te[r] = x.test, wt[r] = x.wait, tt[r] = x.total, cpu[r] = x.cpu, ovh[r] = x.overhead;
            }
            out->result[m][p] = (bench_sample){bench_median(st, reps), bench_median(te, reps), bench_median(wt, reps),
                                               bench_median(tt, reps), bench_median(cpu, reps), bench_median(ovh, reps)};
        }
    }
    bench_timed_progress(BENCH_MPI);
    bench_buffers_free(&b);
}

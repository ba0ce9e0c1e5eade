/*
 * tandem-bench --overlap: how much of a collective hides behind computation, measured the way the
 * OSU non-blocking collective benchmarks do.
 *
 * For each collective and size, every mode first runs start + wait alone (its pure latency). Then a
 * computation of length Tcomp runs between start and wait, Tcomp swept from 0 to a few times the
 * native latency. Per point the application-side overhead (time inside the start call, the test calls
 * and the wait) and the total are measured, and
 *     overlap % = max(0, 100 * (1 - (t_total - t_compute) / t_pure))
 * with t_compute the computation's own time, measured alone. The computation is a fixed amount of
 * arithmetic (calibrated once), so a progress thread that steals its core makes it longer and lowers
 * the overlap, as it should.
 *
 * Modes: native MPI_Ixxx + MPI_Wait, the same with MPI_Test calls inside the computation, the blocking
 * MPI_Xxx after the computation (nothing overlaps: the reference), Tandem inline (with and without
 * TDM_Test calls), Tandem thread and Tandem split-tree (if MPI gives MPI_THREAD_MULTIPLE; split uses
 * the split-tree model's S unless TANDEM_SPLIT_S is set). The
 * placement of the progress thread is the one of the run (TANDEM_PROGRESS_PLACEMENT): run once per
 * placement to compare them. In a job started with TANDEM_PROGRESS=dcp the Tandem modes are tandem-dcp
 * (and +test): dedicated collective processes serve the application ranks the benchmark runs on.
 *
 *   mpirun -np 2 tandem-bench --overlap [--collectives allreduce] [--sizes 8,1M] [--reps 5] [--csv FILE]
 *                             [--compute busy|sleep] [--tests 10] [--iters N] [--modes mpi,tandem-inline]
 * --compute sleep makes the "computation" a sleep, leaving the core idle: on a machine without a free
 * core per rank it emulates one for the progress thread (and says so in the output). Built for SMPI,
 * the computation is simulated time (smpi_execute_benched). --tests: test calls in the "+test" modes.
 */
#include "bench.h"

#include "../src/base/smpi_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { OV_MPI, OV_MPI_TEST, OV_MPI_BLOCKING, OV_INLINE, OV_INLINE_TEST, OV_THREAD, OV_SPLIT, OV_DCP, OV_DCP_TEST,
       OV_NMODES };
const char *const bench_overlap_modes[OV_NMODES] = {"mpi",           "mpi+test",           "mpi-blocking",
                                                    "tandem-inline", "tandem-inline+test", "tandem-thread",
                                                    "tandem-split",  "tandem-dcp",         "tandem-dcp+test"};
const int BENCH_OVERLAP_NMODES = OV_NMODES;
#define IS_MPI(mode) ((mode) <= OV_MPI_BLOCKING)
/* The computation is cut in this many pieces, with a test call after each, in the "+test" modes. */
static int test_calls = 10;
static const double tcomp_factors[] = {0, 0.25, 0.5, 1, 1.5, 2, 3, 4};
#define NPOINTS ((int)(sizeof tcomp_factors / sizeof tcomp_factors[0]))

static int rank, size;
static const char *unavailable_why[OV_NMODES]; /* per mode */

static double work_per_second; /* calibrated iterations of compute_work per second */
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

typedef struct {
    double start, test, wait, total; /* seconds per iteration, averaged: in the start call, in the test
                                      * calls, in the wait, and the whole iteration */
} sample;

/* What the application spends in the collective's calls: start, tests and wait. */
static double overhead_of(const sample *x) { return x->start + x->test + x->wait; }

static int start_op(int mode, const bench_collective *c, bench_buffers *b, TDM_Request *t, MPI_Request *m)
{
    if (mode == OV_MPI_BLOCKING)
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
    if (mode == OV_MPI_BLOCKING)
        return MPI_SUCCESS; /* done in the start */
    return IS_MPI(mode) ? MPI_Wait(m, MPI_STATUS_IGNORE) : TDM_Wait(t, MPI_STATUS_IGNORE);
}

/* One measurement: iters times start, compute `work` iterations, wait. The slowest rank's averages. */
static sample run_point(int mode, const bench_collective *c, bench_buffers *b, long work, int iters)
{
    int with_tests = mode == OV_MPI_TEST || mode == OV_INLINE_TEST || mode == OV_DCP_TEST;
    double in_start = 0, in_test = 0, in_wait = 0;
    TDM_Request treq = TDM_REQUEST_NULL;
    MPI_Request mreq = MPI_REQUEST_NULL;
    start_op(mode, c, b, &treq, &mreq); /* warm-up */
    wait_op(mode, &treq, &mreq);
    MPI_Barrier(bench_world);
    double t0 = MPI_Wtime();
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
            fprintf(stderr, "tandem-bench: %s (%s) failed: %s\n", c->name, bench_overlap_modes[mode],
                    IS_MPI(mode) ? "MPI error" : TDM_Last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        in_start += s - a;
        in_wait += e - w;
    }
    double mine[4] = {in_start / iters, in_test / iters, in_wait / iters, (MPI_Wtime() - t0) / iters}, slowest[4];
    MPI_Allreduce(mine, slowest, 4, MPI_DOUBLE, MPI_MAX, bench_world);
    return (sample){slowest[0], slowest[1], slowest[2], slowest[3]};
}

/* The computation's own time, alone (the slowest rank's), whole or cut as the "+test" modes cut it. */
static double compute_time(long work, int iters, int pieces)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < pieces; k++)
            compute_work(work / pieces);
    double mine = (MPI_Wtime() - t0) / iters, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, bench_world);
    return slowest;
}

static int set_mode_progress(int mode)
{
    if (mode == OV_DCP || mode == OV_DCP_TEST)
        return MPI_SUCCESS; /* chosen for the whole job at TDM_Init */
    return TDM_Set_progress(mode == OV_THREAD ? "thread" : mode == OV_SPLIT ? "split" : "inline");
}

static void overlap_one(const bench_collective *c, long bytes, const bench_options *o, FILE *csv, int cores,
                        int local, const int *available)
{
    bench_buffers b;
    bench_buffers_alloc(&b, c, bytes, size);
    int iters = (int)(16L * 1024 * 1024 / (bytes > 16384 ? bytes : 16384));
    iters = bench_iterations(o, iters > 200 ? 200 : iters < 8 ? 8 : iters);
    int reps = o->reps;

    /* pure latencies */
    double pure[OV_NMODES] = {0};
    for (int m = 0; m < OV_NMODES; m++) {
        if (!available[m])
            continue;
        set_mode_progress(m);
        double s[BENCH_MAX_REPS];
        for (int r = 0; r < reps; r++)
            s[r] = run_point(m, c, &b, 0, iters).total;
        pure[m] = bench_median(s, reps);
    }
    set_mode_progress(OV_MPI);
    /* Tcomp runs up to a few times the native latency (or the slowest latency measured, without it) */
    double ref = pure[OV_MPI];
    for (int m = 0; !available[OV_MPI] && m < OV_NMODES; m++)
        ref = pure[m] > ref ? pure[m] : ref;

    sample result[OV_NMODES][NPOINTS];
    double tcomp[NPOINTS], tcompute[NPOINTS][2]; /* [1]: cut in test_calls pieces */
    long work[NPOINTS];
    for (int p = 0; p < NPOINTS; p++) {
        tcomp[p] = tcomp_factors[p] * ref;
        work[p] = (long)(tcomp[p] * work_per_second);
        for (int cut = 0; cut < 2; cut++) {
            double s[BENCH_MAX_REPS];
            for (int r = 0; r < reps; r++)
                s[r] = compute_time(work[p], iters, cut ? test_calls : 1);
            tcompute[p][cut] = bench_median(s, reps);
        }
    }
    for (int m = 0; m < OV_NMODES; m++) {
        if (!available[m])
            continue;
        set_mode_progress(m);
        for (int p = 0; p < NPOINTS; p++) {
            double st[BENCH_MAX_REPS], te[BENCH_MAX_REPS], wt[BENCH_MAX_REPS], tt[BENCH_MAX_REPS];
            for (int r = 0; r < reps; r++) {
                sample x = run_point(m, c, &b, work[p], iters);
                st[r] = x.start, te[r] = x.test, wt[r] = x.wait, tt[r] = x.total;
            }
            result[m][p] = (sample){bench_median(st, reps), bench_median(te, reps), bench_median(wt, reps),
                                    bench_median(tt, reps)};
        }
    }
    set_mode_progress(OV_MPI);
    bench_buffers_free(&b);
    if (rank != 0)
        return;

    printf("\n%s, %ld bytes, %d ranks (%d on this node, %d cores); Tcomp up to %.3g s\n", c->name, bytes, size,
           local, cores, tcomp[NPOINTS - 1]);
    printf("  %-20s %12s %12s %12s %14s %12s %12s\n", "mode", "latency", "ovh@Tcomp=0", "ovh floor", "Tcomp@floor",
           "overlap@max", "total/mpi");
    for (int m = 0; m < OV_NMODES; m++) {
        if (!available[m]) {
            if (bench_mode_wanted(o, bench_overlap_modes[m]))
                printf("  %-20s (not available: %s)\n", bench_overlap_modes[m], unavailable_why[m]);
            continue;
        }
        double floor = 1e30;
        for (int p = 0; p < NPOINTS; p++) {
            double ovh = overhead_of(&result[m][p]);
            floor = ovh < floor ? ovh : floor;
        }
        int reached = NPOINTS - 1;
        for (int p = 0; p < NPOINTS; p++)
            if (overhead_of(&result[m][p]) <= floor * 1.1 + 50e-9) {
                reached = p;
                break;
            }
        double last_overlap = 0;
        int cut = m == OV_MPI_TEST || m == OV_INLINE_TEST || m == OV_DCP_TEST;
        for (int p = 0; p < NPOINTS; p++) {
            double ovh = overhead_of(&result[m][p]);
            double overlap = 100 * (1 - (result[m][p].total - tcompute[p][cut]) / pure[m]);
            overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
            if (p == NPOINTS - 1)
                last_overlap = overlap;
            if (csv)
                fprintf(csv, "%s,%ld,%d,%d,%d,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.2f,%.9g\n", c->name, bytes, size,
                        local, cores, bench_overlap_modes[m], tcomp[p], tcompute[p][cut], pure[m], result[m][p].start,
                        result[m][p].wait, ovh, result[m][p].total, overlap, result[m][p].test);
        }
        /* the worst ratio of the whole iteration (start, computation, wait) to native MPI's with the same
         * computation between its start and wait, over the points with some computation */
        double worst = 0;
        for (int p = 1; available[OV_MPI] && p < NPOINTS; p++)
            if (result[m][p].total / result[OV_MPI][p].total > worst)
                worst = result[m][p].total / result[OV_MPI][p].total;
        char ratio[32] = "-";
        if (worst > 0)
            snprintf(ratio, sizeof ratio, "%.2f", worst);
        printf("  %-20s %12.3g %12.3g %12.3g %14.3g %11.1f%% %12s\n", bench_overlap_modes[m], pure[m],
               overhead_of(&result[m][0]), floor, tcomp[reached], last_overlap, ratio);
    }
    fflush(stdout);
}

int bench_overlap(bench_options *o)
{
    MPI_Comm_rank(bench_world, &rank);
    MPI_Comm_size(bench_world, &size);
    /* the defaults (tandem_bench.c's --help says them too) */
    if (o->nsizes == 0) {
        o->sizes[0] = 8;
        o->sizes[1] = 1 << 20;
        o->nsizes = 2;
    }
    o->reps = o->reps ? o->reps : 5;
    if (!o->wanted[0])
        snprintf(o->wanted, sizeof o->wanted, "allreduce");
    o->csv_path = o->csv_path ? o->csv_path : "tandem-overlap.csv";
    test_calls = o->tests ? o->tests : test_calls;
    /* --compute was checked: busy or sleep, and not in simulation */
    compute_kind = TDM_SIMULATED                                ? COMPUTE_SIMULATED
                   : o->compute && !strcmp(o->compute, "sleep") ? COMPUTE_SLEEP
                                                                : COMPUTE_BUSY;
    if (!bench_modes_known(o, bench_overlap_modes, OV_NMODES, rank))
        return 2;
    int available[OV_NMODES], dcp = 0;
    MPI_Comm_compare(bench_world, MPI_COMM_WORLD, &dcp);
    dcp = dcp != MPI_IDENT; /* dcp progress: the application's world is not MPI's */
    int threads = !dcp && TDM_Set_progress("thread") == MPI_SUCCESS;
    if (!dcp)
        TDM_Set_progress("inline");
    for (int m = 0; m < OV_NMODES; m++) {
        int is_dcp = m == OV_DCP || m == OV_DCP_TEST, tandem = !IS_MPI(m), threaded = m == OV_THREAD || m == OV_SPLIT;
        unavailable_why[m] = is_dcp && !dcp    ? "start the job with TANDEM_PROGRESS=dcp"
                             : tandem && dcp   ? "dcp progress runs every Tandem collective of the job"
                             : TDM_SIMULATED   ? "SMPI cannot simulate threads"
                                               : "MPI does not provide MPI_THREAD_MULTIPLE";
        available[m] = bench_mode_wanted(o, bench_overlap_modes[m]) &&
                       (is_dcp ? dcp : !tandem || (!dcp && (threads || !threaded)));
    }
    calibrate();
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN), local = bench_ranks_on_node();
    FILE *csv = NULL;
    if (rank == 0) {
        const char *placement = getenv("TANDEM_PROGRESS_PLACEMENT");
        if (TDM_SIMULATED)
            printf("tandem-bench --overlap: %d ranks, SIMULATED by SimGrid's SMPI (simulated seconds)\n", size);
        else
            printf("tandem-bench --overlap: %d ranks, %d on this node with %d cores%s; progress placement %s\n", size,
                   local, cores, local > cores ? "  ** OVERSUBSCRIBED **" : "", placement ? placement : "none");
        bench_say_dcps(local, cores);
        printf("computation: %s\n",
               compute_kind == COMPUTE_SIMULATED ? "simulated time (smpi_execute_benched)"
               : compute_kind == COMPUTE_SLEEP   ? "SLEEP (the core stays idle: emulates a free core for the progress "
                                                   "thread; not a real computation)"
                                                 : "busy arithmetic on the application's core");
        printf("overhead = time in the start call + in the test calls + in the wait (medians over %d repetitions, "
               "slowest rank)\n",
               o->reps);
        csv = fopen(o->csv_path, "w");
        if (csv)
            fprintf(csv, "collective,bytes,ranks,ranks_per_node,cores,mode,tcomp_s,compute_s,pure_s,start_s,wait_s,"
                         "overhead_s,total_s,overlap_pct,test_s\n");
    }
    for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
        if (bench_wanted(o->wanted, bench_collectives[ci].name))
            for (int si = 0; si < o->nsizes; si++)
                overlap_one(&bench_collectives[ci], o->sizes[si], o, csv, cores, local, available);
    if (csv) {
        fclose(csv);
        printf("\nCSV: %s (plot: tools/plot_overlap.py %s overlap.png)\n", o->csv_path, o->csv_path);
    }
    return 0;
}

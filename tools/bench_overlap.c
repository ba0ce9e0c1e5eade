/*
 * tandem-bench --overlap: how much of a collective hides behind computation, measured the way the
 * OSU non-blocking collective benchmarks do.
 *
 * For each collective and size, every mode (bench_timed.c) first runs start + wait alone (its pure
 * latency). Then a computation of length Tcomp runs between start and wait, Tcomp swept from 0 to a few
 * times the native latency. Per point the application-side overhead (time inside the start call, the
 * test calls and the wait) and the total are measured, and
 *     overlap % = max(0, 100 * (1 - (t_total - t_compute) / t_pure))
 * with t_compute the computation's own time, measured alone. The placement of the progress thread is
 * the one of the run (TANDEM_PROGRESS_PLACEMENT): run once per placement to compare them.
 *
 *   mpirun -np 2 tandem-bench --overlap [--collectives allreduce] [--sizes 8,1M] [--reps 5] [--csv FILE]
 *                             [--compute busy|sleep] [--tests 10] [--iters N] [--modes mpi,tandem-inline]
 * --tests: test calls in the "+test" modes.
 */
#include "bench.h"

#include "../src/base/smpi_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The computation is cut in this many pieces, with a test call after each, in the "+test" modes. */
static int test_calls = 10;

static int rank, size;
static const char *unavailable_why[BENCH_NTIMED]; /* per mode */

static void overlap_one(const bench_collective *c, long bytes, const bench_options *o, FILE *csv, int cores,
                        int local, const int *available)
{
    static bench_sweep sweep; /* large: not on the stack */
    bench_sweep_run(c, bytes, o, available, test_calls, bench_sweep_factors, BENCH_SWEEP_POINTS, &sweep);
    const double *pure = sweep.pure, *tcomp = sweep.tcomp;
    double(*tcompute)[2] = sweep.tcompute;
    bench_sample(*result)[BENCH_SWEEP_POINTS] = sweep.result;
    if (rank != 0)
        return;

    printf("\n%s, %ld bytes, %d ranks (%d on this node, %d cores); Tcomp up to %.3g s\n", c->name, bytes, size,
           local, cores, tcomp[BENCH_SWEEP_POINTS - 1]);
    printf("  %-20s %12s %12s %12s %14s %12s %12s\n", "mode", "latency", "ovh@Tcomp=0", "ovh floor", "Tcomp@floor",
           "overlap@max", "total/mpi");
    for (int m = 0; m < BENCH_NTIMED; m++) {
        if (!available[m]) {
            if (bench_mode_wanted(o, bench_timed_modes[m]))
                printf("  %-20s (not available: %s)\n", bench_timed_modes[m], unavailable_why[m]);
            continue;
        }
        double floor = 1e30;
        for (int p = 0; p < BENCH_SWEEP_POINTS; p++) {
            double ovh = bench_sample_overhead(&result[m][p]);
            floor = ovh < floor ? ovh : floor;
        }
        int reached = BENCH_SWEEP_POINTS - 1;
        for (int p = 0; p < BENCH_SWEEP_POINTS; p++)
            if (bench_sample_overhead(&result[m][p]) <= floor * 1.1 + 50e-9) {
                reached = p;
                break;
            }
        double last_overlap = 0;
        int cut = bench_timed_with_tests(m);
        for (int p = 0; p < BENCH_SWEEP_POINTS; p++) {
            double ovh = bench_sample_overhead(&result[m][p]);
            double overlap = 100 * (1 - (result[m][p].total - tcompute[p][cut]) / pure[m]);
            overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
            if (p == BENCH_SWEEP_POINTS - 1)
                last_overlap = overlap;
            if (csv)
                fprintf(csv, "%s,%ld,%d,%d,%d,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.2f,%.9g\n", c->name, bytes, size,
                        local, cores, bench_timed_modes[m], tcomp[p], tcompute[p][cut], pure[m], result[m][p].start,
                        result[m][p].wait, ovh, result[m][p].total, overlap, result[m][p].test);
        }
        /* the worst ratio of the whole iteration (start, computation, wait) to native MPI's with the same
         * computation between its start and wait, over the points with some computation */
        double worst = 0;
        for (int p = 1; available[BENCH_MPI] && p < BENCH_SWEEP_POINTS; p++)
            if (result[m][p].total / result[BENCH_MPI][p].total > worst)
                worst = result[m][p].total / result[BENCH_MPI][p].total;
        char ratio[32] = "-";
        if (worst > 0)
            snprintf(ratio, sizeof ratio, "%.2f", worst);
        printf("  %-20s %12.3g %12.3g %12.3g %14.3g %11.1f%% %12s\n", bench_timed_modes[m], pure[m],
               bench_sample_overhead(&result[m][0]), floor, tcomp[reached], last_overlap, ratio);
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
    int available[BENCH_NTIMED];
    if (!bench_timed_setup(o, available, unavailable_why))
        return 2;
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
        printf("computation: %s\n", bench_compute_description());
        printf("overhead = time in the start call + in the test calls + in the wait (medians over %d repetitions, "
               "slowest rank;\nthe clock's own %.3g s per read taken out of every time)\n",
               o->reps, bench_clock_read());
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

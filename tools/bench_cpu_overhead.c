/*
 * tandem-bench --cpu-overhead: the CPU time a collective takes from the application's thread, against
 * the collective's time, as the case for non-blocking collectives measures it, for blocking MPI and for
 * Tandem under each agent.
 *
 * Two measures per mode, on the same sweep as --overlap (bench_timed.c):
 *   - the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over start + wait alone: the CPU time
 *     where the MPI blocks in the kernel while it waits, the whole latency where it spins;
 *   - the overlap method: a computation inserted between start and wait, Tcomp swept to 4 times MPI's
 *     latency; what the application still spends in the calls (start, tests, wait) once the
 *     computation hides the rest is the collective's CPU time on its thread (the overhead floor).
 *     The largest computation inserted before the iteration grows past the latency by 10% is reported
 *     beside it. A blocking call cannot overlap: its overlap method runs MPI's own non-blocking form
 *     with test calls (mpi+test).
 * The CPU overhead is the clock's where the thread slept in the calls (its CPU time under 90% of the
 * latency), else the overlap method's, but never more than the clock's (the table says which); its
 * share is that of the mode's latency. The model's CPU time (cpu_overhead.h) stands beside Tandem's
 * inline and dcp modes, for the algorithm the call ran, on the LogGP table of TANDEM_LOGGP's file or,
 * without TANDEM_LOGGP, on one this run measures first (model_setup).
 *
 *   mpirun -np 2 tandem-bench --cpu-overhead [--collectives allreduce,bcast] [--sizes 8,1K,64K,1M]
 *                             [--reps 5] [--modes ...] [--compute busy|sleep] [--tests 10] [--csv FILE]
 */
#include "bench.h"

#include "../src/base/smpi_support.h"
#include "../src/engine/node.h"
#include "../src/select/select_estimate.h"
#include "../src/model/loggp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const bench_cpu_default_modes = "mpi-blocking,mpi+test,tandem-inline+test,tandem-thread,tandem-split,"
                                            "tandem-dcp";

/* The computation is cut in this many pieces, with a test call after each, in the "+test" modes. */
static int test_calls = 10;
static int rank, size;
static const char *unavailable_why[BENCH_NTIMED];

/* The model's inputs: TANDEM_LOGGP's parameters and table (table.nsizes 0: no model column). */
static tdm_loggp model;
static tdm_loggp_params table;

/* Seconds per byte of a copy (memcpy) and of a reduction (MPI_Reduce_local, MPI_SUM on doubles) of
 * `bytes`, their buffers warm in the cache as a collective's are, run after run: medians of 7. The
 * table's gamma, over 16 MiB, is memory's speed; a vector of 1 MiB reduces twice as fast. */
static void measure_local(double bytes, double *copy, double *reduce)
{
    size_t n = bytes < 64 ? 64 : (size_t)bytes;
    char *a = malloc(n), *b = malloc(n);
    *copy = *reduce = 0;
    if (!a || !b) {
        free(a), free(b);
        return;
    }
    memset(a, 0, n), memset(b, 0, n);
    int runs = (int)(16e6 / (double)n) + 1;
    double c[7], r[7];
    for (int k = 0; k < 7; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < runs; i++)
            memcpy(b, a, n);
        double t1 = MPI_Wtime();
        for (int i = 0; i < runs; i++)
            MPI_Reduce_local(a, b, (int)(n / sizeof(double)), MPI_DOUBLE, MPI_SUM);
        double t2 = MPI_Wtime();
        c[k] = (t1 - t0) / runs / (double)n, r[k] = (t2 - t1) / runs / (double)n;
    }
    free(a), free(b);
    *copy = bench_median(c, 7), *reduce = bench_median(r, 7);
}

/* Tandem's own CPU time per call, its messages aside: on pairs of ranks (0 and 1, 2 and 3, ...), the
 * time in the calls of a barrier (a byte each way) against the same two messages bare (MPI_Irecv,
 * MPI_Isend, MPI_Testall), each call timed as the benchmark times them, with 2 us of computation
 * between the start and the test that finds the messages arrived: what Tandem's request, schedule and
 * engine add to the messages' own o_s and o_r. The difference of the medians of 7 runs of 200, the
 * slowest pair's. */
static double engine_call;

static double in_calls(int tandem, MPI_Comm pair, int peer)
{
    char token = 1, inbox = 0;
    double clock = bench_clock_read(), runs[7];
    for (int k = 0; k < 7; k++) {
        double in = 0;
        MPI_Barrier(pair);
        for (int i = 0; i < 200; i++) {
            TDM_Request req = TDM_REQUEST_NULL;
            MPI_Request q[2];
            MPI_Status st[2];
            int done = 0;
            double t = MPI_Wtime();
            if (tandem)
                TDM_Ibarrier(pair, &req);
            else
                MPI_Irecv(&inbox, 1, MPI_BYTE, peer, 0, pair, &q[0]), MPI_Isend(&token, 1, MPI_BYTE, peer, 0, pair, &q[1]);
            double s = MPI_Wtime(), until = s + 2e-6;
            in += s - t - clock;
            while (MPI_Wtime() < until) /* the computation: the messages arrive meanwhile */
                ;
            while (!done) {
                t = MPI_Wtime();
                if (tandem)
                    TDM_Test(&req, &done, MPI_STATUS_IGNORE);
                else
                    MPI_Testall(2, q, &done, st);
                in += MPI_Wtime() - t - clock;
            }
        }
        runs[k] = in / 200;
    }
    return bench_median(runs, 7);
}

static double measure_engine_call(void)
{
    MPI_Comm pair;
    MPI_Comm_split(bench_world, rank / 2, rank, &pair);
    int in_pair, me;
    MPI_Comm_size(pair, &in_pair);
    MPI_Comm_rank(pair, &me);
    TDM_Set_progress("inline");
    double mine = in_pair == 2 ? in_calls(1, pair, 1 - me) - in_calls(0, pair, 1 - me) : 0, slowest;
    MPI_Comm_free(&pair);
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, bench_world);
    return slowest > 0 ? slowest : 0;
}

/* Where the model's table came from: TANDEM_LOGGP's file, or measured by this run. */
static int table_measured_here;

/* The model's parameters: TANDEM_LOGGP's, as the library read them (its schedules are built with them),
 * and the table of its file. Without TANDEM_LOGGP, the table is measured here first, between ranks 0
 * and 1 as tandem-model loggp measures it: seconds before the sweep, in this process, at its thread
 * level (this machine's speed changes by minutes, and a table measured apart may not match). */
static void model_setup(int inline_available)
{
    const char *setting = getenv("TANDEM_LOGGP");
    model = tdm_loggp_defaults();
    table.nsizes = 0;
    if (!setting || !*setting) {
        double sizes[TDM_LOGGP_MAX_SIZES];
        int n = tdm_loggp_default_sizes(sizes);
        table_measured_here = size >= 2 && !TDM_SIMULATED &&
                              tdm_loggp_prtt_measure(bench_world, 21, 16, sizes, n, &table) == MPI_SUCCESS;
        if (!table_measured_here)
            table.nsizes = 0;
    } else if (tdm_loggp_parse_setting(setting, &model)) {
        FILE *in = fopen(setting, "r"); /* a file of tandem-model loggp --save: its table */
        if (in && !tdm_loggp_prtt_read(in, &table))
            table.nsizes = 0;
        if (in)
            fclose(in);
    }
    if (table.nsizes && inline_available)
        engine_call = measure_engine_call();
}

/* The algorithm Tandem runs this call with (one call, inline). */
static void tandem_algorithm(const bench_collective *c, long bytes, char *out, size_t len)
{
    bench_buffers b;
    TDM_Request req;
    snprintf(out, len, "?");
    bench_buffers_alloc(&b, c, bytes, size);
    if (bench_start_tandem(c, &b, &req) == MPI_SUCCESS) {
        snprintf(out, len, "%s", TDM_Request_algorithm(req));
        TDM_Wait(&req, MPI_STATUS_IGNORE);
    }
    bench_buffers_free(&b);
}

/* A thread whose CPU clock ran this share of the latency or more spun while it waited. */
#define SPINS 0.9

typedef struct {
    double latency, cpu_clock, floor, hidden, overhead, model;
    const char *method;
} cpu_row;

static cpu_row row_of(const bench_sweep *s, int m, const int *available)
{
    cpu_row r = {.latency = s->pure[m], .cpu_clock = s->pure_cpu[m], .model = -1};
    /* a blocking call's overlap method is MPI's non-blocking form with tests */
    int ovl = m == BENCH_MPI_BLOCKING ? BENCH_MPI_TEST : m;
    r.floor = -1;
    if (available[ovl]) {
        r.floor = 1e30;
        for (int p = 0; p < s->npoints; p++) {
            double ovh = bench_sample_overhead(&s->result[ovl][p]);
            r.floor = ovh < r.floor ? ovh : r.floor;
            if (s->result[ovl][p].total <= 1.1 * s->pure[ovl])
                r.hidden = s->tcomp[p];
        }
    }
    /* the clock where the thread slept in the calls (the MPI blocks), the overlap method where it spun,
     * at most the clock (a spinning blocking call whose non-blocking form costs more: all its time) */
    int by_clock = r.cpu_clock > 0 && (r.floor < 0 || r.cpu_clock < SPINS * r.latency || r.cpu_clock < r.floor);
    r.overhead = by_clock ? r.cpu_clock : r.floor;
    r.method = by_clock ? "cpu clock" : ovl == m ? "overlap" : "overlap (mpi+test)";
    return r;
}

static void cpu_one(const bench_collective *c, long bytes, const bench_options *o, FILE *csv, const int *available)
{
    static bench_sweep sweep; /* large: not on the stack */
    char algorithm[64] = "-";
    if (available[BENCH_INLINE_TEST] || available[BENCH_DCP] || available[BENCH_DCP_TEST])
        tandem_algorithm(c, bytes, algorithm, sizeof algorithm);
    /* simulated time has no noise: fewer points find the same floor, in a fraction of the wall time */
    static const double simulated[] = {0, 0.5, 1, 4};
    long by_segment = 0, by_message = 0, segment_after = 0, message_after = 0; /* dcp progress: the hand-offs */
    TDM_Get_dcp_handoffs(&by_segment, &by_message);
    if (TDM_SIMULATED)
        bench_sweep_run(c, bytes, o, available, test_calls, simulated, 4, &sweep);
    else
        bench_sweep_run(c, bytes, o, available, test_calls, bench_sweep_factors, BENCH_SWEEP_POINTS, &sweep);
    TDM_Get_dcp_handoffs(&segment_after, &message_after);
    int through_segment = segment_after - by_segment > message_after - by_message; /* (most of the calls) */
    if (rank != 0)
        return;
    /* the model, rank 0 alone (it builds every rank's schedule), of the algorithm the call ran: its name
     * less the collective's ("allreduce_ring": ring), or the library's choice (dcp progress) */
    tdm_cpu_estimate e = {0};
    double copy = 0, reduce = 0; /* per byte, over this rank's vector */
    if (table.nsizes)
        measure_local((double)bytes * (c->per_rank_blocks ? size : 1), &copy, &reduce);
    tdm_cpu_costs costs = {reduce, copy, engine_call, TDM_DEFAULT_EAGER_LIMIT};
    size_t prefix = strlen(c->name);
    const char *ran = !strncmp(algorithm, c->name, prefix) && algorithm[prefix] == '_' ? algorithm + prefix + 1 : NULL;
    if (ran && !strcmp(ran, "dcp")) /* through DCPs: the application's messages, whatever they run */
        ran = NULL;
    int modelled = table.nsizes && tdm_select_estimate(c->name, ran, size, tdm_node_size(), (double)bytes, &model,
                                                       NULL, &table, &costs, NULL, &e) == MPI_SUCCESS;
    printf("\n%s, %ld bytes, %d ranks; Tandem's algorithm %s", c->name, bytes, size, algorithm);
    if (modelled)
        printf("; model: %s, copy %.3g and reduction %.3g s/B here", e.algorithm, copy, reduce);
    printf("\n");
    printf("  %-20s %11s %11s %11s %11s %11s %-19s %7s %11s %7s\n", "mode", "latency", "cpu clock", "ovh floor",
           "hidden comp", "cpu ovh", "method", "share", "model cpu", "share");
    for (int m = 0; m < BENCH_NTIMED; m++) {
        if (!available[m]) {
            if (bench_mode_wanted(o, bench_timed_modes[m]))
                printf("  %-20s (not available: %s)\n", bench_timed_modes[m], unavailable_why[m]);
            continue;
        }
        cpu_row r = row_of(&sweep, m, available);
        if (modelled && (m == BENCH_INLINE || m == BENCH_INLINE_TEST))
            r.model = e.most;
        if (modelled && (m == BENCH_DCP || m == BENCH_DCP_TEST))
            r.model = through_segment ? e.through_dcp_segment : e.through_dcp;
        char clock[24] = "-", floor[24] = "-", hidden[24] = "-", modelled_cpu[24] = "-", model_share[16] = "-";
        if (r.cpu_clock > 0)
            snprintf(clock, sizeof clock, "%.3g", r.cpu_clock);
        if (r.floor >= 0)
            snprintf(floor, sizeof floor, "%.3g", r.floor), snprintf(hidden, sizeof hidden, "%.3g", r.hidden);
        if (r.model >= 0) {
            snprintf(modelled_cpu, sizeof modelled_cpu, "%.3g", r.model);
            if (e.latency > 0 && (m == BENCH_INLINE || m == BENCH_INLINE_TEST)) /* (the DCPs' latency is not costed) */
                snprintf(model_share, sizeof model_share, "%.1f%%", 100 * r.model / e.latency);
        }
        printf("  %-20s %11.3g %11s %11s %11s %11.3g %-19s %6.1f%% %11s %7s\n", bench_timed_modes[m], r.latency, clock,
               floor, hidden, r.overhead, r.method, 100 * r.overhead / r.latency, modelled_cpu, model_share);
        if (csv)
            fprintf(csv, "%s,%ld,%d,%s,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%.6f,%.9g,%.9g\n", c->name, bytes, size,
                    bench_timed_modes[m], algorithm, r.latency, r.cpu_clock, r.floor, r.hidden, r.overhead, r.method,
                    r.overhead / r.latency, r.model,
                    modelled && r.model >= 0 && (m == BENCH_INLINE || m == BENCH_INLINE_TEST) ? e.latency : -1);
    }
    fflush(stdout);
}

int bench_cpu_overhead(bench_options *o)
{
    MPI_Comm_rank(bench_world, &rank);
    MPI_Comm_size(bench_world, &size);
    /* the defaults (tandem_bench.c's --help says them too) */
    if (o->nsizes == 0) {
        const long sizes[] = {8, 1024, 65536, 1 << 20};
        memcpy(o->sizes, sizes, sizeof sizes);
        o->nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    }
    o->reps = o->reps ? o->reps : 5;
    if (!o->wanted[0])
        snprintf(o->wanted, sizeof o->wanted, "allreduce,bcast,allgather,alltoall");
    if (!o->modes[0])
        snprintf(o->modes, sizeof o->modes, "%s", bench_cpu_default_modes);
    o->csv_path = o->csv_path ? o->csv_path : "tandem-cpu-overhead.csv";
    test_calls = o->tests ? o->tests : test_calls;
    int available[BENCH_NTIMED];
    if (!bench_timed_setup(o, available, unavailable_why))
        return 2;
    model_setup(available[BENCH_INLINE] || available[BENCH_INLINE_TEST]);
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN), local = bench_ranks_on_node();
    FILE *csv = NULL;
    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int vlen;
        MPI_Get_library_version(version, &vlen);
        char *nl = strchr(version, '\n');
        if (nl)
            *nl = '\0';
        if (TDM_SIMULATED)
            printf("tandem-bench --cpu-overhead: %d ranks, SIMULATED by SimGrid's SMPI (simulated seconds; no CPU "
                   "clock: the overlap method only)\n", size);
        else
            printf("tandem-bench --cpu-overhead: %d ranks, %d on this node with %d cores%s\n", size, local, cores,
                   local > cores ? "  ** OVERSUBSCRIBED **" : "");
        bench_say_dcps(local, cores);
        printf("MPI: %s\ncomputation: %s\n", version, bench_compute_description());
        printf("seconds per call, medians over %d repetitions, slowest rank, less the clock's own %.3g s per read;\n"
               "cpu ovh = the thread's CPU clock in start + wait where it slept, else the overhead floor under\n"
               "computation; share = cpu ovh / latency\n",
               o->reps, bench_clock_read());
        if (table.nsizes)
            printf("model: CPU time of Tandem's schedules, o_s and o_r per message from %s, copies\n"
                   "and reductions at the speed measured here on the call's vector, %.3g s per call (Tandem's own: the\n"
                   "time in a barrier's calls less in the same messages' bare, on pairs of ranks); share of the model's\n"
                   "latency (every rank's rounds replayed on the table)\n",
                   table_measured_here ? "a LogGP table measured by this run (TANDEM_LOGGP unset)" : "TANDEM_LOGGP's table",
                   engine_call);
        else
            printf("model: none (TANDEM_LOGGP names no table of tandem-model loggp --save%s)\n",
                   TDM_SIMULATED ? "; a simulated run measures none itself" : "");
        csv = fopen(o->csv_path, "w");
        if (!csv)
            fprintf(stderr, "tandem-bench: cannot write %s\n", o->csv_path);
        else
            fprintf(csv, "collective,bytes,ranks,mode,algorithm,latency_s,cpu_clock_s,overhead_floor_s,hidden_s,"
                         "cpu_overhead_s,method,share,model_cpu_s,model_latency_s\n");
    }
    for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
        if (bench_wanted(o->wanted, bench_collectives[ci].name))
            for (int si = 0; si < o->nsizes; si++)
                cpu_one(&bench_collectives[ci], o->sizes[si], o, csv, available);
    if (csv) {
        fclose(csv);
        printf("\nCSV: %s (plot: tools/plot_cpu_overhead.py %s cpu-overhead.png)\n", o->csv_path, o->csv_path);
    }
    return 0;
}

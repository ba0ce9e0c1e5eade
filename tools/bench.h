/* tandem-bench's parts: the latency table (tandem_bench.c), the overlap sweep (bench_overlap.c), the
 * CPU overhead (bench_cpu_overhead.c), the placement report (bench_placement.c), and what they share:
 * the collectives, their buffers and small helpers (bench_collectives.c), and a collective timed with
 * computation between its start and wait (bench_timed.c). */
#ifndef TANDEM_BENCH_H
#define TANDEM_BENCH_H

#include "tandem.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct {
    const char *name;
    int per_rank_blocks; /* buffers hold one block per rank */
    int reduction;       /* doubles and MPI_SUM, else bytes */
} bench_collective;

/* The ranks the benchmark runs on: TDM_Comm_world(), the application's (MPI_COMM_WORLD but in dcp
 * progress, whose dedicated collective processes never return from TDM_Init). */
extern MPI_Comm bench_world;

extern const bench_collective bench_collectives[];
extern const int BENCH_NCOLLECTIVES;

typedef struct {
    void *send, *recv;
    int count; /* elements: doubles for reductions, bytes otherwise */
    MPI_Datatype type;
    int *counts, *displs; /* the v-forms': count from and to each rank, at count * rank */
} bench_buffers;

/* Size: the whole vector for bcast and the reductions, one rank's block for the others (as OSU). */
void bench_buffers_alloc(bench_buffers *b, const bench_collective *c, long bytes, int ranks);
void bench_buffers_free(bench_buffers *b);

int bench_start_tandem(const bench_collective *c, bench_buffers *b, TDM_Request *req);
int bench_start_mpi(const bench_collective *c, bench_buffers *b, MPI_Request *req);
int bench_run_blocking(const bench_collective *c, bench_buffers *b);
/* Runs one of Tandem's blocking collectives (TDM_Allreduce, ...). */
int bench_run_tandem_blocking(const bench_collective *c, bench_buffers *b);

/* The parts of tandem-bench; --overlap and --show-placement choose one, the latency table is the default. */
typedef enum { BENCH_LATENCY = 1, BENCH_OVERLAP = 2, BENCH_PLACEMENT = 4, BENCH_CPU = 8 } bench_part;

/* What the options ask for (tandem_bench.c parses them). A field left unset (0, empty, NULL) takes the
 * default of the part that runs. */
typedef struct {
    bench_part part;
    int help;         /* --help: print the options and exit */
    long sizes[32];
    int nsizes, reps;
    char wanted[256]; /* comma-separated collectives */
    const char *csv_path;
    int iters;        /* --iters: iterations per repetition; 0: chosen from the size */
    char modes[256];  /* --modes: comma-separated modes to measure; empty: all */
    int warmup;       /* latency table: --warmup, untimed runs before a repetition; -1: unset */
    const char *compute; /* --overlap, --cpu-overhead: busy or sleep */
    int tests;        /* --overlap, --cpu-overhead: test calls during the computation */
} bench_options;

#define BENCH_MAX_REPS 64

/* name is in the comma-separated list */
int bench_wanted(const char *list, const char *name);
/* the mode is to be measured (--modes names it, or --modes was not given) */
int bench_mode_wanted(const bench_options *o, const char *mode);
/* every mode --modes names is one of the `n` known ones; else says which is not (rank 0) and 0 */
int bench_modes_known(const bench_options *o, const char *const *known, int n, int rank);
/* --iters if given, else `automatic` */
int bench_iterations(const bench_options *o, int automatic);
/* 8, 64K, 1M: 1 if text is a size from 1 byte to 2047M */
int bench_parse_size(const char *text, long *bytes);
int bench_ranks_on_node(void);
/* In dcp progress, a line on the dedicated collective processes beside the ranks measured (rank 0). */
void bench_say_dcps(int local, int cores);
int bench_cmp_double(const void *a, const void *b);
double bench_median(double *values, int n); /* sorts values */

int bench_show_placement(void);
/* tandem-bench --overlap: see bench_overlap.c */
int bench_overlap(bench_options *o);
/* tandem-bench --cpu-overhead: see bench_cpu_overhead.c */
int bench_cpu_overhead(bench_options *o);
extern const char *const bench_cpu_default_modes;

/* A collective timed with a computation between its start and its wait (bench_timed.c), under each
 * mode of --overlap and --cpu-overhead. */
enum { BENCH_MPI, BENCH_MPI_TEST, BENCH_MPI_BLOCKING, BENCH_INLINE, BENCH_INLINE_TEST, BENCH_THREAD, BENCH_SPLIT,
       BENCH_DCP, BENCH_DCP_TEST, BENCH_NTIMED };
extern const char *const bench_timed_modes[BENCH_NTIMED];

typedef struct {
    double start, test, wait, total; /* seconds per iteration, averaged: in the start call, in the test
                                      * calls, in the wait, and the whole iteration */
    double cpu;                      /* the calling thread's CPU seconds per iteration (0 in simulation) */
    double overhead;                 /* start + test + wait (each field is the slowest rank's: this sum
                                      * too, not the sum of the fields) */
} bench_sample;

/* What the application spends in the collective's calls: start, tests and wait. */
double bench_sample_overhead(const bench_sample *x);
/* the mode calls test within the computation ("+test") */
int bench_timed_with_tests(int mode);
int bench_timed_is_tandem(int mode);
/* Sets the computation up (o->compute) and calibrates it; says which modes run (--modes, and what this
 * job can: threads, dcp progress) and why the others cannot. 0 if --modes names an unknown mode (said). */
int bench_timed_setup(const bench_options *o, int available[BENCH_NTIMED], const char *why[BENCH_NTIMED]);
/* Seconds per MPI_Wtime call, measured by bench_timed_setup (clock_cost.h): taken out of the times. */
double bench_clock_read(void);
/* The computation of `seconds` on this core, in its calibrated units. */
long bench_work_for(double seconds);
const char *bench_compute_description(void);
/* Makes the mode's agent Tandem's progress (inline, thread, split; dcp is the job's). */
int bench_timed_progress(int mode);
/* iters times: start, compute `work` (cut in test_calls pieces with a test after each in the "+test"
 * modes), wait; after a warm-up. The slowest rank's averages, less the clock's own cost (the reads that
 * time each call). */
bench_sample bench_timed_point(int mode, const bench_collective *c, bench_buffers *b, long work, int iters,
                               int test_calls);
/* The computation's own time, alone (the slowest rank's), whole or cut in `pieces`. */
double bench_compute_time(long work, int iters, int pieces);

/* One collective and size under every available mode: start + wait alone, then with a computation of
 * Tcomp between them, Tcomp = factors[p] times native MPI's latency (or the slowest mode's, without it),
 * at most BENCH_SWEEP_POINTS of them. Medians over o->reps repetitions of the slowest rank's averages. */
#define BENCH_SWEEP_POINTS 8
extern const double bench_sweep_factors[BENCH_SWEEP_POINTS]; /* 0 to 4: --overlap's */
typedef struct {
    int npoints;
    double pure[BENCH_NTIMED], pure_cpu[BENCH_NTIMED]; /* start + wait alone: seconds, thread CPU seconds */
    double tcomp[BENCH_SWEEP_POINTS];                  /* the computation asked for */
    double tcompute[BENCH_SWEEP_POINTS][2];            /* its own time, alone: whole, cut for the +test modes */
    bench_sample result[BENCH_NTIMED][BENCH_SWEEP_POINTS];
} bench_sweep;
void bench_sweep_run(const bench_collective *c, long bytes, const bench_options *o, const int *available,
                     int test_calls, const double *factors, int npoints, bench_sweep *out);

#endif

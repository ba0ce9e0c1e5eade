/*
 * What the three applications (tandem-fft3d, tandem-pcompress, tandem-cg) share on their command line:
 * the variant, the pattern's tile and window (numbers or auto), the repetitions; errors said once, by
 * rank 0, and every rank leaving with status 1; the median of repetitions and the timing table.
 */
#ifndef TANDEM_APP_CLI_H
#define TANDEM_APP_CLI_H

#include <mpi.h>
#include <stddef.h>

typedef struct app_common {
    const char *program;
    int pipelined;   /* --variant: 0 the blocking (classic) one, 1 the pipelined one */
    int tile, window; /* 0: auto */
    int tune;        /* --tune: the pattern's on-line tuner */
    int reps;
    const char *csv; /* --csv FILE: the table's row also written there (rank 0) */
} app_common;

/* The ranks of the application (TDM_Comm_world()); set by app_start. */
extern MPI_Comm app_comm;
extern int app_rank, app_size;

/* TDM_Init, the communicator, common defaults (reps 1, auto tile and window). */
void app_start(app_common *c, const char *program, int *argc, char ***argv);
/* Takes argv[*i] if it is one of the common options (advancing *i past its value): 1, else 0. An
 * unknown value fails the program (app_fail). pipelined_name: "pipelined"; blocking_name: "blocking" or
 * "classic". */
int app_common_option(app_common *c, int argc, char **argv, int *i, const char *blocking_name);
/* The value of option argv[*i], advancing *i; fails if there is none. */
const char *app_value(const app_common *c, int argc, char **argv, int *i);
/* A whole number from min to max, or fails naming the option. */
long app_number(const app_common *c, const char *option, const char *value, long min, long max);

/* Large arrays: SMPI's shared memory when kernels are sampled (the data are not computed then, and
 * hundreds of simulated ranks would not fit), else malloc. */
void *app_alloc(size_t bytes);
void app_free(void *p);

/* Every rank: rank 0 prints "program: message" on stderr; all finalize and exit with status 1. Call it
 * on every rank (errors known to one rank only: app_agree first). */
__attribute__((noreturn, format(printf, 2, 3))) void app_fail(const app_common *c, const char *fmt, ...);
/* An error known on some ranks: the message of the lowest rank that has one is printed (by that rank)
 * and every rank exits with status 1. No-op when no rank has one. message may be NULL (no error). */
void app_agree(const app_common *c, const char *message);

/* Rank `rank`'s block of n indices over size ranks: [*first, *first + *count), the first n % size ranks
 * one more. */
void app_block_of(int n, int size, int rank, int *first, int *count);

/* The progress agent the library runs (TANDEM_PROGRESS, else inline). */
const char *app_progress_name(void);
double app_median(const double *values, int n);
/* The largest value over the ranks. */
double app_max(double mine);

/* The timing table's rows, printed by rank 0. */
void app_table_header(void);
void app_table_row(const app_common *c, const char *variant, int tile, int window, double total, double compute,
                   double overhead);
void app_finish(void);

#endif

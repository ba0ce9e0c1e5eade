/*
 * tandem-bench: latency of start + wait for each collective and message size, Tandem beside native
 * MPI (MPI_Ixxx + MPI_Wait, and blocking MPI_Xxx) in the same run. The three are interleaved within
 * every repetition (A B C A B C ...) on the same buffers and ranks; each repetition times many
 * iterations after a warm-up, the slowest rank's time counts, and the table reports the median (with
 * min and max) over repetitions and the ratio Tandem / best native. One CSV row per measurement.
 *
 *   mpirun -np 2 tandem-bench [--quick] [--collectives allreduce,bcast] [--sizes 8,1M] [--reps 7]
 *                             [--iters N] [--warmup N] [--modes tandem,mpi-blocking] [--csv FILE]
 *   mpirun -np 2 tandem-bench --mpi-thread single ...   (MPI initialized with MPI_THREAD_SINGLE first)
 *   mpirun -np 2 tandem-bench --algorithms ring,torus_bucket ...   (those Tandem algorithms forced, each
 *                             interleaved with the rest, beside Tandem's own choice)
 *   mpirun -np 2 tandem-bench --show-placement   (where ranks and progress threads run)
 *   mpirun -np 2 tandem-bench --overlap ...      (overhead and overlap against computation: bench_overlap.c)
 *   mpirun -np 2 tandem-bench --cpu-overhead ... (the CPU time a collective takes: bench_cpu_overhead.c)
 *   tandem-bench --help                          (every option, from the table the parser reads)
 *
 * Size: the whole vector for bcast and the reductions, one rank's block for the gather/scatter/all*
 * collectives (as in the OSU benchmarks).
 *
 * --algorithms: is Tandem's choice the best of its algorithms? Compared across launches the answer is
 * this machine's speed of the moment (the same forced ring measured 0.62 and 0.92 of native in two
 * launches), so each named algorithm is forced (TDM_Set_algorithm) and timed as a mode of its own,
 * interleaved with the others; the tandem column is then always the automatic choice ("auto", whatever
 * TANDEM_<COLLECTIVE> says), and a row per forced algorithm gives its time and the choice's time over
 * it. A name that no collective measured knows is an error; one that a collective does not know is
 * skipped for it.
 */
#include "bench.h"
#include "mpi_thread_option.h"

#include "../src/base/smpi_support.h"
#include "../src/model/collective_costs.h"
#include "../src/model/loggp.h"

#include <errno.h>
#ifndef TANDEM_SMPI /* smpicc's malloc is a macro that malloc.h cannot declare */
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MODE_TANDEM, MODE_TANDEM_BLOCKING, MODE_NATIVE_NB, MODE_NATIVE_BLOCKING, NMODES };
static const char *mode_names[NMODES] = {"tandem", "tandem-blocking", "mpi-nonblocking", "mpi-blocking"};

/* --algorithms: modes NMODES + i force forced[i] (for the collectives that know it) */
#define MAX_FORCED 8
static char forced_list[256];
static const char *forced[MAX_FORCED];
static int nforced;

static int rank, size;

/* The model column: from this size up, with the parameters the library uses (TANDEM_LOGGP or its
 * defaults), on the torus the library would use for the application's world. */
#define MODEL_FROM_BYTES (1 << 20)
static tdm_loggp loggp;
static tdm_torus torus;

static void model_setup(void)
{
    const char *setting = getenv("TANDEM_LOGGP"), *dims = getenv("TANDEM_TORUS_DIMS");
    loggp = tdm_loggp_defaults();
    if (setting && *setting)
        tdm_loggp_parse_setting(setting, &loggp); /* TDM_Init has refused a malformed one */
    if (!dims || !tdm_torus_parse(dims, &torus) || tdm_torus_ranks(&torus) != size) {
        torus.ndims = 2;
        torus.dims[0] = torus.dims[1] = 0;
        MPI_Dims_create(size, 2, torus.dims);
    }
    torus.bidirectional = 1;
}

/* The mode runs Tandem's non-blocking call and its wait: its own choice, or an algorithm --algorithms
 * forces. */
static int is_tandem(int mode) { return mode == MODE_TANDEM || mode >= NMODES; }
static int is_blocking(int mode) { return mode == MODE_NATIVE_BLOCKING || mode == MODE_TANDEM_BLOCKING; }

/* Starts (or, for the blocking modes, runs) one collective. */
static int run_once(const bench_collective *c, int mode, bench_buffers *b, TDM_Request *treq, MPI_Request *mreq)
{
    if (is_tandem(mode))
        return bench_start_tandem(c, b, treq);
    if (mode == MODE_NATIVE_NB)
        return bench_start_mpi(c, b, mreq);
    if (mode == MODE_TANDEM_BLOCKING)
        return bench_run_tandem_blocking(c, b);
    return bench_run_blocking(c, b);
}

static int start_and_wait(const bench_collective *c, int mode, bench_buffers *b)
{
    TDM_Request treq;
    MPI_Request mreq;
    int rc = run_once(c, mode, b, &treq, &mreq);
    if (rc != MPI_SUCCESS || is_blocking(mode))
        return rc;
    return mode == MODE_NATIVE_NB ? MPI_Wait(&mreq, MPI_STATUS_IGNORE) : TDM_Wait(&treq, MPI_STATUS_IGNORE);
}

static const char *mode_name(int mode) { return mode < NMODES ? mode_names[mode] : forced[mode - NMODES]; }

/* With --algorithms, the algorithm a Tandem mode runs: the forced one, or the automatic choice. A
 * change expires the cached schedules: the warm-up runs rebuild them. */
static void choose_algorithm(const bench_collective *c, int mode)
{
    if (nforced > 0 && is_tandem(mode))
        TDM_Set_algorithm(c->name, mode == MODE_TANDEM ? "auto" : forced[mode - NMODES]);
}

/* Seconds per operation over `iters` iterations after `warmup` untimed ones, the slowest rank's. */
static double time_mode(const bench_collective *c, int mode, bench_buffers *b, int iters, int warmup)
{
    choose_algorithm(c, mode);
    for (int i = 0; i < warmup; i++)
        start_and_wait(c, mode, b);
    MPI_Barrier(bench_world);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        if (start_and_wait(c, mode, b) != MPI_SUCCESS) {
            fprintf(stderr, "tandem-bench: %s (%s) failed: %s\n", c->name, mode_name(mode),
                    is_tandem(mode) || mode == MODE_TANDEM_BLOCKING ? TDM_Last_error() : "MPI error");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    double mine = (MPI_Wtime() - t0) / iters, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, bench_world);
    return slowest;
}

/* The algorithm this Tandem mode's call gets (a forced one may hand the call to a fallback). */
static void tandem_algorithm(const bench_collective *c, int mode, bench_buffers *b, char *out, size_t len)
{
    TDM_Request req;
    snprintf(out, len, "?");
    choose_algorithm(c, mode);
    if (run_once(c, mode, b, &req, NULL) != MPI_SUCCESS)
        return;
    snprintf(out, len, "%s", TDM_Request_algorithm(req));
    TDM_Wait(&req, MPI_STATUS_IGNORE);
}

/* --algorithms: the collective has an algorithm of that name (TDM_Algorithm_names, "auto" aside) */
static int knows(const bench_collective *c, const char *algorithm)
{
    const char *names = TDM_Algorithm_names(c->name);
    size_t len = strlen(algorithm);
    for (const char *p = names; p && *p; p += strcspn(p, " "), p += *p == ' ')
        if (strncmp(p, algorithm, len) == 0 && (p[len] == ' ' || p[len] == '\0'))
            return strcmp(algorithm, "auto") != 0;
    return 0;
}

/* Every --algorithms name is known to a collective measured; else says which is not (rank 0). */
static int forced_names_known(const bench_options *o)
{
    for (int f = 0; f < nforced; f++) {
        int known = 0;
        for (int ci = 0; ci < BENCH_NCOLLECTIVES && !known; ci++)
            known = bench_wanted(o->wanted, bench_collectives[ci].name) && knows(&bench_collectives[ci], forced[f]);
        if (!known) {
            if (rank == 0) {
                fprintf(stderr, "tandem-bench: --algorithms: no collective measured has an algorithm '%s'; known:\n",
                        forced[f]);
                for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
                    if (bench_wanted(o->wanted, bench_collectives[ci].name))
                        fprintf(stderr, "  %s: %s\n", bench_collectives[ci].name,
                                TDM_Algorithm_names(bench_collectives[ci].name));
            }
            return 0;
        }
    }
    return 1;
}

/* Below a row, the forced algorithms': time, ratio to the best native, and the automatic choice's
 * time over theirs (above 1: the forced one was faster). */
static void print_forced(const int *measured, const double *med, const double *lo,
                         const double *hi, double best, char (*alg)[64])
{
    for (int f = 0; f < nforced; f++) {
        int m = NMODES + f;
        if (!measured[m])
            continue;
        char cell[64];
        snprintf(cell, sizeof cell, "%.3g (%.3g..%.3g)", med[m], lo[m], hi[m]);
        printf("%-21s %9s  %-28s %-28s %-28s %6.2f  choice/this %.2f  %s\n", "", "forced", forced[f], "", cell,
               best > 0 ? med[m] / best : 0.0, med[MODE_TANDEM] / med[m], alg[m]);
    }
}

/*
 * The options: one table, which the parser reads and --help prints, so that the help lists exactly
 * what the parser accepts. A setter checks its value and says what is wrong, naming the option.
 */
typedef struct {
    const char *name, *alias;
    const char *value;   /* its argument, as --help shows it; NULL: a flag */
    unsigned parts;      /* the bench_parts that take it */
    int (*set)(bench_options *o, const char *name, const char *value); /* 0: a bad value, said */
    const char *help;    /* what it does and its default, in one line */
} bench_option;

#define ALL_PARTS (BENCH_LATENCY | BENCH_OVERLAP | BENCH_PLACEMENT | BENCH_CPU)
#define TIMED_PARTS (BENCH_OVERLAP | BENCH_CPU) /* a computation between start and wait */

/* An error of the options, said once (all ranks parse the same arguments and stop alike). */
static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...)
{
    if (rank != 0)
        return;
    va_list args;
    va_start(args, format);
    fprintf(stderr, "tandem-bench: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
}

static int count_value(const char *name, const char *value, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < lo || v > hi) {
        say("%s wants a count from %ld to %ld, not '%s'", name, lo, hi, value);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int set_help(bench_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    o->help = 1;
    return 1;
}

/* main has taken a leading --mpi-thread single already: one met here is misplaced or misspelled */
static int set_mpi_thread(bench_options *o, const char *name, const char *value)
{
    (void)o;
    char why[128];
    tdm_mpi_thread_misplaced(name, value, why, sizeof why);
    say("%s", why);
    return 0;
}

static int set_part(bench_options *o, bench_part part)
{
    if (o->part != BENCH_LATENCY && o->part != part) {
        say("--overlap, --cpu-overhead and --show-placement exclude each other");
        return 0;
    }
    o->part = part;
    return 1;
}

static int set_overlap(bench_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    return set_part(o, BENCH_OVERLAP);
}

static int set_cpu_overhead(bench_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    return set_part(o, BENCH_CPU);
}

static int set_show_placement(bench_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    return set_part(o, BENCH_PLACEMENT);
}

static int set_quick(bench_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    const long quick[] = {8, 4096, 262144, 1 << 20, 4 << 20};
    memcpy(o->sizes, quick, sizeof quick);
    o->nsizes = 5;
    o->reps = 5;
    snprintf(o->wanted, sizeof o->wanted, "allreduce,bcast,allgather");
    return 1;
}

/* A comma-separated value: its items (1 to max), kept in storage; 0 after saying what is wrong. */
static int split_list(const char *name, const char *value, char *storage, size_t len, const char **items, int max)
{
    if (strlen(value) >= len) {
        say("%s: the list is too long (%zu characters at most)", name, len - 1);
        return 0;
    }
    strcpy(storage, value);
    int n = 0;
    for (char *save, *tok = strtok_r(storage, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            say("%s takes at most %d items", name, max);
            return 0;
        }
        items[n++] = tok;
    }
    if (n == 0)
        say("%s wants a comma-separated list, not '%s'", name, value);
    return n;
}

static const char *known_collectives(void)
{
    static char list[256];
    list[0] = '\0';
    for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
        snprintf(list + strlen(list), sizeof list - strlen(list), " %s", bench_collectives[ci].name);
    return list;
}

static int set_collectives(bench_options *o, const char *name, const char *value)
{
    char copy[sizeof o->wanted];
    const char *items[32];
    int n = split_list(name, value, copy, sizeof copy, items, 32);
    for (int k = 0; k < n; k++) {
        int known = 0;
        for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
            known |= !strcmp(items[k], bench_collectives[ci].name);
        if (!known) {
            say("%s: unknown collective %s; known:%s", name, items[k], known_collectives());
            return 0;
        }
    }
    snprintf(o->wanted, sizeof o->wanted, "%s", value);
    return n > 0;
}

static int set_sizes(bench_options *o, const char *name, const char *value)
{
    char copy[256];
    const char *items[32];
    int n = split_list(name, value, copy, sizeof copy, items, 32);
    for (int k = 0; k < n; k++)
        if (!bench_parse_size(items[k], &o->sizes[k])) {
            say("%s wants sizes in bytes such as 8,64K,1M (1 to 2047M), not '%s'", name, items[k]);
            return 0;
        }
    o->nsizes = n;
    return n > 0;
}

static int set_reps(bench_options *o, const char *name, const char *value)
{
    return count_value(name, value, 1, BENCH_MAX_REPS, &o->reps);
}

static int set_iters(bench_options *o, const char *name, const char *value)
{
    return count_value(name, value, 0, 1000000000, &o->iters);
}

/* --warmup: untimed runs before each repetition's timed ones. Tandem's first call on a size (which
 * names the algorithm, below) already builds its schedule and shadow communicator: in simulation,
 * where host time is not charged, --warmup 0 saves a third of a large run's wall time. */
static int set_warmup(bench_options *o, const char *name, const char *value)
{
    return count_value(name, value, 0, 1000, &o->warmup);
}

/* the names are checked against the part's modes once the part is known */
static int set_modes(bench_options *o, const char *name, const char *value)
{
    if (strlen(value) >= sizeof o->modes) {
        say("%s: the list is too long", name);
        return 0;
    }
    snprintf(o->modes, sizeof o->modes, "%s", value);
    return 1;
}

/* the names are checked against the collectives measured once all options are read */
static int set_algorithms(bench_options *o, const char *name, const char *value)
{
    (void)o;
    nforced = split_list(name, value, forced_list, sizeof forced_list, forced, MAX_FORCED);
    return nforced > 0;
}

static int set_compute(bench_options *o, const char *name, const char *value)
{
    if (TDM_SIMULATED) {
        say("%s: not in simulation, where the computation is simulated time", name);
        return 0;
    }
    if (strcmp(value, "busy") && strcmp(value, "sleep")) {
        say("%s wants busy or sleep, not '%s'", name, value);
        return 0;
    }
    o->compute = value;
    return 1;
}

static int set_tests(bench_options *o, const char *name, const char *value)
{
    return count_value(name, value, 1, 1000000, &o->tests);
}

static int set_csv(bench_options *o, const char *name, const char *value)
{
    (void)name;
    o->csv_path = value;
    return 1;
}

/* The defaults here are those main (latency table) and bench_overlap (--overlap) fill in. */
static const bench_option options[] = {
    {"--help", "-h", NULL, ALL_PARTS, set_help, "print this help and exit"},
    {"--mpi-thread", NULL, "single", ALL_PARTS, set_mpi_thread,
     "first option only: MPI initialized with MPI_THREAD_SINGLE (default MULTIPLE, by TDM_Init)"},
    {"--overlap", NULL, NULL, ALL_PARTS, set_overlap, "measure overhead and overlap against computation instead"},
    {"--cpu-overhead", NULL, NULL, ALL_PARTS, set_cpu_overhead,
     "measure the CPU time collectives take from the application's thread instead"},
    {"--show-placement", NULL, NULL, ALL_PARTS, set_show_placement,
     "print where ranks, progress threads and color threads run, and nothing else"},
    {"--quick", NULL, NULL, BENCH_LATENCY, set_quick, "sizes 8,4K,256K,1M,4M, 5 repetitions, allreduce,bcast,allgather"},
    {"--collectives", NULL, "LIST", BENCH_LATENCY | TIMED_PARTS, set_collectives,
     "collectives to time (default allreduce,bcast,allgather,reduce,alltoall; --overlap: allreduce; "
     "--cpu-overhead: allreduce,bcast,allgather,alltoall)"},
    {"--sizes", NULL, "LIST", BENCH_LATENCY | TIMED_PARTS, set_sizes,
     "bytes per call, K/M suffixes (default 8,64,512,4K,32K,256K,1M,4M,16M; --overlap: 8,1M; "
     "--cpu-overhead: 8,1K,64K,1M)"},
    {"--reps", NULL, "N", BENCH_LATENCY | TIMED_PARTS, set_reps,
     "repetitions, 1 to 64, whose median counts (default 7; --overlap, --cpu-overhead: 5)"},
    {"--iters", NULL, "N", BENCH_LATENCY | TIMED_PARTS, set_iters,
     "timed iterations per repetition (default 0: chosen from the size)"},
    {"--warmup", NULL, "N", BENCH_LATENCY, set_warmup, "untimed iterations before each repetition, 0 to 1000 (default 1)"},
    {"--modes", NULL, "LIST", BENCH_LATENCY | TIMED_PARTS, set_modes,
     "modes to time, of those below (default all; --cpu-overhead: see below)"},
    {"--algorithms", NULL, "LIST", BENCH_LATENCY, set_algorithms,
     "Tandem algorithms to force, each timed beside Tandem's choice (default none)"},
    {"--compute", NULL, "busy|sleep", TIMED_PARTS, set_compute,
     "the computation: arithmetic, or a sleep leaving the core idle (default busy)"},
    {"--tests", NULL, "N", TIMED_PARTS, set_tests,
     "test calls within the computation of the +test modes (default 10)"},
    {"--csv", NULL, "FILE", BENCH_LATENCY | TIMED_PARTS, set_csv,
     "the CSV to write (default tandem-bench.csv; --overlap: tandem-overlap.csv; --cpu-overhead: "
     "tandem-cpu-overhead.csv)"},
};
#define NOPTIONS ((int)(sizeof options / sizeof options[0]))
_Static_assert(sizeof options / sizeof options[0] <= 32, "parse_options keeps the options met in 32 bits");

static void print_list(const char *title, const char *const *names, int n)
{
    printf("%s:", title);
    for (int k = 0; k < n; k++)
        printf(" %s", names[k]);
    printf("\n");
}

static void print_help(void)
{
    printf("usage: [mpirun -n P] tandem-bench [OPTIONS]            latency of start + wait, Tandem beside native MPI\n"
           "       [mpirun -n P] tandem-bench --overlap [OPTIONS]  overhead and overlap against computation\n"
           "       [mpirun -n P] tandem-bench --cpu-overhead [OPTIONS]  the CPU time collectives take\n"
           "       [mpirun -n P] tandem-bench --show-placement     where ranks and their threads run\n"
           "options ([latency]: the latency table only; [timed]: --overlap and --cpu-overhead only; lists\n"
           "comma-separated):\n");
    for (int k = 0; k < NOPTIONS; k++) {
        const bench_option *opt = &options[k];
        char head[64];
        snprintf(head, sizeof head, "%s%s%s%s%s", opt->alias ? opt->alias : "", opt->alias ? ", " : "", opt->name,
                 opt->value ? " " : "", opt->value ? opt->value : "");
        unsigned timed = opt->parts & (BENCH_LATENCY | TIMED_PARTS);
        printf("  %-22s %s%s\n", head, timed == BENCH_LATENCY ? "[latency] " : timed == TIMED_PARTS ? "[timed] " : "",
               opt->help);
    }
    printf("collectives:%s\n", known_collectives());
    print_list("modes", mode_names, NMODES);
    print_list("--overlap and --cpu-overhead modes", bench_timed_modes, BENCH_NTIMED);
    printf("--cpu-overhead's default modes: %s\n", bench_cpu_default_modes);
    printf("algorithms, per collective:\n");
    for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++)
        if (TDM_Algorithm_names(bench_collectives[ci].name))
            printf("  %-21s %s\n", bench_collectives[ci].name, TDM_Algorithm_names(bench_collectives[ci].name));
}

static const char *part_name(bench_part part)
{
    return part == BENCH_OVERLAP ? "--overlap" : part == BENCH_CPU ? "--cpu-overhead"
           : part == BENCH_PLACEMENT ? "--show-placement" : "the latency table";
}

/* The entry of the table for arg; NOPTIONS if none. */
static int find_option(const char *arg)
{
    int k = 0;
    while (k < NOPTIONS && strcmp(arg, options[k].name) && !(options[k].alias && !strcmp(arg, options[k].alias)))
        k++;
    return k;
}

/* Reads argv into o: 1 to run, else 0 with the exit status in *status (after the help or an error). */
static int parse_options(int argc, char **argv, bench_options *o, int *status)
{
    *status = 2;
    unsigned long given = 0; /* the options met, a bit per entry of the table */
    for (int i = 1; i < argc; i++) {
        int k = find_option(argv[i]);
        if (k == NOPTIONS) {
            say("unknown option %s; see tandem-bench --help", argv[i]);
            return 0;
        }
        const char *value = NULL;
        if (options[k].value) {
            /* a next option is not a value: "--sizes --reps 3" lacks the sizes */
            if (i + 1 == argc || !argv[i + 1][0] || !strncmp(argv[i + 1], "--", 2)) {
                say("%s needs a value (%s)", options[k].name, options[k].value);
                return 0;
            }
            value = argv[++i];
        }
        if (!options[k].set(o, options[k].name, value))
            return 0;
        if (o->help) {
            if (rank == 0)
                print_help();
            *status = 0;
            return 0;
        }
        given |= 1UL << k;
    }
    for (int k = 0; k < NOPTIONS; k++)
        if ((given >> k & 1) && !(options[k].parts & o->part)) {
            say("%s is not an option of %s; see tandem-bench --help", options[k].name, part_name(o->part));
            return 0;
        }
    return 1;
}

static int own_mpi; /* the program, not TDM_Init, initialized MPI */
MPI_Comm bench_world = MPI_COMM_NULL;

static int finish(int rc)
{
    TDM_Finalize();
    if (own_mpi)
        MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    /* Every buffer of 64 KiB or more mapped afresh: glibc would otherwise raise its threshold on the first
     * free of a large buffer and take the next ones from the heap, where both MPIs' collectives ran 4 times
     * slower here (alltoall of 1 MiB on 2 ranks, Open MPI: 0.2 against 0.8 ms), so that a result
     * depended on what the benchmark had allocated before. (In simulation, time is SimGrid's.) */
#ifndef TANDEM_SMPI
    mallopt(M_MMAP_THRESHOLD, 64 << 10);
#endif
    /* --mpi-thread single: the program initializes MPI itself with MPI_THREAD_SINGLE (as an application
     * using only inline progress may), instead of TDM_Init asking for MPI_THREAD_MULTIPLE, which makes
     * some MPIs' own calls slower. Must come first. */
    if (tdm_take_mpi_thread_single(&argc, &argv, 1)) {
        int provided;
        own_mpi = 1;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    }
    if (TDM_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "tandem-bench: %s\n", TDM_Last_error());
        return 1;
    }
    bench_world = TDM_Comm_world();
    MPI_Comm_rank(bench_world, &rank);
    MPI_Comm_size(bench_world, &size);

    bench_options o = {.part = BENCH_LATENCY, .warmup = -1};
    int status;
    if (!parse_options(argc, argv, &o, &status))
        return finish(status);
    if (o.part == BENCH_OVERLAP)
        return finish(bench_overlap(&o));
    if (o.part == BENCH_CPU)
        return finish(bench_cpu_overhead(&o));
    if (o.part == BENCH_PLACEMENT)
        return finish(bench_show_placement());
    /* the latency table's defaults (--help says them too) */
    const long sizes[] = {8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20, 16 << 20};
    if (o.nsizes == 0) {
        memcpy(o.sizes, sizes, sizeof sizes);
        o.nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    }
    o.reps = o.reps ? o.reps : 7;
    if (!o.wanted[0])
        snprintf(o.wanted, sizeof o.wanted, "allreduce,bcast,allgather,reduce,alltoall");
    o.csv_path = o.csv_path ? o.csv_path : "tandem-bench.csv";
    int warmup = o.warmup >= 0 ? o.warmup : 1;
    if (!bench_modes_known(&o, mode_names, NMODES, rank))
        return finish(2);
    if (!forced_names_known(&o))
        return finish(2);
    int measured[NMODES + MAX_FORCED];
    for (int m = 0; m < NMODES; m++)
        measured[m] = bench_mode_wanted(&o, mode_names[m]);
    if (nforced > 0 && !measured[MODE_TANDEM]) {
        if (rank == 0)
            fprintf(stderr, "tandem-bench: --algorithms compares with the tandem mode, which --modes leaves out\n");
        return finish(2);
    }
    model_setup();

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int local = bench_ranks_on_node();
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen;
    MPI_Get_library_version(version, &vlen);
    char *nl = strchr(version, '\n');
    if (nl)
        *nl = '\0';
    FILE *csv = NULL;
    if (rank == 0) {
        if (TDM_SIMULATED)
            printf("tandem-bench: %d ranks, SIMULATED by SimGrid's SMPI: times are simulated seconds on its platform\n",
                   size);
        else
            printf("tandem-bench: %d ranks, %d on this node with %ld cores%s\n", size, local, cores,
                   local > cores ? "  ** OVERSUBSCRIBED: timings say nothing about speed **" : "");
        bench_say_dcps(local, (int)cores);
        int level;
        MPI_Query_thread(&level);
        printf("MPI: %s (thread level %s)\n", version, level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                                         : level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE"
                                                                                       : "FUNNELED/SERIALIZED");
        printf("median seconds per operation over %d repetitions (min..max); ratio = Tandem's column / best native\n",
               o.reps);
        printf("model: the LogGP cost of Tandem's algorithm from %d MiB (alpha %.3g s, beta %.3g s/B, gamma %.3g s/B%s)\n\n",
               MODEL_FROM_BYTES >> 20, loggp.alpha, loggp.beta, loggp.gamma,
               getenv("TANDEM_LOGGP") ? ", TANDEM_LOGGP" : ", built-in; measure them with tandem-model loggp");
        printf("%-21s %9s  %-28s %-28s %-28s %6s  %-28s %6s  %-10s %s\n", "collective", "bytes", "mpi-blocking",
               "mpi-nonblocking", "tandem", "ratio", "tandem-blocking", "ratio", "model", "tandem algorithm");
        csv = fopen(o.csv_path, "w");
        if (!csv)
            fprintf(stderr, "tandem-bench: cannot write %s\n", o.csv_path);
        else
            fprintf(csv, "collective,bytes,ranks,ranks_per_node,cores,oversubscribed,mode,algorithm,repetitions,"
                         "iterations,median_s,min_s,max_s,model_s\n");
    }

    for (int ci = 0; ci < BENCH_NCOLLECTIVES; ci++) {
        const bench_collective *c = &bench_collectives[ci];
        if (!bench_wanted(o.wanted, c->name))
            continue;
        for (int si = 0; si < o.nsizes; si++) {
            long bytes = o.sizes[si];
            if (!strcmp(c->name, "barrier") && si > 0)
                break;
            bench_buffers b;
            bench_buffers_alloc(&b, c, bytes, size);
            int iters = (int)(64L * 1024 * 1024 / (bytes > 65536 ? bytes : 65536));
            iters = bench_iterations(&o, iters > 1000 ? 1000 : iters < 16 ? 16 : iters);
            int nmodes = NMODES + nforced;
            for (int f = 0; f < nforced; f++)
                measured[NMODES + f] = knows(c, forced[f]);
            char alg[NMODES + MAX_FORCED][64];
            for (int m = 0; m < nmodes; m++) {
                snprintf(alg[m], sizeof alg[m], "-");
                if (measured[m] && is_tandem(m)) /* naming it is a run of its own: not for MPI's modes */
                    tandem_algorithm(c, m, &b, alg[m], sizeof alg[m]);
            }
            double samples[NMODES + MAX_FORCED][BENCH_MAX_REPS];
            /* the modes interleaved, in an order that turns each repetition: a mode leaves caches and
             * pages behind for the next one, and no mode should always follow the same other */
            for (int r = 0; r < o.reps; r++)
                for (int k = 0; k < nmodes; k++) {
                    int m = (k + r) % nmodes;
                    samples[m][r] = measured[m] ? time_mode(c, m, &b, iters, warmup) : 0;
                }
            double vector_bytes = (double)bytes * (c->per_rank_blocks ? size : 1);
            /* rank 0 alone: costing a schedule builds every rank's (seconds at 4096 ranks, and in
             * simulation all ranks share one process) */
            double model = rank == 0 && bytes >= MODEL_FROM_BYTES
                               ? tdm_cost_of_algorithm(alg[MODE_TANDEM], &torus, vector_bytes, &loggp) : -1;
            if (rank == 0) {
                double med[NMODES + MAX_FORCED], lo[NMODES + MAX_FORCED], hi[NMODES + MAX_FORCED];
                for (int m = 0; m < nmodes; m++) {
                    qsort(samples[m], (size_t)o.reps, sizeof(double), bench_cmp_double);
                    med[m] = samples[m][o.reps / 2];
                    lo[m] = samples[m][0];
                    hi[m] = samples[m][o.reps - 1];
                }
                double best = 0; /* the best native mode measured */
                for (int m = MODE_NATIVE_NB; m < NMODES; m++)
                    if (measured[m] && (best == 0 || med[m] < best))
                        best = med[m];
                char cell[NMODES][64], ratio[16] = "-", blocking_ratio[16] = "-";
                for (int m = 0; m < NMODES; m++)
                    snprintf(cell[m], sizeof cell[m], measured[m] ? "%.3g (%.3g..%.3g)" : "-", med[m], lo[m], hi[m]);
                if (measured[MODE_TANDEM] && best > 0)
                    snprintf(ratio, sizeof ratio, "%.2f", med[MODE_TANDEM] / best);
                if (measured[MODE_TANDEM_BLOCKING] && best > 0)
                    snprintf(blocking_ratio, sizeof blocking_ratio, "%.2f", med[MODE_TANDEM_BLOCKING] / best);
                char predicted[32] = "";
                if (model > 0)
                    snprintf(predicted, sizeof predicted, "%.3g", model);
                printf("%-21s %9ld  %-28s %-28s %-28s %6s  %-28s %6s  %-10s %s\n", c->name, bytes,
                       cell[MODE_NATIVE_BLOCKING], cell[MODE_NATIVE_NB], cell[MODE_TANDEM], ratio,
                       cell[MODE_TANDEM_BLOCKING], blocking_ratio, predicted, alg[MODE_TANDEM]);
                print_forced(measured, med, lo, hi, best, alg);
                fflush(stdout);
                for (int m = 0; csv && m < nmodes; m++)
                    if (measured[m])
                        fprintf(csv, "%s,%ld,%d,%d,%ld,%d,%s,%s,%d,%d,%.9g,%.9g,%.9g,%s\n", c->name, bytes, size,
                                local, cores, local > cores, m < NMODES ? mode_names[m] : "tandem-forced",
                                is_tandem(m) ? alg[m] : m == MODE_TANDEM_BLOCKING ? "blocking" : "native", o.reps, iters, med[m], lo[m],
                                hi[m], m == MODE_TANDEM ? predicted : "");
            }
            bench_buffers_free(&b);
        }
    }
    if (csv) {
        fclose(csv);
        printf("\nCSV: %s\n", o.csv_path);
    }
    return finish(0);
}

/*
 * tandem-model: the cost models behind Tandem's choices, as tables.
 *
 *   tandem-model split-tree --cores 64 [--variable] [--json]
 *       for every number N of application ranks on a node of that many cores: the split level S the
 *       split-tree model picks, T_blocking, T_nonblocking(S) and T_overlapped(S) (unit: one message of
 *       the buffer; --variable: gather/scatter, whose messages double toward the root).
 *
 *   tandem-model bounds --collective allreduce|reduce_scatter|allgather --dims 8x8x8 --bytes N
 *                       [--ranks P] [--loggp FILE | --alpha A --beta B --gamma G [--latency L]]
 *                       [--unidirectional] [--json]
 *       the lower bound on the torus and, for each algorithm, its closed-form cost and the LogGP cost
 *       of its schedules, built for every rank (beta and gamma per byte; doubles; without --dims, a
 *       ring of --ranks ranks).
 *
 *   tandem-model dcp --ranks N [--bytes B] [--compute T] [--overhead O] [--segment S]
 *                    [--loggp FILE | --alpha A ...] [--json]
 *       for each ratio 1:R of application ranks per dedicated collective process, the allreduce's
 *       predicted latency, the application's overhead and the iteration time with a computation of T,
 *       the DCPs taken from the job's N ranks or added to them, and the ratio the model recommends.
 *
 *   mpirun -np 2 tandem-model loggp [--sizes 1,64,4K,...] [--reps R] [--save FILE] [--json]
 *       measures LogGP's L, o_s, o_r, g and G between ranks 0 and 1 as Netgauge does (o_s(s), o_r(s)
 *       and the gap per size, medians and spreads; loggp_prtt.h), and gamma with MPI_Reduce_local;
 *       derives Tandem's alpha, beta and latency from them and saves it all for TANDEM_LOGGP=FILE,
 *       tandem-bench's model column and --loggp.
 *
 *   tandem-model overhead --collective C [--algorithm A] --ranks P [--dims DIMS] [--node-size K] [--bytes N] [--loggp FILE]
 *                         [--copy C] [--call S] [--eager-limit B] [--agent inline|thread|split|dcp] [--json]
 *       from every rank's schedule as Tandem builds it (the algorithm it selects, or A), each rank's
 *       CPU time (o_s(s) and o_r(s) per message from the LogGP table of FILE, gamma per byte reduced,
 *       C per byte copied, S per call) against the collective's latency (every rank's rounds replayed
 *       on the table's times, messages above B bytes waiting for their receive, schedule_timeline.h;
 *       or without a table its LogGP cost), the share, and the time each agent leaves to the application
 *       thread (cpu_overhead.h).
 *
 *   tandem-model [COMMAND] --help
 *       every option, printed from the tables the parser reads.
 */
#include "../src/model/collective_costs.h"
#include "mpi_thread_option.h"
#include "../src/dcp/dcp_protocol.h"
#include "../src/model/dcp_model.h"
#include "../src/model/loggp.h"
#include "../src/model/call_args.h"
#include "../src/select/select_estimate.h"
#include "../src/model/loggp_prtt.h"
#include "../src/model/schedule_cost.h"
#include "../src/model/split_tree_model.h"
#include "../src/select/select.h"

#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the options ask for, of all the commands (each reads its own). */
typedef struct {
    tdm_split_model split; /* split-tree */
    int json;              /* split-tree, bounds */
    const char *collective, *dims; /* bounds */
    double bytes;
    int ranks, unidirectional;
    tdm_loggp m;
    const char *save; /* loggp */
    int reps;
    double sizes[TDM_LOGGP_MAX_SIZES];
    int nsizes;
    const char *algorithm; /* overhead */
    int kind;
    double copy, call, eager_limit; /* overhead: seconds per byte copied, per call; bytes */
    int agent;         /* overhead: the agent asked about (an index of agent_names), -1: all */
    int node_size;     /* overhead: ranks per node (1: every rank alone on its node) */
    tdm_loggp_params table; /* --loggp's LogGP table, if it has one (table.nsizes) */
    double compute, overhead, segment; /* dcp */
} model_options;

/* The defaults, which --help says too; the machine of bounds: 1 us per message, 10 GB/s links, 4 GB/s
 * reductions. */
static const model_options defaults = {.collective = "allreduce", .bytes = 1 << 20, .m = {1e-6, 1e-10, 2.5e-10, 0},
                                       .reps = 21, .overhead = 5e-7, .segment = TDM_DCP_DEFAULT_SEGMENT,
                                       .kind = TDM_COLL_ALLREDUCE, .agent = -1, .node_size = 1, .eager_limit = TDM_DEFAULT_EAGER_LIMIT};

/*
 * The options: a table per command, which the parser reads and --help prints, so that the help lists
 * exactly what the parser accepts. A setter checks its value and says what is wrong, naming the option.
 */
typedef struct {
    const char *name;
    const char *value; /* its argument, as --help shows it; NULL: a flag */
    int (*set)(model_options *o, const char *name, const char *value); /* 0: a bad value, said */
    const char *help;  /* what it does and its default, in one line */
} model_option;

static int rank;                 /* of MPI_COMM_WORLD in loggp; the other commands run without MPI */
static const char *command = ""; /* errors name it */

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...)
{
    if (rank != 0)
        return;
    va_list args;
    va_start(args, format);
    fprintf(stderr, "tandem-model%s%s: ", *command ? " " : "", command);
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

static int number_value(const char *name, const char *value, const char *unit, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(v) || v < lo) {
        say("%s wants %s, %g or more, not '%s'", name, unit, lo, value);
        return 0;
    }
    *out = v;
    return 1;
}

static int set_cores(model_options *o, const char *name, const char *value)
{
    return count_value(name, value, 2, 65536, &o->split.cores);
}

static int set_variable(model_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    o->split.variable = 1;
    return 1;
}

static int set_json(model_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    o->json = 1;
    return 1;
}

static int set_collective(model_options *o, const char *name, const char *value)
{
    if (strcmp(value, "allreduce") && strcmp(value, "reduce_scatter") && strcmp(value, "allgather")) {
        say("%s wants allreduce, reduce_scatter or allgather, not '%s'", name, value);
        return 0;
    }
    o->collective = value;
    return 1;
}

static int set_dims(model_options *o, const char *name, const char *value)
{
    tdm_torus t;
    if (!tdm_torus_parse(value, &t)) {
        say("%s wants lengths such as 8x8x8, %d of them at most, not '%s'", name, TDM_TORUS_MAX_DIMS, value);
        return 0;
    }
    o->dims = value;
    return 1;
}

static int set_ranks(model_options *o, const char *name, const char *value)
{
    return count_value(name, value, 1, 1 << 24, &o->ranks);
}

static int set_node_size(model_options *o, const char *name, const char *value)
{
    return count_value(name, value, 1, 1 << 24, &o->node_size);
}

static int set_bytes(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "a number of bytes", 1, &o->bytes);
}

static int set_alpha(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds", 0, &o->m.alpha);
}

static int set_beta(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds per byte", 0, &o->m.beta);
}

static int set_gamma(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds per byte", 0, &o->m.gamma);
}

/* checked against alpha once all options are read */
static int set_latency(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds", 0, &o->m.latency);
}

static int set_loggp(model_options *o, const char *name, const char *value)
{
    if (!tdm_loggp_parse_setting(value, &o->m)) {
        say("%s %s: not a file written by tandem-model loggp", name, value);
        return 0;
    }
    FILE *in = fopen(value, "r"); /* the LogGP table too, where the file has one */
    if (in && !tdm_loggp_prtt_read(in, &o->table))
        o->table.nsizes = 0;
    if (in)
        fclose(in);
    return 1;
}

static int set_any_collective(model_options *o, const char *name, const char *value)
{
    o->kind = tdm_select_kind(value);
    if (o->kind < 0 || o->kind == TDM_COLL_ALLTOALLW || o->kind >= TDM_COLL_NEIGHBOR_ALLGATHER) {
        say("%s wants a collective of barrier, bcast, reduce, allreduce, gather(v), scatter(v), allgather(v), "
            "reduce_scatter(_block), alltoall(v), scan, exscan, not '%s'", name, value);
        return 0;
    }
    o->collective = value;
    return 1;
}

static int set_algorithm(model_options *o, const char *name, const char *value)
{
    (void)name;
    o->algorithm = value; /* checked against the collective once all options are read */
    return 1;
}

static int set_copy(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds per byte", 0, &o->copy);
}

/* the progress agents, in the order overhead() lists them */
static const char *const agent_names[] = {"inline", "thread", "split", "dcp"};

static int set_agent(model_options *o, const char *name, const char *value)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(value, agent_names[k])) {
            o->agent = k;
            return 1;
        }
    say("%s wants inline, thread, split or dcp, not '%s'", name, value);
    return 0;
}

static int set_call(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds", 0, &o->call);
}

static int set_eager_limit(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "bytes", 0, &o->eager_limit);
}

static int set_unidirectional(model_options *o, const char *name, const char *value)
{
    (void)name, (void)value;
    o->unidirectional = 1;
    return 1;
}

static int set_reps(model_options *o, const char *name, const char *value)
{
    return count_value(name, value, 1, 100000, &o->reps);
}

/* "1,64,4K,1M": ascending sizes in bytes (K and M: 1024 and 1048576), the first 1 */
static int set_sizes(model_options *o, const char *name, const char *value)
{
    const char *at = value;
    o->nsizes = 0;
    while (*at) {
        char *end;
        errno = 0;
        double v = strtod(at, &end);
        if (*end == 'K' || *end == 'M')
            v *= *end++ == 'K' ? 1024 : 1048576;
        if (end == at || errno || (*end && *end != ',') || o->nsizes == TDM_LOGGP_MAX_SIZES || v != floor(v) ||
            v < 1 || v > (1 << 30) || (o->nsizes > 0 && v <= o->sizes[o->nsizes - 1]) || (o->nsizes == 0 && v != 1)) {
            say("%s wants up to %d ascending sizes from 1 byte to 1G, the first 1 (such as 1,64,4K,1M), not '%s'", name,
                TDM_LOGGP_MAX_SIZES, value);
            return 0;
        }
        o->sizes[o->nsizes++] = v;
        at = *end ? end + 1 : end;
    }
    if (o->nsizes < 2) {
        say("%s wants two sizes or more, the first 1, not '%s'", name, value);
        return 0;
    }
    return 1;
}

static int set_save(model_options *o, const char *name, const char *value)
{
    (void)name;
    o->save = value;
    return 1;
}

static const model_option split_tree_options[] = {
    {"--cores", "N", set_cores, "the node's cores, 2 to 65536 (required)"},
    {"--variable", NULL, set_variable, "messages that double toward the root, as gather/scatter's (default: equal)"},
    {"--json", NULL, set_json, "the table as JSON"},
};

static const model_option bounds_options[] = {
    {"--collective", "NAME", set_collective, "allreduce, reduce_scatter or allgather (default allreduce)"},
    {"--dims", "DIMS", set_dims, "the torus, such as 8x8x8 (default: a ring of --ranks ranks)"},
    {"--ranks", "P", set_ranks, "the ranks; with --dims, their product (default: that of --dims)"},
    {"--bytes", "N", set_bytes, "the vector's bytes, of doubles (default 1048576)"},
    {"--alpha", "A", set_alpha, "seconds per message (default 1e-06)"},
    {"--beta", "B", set_beta, "seconds per byte sent (default 1e-10)"},
    {"--gamma", "G", set_gamma, "seconds per byte reduced (default 2.5e-10)"},
    {"--latency", "L", set_latency, "the part of alpha that a round's messages share, 0 to alpha (default 0)"},
    {"--loggp", "FILE", set_loggp, "alpha, beta, gamma and latency from a file of tandem-model loggp --save"},
    {"--unidirectional", NULL, set_unidirectional, "links that carry one direction at a time (default: both)"},
    {"--json", NULL, set_json, "the costs as JSON"},
};

static int set_compute(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds", 0, &o->compute);
}

static int set_overhead(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "seconds", 0, &o->overhead);
}

static int set_segment(model_options *o, const char *name, const char *value)
{
    return number_value(name, value, "a number of bytes", 0, &o->segment);
}

static const model_option dcp_options[] = {
    {"--ranks", "N", set_ranks, "the job's ranks, 2 or more (required)"},
    {"--bytes", "B", set_bytes, "the allreduce's bytes (default 1048576)"},
    {"--compute", "T", set_compute, "seconds of computation per iteration on N ranks, overlapped (default 0)"},
    {"--overhead", "O", set_overhead, "the application's CPU seconds per message posted and completed (default 5e-07)"},
    {"--segment", "S", set_segment, "bytes per segment through the DCPs, as TANDEM_DCP_SEGMENT; 0: whole (default 65536)"},
    {"--alpha", "A", set_alpha, "seconds per message (default 1e-06)"},
    {"--beta", "B", set_beta, "seconds per byte sent (default 1e-10)"},
    {"--gamma", "G", set_gamma, "seconds per byte reduced (default 2.5e-10)"},
    {"--latency", "L", set_latency, "the part of alpha that messages arriving at once share, 0 to alpha (default 0)"},
    {"--loggp", "FILE", set_loggp, "alpha, beta, gamma and latency from a file of tandem-model loggp --save"},
    {"--json", NULL, set_json, "every ratio, as JSON"},
};

/* main has taken a leading --mpi-thread single already: one met here is misplaced or misspelled */
static int set_mpi_thread(model_options *o, const char *name, const char *value)
{
    (void)o;
    char why[128];
    tdm_mpi_thread_misplaced(name, value, why, sizeof why);
    say("%s", why);
    return 0;
}

static const model_option loggp_options[] = {
    {"--mpi-thread", "single", set_mpi_thread,
     "MPI initialized with MPI_THREAD_SINGLE, as a program using inline progress only may (default: "
     "MPI_THREAD_MULTIPLE, as TDM_Init asks for it, at which some MPIs' calls cost more); the first option"},
    {"--sizes", "LIST", set_sizes, "message sizes in bytes, ascending, the first 1 (default 1,4,16,...,4M)"},
    {"--reps", "R", set_reps, "repetitions of each measurement, whose median counts, 1 to 100000 (default 21)"},
    {"--save", "FILE", set_save, "also write the parameters to FILE, for TANDEM_LOGGP=FILE and --loggp"},
    {"--json", NULL, set_json, "the parameters and every size's measurements, as JSON"},
};

static const model_option overhead_options[] = {
    {"--collective", "NAME", set_any_collective, "barrier, bcast, reduce, allreduce (default), gather(v), scatter(v), "
                                                 "allgather(v), reduce_scatter(_block), alltoall(v), scan or exscan"},
    {"--algorithm", "NAME", set_algorithm, "one of the collective's algorithms (default: the one Tandem selects)"},
    {"--ranks", "P", set_ranks, "ranks (required)"},
    {"--dims", "DIMS", set_dims, "the network's torus, such as 8x8x8, of --ranks ranks (default: a 2-D grid, one link apart)"},
    {"--node-size", "K", set_node_size, "ranks per node, consecutive (default 1: every rank alone; the node "
                                        "algorithms need 2 or more)"},
    {"--bytes", "N", set_bytes, "the vector (bcast, reductions) or one rank's block (default 1048576)"},
    {"--loggp", "FILE", set_loggp, "alpha, beta, gamma, latency and the o_s(s), o_r(s) of tandem-model loggp --save"},
    {"--alpha", "A", set_alpha, "seconds per message (default 1e-6)"},
    {"--beta", "B", set_beta, "seconds per byte on a link (default 1e-10)"},
    {"--gamma", "G", set_gamma, "seconds per byte reduced (default 2.5e-10)"},
    {"--copy", "C", set_copy, "seconds per byte copied (default 0)"},
    {"--call", "S", set_call, "seconds of the engine's own per call on each rank (default 0)"},
    {"--eager-limit", "B", set_eager_limit, "bytes: a longer message starts once its receive is posted (default 4096; SMPI's: 0)"},
    {"--agent", "A", set_agent, "inline, thread, split or dcp: what that agent leaves to the application (default all)"},
    {"--json", NULL, set_json, "every rank's counts and times, as JSON"},
};

static int split_tree(const model_options *o);
static int bounds(const model_options *o);
static int loggp(const model_options *o);
static int dcp(const model_options *o);
static int overhead(const model_options *o);

typedef struct {
    const char *name, *synopsis, *what;
    const model_option *options;
    int noptions;
    int (*run)(const model_options *o);
    int mpi; /* a run under mpirun, which MPI_Init starts before the options are read */
} model_command;

#define OPTIONS(table) table, (int)(sizeof table / sizeof table[0])
static const model_command commands[] = {
    {"split-tree", "tandem-model split-tree --cores N [--variable] [--json]",
     "per number N of application ranks on a node: the split level S and the times of the split-tree model",
     OPTIONS(split_tree_options), split_tree, 0},
    {"bounds",
     "tandem-model bounds [--collective C] (--dims 8x8x8 | --ranks P) [--bytes N]\n"
     "                           [--loggp FILE | --alpha A --beta B --gamma G [--latency L]] [--unidirectional] [--json]",
     "the lower bound of a collective on a torus, and each algorithm's closed-form and schedule costs",
     OPTIONS(bounds_options), bounds, 0},
    {"dcp",
     "tandem-model dcp --ranks N [--bytes B] [--compute T] [--overhead O] [--segment S]\n"
     "                           [--loggp FILE | --alpha A --beta B --gamma G [--latency L]] [--json]",
     "an allreduce through dedicated collective processes, per ratio 1:R: latency, overhead, iteration time",
     OPTIONS(dcp_options), dcp, 0},
    {"overhead",
     "tandem-model overhead [--collective C] [--algorithm A] --ranks P [--bytes N]\n"
     "                           [--dims DIMS] [--node-size K] [--loggp FILE | --alpha A --beta B --gamma G]\n"
     "                           [--copy C] [--call S] [--eager-limit B] [--agent A] [--json]",
     "each rank's CPU time in a collective against its latency, and what each agent leaves to the application",
     OPTIONS(overhead_options), overhead, 1},
    {"loggp", "mpirun -n 2 tandem-model loggp [--mpi-thread single] [--sizes LIST] [--reps R] [--save FILE] [--json]",
     "LogGP's L, o_s, o_r, g, G (per size) and gamma of this machine, measured between ranks 0 and 1",
     OPTIONS(loggp_options), loggp, 1},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void print_synopsis(FILE *out, const model_command *only)
{
    for (int c = 0; c < NCOMMANDS; c++)
        if (!only || only == &commands[c])
            fprintf(out, "%s %s\n", c == 0 || only ? "usage:" : "      ", commands[c].synopsis);
    if (!only)
        fprintf(out, "       tandem-model [COMMAND] --help\n");
}

static void print_help(const model_command *only)
{
    print_synopsis(stdout, only);
    for (int c = 0; c < NCOMMANDS; c++) {
        if (only && only != &commands[c])
            continue;
        printf("%s: %s\n", commands[c].name, commands[c].what);
        printf("  %-20s %s\n", "-h, --help", "print this help and exit");
        for (int k = 0; k < commands[c].noptions; k++) {
            const model_option *opt = &commands[c].options[k];
            char head[64];
            snprintf(head, sizeof head, "%s%s%s", opt->name, opt->value ? " " : "", opt->value ? opt->value : "");
            printf("  %-20s %s\n", head, opt->help);
        }
    }
}

/* Reads a command's options into o: 1 to run, else 0 with the exit status in *status. */
static int parse_options(const model_command *cmd, int argc, char **argv, model_options *o, int *status)
{
    *status = 2;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (rank == 0)
                print_help(cmd);
            *status = 0;
            return 0;
        }
        const model_option *opt = NULL;
        for (int k = 0; k < cmd->noptions && !opt; k++)
            if (!strcmp(argv[i], cmd->options[k].name))
                opt = &cmd->options[k];
        if (!opt) {
            say("unknown option %s; see tandem-model %s --help", argv[i], cmd->name);
            return 0;
        }
        const char *value = NULL;
        if (opt->value) {
            /* a next option is not a value ("--dims --bytes 8" lacks the dimensions); "-1" may be */
            if (i + 1 == argc || !argv[i + 1][0] || !strncmp(argv[i + 1], "--", 2)) {
                say("%s needs a value (%s)", opt->name, opt->value);
                return 0;
            }
            value = argv[++i];
        }
        if (!opt->set(o, opt->name, value))
            return 0;
    }
    return 1;
}

static void print_number(double v, int json)
{
    if (isinf(v))
        printf(json ? "null" : "%10s", "inf");
    else
        printf(json ? "%g" : "%10.3f", v);
}

static int split_tree(const model_options *o)
{
    tdm_split_model m = o->split;
    int json = o->json;
    if (m.cores == 0) {
        say("needs --cores N, the node's cores; see tandem-model split-tree --help");
        return 2;
    }
    int best_n = 0;
    double best_t = HUGE_VAL;
    if (json)
        printf("{\"model\": \"split-tree\", \"cores\": %d, \"variable\": %s, \"rows\": [\n", m.cores,
               m.variable ? "true" : "false");
    else
        printf("split-tree model, %d cores%s (unit: one message of the buffer)\n%5s %5s %3s %3s %10s %10s %10s %10s\n",
               m.cores, m.variable ? ", variable-size messages (gather/scatter)" : "", "N", "P", "H", "S",
               "C(N)", "T_block", "T_nonbl", "T_overl");
    for (int n = 1; n <= m.cores; n++) {
        int s = tdm_split_best_s(&m, n);
        double t = tdm_split_t_overlapped(&m, s, n);
        if (t < best_t) {
            best_t = t;
            best_n = n;
        }
        if (json)
            printf("  {\"N\": %d, \"P\": %d, \"H\": %d, \"S\": %d, \"C\": ", n, m.cores - n, tdm_split_height(n), s);
        else
            printf("%5d %5d %3d %3d ", n, m.cores - n, tdm_split_height(n), s);
        const char *sep = json ? ", " : " ";
        print_number(tdm_split_computation(&m, n), json);
        printf(json ? ", \"T_blocking\": " : "%s", sep);
        print_number(tdm_split_t_blocking(&m, n), json);
        printf(json ? ", \"T_nonblocking\": " : "%s", sep);
        print_number(tdm_split_t_nonblocking(&m, s, n), json);
        printf(json ? ", \"T_overlapped\": " : "%s", sep);
        print_number(t, json);
        printf(json ? "}%s\n" : "\n", n < m.cores ? "," : "");
    }
    if (json)
        printf("], \"best\": {\"N\": %d, \"S\": %d, \"T_overlapped\": %g}}\n", best_n, tdm_split_best_s(&m, best_n),
               best_t);
    else
        printf("overall minimum of T_overlapped: N = %d with S = %d (%.3f)\n", best_n, tdm_split_best_s(&m, best_n),
               best_t);
    return 0;
}

typedef struct {
    const char *name;
    double cost;     /* closed form */
    double schedule; /* LogGP cost of the schedules; negative: not costed */
} cost_row;

/* The schedule-level cost of an algorithm (its builder named as TANDEM_<COLLECTIVE> names it). */
static double schedule_cost(const char *collective, const char *algorithm, tdm_cost_collective c, const tdm_torus *t,
                            double bytes, const tdm_loggp *m)
{
    const char *table = c == TDM_COST_REDUCE_SCATTER ? "reduce_scatter_block" : collective;
    tdm_algorithm_fn build = tdm_select_builder(table, algorithm);
    long n = (long)(bytes / sizeof(double));
    tdm_schedule_cost cost;
    if (!build || n < 1 || tdm_cost_call(build, c, t, n, 0, m, &cost, NULL, NULL) != MPI_SUCCESS)
        return -1;
    return cost.time;
}

static int bounds(const model_options *o)
{
    const char *collective = o->collective, *dims = o->dims;
    double bytes = o->bytes;
    int ranks = o->ranks, json = o->json;
    tdm_loggp m = o->m;
    /* --collective was checked: one of the three */
    tdm_cost_collective c = !strcmp(collective, "allreduce")        ? TDM_COST_ALLREDUCE
                            : !strcmp(collective, "reduce_scatter") ? TDM_COST_REDUCE_SCATTER
                                                                    : TDM_COST_ALLGATHER;
    tdm_torus t;
    char ring[32];
    if (!dims && !ranks) {
        say("needs --dims (a torus) or --ranks (a ring); see tandem-model bounds --help");
        return 2;
    }
    if (!dims) {
        snprintf(ring, sizeof ring, "%d", ranks);
        dims = ring;
    }
    tdm_torus_parse(dims, &t); /* --dims was checked */
    if (ranks && ranks != tdm_torus_ranks(&t)) {
        say("--dims %s has %d ranks, not --ranks %d", dims, tdm_torus_ranks(&t), ranks);
        return 2;
    }
    if (!tdm_loggp_latency_valid(&m)) {
        say("--latency %g: expected 0 to alpha (%g)", m.latency, m.alpha);
        return 2;
    }
    t.bidirectional = !o->unidirectional;
    int p = tdm_torus_ranks(&t);
    cost_row rows[6];
    int nrows = 0;
    double bound = tdm_cost_lower_bound(c, &t, bytes, &m);
    const char *torus_name = t.bidirectional ? "torus_bucket" : "torus_bucket_uni";
    rows[nrows++] = (cost_row){"lower bound", bound, -1};
    rows[nrows++] = (cost_row){"ring", tdm_cost_ring(c, p, bytes, &m), schedule_cost(collective, "ring", c, &t, bytes, &m)};
    rows[nrows++] = (cost_row){t.bidirectional ? "torus bucket (bidirectional)" : "torus bucket (unidirectional)",
                               tdm_cost_torus_bucket(c, &t, bytes, &m),
                               schedule_cost(collective, torus_name, c, &t, bytes, &m)};
    if (c == TDM_COST_ALLGATHER && t.bidirectional)
        rows[nrows++] = (cost_row){"torus bucket (halfway)", tdm_cost_torus_halfway_allgather(&t, bytes, &m),
                                   schedule_cost(collective, "torus_bucket_halfway", c, &t, bytes, &m)};
    if (c == TDM_COST_ALLREDUCE) {
        rows[nrows++] = (cost_row){"recursive doubling", tdm_cost_recursive_doubling_allreduce(p, bytes, &m),
                                   schedule_cost(collective, "recursive_doubling", c, &t, bytes, &m)};
        rows[nrows++] = (cost_row){"rabenseifner", tdm_cost_rabenseifner_allreduce(p, bytes, &m),
                                   schedule_cost(collective, "rabenseifner", c, &t, bytes, &m)};
    }
    if (json) {
        printf("{\"collective\": \"%s\", \"dims\": \"%s\", \"ranks\": %d, \"bytes\": %.0f, "
               "\"bidirectional\": %s, \"alpha\": %g, \"beta\": %g, \"gamma\": %g, \"latency\": %g, \"costs\": {",
               collective, dims, p, bytes, t.bidirectional ? "true" : "false", m.alpha, m.beta, m.gamma, m.latency);
        for (int i = 0; i < nrows; i++)
            printf("%s\"%s\": %.9g", i ? ", " : "", rows[i].name, rows[i].cost);
        printf("}, \"schedule_costs\": {");
        for (int i = 1, first = 1; i < nrows; i++, first = 0)
            printf("%s\"%s\": %.9g", first ? "" : ", ", rows[i].name, rows[i].schedule);
        printf("}}\n");
        return 0;
    }
    printf("%s of %.0f bytes on a %s %s torus of %d ranks (alpha %g s, beta %g s/B, gamma %g s/B, shared latency "
           "%g s)\n",
           collective, bytes, dims, t.bidirectional ? "bidirectional" : "unidirectional", p, m.alpha, m.beta, m.gamma,
           m.latency);
    printf("  %-32s %14s %10s %14s %10s\n", "algorithm", "closed form", "/ bound", "schedules", "/ bound");
    for (int i = 0; i < nrows; i++) {
        printf("  %-32s %14.6g %10.3f", rows[i].name, rows[i].cost, bound > 0 ? rows[i].cost / bound : 0);
        if (rows[i].schedule >= 0)
            printf(" %14.6g %10.3f", rows[i].schedule, bound > 0 ? rows[i].schedule / bound : 0);
        printf("\n");
    }
    printf("(closed forms: a round per step, whose messages pay alpha each but the shared latency once;\n"
           " schedules: every rank's schedule as Tandem builds it, steps cut into the segments the model\n"
           " chooses, costed round by round, the slowest rank of each round)\n");
    return 0;
}

static void print_dcp_row(const tdm_dcp_prediction *job, const tdm_dcp_prediction *added, int json, int last)
{
    if (json) {
        printf("  {\"ratio\": %d, \"from_job\": {\"dcps\": %d, \"app_ranks\": %d, \"latency\": %.9g, "
               "\"overhead\": %.9g, \"iteration\": %.9g}, \"added\": {\"dcps\": %d, \"app_ranks\": %d, "
               "\"latency\": %.9g, \"overhead\": %.9g, \"iteration\": %.9g}}%s\n",
               job->ratio, job->dcps, job->app_ranks, job->latency, job->overhead, job->iteration, added->dcps,
               added->app_ranks, added->latency, added->overhead, added->iteration, last ? "" : ",");
        return;
    }
    printf("  1:%-6d %6d %6d %12.3f %12.3f %12.3f %6d %12.3f %12.3f\n", job->ratio, job->dcps, job->app_ranks,
           job->latency * 1e6, job->overhead * 1e6, job->iteration * 1e6, added->dcps, added->latency * 1e6,
           added->iteration * 1e6);
}

static int dcp(const model_options *o)
{
    tdm_dcp_model d = {.m = o->m, .overhead = o->overhead, .bytes = o->bytes, .compute = o->compute,
                       .segment = o->segment, .max_segments = TDM_DCP_MAX_SEGMENTS};
    int n = o->ranks;
    if (n < 2) {
        say("needs --ranks N, 2 or more (a DCP and an application rank); see tandem-model dcp --help");
        return 2;
    }
    if (!tdm_loggp_latency_valid(&d.m)) {
        say("--latency %g: expected 0 to alpha (%g)", d.m.latency, d.m.alpha);
        return 2;
    }
    int best = tdm_dcp_best_ratio(&d, n);
    tdm_dcp_prediction best_job = tdm_dcp_predict(&d, n, best, TDM_DCP_FROM_JOB);
    double direct = tdm_dcp_t_direct(&d, n), direct_iteration = tdm_dcp_iteration_direct(&d, n);
    if (o->json) {
        printf("{\"model\": \"dcp\", \"ranks\": %d, \"bytes\": %.0f, \"segment\": %.0f, \"compute\": %g, \"overhead\": %g, "
               "\"alpha\": %g, \"beta\": %g, \"gamma\": %g, \"latency\": %g, \"direct\": {\"latency\": %.9g, "
               "\"iteration\": %.9g}, \"best_ratio\": %d, \"ratios\": [\n",
               n, d.bytes, d.segment, d.compute, d.overhead, d.m.alpha, d.m.beta, d.m.gamma, d.m.latency, direct,
               direct_iteration, best);
        for (int r = 1; r < n; r++) {
            tdm_dcp_prediction job = tdm_dcp_predict(&d, n, r, TDM_DCP_FROM_JOB);
            tdm_dcp_prediction added = tdm_dcp_predict(&d, n, r, TDM_DCP_ADDED);
            print_dcp_row(&job, &added, 1, r == n - 1);
        }
        printf("]}\n");
        return 0;
    }
    printf("allreduce of %.0f bytes, %d ranks, through dedicated collective processes (alpha %g s, beta %g s/B, "
           "gamma %g s/B, shared latency %g s, overhead %g s per message, segments of %.0f bytes, computation %g s "
           "per iteration)\n",
           d.bytes, n, d.m.alpha, d.m.beta, d.m.gamma, d.m.latency, d.overhead, d.segment, d.compute);
    printf("  without DCPs (blocking): latency %.3f us, iteration %.3f us\n", direct * 1e6,
           direct_iteration * 1e6);
    printf("  %-8s %-52s %s\n", "", "DCPs from the job's ranks", "DCPs added");
    printf("  %-8s %6s %6s %12s %12s %12s %6s %12s %12s\n", "ratio", "DCPs", "apps", "latency us", "overhead us",
           "iteration us", "DCPs", "latency us", "iteration us");
    int shown_best = 0;
    for (int r = 1; r < n; r = r < n / 2 ? r * 2 : (r == n - 1 ? n : n - 1)) {
        if (!shown_best && best < r) { /* the recommended ratio in its place */
            tdm_dcp_prediction added = tdm_dcp_predict(&d, n, best, TDM_DCP_ADDED);
            print_dcp_row(&best_job, &added, 0, 0);
        }
        shown_best |= best <= r;
        tdm_dcp_prediction job = tdm_dcp_predict(&d, n, r, TDM_DCP_FROM_JOB);
        tdm_dcp_prediction added = tdm_dcp_predict(&d, n, r, TDM_DCP_ADDED);
        print_dcp_row(&job, &added, 0, 0);
    }
    printf("recommended: 1:%d (%d DCPs of the %d ranks): %s %.3f us, %.2fx the blocking allreduce's %s\n", best,
           best_job.dcps, n, d.compute > 0 ? "iteration" : "latency",
           (d.compute > 0 ? best_job.iteration : best_job.latency) * 1e6,
           (d.compute > 0 ? best_job.iteration / direct_iteration : best_job.latency / direct),
           d.compute > 0 ? "iteration" : "latency");
    printf("(ratios: powers of two and the recommended one; --json gives every ratio. The DCP-side terms are\n"
           " the busiest DCP's: its clients' messages arrive at once, paying the shared latency once)\n");
    return 0;
}

static double at_least_0(double v) { return v > 0 ? v : 0; }

/* MPI is up (main; one process is enough) */
static int overhead(const model_options *o)
{
    if (rank != 0)
        return 0;
    int p = o->ranks;
    if (p < 2) {
        say("needs --ranks, 2 or more");
        return 2;
    }
    tdm_rank_work *work = calloc((size_t)p, sizeof *work);
    const tdm_loggp_params *table = o->table.nsizes ? &o->table : NULL;
    tdm_cpu_estimate e;
    tdm_cpu_costs costs = {o->m.gamma, o->copy, o->call, o->eager_limit};
    tdm_torus torus;
    if (o->dims) {
        tdm_torus_parse(o->dims, &torus); /* set_dims checked it */
        if (tdm_torus_ranks(&torus) != p) {
            say("--dims %s: %d ranks, not --ranks %d", o->dims, tdm_torus_ranks(&torus), p);
            free(work);
            return 2;
        }
    }
    int rc = work ? tdm_select_estimate(o->collective, o->algorithm, p, o->node_size, o->bytes, &o->m,
                                        o->dims ? &torus : NULL, table, &costs, work, &e)
                  : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (rc == MPI_ERR_ARG && o->algorithm && !tdm_select_builder(o->collective, o->algorithm))
            say("--algorithm %s: not one of %s's (%s)", o->algorithm, o->collective, tdm_select_names(o->collective));
        else if (rc == MPI_ERR_ARG && o->algorithm && !strcmp(o->algorithm, "node") && o->node_size < 2)
            say("--algorithm node: needs ranks that share nodes (--node-size 2 or more)");
        else if (rc == MPI_ERR_COUNT || rc == MPI_ERR_ARG)
            say("--bytes %.0f: %s", o->bytes, rc == MPI_ERR_COUNT ? "more than INT_MAX elements in a buffer" : "too few for one element");
        else
            say("building the schedules failed (MPI error %d)", rc);
        free(work);
        return rc == MPI_ERR_COUNT || rc == MPI_ERR_ARG ? 2 : 1;
    }
    double most = e.most, app_dcp = e.through_dcp;
    int busiest = e.busiest;
    const char *name = e.algorithm;
    /* what each agent leaves to the application thread of the latency (none where the CPU time passes it:
     * the table's overheads then say more than the model's alpha and beta) */
    double latency = e.latency, share = latency > 0 ? most / latency : 0;
    double left[4] = {at_least_0(latency - most), latency, latency, at_least_0(latency - app_dcp)};
    static const char *const how[4] = {
        "the application thread progresses it: all its CPU time is the application's",
        "a progress thread does the CPU work, on a core of its own",
        "as thread, its leaves' levels on the application's thread aside",
        "one message to the DCP and its answer back (their o_s and o_r)"};
    if (o->json) {
        printf("{\"collective\": \"%s\", \"algorithm\": \"%s\", \"ranks\": %d, \"bytes\": %.0f, \"latency\": %.6g, "
               "\"cpu_most\": %.6g, \"cpu_mean\": %.6g, \"share\": %.4f, \"left\": {",
               o->collective, name, p, o->bytes, latency, most, e.mean, share);
        for (int k = 0, first = 1; k < 4; k++)
            if (o->agent < 0 || o->agent == k) {
                printf("%s\"%s\": %.6g", first ? "" : ", ", agent_names[k], left[k]);
                first = 0;
            }
        printf("}, \"table\": %s, \"ranks_work\": [", table ? "true" : "false");
        for (int r = 0; r < p; r++)
            printf("%s{\"sends\": %d, \"sent\": %.0f, \"recvs\": %d, \"received\": %.0f, \"reduced\": %.0f, "
                   "\"copied\": %.0f, \"cpu\": %.6g}",
                   r ? ", " : "", work[r].sends, work[r].sent_bytes, work[r].recvs, work[r].received_bytes,
                   work[r].reduced_bytes, work[r].copied_bytes, tdm_rank_cpu(&work[r], &costs));
        printf("]}\n");
    } else {
        printf("%s (%s) on %d ranks, %.0f bytes: latency %.4g s (%s)\n", o->collective, name, p, o->bytes, latency,
               table ? "its rounds by the LogGP table" : "the LogGP cost of its schedules");
        printf("busiest rank %d: %d sends (%.0f B), %d receives (%.0f B), %.0f B reduced, %.0f B copied\n", busiest,
               work[busiest].sends, work[busiest].sent_bytes, work[busiest].recvs, work[busiest].received_bytes,
               work[busiest].reduced_bytes, work[busiest].copied_bytes);
        printf("CPU time: %.4g s at most, %.4g s on average: %.1f%% of the latency%s\n", most, e.mean, 100 * share,
               table ? "" : " (no LogGP table: messages cost no CPU; --loggp FILE)");
        if (share > 1)
            printf("(the CPU time passes the latency: the table's overheads say more than alpha and beta do)\n");
        printf("%-8s %14s\n", "agent", "left to app (s)");
        for (int k = 0; k < 4; k++)
            if (o->agent < 0 || o->agent == k)
                printf("%-8s %14.4g   %s\n", agent_names[k], left[k], how[k]);
    }
    free(work);
    return 0;
}

/* MPI is up (main): every rank runs this */
static int loggp(const model_options *o)
{
    const char *save = o->save;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        say("needs 2 ranks or more (mpirun -np 2)");
        return 2;
    }
    double sizes[TDM_LOGGP_MAX_SIZES];
    int nsizes = o->nsizes;
    if (nsizes)
        memcpy(sizes, o->sizes, sizeof(double) * (size_t)nsizes);
    else
        nsizes = tdm_loggp_default_sizes(sizes);
    tdm_loggp_params p;
    int rc = tdm_loggp_prtt_measure(MPI_COMM_WORLD, o->reps, 16, sizes, nsizes, &p);
    tdm_loggp m = {0, 0, 0, 0, 0, 0};
    if (rc == MPI_SUCCESS) {
        tdm_loggp_from_prtt(&p, &m);
        m.gamma = tdm_loggp_measure_gamma(MPI_COMM_WORLD, o->reps);
        tdm_loggp_measure_shm(MPI_COMM_WORLD, o->reps, &m);
        if (m.gamma <= 0)
            rc = MPI_ERR_NO_MEM;
    }
    if (rank != 0 || rc != MPI_SUCCESS) {
        if (rank == 0)
            say("the measurement failed (MPI error %d)", rc);
        return rc == MPI_SUCCESS ? 0 : 1;
    }
    int level;
    MPI_Query_thread(&level);
    char how[160];
    snprintf(how, sizeof how, "ranks 0 and 1 of %d, medians of %d, at %s", size, o->reps,
             level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE"
                                                                                               : "another thread level");
    if (o->json) {
        tdm_loggp_prtt_write_json(stdout, &p, &m);
    } else {
        printf("LogGP between %s (Netgauge's method; spreads the interquartile range):\n", how);
        tdm_loggp_prtt_write(stdout, &p);
        tdm_loggp_write(stdout, &m, how);
        printf("(Tandem's model: beta = G; alpha the start-up of a large message, half the round trip of the size\n"
               " nearest 256 KiB less its bytes times G; latency = L, which messages started at once share; gamma:\n"
               " MPI_Reduce_local of MPI_SUM on doubles; shm_flag, shm_beta: a flag's one-way time and the time per\n"
               " byte of a cell copied in and out, through a shared segment of ranks 0 and 1 where they share a node)\n");
        if (m.shm_beta > 0)
            printf("With these values auto moves long data inside a node %s (2 shm_beta %s beta; see docs/nodes.md)\n",
                   tdm_select_cells_beat_messages(&m, 1) ? "through cells, the node-aware forms"
                                                         : "in messages, the point-to-point forms",
                   tdm_select_cells_beat_messages(&m, 1) ? "<" : ">=");
    }
    FILE *out = save ? fopen(save, "w") : NULL;
    if (save && (!out || !tdm_loggp_write(out, &m, how) || !tdm_loggp_prtt_write(out, &p))) {
        fprintf(stderr, "tandem-model loggp: cannot write %s\n", save);
        rc = MPI_ERR_IO;
    }
    if (out)
        fclose(out);
    if (out && rc == MPI_SUCCESS && !o->json)
        printf("saved in %s (use it with TANDEM_LOGGP=%s)\n", save, save);
    return rc == MPI_SUCCESS ? 0 : 1;
}

/* split-tree, bounds and the help of all commands run without MPI (no mpirun needed) */
int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        print_help(NULL);
        return 0;
    }
    const model_command *cmd = NULL;
    for (int c = 0; c < NCOMMANDS && argc >= 2 && !cmd; c++)
        if (!strcmp(argv[1], commands[c].name))
            cmd = &commands[c];
    if (!cmd) {
        if (argc >= 2)
            say("unknown command %s; see tandem-model --help", argv[1]);
        else
            print_synopsis(stderr, NULL);
        return 2;
    }
    command = cmd->name;
    /* loggp runs under mpirun: MPI starts before its options are read, so that rank 0 alone speaks. It
     * measures at the thread level Tandem's calls run at: MPI_THREAD_MULTIPLE, which TDM_Init asks for,
     * unless --mpi-thread single comes first (Open MPI's 1-byte exchange costs 0.17 us in the calls at
     * the one, 0.10 us at the other here). */
    if (cmd->mpi) {
        int level = MPI_THREAD_SINGLE, provided;
        if (cmd->run == loggp)
            level = tdm_take_mpi_thread_single(&argc, &argv, 2) ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
        MPI_Init_thread(&argc, &argv, level, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    model_options o = defaults;
    int status;
    if (parse_options(cmd, argc - 2, argv + 2, &o, &status))
        status = cmd->run(&o);
    if (cmd->mpi)
        MPI_Finalize();
    return status;
}

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
 *   mpirun -np 2 tandem-model loggp [--reps R] [--save FILE]
 *       measures alpha, beta and gamma on this machine (ping-pong and MPI_Reduce_local) and saves them
 *       for TANDEM_LOGGP=FILE, tandem-bench's model column and --loggp.
 */
#include "../src/model/collective_costs.h"
#include "../src/model/loggp.h"
#include "../src/model/schedule_cost.h"
#include "../src/model/split_tree_model.h"
#include "../src/select/select.h"

#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: tandem-model split-tree --cores N [--variable] [--json]\n"
                    "       tandem-model bounds --collective allreduce|reduce_scatter|allgather --dims 8x8x8\n"
                    "                           --bytes N [--ranks P] [--loggp FILE | --alpha A --beta B --gamma G\n"
                    "                           [--latency L]]\n"
                    "                           [--unidirectional] [--json]\n"
                    "       mpirun -np 2 tandem-model loggp [--reps R] [--save FILE]\n");
    return 2;
}

static void print_number(double v, int json)
{
    if (isinf(v))
        printf(json ? "null" : "%10s", "inf");
    else
        printf(json ? "%g" : "%10.3f", v);
}

static int split_tree(int argc, char **argv)
{
    tdm_split_model m = {0, 0};
    int json = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--cores") && i + 1 < argc)
            m.cores = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--variable"))
            m.variable = 1;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else
            return usage();
    }
    if (m.cores < 2) {
        fprintf(stderr, "tandem-model: --cores must be at least 2\n");
        return usage();
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

static int bounds(int argc, char **argv)
{
    const char *collective = "allreduce", *dims = NULL;
    double bytes = 1 << 20;
    int ranks = 0, json = 0, unidirectional = 0;
    tdm_loggp m = {1e-6, 1e-10, 2.5e-10, 0}; /* 1 us per message, 10 GB/s links, 4 GB/s reductions */
    for (int i = 0; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--collective") && value)
            collective = argv[++i];
        else if (!strcmp(argv[i], "--dims") && value)
            dims = argv[++i];
        else if (!strcmp(argv[i], "--ranks") && value)
            ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bytes") && value)
            bytes = atof(argv[++i]);
        else if (!strcmp(argv[i], "--alpha") && value)
            m.alpha = atof(argv[++i]);
        else if (!strcmp(argv[i], "--beta") && value)
            m.beta = atof(argv[++i]);
        else if (!strcmp(argv[i], "--gamma") && value)
            m.gamma = atof(argv[++i]);
        else if (!strcmp(argv[i], "--latency") && value)
            m.latency = atof(argv[++i]);
        else if (!strcmp(argv[i], "--loggp") && value) {
            if (!tdm_loggp_parse_setting(argv[++i], &m)) {
                fprintf(stderr, "tandem-model: --loggp %s: not a file written by tandem-model loggp\n", argv[i]);
                return usage();
            }
        }
        else if (!strcmp(argv[i], "--unidirectional"))
            unidirectional = 1;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else
            return usage();
    }
    tdm_cost_collective c = !strcmp(collective, "allreduce")        ? TDM_COST_ALLREDUCE
                            : !strcmp(collective, "reduce_scatter") ? TDM_COST_REDUCE_SCATTER
                            : !strcmp(collective, "allgather")      ? TDM_COST_ALLGATHER
                                                                    : (tdm_cost_collective)-1;
    if ((int)c < 0) {
        fprintf(stderr, "tandem-model: unknown collective %s\n", collective);
        return usage();
    }
    tdm_torus t;
    char ring[32];
    if (!dims) {
        snprintf(ring, sizeof ring, "%d", ranks);
        dims = ring;
    }
    if (!tdm_torus_parse(dims, &t)) {
        fprintf(stderr, "tandem-model: malformed --dims %s (expected lengths such as 8x8x8) or no --ranks\n", dims);
        return usage();
    }
    if (ranks && ranks != tdm_torus_ranks(&t)) {
        fprintf(stderr, "tandem-model: --dims %s has %d ranks, not --ranks %d\n", dims, tdm_torus_ranks(&t), ranks);
        return usage();
    }
    if (!tdm_loggp_latency_valid(&m)) {
        fprintf(stderr, "tandem-model: --latency %g: expected 0 to alpha (%g)\n", m.latency, m.alpha);
        return usage();
    }
    t.bidirectional = !unidirectional;
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

static int loggp(int argc, char **argv)
{
    const char *save = NULL;
    int reps = 21;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--save") && i + 1 < argc)
            save = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else
            return usage();
    }
    MPI_Init(NULL, NULL);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "tandem-model loggp: needs 2 ranks or more (mpirun -np 2) and --reps >= 1\n");
        MPI_Finalize();
        return 2;
    }
    tdm_loggp m;
    int rc = tdm_loggp_measure(MPI_COMM_WORLD, reps, &m);
    if (rank == 0 && rc == MPI_SUCCESS) {
        char how[128];
        snprintf(how, sizeof how, "ranks 0 and 1 of %d, medians of %d", size, reps);
        tdm_loggp_write(stdout, &m, how);
        printf("(beta: the slope of half round trips from 1 to 16 MiB; alpha: the start-up of a large message, half\n"
               " the round trip of 256 KiB less 256 KiB times beta; gamma: MPI_Reduce_local of MPI_SUM on doubles)\n");
        FILE *out = save ? fopen(save, "w") : NULL;
        if (save && (!out || !tdm_loggp_write(out, &m, how))) {
            fprintf(stderr, "tandem-model loggp: cannot write %s\n", save);
            rc = MPI_ERR_IO;
        }
        if (out)
            fclose(out);
        if (out && rc == MPI_SUCCESS)
            printf("saved in %s (use it with TANDEM_LOGGP=%s)\n", save, save);
    }
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "split-tree"))
        return split_tree(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "bounds"))
        return bounds(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "loggp"))
        return loggp(argc - 2, argv + 2);
    return usage();
}

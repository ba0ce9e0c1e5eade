/*
 * tandem-model: the cost models behind Tandem's choices, as tables.
 *
 *   tandem-model split-tree --cores 64 [--variable] [--json]
 *       for every number N of application ranks on a node of that many cores: the split level S the
 *       split-tree model picks, T_blocking, T_nonblocking(S) and T_overlapped(S) (unit: one message of
 *       the buffer; --variable: gather/scatter, whose messages double toward the root).
 *
 *   tandem-model bounds --collective allreduce|reduce_scatter|allgather --dims 8x8x8 --bytes N
 *                       [--ranks P] [--alpha A --beta B --gamma G] [--unidirectional] [--json]
 *       the lower bound on the torus and the closed-form cost of each algorithm (beta and gamma per
 *       byte; without --dims, a ring of --ranks ranks).
 */
#include "../src/model/collective_costs.h"
#include "../src/model/split_tree_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: tandem-model split-tree --cores N [--variable] [--json]\n"
                    "       tandem-model bounds --collective allreduce|reduce_scatter|allgather --dims 8x8x8\n"
                    "                           --bytes N [--ranks P] [--alpha A --beta B --gamma G]\n"
                    "                           [--unidirectional] [--json]\n");
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
    double cost;
} cost_row;

static int bounds(int argc, char **argv)
{
    const char *collective = "allreduce", *dims = NULL;
    double bytes = 1 << 20;
    int ranks = 0, json = 0, unidirectional = 0;
    tdm_loggp m = {1e-6, 1e-10, 2.5e-10}; /* 1 us per message, 10 GB/s links, 4 GB/s reductions */
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
    t.bidirectional = !unidirectional;
    int p = tdm_torus_ranks(&t);
    cost_row rows[6];
    int nrows = 0;
    double bound = tdm_cost_lower_bound(c, &t, bytes, &m);
    rows[nrows++] = (cost_row){"lower bound", bound};
    rows[nrows++] = (cost_row){"ring", tdm_cost_ring(c, p, bytes, &m)};
    rows[nrows++] = (cost_row){t.bidirectional ? "torus bucket (bidirectional)" : "torus bucket (unidirectional)",
                                      tdm_cost_torus_bucket(c, &t, bytes, &m)};
    if (c == TDM_COST_ALLREDUCE) {
        rows[nrows++] = (cost_row){"recursive doubling", tdm_cost_recursive_doubling_allreduce(p, bytes, &m)};
        rows[nrows++] = (cost_row){"rabenseifner", tdm_cost_rabenseifner_allreduce(p, bytes, &m)};
    }
    if (json) {
        printf("{\"collective\": \"%s\", \"dims\": \"%s\", \"ranks\": %d, \"bytes\": %.0f, "
               "\"bidirectional\": %s, \"alpha\": %g, \"beta\": %g, \"gamma\": %g, \"costs\": {",
               collective, dims, p, bytes, t.bidirectional ? "true" : "false", m.alpha, m.beta, m.gamma);
        for (int i = 0; i < nrows; i++)
            printf("%s\"%s\": %.9g", i ? ", " : "", rows[i].name, rows[i].cost);
        printf("}}\n");
        return 0;
    }
    printf("%s of %.0f bytes on a %s %s torus of %d ranks (alpha %g s, beta %g s/B, gamma %g s/B)\n", collective,
           bytes, dims, t.bidirectional ? "bidirectional" : "unidirectional", p, m.alpha, m.beta, m.gamma);
    printf("  %-32s %14s %10s\n", "algorithm", "seconds", "/ bound");
    for (int i = 0; i < nrows; i++)
        printf("  %-32s %14.6g %10.3f\n", rows[i].name, rows[i].cost, bound > 0 ? rows[i].cost / bound : 0);
    printf("(closed forms; the schedule-level costing and the torus bucket schedules themselves are still to come)\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "split-tree"))
        return split_tree(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "bounds"))
        return bounds(argc - 2, argv + 2);
    return usage();
}

/*
 * tandem-model: the cost models behind Tandem's choices, as tables.
 *
 *   tandem-model split-tree --cores 64 [--variable] [--json]
 *       for every number N of application ranks on a node of that many cores: the split level S the
 *       split-tree model picks, T_blocking, T_nonblocking(S) and T_overlapped(S) (unit: one message of
 *       the buffer; --variable: gather/scatter, whose messages double toward the root).
 */
#include "../src/model/split_tree_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: tandem-model split-tree --cores N [--variable] [--json]\n");
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

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "split-tree"))
        return split_tree(argc - 2, argv + 2);
    return usage();
}

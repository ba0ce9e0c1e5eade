/*
 * The split-tree model against its published figures: on 64 cores it picks S = 0 up to N = 51,
 * S = 1 from N = 52, S = 2 from N = 58 and S = 3 from N = 62, and T_overlapped is smallest at N = 51
 * with S = 0. Also the pieces: tree height, messages per level, the variable-size weights.
 */
#include "../src/model/split_tree_model.h"

#include <math.h>
#include <stdio.h>

static int checks, failures;

static void expect(double got, double want, const char *what, int arg)
{
    checks++;
    if (fabs(got - want) > 1e-9) {
        failures++;
        fprintf(stderr, "FAIL: %s (%d): got %g, expected %g\n", what, arg, got, want);
    }
}

int main(void)
{
    tdm_split_model m64 = {64, 0};
    for (int n = 2; n < 64; n++) {
        int want = n <= 51 ? 0 : n <= 57 ? 1 : n <= 61 ? 2 : 3;
        expect(tdm_split_best_s(&m64, n), want, "S chosen on 64 cores for N", n);
    }
    int best_n = 1;
    for (int n = 1; n <= 64; n++)
        if (tdm_split_t_overlapped(&m64, tdm_split_best_s(&m64, n), n) <
            tdm_split_t_overlapped(&m64, tdm_split_best_s(&m64, best_n), best_n))
            best_n = n;
    expect(best_n, 51, "N of the overall minimum on 64 cores", 0);
    expect(tdm_split_t_overlapped(&m64, 0, 51), 64.0 / 51 * 6, "T_overlapped(0, 51) = C(51)", 51);

    expect(tdm_split_height(1), 0, "H", 1);
    expect(tdm_split_height(23), 5, "H", 23);
    expect(tdm_split_height(64), 6, "H", 64);
    /* a tree of 23 leaves: 12, 6, 3, 1, 1 messages per level (odd levels need an extra edge) */
    int f23[] = {12, 6, 3, 1, 1};
    for (int i = 1; i <= 5; i++)
        expect(tdm_split_level_messages(23, i), f23[i - 1], "F(23, i), i", i);
    expect(tdm_split_t_blocking(&m64, 51), 6, "T_blocking(51)", 51);
    /* all levels in the background: F(60, i) = 30, 15, 8, 4, 2, 1 folded on 4 cores = 8+4+2+1+1+1 */
    expect(tdm_split_t_nonblocking(&m64, 0, 60), 17, "T_nonblocking(0, 60)", 60);
    expect(tdm_split_t_nonblocking(&m64, 6, 60), 6, "T_nonblocking(6, 60)", 60);
    /* no free core: everything must stay on the application cores */
    expect(isinf(tdm_split_t_nonblocking(&m64, 0, 64)), 1, "T_nonblocking(0, 64) is infinite", 64);
    expect(tdm_split_best_s(&m64, 64), 6, "S on a full node", 64);

    /* variable size: level i weighs 2^(i-1); the first S levels cost 2^S - 1 */
    tdm_split_model var = {64, 1};
    expect(tdm_split_t_blocking(&var, 64), 63, "W_H(64)", 64);
    expect(tdm_split_t_nonblocking(&var, 6, 60), 63, "variable T_nonblocking(6, 60)", 60);
    /* S = 2 on 60 ranks: 1 + 2 in front, then ceil(8/4)*4 + ceil(4/4)*8 + ceil(2/4)*16 + ceil(1/4)*32 */
    expect(tdm_split_t_nonblocking(&var, 2, 60), 3 + 8 + 8 + 16 + 32, "variable T_nonblocking(2, 60)", 60);
    expect(tdm_split_computation(&var, 32), 2.0 * 63, "variable C(32)", 32);

    printf("test_split_model: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}

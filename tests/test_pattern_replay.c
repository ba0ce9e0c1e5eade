/*
 * The plan's replay of an overlap pattern's run (pattern_plan.c) on costs worked out by hand, step by
 * step as pattern_run.c runs: one item of 1 s per tile, a data collective of 0.5 s, nothing to
 * consume, no call cost.
 *
 * fixed counts, window 1: each tile's collective hides behind the next item; the last one is waited
 *   for: 4 tiles end at 4 + 0.5 = 4.5.
 * v-form (sizes first, 0.1 s), window 1: a tile's data starts at the first look after its sizes, the
 *   look after the next item, and the window is then full: the start waits for all of it. Tile 0
 *   starts at 1, its data at 2 (done 2.5); tile 1 at 2.5, data 3.5 (4.0); tile 2 at 4.0, data 5.0
 *   (5.5); tile 3 at 5.5, waited for at once: data at 5.6, done 6.1.
 * v-form, window 2: the data of tile k starts at the look after item k + 1 while the next tile starts:
 *   tiles start at 1, 2, 3, 4, their data at 2, 3, 4 (done 2.5, 3.5, 4.5) and the last one's, waited
 *   for after tile 2's, at max(4.5, 4.1): done 5.0.
 * And the network: two collectives in flight share it, the second's bytes wait for the first's.
 */
#include "../src/patterns/pattern.h"

#include <math.h>
#include <stdio.h>

static int checks, failures;

static void expect(double got, double want, const char *what)
{
    checks++;
    if (fabs(got - want) > 1e-9) {
        failures++;
        fprintf(stderr, "FAIL: %s: got %.12g, expected %.12g\n", what, got, want);
    }
}

static tdm_pipeline_costs costs(int two_steps, int window)
{
    tdm_pipeline_costs k = {.c = 1, .u = 0, .sizes = two_steps ? 0.1 : 0, .n = 1, .last = 1, .window = window,
                            .two_steps = two_steps};
    for (int i = 0; i < 2; i++)
        k.latency[i] = 0.5, k.serial[i] = 0, k.call[i] = 0;
    return k;
}

int main(void)
{
    tdm_pipeline_costs k = costs(0, 1);
    expect(tdm_pattern_replay(&k, 4), 4.5, "fixed counts, window 1");
    k = costs(1, 1);
    expect(tdm_pattern_replay(&k, 4), 6.1, "v-form, window 1: the data waited for");
    k = costs(1, 2);
    expect(tdm_pattern_replay(&k, 4), 5.0, "v-form, window 2");
    k = costs(1, 2);
    expect(tdm_pattern_replay(&k, 1), 1.6, "v-form, one tile: computed, then waited for");

    /* the network: collectives of 0.5 s of which 0.4 s are bytes, started 0.25 s apart (window 2) */
    k = costs(0, 2);
    k.c = 0.25, k.latency[0] = k.latency[1] = 0.5, k.serial[0] = k.serial[1] = 0.4;
    /* tile 0 at 0.25 done 0.75; tile 1 at 0.5: max(1.0, 0.75 + 0.4) = 1.15; tile 2 at 0.75 (room: tile 0
     * done), max(1.25, 1.55) = 1.55; tile 3 at 1.15 (waits for tile 1) -> max(1.65, 1.95) = 1.95 */
    expect(tdm_pattern_replay(&k, 4), 1.95, "fixed counts, window 2, bytes serialized");

    /* consumption after each start: 0.2 s per item, the last tile's after its collective */
    k = costs(0, 1);
    k.u = 0.2;
    /* tile 0 at 1 (done 1.5); item 2 to 2, tile 1 starts, tile 0 consumed: 2.2; item 3 to 3.2, tile 2
     * at 3.2, tile 1 consumed: 3.4; item 4 to 4.4, tile 3 at 4.4, tile 2 consumed: 4.6; tile 3 done
     * at 4.9, consumed: 5.1 */
    expect(tdm_pattern_replay(&k, 4), 5.1, "fixed counts, window 1, consumption");

    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}

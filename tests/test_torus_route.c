/*
 * Routes on a torus (src/model/torus_route.h) against SimGrid's torus routing, worked out by hand from
 * its rule: dimension by dimension, the fastest-varying first, the shorter way; on a tie, the way its
 * rule picks from the source's coordinate. Link names: rank * TDM_TORUS_MAX_DIMS + dimension (the link
 * to the rank's neighbour above), times 2 plus the way (1: toward lower coordinates) when bidirectional.
 */
#include "../src/model/torus_route.h"

#include <stdio.h>
#include <stdlib.h>

static int checks, failures;

static void expect_route(const tdm_torus *t, int from, int to, int n, const int *want, const char *what)
{
    int got[16], count = tdm_torus_route(t, from, to, got, 16), ok = count == n;
    for (int h = 0; ok && h < n; h++)
        ok = got[h] == want[h];
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s: %d -> %d took %d links:", what, from, to, count);
        for (int h = 0; h < count && h < 16; h++)
            fprintf(stderr, " %d", got[h]);
        fprintf(stderr, "\n");
    }
}

#define LINK(rank, dim) ((rank) * TDM_TORUS_MAX_DIMS + (dim))
#define UP(rank, dim) (2 * LINK(rank, dim))
#define DOWN(rank, dim) (2 * LINK(rank, dim) + 1)

int main(void)
{
    tdm_torus ring = {.ndims = 1, .dims = {4}}; /* unidirectional: one link each way */
    expect_route(&ring, 0, 0, 0, NULL, "to itself");
    expect_route(&ring, 0, 1, 1, (int[]){LINK(0, 0)}, "to the neighbour above");
    expect_route(&ring, 0, 3, 1, (int[]){LINK(3, 0)}, "round the wrap, to the neighbour below: 3's link");
    expect_route(&ring, 0, 2, 2, (int[]){LINK(0, 0), LINK(1, 0)}, "a tie from 0: up");
    expect_route(&ring, 2, 0, 2, (int[]){LINK(1, 0), LINK(0, 0)}, "a tie from n/2: down");
    expect_route(&ring, 3, 1, 2, (int[]){LINK(3, 0), LINK(0, 0)}, "a tie from above n/2: up, round the wrap");
    expect_route(&ring, 1, 0, 1, (int[]){LINK(0, 0)}, "down: the same link as 0 -> 1, unidirectional");

    tdm_torus two = {.ndims = 1, .dims = {2}, .bidirectional = 1};
    expect_route(&two, 0, 1, 1, (int[]){UP(0, 0)}, "a dimension of two, 0 -> 1");
    expect_route(&two, 1, 0, 1, (int[]){DOWN(0, 0)}, "a dimension of two, 1 -> 0: the other way of 0's link");

    tdm_torus grid = {.ndims = 2, .dims = {4, 4}, .bidirectional = 1};
    expect_route(&grid, 0, 5, 2, (int[]){UP(0, 1), UP(1, 0)}, "the last dimension first");
    expect_route(&grid, 5, 0, 2, (int[]){DOWN(4, 1), DOWN(0, 0)}, "and back, each way its own link");
    expect_route(&grid, 0, 15, 2, (int[]){DOWN(3, 1), DOWN(15, 0)}, "both dimensions round the wrap");

    /* every pair of a 3x4x5 torus: as many links as the shortest way, every name in range */
    tdm_torus box = {.ndims = 3, .dims = {3, 4, 5}, .bidirectional = 1};
    int ranks = tdm_torus_ranks(&box), bad = 0, links[16];
    for (int a = 0; a < ranks; a++)
        for (int b = 0; b < ranks; b++) {
            int shortest = 0;
            for (int d = 2, x = a, y = b; d >= 0; x /= box.dims[d], y /= box.dims[d], d--) {
                int gap = abs(x % box.dims[d] - y % box.dims[d]);
                shortest += gap < box.dims[d] - gap ? gap : box.dims[d] - gap;
            }
            int n = tdm_torus_route(&box, a, b, links, 16);
            bad += n != shortest;
            for (int h = 0; h < n; h++)
                bad += links[h] < 0 || links[h] >= tdm_torus_links(&box);
        }
    checks++;
    if (bad) {
        failures++;
        fprintf(stderr, "FAIL: 3x4x5: %d routes not the shortest or links out of range\n", bad);
    }
    int first;
    checks++;
    if (tdm_torus_route(&box, 0, 59, &first, 1) != 3 || first != DOWN(4, 2)) {
        failures++;
        fprintf(stderr, "FAIL: room for one link: the first written, all counted\n");
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

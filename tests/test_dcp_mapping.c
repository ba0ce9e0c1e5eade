/*
 * The APP -> DCP mapping (src/placement/dcp_mapping.h): worked layouts (two nodes of 4, nodes of 5 and
 * 3, ranks placed round robin), and on every layout of up to 4 nodes and 12 ranks, every DCP count:
 * each application rank served by one DCP, each DCP's clients one consecutive block, the blocks in
 * order, rank 0 an application rank, and (nodes of consecutive ranks) a DCP of its own node for every
 * application rank whose node has one, the blocks of a node as equal as can be.
 */
#include "../src/placement/dcp_mapping.h"

#include <stdio.h>
#include <string.h>

static int checks, failures;

static void expect(int ok, const char *what, int a, int b)
{
    checks++;
    if (!ok && ++failures <= 20)
        fprintf(stderr, "FAIL: %s (%d, %d)\n", what, a, b);
}

static void worked(const char *what, int ranks, const int *node, int dcps, const int *dcp_world, const int *server)
{
    tdm_dcp_mapping m;
    expect(tdm_dcp_map(ranks, node, dcps, &m) == 0, what, ranks, dcps);
    for (int d = 0; d < dcps; d++)
        expect(m.dcp_world[d] == dcp_world[d], what, d, m.dcp_world[d]);
    for (int a = 0; a < ranks - dcps; a++)
        expect(m.server[a] == server[a], what, a, m.server[a]);
    tdm_dcp_mapping_free(&m);
}

/* The invariants of one layout and DCP count. */
static void invariants(int ranks, const int *node, int dcps)
{
    tdm_dcp_mapping m;
    if (tdm_dcp_map(ranks, node, dcps, &m) != 0) {
        expect(0, "mapping failed", ranks, dcps);
        return;
    }
    int consecutive = 1;
    for (int r = 1; r < ranks; r++)
        for (int q = 0; q < r - 1; q++)
            consecutive &= !(node[q] == node[r] && node[r - 1] != node[r]);
    expect(m.app_ranks == ranks - dcps && m.app_index[0] == 0, "rank 0 an application rank", ranks, dcps);
    int next = 0;
    for (int d = 0; d < dcps; d++) {
        expect(m.app_index[m.dcp_world[d]] == -1 && m.dcp_index[m.dcp_world[d]] == d, "a DCP's indices", ranks, d);
        expect(d == 0 || m.dcp_world[d] > m.dcp_world[d - 1], "DCPs in world order", ranks, d);
        expect(m.first_client[d] == next, "blocks consecutive and in order", d, m.first_client[d]);
        for (int a = m.first_client[d]; a < m.first_client[d] + m.clients[d]; a++)
            expect(m.server[a] == d, "a block's clients served by its DCP", a, d);
        next += m.clients[d];
    }
    expect(next == m.app_ranks, "every application rank served", next, m.app_ranks);
    for (int a = 0; a < m.app_ranks; a++) {
        int w = m.app_world[a];
        expect(m.app_index[w] == a && (a == 0 || w > m.app_world[a - 1]), "application ranks in world order", a, w);
        if (!consecutive)
            continue;
        int node_has_dcp = 0;
        for (int d = 0; d < dcps; d++)
            node_has_dcp |= node[m.dcp_world[d]] == node[w];
        expect(!node_has_dcp || node[m.dcp_world[m.server[a]]] == node[w], "served on its own node", a, w);
    }
    /* within a node, its DCPs' blocks differ by one client at most */
    for (int d = 0; consecutive && d < dcps; d++)
        for (int e = 0; e < dcps; e++)
            if (node[m.dcp_world[d]] == node[m.dcp_world[e]])
                expect(m.clients[d] - m.clients[e] <= 1 && m.clients[e] - m.clients[d] <= 1, "a node's blocks equal", d, e);
    tdm_dcp_mapping_free(&m);
}

int main(void)
{
    worked("two nodes of 4, 2 DCPs", 8, (int[]){0, 0, 0, 0, 1, 1, 1, 1}, 2, (int[]){3, 7}, (int[]){0, 0, 0, 1, 1, 1});
    worked("nodes of 5 and 3, 2 DCPs", 8, (int[]){7, 7, 7, 7, 7, 9, 9, 9}, 2, (int[]){4, 7},
           (int[]){0, 0, 0, 0, 1, 1});
    worked("round robin over 2 nodes, 2 DCPs", 8, (int[]){0, 1, 0, 1, 0, 1, 0, 1}, 2, (int[]){6, 7},
           (int[]){0, 0, 0, 1, 1, 1});
    worked("one node, 1:3", 8, (int[]){0, 0, 0, 0, 0, 0, 0, 0}, 2, (int[]){6, 7}, (int[]){0, 0, 0, 1, 1, 1});
    worked("3 nodes of 2, 1 DCP (ties: the earlier node): the others join it", 6, (int[]){0, 0, 1, 1, 2, 2}, 1,
           (int[]){1}, (int[]){0, 0, 0, 0, 0});
    worked("2 nodes of 1 rank: rank 0 stays an application rank", 2, (int[]){0, 1}, 1, (int[]){1}, (int[]){0});

    /* every layout of 2 to 12 ranks on up to 4 nodes: node of rank r = digit r of a base-4 number */
    int node[12];
    for (int ranks = 2; ranks <= 12; ranks++)
        for (long code = 0, codes = ranks <= 8 ? 1L << (2 * ranks) : 4096; code < codes; code++) {
            long c = ranks <= 8 ? code : code * 2654435761L % (1L << (2 * ranks)); /* a sample past 8 */
            for (int r = 0; r < ranks; r++, c >>= 2)
                node[r] = (int)(c & 3);
            for (int dcps = 1; dcps < ranks; dcps++)
                invariants(ranks, node, dcps);
        }

    expect(tdm_dcp_count_from_ratio(512, 7, 0) == 64, "1:7 from 512 ranks", tdm_dcp_count_from_ratio(512, 7, 0), 64);
    expect(tdm_dcp_count_from_ratio(512, 8, 1) == 64, "1:8 added to 512", tdm_dcp_count_from_ratio(512, 8, 1), 64);
    expect(tdm_dcp_count_from_ratio(3, 1, 0) == 2, "1:1 from 3 ranks", tdm_dcp_count_from_ratio(3, 1, 0), 2);
    tdm_dcp_mapping m;
    expect(tdm_dcp_map(4, node, 4, &m) == -1 && tdm_dcp_map(4, node, 0, &m) == -1 && tdm_dcp_map(1, node, 1, &m) == -1,
           "no application rank, no DCP, one rank: refused", 0, 0);

    printf("test_dcp_mapping: %d checks, %d failed: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures != 0;
}

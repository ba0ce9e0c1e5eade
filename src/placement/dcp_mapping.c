#include "dcp_mapping.h"

#include <stdlib.h>
#include <string.h>

int tdm_dcp_count_from_ratio(int ranks, int ratio, int added)
{
    return added ? (ranks + ratio - 1) / ratio : (ranks + ratio) / (ratio + 1);
}

void tdm_dcp_mapping_free(tdm_dcp_mapping *map)
{
    free(map->app_index);
    free(map->dcp_index);
    free(map->app_world);
    free(map->dcp_world);
    free(map->server);
    free(map->first_client);
    free(map->clients);
    memset(map, 0, sizeof *map);
}

/* Nodes numbered 0, 1, ... in the order of their first rank; their rank counts. Returns the nodes. */
static int number_nodes(int ranks, const int *node, int *id, int *count)
{
    int nodes = 0;
    for (int r = 0; r < ranks; r++) {
        int j = 0;
        while (j < r && node[j] != node[r])
            j++;
        id[r] = j < r ? id[j] : nodes++;
        count[id[r]]++;
    }
    return nodes;
}

/* DCPs per node in proportion to its ranks: floors (each below the node's ranks), then one more to the
 * largest remainders among the nodes that keep an application rank, then (every node reduced to one)
 * to whole nodes, never rank 0's (node 0). */
static void share_dcps(int ranks, int dcps, int nodes, const int *count, int *share)
{
    int given = 0;
    for (int j = 0; j < nodes; j++) {
        share[j] = (int)((long long)dcps * count[j] / ranks);
        given += share[j];
    }
    for (; given < dcps; given++) {
        int best = -1;
        long long best_rem = -1;
        for (int j = 0; j < nodes; j++) {
            long long rem = (long long)dcps * count[j] % ranks;
            if (share[j] < count[j] - 1 && share[j] * (long long)ranks <= (long long)dcps * count[j] && rem > best_rem)
                best = j, best_rem = rem;
        }
        for (int j = 0; j < nodes && best < 0; j++) /* no remainder left: the first node that keeps one */
            if (share[j] < count[j] - 1)
                best = j;
        for (int j = nodes - 1; j > 0 && best < 0; j--) /* nodes of one application rank each */
            if (share[j] < count[j])
                best = j;
        share[best]++;
    }
}

/* Application ranks [first, first + apps) served by DCPs dcp[0..k-1] in blocks as equal as can be. */
static void serve(tdm_dcp_mapping *map, int first, int apps, const int *dcp, int k)
{
    for (int i = 0, next = first; i < k; i++) {
        int n = apps / k + (i < apps % k);
        map->first_client[dcp[i]] = next;
        map->clients[dcp[i]] = n;
        for (int a = next; a < next + n; a++)
            map->server[a] = dcp[i];
        next += n;
    }
}

int tdm_dcp_map(int ranks, const int *node, int dcps, tdm_dcp_mapping *map)
{
    memset(map, 0, sizeof *map);
    if (ranks < 2 || dcps < 1 || dcps >= ranks)
        return -1;
    map->ranks = ranks;
    map->dcps = dcps;
    map->app_ranks = ranks - dcps;
    size_t r_ints = sizeof(int) * (size_t)ranks, k_ints = sizeof(int) * (size_t)dcps;
    map->app_index = malloc(r_ints);
    map->dcp_index = malloc(r_ints);
    map->app_world = malloc(r_ints);
    map->server = malloc(r_ints);
    map->dcp_world = malloc(k_ints);
    map->first_client = malloc(k_ints);
    map->clients = malloc(k_ints);
    int *id = malloc(r_ints), *count = calloc((size_t)ranks, sizeof(int)), *share = malloc(r_ints);
    int *taken = calloc((size_t)ranks, sizeof(int)), *group = malloc(k_ints);
    int ok = map->app_index && map->dcp_index && map->app_world && map->server && map->dcp_world &&
             map->first_client && map->clients && id && count && share && taken && group;
    if (ok) {
        int nodes = number_nodes(ranks, node, id, count);
        share_dcps(ranks, dcps, nodes, count, share);
        /* each node's DCPs: its highest ranks */
        for (int r = ranks - 1; r >= 0; r--) {
            int is_dcp = taken[id[r]] < share[id[r]];
            taken[id[r]] += is_dcp;
            map->dcp_index[r] = is_dcp; /* numbered below */
        }
        int apps = 0, k = 0, consecutive = 1;
        for (int r = 0; r < ranks; r++) {
            consecutive &= r == 0 || id[r] >= id[r - 1];
            if (map->dcp_index[r]) {
                map->dcp_world[k] = r;
                map->dcp_index[r] = k++;
                map->app_index[r] = -1;
            } else {
                map->app_world[apps] = r;
                map->app_index[r] = apps++;
                map->dcp_index[r] = -1;
            }
        }
        if (!consecutive) {
            for (int d = 0; d < dcps; d++)
                group[d] = d;
            serve(map, 0, apps, group, dcps);
        } else {
            /* nodes in order, each with its application ranks and its DCPs; a node without DCPs joins
             * the group before it (the first groups: the one after) */
            int first = 0, group_apps = 0, ngroup = 0;
            for (int j = 0; j < nodes; j++) {
                int node_apps = count[j] - share[j];
                if (share[j] > 0 && ngroup > 0) { /* a new group starts: the last one is served */
                    serve(map, first, group_apps, group, ngroup);
                    first += group_apps, group_apps = 0, ngroup = 0;
                }
                for (int d = 0; d < dcps; d++)
                    if (id[map->dcp_world[d]] == j)
                        group[ngroup++] = d;
                group_apps += node_apps;
            }
            serve(map, first, group_apps, group, ngroup);
        }
    }
    free(id);
    free(count);
    free(share);
    free(taken);
    free(group);
    if (!ok) {
        tdm_dcp_mapping_free(map);
        return -1;
    }
    return 0;
}

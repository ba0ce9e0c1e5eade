#include "comm_nodes.h"

#include <stdlib.h>

size_t tdm_shm_cell_bytes(size_t segment_bytes, int largest)
{
    size_t per_ring = segment_bytes / (size_t)(largest > 0 ? largest : 1) / TDM_SHM_WANTED_RINGS;
    size_t per_cell = per_ring > 64 + TDM_SHM_LINES_BYTES ? (per_ring - 64 - TDM_SHM_LINES_BYTES) / TDM_SHM_RING_CELLS : 0;
    size_t cell = per_cell > TDM_SHM_CELL_HEADER_BYTES ? (per_cell - TDM_SHM_CELL_HEADER_BYTES) / 64 * 64 : 0;
    if (cell < TDM_SHM_LEAST_CELL_BYTES)
        cell = TDM_SHM_LEAST_CELL_BYTES;
    return cell > TDM_SHM_MOST_CELL_BYTES ? TDM_SHM_MOST_CELL_BYTES : cell;
}

typedef struct {
    int key, rank;
} keyed_rank;

static int by_key_then_rank(const void *x, const void *y)
{
    const keyed_rank *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

tdm_comm_nodes *tdm_comm_nodes_of(int size, const int *node_key, size_t cell_bytes, int shm_wanted)
{
    /* the layout, then node_of, local, members, first (size + 1) and leaders (at most size) */
    tdm_comm_nodes *l = malloc(sizeof *l + sizeof(int) * (5 * (size_t)size + 1));
    keyed_rank *by_node = malloc(sizeof *by_node * (size_t)size), *groups = malloc(sizeof *groups * (size_t)size);
    if (!l || !by_node || !groups) {
        free(l), free(by_node), free(groups);
        return NULL;
    }
    int *node_of = (int *)(l + 1), *local = node_of + size, *members = local + size, *first = members + size,
        *leaders = first + size + 1;
    /* the ranks grouped by node, each group in rank order; then the groups in the order of their lowest
     * ranks (the leaders), which numbers the nodes */
    for (int r = 0; r < size; r++)
        by_node[r] = (keyed_rank){node_key[r], r};
    qsort(by_node, (size_t)size, sizeof *by_node, by_key_then_rank);
    int nnodes = 0;
    for (int i = 0; i < size; i++)
        if (i == 0 || by_node[i].key != by_node[i - 1].key)
            groups[nnodes++] = (keyed_rank){by_node[i].rank, i}; /* its leader, where it starts */
    qsort(groups, (size_t)nnodes, sizeof *groups, by_key_then_rank);
    int filled = 0, largest = 0;
    for (int k = 0; k < nnodes; k++) {
        first[k] = filled;
        leaders[k] = groups[k].key;
        for (int i = groups[k].rank; i < size && (i == groups[k].rank || by_node[i].key == by_node[i - 1].key); i++) {
            int r = by_node[i].rank;
            node_of[r] = k;
            local[r] = filled - first[k];
            members[filled++] = r;
        }
        largest = filled - first[k] > largest ? filled - first[k] : largest;
    }
    first[nnodes] = filled;
    int in_rank_order = 1;
    for (int i = 0; i < size; i++)
        in_rank_order &= members[i] == i;
    free(by_node);
    free(groups);
    *l = (tdm_comm_nodes){.size = size, .nnodes = nnodes, .largest = largest, .in_rank_order = in_rank_order,
                           .node_of = node_of,
                           .local = local, .first = first, .members = members, .leaders = leaders,
                           .cell_bytes = cell_bytes, .shm_wanted = shm_wanted};
    return l;
}

tdm_comm_nodes *tdm_comm_nodes_blocked(int size, int per_node, size_t cell_bytes)
{
    int *node_key = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    if (!node_key)
        return NULL;
    for (int r = 0; r < size; r++)
        node_key[r] = r / (per_node > 0 ? per_node : 1);
    tdm_comm_nodes *l = tdm_comm_nodes_of(size, node_key, cell_bytes, 1);
    free(node_key);
    return l;
}

/*
 * How a communicator's ranks lie on nodes, as node-aware algorithms read it (tdm_coll_args.nodes): the
 * same on every rank, known before the first call (from the nodes found at TDM_Init, engine/node.h), so
 * that every rank builds the same schedules whether or not the node's segment serves the call.
 */
#ifndef TANDEM_COMM_NODES_H
#define TANDEM_COMM_NODES_H

#include <stddef.h>

/* The rings' geometry (engine/shm_ring.h), which the schedules follow: the segment's default size per
 * node (containers often give /dev/shm 64 MiB, and MPI's own shared-memory transport takes from it
 * too); cells of a ring, and the ring count a part is cut for; a cell's header before its payload (a
 * line for the readers' count, half a line for the flag and name); a cell's payload at least and at most
 * (large messages go through in pipelined cells). */
#define TDM_SHM_DEFAULT_BYTES ((size_t)32 << 20)
#define TDM_SHM_RING_CELLS 8
#define TDM_SHM_WANTED_RINGS 16
#define TDM_SHM_CELL_HEADER_BYTES 96
#define TDM_SHM_LEAST_CELL_BYTES 256
#define TDM_SHM_MOST_CELL_BYTES ((size_t)64 << 10)
/* A ring's lines (engine/shm_lines.h) before its cells: buffers of a blocking call's small payload, as
 * many as a writer may be ahead of its readers, each a line with the first 56 bytes and lines for the
 * rest; a line for the count of calls finished. Nodes larger than TDM_SHM_LINES_MAX_RANKS do not use
 * them (every process of an allreduce reads every line). */
#define TDM_SHM_LINES_DEPTH 4
#define TDM_SHM_LINES_MAX_BYTES 1024
#define TDM_SHM_LINES_MAX_RANKS 16
#define TDM_SHM_LINES_BYTES (64 + TDM_SHM_LINES_DEPTH * (64 + TDM_SHM_LINES_MAX_BYTES))

typedef struct tdm_comm_nodes {
    int size;            /* ranks of the communicator */
    int nnodes;          /* nodes they are on, numbered in the order of their lowest ranks */
    int largest;         /* ranks on the fullest node */
    int in_rank_order;   /* each node holds consecutive ranks (rank order survives a reduction node by
                            node, for non-commutative ops) */
    const int *node_of;  /* [size]: the node of each rank */
    const int *local;    /* [size]: each rank's place among its node's ranks, in rank order */
    const int *first;    /* [nnodes + 1]: node k's ranks are members[first[k] .. first[k + 1]) */
    const int *members;  /* [size]: the ranks node by node, each node's in rank order */
    const int *leaders;  /* [nnodes]: each node's lowest rank */
    size_t cell_bytes;   /* the most one shm put carries on this rank's node (engine/shm_ring.h) */
    int shm_wanted;      /* the nodes' segments are wanted (TANDEM_SHM not off): the automatic choice
                            takes node-aware algorithms only then */
} tdm_comm_nodes;

/* The payload of a cell when each node's segment has segment_bytes and the fullest node `largest`
 * processes: every process finds the same, segment or not. */
size_t tdm_shm_cell_bytes(size_t segment_bytes, int largest);
/* The layout of `size` ranks, rank r on the node named node_key[r] (any numbers; nodes are numbered by
 * their lowest ranks); one allocation (free() frees it); NULL if out of memory. */
tdm_comm_nodes *tdm_comm_nodes_of(int size, const int *node_key, size_t cell_bytes, int shm_wanted);
/* Ranks in nodes of per_node consecutive ranks (the last may hold fewer): the models' layout. */
tdm_comm_nodes *tdm_comm_nodes_blocked(int size, int per_node, size_t cell_bytes);

static inline int tdm_node_ranks(const tdm_comm_nodes *l, int node) { return l->first[node + 1] - l->first[node]; }
/* Rank `local` of node `node`, and the array of that node's ranks. */
static inline int tdm_node_rank(const tdm_comm_nodes *l, int node, int local) { return l->members[l->first[node] + local]; }
static inline const int *tdm_node_members(const tdm_comm_nodes *l, int node) { return l->members + l->first[node]; }

#endif

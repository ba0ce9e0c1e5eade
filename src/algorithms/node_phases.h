/*
 * The phases node-aware algorithms are made of (allreduce_node.c, bcast_node.c, ...): inside this rank's
 * node, through its shared segment (shm puts and gets, schedule.h), with the node's lowest rank as its
 * leader; and among one rank per node over point-to-point, with any algorithm (tdm_node_among).
 *
 * Every rank of a node builds the same phases in the same order. A reader names the writer's step, so
 * the phases count the puts of each role: tdm_node_steps, kept by the algorithm across its phases.
 */
#ifndef TANDEM_NODE_PHASES_H
#define TANDEM_NODE_PHASES_H

#include "alg_util.h"

/* Puts so far of this node's leader and of each of its other ranks (all do the same). */
typedef struct tdm_node_steps {
    int leader, member;
} tdm_node_steps;

/* This rank's node, its place there, its ranks, and its leader. */
typedef struct tdm_node_view {
    int node, local, n;
    const int *members;
    int leader;
} tdm_node_view;
tdm_node_view tdm_node_view_of(const tdm_comm_nodes *l, int rank);

/* Elements of count whose memory image (type t) fits in one cell; at least 1. */
int tdm_node_chunk(const tdm_comm_nodes *l, const tdm_typeinfo *t);
/* Whether one element of t fits in a cell (the node-aware algorithms need it). */
int tdm_node_fits(const tdm_comm_nodes *l, const tdm_typeinfo *t);

/* The node's ranks but its leader (schedule memory): the readers of the leader's puts. */
const int *tdm_node_followers(tdm_schedule *s, const tdm_node_view *v);

/* The leader's acc = the node's inputs reduced (a->op, a->datatype, count elements) in rank order; acc
 * may be input. Unused on the other ranks. */
void tdm_node_reduce(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                     const void *input, void *acc, int count);
/* Every rank of the node gets the leader's count elements of type t at buf: the same datatype on every
 * rank (a reduction's), or MPI_BYTE. */
void tdm_node_bcast(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                    void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t);
/* Every rank's acc = the node's inputs reduced in rank order, each rank reading every other's: one step
 * for few ranks and short vectors. acc may be input. */
void tdm_node_allreduce_all(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                            const void *input, void *acc, int count);

/* Long vectors of a commutative op are cut into slices, one per rank of the smallest node (fewer where
 * the vector has fewer elements): rank j of each node (its j-th, in rank order) owns slice j. The number
 * of slices a call is cut into, or 0 where its leaders reduce whole vectors (tdm_node_reduce: short
 * vectors, non-commutative ops, a node of one rank, a reduce on nodes of 2). */
int tdm_node_slices(const tdm_coll_args *a);
/* The elements of slice j: from *first, *n of them. */
void tdm_node_slice(int count, int slices, int j, int *first, int *n);
/* The inputs of every rank reduced, slice by slice, into acc: each owner reduces its slice of acc from
 * its node's ranks through the segment, then over point-to-point (a->across_nodes, chosen for a slice)
 * allreduces it with the other nodes' owners of that slice (root < 0) and hands it to its node: every
 * rank's acc holds the result; or reduces it to the owner on the root's node (a reduce's root, a rank
 * of the communicator), which hands it to the root: the root's acc holds the result, and acc is scratch
 * of count elements elsewhere (written by owners only). acc may be input. steps count on only where
 * root < 0 (a reduce's puts end there). */
void tdm_node_reduce_slices(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, tdm_node_steps *steps,
                            const void *input, void *acc, int count, int slices, int root);

/* One node (a->nodes has one): every rank's block of the vector (counts[r] elements of rank r from
 * offset[r]) reduced, from its node's inputs, into `mine` (counts[a->rank] elements; input's own block
 * may be it) by that rank, in chunks as the slices go. The writers' steps end there: a last phase. */
void tdm_node_reduce_blocks(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v, const tdm_node_steps *steps,
                            const void *input, void *mine, const MPI_Aint *offset, const int *counts);

/* Several nodes: a reduce_scatter in slices (as tdm_node_reduce_slices cuts them) of the vector laid
 * out node by node (by_node: node 0's ranks' blocks in their order, then node 1's, ...; rank r's block
 * from pos[r], a->recvcounts[r] long; total elements): each owner reduces its slice from its node's
 * ranks, the owners of a slice reduce_scatter it among the nodes (each node its blocks' part of it,
 * a->across_nodes), and each owner hands each rank of its node what of its part falls in that rank's
 * block, into a->recvbuf. by_node may be a->recvbuf (in place): nothing reads it once the slices are
 * reduced. The writers' steps end there: a last phase. */
void tdm_node_reduce_scatter_slices(tdm_schedule *s, const tdm_coll_args *a, const tdm_node_view *v,
                                    const tdm_node_steps *steps, const void *by_node, const MPI_Aint *pos, int total,
                                    int slices);

/* Data that move between ranks whose datatypes may differ (gather, scatter, allgather) go as bytes, in
 * cells of l->cell_bytes. Puts `bytes` at buf for the readers, one put per cell (none for 0 bytes). */
void tdm_node_put_bytes(tdm_schedule *s, const tdm_comm_nodes *l, const void *buf, size_t bytes, const int *readers,
                        int nreaders);
/* Gets into buf the `bytes` a writer put with tdm_node_put_bytes from its step `step` on. */
void tdm_node_get_bytes(tdm_schedule *s, const tdm_comm_nodes *l, void *buf, size_t bytes, int writer, int step);
/* The puts tdm_node_put_bytes makes for `bytes`. */
int tdm_node_byte_puts(const tdm_comm_nodes *l, size_t bytes);
/* count elements of type at buf as dense bytes: buf itself where the type is dense, else packed into
 * schedule memory (a copy in the current round: puts after it read the packed bytes). */
const void *tdm_node_bytes_of(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t);
/* Every node has as many ranks. */
int tdm_nodes_uniform(const tdm_comm_nodes *l);
/* Where rank r's block of `block` bytes lies in a buffer of every rank's, node by node (l->members'
 * order). */
static inline size_t tdm_node_major_offset(const tdm_comm_nodes *l, int r, size_t block)
{
    return (size_t)(l->first[l->node_of[r]] + l->local[r]) * block;
}

/* The bytes of one rank's block in a gather, scatter or allgather (the same on every rank). */
size_t tdm_node_block_bytes(const tdm_coll_args *a);
/* The call among one rank per node of a gather, scatter or allgather whose blocks have `block` bytes:
 * each node's blocks one block of bytes, node by node, in a->kind where every node has as many ranks,
 * else in its v form (counts and displacements on both sides). The caller sets the buffers, the root
 * and in_place. s->error set if out of memory. */
tdm_coll_args tdm_node_among_blocks(tdm_schedule *s, const tdm_coll_args *a, size_t block);

/* A gather or scatter as its node-aware form sees it: blocks of `block` bytes, and the rank that
 * gathers or scatters each node's: the root for its own node, the leader for the others. */
typedef struct tdm_node_rooted {
    tdm_node_view v;
    size_t block;
    const int *collectors; /* [nnodes] (schedule memory) */
    int collector;         /* this rank's node's */
    int is_root;
    /* the collector's buffer: its node's blocks in its ranks' order, from `base` on; at the root every
     * rank's, node by node: the user's buffer itself where that is rank order and dense (direct) */
    char *blocks;
    size_t base;
    int direct;
} tdm_node_rooted;
/* 0 where the call moves nothing (0 bytes) or memory ran out; `user` and t: the root's buffer of every
 * rank's blocks (recvbuf of a gather, sendbuf of a scatter). */
int tdm_node_rooted_of(tdm_schedule *s, const tdm_coll_args *a, const void *user, const tdm_typeinfo *t,
                       tdm_node_rooted *r);

/* The call among one rank per node, of `kind`: a's arguments, this rank's node as its rank, from
 * sendbuf into recvbuf (not in place). */
tdm_coll_args tdm_node_among_call(const tdm_coll_args *a, tdm_coll_kind kind, const void *sendbuf, void *recvbuf);

/* Runs `build` for the call in sub (rank and size those among `ranks`, ranks of the communicator)
 * in s, its messages going to ranks[peer]. */
int tdm_node_among(tdm_schedule *s, const tdm_coll_args *sub, tdm_algorithm_fn build, const int *ranks);

#endif

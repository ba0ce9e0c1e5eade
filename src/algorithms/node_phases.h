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

/* Runs `build` for the call in sub (rank and size those among `ranks`, ranks of the communicator)
 * in s, its messages going to ranks[peer]. */
int tdm_node_among(tdm_schedule *s, const tdm_coll_args *sub, tdm_algorithm_fn build, const int *ranks);

#endif

/*
 * The blocks of a neighbourhood collective, and the order in which a rank sends them. Two ranks'
 * messages match in posting order: receives are posted in neighbour order and sends too, except that
 * on a Cartesian topology each dimension's positive neighbour is sent to before its negative one, so
 * that where one rank is both neighbours of a dimension (a periodic dimension of 1 or 2 ranks), the
 * block a rank sends its positive neighbour is the one that neighbour receives from its negative one,
 * first (the standard's exchange: block j arrives in block j^1).
 */
#ifndef TANDEM_NEIGHBOR_BLOCKS_H
#define TANDEM_NEIGHBOR_BLOCKS_H

#include "coll_args.h"

/* Block j of the send side (to a->dests[j]) and block i of the receive side (from a->sources[i]):
 * where it lies, its count and its datatype. */
const void *tdm_neighbor_send_block(const tdm_coll_args *a, int j, int *count, MPI_Datatype *type);
void *tdm_neighbor_recv_block(const tdm_coll_args *a, int i, int *count, MPI_Datatype *type);

/* The send block posted k-th. */
static inline int tdm_neighbor_send_order(const tdm_coll_args *a, int k) { return a->cartesian ? k ^ 1 : k; }

#endif

/*
 * Where each rank's block of a call lies (the call's block geometry), read by the algorithms that build
 * schedules and by the DCP client that packs a call for its server.
 *
 * alltoall, alltoallv and alltoallw: uniform blocks, from counts and displacements in elements, or
 * (alltoallw) with a datatype per rank and displacements in bytes. With MPI_IN_PLACE the outgoing
 * blocks are first copied out of recvbuf (same layout and datatypes), which the incoming ones then
 * overwrite.
 *
 * The neighbourhood collectives, and the order in which a rank sends their blocks. Two ranks' messages
 * match in posting order: receives are posted in neighbour order and sends too, except that on a
 * Cartesian topology each dimension's positive neighbour is sent to before its negative one, so that
 * where one rank is both neighbours of a dimension (a periodic dimension of 1 or 2 ranks), the block a
 * rank sends its positive neighbour is the one that neighbour receives from its negative one, first (the
 * standard's exchange: block j arrives in block j^1).
 */
#ifndef TANDEM_COLL_BLOCKS_H
#define TANDEM_COLL_BLOCKS_H

#include "coll_args.h"
#include "schedule.h"

/* Temporary buffer for count elements of a type, addressed like a user buffer of that type. */
void *tdm_tmp_elems(tdm_schedule *s, const tdm_typeinfo *t, MPI_Aint count);
/* Offsets of p consecutive blocks of the given counts (schedule memory; NULL if out of memory). */
MPI_Aint *tdm_prefix_offsets(tdm_schedule *s, const int *counts, int p);
/* The int displacements of a v-collective as MPI_Aint offsets (schedule memory). */
MPI_Aint *tdm_aint_offsets(tdm_schedule *s, tdm_displs displs, int p);

typedef struct {
    const void *base;      /* sendbuf, or the snapshot of recvbuf */
    MPI_Datatype type;
    const tdm_typeinfo *t;
    const int *counts;     /* NULL: uniform blocks of `count` */
    tdm_displs displs;
    int count;
    const MPI_Datatype *types;  /* alltoallw: the type of each block; displs are in bytes */
} tdm_outgoing_blocks;

/* Describes (and for MPI_IN_PLACE, schedules the snapshot of) the blocks this rank sends. */
int tdm_outgoing_blocks_init(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out);
void tdm_outgoing_block(const tdm_outgoing_blocks *out, int j, const void **buf, int *count,
                        MPI_Datatype *type);

/* Where the block from rank j lands, and its count and datatype. */
static inline void *tdm_incoming_block(const tdm_coll_args *a, int j, int *count, MPI_Datatype *type)
{
    *count = a->recvcounts ? a->recvcounts[j] : a->recvcount;
    if (a->recvtypes) {
        *type = a->recvtypes[j];
        return (char *)a->recvbuf + tdm_displ(a->rdispls, j);
    }
    *type = a->recvtype;
    MPI_Aint first = a->recvcounts ? tdm_displ(a->rdispls, j) : (MPI_Aint)j * a->recvcount;
    return tdm_elem(a->recvbuf, &a->rtype, first);
}

/* Block j of the send side (to a->dests[j]) and block i of the receive side (from a->sources[i]):
 * where it lies, its count and its datatype. */
const void *tdm_neighbor_send_block(const tdm_coll_args *a, int j, int *count, MPI_Datatype *type);
void *tdm_neighbor_recv_block(const tdm_coll_args *a, int i, int *count, MPI_Datatype *type);

/* The send block posted k-th. */
static inline int tdm_neighbor_send_order(const tdm_coll_args *a, int k) { return a->cartesian ? k ^ 1 : k; }

#endif

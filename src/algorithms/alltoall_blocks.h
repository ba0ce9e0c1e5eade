/*
 * The per-rank blocks of alltoall, alltoallv and alltoallw: uniform, from counts and displacements in
 * elements, or (alltoallw) with a datatype per rank and displacements in bytes. With MPI_IN_PLACE the
 * outgoing blocks are first copied out of recvbuf (same layout and datatypes), which the incoming ones
 * then overwrite.
 */
#ifndef TANDEM_ALLTOALL_BLOCKS_H
#define TANDEM_ALLTOALL_BLOCKS_H

#include "alg_util.h"

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

#endif

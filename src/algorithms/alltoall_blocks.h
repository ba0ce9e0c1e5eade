/*
 * The per-rank blocks of alltoall and alltoallv, uniform or from counts/displacements. With
 * MPI_IN_PLACE the outgoing blocks are first copied out of recvbuf (same layout and datatype), which
 * the incoming ones then overwrite.
 */
#ifndef TANDEM_ALLTOALL_BLOCKS_H
#define TANDEM_ALLTOALL_BLOCKS_H

#include "alg_util.h"

typedef struct {
    const void *base;      /* sendbuf, or the snapshot of recvbuf */
    MPI_Datatype type;
    const tdm_typeinfo *t;
    const int *counts, *displs; /* NULL: uniform blocks of `count` */
    int count;
} tdm_outgoing_blocks;

/* Describes (and for MPI_IN_PLACE, schedules the snapshot of) the blocks this rank sends. */
int tdm_outgoing_blocks_init(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out);
void tdm_outgoing_block(const tdm_outgoing_blocks *out, int j, const void **buf, int *count,
                        MPI_Datatype *type);

/* Where the block from rank j lands. */
static inline void *tdm_incoming_block(const tdm_coll_args *a, int j, int *count)
{
    *count = a->recvcounts ? a->recvcounts[j] : a->recvcount;
    MPI_Aint first = a->rdispls ? a->rdispls[j] : (MPI_Aint)j * a->recvcount;
    return tdm_elem(a->recvbuf, &a->rtype, first);
}

#endif

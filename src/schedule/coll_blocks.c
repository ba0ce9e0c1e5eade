#include "coll_blocks.h"

void *tdm_tmp_elems(tdm_schedule *s, const tdm_typeinfo *t, MPI_Aint count)
{
    if (count <= 0)
        return NULL;
    size_t bytes = (size_t)t->true_extent + (size_t)(count - 1) * (size_t)t->extent;
    char *p = tdm_sched_tmp(s, bytes);
    return p ? p - t->true_lb : NULL;
}

MPI_Aint *tdm_prefix_offsets(tdm_schedule *s, const int *counts, int p)
{
    MPI_Aint *offset = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)p), sum = 0;
    if (offset)
        for (int b = 0; b < p; sum += counts[b++])
            offset[b] = sum;
    return offset;
}

MPI_Aint *tdm_aint_offsets(tdm_schedule *s, tdm_displs displs, int p)
{
    MPI_Aint *offset = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)p);
    if (offset)
        for (int b = 0; b < p; b++)
            offset[b] = tdm_displ(displs, b);
    return offset;
}

/* alltoallw in place: the bytes the blocks of recvbuf cover, copied to a snapshot at the same offsets. */
static int snapshot_typed_blocks(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int j = 0; j < a->size; j++) {
        MPI_Aint lb, extent, true_lb, true_extent;
        if (a->recvcounts[j] == 0)
            continue;
        if (MPI_Type_get_extent(a->recvtypes[j], &lb, &extent) != MPI_SUCCESS ||
            MPI_Type_get_true_extent(a->recvtypes[j], &true_lb, &true_extent) != MPI_SUCCESS) {
            s->error = MPI_ERR_TYPE; /* its bounds unknown, the block would be copied past the snapshot */
            return 0;
        }
        MPI_Aint first = tdm_displ(a->rdispls, j) + true_lb, end = first + (a->recvcounts[j] - 1) * extent + true_extent;
        lo = any && lo < first ? lo : first;
        hi = any && hi > end ? hi : end;
        any = 1;
    }
    char *snapshot = hi > lo ? tdm_sched_tmp(s, (size_t)(hi - lo)) : NULL;
    if (hi > lo && !snapshot)
        return 0;
    char *base = snapshot ? snapshot - lo : NULL;
    for (int j = 0; j < a->size && base; j++)
        tdm_sched_copy(s, (char *)a->recvbuf + tdm_displ(a->rdispls, j), a->recvcounts[j], a->recvtypes[j],
                       base + tdm_displ(a->rdispls, j), a->recvcounts[j], a->recvtypes[j]);
    *out = (tdm_outgoing_blocks){.base = base, .counts = a->recvcounts, .displs = a->rdispls,
                                 .types = a->recvtypes};
    return 1;
}

int tdm_outgoing_blocks_init(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out)
{
    if (!a->in_place) {
        *out = (tdm_outgoing_blocks){.base = a->sendbuf, .type = a->sendtype, .t = &a->stype,
                                     .counts = a->sendcounts, .displs = a->sdispls,
                                     .count = a->sendcount, .types = a->sendtypes};
        return 1;
    }
    if (a->recvtypes)
        return snapshot_typed_blocks(s, a, out);
    /* the blocks, copied one after another into a snapshot of their total (which may pass INT_MAX:
     * block by block); the blocks of a call in chunks are a chunk each, spread over recvbuf */
    MPI_Aint *offsets = NULL, total = (MPI_Aint)a->recvcount * a->size;
    if (a->recvcounts) {
        if (!(offsets = tdm_prefix_offsets(s, a->recvcounts, a->size)))
            return 0;
        total = offsets[a->size - 1] + a->recvcounts[a->size - 1];
    }
    void *snapshot = tdm_tmp_elems(s, &a->rtype, total);
    if (total > 0 && !snapshot)
        return 0;
    for (int j = 0; j < a->size; j++) {
        int count;
        MPI_Datatype type;
        void *block = tdm_incoming_block(a, j, &count, &type);
        MPI_Aint first = offsets ? offsets[j] : (MPI_Aint)j * a->recvcount;
        tdm_sched_copy(s, block, count, a->recvtype, tdm_elem(snapshot, &a->rtype, first), count, a->recvtype);
    }
    *out = (tdm_outgoing_blocks){.base = snapshot, .type = a->recvtype, .t = &a->rtype,
                                 .counts = a->recvcounts, .displs = tdm_displs_of_aints(offsets),
                                 .count = a->recvcount};
    return 1;
}

void tdm_outgoing_block(const tdm_outgoing_blocks *out, int j, const void **buf, int *count,
                        MPI_Datatype *type)
{
    *count = out->counts ? out->counts[j] : out->count;
    if (out->types) {
        *type = out->types[j];
        *buf = (const char *)out->base + tdm_displ(out->displs, j);
        return;
    }
    *type = out->type;
    MPI_Aint first = out->counts ? tdm_displ(out->displs, j) : (MPI_Aint)j * out->count;
    *buf = tdm_elem(out->base, out->t, first);
}

const void *tdm_neighbor_send_block(const tdm_coll_args *a, int j, int *count, MPI_Datatype *type)
{
    switch (a->kind) {
    case TDM_COLL_NEIGHBOR_ALLGATHER:
    case TDM_COLL_NEIGHBOR_ALLGATHERV:
        *count = a->sendcount, *type = a->sendtype;
        return a->sendbuf;
    case TDM_COLL_NEIGHBOR_ALLTOALL:
        *count = a->sendcount, *type = a->sendtype;
        return tdm_elem(a->sendbuf, &a->stype, (MPI_Aint)j * a->sendcount);
    case TDM_COLL_NEIGHBOR_ALLTOALLV:
        *count = a->sendcounts[j], *type = a->sendtype;
        return tdm_elem(a->sendbuf, &a->stype, tdm_displ(a->sdispls, j));
    default: /* alltoallw */
        *count = a->sendcounts[j], *type = a->sendtypes[j];
        return (const char *)a->sendbuf + tdm_displ(a->sdispls, j);
    }
}

void *tdm_neighbor_recv_block(const tdm_coll_args *a, int i, int *count, MPI_Datatype *type)
{
    switch (a->kind) {
    case TDM_COLL_NEIGHBOR_ALLGATHER:
    case TDM_COLL_NEIGHBOR_ALLTOALL:
        *count = a->recvcount, *type = a->recvtype;
        return tdm_elem(a->recvbuf, &a->rtype, (MPI_Aint)i * a->recvcount);
    case TDM_COLL_NEIGHBOR_ALLGATHERV:
    case TDM_COLL_NEIGHBOR_ALLTOALLV:
        *count = a->recvcounts[i], *type = a->recvtype;
        return tdm_elem(a->recvbuf, &a->rtype, tdm_displ(a->rdispls, i));
    default: /* alltoallw */
        *count = a->recvcounts[i], *type = a->recvtypes[i];
        return (char *)a->recvbuf + tdm_displ(a->rdispls, i);
    }
}

#include "alltoall_blocks.h"

int tdm_outgoing_blocks_init(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out)
{
    if (!a->in_place) {
        *out = (tdm_outgoing_blocks){.base = a->sendbuf, .type = a->sendtype, .t = &a->stype,
                                     .counts = a->sendcounts, .displs = a->sdispls,
                                     .count = a->sendcount};
        return 1;
    }
    /* elements of recvbuf the blocks cover; copied block by block (their total may pass INT_MAX) */
    MPI_Aint span = (MPI_Aint)a->recvcount * a->size;
    if (a->recvcounts) {
        span = 0;
        for (int j = 0; j < a->size; j++)
            if (a->recvcounts[j] > 0 && a->rdispls[j] + (MPI_Aint)a->recvcounts[j] > span)
                span = a->rdispls[j] + (MPI_Aint)a->recvcounts[j];
    }
    void *snapshot = tdm_tmp_elems(s, &a->rtype, span);
    if (span > 0 && !snapshot)
        return 0;
    for (int j = 0; j < a->size; j++) {
        int count;
        void *block = tdm_incoming_block(a, j, &count);
        MPI_Aint first = a->rdispls ? a->rdispls[j] : (MPI_Aint)j * a->recvcount;
        tdm_sched_copy(s, block, count, a->recvtype, tdm_elem(snapshot, &a->rtype, first), count, a->recvtype);
    }
    *out = (tdm_outgoing_blocks){.base = snapshot, .type = a->recvtype, .t = &a->rtype,
                                 .counts = a->recvcounts, .displs = a->rdispls,
                                 .count = a->recvcount};
    return 1;
}

void tdm_outgoing_block(const tdm_outgoing_blocks *out, int j, const void **buf, int *count,
                        MPI_Datatype *type)
{
    *type = out->type;
    *count = out->counts ? out->counts[j] : out->count;
    MPI_Aint first = out->displs ? out->displs[j] : (MPI_Aint)j * out->count;
    *buf = tdm_elem(out->base, out->t, first);
}

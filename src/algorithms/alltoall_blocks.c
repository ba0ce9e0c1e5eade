#include "alltoall_blocks.h"

int tdm_outgoing_blocks_init(tdm_schedule *s, const tdm_coll_args *a, tdm_outgoing_blocks *out)
{
    int p = a->size;
    if (!a->in_place) {
        *out = (tdm_outgoing_blocks){.base = a->sendbuf, .type = a->sendtype, .t = &a->stype,
                                     .counts = a->sendcounts, .displs = a->sdispls,
                                     .count = a->sendcount};
        return 1;
    }
    int *offset = tdm_sched_tmp(s, sizeof(int) * 2 * (size_t)p);
    if (!offset)
        return 0;
    int *bytes = offset + p, total = 0;
    for (int j = 0; j < p; j++) {
        offset[j] = total;
        bytes[j] = (a->recvcounts ? a->recvcounts[j] : a->recvcount) * a->rtype.size;
        total += bytes[j];
    }
    char *snapshot = tdm_sched_tmp(s, (size_t)total);
    for (int j = 0; j < p; j++) {
        int count;
        void *block = tdm_incoming_block(a, j, &count);
        tdm_sched_copy(s, block, count, a->recvtype, snapshot + offset[j], bytes[j], MPI_PACKED);
    }
    *out = (tdm_outgoing_blocks){.base = snapshot, .type = MPI_PACKED, .packed_offset = offset,
                                 .packed_bytes = bytes};
    return 1;
}

void tdm_outgoing_block(const tdm_outgoing_blocks *out, int j, const void **buf, int *count,
                        MPI_Datatype *type)
{
    *type = out->type;
    if (out->packed_offset) {
        *buf = (const char *)out->base + out->packed_offset[j];
        *count = out->packed_bytes[j];
        return;
    }
    *count = out->counts ? out->counts[j] : out->count;
    MPI_Aint first = out->displs ? out->displs[j] : (MPI_Aint)j * out->count;
    *buf = tdm_elem(out->base, out->t, first);
}

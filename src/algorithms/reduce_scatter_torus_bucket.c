/* Reduce-scatter (and reduce_scatter_block) with the multi-color bucket algorithm on the ranks' torus
 * (torus_bucket.c), bidirectional (torus_bucket) or unidirectional (torus_bucket_uni). Commutative ops
 * only; selection gives others reduce_scatter_pairwise. In place it runs in one lane: its result
 * overwrites input that another lane's sub-colors may not have read yet. */
#include "alg_util.h"

static int reduce_scatter_torus(tdm_schedule *s, const tdm_coll_args *a, tdm_bucket_form form)
{
    MPI_Aint *offset = tdm_prefix_offsets(s, a->recvcounts, a->size);
    if (!offset)
        return tdm_sched_finish(s);
    return tdm_torus_bucket(s, a, TDM_TORUS_REDUCE_SCATTER, form, tdm_reduction_input(a), offset, offset,
                            a->recvcounts, a->recvbuf);
}

int tdm_reduce_scatter_torus_bucket(tdm_schedule *s, const tdm_coll_args *a)
{
    return reduce_scatter_torus(s, a, TDM_BUCKET_BIDIRECTIONAL);
}
int tdm_reduce_scatter_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a)
{
    return reduce_scatter_torus(s, a, TDM_BUCKET_UNIDIRECTIONAL);
}

int tdm_reduce_scatter_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_REDUCE_SCATTER, TDM_BUCKET_BIDIRECTIONAL, threads, per_thread);
}
int tdm_reduce_scatter_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_REDUCE_SCATTER, TDM_BUCKET_UNIDIRECTIONAL, threads, per_thread);
}

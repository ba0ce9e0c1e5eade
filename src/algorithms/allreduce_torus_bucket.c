/* Allreduce with the multi-color bucket algorithm on the ranks' torus (torus_bucket.c): the bucket
 * reduce-scatter, then the bucket allgather, every link busy in both directions (torus_bucket) or one
 * (torus_bucket_uni). Commutative ops only; selection gives others an order-keeping algorithm. */
#include "alg_util.h"

static int allreduce_torus(tdm_schedule *s, const tdm_coll_args *a, tdm_bucket_form form)
{
    MPI_Aint *offset;
    int *count;
    if (!tdm_even_blocks(s, a->count, a->size, &offset, &count))
        return tdm_sched_finish(s);
    return tdm_torus_bucket(s, a, TDM_TORUS_ALLREDUCE, form, tdm_reduction_input(a), offset, offset,
                            count, a->recvbuf);
}

int tdm_allreduce_torus_bucket(tdm_schedule *s, const tdm_coll_args *a)
{
    return allreduce_torus(s, a, TDM_BUCKET_BIDIRECTIONAL);
}
int tdm_allreduce_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a)
{
    return allreduce_torus(s, a, TDM_BUCKET_UNIDIRECTIONAL);
}
int tdm_allreduce_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_ALLREDUCE, TDM_BUCKET_BIDIRECTIONAL, threads, per_thread);
}
int tdm_allreduce_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_ALLREDUCE, TDM_BUCKET_UNIDIRECTIONAL, threads, per_thread);
}

/* Allgather with the multi-color bucket algorithm on the ranks' torus (torus_bucket.c), bidirectional
 * (torus_bucket), unidirectional (torus_bucket_uni), or bidirectional with every part going the shorter
 * way round each ring (torus_bucket_halfway: half the steps, the same bytes per link): every block
 * travels the colors' phases in reverse dimension order. The own block is read from sendbuf (through a
 * copy in recvbuf's type if the types differ), never from recvbuf, so that lanes on other threads never
 * read what one writes. */
#include "alg_util.h"

#include <string.h>

static int allgather_torus(tdm_schedule *s, const tdm_coll_args *a, tdm_bucket_form form)
{
    MPI_Aint *offset, *input_offset;
    int *count;
    if (!tdm_even_blocks(s, (MPI_Aint)a->recvcount * a->size, a->size, &offset, &count))
        return tdm_sched_finish(s);
    const void *input = a->recvbuf;
    input_offset = offset;
    if (!a->in_place) {
        if (!(input_offset = tdm_sched_tmp(s, sizeof(MPI_Aint) * (size_t)a->size)))
            return tdm_sched_finish(s);
        memset(input_offset, 0, sizeof(MPI_Aint) * (size_t)a->size); /* the own block starts the input */
        input = a->sendbuf;
        if (a->sendtype != a->recvtype || a->sendcount != a->recvcount) {
            void *own = tdm_tmp_elems(s, &a->rtype, count[a->rank]);
            tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, own, count[a->rank], a->recvtype);
            input = own;
        }
    }
    tdm_coll_args blocks = *a; /* the algorithm works on recvbuf's type */
    blocks.datatype = a->recvtype;
    blocks.dtype = a->rtype;
    return tdm_torus_bucket(s, &blocks, TDM_TORUS_ALLGATHER, form, input, input_offset, offset, count,
                            a->recvbuf);
}

int tdm_allgather_torus_bucket(tdm_schedule *s, const tdm_coll_args *a)
{
    return allgather_torus(s, a, TDM_BUCKET_BIDIRECTIONAL);
}
int tdm_allgather_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a)
{
    return allgather_torus(s, a, TDM_BUCKET_UNIDIRECTIONAL);
}
int tdm_allgather_torus_bucket_halfway(tdm_schedule *s, const tdm_coll_args *a)
{
    return allgather_torus(s, a, TDM_BUCKET_HALFWAY);
}
int tdm_allgather_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_ALLGATHER, TDM_BUCKET_BIDIRECTIONAL, threads, per_thread);
}
int tdm_allgather_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_ALLGATHER, TDM_BUCKET_UNIDIRECTIONAL, threads, per_thread);
}
int tdm_allgather_torus_bucket_halfway_lanes(const tdm_coll_args *a, int threads, int *per_thread)
{
    return tdm_torus_bucket_lanes(a, TDM_TORUS_ALLGATHER, TDM_BUCKET_HALFWAY, threads, per_thread);
}

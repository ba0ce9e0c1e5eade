/* Allgather with the multi-color bucket algorithm on the ranks' torus (torus_bucket.c), bidirectional
 * (torus_bucket) or unidirectional (torus_bucket_uni): the own block goes into recvbuf first, then
 * every block travels the colors' phases in reverse dimension order. */
#include "alg_util.h"

static int allgather_torus(tdm_schedule *s, const tdm_coll_args *a, int bidirectional)
{
    MPI_Aint *offset;
    int *count;
    if (!tdm_even_blocks(s, (MPI_Aint)a->recvcount * a->size, a->size, &offset, &count))
        return tdm_sched_finish(s);
    if (!a->in_place)
        tdm_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, tdm_elem(a->recvbuf, &a->rtype, offset[a->rank]),
                       count[a->rank], a->recvtype);
    tdm_coll_args blocks = *a; /* the algorithm works on recvbuf's type */
    blocks.datatype = a->recvtype;
    blocks.dtype = a->rtype;
    return tdm_torus_bucket(s, &blocks, TDM_TORUS_ALLGATHER, bidirectional, a->recvbuf, offset, count, a->recvbuf);
}

int tdm_allgather_torus_bucket(tdm_schedule *s, const tdm_coll_args *a) { return allgather_torus(s, a, 1); }
int tdm_allgather_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a) { return allgather_torus(s, a, 0); }

#include "alg_util.h"

void *tdm_tmp_elems(tdm_schedule *s, const tdm_typeinfo *t, MPI_Aint count)
{
    if (count <= 0)
        return NULL;
    size_t bytes = (size_t)t->true_extent + (size_t)(count - 1) * (size_t)t->extent;
    char *p = tdm_sched_tmp(s, bytes);
    return p ? p - t->true_lb : NULL;
}

void tdm_reduce_from_lower(tdm_schedule *s, const tdm_coll_args *a, const void *lower, void *acc,
                           int count)
{
    tdm_sched_reduce(s, lower, acc, count, a->datatype, a->op);
}

void tdm_reduce_from_higher(tdm_schedule *s, const tdm_coll_args *a, void *higher, void *acc,
                            int count)
{
    if (a->commutative) {
        tdm_sched_reduce(s, higher, acc, count, a->datatype, a->op);
        return;
    }
    tdm_sched_reduce(s, acc, higher, count, a->datatype, a->op);
    tdm_sched_copy(s, higher, count, a->datatype, acc, count, a->datatype);
}

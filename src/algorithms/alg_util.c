#include "alg_util.h"

#include "../model/collective_costs.h" /* the pipelined step's best segment count */

#include <math.h>

int tdm_segments(const tdm_coll_args *a, MPI_Aint elems, int reduces)
{
    double bytes = (double)elems * a->dtype.size, k = 1;
    if (elems <= 1 || bytes <= 0)
        return 1;
    if (a->segment_bytes > 0)
        k = ceil(bytes / (double)a->segment_bytes);
    else if (reduces)
        k = tdm_best_segments(bytes, &a->loggp);
    return (int)fmin(k, fmin((double)elems, 1 << 20)); /* never an empty segment */
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

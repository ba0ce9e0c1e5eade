/* Allreduce as a binomial reduce to rank 0 followed by a binomial broadcast: the tree form that the
 * split-tree mode cuts between the application thread and a progress agent. */
#include "alg_util.h"

int tdm_allreduce_reduce_bcast(tdm_schedule *s, const tdm_coll_args *a)
{
    tdm_coll_args reduce = *a;
    reduce.root = 0;
    if (a->rank != 0) { /* a non-root reduce reads sendbuf only */
        reduce.sendbuf = tdm_reduction_input(a);
        reduce.in_place = 0;
    }
    tdm_reduce_binomial(s, &reduce);
    tdm_sched_round(s);
    tdm_coll_args bcast = *a;
    bcast.root = 0;
    return tdm_bcast_binomial(s, &bcast);
}

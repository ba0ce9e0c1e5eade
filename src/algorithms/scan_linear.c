/* Chain scan and exscan: rank r waits for the prefix of ranks 0..r-1 from r-1, adds its own and
 * passes it on. p-1 steps: only for two or three ranks. Any op (prefix op own is MPI's order). */
#include "alg_util.h"

int tdm_scan_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int r = a->rank, n = a->count;
    const void *input = tdm_reduction_input(a);
    if (!a->in_place)
        tdm_sched_copy(s, input, n, a->datatype, a->recvbuf, n, a->datatype);
    if (r > 0) {
        void *prefix = tdm_tmp_elems(s, &a->dtype, n);
        tdm_sched_recv(s, prefix, n, a->datatype, r - 1);
        tdm_sched_round(s);
        tdm_reduce_from_lower(s, a, prefix, a->recvbuf, n);
    }
    if (r + 1 < a->size)
        tdm_sched_send(s, a->recvbuf, n, a->datatype, r + 1);
    return tdm_sched_finish(s);
}

int tdm_exscan_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int r = a->rank, n = a->count;
    const void *input = tdm_reduction_input(a);
    if (r + 1 < a->size) {
        /* what goes right is prefix op own; own is copied first since recvbuf may hold it */
        void *outgoing = tdm_tmp_elems(s, &a->dtype, n);
        tdm_sched_copy(s, input, n, a->datatype, outgoing, n, a->datatype);
        if (r > 0) {
            tdm_sched_recv(s, a->recvbuf, n, a->datatype, r - 1);
            tdm_sched_round(s);
            tdm_reduce_from_lower(s, a, a->recvbuf, outgoing, n);
        }
        tdm_sched_send(s, outgoing, n, a->datatype, r + 1);
    } else if (r > 0) {
        tdm_sched_recv(s, a->recvbuf, n, a->datatype, r - 1);
    }
    return tdm_sched_finish(s);
}

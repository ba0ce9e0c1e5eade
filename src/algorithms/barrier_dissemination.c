/* Dissemination barrier: ceil(log2 p) rounds; in round k rank r signals r + 2^k and waits for r - 2^k. */
#include "alg_util.h"

int tdm_barrier_dissemination(tdm_schedule *s, const tdm_coll_args *a)
{
    static const char token = 0;
    int p = a->size, r = a->rank;
    int rounds = 0;
    for (int k = 1; k < p; k <<= 1)
        rounds++;
    char *inbox = rounds ? tdm_sched_tmp(s, (size_t)rounds) : NULL; /* one byte per round */
    int round = 0;
    for (int k = 1; k < p; k <<= 1, round++) {
        tdm_sched_send(s, &token, 1, MPI_BYTE, (r + k) % p);
        tdm_sched_recv(s, inbox + round, 1, MPI_BYTE, (r - k + p) % p);
        tdm_sched_round(s);
    }
    return tdm_sched_finish(s);
}

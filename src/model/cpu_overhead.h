/*
 * The CPU time a collective costs a rank, counted from its schedule (the case for non-blocking
 * collectives: how much of a collective's time the CPU is busy, and so what an agent can give back to
 * the application). Per message sent LogGP's o_s(s), per message received o_r(s), both as
 * `tandem-model loggp` measured them (loggp_prtt.h: linear between the sizes measured, extended
 * along the last two beyond them), gamma per byte reduced and a copy cost per byte copied.
 */
#ifndef TANDEM_CPU_OVERHEAD_H
#define TANDEM_CPU_OVERHEAD_H

#include "../schedule/schedule.h"
#include "loggp_prtt.h"

/* What one rank's schedule does, in all its rounds. */
typedef struct tdm_rank_work {
    int sends, recvs;
    double sent_bytes, received_bytes, reduced_bytes, copied_bytes;
    double send_cpu, recv_cpu; /* seconds: o_s(s) summed over its sends, o_r(s) over its receives */
} tdm_rank_work;

/* o_s(bytes) (receive 0) or o_r(bytes) (receive 1) from the sizes p measured; 0 if it measured none. */
double tdm_loggp_overhead_at(const tdm_loggp_params *p, double bytes, int receive);

/* Counts s's actions (a repeated reduction or copy as many times as it repeats). Bytes: counts times
 * elem_bytes, or, if elem_bytes is 0, times the size of each action's datatype (MPI must be up). p may
 * be NULL: no CPU time for messages. */
void tdm_rank_work_of(const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p, tdm_rank_work *w);

/* Its CPU time: the messages' overheads, gamma per byte reduced, copy per byte copied. */
static inline double tdm_rank_cpu(const tdm_rank_work *w, double gamma, double copy)
{
    return w->send_cpu + w->recv_cpu + w->reduced_bytes * gamma + w->copied_bytes * copy;
}

#endif

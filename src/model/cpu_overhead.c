#include "cpu_overhead.h"

#include <string.h>

static double overhead_of(const tdm_loggp_size *s, int receive) { return receive ? s->o_r.median : s->o_s.median; }

double tdm_loggp_overhead_at(const tdm_loggp_params *p, double bytes, int receive)
{
    if (!p || p->nsizes == 0)
        return 0;
    const tdm_loggp_size *at = p->size;
    if (p->nsizes == 1 || bytes <= at[0].bytes)
        return overhead_of(&at[0], receive);
    int k = 1; /* the segment [k-1, k] that holds bytes, or the last one */
    while (k < p->nsizes - 1 && bytes > at[k].bytes)
        k++;
    double x0 = at[k - 1].bytes, x1 = at[k].bytes, y0 = overhead_of(&at[k - 1], receive), y1 = overhead_of(&at[k], receive);
    double y = y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
    return y > 0 ? y : 0;
}

static double bytes_of(const tdm_action *a, double elem_bytes)
{
    if (elem_bytes > 0)
        return a->count * elem_bytes;
    int size = 0;
    MPI_Type_size(a->type, &size);
    return (double)a->count * size;
}

void tdm_rank_work_of(const tdm_schedule *s, double elem_bytes, const tdm_loggp_params *p, tdm_rank_work *w)
{
    memset(w, 0, sizeof *w);
    for (int i = 0; i < s->nactions; i++) {
        const tdm_action *a = &s->actions[i];
        double bytes = bytes_of(a, elem_bytes);
        switch (a->kind) {
        case TDM_ACT_SEND:
            w->sends++;
            w->sent_bytes += bytes;
            w->send_cpu += tdm_loggp_overhead_at(p, bytes, 0);
            break;
        case TDM_ACT_RECV:
            w->recvs++;
            w->received_bytes += bytes;
            w->recv_cpu += tdm_loggp_overhead_at(p, bytes, 1);
            break;
        case TDM_ACT_REDUCE:
            w->reduced_bytes += bytes * a->repeat;
            break;
        case TDM_ACT_COPY:
            w->copied_bytes += bytes * a->repeat;
            break;
        }
    }
}

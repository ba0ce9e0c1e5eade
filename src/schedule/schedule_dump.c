/* A readable listing of a schedule, for TANDEM_DUMP_SCHEDULE=1 and TDM_Request_dump. */
#include "schedule.h"

#include <stdlib.h>

static const char *type_name(MPI_Datatype type, char *buf)
{
    int len = 0;
    if (type == MPI_PACKED)
        return "packed";
    if (MPI_Type_get_name(type, buf, &len) != MPI_SUCCESS || len == 0)
        return "derived";
    return buf;
}

/* Ends a local action's line: how often it repeats, its buffers moving by how many bytes each time. */
static void repeated(const tdm_action *a, FILE *out)
{
    if (a->repeat > 1)
        fprintf(out, ", %d times, moving by %ld and %ld bytes", a->repeat, (long)a->src_stride, (long)a->dst_stride);
    fprintf(out, "\n");
}

static void dump_action(const tdm_action *a, FILE *out)
{
    char t1[MPI_MAX_OBJECT_NAME], t2[MPI_MAX_OBJECT_NAME];
    switch (a->kind) {
    case TDM_ACT_SEND:
        fprintf(out, "    send   %d x %s from %p to rank %d", a->count, type_name(a->type, t1), a->src, a->peer);
        if (a->link >= 0) /* torus link: dimension and direction */
            fprintf(out, " on link %d%c", a->link / 2, a->link % 2 ? '-' : '+');
        if (a->bulk)
            fprintf(out, " (bulk channel)");
        fprintf(out, "\n");
        break;
    case TDM_ACT_RECV:
        fprintf(out, "    recv   %d x %s into %p from rank %d\n", a->count, type_name(a->type, t1),
                a->dst, a->peer);
        break;
    case TDM_ACT_REDUCE:
        fprintf(out, "    reduce %d x %s: %p = %p op %p", a->count, type_name(a->type, t1), a->dst,
                a->src, a->dst);
        repeated(a, out);
        break;
    case TDM_ACT_COPY:
        fprintf(out, "    copy   %d x %s at %p -> %d x %s at %p", a->count, type_name(a->type, t1),
                a->src, a->dst_count, type_name(a->dst_type, t2), a->dst);
        repeated(a, out);
        break;
    case TDM_ACT_SHM_PUT:
        fprintf(out, "    put    %d x %s from %p, step %d, for rank%s", a->count, type_name(a->type, t1), a->src,
                a->step, a->nreaders > 1 ? "s" : "");
        for (int i = 0; i < a->nreaders; i++)
            fprintf(out, "%s%d", i ? "," : " ", a->readers[i]);
        fprintf(out, "\n");
        break;
    case TDM_ACT_SHM_GET:
        fprintf(out, "    get    %d x %s %s %p from rank %d's step %d", a->count, type_name(a->type, t1),
                a->op == MPI_OP_NULL ? "into" : "reduced into", a->dst, a->peer, a->step);
        if (a->src)
            fprintf(out, " with %p", a->src);
        fprintf(out, "\n");
        break;
    case TDM_ACT_MAILBOX_POST:
        fprintf(out, "    post   %d bytes from %p to mailbox slot %d\n", a->count, a->src, a->step);
        break;
    case TDM_ACT_MAILBOX_TAKE:
        fprintf(out, "    take   %d bytes into %p from mailbox slot %d\n", a->count, a->dst, a->step);
        break;
    }
}

static void dump_schedule(const tdm_schedule *s, FILE *out)
{
    fprintf(out, "schedule %s: rank %d of %d, %d rounds, %d actions\n", s->algorithm, s->rank, s->size,
            s->nrounds, s->nactions);
    if (s->torus_ndims > 0) {
        fprintf(out, "  torus ");
        for (int i = 0; i < s->torus_ndims; i++)
            fprintf(out, "%s%d", i ? "x" : "", s->torus_dims[i]);
        static const char *forms[] = {"unidirectional", "bidirectional", "bidirectional, halfway"};
        fprintf(out, " (%s)\n", forms[s->torus_form >= 0 && s->torus_form <= 2 ? s->torus_form : 0]);
    }
    if (s->nlanes > 1)
        fprintf(out, "  lane %d of %d (its own sub-colors, tag and thread)\n", s->lane, s->nlanes);
    if (tdm_sched_bg_begin(s) > 0 || tdm_sched_bg_end(s) < s->nrounds)
        fprintf(out, "  split: rounds [0, %d) on the application thread at start, [%d, %d) in the background, "
                     "[%d, %d) on the application thread in Wait\n",
                tdm_sched_bg_begin(s), tdm_sched_bg_begin(s), tdm_sched_bg_end(s), tdm_sched_bg_end(s), s->nrounds);
    for (int r = 0; r < s->nrounds; r++) {
        fprintf(out, "  round %d\n", r);
        for (int i = tdm_sched_round_begin(s, r); i < tdm_sched_round_end(s, r); i++)
            dump_action(&s->actions[i], out);
    }
}

/* Written in one piece: the ranks of a job share stderr, which is unbuffered, and line by line their
 * listings interleave. */
void tdm_sched_dump(const tdm_schedule *s, FILE *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        dump_schedule(s, mem);
        if (fclose(mem) == 0)
            fwrite(text, 1, len, out);
        else
            dump_schedule(s, out);
        free(text);
    } else {
        dump_schedule(s, out);
    }
    fflush(out);
}

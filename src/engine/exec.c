#include "exec.h"

#include "local_copy.h"
#include "local_reduce.h"

#include <stdlib.h>

/* Strand k's first round (nrounds if it has none). */
static int first_round(const tdm_schedule *s, int k)
{
    for (int r = 0; r < s->nrounds; r++)
        if (tdm_sched_strand_of(s, r) == k)
            return r;
    return s->nrounds;
}

int tdm_exec_init(tdm_exec *e, const tdm_schedule *s, MPI_Comm comm, int tag)
{
    e->sched = s;
    e->comm = comm;
    e->strands = NULL;
    e->reqs = e->reqs_inline;
    size_t slots = (size_t)s->max_round_messages;
    if (s->round_info) {
        slots *= (size_t)s->nstrands;
        if (!(e->strands = malloc(sizeof(tdm_strand_run) * (size_t)s->nstrands)))
            return MPI_ERR_NO_MEM;
    }
    if (slots > TDM_EXEC_INLINE_REQUESTS && !(e->reqs = malloc(sizeof(MPI_Request) * slots))) {
        e->reqs = e->reqs_inline;
        return MPI_ERR_NO_MEM;
    }
    for (size_t k = 0; k < slots; k++) /* a wait outside the engine gathers every slot of strands */
        e->reqs[k] = MPI_REQUEST_NULL;
    tdm_exec_restart(e, tag);
    return MPI_SUCCESS;
}

void tdm_exec_restart(tdm_exec *e, int tag)
{
    e->tag = tag;
    e->round = 0;
    e->end_round = e->sched->nrounds;
    e->posted = -1;
    e->error = MPI_SUCCESS;
    e->draining = 0;
    for (int k = 0; e->strands && k < e->sched->nstrands; k++)
        e->strands[k] = (tdm_strand_run){first_round(e->sched, k), -1};
}

void tdm_exec_destroy(tdm_exec *e)
{
    if (e->reqs != e->reqs_inline)
        free(e->reqs);
    e->reqs = e->reqs_inline;
    free(e->strands);
    e->strands = NULL;
}

/* The tag of strand k's messages. */
static int tag_of(const tdm_exec *e, int k) { return e->tag * TDM_SCHED_MAX_STRANDS + k; }

/* After a failure, once: cancels the receives of round r, whose posted messages are reqs[0 .. posted). */
static void cancel_receives(const tdm_exec *e, int r, MPI_Request *reqs, int posted)
{
    const tdm_schedule *s = e->sched;
    int k = 0;
    for (int i = tdm_sched_round_begin(s, r); i < tdm_sched_round_end(s, r) && k < posted; i++) {
        const tdm_action *a = &s->actions[i];
        if (a->kind != TDM_ACT_SEND && a->kind != TDM_ACT_RECV)
            continue;
        if (a->kind == TDM_ACT_RECV && reqs[k] != MPI_REQUEST_NULL)
            MPI_Cancel(&reqs[k]);
        k++;
    }
}

/* Tests reqs[0 .. n) (errors included) until none is left; 1 when done. */
static int drain(MPI_Request *reqs, int n)
{
    int left = 0;
    for (int k = 0; k < n; k++) {
        int done = 0;
        if (reqs[k] != MPI_REQUEST_NULL && MPI_Test(&reqs[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            reqs[k] = MPI_REQUEST_NULL; /* completed in error: released by MPI */
        left += reqs[k] != MPI_REQUEST_NULL;
    }
    return left == 0;
}

/* After a failure: cancels the round's receives once, then tests each posted message until none is
 * left; 1 when done. */
static int drain_round(tdm_exec *e)
{
    if (!e->draining) {
        e->draining = 1;
        cancel_receives(e, e->round, e->reqs, e->posted);
    }
    return drain(e->reqs, e->posted);
}

void tdm_exec_fail(tdm_exec *e, int error)
{
    if (e->error == MPI_SUCCESS)
        e->error = error;
}

static int run_action(tdm_exec *e, const tdm_action *a, int tag, MPI_Request *slot)
{
    switch (a->kind) {
    case TDM_ACT_SEND:
        return MPI_Isend(a->src, a->count, a->type, a->peer, tag, e->comm, slot);
    case TDM_ACT_RECV:
        return MPI_Irecv(a->dst, a->count, a->type, a->peer, tag, e->comm, slot);
    case TDM_ACT_REDUCE:
        return tdm_local_reduce(a, e->comm);
    case TDM_ACT_COPY:
        return tdm_local_copy(a, e->comm);
    }
    return MPI_ERR_INTERN;
}

/* Runs round r's local actions and posts its messages into reqs, counting them in *posted. */
static void post_round(tdm_exec *e, int r, MPI_Request *reqs, int *posted, int tag)
{
    const tdm_schedule *s = e->sched;
    *posted = 0;
    for (int i = tdm_sched_round_begin(s, r); i < tdm_sched_round_end(s, r); i++) {
        const tdm_action *a = &s->actions[i];
        int message = a->kind == TDM_ACT_SEND || a->kind == TDM_ACT_RECV;
        int rc = run_action(e, a, tag, &reqs[*posted]);
        if (rc != MPI_SUCCESS) {
            if (message) /* the failed post left no request */
                reqs[*posted] = MPI_REQUEST_NULL;
            tdm_exec_fail(e, rc);
            return;
        }
        *posted += message;
    }
}

static void start_round(tdm_exec *e) { post_round(e, e->round, e->reqs, &e->posted, tag_of(e, 0)); }

/* Every message of a round in flight, reqs[0 .. posted), is complete: a wait outside the engine (the
 * inline agent's blocking wait) completed each and set its handle to MPI_REQUEST_NULL. */
static int settled(const MPI_Request *reqs, int posted)
{
    for (int k = 0; k < posted; k++)
        if (reqs[k] != MPI_REQUEST_NULL)
            return 0;
    return 1;
}

/* MPICH declares MPI_Testall with an access attribute that GCC 12 checks against MPI_STATUSES_IGNORE
 * (the address 1), a false "region of size 0" warning. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
/* Tests a round's messages; 1 if all are complete. */
static int test_round(tdm_exec *e, MPI_Request *reqs, int posted)
{
    int done = 0;
    int rc = posted == 1 ? MPI_Test(&reqs[0], &done, MPI_STATUS_IGNORE)
                         : MPI_Testall(posted, reqs, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        tdm_exec_fail(e, rc);
    return rc == MPI_SUCCESS && done;
}
#pragma GCC diagnostic pop

static int progress(tdm_exec *e, int may_test)
{
    while (!tdm_exec_finished(e)) {
        if (e->error == MPI_SUCCESS && e->posted < 0)
            start_round(e);
        if (e->error == MPI_SUCCESS && e->posted > 0 && !settled(e->reqs, e->posted)) {
            if (!may_test || !test_round(e, e->reqs, e->posted)) {
                if (e->error == MPI_SUCCESS)
                    return 0;
            }
        }
        if (e->error != MPI_SUCCESS) {
            if (e->posted > 0 && !drain_round(e))
                return 0;
            e->posted = 0;
            e->round = e->end_round = e->sched->nrounds; /* a failure ends every segment */
            return 1;
        }
        e->round++;
        e->posted = -1;
    }
    return 1;
}

/* Round r is done: its strand has moved past it. */
static int round_done(const tdm_exec *e, int r)
{
    return e->strands[tdm_sched_strand_of(e->sched, r)].round > r;
}

/* Moves strand k as far as its messages and gate allow; 1 if it moved past a round. */
static int advance_strand(tdm_exec *e, int k, int may_test)
{
    const tdm_schedule *s = e->sched;
    tdm_strand_run *st = &e->strands[k];
    MPI_Request *reqs = e->reqs + (size_t)k * (size_t)s->max_round_messages;
    int moved = 0;
    while (st->round < s->nrounds && e->error == MPI_SUCCESS) {
        if (st->posted < 0) {
            int gate = tdm_sched_gate_of(s, st->round);
            if (gate >= 0 && !round_done(e, gate))
                break;
            post_round(e, st->round, reqs, &st->posted, tag_of(e, k));
            if (e->error != MPI_SUCCESS)
                break;
        }
        if (st->posted > 0 && !settled(reqs, st->posted) && (!may_test || !test_round(e, reqs, st->posted)))
            break;
        st->round = tdm_sched_next_of(s, st->round);
        st->posted = -1;
        moved = 1;
    }
    return moved;
}

/* progress() for a schedule with strands: every strand in turn, again while one moves (a gate may
 * have opened). After a failure every strand's messages are drained, and the schedule ends. */
static int progress_strands(tdm_exec *e, int may_test)
{
    const tdm_schedule *s = e->sched;
    if (tdm_exec_finished(e))
        return 1;
    for (int moved = 1; moved && e->error == MPI_SUCCESS;) {
        moved = 0;
        for (int k = 0; k < s->nstrands && e->error == MPI_SUCCESS; k++)
            moved |= advance_strand(e, k, may_test);
    }
    int m = s->max_round_messages, left = 0;
    if (e->error != MPI_SUCCESS) {
        for (int k = 0; k < s->nstrands && !e->draining; k++)
            if (e->strands[k].round < s->nrounds && e->strands[k].posted > 0)
                cancel_receives(e, e->strands[k].round, e->reqs + (size_t)k * m, e->strands[k].posted);
        e->draining = 1;
        if (!drain(e->reqs, s->nstrands * m))
            return 0;
        for (int k = 0; k < s->nstrands; k++)
            e->strands[k] = (tdm_strand_run){s->nrounds, 0};
    }
    for (int k = 0; k < s->nstrands; k++)
        left += e->strands[k].round < s->nrounds;
    if (left)
        return 0;
    e->round = e->end_round = s->nrounds;
    return 1;
}

void tdm_exec_kick(tdm_exec *e)
{
    if (e->strands)
        progress_strands(e, 0); /* posts every strand's first round its gate lets start */
    else if (e->posted < 0 && !tdm_exec_finished(e) && e->error == MPI_SUCCESS)
        start_round(e);
}

int tdm_exec_progress(tdm_exec *e) { return e->strands ? progress_strands(e, 1) : progress(e, 1); }

int tdm_exec_advance_settled(tdm_exec *e) { return e->strands ? progress_strands(e, 0) : progress(e, 0); }

#include "exec.h"

#include "local_copy.h"
#include "local_reduce.h"

#include <stdlib.h>

int tdm_exec_init(tdm_exec *e, const tdm_schedule *s, MPI_Comm comm, int tag)
{
    e->sched = s;
    e->comm = comm;
    e->bulk = MPI_COMM_NULL;
    e->tag_base = 0;
    e->peers = NULL;
    tdm_exec_restart(e, tag);
    e->reqs = e->reqs_inline;
    if (s->max_round_messages > TDM_EXEC_INLINE_REQUESTS) {
        e->reqs = malloc(sizeof(MPI_Request) * (size_t)s->max_round_messages);
        if (!e->reqs) {
            e->reqs = e->reqs_inline;
            return MPI_ERR_NO_MEM;
        }
    }
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
}

void tdm_exec_destroy(tdm_exec *e)
{
    if (e->reqs != e->reqs_inline)
        free(e->reqs);
    e->reqs = e->reqs_inline;
}

/* After a failure: cancels the round's receives once, then tests each posted message (errors
 * included) until none is left; 1 when done. */
static int drain_round(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    if (!e->draining) {
        e->draining = 1;
        int k = 0;
        for (int i = tdm_sched_round_begin(s, e->round); i < tdm_sched_round_end(s, e->round) && k < e->posted; i++) {
            const tdm_action *a = &s->actions[i];
            if (a->kind != TDM_ACT_SEND && a->kind != TDM_ACT_RECV)
                continue;
            if (a->kind == TDM_ACT_RECV && e->reqs[k] != MPI_REQUEST_NULL)
                MPI_Cancel(&e->reqs[k]);
            k++;
        }
    }
    int left = 0;
    for (int k = 0; k < e->posted; k++) {
        int done = 0;
        if (e->reqs[k] != MPI_REQUEST_NULL && MPI_Test(&e->reqs[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            e->reqs[k] = MPI_REQUEST_NULL; /* completed in error: released by MPI */
        left += e->reqs[k] != MPI_REQUEST_NULL;
    }
    return left == 0;
}

void tdm_exec_fail(tdm_exec *e, int error)
{
    if (e->error == MPI_SUCCESS)
        e->error = error;
}

/* Local actions stay out of line: inlined, their code made the loop that posts a round's messages
 * save and restore every register on each call. */
static __attribute__((noinline)) int run_local(const tdm_action *a, MPI_Comm comm)
{
    return a->kind == TDM_ACT_REDUCE ? tdm_local_reduce(a, comm) : tdm_local_copy(a, comm);
}

/* Runs the round's actions in order: posts its messages, runs its local actions. */
static void start_round(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    const tdm_action *a = &s->actions[tdm_sched_round_begin(s, e->round)];
    const tdm_action *end = &s->actions[tdm_sched_round_end(s, e->round)];
    MPI_Request *next = e->reqs;
    int rc = MPI_SUCCESS;
    for (; a < end && rc == MPI_SUCCESS; a++) {
        if (a->kind == TDM_ACT_SEND)
            rc = MPI_Isend(a->src, a->count, a->type, e->peers ? e->peers[a->peer] : a->peer, e->tag_base + e->tag,
                           a->bulk ? e->bulk : e->comm, next++);
        else if (a->kind == TDM_ACT_RECV)
            rc = MPI_Irecv(a->dst, a->count, a->type, e->peers ? e->peers[a->peer] : a->peer, e->tag_base + e->tag,
                           e->comm, next++);
        else
            rc = run_local(a, e->comm);
    }
    e->posted = (int)(next - e->reqs);
    if (rc != MPI_SUCCESS) {
        if (a[-1].kind <= TDM_ACT_RECV) /* the failed post left no request */
            e->reqs[--e->posted] = MPI_REQUEST_NULL;
        tdm_exec_fail(e, rc);
    }
}

void tdm_exec_kick(tdm_exec *e)
{
    if (e->posted < 0 && !tdm_exec_finished(e) && e->error == MPI_SUCCESS)
        start_round(e);
}

/* Every message of the round in flight is complete: a wait outside the engine (the inline agent's
 * blocking wait) completed each and set its handle to MPI_REQUEST_NULL. */
static int round_settled(const tdm_exec *e)
{
    for (int k = 0; k < e->posted; k++)
        if (e->reqs[k] != MPI_REQUEST_NULL)
            return 0;
    return 1;
}

/* After a failure: once every posted message completed, the schedule ends (every segment of it);
 * 1 when it has. Out of line: the common path is the loop below. */
static __attribute__((noinline, cold)) int wind_up(tdm_exec *e)
{
    if (e->posted > 0 && !drain_round(e))
        return 0;
    e->posted = 0;
    e->round = e->end_round = e->sched->nrounds;
    return 1;
}

/* MPICH declares MPI_Testall with an access attribute that GCC 12 checks against MPI_STATUSES_IGNORE
 * (the address 1), a false "region of size 0" warning. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static int progress(tdm_exec *e, int may_test)
{
    while (!tdm_exec_finished(e)) {
        if (e->error != MPI_SUCCESS)
            return wind_up(e);
        if (e->posted < 0) {
            start_round(e);
            if (e->error != MPI_SUCCESS)
                continue;
        }
        /* Testing handles a wait outside the engine has completed (MPI_REQUEST_NULL) costs nothing:
         * only a driver that may not test looks at them first. */
        if (e->posted > 0 && (may_test || !round_settled(e))) {
            if (!may_test)
                return 0;
            int done = 0;
            int rc = e->posted == 1 ? MPI_Test(&e->reqs[0], &done, MPI_STATUS_IGNORE)
                                    : MPI_Testall(e->posted, e->reqs, &done, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS) {
                tdm_exec_fail(e, rc);
                continue;
            }
            if (!done)
                return 0;
        }
        e->round++;
        e->posted = -1;
    }
    return 1;
}
#pragma GCC diagnostic pop

int tdm_exec_progress(tdm_exec *e) { return progress(e, 1); }

int tdm_exec_advance_settled(tdm_exec *e) { return progress(e, 0); }

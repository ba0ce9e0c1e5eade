#include "exec.h"

#include "local_copy.h"
#include "local_reduce.h"
#include "mailbox.h"
#include "node.h"
#include "shm_ring.h"

#include <stdlib.h>

int tdm_exec_init(tdm_exec *e, const tdm_schedule *s, MPI_Comm comm, int tag)
{
    e->sched = s;
    e->comm = comm;
    e->bulk = MPI_COMM_NULL;
    e->tag_base = 0;
    e->peers = NULL;
    e->shm = NULL;
    e->call = 0;
    e->staging = NULL;
    e->staging_bytes = 0;
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
    e->shm_admitted = 0;
    e->shm_holds.n = 0;
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
    free(e->staging);
    e->staging = NULL;
    e->staging_bytes = 0;
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
            int receives = a->kind == TDM_ACT_RECV || (a->kind == TDM_ACT_SHM_GET && !e->shm);
            if (receives && e->reqs[k] != MPI_REQUEST_NULL)
                MPI_Cancel(&e->reqs[k]);
            if (a->kind == TDM_ACT_SEND || receives)
                k++;
            else if (a->kind == TDM_ACT_SHM_PUT && !e->shm)
                k += a->nreaders;
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

/* Where the round's shm gets that reduce arrive when they run as messages: one staging area, each get's
 * image at a 16-byte boundary. 0 if out of memory. */
static int stage_round(tdm_exec *e, const tdm_action *a, const tdm_action *end)
{
    size_t bytes = 0;
    for (; a < end; a++)
        if (a->kind == TDM_ACT_SHM_GET && a->op != MPI_OP_NULL)
            bytes += ((size_t)a->image_bytes + 15) / 16 * 16;
    if (bytes <= e->staging_bytes)
        return 1;
    void *grown = realloc(e->staging, bytes);
    if (!grown)
        return 0;
    e->staging = grown;
    e->staging_bytes = bytes;
    return 1;
}

/* An shm put run as messages: a send to each reader. In simulation a synchronous send: SMPI 3.32 detaches
 * a send under 64 KiB (completes it at once, as an eager send) and keeps it in one list for the whole
 * simulation, which each completion walks; a node's puts, dozens in flight on every rank, made 1,024
 * ranks quadratic. A synchronous send is never detached; SMPI charges its start as an MPI_Isend's, but a
 * round of puts alone now ends when they are received (128 ranks: the 1 MiB node bcast 270.74 us
 * instead of 270.34, the allreduce the same; 6.5 s of wall time instead of 18). */
static int post_put(tdm_exec *e, const tdm_action *a, MPI_Request **next)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < a->nreaders && rc == MPI_SUCCESS; i++) {
        int peer = e->peers ? e->peers[a->readers[i]] : a->readers[i];
        if (TDM_SIMULATED)
            rc = MPI_Issend(a->src, a->count, a->type, peer, e->tag_base + e->tag, e->comm, (*next)++);
        else
            rc = MPI_Isend(a->src, a->count, a->type, peer, e->tag_base + e->tag, e->comm, (*next)++);
        if (rc != MPI_SUCCESS)
            (*next)--;
    }
    return rc;
}

/* Runs the round's actions in order: posts its messages, runs its local actions; its shm actions are
 * done next, in order (advance_shm), or, without rings, posted as messages. */
static void start_round(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    const tdm_action *a = &s->actions[tdm_sched_round_begin(s, e->round)];
    const tdm_action *end = &s->actions[tdm_sched_round_end(s, e->round)];
    MPI_Request *next = e->reqs;
    int rc = MPI_SUCCESS;
    size_t staged = 0;
    e->shm_next = tdm_sched_round_begin(s, e->round);
    if (s->shm_actions && !e->shm && !stage_round(e, a, end))
        rc = MPI_ERR_NO_MEM;
    for (; a < end && rc == MPI_SUCCESS; a++) {
        if (a->kind == TDM_ACT_SEND) {
            rc = MPI_Isend(a->src, a->count, a->type, e->peers ? e->peers[a->peer] : a->peer, e->tag_base + e->tag,
                           a->bulk ? e->bulk : e->comm, next++);
        } else if (a->kind == TDM_ACT_RECV) {
            rc = MPI_Irecv(a->dst, a->count, a->type, e->peers ? e->peers[a->peer] : a->peer, e->tag_base + e->tag,
                           e->comm, next++);
        } else if (a->kind == TDM_ACT_SHM_PUT) {
            if (!e->shm && (rc = post_put(e, a, &next)) != MPI_SUCCESS)
                break;
        } else if (a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE) {
            continue; /* done in order with the shm actions (advance_shm) */
        } else if (a->kind == TDM_ACT_SHM_GET) {
            if (e->shm)
                continue;
            void *into = a->dst;
            if (a->op != MPI_OP_NULL) { /* reduced once the round is done (finish_round) */
                into = (char *)e->staging + staged - a->image_lb;
                staged += ((size_t)a->image_bytes + 15) / 16 * 16;
            }
            rc = MPI_Irecv(into, a->count, a->type, e->peers ? e->peers[a->peer] : a->peer, e->tag_base + e->tag,
                           e->comm, next++);
        } else {
            rc = run_local(a, e->comm);
        }
    }
    e->posted = (int)(next - e->reqs);
    if (rc != MPI_SUCCESS) {
        if (a < end && (a->kind == TDM_ACT_SEND || a->kind == TDM_ACT_RECV || a->kind == TDM_ACT_SHM_GET))
            e->reqs[--e->posted] = MPI_REQUEST_NULL; /* the failed post left no request */
        tdm_exec_fail(e, rc);
    }
}

/* The call ends here: the cells it reserved go back to the ring's count. */
static void leave_ring(tdm_exec *e)
{
    if (e->shm_admitted) {
        tdm_shm_leave(e->shm, e->sched->shm_cells, &e->shm_holds);
        e->shm_admitted = 0;
    }
}

/* This process's mailbox (mailbox.h), found once. */
static void *own_mailbox(void)
{
    static void *box;
    if (!box) {
        int world;
        MPI_Comm_rank(MPI_COMM_WORLD, &world);
        box = tdm_node_mailbox(world);
    }
    return box;
}

/* A mailbox action: 1 once done (a post at once, a take once its answer is there). */
static int mailbox_action(const tdm_action *a)
{
    if (a->kind == TDM_ACT_MAILBOX_POST) {
        tdm_mailbox_post(own_mailbox(), a->step, a->src, (size_t)a->count);
        return 1;
    }
    return tdm_mailbox_take(own_mailbox(), a->step, a->dst, (size_t)a->count);
}

/* A failed call will not post what it has not posted yet: the mailbox slots reserved for it are free
 * again (else an answer would be awaited in them forever). */
static void cancel_unposted(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    if (!s->mailbox_actions)
        return;
    for (int i = e->shm_next; i < s->nactions; i++)
        if (s->actions[i].kind == TDM_ACT_MAILBOX_POST)
            tdm_mailbox_cancel(own_mailbox(), s->actions[i].step);
}

/* In simulation: the rounds and shm actions this rank's schedules have done (tdm_exec_moves). */
static unsigned long moves;
unsigned long tdm_exec_moves(void) { return moves; }

/* Whether the round's actions include some that only polling moves: shm actions on rings, mailbox ones. */
static int polled(const tdm_exec *e) { return (e->shm && e->sched->shm_actions) || e->sched->mailbox_actions; }

/* Does the round's shm and mailbox actions in order, as far as their cells and answers allow; 1 once
 * all are done. */
static int advance_shm(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    if (e->shm && s->shm_actions && !e->shm_admitted) {
        if (!tdm_shm_admit(e->shm, e->shm_ticket, s->shm_cells))
            return 0;
        e->shm_admitted = 1;
    }
    int end = tdm_sched_round_end(s, e->round);
    for (; e->shm_next < end; e->shm_next++) {
        const tdm_action *a = &s->actions[e->shm_next];
        int error = MPI_SUCCESS, done;
        if (a->kind == TDM_ACT_SHM_PUT && e->shm)
            done = tdm_shm_put(e->shm, e->call, a, e->comm, &e->shm_holds, s->shm_cells, &error);
        else if (a->kind == TDM_ACT_SHM_GET && e->shm)
            done = tdm_shm_get(e->shm, e->call, a, e->comm, &error);
        else if (a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE)
            done = mailbox_action(a);
        else
            continue;
        if (!done)
            return 0;
        if (TDM_SIMULATED)
            moves++;
        if (error != MPI_SUCCESS) {
            tdm_exec_fail(e, error);
            return 0;
        }
    }
    return 1;
}

/* The round's messages are all done: shm gets that ran as messages reduce what they received, in order. */
static int finish_round(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    size_t staged = 0;
    int rc = MPI_SUCCESS;
    for (int i = tdm_sched_round_begin(s, e->round); i < tdm_sched_round_end(s, e->round) && rc == MPI_SUCCESS; i++) {
        const tdm_action *a = &s->actions[i];
        if (a->kind != TDM_ACT_SHM_GET || a->op == MPI_OP_NULL)
            continue;
        tdm_action reduce = *a;
        reduce.kind = TDM_ACT_REDUCE;
        reduce.src = (char *)e->staging + staged - a->image_lb;
        staged += ((size_t)a->image_bytes + 15) / 16 * 16;
        rc = a->src ? tdm_local_reduce_from(&reduce, a->src, e->comm) : tdm_local_reduce(&reduce, e->comm);
    }
    return rc;
}

void tdm_exec_kick(tdm_exec *e)
{
    if (e->posted < 0 && !tdm_exec_finished(e) && e->error == MPI_SUCCESS) {
        start_round(e);
        if (polled(e) && e->error == MPI_SUCCESS)
            advance_shm(e);
    }
}

/* ---- a round that waits only for answers (tdm_exec_only_answers) ----
 * A small call handed to a DCP of the node is a copy or two, a post and a take; its start is most of
 * what the call costs the application, and the general start and progress, which walk every kind of
 * action and message, were most of that. These run it directly, in the same order: the local actions
 * first, then the mailbox actions in order. */
void tdm_exec_post_answers(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    const tdm_action *a, *end = &s->actions[s->round_end[0]];
    e->posted = 0;
    for (a = s->actions; a < end; a++) {
        if (a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE)
            continue;
        int rc = run_local(a, e->comm);
        if (rc != MPI_SUCCESS) { /* nothing posted yet: the call ends here */
            tdm_exec_fail(e, rc);
            e->shm_next = 0;
            cancel_unposted(e);
            e->round = e->end_round = s->nrounds;
            return;
        }
    }
    for (a = s->actions; a < end && a->kind != TDM_ACT_MAILBOX_TAKE; a++)
        if (a->kind == TDM_ACT_MAILBOX_POST)
            mailbox_action(a);
    e->shm_next = (int)(a - s->actions);
    if (a == end)
        e->round = s->nrounds;
}

int tdm_exec_take_answers(tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    for (; e->shm_next < s->round_end[0]; e->shm_next++) {
        const tdm_action *a = &s->actions[e->shm_next];
        if ((a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE) && !mailbox_action(a))
            return 0;
    }
    e->round = s->nrounds;
    return 1;
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
    cancel_unposted(e);
    e->round = e->end_round = e->sched->nrounds;
    if (e->shm && e->sched->shm_actions && !e->shm_admitted) /* its turn passes, if it is its turn */
        tdm_shm_admit(e->shm, e->shm_ticket, 0);
    leave_ring(e);
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
        /* the round's shm actions first: other ranks may wait for its puts */
        int shm_done = !polled(e) || advance_shm(e);
        if (e->error != MPI_SUCCESS)
            continue;
        /* Testing handles a wait outside the engine has completed (MPI_REQUEST_NULL) costs nothing:
         * only a driver that may not test looks at them first. In simulation every driver does: SMPI
         * 3.32's MPI_Test of MPI_REQUEST_NULL with MPI_STATUS_IGNORE says not done (a round whose
         * message a wait completed, while its cells were not, never ended). */
        if (e->posted > 0 && ((may_test && !TDM_SIMULATED) || !round_settled(e))) {
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
        if (!shm_done)
            return 0;
        if (e->sched->shm_actions && !e->shm) {
            int rc = finish_round(e);
            if (rc != MPI_SUCCESS) {
                tdm_exec_fail(e, rc);
                continue;
            }
        }
        e->round++;
        e->posted = -1;
        if (TDM_SIMULATED)
            moves++;
    }
    if (e->round >= e->sched->nrounds)
        leave_ring(e);
    return 1;
}
#pragma GCC diagnostic pop

int tdm_exec_progress(tdm_exec *e) { return progress(e, 1); }

int tdm_exec_advance_settled(tdm_exec *e) { return progress(e, 0); }

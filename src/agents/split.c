/*
 * Split execution of a split schedule (split-tree mode). The schedule's rounds fall in three
 * segments: [0, bg_begin) runs on the application thread inside the starting call (the leaf levels
 * of an all-to-one tree: they need the application's data at once and are the heavy, wide part);
 * [bg_begin, bg_end) runs on the progress thread (the long, narrow part near the root, overlapped
 * with computation); [bg_end, nrounds) runs on the application thread inside Wait or Test (the leaf
 * levels of a one-to-all tree). The request carries its tag through all three.
 *
 * A tail must start as soon as the progress thread is done with the background segment, not only when
 * the application waits for that request: a rank blocked elsewhere (in the leading segment of a later
 * collective, or in Wait on another request) would otherwise hold back the messages of the tail that
 * another rank waits for. Requests with a tail to come are kept on a list that every inline progress
 * and blocking wait polls. Split mode expects one application thread at a time in Tandem.
 */
#include "agent.h"

#include "../core/request.h"

static struct tdm_request *awaiting_tail; /* background running, tail to come (via split_next) */

static void list_remove(struct tdm_request *req)
{
    for (struct tdm_request **link = &awaiting_tail; *link; link = &(*link)->split_next)
        if (*link == req) {
            *link = req->split_next;
            break;
        }
    req->split_next = NULL;
}

/* Hands the background segment to the progress thread, or the trailing segment to the inline agent
 * if there is no background one left. */
static void launch_rest(struct tdm_request *req)
{
    const tdm_schedule *s = &req->sched;
    tdm_exec *e = &req->exec;
    __atomic_store_n(&req->complete, 0, __ATOMIC_RELAXED);
    int bg_end = tdm_sched_bg_end(s);
    if (e->round < bg_end) {
        e->end_round = bg_end;
        req->split_tail = bg_end < s->nrounds;
        req->agent = TDM_PROGRESS_THREAD;
        if (req->split_tail) {
            req->split_next = awaiting_tail;
            awaiting_tail = req;
        }
        tdm_thread_agent_hand_over(req);
    } else {
        e->end_round = s->nrounds;
        req->split_tail = 0;
        req->agent = TDM_PROGRESS_INLINE;
        tdm_inline_start(req);
    }
}

void tdm_split_start(struct tdm_request *req)
{
    const tdm_schedule *s = &req->sched;
    tdm_exec *e = &req->exec;
    int bg_begin = tdm_sched_bg_begin(s);
    if (bg_begin > 0) { /* the leading segment, here and now */
        e->end_round = bg_begin;
        req->agent = TDM_PROGRESS_INLINE;
        tdm_inline_start(req);
        int rc = tdm_inline_wait(req);
        if (rc != MPI_SUCCESS) { /* the request completes with the error when it is waited for */
            tdm_exec_fail(e, rc);
            return;
        }
        if (tdm_exec_all_done(e))
            return; /* failed, or nothing else to run */
    }
    launch_rest(req);
}

/* The background segment is done: the trailing one starts on the application thread. */
static void start_tail(struct tdm_request *req)
{
    list_remove(req);
    req->split_tail = 0;
    launch_rest(req);
}

int tdm_split_poll(void)
{
    int started = 0;
    /* starting a tail runs inline progress, which may start others: look again from the head */
    for (struct tdm_request *req = awaiting_tail; req;) {
        if (req->split_tail && tdm_request_done(req)) {
            start_tail(req);
            started = 1;
            req = awaiting_tail;
        } else {
            req = req->split_next;
        }
    }
    return started;
}

int tdm_split_waiting(void) { return awaiting_tail != NULL; }

void tdm_split_finalize(void) { awaiting_tail = NULL; }

int tdm_split_wait(struct tdm_request *req)
{
    int rc = tdm_thread_agent_wait(req);
    if (rc == MPI_SUCCESS && req->split_tail) {
        start_tail(req);
        rc = tdm_inline_wait(req);
    }
    return rc;
}

int tdm_split_check(struct tdm_request *req)
{
    /* read once: the progress thread may finish the background segment at any moment */
    if (!tdm_request_done(req))
        return 0;
    if (!req->split_tail)
        return 1;
    start_tail(req);
    tdm_inline_progress();
    return tdm_request_done(req);
}

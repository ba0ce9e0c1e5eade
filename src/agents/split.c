/*
 * Split execution of a split schedule (split-tree mode). The schedule's rounds fall in three
 * segments: [0, bg_begin) runs on the application thread inside the starting call (the leaf levels
 * of an all-to-one tree: they need the application's data at once and are the heavy, wide part);
 * [bg_begin, bg_end) runs on the progress thread (the long, narrow part near the root, overlapped
 * with computation); [bg_end, nrounds) runs on the application thread inside Wait or Test (the leaf
 * levels of a one-to-all tree). The request carries its tag through all three.
 */
#include "agent.h"

#include "../core/request.h"

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
        if (tdm_inline_wait(req) != MPI_SUCCESS || tdm_exec_all_done(e))
            return; /* failed (the request completes with the error) or nothing else to run */
    }
    launch_rest(req);
}

/* The background segment is done: the trailing one starts on the application thread. */
static void start_tail(struct tdm_request *req)
{
    req->split_tail = 0;
    launch_rest(req);
}

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

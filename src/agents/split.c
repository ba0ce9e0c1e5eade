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

static tdm_run *awaiting_tail; /* background running, tail to come (via split_next) */

static void list_remove(tdm_run *run)
{
    for (tdm_run **link = &awaiting_tail; *link; link = &(*link)->split_next)
        if (*link == run) {
            *link = run->split_next;
            break;
        }
    run->split_next = NULL;
}

/* Hands the background segment to the progress thread, or the trailing segment to the inline agent
 * if there is no background one left. */
static void launch_rest(tdm_run *run)
{
    const tdm_schedule *s = &run->sched;
    tdm_exec *e = &run->exec;
    __atomic_store_n(&run->complete, 0, __ATOMIC_RELAXED);
    int bg_end = tdm_sched_bg_end(s);
    if (e->round < bg_end) {
        e->end_round = bg_end;
        run->split_tail = bg_end < s->nrounds;
        run->agent = TDM_PROGRESS_THREAD;
        if (run->split_tail) {
            run->split_next = awaiting_tail;
            awaiting_tail = run;
        }
        tdm_thread_agent_hand_over(run);
    } else {
        e->end_round = s->nrounds;
        run->split_tail = 0;
        run->agent = TDM_PROGRESS_INLINE;
        tdm_inline_start(run);
    }
}

void tdm_split_start(tdm_run *run)
{
    const tdm_schedule *s = &run->sched;
    tdm_exec *e = &run->exec;
    int bg_begin = tdm_sched_bg_begin(s);
    if (bg_begin > 0) { /* the leading segment, here and now */
        e->end_round = bg_begin;
        run->agent = TDM_PROGRESS_INLINE;
        tdm_inline_start(run);
        int rc = tdm_inline_wait(run);
        if (rc != MPI_SUCCESS) { /* the request completes with the error when it is waited for */
            tdm_exec_fail(e, rc);
            return;
        }
        if (tdm_exec_all_done(e))
            return; /* failed, or nothing else to run */
    }
    launch_rest(run);
}

/* The background segment is done: the trailing one starts on the application thread. */
static void start_tail(tdm_run *run)
{
    list_remove(run);
    run->split_tail = 0;
    launch_rest(run);
}

int tdm_split_poll(void)
{
    int started = 0;
    /* starting a tail runs inline progress, which may start others: look again from the head */
    for (tdm_run *run = awaiting_tail; run;) {
        if (run->split_tail && tdm_run_done(run)) {
            start_tail(run);
            started = 1;
            run = awaiting_tail;
        } else {
            run = run->split_next;
        }
    }
    return started;
}

int tdm_split_waiting(void) { return awaiting_tail != NULL; }

void tdm_split_finalize(void) { awaiting_tail = NULL; }

int tdm_split_wait(tdm_run *run)
{
    int rc = tdm_thread_agent_wait(run);
    if (rc == MPI_SUCCESS && run->split_tail) {
        start_tail(run);
        rc = tdm_inline_wait(run);
    }
    return rc;
}

int tdm_split_check(tdm_run *run)
{
    /* read once: the progress thread may finish the background segment at any moment */
    if (!tdm_run_done(run))
        return 0;
    if (!run->split_tail)
        return 1;
    start_tail(run);
    tdm_inline_progress();
    return tdm_run_done(run);
}

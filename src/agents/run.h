/*
 * What an agent runs: one schedule in flight, the engine's state of it, its shadow and tag, and the links
 * the agents keep it on. An agent knows runs, never requests: the request layer (core/request.h) holds a
 * run in each request (a call in lanes: a run per lane, linked here) and hears of a call's completion
 * through the hook it set at TDM_Init (tdm_agents_set_hooks), as the shadow communicators' hooks
 * hand back what core hangs on them.
 */
#ifndef TANDEM_RUN_H
#define TANDEM_RUN_H

#include "../base/state.h"
#include "../engine/exec.h"
#include "../engine/shadow_comm.h"
#include "../schedule/schedule.h"

#include <stddef.h>

typedef struct tdm_run {
    int complete;              /* the schedule finished (or failed). Set by the agent's thread: read with
                                  tdm_run_done */
    int agent;                 /* tdm_progress_mode of the agent running it */
    int split_tail;            /* split: a foreground segment follows the background one */
    struct tdm_run *split_next; /* split: the list of runs waiting for their tail */
    /* Lanes: a call built as several independent schedules (tdm_coll_args.lanes), each with its own tag,
     * that agents may run on different threads. The run of the user's request runs lane 0 and lists
     * the others. */
    struct tdm_run *lane_parent; /* lane > 0: the run of the user's request */
    struct tdm_run *lane_next;   /* the user's run: its lanes > 0; a lane: the next one */
    int lane;
    int thread;                  /* the color thread that drives the lane under the thread agent
                                    (several lanes may share one: a torus bucket's chains) */
    int lanes_running;           /* the user's run: lanes not finished yet (atomic) */
    /* A step before the schedule may start (a dedicated collective process's client agreeing on its
     * communicator's name, dcp/dcp_client.c): the agent calls it until it returns 1 (0: not yet; an
     * error fails the call); then the schedule starts. */
    int (*prelude)(struct tdm_run *run, int *error);
    void *prelude_arg;
    tdm_exec exec;
    tdm_shadow *shadow;
    struct tdm_run *active_prev, *active_next; /* the agent's list of running runs */
    tdm_tag_hold tag_hold;       /* on the shadow's list while the call holds its tag */
    struct tdm_run *handoff_next; /* the progress thread's hand-off stack */
    /* Last: its inline arrays of actions and rounds take a kilobyte, and the fields above, which every
     * call touches, stay together in a few cache lines before them. */
    tdm_schedule sched;
} tdm_run;

static inline tdm_run *tdm_run_of_hold(tdm_tag_hold *hold)
{
    return (tdm_run *)((char *)hold - offsetof(tdm_run, tag_hold));
}

/* An agent's list of the runs it keeps (linked by active_prev and active_next). */
static inline void tdm_run_list_push(tdm_run **head, tdm_run *run)
{
    run->active_prev = NULL;
    run->active_next = *head;
    if (*head)
        (*head)->active_prev = run;
    *head = run;
}

static inline void tdm_run_list_remove(tdm_run **head, tdm_run *run)
{
    if (run->active_prev)
        run->active_prev->active_next = run->active_next;
    else
        *head = run->active_next;
    if (run->active_next)
        run->active_next->active_prev = run->active_prev;
    run->active_prev = run->active_next = NULL;
}

/* What the request layer hears from the agents, set at TDM_Init. */
typedef struct tdm_agent_hooks {
    /* The agent finished the whole call (every lane, every split segment) and is about to mark it
     * complete; called only while tdm_global.completion_hooks is set (the interposer's requests). */
    void (*completing)(tdm_run *whole);
} tdm_agent_hooks;
void tdm_agents_set_hooks(const tdm_agent_hooks *hooks);
extern tdm_agent_hooks tdm_run_hooks; /* as set */

static inline void tdm_run_completing(tdm_run *whole)
{
    if (tdm_global.completion_hooks)
        tdm_run_hooks.completing(whole);
}

/* Completion crosses threads: everything the agent wrote before marking is visible after done. The
 * progress thread marks with a full barrier (it then looks for sleeping waiters, see thread.c); the
 * inline agent runs on the waiting thread itself and needs none. */
static inline int tdm_run_done(const tdm_run *run) { return __atomic_load_n(&run->complete, __ATOMIC_ACQUIRE); }
static inline void tdm_run_mark_done(tdm_run *run) { __atomic_store_n(&run->complete, 1, __ATOMIC_SEQ_CST); }
static inline void tdm_run_mark_done_here(tdm_run *run) { __atomic_store_n(&run->complete, 1, __ATOMIC_RELEASE); }

/* The agent finished running a lane's schedule. Returns the run to mark complete for the user: run
 * itself, or for a call in lanes the user's run once its last lane finished (NULL before). The agent
 * marks a lane > 0 complete (tag wraps wait for it) before this call: after it, run may be freed by then. */
tdm_run *tdm_run_lanes_finished(tdm_run *run);
static inline tdm_run *tdm_run_lane_finished(tdm_run *run)
{
    if (!run->lane_parent && !run->lane_next)
        return run; /* one lane (a split run finishes once per segment: nothing to count) */
    return tdm_run_lanes_finished(run);
}

/* A run runs on its shadow communicator once that exists (and its prelude is done): binds the engine to
 * it; 0 while it is still being created (a failed creation fails the run). Bound once, it stays bound (a
 * cached schedule too): the test is all that is left on every later call. */
int tdm_run_bind_comm_slow(tdm_run *run);
static inline int tdm_run_bind_comm(tdm_run *run)
{
    return run->exec.comm != MPI_COMM_NULL || tdm_run_bind_comm_slow(run);
}

#endif

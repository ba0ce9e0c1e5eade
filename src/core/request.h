/*
 * What a TDM_Request points to: one collective call in flight, its schedule and the engine's state.
 * Requests come from a per-process pool, so that starting a collective does not call malloc for them.
 */
#ifndef TANDEM_REQUEST_H
#define TANDEM_REQUEST_H

#include "../algorithms/coll_args.h"
#include "../base/state.h"
#include "../engine/exec.h"
#include "../engine/shadow_comm.h"
#include "../schedule/schedule.h"
#include "sched_cache.h"

#include <stddef.h>

#define TDM_REQUEST_MAGIC 0x7a4d5251u /* a live request; cleared when it returns to the pool */

struct tdm_request {
    unsigned magic;
    int complete;              /* the schedule finished (or failed); the request awaits Wait/Test.
                                  Set by the agent's thread: read with tdm_request_done */
    int agent;                 /* tdm_progress_mode of the agent running it */
    int split_tail;            /* split: a foreground segment follows the background one */
    struct tdm_request *split_next; /* split: the list of requests waiting for their tail */
    tdm_coll_kind kind;
    /* Lanes: a call built as several independent schedules (tdm_coll_args.lanes), each with its own tag,
     * that agents may run on different threads. The request the user holds runs lane 0 and lists the
     * others, internal requests freed with it. */
    struct tdm_request *lane_parent; /* lane > 0: the user's request */
    struct tdm_request *lane_next;   /* the user's request: its lanes > 0; a lane: the next one */
    int lane;
    int thread;                      /* the color thread that drives the lane under the thread agent
                                        (several lanes may share one: a torus bucket's chains) */
    int lanes_running;               /* the user's request: lanes not finished yet (atomic) */
    /* Completion hook (the PMPI interposer completes its generalized request with it): called once,
     * by whichever comes second of the agent finishing the call and tdm_request_on_complete. */
    void (*on_complete)(void *arg, int error);
    void *on_complete_arg;
    int hook_gate;                   /* atomic: 1 once the first of the two passed */
    /* A step before the schedule may start (a dedicated collective process's client agreeing on its
     * communicator's name, agents/dcp_client.c): the agent calls it until it returns 1 (0: not yet;
     * an error fails the call); then the schedule starts. */
    int (*prelude)(struct tdm_request *req, int *error);
    void *prelude_arg;
    /* A persistent call's own steps (a call through a dedicated collective process: its call number and
     * its communicator's name): restart at each start before the schedule runs again, release when the
     * request is freed. */
    void (*restart)(struct tdm_request *req);
    void (*release)(struct tdm_request *req);
    void *persistent_arg;
    tdm_exec exec;
    tdm_shadow *shadow;
    MPI_Datatype owned_types[2]; /* duplicates of the caller's derived datatypes, freed at the end */
    int nowned;
    MPI_Datatype *typed_blocks;  /* alltoallw: the datatype arrays the schedule reads, with derived ones
                                    replaced by duplicates (typed_dups, as owned_types); see typed_blocks.h */
    MPI_Datatype *typed_dups;
    int ntyped_dups;
    int persistent;            /* made by an _init function: started again and again (persistent.h) */
    int active;                /* persistent: started and not yet completed by Wait or Test */
    void *owned_memory;        /* freed with the request: an in-place reduce_scatter in chunks' input
                                  (chunked_calls.c) */
    MPI_Op held_op;            /* a user op the call applies, held against MPI_Op_free (op_hold.h) */
    int holds_op;
    struct tdm_request *active_prev, *active_next; /* the agent's list of running requests */
    tdm_tag_hold tag_hold;     /* on the shadow's list while the call holds its tag */
    struct tdm_request *pool_next;
    struct tdm_request *handoff_next; /* the progress thread's hand-off stack */
    tdm_sched_key key;         /* the call, if its schedule may be cached (see sched_cache.h) */
    int cacheable;
    /* Last: its inline arrays of actions and rounds take a kilobyte, and the fields above, which every
     * call touches, stay together in a few cache lines before them. */
    tdm_schedule sched;
};

static inline struct tdm_request *tdm_request_of_hold(tdm_tag_hold *hold)
{
    return (struct tdm_request *)((char *)hold - offsetof(struct tdm_request, tag_hold));
}

struct tdm_request *tdm_request_alloc(void);
/* The user is done with the request (Wait/Test, or a start that failed): its schedule is kept in the
 * cache, or the request is released. */
void tdm_request_free(struct tdm_request *req);
/* Releases everything the request holds and returns it to the pool. */
void tdm_request_release(struct tdm_request *req);
/* A request taken from the schedule cache becomes live again, for a new call. */
void tdm_request_revive(struct tdm_request *req);
void tdm_request_pool_finalize(void);

static inline int tdm_request_is_live(const struct tdm_request *req)
{
    return req != NULL && req->magic == TDM_REQUEST_MAGIC;
}

/* Completion crosses threads: everything the agent wrote before marking is visible after done. The
 * progress thread marks with a full barrier (it then looks for sleeping waiters, see thread.c); the
 * inline agent runs on the waiting thread itself and needs none. */
static inline int tdm_request_done(const struct tdm_request *req)
{
    return __atomic_load_n(&req->complete, __ATOMIC_ACQUIRE);
}
static inline void tdm_request_mark_done(struct tdm_request *req)
{
    __atomic_store_n(&req->complete, 1, __ATOMIC_SEQ_CST);
}
static inline void tdm_request_mark_done_here(struct tdm_request *req)
{
    __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
}

/* The agent finished running req's schedule. Returns the request to mark complete for the user:
 * req itself, or for a call in lanes the user's request once its last lane finished (NULL before).
 * The agent marks a lane > 0 complete (tag wraps wait for it) before this call: after it, req may be
 * freed by then. */
struct tdm_request *tdm_request_lanes_finished(struct tdm_request *req);
static inline struct tdm_request *tdm_request_lane_finished(struct tdm_request *req)
{
    if (!req->lane_parent && !req->lane_next)
        return req; /* one lane (a split request finishes once per segment: nothing to count) */
    return tdm_request_lanes_finished(req);
}
/* The agent finished the whole call (every lane, every split segment) and is about to mark it
 * complete: runs the completion hook if one was set already. */
void tdm_request_run_hook(struct tdm_request *req);
static inline void tdm_request_completing(struct tdm_request *req)
{
    if (tdm_global.completion_hooks)
        tdm_request_run_hook(req);
}
/* Sets the completion hook of a started request (application thread); runs it at once if the call
 * finished already. The hook may run on the progress thread and before the request reads as done.
 * Only while tdm_global.completion_hooks is set (from before the first collective). */
void tdm_request_on_complete(struct tdm_request *req, void (*fn)(void *arg, int error), void *arg);
/* The first MPI error of the request's lanes, MPI_SUCCESS if none. */
int tdm_request_lanes_error(const struct tdm_request *req);
static inline int tdm_request_error(const struct tdm_request *req)
{
    return req->lane_next ? tdm_request_lanes_error(req) : req->exec.error;
}
/* Writes the schedules of every lane. */
void tdm_request_dump(const struct tdm_request *req, FILE *out);

/* A request runs on its shadow communicator once that exists: binds the engine to it; 0 while it
 * is still being created (a failed creation fails the request). Bound once, it stays bound (a cached
 * request too): the test is all that is left on every later call. */
int tdm_request_bind_comm_slow(struct tdm_request *req);
static inline int tdm_request_bind_comm(struct tdm_request *req)
{
    return req->exec.comm != MPI_COMM_NULL || tdm_request_bind_comm_slow(req);
}

#endif

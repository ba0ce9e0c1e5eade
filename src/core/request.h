/*
 * What a TDM_Request points to: one collective call in flight, its schedule and the engine's state.
 * Requests come from a per-process pool, so that starting a collective does not call malloc for them.
 */
#ifndef TANDEM_REQUEST_H
#define TANDEM_REQUEST_H

#include "../agents/run.h"
#include "../base/state.h"
#include "../schedule/coll_args.h"
#include "sched_cache.h"

#include <stddef.h>

#define TDM_REQUEST_MAGIC 0x7a4d5251u /* a live request; cleared when it returns to the pool */

struct tdm_request {
    unsigned magic;
    tdm_coll_kind kind;
    /* Completion hook (the PMPI interposer completes its generalized request with it): called once,
     * by whichever comes second of the agent finishing the call and tdm_request_on_complete. */
    void (*on_complete)(void *arg, int error);
    void *on_complete_arg;
    int hook_gate;                   /* atomic: 1 once the first of the two passed */
    /* A persistent call's own steps (a call through a dedicated collective process: its call number and
     * its communicator's name): restart at each start before the schedule runs again, release when the
     * request is freed. */
    void (*restart)(struct tdm_request *req);
    void (*release)(struct tdm_request *req);
    void *persistent_arg;
    struct tdm_express *express; /* an express call in flight (express_calls.h), else NULL; in the first
                                    line, all of the request such a call reads */
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
    struct tdm_request *pool_next;
    tdm_sched_key key;         /* the call, if its schedule may be cached (see sched_cache.h) */
    int cacheable;
    tdm_shadow *link;          /* a call handed to another process (handoff.h): the shadow it runs on */
    tdm_shadow *cache_home;    /* ... and its communicator's, whose cache keeps it (held while it runs);
                                  NULL for any other call (kept in run.shadow's) */
    /* What the agents run: the schedule, the engine's state, the shadow and tag, the lanes (a call in
     * lanes: a request per lane, their runs linked). Last: its schedule's inline arrays take a kilobyte,
     * and the fields every call touches stay together in a few cache lines before them. */
    tdm_run run;
};

static inline struct tdm_request *tdm_request_of_run(tdm_run *run)
{
    return (struct tdm_request *)((char *)run - offsetof(struct tdm_request, run));
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

/* The call completed (every lane, every split segment): what the agents mark (agents/run.h). */
static inline int tdm_request_done(const struct tdm_request *req) { return tdm_run_done(&req->run); }

/* The hook the agents call as they complete a call (agents/run.h): runs the completion hook if one was
 * set already. */
void tdm_request_completing(tdm_run *whole);
/* Sets the completion hook of a started request (application thread); runs it at once if the call
 * finished already. The hook may run on the progress thread and before the request reads as done.
 * Only while tdm_global.completion_hooks is set (from before the first collective). */
void tdm_request_on_complete(struct tdm_request *req, void (*fn)(void *arg, int error), void *arg);
/* The first MPI error of the request's lanes, MPI_SUCCESS if none. */
int tdm_request_lanes_error(const struct tdm_request *req);
static inline int tdm_request_error(const struct tdm_request *req)
{
    return req->run.lane_next ? tdm_request_lanes_error(req) : req->run.exec.error;
}
/* Writes the schedules of every lane. */
void tdm_request_dump(const struct tdm_request *req, FILE *out);

#endif

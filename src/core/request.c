#include "request.h"

#include "../base/state.h"
#include "express_calls.h"
#include "op_hold.h"
#include "typed_blocks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct tdm_request *pool; /* free requests */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* application threads may call at once */

struct tdm_request *tdm_request_alloc(void)
{
    pthread_mutex_lock(&pool_lock);
    struct tdm_request *req = pool;
    if (req)
        pool = req->pool_next;
    pthread_mutex_unlock(&pool_lock);
    if (!req && !(req = malloc(sizeof *req)))
        return NULL;
    memset(req, 0, offsetof(struct tdm_request, run.sched)); /* every field but the schedule, set below */
    req->magic = TDM_REQUEST_MAGIC;
    req->run.lanes_running = 1;
    tdm_sched_init(&req->run.sched, "none", 0, 0);
    req->run.exec.reqs = req->run.exec.reqs_inline;
    return req;
}

/* The lanes after the first of a call, internal requests, go with it. */
static __attribute__((noinline)) void free_lanes(struct tdm_request *req)
{
    for (tdm_run *lane = req->run.lane_next, *next; lane; lane = next) {
        next = lane->lane_next;
        lane->lane_next = NULL; /* a lane frees no others */
        tdm_request_free(tdm_request_of_run(lane));
    }
    req->run.lane_next = NULL;
}

void tdm_request_free(struct tdm_request *req)
{
    if (req->run.lane_next)
        free_lanes(req);
    tdm_shadow *sh = req->run.shadow;
    req->magic = 0;
    if (sh) { /* a request completed by the progress thread gives its tag back here */
        tdm_shadow_release(sh, &req->run.tag_hold);
        /* a persistent request's starts went as messages (tdm_persistent_keep): kept for later calls,
         * it is bound to its communicator again, rings included, by the first of them */
        if (req->run.tag_hold.fixed_tag)
            req->run.exec.comm = MPI_COMM_NULL;
        tdm_shadow_unfix_tag(sh, &req->run.tag_hold);
    }
    tdm_shadow *home = req->cache_home;
    if (!tdm_sched_cache_keep(req))
        tdm_request_release(req);
    if (sh)
        tdm_shadow_put(sh);
    if (home)
        tdm_shadow_put(home);
}

void tdm_request_revive(struct tdm_request *req)
{
    /* Only what a call changes: a cached request runs in one lane, and the agent sets split_tail. Its
     * shadow is set once it holds a tag. */
    req->magic = TDM_REQUEST_MAGIC;
    req->run.shadow = NULL;
    req->cache_home = NULL;
    req->persistent = req->active = 0; /* a freed persistent request's schedule serves any later call */
    req->on_complete = NULL;
    req->on_complete_arg = NULL;
    __atomic_store_n(&req->hook_gate, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&req->run.complete, 0, __ATOMIC_RELAXED);
}

void tdm_request_release(struct tdm_request *req)
{
    if (req->release) /* before the schedule's memory, where its argument may live */
        req->release(req);
    req->restart = NULL;
    req->release = NULL;
    tdm_exec_destroy(&req->run.exec);
    tdm_sched_destroy(&req->run.sched);
    for (int i = 0; i < req->nowned; i++)
        MPI_Type_free(&req->owned_types[i]);
    req->nowned = 0;
    free(req->owned_memory);
    req->owned_memory = NULL;
    if (req->typed_blocks || req->typed_dups)
        tdm_release_typed_blocks(req);
    if (req->holds_op)
        tdm_op_release(req->held_op);
    req->holds_op = 0;
    req->magic = 0;
    pthread_mutex_lock(&pool_lock);
    req->pool_next = pool;
    pool = req;
    pthread_mutex_unlock(&pool_lock);
}

void tdm_request_pool_finalize(void)
{
    while (pool) {
        struct tdm_request *next = pool->pool_next;
        free(pool);
        pool = next;
    }
}

int tdm_request_lanes_error(const struct tdm_request *req)
{
    for (const tdm_run *lane = &req->run; lane; lane = lane->lane_next)
        if (lane->exec.error != MPI_SUCCESS)
            return lane->exec.error;
    return MPI_SUCCESS;
}

void tdm_request_dump(const struct tdm_request *req, FILE *out)
{
    for (const tdm_run *lane = &req->run; lane; lane = lane->lane_next)
        tdm_sched_dump(&lane->sched, out);
}

/* The two parties pass the gate in either order; the second runs the hook. */
static void pass_gate(struct tdm_request *req)
{
    if (__atomic_exchange_n(&req->hook_gate, 1, __ATOMIC_ACQ_REL) == 1 && req->on_complete)
        req->on_complete(req->on_complete_arg, tdm_request_error(req));
}

void tdm_request_completing(tdm_run *whole)
{
    if (tdm_exec_all_done(&whole->exec)) /* not the background segment of a split request */
        pass_gate(tdm_request_of_run(whole));
}

void tdm_request_on_complete(struct tdm_request *req, void (*fn)(void *arg, int error), void *arg)
{
    if (req->express) /* the hook comes from the agent: the call becomes a regular one */
        tdm_express_settle(req);
    req->on_complete = fn;
    req->on_complete_arg = arg;
    pass_gate(req);
}

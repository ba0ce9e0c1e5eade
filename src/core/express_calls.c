#include "express_calls.h"

#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "request.h"

#include <stdlib.h>

/* A communicator's express call. The start reads both lines, a wait the second. */
typedef struct tdm_express {
    tdm_sched_key key;       /* the call it serves */
    struct tdm_request *req; /* its request: idle (not live) or in flight; NULL: none */
    void *call;              /* the hand-off's record of the call */
    tdm_shadow *shadow;      /* its communicator's, held while the call is in flight */
    int slot;                /* in flight: the mailbox slot its answer comes in; -1: idle */
} __attribute__((aligned(64))) tdm_express;

/* Side by side: a start reads and writes them all */
static const tdm_handoff *handoff;
static int running;   /* express calls in flight */
static long started_calls;

void tdm_express_set_handoff(const tdm_handoff *h) { handoff = h; }

int TDM_Get_express_calls(long *calls)
{
    if (!calls)
        return tdm_error("TDM_Get_express_calls", MPI_ERR_ARG, "calls is NULL (argument calls)");
    *calls = started_calls;
    return MPI_SUCCESS;
}

int tdm_express_running(void) { return running; }

/* The call posted in slot: its request live, its communicator held until it completes. */
static void started(tdm_express *x, int slot, TDM_Request *request)
{
    x->slot = slot;
    tdm_shadow_hold(x->shadow);
    x->req->magic = TDM_REQUEST_MAGIC;
    running++;
    started_calls++;
    *request = x->req;
}

int tdm_express_start(tdm_shadow *sh, const tdm_sched_key *key, TDM_Request *request)
{
    tdm_express *x = sh->express;
    if (!x || x->slot >= 0 || !x->req || !tdm_sched_key_equal(&x->key, key))
        return 0;
    int slot = handoff->post_express(x->call);
    if (slot < 0)
        return 0;
    started(x, slot, request);
    return 1;
}

/* The record's idle request goes back to the schedule cache (or is released). */
static void dismiss(tdm_express *x)
{
    struct tdm_request *req = x->req;
    x->req = NULL;
    req->express = NULL;
    req->cache_home = x->shadow;
    if (!tdm_sched_cache_keep(req))
        tdm_request_release(req);
}

int tdm_express_adopt(tdm_shadow *sh, struct tdm_request *req, TDM_Request *request)
{
    void *call = handoff->express(req);
    tdm_express *x = sh->express;
    if (!call || (x && x->slot >= 0))
        return 0;
    if (!x) {
        x = aligned_alloc(_Alignof(tdm_express), sizeof *x);
        if (!x)
            return 0;
        *x = (tdm_express){.shadow = sh, .slot = -1};
        sh->express = x;
    }
    int slot = handoff->post_express(call);
    if (slot < 0)
        return 0;
    if (x->req)
        dismiss(x);
    tdm_request_revive(req);
    req->express = x;
    x->key = req->key;
    x->req = req;
    x->call = call;
    started(x, slot, request);
    return 1;
}

int tdm_express_done(struct tdm_request *req)
{
    tdm_express *x = req->express;
    return handoff->take_express(x->call, x->slot);
}

void tdm_express_finish(struct tdm_request *req)
{
    tdm_express *x = req->express;
    x->slot = -1;
    req->magic = 0;
    running--;
    tdm_shadow_put(x->shadow); /* last: the shadow may go, and the record with it */
}

void tdm_express_settle(struct tdm_request *req)
{
    tdm_express *x = req->express;
    int slot = x->slot;
    req->express = NULL;
    x->req = NULL;
    x->slot = -1;
    running--;
    req->cache_home = x->shadow; /* the call's hold on its communicator passes to the run */
    req->run.shadow = req->link; /* the shadow it runs on, held too (it holds no tag: it sends nothing) */
    tdm_shadow_hold(req->link);
    tdm_exec_resume_answers(&req->run.exec, handoff->resume_express(req, slot));
    tdm_agent_answering(&req->run);
}

void tdm_express_clear(tdm_shadow *sh)
{
    tdm_express *x = sh->express;
    if (!x)
        return;
    if (x->req) {
        if (x->slot >= 0) /* in flight at TDM_Finalize: abandoned */
            running--;
        x->req->express = NULL;
        tdm_request_release(x->req);
    }
    free(x);
    sh->express = NULL;
}

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
    void *call;              /* the hand-off's record of the call, and its hooks (read here, not in the
                                hand-off's table: a line less) */
    int (*post)(void *call);
    int (*take)(void *call, int slot);
    tdm_shadow *shadow;      /* its communicator's (not held: a call in flight settles when it is freed) */
    int slot;                /* in flight: the mailbox slot its answer comes in; -1: idle */
} __attribute__((aligned(64))) tdm_express;

static const tdm_handoff *handoff;

void tdm_express_set_handoff(const tdm_handoff *h) { handoff = h; }

int TDM_Get_express_calls(long *calls)
{
    if (!calls)
        return tdm_error("TDM_Get_express_calls", MPI_ERR_ARG, "calls is NULL (argument calls)");
    *calls = tdm_global.express_calls;
    return MPI_SUCCESS;
}

int tdm_express_running(void) { return tdm_global.express_running; }

/* The call posted in slot: its request live. */
static void started(tdm_express *x, int slot, TDM_Request *request)
{
    x->slot = slot;
    x->req->magic = TDM_REQUEST_MAGIC;
    tdm_global.express_running++;
    tdm_global.express_calls++;
    *request = x->req;
}

int tdm_express_start(tdm_shadow *sh, const tdm_sched_key *key, TDM_Request *request)
{
    tdm_express *x = sh->express;
    if (!x || x->slot >= 0 || !x->req || !tdm_sched_key_equal(&x->key, key))
        return 0;
    int slot = x->post(x->call);
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
    x->post = handoff->post_express;
    x->take = handoff->take_express;
    started(x, slot, request);
    return 1;
}

int tdm_express_done(struct tdm_request *req)
{
    tdm_express *x = req->express;
    return x->take(x->call, x->slot);
}

void tdm_express_finish(struct tdm_request *req)
{
    tdm_express *x = req->express;
    x->slot = -1;
    req->magic = 0;
    tdm_global.express_running--;
}

void tdm_express_settle(struct tdm_request *req)
{
    tdm_express *x = req->express;
    int slot = x->slot;
    req->express = NULL;
    x->req = NULL;
    x->slot = -1;
    tdm_global.express_running--;
    req->cache_home = x->shadow; /* held by the run, as any call of the cache */
    tdm_shadow_hold(x->shadow);
    req->run.shadow = req->link; /* the shadow it runs on, held too (it holds no tag: it sends nothing) */
    tdm_shadow_hold(req->link);
    tdm_exec_resume_answers(&req->run.exec, handoff->resume_express(req, slot));
    tdm_agent_answering(&req->run);
}

void tdm_express_user_freeing(tdm_shadow *sh)
{
    tdm_express *x = sh->express;
    if (x && x->slot >= 0)
        tdm_express_settle(x->req);
}

void tdm_express_clear(tdm_shadow *sh)
{
    tdm_express *x = sh->express;
    if (!x)
        return;
    if (x->req) {
        if (x->slot >= 0) /* in flight at TDM_Finalize: abandoned */
            tdm_global.express_running--;
        x->req->express = NULL;
        tdm_request_release(x->req);
    }
    free(x);
    sh->express = NULL;
}

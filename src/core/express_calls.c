#include "express_calls.h"

#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../engine/mailbox.h"
#include "request.h"

#include <stdlib.h>

/* A communicator's express call: the start reads its three lines, a wait the second. */
typedef struct tdm_express {
    tdm_sched_key key;       /* the call it serves */
    struct tdm_request *req; /* its request: idle (not live) or in flight; NULL: none */
    /* the call (handoff.h's tdm_express_call), the fields a wait reads first */
    void *box;
    void *answer_to;
    size_t answer_bytes;
    int slot;                /* in flight: the mailbox slot its answer comes in; -1: idle */
    int answered;
    const void *head;
    size_t head_bytes;
    const void *data;
    size_t data_bytes;
    unsigned *number, *counter;
    tdm_shadow *shadow;      /* its communicator's (not held: a call in flight settles when it is freed) */
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

/* The call numbered and posted in a free slot (returned; -1 if none is free). */
static int post(tdm_express *x)
{
    int slot = tdm_mailbox_reserve(x->box, x->answered);
    if (slot < 0)
        return -1;
    *x->number = (*x->counter)++;
    tdm_mailbox_post_parts(x->box, slot, x->head, x->head_bytes, x->data, x->data_bytes);
    return slot;
}

int tdm_express_start(tdm_shadow *sh, const tdm_sched_key *key, TDM_Request *request)
{
    tdm_express *x = sh->express;
    if (!x || x->slot >= 0 || !x->req || !tdm_sched_key_equal(&x->key, key))
        return 0;
    int slot = post(x);
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

/* x takes the call c describes. */
static void describe(tdm_express *x, const tdm_express_call *c)
{
    x->box = c->box;
    x->answer_to = c->answer_to;
    x->answer_bytes = c->answer_bytes;
    x->answered = c->answered;
    x->head = c->head;
    x->head_bytes = c->head_bytes;
    x->data = c->data;
    x->data_bytes = c->data_bytes;
    x->number = c->number;
    x->counter = c->counter;
}

int tdm_express_adopt(tdm_shadow *sh, struct tdm_request *req, TDM_Request *request)
{
    tdm_express_call call;
    tdm_express *x = sh->express;
    if ((x && x->slot >= 0) || !handoff->express(req, &call))
        return 0;
    if (!x) {
        x = aligned_alloc(_Alignof(tdm_express), sizeof *x);
        if (!x)
            return 0;
        *x = (tdm_express){.shadow = sh, .slot = -1};
        sh->express = x;
    }
    tdm_express fresh = {.key = req->key, .req = req, .shadow = sh};
    describe(&fresh, &call);
    int slot = post(&fresh);
    if (slot < 0)
        return 0;
    if (x->req)
        dismiss(x);
    tdm_request_revive(req);
    req->express = x;
    *x = fresh;
    started(x, slot, request);
    return 1;
}

int tdm_express_done(struct tdm_request *req)
{
    tdm_express *x = req->express;
    return !x->answered || tdm_mailbox_take(x->box, x->slot, x->answer_to, x->answer_bytes);
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
    /* at TDM_Finalize the hand-off has gone: a call in flight is abandoned with the others (below) */
    if (x && x->slot >= 0 && handoff)
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

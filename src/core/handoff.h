/*
 * Calls another process serves: dedicated collective processes (src/dcp/), which live above core and
 * set these hooks at TDM_Init when the job runs in dcp progress. Every call core starts asks them first:
 * a call they serve is built by them (the client's side: its contribution out, the result in, a
 * schedule like any algorithm's) and run by the agents like any other.
 */
#ifndef TANDEM_HANDOFF_H
#define TANDEM_HANDOFF_H

#include "../engine/shadow_comm.h"
#include "../schedule/coll_args.h"

struct tdm_request;

/* What an express call's start and wait need (express_calls.h), described once by the hand-off: the
 * message is its head, then the caller's data (its end), posted into a free slot of this process's
 * mailbox with its call number taken from a counter; the answer, if one comes, read into the caller's
 * buffer. */
typedef struct tdm_express_call {
    void *box;            /* this process's mailbox */
    const void *head;     /* the message's first head_bytes */
    size_t head_bytes;
    const void *data;     /* then data_bytes of the caller's (0: none) */
    size_t data_bytes;
    void *answer_to;      /* answered: where the answer goes, and its bytes */
    size_t answer_bytes;
    int answered;
    unsigned *number;     /* where the message carries its call number, taken from *counter */
    unsigned *counter;
} tdm_express_call;

typedef struct tdm_handoff {
    /* Whether the call on comm is served (1; 0: it runs here; -1: it cannot run at all, since comm holds
     * processes that serve others); if so, *link is the shadow its schedule runs on and *via what build
     * needs of the communicator. */
    int (*serves)(const tdm_coll_args *a, MPI_Comm comm, tdm_shadow **link, void **via);
    /* The call's name (TDM_Request_algorithm: "allreduce_dcp", ...). */
    const char *(*name)(const tdm_coll_args *a);
    /* Builds req->run.sched, the client's side of the call; persistent: made by an _init function. Sets
     * req->cacheable where the schedule may serve identical later calls on the communicator, each
     * after reuse. */
    int (*build)(struct tdm_request *req, const tdm_coll_args *a, void *via, int persistent);
    /* Prepares a kept request for another identical call; 0 if it cannot serve it (the call is then
     * built anew). */
    int (*reuse)(struct tdm_request *req);
    /* Express calls (express_calls.h): a kept call of one round, at most the copy of the caller's data to
     * its message's end, its post and maybe a take into the caller's buffer, runs without the engine.
     * express: 1 if the kept request's call is one (*call describes it), else 0; resume_express: the slot
     * of an express call in flight given to its request's schedule, which goes on from the index
     * returned. */
    int (*express)(struct tdm_request *req, tdm_express_call *call);
    int (*resume_express)(struct tdm_request *req, int slot);
} tdm_handoff;

/* The hooks from now on (NULL: no call is handed off, as outside dcp progress). */
void tdm_handoff_set(const tdm_handoff *handoff);

#endif

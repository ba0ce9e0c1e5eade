/*
 * Express calls: the last small call of a communicator that its dedicated collective process serves
 * through the mailbox (handoff.h), repeated with the same arguments, runs without the engine.
 *
 * Why: such a call costs the DCP's client a copy into a slot and a flag, then an answer read from its
 * slot (some 0.1 us alone), but between two calls a real computation evicts from the caches whatever
 * the call touches, and each line it must fetch again costs several nanoseconds. The general way (the
 * schedule cache, the request's run and exec, the schedule's actions, tags, the agent's list) touches
 * some 65 lines per start and wait; an express call touches its record here, the hand-off's record of
 * the call, the message, the mailbox and the request's first line.
 *
 * A communicator has one express record, for the last call the general path found in the schedule
 * cache that qualifies; while that call is in flight, others take the general path. An express request
 * is a live request like any other (TDM_Request): TDM_Wait and TDM_Test complete it here, every other
 * use first settles it into a regular run (tdm_express_settle).
 */
#ifndef TANDEM_EXPRESS_CALLS_H
#define TANDEM_EXPRESS_CALLS_H

#include "handoff.h"
#include "sched_cache.h"
#include "tandem.h"

struct tdm_request;

/* The hand-off's hooks (NULL outside dcp progress: no express call). */
void tdm_express_set_handoff(const tdm_handoff *handoff);
/* Starts the call as the communicator's express call if it is that one and idle: 1 if so (*request
 * set), else 0. */
int tdm_express_start(tdm_shadow *sh, const tdm_sched_key *key, TDM_Request *request);
/* req, just taken from sh's cache for this call, becomes sh's express call if it qualifies and sh's is
 * idle (the one before goes back to the cache), and starts: 1 if so (*request set), else 0. */
int tdm_express_adopt(tdm_shadow *sh, struct tdm_request *req, TDM_Request *request);
/* The express request's answer: 1 once taken (the call is complete), else 0. */
int tdm_express_done(struct tdm_request *req);
/* A complete express request goes back to its record, idle. */
void tdm_express_finish(struct tdm_request *req);
/* An express request in flight becomes a regular call (a run waiting for its answer on the agent):
 * for every use of it but TDM_Wait and TDM_Test. */
void tdm_express_settle(struct tdm_request *req);
/* Express calls in flight. */
int tdm_express_running(void);
/* The user frees sh's communicator: its express call in flight becomes a regular one, which holds it. */
void tdm_express_user_freeing(tdm_shadow *sh);
/* The shadow goes: its express request (idle, or abandoned at TDM_Finalize) is released. */
void tdm_express_clear(tdm_shadow *sh);

#endif

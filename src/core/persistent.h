/*
 * Persistent collectives (MPI-4): an _init function checks the arguments and builds the schedule once,
 * with tags of its own; each TDM_Start runs it again, and Wait or Test leaves the request inactive, to
 * be started again or freed with TDM_Request_free.
 */
#ifndef TANDEM_PERSISTENT_H
#define TANDEM_PERSISTENT_H

#include "request.h"

/* While on, the collectives' start functions build their call and hand it to tdm_persistent_keep
 * instead of starting it (api_collectives.c). */
void tdm_build_persistent(int on);
/* A call just built by an _init function becomes an inactive persistent request: it gives back the
 * sequence tags it was built with and takes tags of its own, in init order (the same on every rank),
 * so that its starts may come in any order among the communicator's other calls (MPI-4 matches
 * persistent collectives by their _init). An error if the communicator has no such tag left. */
int tdm_persistent_keep(struct tdm_request *req);
/* Wait or Test completed an active persistent request: inactive again, its tags given back. */
void tdm_persistent_complete(struct tdm_request *req);

/* The body of an _init function: call, a non-blocking start, builds the persistent request. MPI
 * defines one info key for collectives, mpi_assert_strict_persistent_collective_ordering: it offers no
 * cheaper path here (each request has its own tags already), so info is accepted and not read. */
#define TDM_PERSISTENT(call)                                                                            \
    do {                                                                                                \
        (void)info;                                                                                     \
        tdm_build_persistent(1);                                                                        \
        int rc_ = (call);                                                                               \
        tdm_build_persistent(0);                                                                        \
        return rc_;                                                                                     \
    } while (0)

static inline int tdm_request_inactive(const struct tdm_request *req) { return req->persistent && !req->active; }

#endif

/*
 * The PMPI interposer (libtandem_mpi): an MPI program's own MPI_Ixxx calls run as Tandem schedules.
 * Its functions are MPI's names; Tandem underneath reaches MPI by the PMPI names (pmpi_names.h).
 *
 * A Tandem call becomes an MPI generalized request (MPI_Grequest_start), so that the program can use
 * it wherever MPI takes a request. Tandem completes the generalized request when its schedule is done
 * (a completion hook, run by the progress thread or inside inline progress); the wait and test calls
 * are intercepted so that inline progress advances Tandem's schedules while the program waits, and
 * the Tandem request is released on the application thread once MPI has freed the generalized one.
 */
#ifndef TANDEM_INTERPOSE_H
#define TANDEM_INTERPOSE_H

#include <mpi.h>

#include "tandem.h"

/* Internal to the library; only tdm_ip_counts is looked up from outside (by the tests, with dlsym). */
#define TDM_IP_HIDDEN __attribute__((visibility("hidden")))

typedef enum { TDM_IP_OFF, TDM_IP_NONBLOCKING, TDM_IP_ALL } tdm_ip_mode;

/* TANDEM_INTERPOSE, once Tandem runs (off before MPI_Init, after MPI_Finalize or if TDM_Init failed). */
TDM_IP_HIDDEN tdm_ip_mode tdm_ip_mode_now(void);

/* Whether Tandem takes a collective on comm (an intra-communicator); else the caller goes to MPI and
 * TANDEM_VERBOSE says so once per function. `blocking`: a blocking collective (TANDEM_INTERPOSE=all). */
TDM_IP_HIDDEN int tdm_ip_takes(const char *fn, MPI_Comm comm, int blocking);
/* Tandem refused a call it was given (rc). 1: bad arguments, the call goes to MPI, which reports them
 * its own way; 0: it failed under way and rc goes back to the program. */
TDM_IP_HIDDEN int tdm_ip_refused(const char *fn, int rc);

/* The application world (interpose_world.c): in dcp progress the program's MPI_COMM_WORLD means the
 * ranks that are not dedicated collective processes, in every MPI call (app_world_calls.c, generated).
 * Elsewhere it is MPI_COMM_WORLD itself. */
TDM_IP_HIDDEN extern MPI_Comm tdm_ip_app_world;
static inline MPI_Comm tdm_ip_comm(MPI_Comm comm) { return comm == MPI_COMM_WORLD ? tdm_ip_app_world : comm; }
/* The communicator whose attribute `keyval` is read: MPI_COMM_WORLD itself for those MPI caches there. */
TDM_IP_HIDDEN MPI_Comm tdm_ip_attr_comm(MPI_Comm comm, int keyval);
/* After TDM_Init: the application world is Tandem's (dcp progress); back to MPI_COMM_WORLD at the end. */
TDM_IP_HIDDEN void tdm_ip_app_world_start(void);
TDM_IP_HIDDEN void tdm_ip_app_world_end(void);

/* Hands a started Tandem call to the program as a generalized MPI request. */
TDM_IP_HIDDEN int tdm_ip_wrap(TDM_Request treq, MPI_Request *request);
/* Waits for a Tandem call started by a blocking collective. */
TDM_IP_HIDDEN int tdm_ip_wait_blocking(TDM_Request treq);
/* After a blocking collective Tandem ran whole (TDM_Xxx): MPI_SUCCESS. */
TDM_IP_HIDDEN int tdm_ip_blocking_done(void);
/* Tandem calls the program has not released yet: when none, waits and tests go straight to MPI. */
TDM_IP_HIDDEN int tdm_ip_outstanding(void);
/* A persistent call started (+1) or finished its run (-1): waits poll and advance Tandem meanwhile. */
TDM_IP_HIDDEN void tdm_ip_track(int delta);
/* MPI_Request_free of a persistent call's proxy: 1 (and *rc) if it was one (interpose_persistent.c). */
TDM_IP_HIDDEN int tdm_ip_persistent_free(MPI_Request *request, int *rc);
TDM_IP_HIDDEN void tdm_ip_persistent_finalize(void);
/* A persistent Tandem call just made: the program gets its proxy request (interpose_persistent.c). */
TDM_IP_HIDDEN int tdm_ip_persistent_hand_out(TDM_Request treq, MPI_Request *request);
/* Drives every Tandem call to completion and releases them (MPI_Finalize). */
TDM_IP_HIDDEN void tdm_ip_complete_all(void);
/* Calls Tandem served so far, and calls passed to MPI. */
void tdm_ip_counts(unsigned long *served, unsigned long *native);

/* The body of a collective: `start` is the TDM_Ixxx call (into treq_); `finish` what becomes of the
 * started call (a generalized request, or a wait for a blocking collective); `native` the PMPI call,
 * also for a call Tandem cannot hand back (`handable` 0: a non-blocking or persistent call given no
 * request, which MPI refuses with its own error class, before anything starts).
 * `comm`, the function's parameter, becomes the application world first if it is MPI_COMM_WORLD. */
#define TDM_IP_ROUTE(fn, comm, blocking, handable, start, finish, native)                                  \
    do {                                                                                                   \
        TDM_Request treq_;                                                                                 \
        (comm) = tdm_ip_comm(comm);                                                                        \
        if ((handable) && tdm_ip_takes(fn, comm, blocking)) {                                              \
            int rc_ = (start);                                                                             \
            if (rc_ == MPI_SUCCESS)                                                                        \
                return (finish);                                                                           \
            if (!tdm_ip_refused(fn, rc_))                                                                  \
                return rc_;                                                                                \
        }                                                                                                  \
        return (native);                                                                                   \
    } while (0)
#define TDM_IP_NONBLOCKING(fn, comm, start, native)                                                        \
    TDM_IP_ROUTE(fn, comm, 0, request != NULL, start, tdm_ip_wrap(treq_, request), native)
#define TDM_IP_BLOCKING(fn, comm, start, native) TDM_IP_ROUTE(fn, comm, 1, 1, start, tdm_ip_wait_blocking(treq_), native)
/* A blocking collective that Tandem's blocking call runs whole (its small calls on one node take the
 * node's lines, which a non-blocking start and a wait never do). */
#define TDM_IP_BLOCKING_WHOLE(fn, comm, call, native)                                                      \
    TDM_IP_ROUTE(fn, comm, 1, 1, call, ((void)treq_, tdm_ip_blocking_done()), native)
/* A persistent collective's _init: `start` the TDM_Xxx_init call; the program gets a proxy request. */
#define TDM_IP_PERSISTENT(fn, comm, start, native)                                                         \
    TDM_IP_ROUTE(fn, comm, 0, request != NULL, start, tdm_ip_persistent_hand_out(treq_, request), native)

#endif

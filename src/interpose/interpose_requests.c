/*
 * Tandem calls as generalized MPI requests, and the wait and test calls that keep Tandem's schedules
 * moving while the program waits on them (alone or mixed with its own requests).
 *
 * Life of one call: the collective wrapper starts the Tandem call and MPI_Grequest_start; Tandem's
 * completion hook (progress thread, or inline progress inside an intercepted call) records the error
 * and calls MPI_Grequest_complete; MPI frees the generalized request when the program's wait or test
 * returns it, or after MPI_Request_free, and calls free_fn, possibly on the progress thread; free_fn
 * only queues the call, and the application thread releases the Tandem request in its next
 * intercepted call. Nothing here holds a lock while in MPI.
 */
#include "interpose.h"

#include "../agents/agent.h"
#include "../core/request.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

/* Polls of a wait that found nothing done before it yields the core between polls. */
#define SPIN_POLLS 100

typedef struct ip_call {
    TDM_Request treq;
    MPI_Request greq;
    int error;                /* the Tandem call's MPI error, for query_fn */
    struct ip_call *released; /* on the list of calls MPI has freed */
} ip_call;

static int outstanding;       /* atomic: calls started and not yet released */
static int running;           /* atomic: calls whose schedule has not finished */
static pthread_mutex_t released_lock = PTHREAD_MUTEX_INITIALIZER;
static ip_call *released;     /* under released_lock */
static int nreleased;         /* atomic */

int tdm_ip_outstanding(void) { return __atomic_load_n(&outstanding, __ATOMIC_ACQUIRE); }

void tdm_ip_track(int delta)
{
    __atomic_add_fetch(&outstanding, delta, __ATOMIC_RELEASE);
    __atomic_add_fetch(&running, delta, __ATOMIC_RELEASE);
}

/* ---- the generalized request's callbacks ---- */

static int query_fn(void *extra, MPI_Status *status)
{
    const ip_call *call = extra;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return call->error;
}

static int free_fn(void *extra)
{
    ip_call *call = extra;
    pthread_mutex_lock(&released_lock);
    call->released = released;
    released = call;
    pthread_mutex_unlock(&released_lock);
    __atomic_add_fetch(&nreleased, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete; /* a collective cannot be cancelled (MPI says so too) */
    return MPI_SUCCESS;
}

static void on_done(void *arg, int error)
{
    ip_call *call = arg;
    call->error = error;
    __atomic_sub_fetch(&running, 1, __ATOMIC_RELEASE);
    MPI_Grequest_complete(call->greq);
}

/* ---- the application side ---- */

/* Releases the Tandem requests of the calls MPI has freed. */
static void release_freed(void)
{
    if (__atomic_load_n(&nreleased, __ATOMIC_ACQUIRE) == 0)
        return;
    pthread_mutex_lock(&released_lock);
    ip_call *list = released;
    released = NULL;
    pthread_mutex_unlock(&released_lock);
    while (list) {
        ip_call *next = list->released;
        TDM_Wait(&list->treq, MPI_STATUS_IGNORE); /* done already (its hook ran just before marking) */
        free(list);
        list = next;
        __atomic_sub_fetch(&nreleased, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&outstanding, 1, __ATOMIC_RELEASE);
    }
}

/* One step of Tandem's work on the application thread. */
static void advance(void)
{
    release_freed();
    if (__atomic_load_n(&running, __ATOMIC_ACQUIRE) > 0)
        tdm_agent_progress();
}

int tdm_ip_wrap(TDM_Request treq, MPI_Request *request)
{
    ip_call *call = malloc(sizeof *call);
    int rc = call ? PMPI_Grequest_start(query_fn, free_fn, cancel_fn, call, &call->greq) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) { /* the call is under way on every rank: finish it, then report */
        TDM_Wait(&treq, MPI_STATUS_IGNORE);
        free(call);
        return rc;
    }
    call->treq = treq;
    call->error = MPI_SUCCESS;
    __atomic_add_fetch(&outstanding, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&running, 1, __ATOMIC_RELAXED);
    *request = call->greq;
    tdm_request_on_complete(treq, on_done, call);
    return MPI_SUCCESS;
}

int tdm_ip_wait_blocking(TDM_Request treq)
{
    release_freed();
    return TDM_Wait(&treq, MPI_STATUS_IGNORE);
}

int tdm_ip_blocking_done(void)
{
    release_freed();
    return MPI_SUCCESS;
}

void tdm_ip_complete_all(void)
{
    for (int polls = 0; __atomic_load_n(&running, __ATOMIC_ACQUIRE) > 0; polls++) {
        advance();
        if (polls >= SPIN_POLLS)
            sched_yield();
    }
    release_freed(); /* calls the program never waited for nor freed stay with MPI */
}

/*
 * A wait: while Tandem calls are out, poll the program's requests with `test` and advance Tandem in
 * between (yielding the core after a short spin, so that an oversubscribed rank does not starve the
 * one it waits for); with none, block in MPI with `block`.
 */
#define WAIT_WITH_PROGRESS(test, done, block)                                                              \
    do {                                                                                                   \
        for (int polls_ = 0;; polls_++) {                                                                  \
            if (tdm_ip_outstanding() == 0) {                                                               \
                block;                                                                                     \
                break;                                                                                     \
            }                                                                                              \
            advance();                                                                                     \
            test;                                                                                          \
            if (rc != MPI_SUCCESS || (done))                                                               \
                break;                                                                                     \
            if (polls_ >= SPIN_POLLS)                                                                      \
                sched_yield();                                                                             \
        }                                                                                                  \
        release_freed();                                                                                   \
    } while (0)

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc = MPI_SUCCESS, flag = 0;
    WAIT_WITH_PROGRESS(rc = PMPI_Test(request, &flag, status), flag, rc = PMPI_Wait(request, status));
    return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int rc = MPI_SUCCESS, flag = 0;
    WAIT_WITH_PROGRESS(rc = PMPI_Testall(count, requests, &flag, statuses), flag,
                       rc = PMPI_Waitall(count, requests, statuses));
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int rc = MPI_SUCCESS, flag = 0;
    WAIT_WITH_PROGRESS(rc = PMPI_Testany(count, requests, index, &flag, status), flag,
                       rc = PMPI_Waitany(count, requests, index, status));
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    int rc = MPI_SUCCESS;
    *outcount = 0;
    WAIT_WITH_PROGRESS(rc = PMPI_Testsome(incount, requests, outcount, indices, statuses), *outcount != 0,
                       rc = PMPI_Waitsome(incount, requests, outcount, indices, statuses));
    return rc;
}

/* Tests: one step of Tandem's work, then MPI's answer. */

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    advance();
    int rc = PMPI_Test(request, flag, status);
    release_freed();
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    advance();
    int rc = PMPI_Testall(count, requests, flag, statuses);
    release_freed();
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    advance();
    int rc = PMPI_Testany(count, requests, index, flag, status);
    release_freed();
    return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    advance();
    int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    release_freed();
    return rc;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    advance();
    return PMPI_Request_get_status(request, flag, status);
}

/* A freed Tandem call still runs to its end; MPI calls free_fn once it completes. */
int MPI_Request_free(MPI_Request *request)
{
    advance();
    int rc;
    if (tdm_ip_persistent_free(request, &rc))
        return rc;
    rc = PMPI_Request_free(request);
    release_freed();
    return rc;
}

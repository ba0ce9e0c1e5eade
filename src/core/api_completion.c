/* Completion: TDM_Wait, TDM_Test and their array forms, with MPI's semantics. A null request and an
 * inactive persistent one complete at once with an empty status; a completed persistent request stays
 * (inactive), the others are released and set to TDM_REQUEST_NULL. */
#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "api_internal.h"
#include "express_calls.h"
#include "persistent.h"
#include "request.h"

/* A collective's status is empty: MPI defines only MPI_ERROR for it. */
static void set_status(MPI_Status *status, int error)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = error;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
}

static int idle(TDM_Request request) { return request == TDM_REQUEST_NULL || tdm_request_inactive(request); }

static int check_ready(const char *fn)
{
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized (call TDM_Init first%s)",
                         tdm_global.finalized ? "; TDM_Finalize was called" : "");
    return MPI_SUCCESS;
}

static int check_request(const char *fn, const char *name, TDM_Request request)
{
    if (request != TDM_REQUEST_NULL && !tdm_request_is_live(request))
        return tdm_error(fn, MPI_ERR_REQUEST,
                         "not an active Tandem request (argument %s); was it completed or freed already?",
                         name);
    return MPI_SUCCESS;
}

/* Checks an array of requests; the express ones among them become regular calls (the array forms wait
 * on the agent). */
static int check_array(const char *fn, int count, const TDM_Request *requests)
{
    if (count < 0)
        return tdm_error(fn, MPI_ERR_COUNT, "negative count %d (argument count)", count);
    if (count > 0 && !requests)
        return tdm_error(fn, MPI_ERR_ARG, "requests is NULL (argument requests)");
    for (int i = 0; i < count; i++)
        if (requests[i] != TDM_REQUEST_NULL && !tdm_request_is_live(requests[i]))
            return tdm_error(fn, MPI_ERR_REQUEST,
                             "requests[%d] is not an active Tandem request (argument requests)", i);
    for (int i = 0; i < count; i++)
        if (requests[i] != TDM_REQUEST_NULL && requests[i]->express)
            tdm_express_settle(requests[i]);
    return MPI_SUCCESS;
}

/* An express call's completion (express_calls.h): its request goes back to its communicator. */
static int finish_express(TDM_Request *request, MPI_Status *status)
{
    tdm_express_finish(*request);
    *request = TDM_REQUEST_NULL;
    set_status(status, MPI_SUCCESS);
    return MPI_SUCCESS;
}

/* Waits for an express call's answer: 1 once taken, 0 if the call became a regular one meanwhile: an
 * MPI may delete a freed communicator's attributes inside a later progress call (MPICH does when an
 * operation on it was still pending at MPI_Comm_free), which settles the call. */
static int wait_express(TDM_Request *request)
{
    for (int polls = 1; !tdm_express_done(*request); polls++) {
        tdm_agent_answer_pause(polls);
        if (!(*request)->express)
            return 0;
    }
    return 1;
}

/* Releases a completed request; returns its error class (MPI_SUCCESS if it ran through). */
static int finish(const char *fn, TDM_Request *request, MPI_Status *status)
{
    struct tdm_request *req = *request;
    int error = tdm_request_error(req), error_class = MPI_SUCCESS;
    if (error != MPI_SUCCESS) /* Tandem's own duplicate of the communicator, or the algorithm, failed */
        error_class = req->run.shadow && req->run.shadow->error == error
                          ? tdm_mpi_error(fn, tdm_shadow_error_what(req->run.shadow), error)
                          : tdm_mpi_error(fn, req->run.sched.algorithm, error);
    set_status(status, error_class);
    if (req->persistent) {
        tdm_persistent_complete(req);
        return error_class;
    }
    tdm_request_free(req);
    *request = TDM_REQUEST_NULL;
    return error_class;
}

int tdm_wait(const char *fn, TDM_Request *request, MPI_Status *status)
{
    int rc = check_ready(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return tdm_error(fn, MPI_ERR_ARG, "request is NULL (argument request)");
    if ((rc = check_request(fn, "request", *request)) != MPI_SUCCESS)
        return rc;
    if (*request && (*request)->express && wait_express(request))
        return finish_express(request, status);
    if (idle(*request)) {
        set_status(status, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    rc = tdm_agent_wait(&(*request)->run);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "waiting for messages", rc);
    return finish(fn, request, status);
}

int TDM_Wait(TDM_Request *request, MPI_Status *status) { return tdm_wait("TDM_Wait", request, status); }

int TDM_Test(TDM_Request *request, int *flag, MPI_Status *status)
{
    static const char *fn = "TDM_Test";
    int rc = check_ready(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request || !flag)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", request ? "flag" : "request",
                         request ? "flag" : "request");
    if ((rc = check_request(fn, "request", *request)) != MPI_SUCCESS)
        return rc;
    if (*request && (*request)->express) {
        *flag = tdm_express_done(*request);
        if (*flag)
            return finish_express(request, status);
        tdm_agent_progress();
        return MPI_SUCCESS;
    }
    if (idle(*request)) {
        *flag = 1;
        set_status(status, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    tdm_agent_progress();
    *flag = tdm_agent_check(&(*request)->run);
    if (!*flag)
        tdm_inline_test_missed();
    return *flag ? finish(fn, request, status) : MPI_SUCCESS;
}

int tdm_test_settled(TDM_Request *request, int *flag)
{
    if (*request && (*request)->express)
        tdm_express_settle(*request);
    *flag = idle(*request) || tdm_agent_check(&(*request)->run);
    return *flag && !idle(*request) ? finish("TDM_Test", request, MPI_STATUS_IGNORE) : MPI_SUCCESS;
}

/* Finishes every completed request of the array; MPI_ERR_IN_STATUS if some failed and statuses are
 * wanted, else the first failure's class. */
static int finish_all(const char *fn, int count, TDM_Request requests[], MPI_Status *statuses)
{
    int first_error = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        int rc = !idle(requests[i]) ? finish(fn, &requests[i], st) : (set_status(st, MPI_SUCCESS), MPI_SUCCESS);
        if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS)
            first_error = rc;
    }
    if (first_error != MPI_SUCCESS && statuses != MPI_STATUSES_IGNORE)
        return MPI_ERR_IN_STATUS;
    return first_error;
}

int TDM_Waitall(int count, TDM_Request requests[], MPI_Status *statuses)
{
    static const char *fn = "TDM_Waitall";
    int rc = check_ready(fn);
    if (rc == MPI_SUCCESS)
        rc = check_array(fn, count, requests);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < count; i++)
        if (!idle(requests[i]) && (rc = tdm_agent_wait(&requests[i]->run)) != MPI_SUCCESS)
            return tdm_mpi_error(fn, "waiting for messages", rc);
    return finish_all(fn, count, requests, statuses);
}

int TDM_Testall(int count, TDM_Request requests[], int *flag, MPI_Status *statuses)
{
    static const char *fn = "TDM_Testall";
    int rc = check_ready(fn);
    if (rc == MPI_SUCCESS)
        rc = check_array(fn, count, requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return tdm_error(fn, MPI_ERR_ARG, "flag is NULL (argument flag)");
    tdm_agent_progress();
    *flag = 1;
    for (int i = 0; i < count; i++)
        if (!idle(requests[i]) && !tdm_agent_check(&requests[i]->run))
            *flag = 0;
    if (!*flag)
        tdm_inline_test_missed();
    return *flag ? finish_all(fn, count, requests, statuses) : MPI_SUCCESS;
}

int TDM_Waitany(int count, TDM_Request requests[], int *index, MPI_Status *status)
{
    static const char *fn = "TDM_Waitany";
    int rc = check_ready(fn);
    if (rc == MPI_SUCCESS)
        rc = check_array(fn, count, requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!index)
        return tdm_error(fn, MPI_ERR_ARG, "index is NULL (argument index)");
    tdm_agent_progress();
    for (;;) {
        unsigned long mark = tdm_agent_completion_mark(); /* before looking at the flags */
        int live = 0;
        for (int i = 0; i < count; i++) {
            if (idle(requests[i]))
                continue;
            live = 1;
            if (tdm_agent_check(&requests[i]->run)) {
                *index = i;
                return finish(fn, &requests[i], status);
            }
        }
        if (!live) {
            *index = MPI_UNDEFINED;
            set_status(status, MPI_SUCCESS);
            return MPI_SUCCESS;
        }
        if ((rc = tdm_agent_block(mark)) != MPI_SUCCESS)
            return tdm_mpi_error(fn, "waiting for messages", rc);
    }
}

int TDM_Request_dump(TDM_Request request, FILE *out)
{
    static const char *fn = "TDM_Request_dump";
    if (!tdm_request_is_live(request))
        return tdm_error(fn, MPI_ERR_REQUEST, "not an active Tandem request (argument request)");
    if (!out)
        return tdm_error(fn, MPI_ERR_ARG, "out is NULL (argument out)");
    tdm_request_dump(request, out);
    return MPI_SUCCESS;
}

const char *TDM_Request_algorithm(TDM_Request request)
{
    return tdm_request_is_live(request) ? request->run.sched.algorithm : NULL;
}

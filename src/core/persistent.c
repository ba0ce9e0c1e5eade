/* Persistent collectives: the TDM_Xxx_init functions, TDM_Start, TDM_Startall, TDM_Request_free. */
#include "persistent.h"

#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "api_internal.h"

#include <stdio.h>

int tdm_persistent_keep(struct tdm_request *req)
{
    int rc = MPI_SUCCESS;
    for (tdm_run *lane = &req->run; lane; lane = lane->lane_next) {
        tdm_shadow_release(req->run.shadow, &lane->tag_hold); /* its claim keeps the shadow until freed */
        if (rc == MPI_SUCCESS)
            rc = tdm_shadow_fix_tag(req->run.shadow, &lane->tag_hold);
        if (lane->tag_hold.fixed_tag)
            lane->exec.shm = NULL; /* bound while it was built: its starts go as messages (tdm_run_bind_comm_slow) */
    }
    req->persistent = 1;
    req->active = 0;
    return rc;
}

void tdm_persistent_complete(struct tdm_request *req)
{
    for (tdm_run *lane = &req->run; lane; lane = lane->lane_next) {
        tdm_shadow_release(req->run.shadow, &lane->tag_hold);
        tdm_shadow_put(req->run.shadow); /* the start's claim */
    }
    req->active = 0;
}

static int check_startable(const char *fn, const char *name, TDM_Request req)
{
    if (!tdm_request_is_live(req))
        return tdm_error(fn, MPI_ERR_REQUEST, "not a Tandem request (argument %s); was it freed already?", name);
    if (!req->persistent)
        return tdm_error(fn, MPI_ERR_REQUEST,
                         "not a persistent request (argument %s): non-blocking calls start when they are made", name);
    if (req->active)
        return tdm_error(fn, MPI_ERR_REQUEST, "the request is active already (argument %s): complete it first", name);
    return MPI_SUCCESS;
}

/* Runs the built schedule again, every lane on its own tag (or, where the communicator keeps none for
 * persistent requests, a new sequence tag: starts must then come in the same order on every rank). */
static int start(const char *fn, struct tdm_request *req)
{
    int lanes = 0;
    for (tdm_run *lane = &req->run; lane; lane = lane->lane_next, lanes++) {
        int tag = lane->tag_hold.fixed_tag - 1, rc = MPI_SUCCESS;
        if (tag >= 0) {
            tdm_shadow_hold(req->run.shadow);
            lane->tag_hold.starts++;
        }
        else
            rc = tdm_shadow_claim_tag(req->run.shadow, &lane->tag_hold, &tag);
        if (rc != MPI_SUCCESS) { /* the lanes that claimed theirs give them back */
            for (tdm_run *claimed = &req->run; claimed != lane; claimed = claimed->lane_next) {
                tdm_shadow_release(req->run.shadow, &claimed->tag_hold);
                tdm_shadow_put(req->run.shadow);
            }
            return tdm_mpi_error(fn, "completing earlier collectives to reuse their tag", rc);
        }
        __atomic_store_n(&lane->complete, 0, __ATOMIC_RELAXED);
        tdm_exec_restart(&lane->exec, tag);
    }
    req->on_complete = NULL;
    req->on_complete_arg = NULL;
    __atomic_store_n(&req->hook_gate, 0, __ATOMIC_RELAXED);
    req->run.lanes_running = lanes;
    req->active = 1;
    if (req->restart)
        req->restart(req);
    tdm_agent_start(&req->run);
    return MPI_SUCCESS;
}

static int check_ready(const char *fn)
{
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized (call TDM_Init first%s)",
                         tdm_global.finalized ? "; TDM_Finalize was called" : "");
    return MPI_SUCCESS;
}

int TDM_Start(TDM_Request *request)
{
    static const char *fn = "TDM_Start";
    int rc = check_ready(fn);
    if (rc == MPI_SUCCESS && !request)
        rc = tdm_error(fn, MPI_ERR_ARG, "request is NULL (argument request)");
    if (rc == MPI_SUCCESS)
        rc = check_startable(fn, "request", *request);
    return rc == MPI_SUCCESS ? start(fn, *request) : rc;
}

int TDM_Startall(int count, TDM_Request requests[])
{
    static const char *fn = "TDM_Startall";
    int rc = check_ready(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return tdm_error(fn, MPI_ERR_COUNT, "negative count %d (argument count)", count);
    if (count > 0 && !requests)
        return tdm_error(fn, MPI_ERR_ARG, "requests is NULL (argument requests)");
    char name[32];
    for (int i = 0; i < count; i++) { /* all checked before any starts */
        snprintf(name, sizeof name, "requests[%d]", i);
        if ((rc = check_startable(fn, name, requests[i])) != MPI_SUCCESS)
            return rc;
        for (int j = 0; j < i; j++)
            if (requests[j] == requests[i])
                return tdm_error(fn, MPI_ERR_REQUEST, "requests[%d] is requests[%d] again (argument requests)", i, j);
    }
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = start(fn, requests[i]);
    return rc;
}

int TDM_Request_free(TDM_Request *request)
{
    static const char *fn = "TDM_Request_free";
    if (!request)
        return tdm_error(fn, MPI_ERR_ARG, "request is NULL (argument request)");
    struct tdm_request *req = *request;
    if (!tdm_request_is_live(req))
        return tdm_error(fn, MPI_ERR_REQUEST, "not a Tandem request (argument request); was it freed already?");
    if (!req->persistent)
        return tdm_error(fn, MPI_ERR_REQUEST, "a non-blocking collective cannot be freed: complete it with "
                                              "TDM_Wait or TDM_Test (argument request)");
    if (req->active)
        return tdm_error(fn, MPI_ERR_REQUEST, "the persistent request is active: complete it first (argument request)");
    tdm_request_free(req);
    *request = TDM_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The _init functions: the non-blocking start's checks and schedule, kept instead of started. MPI
 * defines no info keys for collectives; info is accepted and not read. */

int TDM_Barrier_init(MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ibarrier("TDM_Barrier_init", comm, request));
}

int TDM_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ibcast("TDM_Bcast_init", buffer, count, datatype, root, comm, request));
}

int TDM_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ireduce("TDM_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm, request));
}

int TDM_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iallreduce("TDM_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm, request));
}

int TDM_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_igather("TDM_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                           comm, request));
}

int TDM_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_igatherv("TDM_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs),
                            recvtype, root, comm, request));
}

int TDM_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iscatter("TDM_Scatter_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, request));
}

int TDM_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iscatterv("TDM_Scatterv_init", sendbuf, sendcounts, tdm_displs_of_ints(displs), sendtype, recvbuf, recvcount,
                             recvtype, root, comm, request));
}

int TDM_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iallgather("TDM_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              comm, request));
}

int TDM_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iallgatherv("TDM_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs),
                               recvtype, comm, request));
}

int TDM_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ireduce_scatter("TDM_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                   request));
}

int TDM_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ireduce_scatter_block("TDM_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount, datatype,
                                         op, comm, request));
}

int TDM_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ialltoall("TDM_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             comm, request));
}

int TDM_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ialltoallv("TDM_Alltoallv_init", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype, recvbuf, recvcounts,
                              tdm_displs_of_ints(rdispls), recvtype, comm, request));
}

int TDM_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_ialltoallw("TDM_Alltoallw_init", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtypes, recvbuf, recvcounts,
                              tdm_displs_of_ints(rdispls), recvtypes, comm, request));
}

int TDM_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iscan("TDM_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, request));
}

int TDM_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, TDM_Request *request)
{
    TDM_PERSISTENT(tdm_iexscan("TDM_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, request));
}

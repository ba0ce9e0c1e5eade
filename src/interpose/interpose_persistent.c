/*
 * The program's persistent collectives (MPI-4's MPI_Xxx_init, or Open MPI's MPIX_Xxx_init where the
 * MPI has them), as Tandem's persistent requests.
 *
 * The program holds a real MPI persistent request, so that MPI_Start(all), every wait and test and
 * MPI_Request_free take it, alone or beside its own: a receive of 0 bytes on a private duplicate of
 * MPI_COMM_SELF, with a tag of its own (the proxy). MPI_Start starts the proxy and Tandem's call;
 * Tandem's completion hook sends the proxy its message, which completes it in MPI. The Tandem side
 * is completed (made inactive) at the next MPI_Start or at MPI_Request_free: a failure under way is
 * reported there.
 */
#include "interpose.h"

#include "../core/request.h"

#include <pthread.h>
#include <stdlib.h>

#if defined(OPEN_MPI) && MPI_VERSION < 4
#include <mpi-ext.h>
#endif

typedef struct {
    MPI_Request proxy; /* the program's handle */
    TDM_Request treq;
    int tag;
    int error; /* of the last run (hook) */
} persistent_call;

static persistent_call **calls; /* under lock */
static int ncalls, calls_cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm proxies = MPI_COMM_NULL; /* MPI_COMM_SELF's duplicate, made at the first call */
static int next_tag;

static persistent_call *find(MPI_Request proxy)
{
    pthread_mutex_lock(&lock);
    persistent_call *found = NULL;
    for (int i = 0; i < ncalls && !found; i++)
        if (calls[i]->proxy == proxy)
            found = calls[i];
    pthread_mutex_unlock(&lock);
    return found;
}

static void forget(persistent_call *call)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncalls; i++)
        if (calls[i] == call) {
            calls[i] = calls[--ncalls];
            break;
        }
    pthread_mutex_unlock(&lock);
}

int tdm_ip_persistent_hand_out(TDM_Request treq, MPI_Request *request)
{
    persistent_call *call = malloc(sizeof *call);
    int rc = call ? MPI_SUCCESS : MPI_ERR_NO_MEM, tag_ub = 32767, *attr, flag = 0;
    pthread_mutex_lock(&lock);
    if (rc == MPI_SUCCESS && proxies == MPI_COMM_NULL)
        rc = PMPI_Comm_dup(MPI_COMM_SELF, &proxies);
    if (rc == MPI_SUCCESS && ncalls == calls_cap) {
        int cap = calls_cap ? 2 * calls_cap : 16;
        persistent_call **grown = realloc(calls, sizeof *calls * (size_t)cap);
        rc = grown ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        if (grown)
            calls = grown, calls_cap = cap;
    }
    if (rc == MPI_SUCCESS && PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag) == MPI_SUCCESS && flag)
        tag_ub = *attr;
    if (rc == MPI_SUCCESS) {
        call->tag = next_tag;
        next_tag = next_tag == tag_ub ? 0 : next_tag + 1;
        rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, call->tag, proxies, &call->proxy);
    }
    if (rc == MPI_SUCCESS) {
        call->treq = treq;
        call->error = MPI_SUCCESS;
        calls[ncalls++] = call;
        *request = call->proxy;
    }
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS) {
        free(call);
        TDM_Request_free(&treq);
    }
    return rc;
}

/* Tandem's run is over (progress thread, or inline progress in an intercepted call). The message goes
 * before the count drops: with no Tandem call out, the program's wait blocks in MPI, and MPICH 4.0
 * never completes a wait on a message that another thread sends to the waiting process meanwhile. */
static void on_done(void *arg, int error)
{
    persistent_call *call = arg;
    call->error = error;
    PMPI_Send(NULL, 0, MPI_BYTE, 0, call->tag, proxies); /* 0 bytes to a posted receive: never blocks */
    tdm_ip_track(-1);
}

/* The Tandem side of the last run, completed: its error, if it failed. */
static int finish_run(persistent_call *call)
{
    int rc = TDM_Wait(&call->treq, MPI_STATUS_IGNORE); /* done already, or inactive */
    return rc != MPI_SUCCESS ? rc : call->error;
}

/* Tandem's run first: if it cannot start, the proxy stays inactive rather than wait for nothing. Its
 * hook, set last, cannot send before the proxy's receive is posted. */
static int start(persistent_call *call, MPI_Request *request)
{
    int rc = finish_run(call);
    if (rc == MPI_SUCCESS)
        rc = TDM_Start(&call->treq);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Start(request);
    if (rc != MPI_SUCCESS)
        return rc;
    call->error = MPI_SUCCESS;
    tdm_ip_track(1);
    tdm_request_on_complete(call->treq, on_done, call);
    return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request)
{
    persistent_call *call = request ? find(*request) : NULL;
    return call ? start(call, request) : PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[])
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        persistent_call *call = find(requests[i]);
        rc = call ? start(call, &requests[i]) : PMPI_Start(&requests[i]);
    }
    return rc;
}

int tdm_ip_persistent_free(MPI_Request *request, int *rc)
{
    persistent_call *call = request ? find(*request) : NULL;
    if (!call)
        return 0;
    *rc = finish_run(call);
    int freed = TDM_Request_free(&call->treq);
    if (*rc == MPI_SUCCESS)
        *rc = freed;
    forget(call);
    free(call);
    int mpi_rc = PMPI_Request_free(request);
    if (*rc == MPI_SUCCESS)
        *rc = mpi_rc;
    return 1;
}

void tdm_ip_persistent_finalize(void)
{
    if (proxies != MPI_COMM_NULL)
        PMPI_Comm_free(&proxies);
    free(calls);
    calls = NULL;
    ncalls = calls_cap = 0;
}

/* ---- the _init functions ---- */

#if MPI_VERSION >= 4
#define INIT(name) MPI_##name##_init
#define PINIT(name) PMPI_##name##_init
#define HAVE_PERSISTENT 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(name) MPIX_##name##_init
#define PINIT(name) PMPIX_##name##_init
#define HAVE_PERSISTENT 1
#endif

#ifdef HAVE_PERSISTENT
int INIT(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Barrier_init", comm, TDM_Barrier_init(comm, info, &treq_), PINIT(Barrier)(comm, info, request));
}

int INIT(Bcast)(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Bcast_init", comm, TDM_Bcast_init(buffer, count, datatype, root, comm, info, &treq_),
               PINIT(Bcast)(buffer, count, datatype, root, comm, info, request));
}

int INIT(Reduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Reduce_init", comm,
               TDM_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, &treq_),
               PINIT(Reduce)(sendbuf, recvbuf, count, datatype, op, root, comm, info, request));
}

int INIT(Allreduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Allreduce_init", comm,
               TDM_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, &treq_),
               PINIT(Allreduce)(sendbuf, recvbuf, count, datatype, op, comm, info, request));
}

int INIT(Gather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Gather_init", comm,
               TDM_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &treq_),
               PINIT(Gather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request));
}

int INIT(Gatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                  MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Gatherv_init", comm,
               TDM_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info,
                                &treq_),
               PINIT(Gatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info,
                              request));
}

int INIT(Scatter)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Scatter_init", comm,
               TDM_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &treq_),
               PINIT(Scatter)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request));
}

int INIT(Scatterv)(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Scatterv_init", comm,
               TDM_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                 &treq_),
               PINIT(Scatterv)(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                               request));
}

int INIT(Allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Allgather_init", comm,
               TDM_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &treq_),
               PINIT(Allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request));
}

int INIT(Allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Allgatherv_init", comm,
               TDM_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                   &treq_),
               PINIT(Allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                 request));
}

int INIT(Reduce_scatter)(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Reduce_scatter_init", comm,
               TDM_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, &treq_),
               PINIT(Reduce_scatter)(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request));
}

int INIT(Reduce_scatter_block)(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Reduce_scatter_block_init", comm,
               TDM_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, info, &treq_),
               PINIT(Reduce_scatter_block)(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request));
}

int INIT(Alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Alltoall_init", comm,
               TDM_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &treq_),
               PINIT(Alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request));
}

int INIT(Alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Alltoallv_init", comm,
               TDM_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                  info, &treq_),
               PINIT(Alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                info, request));
}

int INIT(Alltoallw)(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Alltoallw_init", comm,
               TDM_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                  comm, info, &treq_),
               PINIT(Alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm, info, request));
}

int INIT(Scan)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Scan_init", comm, TDM_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, &treq_),
               PINIT(Scan)(sendbuf, recvbuf, count, datatype, op, comm, info, request));
}

int INIT(Exscan)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Exscan_init", comm, TDM_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, &treq_),
               PINIT(Exscan)(sendbuf, recvbuf, count, datatype, op, comm, info, request));
}
int INIT(Neighbor_allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Neighbor_allgather_init", comm,
               TDM_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                           &treq_),
               PINIT(Neighbor_allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                         request));
}

int INIT(Neighbor_allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Neighbor_allgatherv_init", comm,
               TDM_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                            info, &treq_),
               PINIT(Neighbor_allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                          info, request));
}

int INIT(Neighbor_alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Neighbor_alltoall_init", comm,
               TDM_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                          &treq_),
               PINIT(Neighbor_alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                        request));
}

int INIT(Neighbor_alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Neighbor_alltoallv_init", comm,
               TDM_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                           recvtype, comm, info, &treq_),
               PINIT(Neighbor_alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                         recvtype, comm, info, request));
}

int INIT(Neighbor_alltoallw)(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    TDM_IP_PERSISTENT("MPI_Neighbor_alltoallw_init", comm,
               TDM_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                           recvtypes, comm, info, &treq_),
               PINIT(Neighbor_alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm, info, request));
}
#endif

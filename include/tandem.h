/*
 * Tandem: MPI collectives that run in tandem with the application's computation.
 *
 * Every function mirrors the MPI function of the same name (MPI-3 argument lists, int counts), with
 * TDM_Request in place of MPI_Request. Return values are MPI error classes; on error a message naming
 * the function and the argument is readable with TDM_Last_error().
 */
#ifndef TANDEM_H
#define TANDEM_H

#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden symbols: only this API is exported. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define TANDEM_VERSION_MAJOR 0
#define TANDEM_VERSION_MINOR 1

typedef struct tdm_request *TDM_Request;
#define TDM_REQUEST_NULL ((TDM_Request)0)

/* Life cycle. TDM_Init initializes MPI if the program has not; TDM_Finalize finalizes it only then. */
int TDM_Init(int *argc, char ***argv);
int TDM_Finalize(void);
int TDM_Initialized(int *flag);
/* Frees a user-defined op like MPI_Op_free, but only once the Tandem calls in flight that apply it
 * are done (MPI_Op_free itself would pull it from under them; under the interposer, MPI_Op_free is
 * this). *op becomes MPI_OP_NULL at once. */
int TDM_Op_free(MPI_Op *op);
/* The communicator of the application's ranks: MPI_COMM_WORLD, or in dcp progress the ranks that are not
 * dedicated collective processes. */
MPI_Comm TDM_Comm_world(void);

/* Completion. A completed request is set to TDM_REQUEST_NULL; MPI_STATUS(ES)_IGNORE are accepted. */
int TDM_Wait(TDM_Request *request, MPI_Status *status);
int TDM_Test(TDM_Request *request, int *flag, MPI_Status *status);
int TDM_Waitall(int count, TDM_Request requests[], MPI_Status *statuses);
int TDM_Testall(int count, TDM_Request requests[], int *flag, MPI_Status *statuses);
int TDM_Waitany(int count, TDM_Request requests[], int *index, MPI_Status *status);

/* Non-blocking collectives. */
int TDM_Ibarrier(MPI_Comm comm, TDM_Request *request);
int TDM_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               TDM_Request *request);
int TDM_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, TDM_Request *request);
int TDM_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, TDM_Request *request);
int TDM_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request);
int TDM_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, TDM_Request *request);
int TDM_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request);
int TDM_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, TDM_Request *request);
int TDM_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    TDM_Request *request);
int TDM_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request);
int TDM_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request);
int TDM_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, TDM_Request *request);
int TDM_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, TDM_Request *request);
int TDM_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, TDM_Request *request);

/* Persistent collectives (MPI-4): the call's arguments checked and its schedule built once; each
 * TDM_Start runs it again (every rank starts its persistent calls in the same order), TDM_Wait or
 * TDM_Test completes it and leaves the request inactive, TDM_Request_free frees an inactive one. The
 * buffers and arrays given stay in use until then. info is accepted and not read (MPI defines no
 * keys for collectives). */
int TDM_Barrier_init(MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   TDM_Request *request);
int TDM_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, TDM_Request *request);
int TDM_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, TDM_Request *request);
int TDM_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, TDM_Request *request);
int TDM_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, TDM_Request *request);
int TDM_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Start(TDM_Request *request);
int TDM_Startall(int count, TDM_Request requests[]);
int TDM_Request_free(TDM_Request *request);

/* Neighbourhood collectives (MPI-3) on a communicator with a Cartesian, graph or distributed graph
 * topology: non-blocking, blocking and persistent forms. */
int TDM_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             TDM_Request *request);
int TDM_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int TDM_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            TDM_Request *request);
int TDM_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int TDM_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                TDM_Request *request);
int TDM_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, TDM_Request *request);
int TDM_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                               TDM_Request *request);
int TDM_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                TDM_Request *request);
int TDM_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, TDM_Request *request);

/* Blocking collectives: the non-blocking form followed by TDM_Wait. */
int TDM_Barrier(MPI_Comm comm);
int TDM_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int TDM_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int TDM_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int TDM_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int TDM_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int TDM_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int TDM_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
int TDM_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int TDM_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int TDM_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm);
int TDM_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm);
int TDM_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int TDM_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);

/* Errors: the message of the last failed Tandem call of the calling thread ("" if none). */
const char *TDM_Last_error(void);

/*
 * Algorithm selection. collective is the MPI name without prefix ("allreduce", "bcast", ...), algorithm
 * a name such as "ring" or "auto" (the model's choice). The environment does the same at TDM_Init:
 * TANDEM_ALLREDUCE=ring. Unknown names give MPI_ERR_ARG and a message listing the known ones.
 */
int TDM_Set_algorithm(const char *collective, const char *algorithm);
/* The names known for a collective, space separated, "auto" first; NULL for an unknown collective. */
const char *TDM_Algorithm_names(const char *collective);

/*
 * Progress. "inline": schedules advance inside Tandem calls on the application's thread (the default).
 * "thread": one progress thread per process advances every collective in the background; it needs
 * MPI_THREAD_MULTIPLE (TDM_Init asks for it) and is refused with MPI_ERR_OTHER otherwise. Callable
 * before TDM_Init (applied there; TANDEM_PROGRESS=inline|thread does the same) and between
 * collectives: collectives already running keep the agent they started with.
 */
int TDM_Set_progress(const char *mode);
/* Where the progress thread runs: "none" (inherits the rank's binding), "bind" (the rank's core),
 * "numa", "odd-even", "cores:LIST" (see README). Before TDM_Init only, on every rank (placement is
 * computed with the node's other ranks); TANDEM_PROGRESS_PLACEMENT does the same. */
int TDM_Set_progress_placement(const char *policy);
/* The cores (hwloc logical numbers) where the calling thread and the progress thread run now; -1 if
 * unknown or there is no progress thread. */
int TDM_Get_placement(int *app_core, int *progress_core);
/* Where the color threads run (TANDEM_COLOR_THREADS=k: threads 1..k-1 drive the lanes of a torus
 * bucket call; thread 0 is the progress thread): *nthreads = k-1, and cores[t-1] (the first maxthreads
 * of them) the hwloc logical core thread t ran on once started (where the placement bound it; with
 * placement "none", where it happened to start), -1 if it has not started yet (a color thread starts
 * with the first call that has a lane for it) or its core is unknown. */
int TDM_Get_color_placement(int maxthreads, int cores[], int *nthreads);
/* In dcp progress, on an application rank: the MPI_COMM_WORLD rank of the dedicated collective process
 * that serves it, and the block of TDM_Comm_world() ranks that one serves (first, count); whether it
 * runs on this rank's node (MPI_COMM_TYPE_SHARED) in *same_node. Outside dcp progress: *dcp = -1 and
 * the rest 0. */
int TDM_Get_dcp_placement(int *dcp, int *first_client, int *clients, int *same_node);
/* In dcp progress, on an application rank: how many of its calls it handed to its dedicated collective
 * process so far through the node's shared segment (a copy and a flag: the DCP shares its node, and the
 * call's message and answer fit a mailbox slot) and how many as MPI messages. Outside dcp progress, 0. */
int TDM_Get_dcp_handoffs(long *through_segment, long *as_messages);
/* How many blocking collectives this process ran through its node's lines so far (small barrier, bcast,
 * reduce, allreduce and allgather on one node: docs/nodes.md); approximate while several threads make
 * such calls at once. */
int TDM_Get_line_calls(long *calls);
/* How many calls this process handed to its DCP as express calls so far (a repeated small call through
 * the node's segment, started and completed without the engine: docs/progress.md). */
int TDM_Get_express_calls(long *calls);

/* The model's prediction for one call of a collective ("allgather", "alltoall", ...) on comm, for the
 * algorithm Tandem would choose there, with TANDEM_LOGGP's parameters (or the defaults): its latency
 * and the busiest rank's CPU time for reductions and copies, in seconds. bytes as tandem-model counts
 * them: the whole vector for bcast and the reductions (of doubles), one rank's block for the others.
 * Not collective. MPI_ERR_ARG for an unknown collective or bytes below one element. */
int TDM_Model_estimate(const char *collective, MPI_Comm comm, double bytes, double *latency, double *cpu);

/* The algorithm a request runs ("allreduce_ring"); NULL if request is not an active request. */
const char *TDM_Request_algorithm(TDM_Request request);
/* Prints the schedule behind a request (algorithm, rounds, actions) readably. TANDEM_DUMP_SCHEDULE=1
 * prints every schedule to stderr as it is built. */
int TDM_Request_dump(TDM_Request request, FILE *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#include "tandem_large_count.h" /* the MPI-4 large-count (_c) forms */

#ifdef __cplusplus
}
#endif
#endif /* TANDEM_H */

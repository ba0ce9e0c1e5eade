/* The collective starts and waits with the caller's name for messages, so that TDM_Allreduce reports
 * errors as TDM_Allreduce, not TDM_Iallreduce. */
#ifndef TANDEM_API_INTERNAL_H
#define TANDEM_API_INTERNAL_H

#include "../schedule/coll_args.h"
#include "tandem.h"

struct tdm_shadow;

/* TDM_Init and TDM_Finalize (dcp/job.c) for core and the parts below it: MPI (initialized if the
 * program has not), the settings, placement, shadows and agents. tdm_core_report_start writes
 * TANDEM_VERBOSE's first line (progress NULL: the agents' mode). */
int tdm_core_init(const char *fn, int *argc, char ***argv);
void tdm_core_report_start(const char *progress);
int tdm_core_finalize(const char *fn);
/* Set by a dedicated collective process around a call it makes among the DCPs of a communicator
 * (dcp/dcp_server.c): until set back to NULL, the collectives this thread starts run on this group
 * shadow (tdm_shadow_create_group): its rank, size, peers and tags. The arguments are checked against
 * the group (roots and counts are the group's); the communicator named must be valid, no more. */
void tdm_coll_on_group(struct tdm_shadow *group);
struct tdm_shadow *tdm_coll_group(void);

/* TDM_Test without a progress pass: whether the progress made so far completed the request (freed if
 * so). For a loop whose blocking waits make the progress (a dedicated collective process's, whose
 * tests would each cost simulated time). */
int tdm_test_settled(TDM_Request *request, int *flag);

/* Blocking calls through the node's lines (api_lines.c): the call's result, or TDM_LINES_NOT_TAKEN if
 * the call does not take them (on every process alike) and runs as a schedule. */
#define TDM_LINES_NOT_TAKEN (-1)
int tdm_lines_barrier(const char *fn, MPI_Comm comm);
int tdm_lines_bcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int tdm_lines_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm);
int tdm_lines_allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm);
int tdm_lines_allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

int tdm_ibarrier(const char *fn, MPI_Comm comm, TDM_Request *request);
int tdm_ibcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               TDM_Request *request);
int tdm_ireduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, TDM_Request *request);
int tdm_iallreduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, TDM_Request *request);
int tdm_igather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request);
int tdm_igatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, TDM_Request *request);
int tdm_iscatter(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 TDM_Request *request);
int tdm_iscatterv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs displs,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, TDM_Request *request);
int tdm_iallgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                   TDM_Request *request);
int tdm_iallgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype,
                    MPI_Comm comm, TDM_Request *request);
int tdm_ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request);
int tdm_ireduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request);
int tdm_ialltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                  TDM_Request *request);
int tdm_ialltoallv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                   MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int tdm_ialltoallw(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                   const MPI_Datatype recvtypes[], MPI_Comm comm, TDM_Request *request);
int tdm_iscan(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, TDM_Request *request);
int tdm_iexscan(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, TDM_Request *request);

int tdm_ineighbor_allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            TDM_Request *request);
int tdm_ineighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype,
                             MPI_Comm comm, TDM_Request *request);
int tdm_ineighbor_alltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int tdm_ineighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                            MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request);
int tdm_ineighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            tdm_displs rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm,
                            TDM_Request *request);
/* Whether a call in blocks has blocks larger than a chunk on the sides this rank reads (their counts
 * and typeinfo set in a, the others 0): it then runs in chunks (chunked_calls.h). */
int tdm_blocks_need_chunks(const tdm_coll_args *a);
/* A neighbourhood collective's block counts: comm's topology's in- and out-degree (0 without one). */
int tdm_neighbor_degrees(MPI_Comm comm, int *in, int *out);

/* A call in chunks (chunked_calls.h): between begin and end, the calls started on this thread are
 * built and collected, not started; end joins them as the lanes of one request and starts it (or keeps
 * it, for an _init function), or if rc is an error, frees them and returns rc. memory (malloc'ed, or
 * NULL) is freed with the request. */
void tdm_group_begin(void);
int tdm_group_end(const char *fn, int rc, void *memory, TDM_Request *request);
int tdm_group_collecting(void);
/* Whether the call being started is an _init function's (persistent.h). */
int tdm_building_persistent(void);

/* Starts a call whose arguments were checked and described in a (see api_collectives.c). */
int tdm_coll_start(const char *fn, tdm_coll_args *a, MPI_Comm comm, TDM_Request *request);

int tdm_wait(const char *fn, TDM_Request *request, MPI_Status *status);

#endif

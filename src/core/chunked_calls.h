/*
 * A call with more data than a chunk (TANDEM_CHUNK_BYTES, under INT_MAX bytes) runs as several calls of
 * at most a chunk each, the lanes of one request, each with its own schedule and tag: the schedules
 * count in int, and a count past INT_MAX (MPI 4's _c forms) or a large reduce-scatter fits this way.
 *
 * Every rank must cut the same call into the same chunks at the same places without asking the
 * others, so chunks are cut by the bytes of the type signature, which the ranks share:
 *   - bcast, reduce, allreduce, scan, exscan: the buffer, chunk by chunk;
 *   - gather, scatter, allgather, alltoall, neighbour allgather and alltoall: every block, chunk by
 *     chunk, each chunk of the blocks one call of the v form;
 *   - reduce_scatter(_block): the whole vector, chunk by chunk, each one reduce_scatter whose blocks
 *     are the parts of the ranks' blocks it holds.
 * A reduction's chunks are whole elements of its datatype (the same on every rank). A bcast's or a
 * block's data may be described by other datatypes on each rank, so it is cut at multiples of the
 * chunk in bytes: a dense datatype's data is sent as bytes, and a datatype with gaps must have a size
 * that divides the chunk (the default chunk, 2^24 * 105 bytes, is a multiple of the size of every
 * predefined type and most small structs of them), else the call is refused with MPI_ERR_TYPE.
 * The v and w forms take no chunks: their blocks may differ in length, which no rank knows of the
 * others, so a count past INT_MAX there is refused (large_count.h).
 */
#ifndef TANDEM_CHUNKED_CALLS_H
#define TANDEM_CHUNKED_CALLS_H

#include "../schedule/coll_args.h"
#include "tandem.h"

#define TDM_DEFAULT_CHUNK_BYTES 1761607680LL /* 2^24 * 3 * 5 * 7 */

/* Whether a reduction of count elements of `size` bytes takes more than one chunk (its chunks are
 * whole elements, at least one), or data (a bcast's buffer, a block) of them more than a chunk of
 * bytes. Never while the chunks of a call are started. */
int tdm_reduction_needs_chunks(MPI_Count count, MPI_Count size);
int tdm_data_needs_chunks(MPI_Count count, MPI_Count size);

/* bcast (buffer in recvbuf), reduce, allreduce, scan, exscan: any count; in chunks if needed, else the
 * int function. root: bcast and reduce only. */
int tdm_chunked_elementwise(const char *fn, tdm_coll_kind kind, const void *sendbuf, void *recvbuf,
                            MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                            TDM_Request *request);
/* gather, scatter, allgather, alltoall, neighbor_allgather, neighbor_alltoall (root: gather and
 * scatter only). */
int tdm_chunked_blocks(const char *fn, tdm_coll_kind kind, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, TDM_Request *request);
/* reduce_scatter (recvcounts, one per rank) and reduce_scatter_block (recvcount). */
int tdm_chunked_reduce_scatter(const char *fn, tdm_coll_kind kind, const void *sendbuf, void *recvbuf,
                               const MPI_Count *recvcounts, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, TDM_Request *request);

#endif

#include "chunked_calls.h"

#include "../base/error.h"
#include "../base/state.h"
#include "../engine/shadow_comm.h"
#include "api_internal.h"
#include "check.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The size of a datatype in bytes, -1 if it is none (the int function then reports it). */
static MPI_Count type_size(MPI_Datatype type)
{
    MPI_Count size;
    if (type == MPI_DATATYPE_NULL || MPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED)
        return -1;
    return size;
}

static MPI_Aint type_extent(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    return MPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS ? extent : 0;
}

/* Elements of a datatype of `size` bytes (> 0) in one chunk: at least one. */
static MPI_Count chunk_elements(MPI_Count size)
{
    MPI_Count n = tdm_global.chunk_bytes / size;
    return n > 0 ? n : 1;
}

/* A chunk is never cut again (one may be larger than a chunk: see elements_per_chunk). */
int tdm_reduction_needs_chunks(MPI_Count count, MPI_Count size)
{
    return size > 0 && count > chunk_elements(size) && !tdm_group_collecting();
}

int tdm_data_needs_chunks(MPI_Count count, MPI_Count size)
{
    return size > 0 && count > tdm_global.chunk_bytes / size && !tdm_group_collecting();
}

/* count elements of a datatype as a data-movement call cuts them: where the datatype is dense, as
 * bytes (every rank then cuts at the same byte, whatever its datatype); else as elements, a chunk
 * holding a whole number of them (so the datatype's size must divide the chunk). */
typedef struct {
    MPI_Datatype type;
    MPI_Count count, size;
    MPI_Aint extent;
} data_view;

static int view_data(const char *fn, const char *name, MPI_Datatype type, MPI_Count count, data_view *v)
{
    tdm_typeinfo t;
    *v = (data_view){.type = type, .count = count, .size = type_size(type), .extent = type_extent(type)};
    if (v->size > 0 && tdm_typeinfo_get(type, &t) == MPI_SUCCESS && t.contiguous) {
        *v = (data_view){.type = MPI_BYTE, .count = count * v->size, .size = 1, .extent = 1};
        return MPI_SUCCESS;
    }
    if (v->size <= 0 || tdm_global.chunk_bytes % v->size != 0)
        return tdm_error(fn, MPI_ERR_TYPE, "%s, of %lld bytes with gaps, does not divide the chunk (%lld bytes, "
                                           "TANDEM_CHUNK_BYTES) that a call of more data is cut into (argument %s)",
                         name, (long long)v->size, (long long)tdm_global.chunk_bytes, name);
    return MPI_SUCCESS;
}

/* The elements of each chunk of `count` elements of `size` bytes: a chunk's, or a multiple of it where
 * the call would take more chunks than there are tags (the chunks of a call hold one each, all at
 * once: a chunk waiting for a tag that another chunk of its call holds would wait forever). What
 * depends only on the call and the settings, the same on every rank. */
static int elements_per_chunk(const char *fn, MPI_Count count, MPI_Count size, MPI_Count *per)
{
    MPI_Count tags = (MPI_Count)tdm_shadow_tags_at_once(), n;
    *per = size > 0 ? chunk_elements(size) : INT_MAX;
    if ((n = (count + *per - 1) / *per) > tags)
        *per *= (n + tags - 1) / tags;
    if (*per > INT_MAX)
        return tdm_error(fn, MPI_ERR_COUNT, "%lld elements in chunks of at most INT_MAX need more tags than the "
                                            "%lld there are (TANDEM_TAG_RANGE) (argument count)",
                         (long long)count, (long long)tags);
    return MPI_SUCCESS;
}

/* A count the int functions take: one that needs no chunks, or (an empty datatype's, or one the int
 * function refuses anyway) clamped. */
static int as_int(MPI_Count count)
{
    return count > INT_MAX ? INT_MAX : count < 0 ? -1 : (int)count;
}

static MPI_Count min_count(MPI_Count a, MPI_Count b) { return a < b ? a : b; }

/* Elements [first, first + per) of a count: how many of them there are (0 past its end). */
static int part(MPI_Count count, MPI_Count first, MPI_Count per)
{
    return first >= count ? 0 : (int)min_count(per, count - first);
}

/* buf moved by n elements of the given extent; MPI_IN_PLACE stays. Integer arithmetic: buf may be
 * MPI_BOTTOM, or not significant on this rank. */
static void *shift(const void *buf, MPI_Count n, MPI_Aint extent)
{
    if (buf == MPI_IN_PLACE)
        return (void *)buf;
    return (void *)((uintptr_t)buf + (uintptr_t)(n * extent));
}

/* A chunk that failed to start ends the call, and this rank would not claim the tags the others claim
 * for the chunks after it: it claims and gives them back, so that the ranks' tags stay in step. */
static void skip_chunks(MPI_Comm comm, MPI_Count chunks)
{
    tdm_shadow *sh;
    if (chunks <= 0 || tdm_shadow_get(comm, &sh) != MPI_SUCCESS)
        return;
    for (MPI_Count i = 0; i < chunks; i++) {
        tdm_tag_hold hold = {0};
        int tag;
        if (tdm_shadow_claim_tag(sh, &hold, &tag) != MPI_SUCCESS)
            break;
        tdm_shadow_release(sh, &hold);
    }
    tdm_shadow_put(sh);
}

/* The chunks of per elements left from `first` on, of count. */
static MPI_Count chunks_left(MPI_Count count, MPI_Count first, MPI_Count per)
{
    return first < count ? (count - first + per - 1) / per : 0;
}

/* ---- bcast, reduce, allreduce, scan, exscan ---- */

static int start_elementwise(const char *fn, tdm_coll_kind kind, const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, TDM_Request *request)
{
    switch (kind) {
    case TDM_COLL_BCAST:
        return tdm_ibcast(fn, recvbuf, count, datatype, root, comm, request);
    case TDM_COLL_REDUCE:
        return tdm_ireduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm, request);
    case TDM_COLL_ALLREDUCE:
        return tdm_iallreduce(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    case TDM_COLL_SCAN:
        return tdm_iscan(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    default:
        return tdm_iexscan(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    }
}

int tdm_chunked_elementwise(const char *fn, tdm_coll_kind kind, const void *sendbuf, void *recvbuf,
                            MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                            TDM_Request *request)
{
    int bcast = kind == TDM_COLL_BCAST;
    MPI_Count size = type_size(datatype);
    if (bcast ? !tdm_data_needs_chunks(count, size) : !tdm_reduction_needs_chunks(count, size))
        return start_elementwise(fn, kind, sendbuf, recvbuf, as_int(count), datatype, op, root, comm, request);
    tdm_coll_args a;
    int rc = tdm_check_call(fn, comm, request, kind, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    /* a reduction's chunks are whole elements of its datatype, the same on every rank; a bcast's data
     * may be described by another datatype on each */
    data_view v = {.type = datatype, .count = count, .size = size, .extent = type_extent(datatype)};
    MPI_Count per;
    if ((bcast && (rc = view_data(fn, "datatype", datatype, count, &v)) != MPI_SUCCESS) ||
        (rc = elements_per_chunk(fn, v.count, v.size, &per)) != MPI_SUCCESS)
        return rc;
    tdm_group_begin();
    for (MPI_Count first = 0; first < v.count && rc == MPI_SUCCESS; first += per) {
        TDM_Request chunk;
        rc = start_elementwise(fn, kind, shift(sendbuf, first, v.extent), shift(recvbuf, first, v.extent),
                               part(v.count, first, per), v.type, op, root, comm, &chunk);
        if (rc != MPI_SUCCESS)
            skip_chunks(comm, chunks_left(v.count, first + per, per));
    }
    return tdm_group_end(fn, rc, NULL, request);
}

/* ---- gather, scatter, allgather, alltoall and the neighbour ones ---- */

/* One side of a call in blocks, and its part in the chunk being started. */
typedef struct {
    void *buf;             /* const on the send side */
    MPI_Count count;       /* per block */
    MPI_Datatype type;
    int significant;       /* on this rank (not in place, at the root where only it reads) */
    int nblocks;           /* blocks of a v form (the call's other side has one block): 0 for one block */
    MPI_Aint extent;
    MPI_Count per;         /* elements in a chunk */
    int *counts;           /* the chunk's v-form arrays (nblocks) */
    MPI_Aint *displs;
} block_side;

static int side_init(const char *fn, const char *name, block_side *s, const void *buf, MPI_Count count,
                     MPI_Datatype type, int significant, int nblocks)
{
    *s = (block_side){.buf = (void *)buf, .count = count, .type = type, .significant = significant, .nblocks = nblocks};
    s->counts = malloc(sizeof(int) * (size_t)(nblocks + 1));
    s->displs = malloc(sizeof(MPI_Aint) * (size_t)(nblocks + 1));
    if (!s->counts || !s->displs)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the chunks of the call");
    if (!significant)
        return MPI_SUCCESS;
    data_view v;
    int rc = view_data(fn, name, type, count, &v);
    if (rc != MPI_SUCCESS)
        return rc;
    s->type = v.type, s->count = v.count, s->extent = v.extent;
    return elements_per_chunk(fn, v.count, v.size, &s->per);
}

static void side_free(block_side *s)
{
    free(s->counts);
    free(s->displs);
}

/* The chunk's blocks of the side: elements [chunk * per, + per) of each block. */
static void side_chunk(block_side *s, MPI_Count chunk)
{
    MPI_Count first = chunk * s->per;
    for (int j = 0; j < s->nblocks; j++) {
        s->counts[j] = s->significant ? part(s->count, first, s->per) : 0;
        s->displs[j] = (MPI_Aint)(j * s->count + first);
    }
}

static MPI_Count side_chunks(const block_side *s)
{
    return s->significant && s->count > 0 ? (s->count + s->per - 1) / s->per : 0;
}

/* The call of one chunk: the v form of the collective. */
static int start_blocks_chunk(const char *fn, tdm_coll_kind kind, block_side *snd, block_side *rcv, MPI_Count chunk,
                              int root, MPI_Comm comm, TDM_Request *request)
{
    side_chunk(snd, chunk);
    side_chunk(rcv, chunk);
    MPI_Count sfirst = chunk * snd->per, rfirst = chunk * rcv->per;
    const void *sbuf = shift(snd->buf, sfirst, snd->extent);
    void *rbuf = shift(rcv->buf, rfirst, rcv->extent);
    int scount = snd->significant ? part(snd->count, sfirst, snd->per) : 0;
    int rcount = rcv->significant ? part(rcv->count, rfirst, rcv->per) : 0;
    tdm_displs sd = tdm_displs_of_aints(snd->displs), rd = tdm_displs_of_aints(rcv->displs);
    switch (kind) {
    case TDM_COLL_GATHER:
        return tdm_igatherv(fn, sbuf, scount, snd->type, rcv->buf, rcv->counts, rd, rcv->type, root, comm, request);
    case TDM_COLL_SCATTER:
        return tdm_iscatterv(fn, snd->buf, snd->counts, sd, snd->type, rbuf, rcount, rcv->type, root, comm, request);
    case TDM_COLL_ALLGATHER:
        return tdm_iallgatherv(fn, sbuf, scount, snd->type, rcv->buf, rcv->counts, rd, rcv->type, comm, request);
    case TDM_COLL_ALLTOALL:
        return tdm_ialltoallv(fn, snd->buf, snd->counts, sd, snd->type, rcv->buf, rcv->counts, rd, rcv->type, comm,
                              request);
    case TDM_COLL_NEIGHBOR_ALLGATHER:
        return tdm_ineighbor_allgatherv(fn, sbuf, scount, snd->type, rcv->buf, rcv->counts, rd, rcv->type, comm,
                                        request);
    default: /* neighbour alltoall */
        return tdm_ineighbor_alltoallv(fn, snd->buf, snd->counts, sd, snd->type, rcv->buf, rcv->counts, rd,
                                       rcv->type, comm, request);
    }
}

/* The call itself, when it needs no chunks. */
static int start_blocks(const char *fn, tdm_coll_kind kind, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        TDM_Request *request)
{
    switch (kind) {
    case TDM_COLL_GATHER:
        return tdm_igather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    case TDM_COLL_SCATTER:
        return tdm_iscatter(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    case TDM_COLL_ALLGATHER:
        return tdm_iallgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    case TDM_COLL_ALLTOALL:
        return tdm_ialltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    case TDM_COLL_NEIGHBOR_ALLGATHER:
        return tdm_ineighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    default:
        return tdm_ineighbor_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    }
}

int tdm_chunked_blocks(const char *fn, tdm_coll_kind kind, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    if (tdm_check_call(fn, comm, request, kind, &a) != MPI_SUCCESS) /* the int function reports it */
        return start_blocks(fn, kind, sendbuf, as_int(sendcount), sendtype, recvbuf, as_int(recvcount), recvtype,
                            root, comm, request);
    int neighbor = kind == TDM_COLL_NEIGHBOR_ALLGATHER || kind == TDM_COLL_NEIGHBOR_ALLTOALL;
    int in = a.size, out = a.size, is_root = a.rank == root, rc = MPI_SUCCESS;
    if (neighbor)
        tdm_neighbor_degrees(comm, &in, &out);
    /* which sides this rank reads, and which are v forms in a chunk */
    int send_significant = sendbuf != MPI_IN_PLACE, recv_significant = recvbuf != MPI_IN_PLACE;
    int send_blocks = 0, recv_blocks = 0;
    switch (kind) {
    case TDM_COLL_GATHER:
        recv_significant = is_root, recv_blocks = a.size;
        break;
    case TDM_COLL_SCATTER:
        send_significant = is_root, send_blocks = a.size;
        break;
    case TDM_COLL_ALLGATHER:
        recv_blocks = a.size;
        break;
    case TDM_COLL_ALLTOALL:
        send_blocks = recv_blocks = a.size;
        break;
    case TDM_COLL_NEIGHBOR_ALLGATHER:
        recv_blocks = in;
        break;
    default:
        send_blocks = out, recv_blocks = in;
        break;
    }
    int chunks = (send_significant && tdm_data_needs_chunks(sendcount, type_size(sendtype))) ||
                 (recv_significant && tdm_data_needs_chunks(recvcount, type_size(recvtype)));
    if (!chunks)
        return start_blocks(fn, kind, sendbuf, as_int(sendcount), sendtype, recvbuf, as_int(recvcount), recvtype,
                            root, comm, request);
    block_side snd = {0}, rcv = {0};
    if ((rc = side_init(fn, "sendtype", &snd, sendbuf, sendcount, sendtype, send_significant, send_blocks)) ==
        MPI_SUCCESS)
        rc = side_init(fn, "recvtype", &rcv, recvbuf, recvcount, recvtype, recv_significant, recv_blocks);
    MPI_Count n = side_chunks(&snd) > side_chunks(&rcv) ? side_chunks(&snd) : side_chunks(&rcv);
    tdm_group_begin();
    for (MPI_Count chunk = 0; chunk < n && rc == MPI_SUCCESS; chunk++) {
        TDM_Request one;
        rc = start_blocks_chunk(fn, kind, &snd, &rcv, chunk, root, comm, &one);
        if (rc != MPI_SUCCESS)
            skip_chunks(comm, n - chunk - 1);
    }
    side_free(&snd);
    side_free(&rcv);
    return tdm_group_end(fn, rc, NULL, request);
}

/* ---- reduce_scatter, reduce_scatter_block ---- */

/* In place, the chunks would write their results over the input of others still running: they read a
 * copy of the input instead, taken when the call starts (so a persistent call cannot: refused). */
static int snapshot_input(const char *fn, const void *recvbuf, MPI_Count total, MPI_Datatype datatype,
                          void **snapshot, const void **sendbuf)
{
    if (tdm_building_persistent())
        return tdm_error(fn, MPI_ERR_COUNT, "MPI_IN_PLACE with more data than a chunk (%lld bytes, "
                                            "TANDEM_CHUNK_BYTES) in a persistent reduce_scatter is not supported "
                                            "(argument sendbuf)", (long long)tdm_global.chunk_bytes);
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    size_t bytes = (size_t)((total - 1) * extent + true_extent);
    if (!(*snapshot = malloc(bytes)))
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for a copy of the input (%zu bytes)", bytes);
    memcpy(*snapshot, (const char *)recvbuf + true_lb, bytes);
    *sendbuf = (const void *)((uintptr_t)*snapshot - (uintptr_t)true_lb);
    return MPI_SUCCESS;
}

int tdm_chunked_reduce_scatter(const char *fn, tdm_coll_kind kind, const void *sendbuf, void *recvbuf,
                               const MPI_Count *recvcounts, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, TDM_Request *request)
{
    int block = kind == TDM_COLL_REDUCE_SCATTER_BLOCK;
    tdm_coll_args a;
    int rc = tdm_check_call(fn, comm, request, kind, &a);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count total = 0, mine_first = 0, size = type_size(datatype);
    int valid = block ? recvcount >= 0 : recvcounts != NULL;
    for (int r = 0; valid && !block && r < a.size; r++) {
        valid &= recvcounts[r] >= 0;
        if (r == a.rank)
            mine_first = total;
        total += recvcounts[r];
    }
    if (block)
        total = recvcount * a.size, mine_first = recvcount * a.rank;
    int *counts = malloc(sizeof(int) * (size_t)(a.size + 1));
    if (!counts)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the counts of the call");
    if (!valid || !tdm_reduction_needs_chunks(total, size)) { /* the int function: the call, or its error */
        for (int r = 0; recvcounts && r < a.size; r++)
            counts[r] = as_int(recvcounts[r]);
        rc = !block ? tdm_ireduce_scatter(fn, sendbuf, recvbuf, recvcounts ? counts : NULL, datatype, op, comm,
                                          request)
                    : tdm_ireduce_scatter_block(fn, sendbuf, recvbuf, as_int(recvcount), datatype, op, comm,
                                                    request);
        free(counts);
        return rc;
    }
    MPI_Aint extent = type_extent(datatype);
    MPI_Count per, mine = block ? recvcount : recvcounts[a.rank];
    void *snapshot = NULL;
    if ((rc = elements_per_chunk(fn, total, size, &per)) != MPI_SUCCESS ||
        (sendbuf == MPI_IN_PLACE && (rc = snapshot_input(fn, recvbuf, total, datatype, &snapshot, &sendbuf)) != MPI_SUCCESS)) {
        free(counts);
        return rc;
    }
    tdm_group_begin();
    for (MPI_Count first = 0; first < total && rc == MPI_SUCCESS; first += per) {
        MPI_Count end = min_count(total, first + per), start = 0;
        for (int r = 0; r < a.size; r++) { /* the part of rank r's block in [first, end) */
            MPI_Count n = block ? recvcount : recvcounts[r];
            MPI_Count lo = start > first ? start : first, hi = min_count(start + n, end);
            counts[r] = hi > lo ? (int)(hi - lo) : 0;
            start += n;
        }
        MPI_Count into_mine = first > mine_first ? first - mine_first : 0;
        TDM_Request chunk;
        rc = tdm_ireduce_scatter(fn, shift(sendbuf, first, extent),
                                 shift(recvbuf, into_mine < mine ? into_mine : 0, extent), counts, datatype, op,
                                 comm, &chunk);
        if (rc != MPI_SUCCESS)
            skip_chunks(comm, chunks_left(total, first + per, per));
    }
    free(counts);
    return tdm_group_end(fn, rc, snapshot, request);
}

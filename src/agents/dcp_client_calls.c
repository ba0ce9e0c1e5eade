/*
 * The application's side of each collective its dedicated collective process serves (see dcp.h and
 * the message layout in dcp_protocol.h): one schedule on the link's shadow that packs this rank's data
 * into one message to the DCP (a derived datatype's data packed, a reduction's as the predefined type
 * it repeats) and unpacks the answer, whose blocks come in group order, into the user's buffers.
 */
#include "../algorithms/alltoall_blocks.h"
#include "../algorithms/coll_args.h"
#include "../core/request.h"
#include "../schedule/schedule.h"
#include "dcp.h"
#include "dcp_client.h"

#include <limits.h>
#include <string.h>

static int type_size(MPI_Datatype type)
{
    int size = 0;
    MPI_Type_size(type, &size);
    return size;
}

/* The predefined datatype a reduction's data travels as: its own, or the one a derived datatype
 * repeats; MPI_DATATYPE_NULL if the DCPs do not carry it. */
static MPI_Datatype carried_type(const tdm_coll_args *a)
{
    if (tdm_dcp_type_index(a->datatype) >= 0)
        return a->datatype;
    if (a->reduce_basic != MPI_DATATYPE_NULL && tdm_dcp_type_index(a->reduce_basic) >= 0)
        return a->reduce_basic;
    return MPI_DATATYPE_NULL;
}

int tdm_dcp_kind_of(const tdm_coll_args *a, int contiguous)
{
    int reduction = tdm_dcp_op_index(a->op) >= 0 && carried_type(a) != MPI_DATATYPE_NULL;
    switch (a->kind) {
    case TDM_COLL_ALLREDUCE:
        return reduction ? DCP_ALLREDUCE : 0;
    case TDM_COLL_REDUCE:
        return reduction ? DCP_REDUCE : 0;
    case TDM_COLL_SCAN: /* prefixes over each DCP's ranks, then over the DCPs: consecutive ranks only */
        return reduction && contiguous ? DCP_SCAN : 0;
    case TDM_COLL_EXSCAN:
        return reduction && contiguous ? DCP_EXSCAN : 0;
    case TDM_COLL_REDUCE_SCATTER:
    case TDM_COLL_REDUCE_SCATTER_BLOCK:
        return reduction ? DCP_REDUCE_SCATTER : 0;
    case TDM_COLL_BCAST:
        return DCP_BCAST;
    case TDM_COLL_BARRIER:
        return DCP_BARRIER;
    case TDM_COLL_GATHER:
    case TDM_COLL_GATHERV:
        return DCP_GATHER;
    case TDM_COLL_SCATTER:
    case TDM_COLL_SCATTERV:
        return DCP_SCATTER;
    case TDM_COLL_ALLGATHER:
    case TDM_COLL_ALLGATHERV:
        return DCP_ALLGATHER;
    case TDM_COLL_ALLTOALL:
    case TDM_COLL_ALLTOALLV:
    case TDM_COLL_ALLTOALLW:
        return DCP_ALLTOALL;
    default:
        return 0;
    }
}

const char *tdm_dcp_client_name(const struct tdm_coll_args *a)
{
    static const char *const names[TDM_NCOLLECTIVES] = {
        [TDM_COLL_BARRIER] = "barrier_dcp",         [TDM_COLL_BCAST] = "bcast_dcp",
        [TDM_COLL_REDUCE] = "reduce_dcp",           [TDM_COLL_ALLREDUCE] = "allreduce_dcp",
        [TDM_COLL_GATHER] = "gather_dcp",           [TDM_COLL_GATHERV] = "gatherv_dcp",
        [TDM_COLL_SCATTER] = "scatter_dcp",         [TDM_COLL_SCATTERV] = "scatterv_dcp",
        [TDM_COLL_ALLGATHER] = "allgather_dcp",     [TDM_COLL_ALLGATHERV] = "allgatherv_dcp",
        [TDM_COLL_REDUCE_SCATTER] = "reduce_scatter_dcp",
        [TDM_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block_dcp",
        [TDM_COLL_ALLTOALL] = "alltoall_dcp",       [TDM_COLL_ALLTOALLV] = "alltoallv_dcp",
        [TDM_COLL_ALLTOALLW] = "alltoallw_dcp",     [TDM_COLL_SCAN] = "scan_dcp",
        [TDM_COLL_EXSCAN] = "exscan_dcp",
    };
    return names[a->kind] ? names[a->kind] : "dcp";
}

/* A block of the user's data: where, how many, of what. */
typedef struct block {
    const void *at;
    int count;
    MPI_Datatype type;
} block;

static long long bytes_of(block b) { return (long long)b.count * type_size(b.type); }

/* The block this rank gives: its contribution to a gather or allgather (in place: its block of
 * recvbuf). */
static block own_block(const tdm_coll_args *a)
{
    block b = {a->sendbuf, a->sendcount, a->sendtype};
    if (a->in_place)
        b.at = tdm_incoming_block(a, a->rank, &b.count, &b.type);
    return b;
}

/* Where the block from rank r lands (gather at the root, allgather, alltoall). */
static block incoming(const tdm_coll_args *a, int r)
{
    block b;
    b.at = tdm_incoming_block(a, r, &b.count, &b.type);
    return b;
}

/* The root's block for rank r of a scatter(v). */
static block scattered(const tdm_coll_args *a, int r)
{
    MPI_Aint first = a->sendcounts ? tdm_displ(a->sdispls, r) : (MPI_Aint)r * a->sendcount;
    return (block){tdm_elem(a->sendbuf, &a->stype, first), a->sendcounts ? a->sendcounts[r] : a->sendcount,
                   a->sendtype};
}

/* Copies b into packed bytes at to; returns the bytes. */
static int pack(tdm_schedule *s, block b, char *to)
{
    int bytes = (int)bytes_of(b);
    tdm_sched_copy(s, b.at, b.count, b.type, to, bytes, MPI_PACKED);
    return bytes;
}

static int unpack(tdm_schedule *s, const char *from, block b)
{
    int bytes = (int)bytes_of(b);
    tdm_sched_copy(s, from, bytes, MPI_PACKED, (void *)b.at, b.count, b.type);
    return bytes;
}

/* The answer into b: straight into the user's buffer if its data is dense bytes there (or the very
 * datatype the DCP sends), else into packed memory and then unpacked (next round). */
static void receive_block(tdm_schedule *s, block b, const tdm_typeinfo *t, MPI_Datatype sent)
{
    int server = tdm_dcp.server;
    if (bytes_of(b) == 0) /* the DCP sends nothing for nothing */
        return;
    if (b.type == sent || (sent == MPI_BYTE && t->contiguous)) {
        tdm_sched_recv(s, (void *)b.at, sent == MPI_BYTE ? (int)bytes_of(b) : b.count, sent, server);
        tdm_sched_round(s);
        return;
    }
    char *packed = tdm_sched_tmp(s, (size_t)bytes_of(b));
    if (!packed)
        return;
    tdm_sched_recv(s, packed, (int)(bytes_of(b) / type_size(sent)), sent, server);
    tdm_sched_round(s);
    unpack(s, packed, b);
}

/* Elements per segment of a vector of `elements` of type `carried` through the DCP (allreduce, reduce:
 * the carried type; bcast: bytes); 0: it goes whole. */
static int segment_elements(int kind, long long elements, MPI_Datatype carried)
{
    int segmentable = kind == DCP_ALLREDUCE || kind == DCP_REDUCE || kind == DCP_BCAST;
    int size = segmentable ? type_size(carried) : 0;
    if (size == 0 || tdm_dcp.segment_bytes == 0 || elements * size <= tdm_dcp.segment_bytes)
        return 0;
    return tdm_dcp.segment_bytes / size > 0 ? tdm_dcp.segment_bytes / size : 1;
}

/* A segmented call after its header (dcp_protocol.h): this rank's vector out in segments if it gives
 * one, the answer back in segments if it gets one. Straight from and into the user's buffer where it
 * holds dense data of the carried type, else through packed memory. */
static void segmented_call(tdm_schedule *s, const tdm_coll_args *a, MPI_Datatype carried, int elements, int segment,
                           int gives, int gets)
{
    int server = tdm_dcp.server, size = type_size(carried);
    int dense = a->dtype.contiguous && (carried == MPI_BYTE || a->datatype == carried);
    block mine = {a->in_place || a->kind == TDM_COLL_BCAST ? a->recvbuf : a->sendbuf, a->count, a->datatype};
    const char *out = mine.at;
    if (gives && (!dense || (gets && a->in_place))) { /* in place: the answer must not land where a send may
                                                         still read */
        char *packed = tdm_sched_tmp(s, (size_t)elements * (size_t)size);
        if (!packed)
            return;
        pack(s, mine, packed);
        out = packed;
    }
    char *back = !gets || dense ? a->recvbuf : tdm_sched_tmp(s, (size_t)elements * (size_t)size);
    if (gets && !back)
        return;
    for (long long at = 0; at < elements; at += segment) {
        int n = (int)(elements - at < segment ? elements - at : segment);
        if (gives)
            tdm_sched_send(s, out + (size_t)at * (size_t)size, n, carried, server);
        if (gets)
            tdm_sched_recv(s, back + (size_t)at * (size_t)size, n, carried, server);
    }
    tdm_sched_round(s);
    if (gets && !dense)
        unpack(s, back, (block){a->recvbuf, a->count, a->datatype});
}

/* The counts and data of the message, after the header (and members), and what comes back. */
typedef struct plan {
    int nints;              /* counts after the members */
    long long data;         /* bytes of data */
    long long back;         /* bytes of the answer (blocks in group order), 0 for none */
} plan;

static plan plan_of(const tdm_coll_args *a, int kind, int n, MPI_Datatype carried)
{
    plan p = {0, 0, 0};
    int me = a->rank, root = a->rank == a->root;
    long long elements = 0;
    if (carried != MPI_DATATYPE_NULL)
        elements = (long long)a->count * a->dtype.size / type_size(carried);
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        p.data = elements * type_size(carried);
        break;
    case DCP_REDUCE_SCATTER:
        p.nints = n;
        p.data = (a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? n * elements : elements) * type_size(carried);
        break;
    case DCP_BCAST:
        p.data = root ? (long long)a->count * a->dtype.size : 0;
        break;
    case DCP_GATHER:
        p.nints = root ? n : 0;
        p.data = bytes_of(own_block(a));
        for (int r = 0; root && r < n; r++)
            p.back += bytes_of(incoming(a, r));
        break;
    case DCP_SCATTER:
        p.nints = root ? n : 0;
        for (int r = 0; root && r < n; r++)
            p.data += a->in_place && r == me ? 0 : bytes_of(scattered(a, r));
        break;
    case DCP_ALLGATHER:
        p.nints = n;
        p.data = bytes_of(own_block(a));
        for (int r = 0; r < n; r++)
            p.back += bytes_of(incoming(a, r));
        break;
    case DCP_ALLTOALL:
        p.nints = 2 * n;
        for (int r = 0; r < n; r++)
            p.back += bytes_of(incoming(a, r));
        break;
    }
    return p;
}

int tdm_dcp_build_client(struct tdm_request *req, const tdm_coll_args *a, tdm_dcp_comm *cc, int persistent)
{
    tdm_schedule *s = &req->sched;
    int n = cc->size, me = a->rank, root = a->rank == a->root;
    int kind = tdm_dcp_kind_of(a, cc->contiguous);
    MPI_Datatype carried = kind <= DCP_REDUCE_SCATTER ? carried_type(a) : MPI_DATATYPE_NULL;
    int factor = carried != MPI_DATATYPE_NULL ? a->dtype.size / type_size(carried) : 1; /* elements per item */
    tdm_outgoing_blocks out;
    if (kind == DCP_ALLTOALL && !tdm_outgoing_blocks_init(s, a, &out)) /* in place: a snapshot */
        return tdm_sched_finish(s);
    plan p = plan_of(a, kind, n, carried);
    if (p.data > INT_MAX) /* the header counts elements in an int */
        return MPI_ERR_COUNT;
    MPI_Datatype segmented = kind == DCP_BCAST ? MPI_BYTE : carried;
    int segment = segment_elements(kind, (long long)a->count * (kind == DCP_BCAST ? a->dtype.size : factor), segmented);
    if (segment)
        p.data = 0; /* the vector follows the header's message in segments */
    int announce = !cc->announced || persistent; /* a persistent call's every start: it may be the first */
    size_t members = announce ? sizeof(int) * (size_t)n : 0;
    if (kind == DCP_ALLTOALL)
        for (int r = 0; r < n; r++) {
            block b;
            tdm_outgoing_block(&out, r, &b.at, &b.count, &b.type);
            p.data += bytes_of(b);
        }
    if (p.data > INT_MAX - (long long)(sizeof(dcp_header) + members + sizeof(int) * (size_t)p.nints))
        return MPI_ERR_COUNT;
    char *message = tdm_sched_tmp_private(s, sizeof(dcp_header) + members + sizeof(int) * (size_t)p.nints + (size_t)p.data);
    if (!message)
        return tdm_sched_finish(s);
    dcp_header h = {.kind = kind, .type = tdm_dcp_type_index(carried), .op = tdm_dcp_op_index(a->op),
                    .root = a->root, .key = cc->key, .call = cc->calls,
                    .members = announce ? n : 0, .counts = p.nints, .segment = segment,
                    .gives = segment && (kind != DCP_BCAST || root)};
    int *ints = (int *)(message + sizeof h + members);
    char *data = (char *)(ints + p.nints), *to = data;
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        h.count = a->count * factor;
        if (!segment)
            pack(s, (block){a->in_place ? a->recvbuf : a->sendbuf, a->count, a->datatype}, data);
        break;
    case DCP_REDUCE_SCATTER: {
        int block_form = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK, total = block_form ? a->count * n : a->count;
        for (int r = 0; r < n; r++)
            ints[r] = (block_form ? a->count : a->recvcounts[r]) * factor;
        h.count = total * factor;
        pack(s, (block){a->in_place ? a->recvbuf : a->sendbuf, total, a->datatype}, data);
        break;
    }
    case DCP_BCAST:
        h.count = a->count * a->dtype.size;
        if (root && !segment)
            pack(s, (block){a->recvbuf, a->count, a->datatype}, data);
        break;
    case DCP_GATHER:
        h.count = pack(s, own_block(a), data);
        for (int r = 0; root && r < n; r++)
            ints[r] = (int)bytes_of(incoming(a, r));
        break;
    case DCP_SCATTER:
        h.count = root && a->in_place ? 0 : a->recvcount * type_size(a->recvtype);
        for (int r = 0; root && r < n; r++)
            ints[r] = a->in_place && r == me ? 0 : (int)bytes_of(scattered(a, r));
        for (int k = 0; root && k < n; k++)
            if (!(a->in_place && cc->order[k] == me))
                to += pack(s, scattered(a, cc->order[k]), to);
        break;
    case DCP_ALLGATHER:
        h.count = pack(s, own_block(a), data);
        for (int r = 0; r < n; r++)
            ints[r] = (int)bytes_of(incoming(a, r));
        break;
    case DCP_ALLTOALL:
        h.count = (int)p.data;
        for (int r = 0; r < n; r++) {
            block b;
            tdm_outgoing_block(&out, r, &b.at, &b.count, &b.type);
            ints[r] = (int)bytes_of(b);
            ints[n + r] = (int)bytes_of(incoming(a, r));
        }
        for (int k = 0; k < n; k++) {
            block b;
            tdm_outgoing_block(&out, cc->order[k], &b.at, &b.count, &b.type);
            to += pack(s, b, to);
        }
        break;
    }
    int bytes = (int)((char *)data - message + p.data);
    h.bytes = bytes;
    memcpy(message, &h, sizeof h);
    if (announce)
        memcpy(message + sizeof h, cc->members, members);
    int first = bytes < DCP_FIRST_BYTES ? bytes : DCP_FIRST_BYTES; /* the DCP's posted receive's size */
    tdm_sched_send(s, message, first, MPI_BYTE, tdm_dcp.server);
    if (bytes > first)
        tdm_sched_send(s, message + first, bytes - first, MPI_BYTE, tdm_dcp.server);
    /* the answer */
    if (segment) {
        int gets = kind == DCP_ALLREDUCE || (kind == DCP_REDUCE ? root : !root);
        segmented_call(s, a, segmented, h.count, segment, h.gives, gets);
    } else {
        switch (kind) {
        case DCP_ALLREDUCE:
        case DCP_REDUCE:
        case DCP_SCAN:
        case DCP_EXSCAN:
            if (kind != DCP_REDUCE || root)
                if (kind != DCP_EXSCAN || me > 0)
                    receive_block(s, (block){a->recvbuf, a->count, a->datatype}, &a->dtype, carried);
            break;
        case DCP_REDUCE_SCATTER: {
            int mine = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? a->count : a->recvcounts[me];
            if (mine > 0)
                receive_block(s, (block){a->recvbuf, mine, a->datatype}, &a->dtype, carried);
            break;
        }
        case DCP_BCAST:
            if (!root && h.count > 0)
                receive_block(s, (block){a->recvbuf, a->count, a->datatype}, &a->dtype, MPI_BYTE);
            break;
        case DCP_BARRIER: { /* a byte: the DCPs' barrier passed */
            char *byte = tdm_sched_tmp(s, 1);
            if (byte)
                tdm_sched_recv(s, byte, 1, MPI_BYTE, tdm_dcp.server);
            break;
        }
        case DCP_SCATTER:
            if (h.count > 0)
                receive_block(s, (block){a->recvbuf, a->recvcount, a->recvtype}, &a->rtype, MPI_BYTE);
            break;
        case DCP_GATHER:
        case DCP_ALLGATHER:
        case DCP_ALLTOALL: { /* blocks from every rank, in group order */
            char *back = p.back > 0 ? tdm_sched_tmp(s, (size_t)p.back) : NULL;
            if (!back)
                break;
            tdm_sched_recv(s, back, (int)p.back, MPI_BYTE, tdm_dcp.server);
            tdm_sched_round(s);
            for (int k = 0; k < n; k++)
                back += unpack(s, back, incoming(a, cc->order[k]));
            break;
        }
        }
    }
    int rc = tdm_sched_finish(s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (persistent) {
        tdm_dcp_persistent_call(req, cc, (dcp_header *)message);
    } else {
        cc->announced = 1;
        cc->calls++;
        tdm_dcp_wait_for_name(req, cc, (dcp_header *)message);
    }
    return s->error;
}

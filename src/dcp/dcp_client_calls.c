/*
 * The application's side of each collective its dedicated collective process serves (see dcp.h and
 * the message layout in dcp_protocol.h): one schedule on the link's shadow that packs this rank's data
 * into one message to the DCP (a derived datatype's data packed, a reduction's as the predefined type
 * it repeats) and unpacks the answer, whose blocks come in group order, into the user's buffers.
 */
#include "../core/request.h"
#include "../engine/mailbox.h"
#include "../engine/node.h"
#include "../schedule/coll_blocks.h"
#include "../schedule/schedule.h"
#include "dcp.h"
#include "dcp_client.h"
#include "dcp_segments.h"

#include <limits.h>
#include <string.h>

static int type_size(MPI_Datatype type)
{
    int size = 0;
    MPI_Type_size(type, &size);
    return size;
}

/* The bytes a unit of a call's data takes where the DCPs keep it: an array of the unit, as MPI lays it
 * out (a pair with padding, MPI_DOUBLE_INT: 16 for its 12 bytes of data), so that MPI_Reduce_local and
 * Tandem's collectives among the DCPs take it as it is. Bytes and the other carried types: their size. */
static int unit_bytes(MPI_Datatype unit)
{
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(unit, &lb, &extent);
    return (int)extent;
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
    case TDM_COLL_NEIGHBOR_ALLGATHER: /* an alltoall among the communicator's ranks (see below) */
    case TDM_COLL_NEIGHBOR_ALLGATHERV:
    case TDM_COLL_NEIGHBOR_ALLTOALL:
    case TDM_COLL_NEIGHBOR_ALLTOALLV:
    case TDM_COLL_NEIGHBOR_ALLTOALLW:
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
        [TDM_COLL_NEIGHBOR_ALLGATHER] = "neighbor_allgather_dcp",
        [TDM_COLL_NEIGHBOR_ALLGATHERV] = "neighbor_allgatherv_dcp",
        [TDM_COLL_NEIGHBOR_ALLTOALL] = "neighbor_alltoall_dcp",
        [TDM_COLL_NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv_dcp",
        [TDM_COLL_NEIGHBOR_ALLTOALLW] = "neighbor_alltoallw_dcp",
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

/* Copies b into an array of units at to (packed, where the unit has no padding); returns its bytes. */
static long long to_units(tdm_schedule *s, block b, MPI_Datatype unit, char *to)
{
    if (unit_bytes(unit) == type_size(unit))
        return pack(s, b, to);
    long long units = bytes_of(b) / type_size(unit);
    tdm_sched_copy(s, b.at, b.count, b.type, to, (int)units, unit);
    return units * unit_bytes(unit);
}

/* The other way: an array of units at from into b. */
static long long from_units(tdm_schedule *s, const char *from, MPI_Datatype unit, block b)
{
    if (unit_bytes(unit) == type_size(unit))
        return unpack(s, from, b);
    long long units = bytes_of(b) / type_size(unit);
    tdm_sched_copy(s, from, (int)units, unit, (void *)b.at, b.count, b.type);
    return units * unit_bytes(unit);
}

/* The bytes of count units laid out as an array (the last one's padding left out), as an answer through
 * the mailbox carries them. */
static long long image_bytes(long long count, MPI_Datatype unit)
{
    MPI_Aint lb, true_extent;
    MPI_Type_get_true_extent(unit, &lb, &true_extent);
    return count > 0 ? (count - 1) * unit_bytes(unit) + true_extent : 0;
}

/* The answer's count units of type sent into buf: a message from the DCP, or the answer in the
 * call's mailbox slot (slot >= 0). */
static void answer_into(tdm_schedule *s, int slot, void *buf, int count, MPI_Datatype sent)
{
    if (slot >= 0)
        tdm_sched_mailbox_take(s, buf, (int)image_bytes(count, sent), slot);
    else
        tdm_sched_recv(s, buf, count, sent, tdm_dcp.server);
}

/* The answer into b: straight into the user's buffer if its data is dense bytes there (or the very
 * datatype the DCP sends), else into packed memory and then unpacked (next round). */
static void receive_block(tdm_schedule *s, int slot, block b, const tdm_typeinfo *t, MPI_Datatype sent)
{
    if (bytes_of(b) == 0) /* the DCP sends nothing for nothing */
        return;
    if (b.type == sent || (sent == MPI_BYTE && t->contiguous)) {
        answer_into(s, slot, (void *)b.at, sent == MPI_BYTE ? (int)bytes_of(b) : b.count, sent);
        tdm_sched_round(s);
        return;
    }
    long long units = bytes_of(b) / type_size(sent);
    char *packed = tdm_sched_tmp(s, (size_t)(units * unit_bytes(sent)));
    if (!packed)
        return;
    answer_into(s, slot, packed, (int)units, sent);
    tdm_sched_round(s);
    from_units(s, packed, sent, b);
}

/* ---- neighbourhood collectives ---- */

/* A neighbourhood collective travels as an alltoall among the communicator's ranks: its block for rank
 * r holds this rank's blocks for r in the order it would post their sends, and its block from r the
 * blocks r sends it, each landing in the next of this rank's blocks whose source is r: the k-th message
 * from a rank matches the k-th receive from it, as it does inline (schedule/coll_blocks.h). */
static int is_neighbor(const tdm_coll_args *a)
{
    return a->kind >= TDM_COLL_NEIGHBOR_ALLGATHER && a->kind <= TDM_COLL_NEIGHBOR_ALLTOALLW;
}

static block neighbor_block(const tdm_coll_args *a, int sending, int j)
{
    block b;
    if (sending)
        b.at = tdm_neighbor_send_block(a, j, &b.count, &b.type);
    else
        b.at = tdm_neighbor_recv_block(a, j, &b.count, &b.type);
    return b;
}

/* The alltoall's counts: ints[r] the bytes for rank r, ints[n + r] the bytes from it. */
static void neighbor_counts(const tdm_coll_args *a, int n, int *ints)
{
    memset(ints, 0, sizeof(int) * 2 * (size_t)n);
    for (int j = 0; j < a->ndests; j++)
        if (a->dests[j] != MPI_PROC_NULL)
            ints[a->dests[j]] += (int)bytes_of(neighbor_block(a, 1, j));
    for (int i = 0; i < a->nsources; i++)
        if (a->sources[i] != MPI_PROC_NULL)
            ints[n + a->sources[i]] += (int)bytes_of(neighbor_block(a, 0, i));
}

/* Where each rank's part starts in parts of bytes[r] laid out in group order. */
static long long *group_offsets(tdm_schedule *s, const int *bytes, const tdm_dcp_comm *cc)
{
    long long *at = tdm_sched_tmp_private(s, sizeof(long long) * (size_t)cc->size), sum = 0;
    for (int k = 0; at && k < cc->size; k++) {
        at[cc->order[k]] = sum;
        sum += bytes[cc->order[k]];
    }
    return at;
}

static void neighbor_pack(tdm_schedule *s, const tdm_coll_args *a, const tdm_dcp_comm *cc, const int *ints, char *data)
{
    long long *at = group_offsets(s, ints, cc);
    for (int k = 0; at && k < a->ndests; k++) {
        int j = tdm_neighbor_send_order(a, k), r = a->dests[j];
        if (r != MPI_PROC_NULL)
            at[r] += pack(s, neighbor_block(a, 1, j), data + at[r]);
    }
}

static void neighbor_unpack(tdm_schedule *s, const tdm_coll_args *a, const tdm_dcp_comm *cc, const int *ints,
                            const char *back)
{
    long long *at = group_offsets(s, ints + cc->size, cc);
    for (int i = 0; at && i < a->nsources; i++) {
        int r = a->sources[i];
        if (r != MPI_PROC_NULL)
            at[r] += unpack(s, back + at[r], neighbor_block(a, 0, i));
    }
}

/* The counts and data of the message, after the header (and members), and what comes back whole. */
typedef struct plan {
    int nints;              /* counts after the members */
    long long data;         /* bytes of data */
    long long back;         /* bytes of the answer (blocks in group order), 0 for none */
    long long answer;       /* bytes of any answer, as a mailbox slot holds it; -1: none comes */
} plan;

static plan plan_of(const tdm_coll_args *a, int kind, int n, MPI_Datatype carried, const tdm_outgoing_blocks *out)
{
    plan p = {0, 0, 0, -1};
    int me = a->rank, root = a->rank == a->root;
    long long elements = 0;
    if (carried != MPI_DATATYPE_NULL)
        elements = (long long)a->count * a->dtype.size / type_size(carried);
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        p.data = elements * unit_bytes(carried);
        if ((kind != DCP_REDUCE || root) && (kind != DCP_EXSCAN || me > 0) && elements > 0)
            p.answer = image_bytes(elements, carried);
        break;
    case DCP_REDUCE_SCATTER: {
        p.nints = n;
        p.data = (a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? n * elements : elements) * unit_bytes(carried);
        long long mine = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? a->count : a->recvcounts[me];
        mine = mine * a->dtype.size / type_size(carried);
        if (mine > 0)
            p.answer = image_bytes(mine, carried);
        break;
    }
    case DCP_BCAST:
        p.data = root ? (long long)a->count * a->dtype.size : 0;
        if (!root && (long long)a->count * a->dtype.size > 0)
            p.answer = (long long)a->count * a->dtype.size;
        break;
    case DCP_BARRIER:
        p.answer = 1;
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
        for (int j = 0; is_neighbor(a) && j < a->ndests; j++)
            p.data += a->dests[j] == MPI_PROC_NULL ? 0 : bytes_of(neighbor_block(a, 1, j));
        for (int i = 0; is_neighbor(a) && i < a->nsources; i++)
            p.back += a->sources[i] == MPI_PROC_NULL ? 0 : bytes_of(neighbor_block(a, 0, i));
        for (int r = 0; !is_neighbor(a) && r < n; r++) {
            block b;
            tdm_outgoing_block(out, r, &b.at, &b.count, &b.type);
            p.data += bytes_of(b);
            p.back += bytes_of(incoming(a, r));
        }
        break;
    }
    if (kind == DCP_SCATTER && !(root && a->in_place) && bytes_of((block){a->recvbuf, a->recvcount, a->recvtype}) > 0)
        p.answer = bytes_of((block){a->recvbuf, a->recvcount, a->recvtype});
    if (kind == DCP_GATHER || kind == DCP_ALLGATHER || kind == DCP_ALLTOALL)
        p.answer = p.back > 0 ? p.back : -1;
    return p;
}

/* v into an int of the header; 0 if it does not fit. */
static int fit(long long v, int *out)
{
    *out = (int)v;
    return v <= INT_MAX;
}

/* The header's count and the counts that follow it (dcp_protocol.h); 0 if one passes INT_MAX. */
static int describe(const tdm_coll_args *a, int kind, int factor, const tdm_outgoing_blocks *out, int n,
                    dcp_header *h, int *ints)
{
    int me = a->rank, root = a->rank == a->root, ok = 1;
    long long sum = 0;
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        return fit((long long)a->count * factor, &h->count);
    case DCP_REDUCE_SCATTER: {
        int block_form = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK;
        for (int r = 0; r < n; r++) {
            ok &= fit((long long)(block_form ? a->count : a->recvcounts[r]) * factor, &ints[r]);
            sum += ints[r];
        }
        return ok & fit(sum, &h->count);
    }
    case DCP_BCAST:
        return fit((long long)a->count * a->dtype.size, &h->count);
    case DCP_GATHER:
        for (int r = 0; root && r < n; r++)
            ok &= fit(bytes_of(incoming(a, r)), &ints[r]);
        return ok & fit(bytes_of(own_block(a)), &h->count);
    case DCP_SCATTER:
        for (int r = 0; root && r < n; r++)
            ok &= fit(a->in_place && r == me ? 0 : bytes_of(scattered(a, r)), &ints[r]);
        return ok & fit(root && a->in_place ? 0 : (long long)a->recvcount * type_size(a->recvtype), &h->count);
    case DCP_ALLGATHER:
        for (int r = 0; r < n; r++)
            ok &= fit(bytes_of(incoming(a, r)), &ints[r]);
        return ok & fit(bytes_of(own_block(a)), &h->count);
    case DCP_ALLTOALL:
        if (is_neighbor(a))
            neighbor_counts(a, n, ints);
        for (int r = 0; r < n; r++) {
            if (!is_neighbor(a)) {
                block b;
                tdm_outgoing_block(out, r, &b.at, &b.count, &b.type);
                ok &= fit(bytes_of(b), &ints[r]);
                ok &= fit(bytes_of(incoming(a, r)), &ints[n + r]);
            }
            sum += ints[r];
        }
        return ok & fit(sum, &h->count);
    default:
        return 1;
    }
}

/* The message's data, packed at data: its blocks in their order (dcp_segments.h). */
static void pack_data(tdm_schedule *s, const tdm_coll_args *a, int kind, const tdm_dcp_comm *cc,
                      const tdm_outgoing_blocks *out, const int *ints, char *data)
{
    int n = cc->size, me = a->rank, root = a->rank == a->root;
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        to_units(s, (block){a->in_place ? a->recvbuf : a->sendbuf, a->count, a->datatype}, carried_type(a), data);
        break;
    case DCP_REDUCE_SCATTER: {
        int total = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? a->count * n : a->count;
        to_units(s, (block){a->in_place ? a->recvbuf : a->sendbuf, total, a->datatype}, carried_type(a), data);
        break;
    }
    case DCP_BCAST:
        if (root)
            pack(s, (block){a->recvbuf, a->count, a->datatype}, data);
        break;
    case DCP_GATHER:
    case DCP_ALLGATHER:
        pack(s, own_block(a), data);
        break;
    case DCP_SCATTER:
        for (int k = 0; root && k < n; k++)
            if (!(a->in_place && cc->order[k] == me))
                data += pack(s, scattered(a, cc->order[k]), data);
        break;
    case DCP_ALLTOALL:
        if (is_neighbor(a))
            neighbor_pack(s, a, cc, ints, data);
        for (int k = 0; !is_neighbor(a) && k < n; k++) {
            block b;
            tdm_outgoing_block(out, cc->order[k], &b.at, &b.count, &b.type);
            data += pack(s, b, data);
        }
        break;
    }
}

/* ---- segmented calls (dcp_segments.h) ---- */

/* Whether this rank counts its segments by its own blocks: in the v-forms of gather, scatter and
 * alltoall and in the neighbourhood collectives no rank knows what the others send each other. */
static int varying(const tdm_coll_args *a)
{
    switch (a->kind) {
    case TDM_COLL_GATHERV:
    case TDM_COLL_SCATTERV:
    case TDM_COLL_ALLTOALLV:
    case TDM_COLL_ALLTOALLW:
        return 1;
    default:
        return is_neighbor(a);
    }
}

static int longest(const int *lengths, int blocks, int from)
{
    for (int b = 0; b < blocks; b++)
        from = lengths[b] > from ? lengths[b] : from;
    return from;
}

/* Cuts the call h describes into segments (h->segment, h->segments) if a block of its message or answer
 * is longer than TANDEM_DCP_SEGMENT, into TDM_DCP_MAX_SEGMENTS at most; a v-form always, by this
 * rank's blocks alone and with no most (it cannot know the others' longest). lengths: room for the
 * communicator's size. */
static void cut_in_segments(dcp_header *h, const int *ints, const tdm_dcp_comm *cc, int rank, MPI_Datatype unit,
                            int v_form, int *lengths)
{
    int n = cc->size, size = unit_bytes(unit);
    int most = longest(lengths, tdm_dcp_message_blocks(h, ints, cc->order, n, rank, lengths), 0);
    most = longest(lengths, tdm_dcp_answer_blocks(h, ints, cc->order, n, rank, lengths), most);
    if (tdm_dcp.segment_bytes == 0 || (!v_form && (long long)most * size <= tdm_dcp.segment_bytes))
        return;
    h->segment = tdm_dcp.segment_bytes / size > 0 ? tdm_dcp.segment_bytes / size : 1;
    if (!v_form && most / h->segment >= TDM_DCP_MAX_SEGMENTS)
        h->segment = most / TDM_DCP_MAX_SEGMENTS + (most % TDM_DCP_MAX_SEGMENTS != 0);
    if (h->segment > INT_MAX / n) /* a segment's message carries a piece of each of up to n blocks */
        h->segment = INT_MAX / n;
    h->segments = most / h->segment + (most % h->segment != 0);
    if (v_form) {
        h->varying = 1;
        h->segments += h->segments == 0; /* one (its data in the header's message) even for nothing */
    }
}

/* The message's data in the user's memory when it is one block of dense units there that no answer
 * overwrites; else NULL. */
static const void *dense_source(const tdm_coll_args *a, int kind, MPI_Datatype unit)
{
    if (a->in_place) /* the answer lands where a send may still read */
        return NULL;
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
        return a->dtype.contiguous && a->datatype == unit ? a->sendbuf : NULL;
    case DCP_BCAST:
        return a->dtype.contiguous ? a->recvbuf : NULL;
    case DCP_GATHER:
    case DCP_ALLGATHER:
        return a->stype.contiguous ? a->sendbuf : NULL;
    default:
        return NULL;
    }
}

/* Where block b of the answer lands, and whether it holds dense units there. */
static block answer_block(const tdm_coll_args *a, int kind, const int *order, int b, MPI_Datatype unit, int *dense)
{
    switch (kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
    case DCP_REDUCE_SCATTER: {
        int count = kind != DCP_REDUCE_SCATTER                   ? a->count
                    : a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? a->count
                                                               : a->recvcounts[a->rank];
        *dense = a->dtype.contiguous && a->datatype == unit;
        return (block){a->recvbuf, count, a->datatype};
    }
    case DCP_BCAST:
        *dense = a->dtype.contiguous;
        return (block){a->recvbuf, a->count, a->datatype};
    case DCP_SCATTER:
        *dense = a->rtype.contiguous;
        return (block){a->recvbuf, a->recvcount, a->recvtype};
    default: /* gather, allgather, alltoall: from each rank in group order */
        *dense = a->rtype.contiguous;
        return incoming(a, order[b]);
    }
}

/* Copies between blocks (block b's units at at[b]) and segment order (piece k of every block, segment
 * after segment) at seg. */
static void reorder(tdm_schedule *s, char **at, char *seg, const int *lengths, int blocks, const dcp_header *h,
                    MPI_Datatype unit, int to_segments)
{
    size_t size = (size_t)unit_bytes(unit);
    for (int k = 0; k < h->segments; k++)
        for (int b = 0; b < blocks; b++) {
            int piece = tdm_dcp_piece(lengths[b], h->segment, k);
            char *block_part = at[b] + (size_t)k * (size_t)h->segment * size;
            if (to_segments)
                tdm_sched_copy(s, block_part, piece, unit, seg, piece, unit);
            else
                tdm_sched_copy(s, seg, piece, unit, block_part, piece, unit);
            seg += (size_t)piece * size;
        }
}

/* A segmented call after its header: the message's blocks out and the answer's in, segment by segment.
 * Straight from and into the user's memory where a single block is dense there, else through packed
 * memory in segment order. */
static void segmented_call(tdm_schedule *s, const tdm_coll_args *a, const dcp_header *h, const int *ints,
                           const tdm_dcp_comm *cc, const tdm_outgoing_blocks *out, MPI_Datatype unit)
{
    int n = cc->size, server = tdm_dcp.server;
    size_t size = (size_t)unit_bytes(unit);
    int *given = tdm_sched_tmp_private(s, sizeof(int) * (size_t)n), *got = tdm_sched_tmp_private(s, sizeof(int) * (size_t)n);
    char **at = tdm_sched_tmp_private(s, sizeof(char *) * (size_t)n);
    if (!given || !got || !at)
        return;
    int gives = tdm_dcp_message_blocks(h, ints, cc->order, n, a->rank, given);
    int gets = tdm_dcp_answer_blocks(h, ints, cc->order, n, a->rank, got);
    long long out_units = 0, back_units = 0;
    for (int b = 0; b < gives; b++)
        out_units += given[b];
    for (int b = 0; b < gets; b++)
        back_units += got[b];
    const char *src = out_units > 0 && gives == 1 ? dense_source(a, h->kind, unit) : NULL;
    if (out_units > 0 && !src) {
        char *packed = tdm_sched_tmp(s, (size_t)out_units * size), *seg = packed;
        if (packed && gives > 1) {
            seg = tdm_sched_tmp(s, (size_t)out_units * size);
            at[0] = packed;
            for (int b = 1; b < gives; b++)
                at[b] = at[b - 1] + (size_t)given[b - 1] * size;
        }
        if (!packed || !seg)
            return;
        pack_data(s, a, h->kind, cc, out, ints, packed);
        if (gives > 1)
            reorder(s, at, seg, given, gives, h, unit, 1);
        src = seg;
    }
    int dense = 0, neighbor = is_neighbor(a); /* a neighbourhood call's blocks are its ranks', unpacked at the end */
    block first = back_units > 0 && !neighbor ? answer_block(a, h->kind, cc->order, 0, unit, &dense) : (block){NULL, 0, unit};
    int direct = gets == 1 && dense;
    char *back = direct ? (char *)first.at : back_units > 0 ? tdm_sched_tmp(s, (size_t)back_units * size) : NULL;
    if (back_units > 0 && !back)
        return;
    long long sent = 0, received = 0;
    for (int k = 0; k < h->segments; k++) {
        long long o = tdm_dcp_segment_length(given, gives, h->segment, k);
        long long i = tdm_dcp_segment_length(got, gets, h->segment, k);
        if (o > 0)
            tdm_sched_send_bulk(s, src + sent * (long long)size, (int)o, unit, server);
        if (i > 0)
            tdm_sched_recv(s, back + received * (long long)size, (int)i, unit, server);
        sent += o;
        received += i;
    }
    tdm_sched_round(s);
    if (back_units == 0 || direct)
        return;
    /* the answer's blocks: pieces straight into dense ones, the others' through a packed copy */
    char *staging = NULL, *staged = NULL;
    for (int b = 0; b < gets; b++) {
        block to = neighbor ? first : answer_block(a, h->kind, cc->order, b, unit, &dense);
        if (dense) {
            at[b] = (char *)to.at;
            continue;
        }
        if (!staging && !(staging = staged = tdm_sched_tmp(s, (size_t)back_units * size)))
            return;
        at[b] = staging;
        staging += (size_t)got[b] * size;
    }
    reorder(s, at, back, got, gets, h, unit, 0);
    if (neighbor) {
        neighbor_unpack(s, a, cc, ints, staged);
        return;
    }
    for (int b = 0; b < gets; b++) {
        block to = answer_block(a, h->kind, cc->order, b, unit, &dense);
        if (!dense)
            from_units(s, at[b], unit, to);
    }
}

static long as_messages; /* calls handed off as messages so far (the others: the mailbox's posts) */

void tdm_dcp_handoffs(long *through_segment, long *messages)
{
    *through_segment = (long)tdm_mailbox_posts();
    *messages = as_messages;
}

/* This rank's mailbox (engine/mailbox.h) where its DCP shares its node's segment, else NULL. */
static void *mailbox(void)
{
    static void *box;
    static int looked;
    if (!looked) {
        int world;
        MPI_Comm_rank(MPI_COMM_WORLD, &world);
        box = tdm_node_part(tdm_dcp.server) ? tdm_node_mailbox(world) : NULL;
        looked = 1;
    }
    return box;
}

/* A slot of this rank's mailbox for a call whose message and answer (-1: none) fit one; -1 if the call
 * goes by MPI (no mailbox, too long, every slot taken). */
static int mailbox_slot(long long message, long long answer)
{
    if (!mailbox() || message > TDM_MAILBOX_BYTES || answer > TDM_MAILBOX_BYTES)
        return -1;
    return tdm_mailbox_reserve(mailbox(), answer >= 0);
}

/* ---- calls through the mailbox, again ----
 * A call handed off through the mailbox on a named communicator is a message with no members, a post
 * and maybe a take: its schedule serves an identical later call (the same buffers, counts, types, op
 * and root: core's schedule cache) once it has a free slot and the call's number. */

/* A kept call's record, and what an express call needs of it (core/express_calls.h copies that). */
typedef struct reused_call {
    tdm_dcp_comm *cc;
    dcp_header *header; /* in the schedule's message */
    void *box;          /* this rank's mailbox */
    int answered;       /* the call takes an answer */
    int post, take;     /* its mailbox actions (take: -1 if none) */
    int express;        /* it may run as an express call, as `call` says */
    tdm_express_call call;
} reused_call;

/* Whether the schedule is one round of the post, maybe one plain copy of the caller's data to the
 * message's end before it, and maybe the take right after it; if so, rc->call describes it. */
static int express(const tdm_schedule *s, reused_call *rc)
{
    if (TDM_SIMULATED || s->nrounds != 1 || s->nactions != s->round_end[0] || (rc->take >= 0) != rc->answered ||
        (rc->take >= 0 && rc->take != rc->post + 1))
        return 0;
    const tdm_action *post = &s->actions[rc->post], *copy = NULL;
    for (int i = 0; i < s->nactions; i++) {
        const tdm_action *a = &s->actions[i];
        if (a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE)
            continue;
        if (a->kind != TDM_ACT_COPY || copy || i > rc->post || a->plain_bytes < 0 || a->repeat != 1)
            return 0;
        copy = a;
    }
    size_t bytes = (size_t)post->count, data = copy ? (size_t)copy->plain_bytes : 0;
    const char *message = post->src;
    if (copy && (data > bytes || copy->dst != message + bytes - data)) /* not the message's end */
        return 0;
    rc->call = (tdm_express_call){.box = rc->box, .head = message, .head_bytes = bytes - data,
                                  .data = copy ? copy->src : NULL, .data_bytes = data, .answered = rc->answered,
                                  .number = &rc->header->call, .counter = &rc->cc->calls};
    if (rc->take >= 0) {
        rc->call.answer_to = s->actions[rc->take].dst;
        rc->call.answer_bytes = (size_t)s->actions[rc->take].count;
    }
    return 1;
}

static void keep_for_reuse(struct tdm_request *req, tdm_dcp_comm *cc, dcp_header *header, int answered)
{
    tdm_schedule *s = &req->run.sched;
    reused_call *rc = tdm_sched_tmp(s, sizeof *rc);
    if (!rc)
        return;
    *rc = (reused_call){.header = header, .cc = cc, .box = mailbox(), .answered = answered, .post = -1, .take = -1};
    for (int i = 0; i < s->nactions; i++) {
        if (s->actions[i].kind == TDM_ACT_MAILBOX_POST)
            rc->post = i;
        if (s->actions[i].kind == TDM_ACT_MAILBOX_TAKE)
            rc->take = i;
    }
    if (rc->post < 0) /* (every call through the mailbox has its post) */
        return;
    rc->express = express(s, rc);
    req->persistent_arg = rc;
    req->cacheable = 1;
}

/* The slot given to the kept schedule's mailbox actions. */
static void give_slot(struct tdm_request *req, const reused_call *rc, int slot)
{
    tdm_schedule *s = &req->run.sched;
    s->actions[rc->post].step = slot;
    if (rc->take >= 0)
        s->actions[rc->take].step = slot;
}

int tdm_dcp_reuse_client(struct tdm_request *req)
{
    reused_call *rc = req->persistent_arg;
    int slot = tdm_mailbox_reserve(rc->box, rc->answered);
    if (slot < 0)
        return 0;
    give_slot(req, rc, slot);
    rc->header->call = rc->cc->calls++;
    return 1;
}

int tdm_dcp_express(struct tdm_request *req, tdm_express_call *call)
{
    const reused_call *rc = req->persistent_arg;
    if (rc->express)
        *call = rc->call;
    return rc->express;
}

int tdm_dcp_resume_express(struct tdm_request *req, int slot)
{
    reused_call *rc = req->persistent_arg;
    give_slot(req, rc, slot);
    return rc->post + 1;
}

/* A call the DCPs cannot carry: counts or a message past INT_MAX bytes. The other ranks' parts of it
 * may be on their way, and they would wait for this one's forever: its DCP hears of it and stops the
 * job. */
static int refuse(const dcp_header *call)
{
    dcp_header h = {.kind = DCP_REFUSED, .call = call->kind, .rank = call->rank, .key = call->key};
    tdm_dcp_tell_server(&h);
    return MPI_ERR_COUNT;
}

int tdm_dcp_build_client(struct tdm_request *req, const tdm_coll_args *a, void *via, int persistent)
{
    tdm_dcp_comm *cc = via;
    tdm_schedule *s = &req->run.sched;
    int n = cc->size, me = a->rank, root = a->rank == a->root;
    int kind = tdm_dcp_kind_of(a, cc->contiguous);
    int stream = persistent ? ++cc->streams : 0; /* taken even if this rank fails: the others' stay aligned */
    MPI_Datatype carried = kind <= DCP_REDUCE_SCATTER ? carried_type(a) : MPI_DATATYPE_NULL;
    MPI_Datatype unit = carried != MPI_DATATYPE_NULL ? carried : MPI_BYTE;
    int factor = carried != MPI_DATATYPE_NULL ? a->dtype.size / type_size(carried) : 1; /* elements per item */
    tdm_outgoing_blocks out;
    if (kind == DCP_ALLTOALL && !is_neighbor(a) && !tdm_outgoing_blocks_init(s, a, &out)) /* in place: a snapshot */
        return tdm_sched_finish(s);
    plan p = plan_of(a, kind, n, carried, &out);
    int announce = !cc->announced || persistent; /* a persistent call's every start: it may be the first */
    size_t members = announce ? sizeof(int) * (size_t)n : 0;
    int *ints = tdm_sched_tmp_private(s, sizeof(int) * (size_t)(2 * n)); /* the counts, and room for lengths */
    if (!ints)
        return tdm_sched_finish(s);
    dcp_header h = {.kind = kind, .type = tdm_dcp_type_index(carried), .op = tdm_dcp_op_index(a->op),
                    .root = a->root, .rank = me, .key = cc->key, .stream = stream,
                    .call = persistent ? 0 : cc->calls, .members = announce ? n : 0, .counts = p.nints};
    if (!describe(a, kind, factor, &out, n, &h, ints)) /* the header counts in ints */
        return refuse(&h);
    if (kind != DCP_BARRIER) {
        int *lengths = tdm_sched_tmp_private(s, sizeof(int) * (size_t)n);
        if (!lengths)
            return tdm_sched_finish(s);
        cut_in_segments(&h, ints, cc, me, unit, varying(a), lengths);
    }
    int in_segments = tdm_dcp_data_in_segments(&h);
    if (in_segments)
        p.data = p.back = 0; /* the data follows the header's message in segments, as the answer does */
    size_t data_at = tdm_dcp_data_offset(announce ? n : 0, p.nints);
    if (p.data > INT_MAX - (long long)data_at ||
        p.back > INT_MAX) /* whole, over INT_MAX bytes: a v-form's root under TANDEM_DCP_SEGMENT=0 */
        return refuse(&h);
    char *message = tdm_sched_tmp_private(s, data_at + (size_t)p.data);
    if (!message)
        return tdm_sched_finish(s);
    char *data = message + data_at;
    if (!in_segments)
        pack_data(s, a, kind, cc, &out, ints, data);
    int bytes = (int)(data - message + p.data);
    h.bytes = bytes;
    memcpy(message, &h, sizeof h);
    if (announce)
        memcpy(message + sizeof h, cc->members, members);
    memcpy(message + sizeof h + members, ints, sizeof(int) * (size_t)p.nints);
    char *counts_end = message + sizeof h + members + sizeof(int) * (size_t)p.nints;
    memset(counts_end, 0, (size_t)(data - counts_end)); /* up to the data's alignment */
    /* through the mailbox: a call of one piece each way (a v-form runs as a segmented call among the
     * DCPs, whatever its length, and a persistent call's schedule serves every start) */
    int slot = h.segment > 0 || persistent ? -1 : mailbox_slot(bytes, p.answer);
    if (slot >= 0) {
        tdm_sched_mailbox_post(s, message, bytes, slot);
    } else {
        /* the first part: the whole message if it fits the DCP's posted receive, else no more than the
         * header, members and counts (what the DCP holds of a call it cannot start yet) */
        int first = bytes, prefix = (int)(data - message);
        if (bytes > tdm_dcp.first_bytes)
            first = prefix < tdm_dcp.first_bytes ? prefix : tdm_dcp.first_bytes;
        tdm_sched_send(s, message, first, MPI_BYTE, tdm_dcp.server);
        if (prefix > first) /* members and counts past the first part: the DCP needs them at once */
            tdm_sched_send_bulk(s, message + first, prefix - first, MPI_BYTE, tdm_dcp.server);
        if (bytes > first && bytes > prefix) /* the data: the DCP takes it when it can use it */
            tdm_sched_send_bulk(s, message + (prefix > first ? prefix : first),
                                bytes - (prefix > first ? prefix : first), MPI_BYTE, tdm_dcp.server);
    }
    /* the answer */
    if (in_segments) {
        segmented_call(s, a, &h, ints, cc, &out, unit);
    } else {
        switch (kind) {
        case DCP_ALLREDUCE:
        case DCP_REDUCE:
        case DCP_SCAN:
        case DCP_EXSCAN:
            if (kind != DCP_REDUCE || root)
                if (kind != DCP_EXSCAN || me > 0)
                    receive_block(s, slot, (block){a->recvbuf, a->count, a->datatype}, &a->dtype, carried);
            break;
        case DCP_REDUCE_SCATTER: {
            int mine = a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK ? a->count : a->recvcounts[me];
            if (mine > 0)
                receive_block(s, slot, (block){a->recvbuf, mine, a->datatype}, &a->dtype, carried);
            break;
        }
        case DCP_BCAST:
            if (!root && h.count > 0)
                receive_block(s, slot, (block){a->recvbuf, a->count, a->datatype}, &a->dtype, MPI_BYTE);
            break;
        case DCP_BARRIER: { /* a byte: the DCPs' barrier passed */
            char *byte = tdm_sched_tmp(s, 1);
            if (byte)
                answer_into(s, slot, byte, 1, MPI_BYTE);
            break;
        }
        case DCP_SCATTER:
            if (h.count > 0)
                receive_block(s, slot, (block){a->recvbuf, a->recvcount, a->recvtype}, &a->rtype, MPI_BYTE);
            break;
        case DCP_GATHER:
        case DCP_ALLGATHER:
        case DCP_ALLTOALL: { /* blocks from every rank, in group order */
            char *back = p.back > 0 ? tdm_sched_tmp(s, (size_t)p.back) : NULL;
            if (!back)
                break;
            answer_into(s, slot, back, (int)p.back, MPI_BYTE);
            tdm_sched_round(s);
            if (is_neighbor(a))
                neighbor_unpack(s, a, cc, ints, back);
            for (int k = 0; !is_neighbor(a) && k < n; k++)
                back += unpack(s, back, incoming(a, cc->order[k]));
            break;
        }
        }
    }
    int rc = tdm_sched_finish(s);
    if (rc != MPI_SUCCESS) {
        if (slot >= 0)
            tdm_mailbox_cancel(mailbox(), slot);
        return rc;
    }
    if (slot < 0)
        as_messages++;
    if (slot >= 0 && cc->named && !announce) /* the same schedule may serve identical later calls */
        keep_for_reuse(req, cc, (dcp_header *)message, p.answer >= 0);
    if (persistent) {
        rc = tdm_dcp_persistent_call(req, cc, (dcp_header *)message);
    } else {
        cc->announced = 1;
        cc->calls++;
        rc = tdm_dcp_wait_for_name(req, cc, (dcp_header *)message);
    }
    if (rc != MPI_SUCCESS && slot >= 0)
        tdm_mailbox_cancel(mailbox(), slot);
    return rc != MPI_SUCCESS ? rc : s->error;
}

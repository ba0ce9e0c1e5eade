#include "schedule.h"

#include "../base/smpi_support.h"
#include "tmp_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void tdm_sched_init(tdm_schedule *s, const char *algorithm, int rank, int size)
{
    s->algorithm = algorithm;
    s->rank = rank;
    s->size = size;
    s->actions = s->actions_inline;
    s->nactions = 0;
    s->actions_cap = TDM_SCHED_INLINE_ACTIONS;
    s->round_end = s->round_end_inline;
    s->nrounds = 0;
    s->rounds_cap = TDM_SCHED_INLINE_ROUNDS;
    s->max_round_messages = 0;
    s->open_round_messages = 0;
    s->tmp = s->tmp_inline;
    s->ntmp = 0;
    s->tmp_bytes = 0;
    s->tmp_cap = TDM_SCHED_INLINE_TMP;
    s->error = MPI_SUCCESS;
    s->reduce_basic = MPI_DATATYPE_NULL;
    s->bg_begin = s->bg_end = -1;
    s->torus_ndims = 0;
    s->lane = 0;
    s->nlanes = 1;
    s->shm_puts = 0;
    s->shm_actions = 0;
    s->shm_cells = 0;
    s->mailbox_actions = 0;
}

void tdm_sched_destroy(tdm_schedule *s)
{
    for (int i = 0; i < s->ntmp; i++)
        tdm_tmp_free(s->tmp[i]);
    if (s->actions != s->actions_inline)
        free(s->actions);
    if (s->round_end != s->round_end_inline)
        free(s->round_end);
    if (s->tmp != s->tmp_inline)
        free(s->tmp);
    s->nactions = s->nrounds = s->ntmp = 0;
    s->tmp_bytes = 0;
}

/* Grows an array that starts in inline storage; returns 0 on failure. */
static int grow(void **array, int *cap, size_t elem, const void *inline_storage)
{
    int new_cap = *cap * 2;
    void *grown;
    if (*array == inline_storage) {
        grown = malloc((size_t)new_cap * elem);
        if (grown)
            memcpy(grown, *array, (size_t)*cap * elem);
    } else {
        grown = realloc(*array, (size_t)new_cap * elem);
    }
    if (!grown)
        return 0;
    *array = grown;
    *cap = new_cap;
    return 1;
}

static tdm_action *append(tdm_schedule *s)
{
    if (s->error != MPI_SUCCESS)
        return NULL;
    if (s->nactions == s->actions_cap &&
        !grow((void **)&s->actions, &s->actions_cap, sizeof(tdm_action), s->actions_inline)) {
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    tdm_action *a = &s->actions[s->nactions++];
    memset(a, 0, sizeof *a);
    a->link = -1;
    a->repeat = 1;
    return a;
}

static MPI_Aint distance(const void *from, const void *to) { return (MPI_Aint)((uintptr_t)to - (uintptr_t)from); }

/* The previous action, if `like` one (kind, counts, types, op) and in the open round, that src and dst
 * continue at even strides: it is repeated once more, and 1 returned (see the builder vocabulary). */
static int fold(tdm_schedule *s, const tdm_action *like, const void *src, const void *dst)
{
    if (s->error != MPI_SUCCESS || s->nactions == tdm_sched_round_begin(s, s->nrounds))
        return 0;
    tdm_action *prev = &s->actions[s->nactions - 1];
    if (prev->kind != like->kind || prev->count != like->count || prev->type != like->type ||
        prev->dst_count != like->dst_count || prev->dst_type != like->dst_type || prev->op != like->op ||
        prev->basic != like->basic)
        return 0;
    MPI_Aint src_stride = distance(prev->src, src), dst_stride = distance(prev->dst, dst);
    if (prev->repeat > 1) { /* the next in its progression? */
        if (src_stride != prev->repeat * prev->src_stride || dst_stride != prev->repeat * prev->dst_stride)
            return 0;
    } else {
        prev->src_stride = src_stride;
        prev->dst_stride = dst_stride;
    }
    prev->repeat++;
    return 1;
}

/* Whether count elements of type carry no byte. Messages are posted or skipped by their bytes, never
 * by their counts: a send of 3 elements of an empty datatype matches a receive of 0 ints, and both
 * sides must skip it. */
static int no_bytes(int count, MPI_Datatype type)
{
    if (count == 0)
        return 1;
    if (type == MPI_BYTE || type == MPI_INT || type == MPI_DOUBLE || type == MPI_CHAR || type == MPI_FLOAT)
        return 0; /* the common ones without a query */
    int size = 0;
    return MPI_Type_size(type, &size) == MPI_SUCCESS && size == 0;
}

static void add_message(tdm_schedule *s, tdm_action_kind kind, const void *src, void *dst, int count,
                        MPI_Datatype type, int peer)
{
    if (no_bytes(count, type))
        return;
    tdm_action *a = append(s);
    if (!a)
        return;
    a->kind = kind;
    a->src = src;
    a->dst = dst;
    a->count = count;
    a->type = type;
    a->peer = peer;
    s->open_round_messages++;
}


void tdm_sched_append_round(tdm_schedule *s, const tdm_schedule *src, int round)
{
    for (int i = tdm_sched_round_begin(src, round); i < tdm_sched_round_end(src, round); i++) {
        tdm_action *a = append(s);
        if (!a)
            return;
        *a = src->actions[i];
        s->open_round_messages += a->kind == TDM_ACT_SEND || a->kind == TDM_ACT_RECV || a->kind == TDM_ACT_SHM_GET;
        if (a->kind == TDM_ACT_SHM_PUT)
            s->open_round_messages += a->nreaders;
        s->shm_actions += a->kind == TDM_ACT_SHM_PUT || a->kind == TDM_ACT_SHM_GET;
        s->mailbox_actions += a->kind == TDM_ACT_MAILBOX_POST || a->kind == TDM_ACT_MAILBOX_TAKE;
    }
}

int tdm_sched_adopt(tdm_schedule *s, tdm_schedule *part, const int *map)
{
    tdm_sched_round(s);
    for (int r = 0; r < part->nrounds && s->error == MPI_SUCCESS; r++) {
        int first = s->nactions;
        tdm_sched_append_round(s, part, r);
        for (int i = first; i < s->nactions; i++)
            if (s->actions[i].kind == TDM_ACT_SEND || s->actions[i].kind == TDM_ACT_RECV)
                s->actions[i].peer = map[s->actions[i].peer];
        tdm_sched_round(s);
    }
    for (int i = 0; i < part->ntmp && s->error == MPI_SUCCESS; i++) {
        if (s->ntmp == s->tmp_cap && !grow((void **)&s->tmp, &s->tmp_cap, sizeof(void *), s->tmp_inline)) {
            s->error = MPI_ERR_NO_MEM;
            break;
        }
        s->tmp[s->ntmp++] = part->tmp[i];
        part->tmp[i] = NULL;
    }
    if (s->error == MPI_SUCCESS) {
        s->tmp_bytes += part->tmp_bytes;
        part->ntmp = 0;
    }
    return s->error;
}

void tdm_sched_send(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer)
{
    add_message(s, TDM_ACT_SEND, buf, NULL, count, type, peer);
}

void tdm_sched_send_bulk(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer)
{
    int before = s->nactions;
    add_message(s, TDM_ACT_SEND, buf, NULL, count, type, peer);
    if (s->nactions > before)
        s->actions[s->nactions - 1].bulk = 1;
}

void tdm_sched_send_on_link(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer, int link)
{
    int before = s->nactions;
    add_message(s, TDM_ACT_SEND, buf, NULL, count, type, peer);
    if (s->nactions > before)
        s->actions[s->nactions - 1].link = link;
}

void tdm_sched_recv(tdm_schedule *s, void *buf, int count, MPI_Datatype type, int peer)
{
    add_message(s, TDM_ACT_RECV, NULL, buf, count, type, peer);
}

void tdm_sched_reduce(tdm_schedule *s, const void *in, void *inout, int count, MPI_Datatype type,
                      MPI_Op op)
{
    if (count == 0)
        return;
    tdm_action like = {.kind = TDM_ACT_REDUCE, .count = count, .type = type, .op = op, .basic = s->reduce_basic};
    if (fold(s, &like, in, inout))
        return;
    tdm_action *a = append(s);
    if (!a)
        return;
    a->kind = TDM_ACT_REDUCE;
    a->src = in;
    a->dst = inout;
    a->count = count;
    a->type = type;
    a->op = op;
    a->basic = s->reduce_basic;
}

/* Bytes of count elements if they are one dense run starting at the buffer pointer, else -1. */
static MPI_Aint dense_bytes(MPI_Datatype type, int count)
{
    if (type == MPI_PACKED)
        return -1; /* bytes made by MPI_Pack: the copy packs or unpacks */
    /* the common predefined types first: no queries needed */
    if (type == MPI_BYTE || type == MPI_CHAR || type == MPI_UNSIGNED_CHAR || type == MPI_SIGNED_CHAR ||
        type == MPI_INT8_T || type == MPI_UINT8_T)
        return count;
    if (type == MPI_INT || type == MPI_FLOAT || type == MPI_UNSIGNED || type == MPI_INT32_T ||
        type == MPI_UINT32_T)
        return (MPI_Aint)count * 4;
    if (type == MPI_DOUBLE || type == MPI_LONG_LONG || type == MPI_INT64_T || type == MPI_UINT64_T ||
        type == MPI_UNSIGNED_LONG_LONG)
        return (MPI_Aint)count * 8;
    int size;
    MPI_Aint lb, extent, true_lb, true_extent;
    if (MPI_Type_size(type, &size) != MPI_SUCCESS || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return -1;
    if (true_lb == 0 && true_extent == size && extent == size)
        return (MPI_Aint)count * size;
    return -1;
}

/* A copy between dense runs of the same length is a memcpy; the engine need not ask MPI each time. So is
 * packing a dense run, or unpacking into one: MPI_Pack's bytes of it are its memory image (in a job whose
 * processes share one data representation, as Tandem's moves of bytes between them assume). */
static MPI_Aint plain_bytes(int src_count, MPI_Datatype src_type, int dst_count, MPI_Datatype dst_type)
{
    if ((src_type == MPI_PACKED) != (dst_type == MPI_PACKED)) {
        MPI_Aint dense = src_type == MPI_PACKED ? dense_bytes(dst_type, dst_count) : dense_bytes(src_type, src_count);
        return dense >= 0 && dense == (src_type == MPI_PACKED ? src_count : dst_count) ? dense : -1;
    }
    MPI_Aint src_bytes = dense_bytes(src_type, src_count);
    return src_bytes >= 0 && src_bytes == dense_bytes(dst_type, dst_count) ? src_bytes : -1;
}

void tdm_sched_copy(tdm_schedule *s, const void *src, int src_count, MPI_Datatype src_type, void *dst,
                    int dst_count, MPI_Datatype dst_type)
{
    if (no_bytes(src_count, src_type) && no_bytes(dst_count, dst_type))
        return;
    tdm_action like = {.kind = TDM_ACT_COPY, .count = src_count, .type = src_type, .dst_count = dst_count,
                       .dst_type = dst_type};
    if (fold(s, &like, src, dst))
        return;
    tdm_action *a = append(s);
    if (!a)
        return;
    a->kind = TDM_ACT_COPY;
    a->src = src;
    a->count = src_count;
    a->type = src_type;
    a->dst = dst;
    a->dst_count = dst_count;
    a->dst_type = dst_type;
    a->plain_bytes = plain_bytes(src_count, src_type, dst_count, dst_type);
}

/* The memory image of count elements of type: its first byte relative to the buffer, and its length. */
static void image_of(tdm_action *a)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    a->plain_bytes = a->count == 0 ? 0 : dense_bytes(a->type, a->count);
    if (a->plain_bytes >= 0) {
        a->image_lb = 0;
        a->image_bytes = a->plain_bytes;
        return;
    }
    MPI_Type_get_extent(a->type, &lb, &extent);
    MPI_Type_get_true_extent(a->type, &true_lb, &true_extent);
    a->image_lb = true_lb;
    a->image_bytes = (MPI_Aint)(a->count - 1) * extent + true_extent;
}

static tdm_action *add_shm(tdm_schedule *s, tdm_action_kind kind, int count, MPI_Datatype type)
{
    tdm_action *a = append(s);
    if (!a)
        return NULL;
    a->kind = kind;
    a->count = count;
    a->type = type;
    a->op = MPI_OP_NULL;
    image_of(a);
    s->shm_actions++;
    return a;
}

void tdm_sched_shm_put(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const int *readers,
                       int nreaders)
{
    tdm_action *a = add_shm(s, TDM_ACT_SHM_PUT, count, type);
    if (!a)
        return;
    a->src = buf;
    a->readers = readers;
    a->nreaders = nreaders;
    a->step = s->shm_puts++;
    s->open_round_messages += nreaders;
}

void tdm_sched_shm_get(tdm_schedule *s, void *buf, int count, MPI_Datatype type, int writer, int step)
{
    tdm_sched_shm_get_reduce(s, buf, count, type, MPI_OP_NULL, writer, step);
}

static tdm_action *add_get(tdm_schedule *s, void *buf, int count, MPI_Datatype type, MPI_Op op, int writer, int step)
{
    tdm_action *a = add_shm(s, TDM_ACT_SHM_GET, count, type);
    if (!a)
        return NULL;
    a->dst = buf;
    a->peer = writer;
    a->step = step;
    a->op = op;
    a->basic = op == MPI_OP_NULL ? MPI_DATATYPE_NULL : s->reduce_basic;
    s->open_round_messages++;
    return a;
}

void tdm_sched_shm_get_reduce(tdm_schedule *s, void *buf, int count, MPI_Datatype type, MPI_Op op, int writer,
                              int step)
{
    add_get(s, buf, count, type, op, writer, step);
}

void tdm_sched_shm_get_reduce_from(tdm_schedule *s, const void *in, void *buf, int count, MPI_Datatype type, MPI_Op op,
                                   int writer, int step)
{
    tdm_action *a = add_get(s, buf, count, type, op, writer, step);
    if (a)
        a->src = in;
}

static void add_mailbox(tdm_schedule *s, tdm_action_kind kind, const void *src, void *dst, int bytes, int slot)
{
    tdm_action *a = append(s);
    if (!a)
        return;
    a->kind = kind;
    a->src = src;
    a->dst = dst;
    a->count = bytes;
    a->type = MPI_BYTE;
    a->op = MPI_OP_NULL;
    a->step = slot;
    s->mailbox_actions++;
}

void tdm_sched_mailbox_post(tdm_schedule *s, const void *buf, int bytes, int slot)
{
    add_mailbox(s, TDM_ACT_MAILBOX_POST, buf, NULL, bytes, slot);
}

void tdm_sched_mailbox_take(tdm_schedule *s, void *buf, int bytes, int slot)
{
    add_mailbox(s, TDM_ACT_MAILBOX_TAKE, NULL, buf, bytes, slot);
}

void tdm_sched_round(tdm_schedule *s)
{
    if (s->error != MPI_SUCCESS)
        return;
    if (s->nactions == tdm_sched_round_begin(s, s->nrounds))
        return; /* empty round */
    if (s->nrounds == s->rounds_cap &&
        !grow((void **)&s->round_end, &s->rounds_cap, sizeof(int), s->round_end_inline)) {
        s->error = MPI_ERR_NO_MEM;
        return;
    }
    s->round_end[s->nrounds++] = s->nactions;
    if (s->open_round_messages > s->max_round_messages)
        s->max_round_messages = s->open_round_messages;
    s->open_round_messages = 0;
}

void tdm_sched_split_background(tdm_schedule *s)
{
    tdm_sched_round(s);
    if (s->bg_begin < 0)
        s->bg_begin = s->nrounds;
}

void tdm_sched_split_foreground(tdm_schedule *s)
{
    tdm_sched_round(s);
    if (s->bg_end < 0)
        s->bg_end = s->nrounds;
}

static void *keep_tmp(tdm_schedule *s, size_t bytes, void *(*alloc)(size_t))
{
    if (s->error != MPI_SUCCESS)
        return NULL;
    if (s->ntmp == s->tmp_cap &&
        !grow((void **)&s->tmp, &s->tmp_cap, sizeof(void *), s->tmp_inline)) {
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    void *p = alloc(bytes ? bytes : 1);
    if (!p) {
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->tmp[s->ntmp++] = p;
    s->tmp_bytes += bytes;
    return p;
}

void *tdm_sched_tmp(tdm_schedule *s, size_t bytes) { return keep_tmp(s, bytes, tdm_tmp_alloc); }
void *tdm_sched_tmp_private(tdm_schedule *s, size_t bytes) { return keep_tmp(s, bytes, tdm_tmp_alloc_private); }

int tdm_sched_finish(tdm_schedule *s)
{
    tdm_sched_round(s);
    s->shm_cells = s->shm_puts < TDM_SHM_CALL_CELLS ? s->shm_puts : TDM_SHM_CALL_CELLS;
    return s->error;
}

/* The pairs the engine reduces itself (engine/local_reduce.c's reduce_common). */
static int common_pair(MPI_Datatype type, MPI_Op op)
{
    int long64 = sizeof(long) == 8;
    int floating = type == MPI_DOUBLE || type == MPI_FLOAT;
    int integer = type == MPI_INT || type == MPI_INT32_T || type == MPI_LONG_LONG || type == MPI_INT64_T ||
                  type == MPI_UNSIGNED || type == MPI_UINT32_T || type == MPI_UNSIGNED_LONG_LONG ||
                  type == MPI_UINT64_T || (long64 && (type == MPI_LONG || type == MPI_UNSIGNED_LONG));
    return (floating || integer) && (op == MPI_SUM || op == MPI_PROD || (integer && (op == MPI_MAX || op == MPI_MIN)));
}

int tdm_action_reduce_fuses(const tdm_action *a)
{
    return a->repeat == 1 && a->basic == MPI_DATATYPE_NULL && a->plain_bytes >= 0 && !TDM_SIMULATED &&
           common_pair(a->type, a->op);
}

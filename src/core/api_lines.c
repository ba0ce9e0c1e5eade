/*
 * Blocking barrier, bcast, reduce and allreduce of at most TDM_SHM_LINES_MAX_BYTES, and allgather of
 * blocks of at most that, among the processes of one node, through the lines of the node's segment
 * (engine/shm_lines.h), run at once by the calling thread: no request, no schedule, no engine.
 *
 * This is the one place where a collective is not a schedule: a schedule's request, cache look-up,
 * ring admission and cell search cost about a thousand instructions a call, several times what a line
 * crossing between two cores takes, so that small calls on one node could not beat MPI's own
 * shared-memory collectives that way. Non-blocking calls, larger payloads, nodes of more than
 * TDM_SHM_LINES_MAX_RANKS and calls whose algorithm is forced stay schedules.
 *
 * Whether a call takes the lines depends only on what every process of the communicator shares: its
 * shadow exists (an earlier collective made it), its ring is agreed, it lies on one node, the call's
 * collective and bytes, the settings. Every process therefore takes the lines for the same calls, and
 * counts them alike.
 */
#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../engine/local_reduce.h"
#include "../engine/shadow_comm.h"
#include "../engine/shm_lines.h"
#include "../engine/shm_ring.h"
#include "../select/select.h"
#include "api_internal.h"
#include "check.h"
#include "op_rules.h"

#include <sched.h>
#include <string.h>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        if (rc_ != MPI_SUCCESS)                                                                         \
            return rc_;                                                                                 \
    } while (0)

/* Calls taken, for TDM_Get_line_calls: a plain load and store (no locked add, which would cost a tenth
 * of a call), so that calls on several threads at once may miss some. */
static long line_calls;

static void count_call(void)
{
    __atomic_store_n(&line_calls, __atomic_load_n(&line_calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

int TDM_Get_line_calls(long *calls)
{
    if (!calls)
        return tdm_error("TDM_Get_line_calls", MPI_ERR_ARG, "calls is NULL (argument calls)");
    *calls = __atomic_load_n(&line_calls, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

/* memcpy, which must not be given NULL even for no bytes */
static void copy(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        memcpy(dst, src, bytes);
}

/* A wait's pause between polls (shm_lines.h): the calls this thread drives move on (another process may
 * wait for one of them before it comes to this call), now and then MPI's own progress (a message this
 * process sent before may need it), and the core goes to whoever needs it (more processes than cores). */
static void idle(int polls)
{
    tdm_agent_idle();
    if (polls % 16 == 0) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    sched_yield();
}

/* The shadow of comm if this call of `kind` takes the lines (bytes checked by the caller), else NULL. */
static tdm_shadow *on_lines(MPI_Comm comm, tdm_coll_kind kind)
{
    /* dcp progress: the application's calls go to its dedicated collective processes */
    if (!tdm_select_automatic(kind) || tdm_coll_group() || tdm_progress_dcp_chosen())
        return NULL;
    if (TDM_SIMULATED) /* the lines' waits poll outside the engine, taking no simulated time */
        return NULL;
    tdm_shadow *sh = tdm_shadow_lookup_memo(comm);
    if (!sh) {
        if (!tdm_global.initialized || comm == MPI_COMM_NULL)
            return NULL;
        sh = tdm_shadow_lookup_attribute(comm);
        if (!sh)
            return NULL; /* the communicator's first collective: the general path makes its shadow */
    }
    int error = MPI_SUCCESS;
    for (int polls = 1; !tdm_shadow_ready(sh, &error); polls++) {
        if (error != MPI_SUCCESS)
            return NULL; /* the general path reports it */
        idle(polls);
    }
    if (!sh->shm || !sh->layout || sh->layout->nnodes != 1 || sh->size > TDM_SHM_LINES_MAX_RANKS)
        return NULL;
    return sh;
}

/* The last call this thread ran on the lines, whose arguments passed every check: an identical call
 * (the same communicator's shadow, the same predefined datatype and op, the same buffers, the same
 * settings) skips the checks, as a schedule taken from the cache does. */
typedef struct line_call {
    tdm_shadow *sh;
    unsigned generation;    /* of the shadows: a shadow freed since may have left sh to another */
    unsigned settings_epoch;
    tdm_coll_kind kind;
    int count, root;        /* an allgather's sendcount in root */
    MPI_Datatype type;      /* the receive side's, for an allgather */
    MPI_Datatype send_type; /* an allgather's */
    MPI_Op op;
    const void *sendbuf;
    void *recvbuf;
    /* found by the checks */
    size_t bytes;           /* one rank's data */
    int contiguous;         /* type's elements are dense */
    int send_contiguous;    /* an allgather's send_type's are */
    MPI_Aint extent;        /* type's */
} line_call;
static __thread line_call last_call;

static int same_call(const line_call *a, const line_call *b)
{
    return a->sh == b->sh && a->generation == b->generation && a->settings_epoch == b->settings_epoch &&
           a->kind == b->kind && a->count == b->count && a->root == b->root && a->type == b->type &&
           a->send_type == b->send_type && a->op == b->op && a->sendbuf == b->sendbuf && a->recvbuf == b->recvbuf;
}

/* Keeps a call that passed the checks, if its handles cannot name something else later. */
static void remember(const line_call *call)
{
    if (tdm_type_is_common(call->type) && (call->op == MPI_OP_NULL || tdm_op_is_predefined(call->op)) &&
        (call->kind != TDM_COLL_ALLGATHER || call->sendbuf == MPI_IN_PLACE || tdm_type_is_common(call->send_type)))
        last_call = *call;
}

/* The call as the memo knows it; 1 if it is the last call checked on the lines (call->bytes set). */
static int known_call(line_call *call, MPI_Comm comm)
{
    call->sh = tdm_shadow_lookup_memo(comm);
    call->generation = __atomic_load_n(&tdm_global.shadow_generation, __ATOMIC_ACQUIRE);
    call->settings_epoch = tdm_global.settings_epoch;
    if (!call->sh || !same_call(call, &last_call))
        return 0;
    *call = last_call;
    return 1;
}

int tdm_lines_barrier(const char *fn, MPI_Comm comm)
{
    (void)fn;
    line_call call = {.kind = TDM_COLL_BARRIER, .type = MPI_DATATYPE_NULL, .op = MPI_OP_NULL};
    tdm_shadow *sh;
    if (known_call(&call, comm)) {
        sh = call.sh;
    } else {
        if (!(sh = on_lines(comm, TDM_COLL_BARRIER)))
            return TDM_LINES_NOT_TAKEN;
        call.sh = sh;
        last_call = call;
    }
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    tdm_shm_lines_mine(c, k, idle);
    tdm_shm_lines_publish(c, k);
    for (int r = 0; r < sh->size; r++)
        if (r != sh->rank)
            tdm_shm_lines_wait(c, r, k, idle);
    tdm_shm_lines_finish(c, k, 1);
    return MPI_SUCCESS;
}

int tdm_lines_bcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    line_call call = {.kind = TDM_COLL_BCAST, .count = count, .root = root, .type = datatype, .op = MPI_OP_NULL,
                      .recvbuf = buffer};
    tdm_shadow *sh;
    if (known_call(&call, comm)) {
        sh = call.sh;
    } else {
        if (!(sh = on_lines(comm, TDM_COLL_BCAST)))
            return TDM_LINES_NOT_TAKEN;
        tdm_typeinfo t;
        CHECK(tdm_check_count(fn, "count", count));
        CHECK(tdm_check_type(fn, "datatype", datatype, &t));
        CHECK(tdm_check_root(fn, root, sh->size));
        CHECK(tdm_check_buffer(fn, "buffer", buffer, count, datatype));
        /* the bytes, not the datatype, which may differ between processes (their type signatures match) */
        if ((long long)count * t.size > TDM_SHM_LINES_MAX_BYTES)
            return TDM_LINES_NOT_TAKEN;
        call.sh = sh;
        call.bytes = (size_t)count * (size_t)t.size;
        call.contiguous = t.contiguous;
        remember(&call);
    }
    int pos = 0, rc = MPI_SUCCESS, bytes = (int)call.bytes;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    if (sh->rank == root) {
        void *line = tdm_shm_lines_mine(c, k, idle);
        if (call.contiguous)
            copy(line, buffer, call.bytes);
        else
            rc = MPI_Pack(buffer, count, datatype, line, bytes, &pos, comm);
        tdm_shm_lines_publish(c, k);
    } else {
        const void *line = tdm_shm_lines_wait(c, root, k, idle);
        if (call.contiguous)
            copy(buffer, line, call.bytes);
        else
            rc = MPI_Unpack(line, bytes, &pos, buffer, count, datatype, comm);
    }
    tdm_shm_lines_finish(c, k, 0);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "copying the data (MPI_Pack)", rc);
}

/* Reduces every process's line of call k into result, in one order on every process: result =
 * x0 op (x1 op (... op x(n-1))), for any op. mine: this process's line. */
static int reduce_lines(tdm_shadow *sh, uint64_t k, const void *mine, void *result, int count, MPI_Datatype type,
                        MPI_Op op, size_t bytes)
{
    tdm_shm_comm *c = sh->shm;
    int n = sh->size, rc = MPI_SUCCESS;
    copy(result, n - 1 == sh->rank ? mine : tdm_shm_lines_wait(c, n - 1, k, idle), bytes);
    for (int r = n - 2; r >= 0; r--) { /* every line waited for, even after an error: all must be read */
        const void *x = r == sh->rank ? mine : tdm_shm_lines_wait(c, r, k, idle);
        if (rc == MPI_SUCCESS)
            rc = tdm_local_reduce_dense(x, result, count, type, op);
    }
    return rc;
}

/* The shadow of a reduce or allreduce that takes the lines, its checks passed (*rc their error, else
 * MPI_SUCCESS), or NULL. */
static tdm_shadow *reduction_on_lines(const char *fn, line_call *call, MPI_Comm comm, int *rc)
{
    *rc = MPI_SUCCESS;
    if (known_call(call, comm))
        return call->sh;
    tdm_shadow *sh = on_lines(comm, call->kind);
    if (!sh)
        return NULL;
    int reduce = call->kind == TDM_COLL_REDUCE, at_root = !reduce || sh->rank == call->root;
    tdm_coll_args a;
    a.dtype.contiguous = 0;
    if (reduce && (*rc = tdm_check_root(fn, call->root, sh->size)) != MPI_SUCCESS)
        return NULL;
    if (!at_root && call->sendbuf == MPI_IN_PLACE) {
        *rc = tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root only (argument sendbuf)");
        return NULL;
    }
    if ((*rc = tdm_check_reduction(fn, &a, call->sendbuf, call->recvbuf, call->count, call->type, call->op,
                                   call->count, at_root)) != MPI_SUCCESS)
        return NULL;
    /* a predefined op on a derived datatype goes through its basic type (schedule.h's reduce_basic),
     * which the lines' MPI_Reduce_local does not: such rare calls take a schedule */
    if (!a.dtype.contiguous || a.reduce_basic != MPI_DATATYPE_NULL ||
        (long long)call->count * a.dtype.size > TDM_SHM_LINES_MAX_BYTES)
        return NULL;
    call->sh = sh;
    call->bytes = (size_t)call->count * (size_t)a.dtype.size;
    call->contiguous = 1;
    remember(call);
    return sh;
}

int tdm_lines_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm)
{
    line_call call = {.kind = TDM_COLL_REDUCE, .count = count, .root = root, .type = datatype, .op = op,
                      .sendbuf = sendbuf, .recvbuf = recvbuf};
    int rc;
    tdm_shadow *sh = reduction_on_lines(fn, &call, comm, &rc);
    if (!sh)
        return rc != MPI_SUCCESS ? rc : TDM_LINES_NOT_TAKEN;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    void *line = tdm_shm_lines_mine(c, k, idle);
    copy(line, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, call.bytes);
    tdm_shm_lines_publish(c, k);
    rc = sh->rank == root ? reduce_lines(sh, k, line, recvbuf, count, datatype, op, call.bytes) : MPI_SUCCESS;
    tdm_shm_lines_finish(c, k, sh->rank == root);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "reducing (MPI_Reduce_local)", rc);
}

int tdm_lines_allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    line_call call = {.kind = TDM_COLL_ALLREDUCE, .count = count, .type = datatype, .op = op,
                      .sendbuf = sendbuf, .recvbuf = recvbuf};
    int rc;
    tdm_shadow *sh = reduction_on_lines(fn, &call, comm, &rc);
    if (!sh)
        return rc != MPI_SUCCESS ? rc : TDM_LINES_NOT_TAKEN;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    void *line = tdm_shm_lines_mine(c, k, idle);
    copy(line, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, call.bytes);
    tdm_shm_lines_publish(c, k);
    rc = reduce_lines(sh, k, line, recvbuf, count, datatype, op, call.bytes);
    tdm_shm_lines_finish(c, k, 1);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "reducing (MPI_Reduce_local)", rc);
}

int tdm_lines_allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    line_call call = {.kind = TDM_COLL_ALLGATHER, .count = recvcount, .root = sendcount, .type = recvtype,
                      .send_type = sendtype, .op = MPI_OP_NULL, .sendbuf = sendbuf, .recvbuf = recvbuf};
    tdm_shadow *sh;
    if (known_call(&call, comm)) {
        sh = call.sh;
    } else {
        if (!(sh = on_lines(comm, TDM_COLL_ALLGATHER)))
            return TDM_LINES_NOT_TAKEN;
        tdm_coll_args a;
        memset(&a, 0, sizeof a);
        CHECK(tdm_check_send_side(fn, &a, sendbuf, sendcount, sendtype, 1));
        CHECK(tdm_check_recv_side(fn, &a, recvbuf, recvcount, recvtype, 0));
        if (!a.in_place)
            CHECK(tdm_check_not_aliased(fn, sendbuf, recvbuf, sendcount));
        /* a block's bytes: the receive side's, the same on every rank */
        if ((long long)recvcount * a.rtype.size > TDM_SHM_LINES_MAX_BYTES)
            return TDM_LINES_NOT_TAKEN;
        call.sh = sh;
        call.bytes = (size_t)recvcount * (size_t)a.rtype.size;
        call.contiguous = a.rtype.contiguous;
        call.send_contiguous = !a.in_place && a.stype.contiguous;
        call.extent = a.rtype.extent;
        remember(&call);
    }
    int rc = MPI_SUCCESS, bytes = (int)call.bytes, me = sh->rank;
    MPI_Aint stride = (MPI_Aint)recvcount * call.extent; /* from one block of recvbuf to the next */
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, me, idle);
    count_call();
    char *line = tdm_shm_lines_mine(c, k, idle);
    int pos = 0;
    if (sendbuf == MPI_IN_PLACE && call.contiguous)
        copy(line, (char *)recvbuf + me * stride, call.bytes);
    else if (sendbuf == MPI_IN_PLACE)
        rc = MPI_Pack((char *)recvbuf + me * stride, recvcount, recvtype, line, bytes, &pos, comm);
    else if (call.send_contiguous)
        copy(line, sendbuf, call.bytes);
    else
        rc = MPI_Pack(sendbuf, sendcount, sendtype, line, bytes, &pos, comm);
    tdm_shm_lines_publish(c, k);
    for (int r = 0; r < sh->size; r++) { /* every line read, even after an error */
        if (r == me && sendbuf == MPI_IN_PLACE)
            continue;
        const void *theirs = r == me ? line : tdm_shm_lines_wait(c, r, k, idle);
        char *block = (char *)recvbuf + r * stride;
        pos = 0;
        if (rc != MPI_SUCCESS)
            continue;
        if (call.contiguous)
            copy(block, theirs, call.bytes);
        else
            rc = MPI_Unpack(theirs, bytes, &pos, block, recvcount, recvtype, comm);
    }
    tdm_shm_lines_finish(c, k, 1);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "copying the blocks (MPI_Pack)", rc);
}

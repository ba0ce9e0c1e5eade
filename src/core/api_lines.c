/*
 * Blocking barrier, bcast, reduce and allreduce of at most TDM_SHM_LINES_MAX_BYTES among the processes
 * of one node, through the lines of the node's segment (engine/shm_lines.h), run at once by the calling
 * thread: no request, no schedule, no engine. This is the one place where a collective is not a
 * schedule: a schedule's request, cache look-up, ring admission and cell search cost about a thousand
 * instructions a call, several times what a line crossing between two cores takes, so that small calls
 * on one node could not beat MPI's own shared-memory collectives that way. Non-blocking calls, larger
 * payloads, nodes of more than TDM_SHM_LINES_MAX_RANKS and calls whose algorithm is forced stay
 * schedules.
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
    if (!tdm_select_automatic(kind) || tdm_coll_group())
        return NULL;
    tdm_shadow *sh = tdm_shadow_lookup_memo(comm);
    if (!sh) {
        if (!tdm_global.initialized || comm == MPI_COMM_NULL || tdm_progress_dcp_chosen())
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

int tdm_lines_barrier(const char *fn, MPI_Comm comm)
{
    (void)fn;
    tdm_shadow *sh = on_lines(comm, TDM_COLL_BARRIER);
    if (!sh)
        return TDM_LINES_NOT_TAKEN;
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
    tdm_shadow *sh = on_lines(comm, TDM_COLL_BCAST);
    if (!sh)
        return TDM_LINES_NOT_TAKEN;
    tdm_typeinfo t;
    CHECK(tdm_check_count(fn, "count", count));
    CHECK(tdm_check_type(fn, "datatype", datatype, &t));
    CHECK(tdm_check_root(fn, root, sh->size));
    CHECK(tdm_check_buffer(fn, "buffer", buffer, count, datatype));
    /* the bytes, not the datatype, which may differ between processes (their type signatures match) */
    if ((long long)count * t.size > TDM_SHM_LINES_MAX_BYTES)
        return TDM_LINES_NOT_TAKEN;
    int bytes = count * t.size, pos = 0, rc = MPI_SUCCESS;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    if (sh->rank == root) {
        void *line = tdm_shm_lines_mine(c, k, idle);
        if (t.contiguous)
            copy(line, buffer, (size_t)bytes);
        else
            rc = MPI_Pack(buffer, count, datatype, line, bytes, &pos, comm);
        tdm_shm_lines_publish(c, k);
    } else {
        const void *line = tdm_shm_lines_wait(c, root, k, idle);
        if (t.contiguous)
            copy(buffer, line, (size_t)bytes);
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

int tdm_lines_reduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm)
{
    tdm_shadow *sh = on_lines(comm, TDM_COLL_REDUCE);
    if (!sh)
        return TDM_LINES_NOT_TAKEN;
    tdm_coll_args a;
    memset(&a, 0, sizeof a);
    CHECK(tdm_check_root(fn, root, sh->size));
    if (sh->rank != root && sendbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root only (argument sendbuf)");
    CHECK(tdm_check_reduction(fn, &a, sendbuf, recvbuf, count, datatype, op, count, sh->rank == root));
    if (!a.dtype.contiguous || (long long)count * a.dtype.size > TDM_SHM_LINES_MAX_BYTES)
        return TDM_LINES_NOT_TAKEN;
    size_t bytes = (size_t)count * (size_t)a.dtype.size;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    void *line = tdm_shm_lines_mine(c, k, idle);
    copy(line, a.in_place ? recvbuf : sendbuf, bytes);
    tdm_shm_lines_publish(c, k);
    int rc = sh->rank == root ? reduce_lines(sh, k, line, recvbuf, count, datatype, op, bytes) : MPI_SUCCESS;
    tdm_shm_lines_finish(c, k, sh->rank == root);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "reducing (MPI_Reduce_local)", rc);
}

int tdm_lines_allreduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    tdm_shadow *sh = on_lines(comm, TDM_COLL_ALLREDUCE);
    if (!sh)
        return TDM_LINES_NOT_TAKEN;
    tdm_coll_args a;
    memset(&a, 0, sizeof a);
    CHECK(tdm_check_reduction(fn, &a, sendbuf, recvbuf, count, datatype, op, count, 1));
    if (!a.dtype.contiguous || (long long)count * a.dtype.size > TDM_SHM_LINES_MAX_BYTES)
        return TDM_LINES_NOT_TAKEN;
    size_t bytes = (size_t)count * (size_t)a.dtype.size;
    tdm_shm_comm *c = sh->shm;
    uint64_t k = tdm_shm_lines_begin(c, sh->rank, idle);
    count_call();
    void *line = tdm_shm_lines_mine(c, k, idle);
    copy(line, a.in_place ? recvbuf : sendbuf, bytes);
    tdm_shm_lines_publish(c, k);
    int rc = reduce_lines(sh, k, line, recvbuf, count, datatype, op, bytes);
    tdm_shm_lines_finish(c, k, 1);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : tdm_mpi_error(fn, "reducing (MPI_Reduce_local)", rc);
}

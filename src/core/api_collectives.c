/*
 * The non-blocking collectives: check the arguments as MPI defines them, describe the call
 * (tdm_coll_args), and start it: selection picks an algorithm, the algorithm builds the schedule,
 * the agent runs it.
 */
#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../select/select.h"
#include "api_internal.h"
#include "check.h"
#include "chunked_calls.h"
#include "express_calls.h"
#include "handoff.h"
#include "op_hold.h"
#include "op_rules.h"
#include "persistent.h"
#include "request.h"
#include "sched_cache.h"
#include "typed_blocks.h"

#include <stdlib.h>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        if (rc_ != MPI_SUCCESS)                                                                         \
            return rc_;                                                                                 \
    } while (0)

/* A derived datatype is duplicated for the schedule, so that the caller may free it at once
 * (MPI lets pending operations finish with a freed datatype). */
static int hold_type(struct tdm_request *req, MPI_Datatype *type)
{
    int ni, na, nd, combiner;
    if (*type == MPI_DATATYPE_NULL || tdm_type_is_common(*type))
        return MPI_SUCCESS;
    int rc = MPI_Type_get_envelope(*type, &ni, &na, &nd, &combiner);
    if (rc != MPI_SUCCESS || combiner == MPI_COMBINER_NAMED)
        return rc;
    rc = MPI_Type_dup(*type, &req->owned_types[req->nowned]);
    if (rc == MPI_SUCCESS)
        *type = req->owned_types[req->nowned++];
    return rc;
}

static int hold_types(struct tdm_request *req, tdm_coll_args *a)
{
    int same = a->recvtype == a->sendtype;
    int rc = hold_type(req, &a->datatype);
    if (rc == MPI_SUCCESS)
        rc = hold_type(req, &a->sendtype);
    if (rc == MPI_SUCCESS) {
        if (same)
            a->recvtype = a->sendtype;
        else
            rc = hold_type(req, &a->recvtype);
    }
    return rc;
}

/* Equal blocks of reduce_scatter_block, as the counts the reduce-scatter algorithms read. */
static int block_counts(tdm_schedule *s, tdm_coll_args *a)
{
    int *counts = tdm_sched_tmp(s, sizeof(int) * (size_t)a->size);
    if (!counts)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < a->size; i++)
        counts[i] = a->count;
    a->recvcounts = counts;
    return MPI_SUCCESS;
}

/* Gives up a request that took its tag but could not start. */
static int abandon(struct tdm_request *req, int rc)
{
    tdm_shadow_release(req->run.shadow, &req->run.tag_hold);
    tdm_request_free(req);
    return rc;
}

/* Builds one lane of the call (all of it for most calls) into req, with the algorithm selected. */
static int build(const char *fn, tdm_coll_args *a, const tdm_algorithm *alg, struct tdm_request *req, int tag)
{
    int rc = MPI_SUCCESS;
    tdm_sched_init(&req->run.sched, alg->full_name, a->rank, a->size);
    req->run.sched.reduce_basic = a->reduce_basic;
    if (a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK && a->lane == 0)
        rc = block_counts(&req->run.sched, a); /* the lanes after the first read the first's */
    if (rc == MPI_SUCCESS)
        rc = alg->build(&req->run.sched, a);
    if (rc == MPI_SUCCESS)
        rc = tdm_exec_init(&req->run.exec, &req->run.sched, MPI_COMM_NULL, tag);
    if (rc != MPI_SUCCESS)
        return tdm_error(fn, rc, "out of memory building the %s schedule", alg->full_name);
    return MPI_SUCCESS;
}

/* The lanes after the first, each an internal request with its own tag, listed on req. The number of
 * lanes depends only on the call and the settings, so every rank claims the same tags. */
static int build_lanes(const char *fn, tdm_coll_args *a, const tdm_algorithm *alg, struct tdm_request *req,
                       int per_thread)
{
    tdm_run **link = &req->run.lane_next;
    for (int l = 1; l < a->lanes; l++) {
        struct tdm_request *lane = tdm_request_alloc();
        if (!lane)
            return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the request");
        lane->kind = a->kind;
        lane->run.lane = l;
        lane->run.thread = l / per_thread;
        lane->run.lane_parent = &req->run;
        *link = &lane->run;
        link = &lane->run.lane_next;
        int tag;
        int rc = tdm_shadow_claim_tag(req->run.shadow, &lane->run.tag_hold, &tag);
        if (rc != MPI_SUCCESS)
            return tdm_mpi_error(fn, "completing earlier collectives to reuse their tag", rc);
        lane->run.shadow = req->run.shadow;
        a->lane = l;
        if ((rc = build(fn, a, alg, lane, tag)) != MPI_SUCCESS)
            return rc;
    }
    req->run.lanes_running = a->lanes > 1 ? a->lanes : 1;
    return MPI_SUCCESS;
}

/* What a start reads of its thread's state, in one cache line (16 bytes aligned to 16):
 *   building_persistent: a persistent collective is created (persistent.c): its call is built, not
 *   started;
 *   grouping: a call run in chunks (chunked_calls.h): the calls of its chunks, built meanwhile, are
 *   collected below, then joined as the lanes of one request;
 *   on_group: the group shadow the next call runs on (tdm_coll_on_group), or NULL. */
static __thread struct {
    struct tdm_shadow *on_group;
    int grouping;
    int building_persistent;
} __attribute__((aligned(16))) making TDM_TLS_INITIAL_EXEC;

void tdm_build_persistent(int on) { making.building_persistent = on; }

int tdm_building_persistent(void) { return making.building_persistent; }

/* The calls of the chunks of a call run in chunks (while making.grouping) */
static __thread struct tdm_request *group_first; /* the first call */
static __thread tdm_run *group_tail; /* the last lane of the chain */
static __thread int group_lanes;

void tdm_group_begin(void)
{
    making.grouping = 1;
    group_first = NULL;
    group_tail = NULL;
    group_lanes = 0;
}

/* A call of the group: it and its own lanes (a torus bucket's) become lanes of the first call. */
int tdm_group_collecting(void) { return making.grouping; }

static void group_add(struct tdm_request *req)
{
    if (!group_first) {
        group_first = req;
    } else {
        group_tail->lane_next = &req->run;
        req->run.lane_parent = &group_first->run;
    }
    for (tdm_run *lane = &req->run;; lane = lane->lane_next) {
        lane->lane_parent = lane == &group_first->run ? NULL : &group_first->run;
        lane->lane = group_lanes++;
        group_tail = lane;
        if (!lane->lane_next)
            break;
    }
}

static int launch(const char *fn, struct tdm_request *req, TDM_Request *request);

int tdm_group_end(const char *fn, int rc, void *memory, TDM_Request *request)
{
    struct tdm_request *whole = group_first;
    making.grouping = 0;
    group_first = NULL;
    group_tail = NULL;
    if (!whole) {
        free(memory);
        return rc;
    }
    whole->owned_memory = memory;
    whole->run.lanes_running = group_lanes;
    if (rc != MPI_SUCCESS) { /* the chunks started give back their tags with the request */
        tdm_request_free(whole);
        return rc;
    }
    return launch(fn, whole, request);
}

/* A built call starts, or becomes an inactive persistent request (or a chunk of a call in chunks). */
static int launch(const char *fn, struct tdm_request *req, TDM_Request *request)
{
    if (making.grouping) {
        group_add(req);
        *request = req;
        return MPI_SUCCESS;
    }
    if (making.building_persistent) {
        int rc = tdm_persistent_keep(req);
        if (rc == MPI_ERR_NO_MEM)
            return abandon(req, tdm_error(fn, rc, "out of memory for the persistent request's tags"));
        if (rc != MPI_SUCCESS)
            return abandon(req, tdm_error(fn, rc, "the tag kept for persistent requests on the communicator whose "
                                                  "turn it is (they go in turn) is still held: free the persistent "
                                                  "requests made that many _init calls ago (TDM_Request_free)"));
    } else {
        tdm_agent_start(&req->run);
    }
    *request = req;
    return MPI_SUCCESS;
}


void tdm_coll_on_group(struct tdm_shadow *group) { making.on_group = group; }
struct tdm_shadow *tdm_coll_group(void) { return making.on_group; }

/* Calls another process serves (handoff.h): none unless set. */
static const tdm_handoff *handoff;

void tdm_handoff_set(const tdm_handoff *h)
{
    handoff = h;
    tdm_express_set_handoff(h);
}

/* The application's side of a call another process serves (a dedicated collective process): one
 * schedule, never cached (its shadow is the link's, not the communicator's). */
static int handoff_start(const char *fn, tdm_coll_args *a, const tdm_sched_key *key, MPI_Comm comm,
                         struct tdm_request *req, int tag, void *via, TDM_Request *request)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tdm_sched_init(&req->run.sched, handoff->name(a), rank, size);
    req->link = req->run.shadow;
    int rc = handoff->build(req, a, via, making.building_persistent);
    /* kept, once done, in its communicator's cache, if the build allows it (its shadow held meanwhile) */
    tdm_shadow *home = key && req->cacheable && !making.grouping ? tdm_shadow_lookup(comm) : NULL;
    req->cacheable = 0;
    if (rc == MPI_SUCCESS && home) {
        req->key = *key;
        req->cacheable = tdm_sched_cache_admits(req);
        if (req->cacheable) {
            req->cache_home = home;
            tdm_shadow_hold(home);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = tdm_exec_init(&req->run.exec, &req->run.sched, MPI_COMM_NULL, tag);
    if (rc == MPI_ERR_COUNT)
        return abandon(req, tdm_error(fn, rc, "a block of more than INT_MAX bytes would travel to or from the dedicated "
                                              "collective process in one message (the job stops)"));
    if (rc != MPI_SUCCESS)
        return abandon(req, tdm_error(fn, rc, "out of memory building the call to the dedicated collective process"));
    if (tdm_global.dump_schedules)
        tdm_request_dump(req, stderr);
    return launch(fn, req, request);
}

/* Starts a call whose arguments were checked. key: the call's raw arguments if its schedule may be
 * cached (see sched_cache.h), else NULL. */
static int start(const char *fn, tdm_coll_args *a, const tdm_sched_key *key, MPI_Comm comm,
                 TDM_Request *request)
{
    tdm_shadow *shadow = making.on_group;
    /* a call a dedicated collective process serves runs on the link to it (handoff.h) */
    void *via = NULL;
    int handed_off = !making.on_group && handoff ? handoff->serves(a, comm, &shadow, &via) : 0;
    if (handed_off < 0)
        return tdm_error(fn, MPI_ERR_COMM, "the communicator holds dedicated collective processes, which never call "
                                           "(argument comm): use TDM_Comm_world() or one made from it");
    int rc = handed_off || making.on_group ? MPI_SUCCESS : tdm_shadow_get(comm, &shadow);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating Tandem's private communicator", rc);
    if (making.on_group) { /* the group's ranks, not the communicator's: one schedule, not cached */
        a->rank = making.on_group->rank;
        a->size = making.on_group->size;
        key = NULL;
    }
    struct tdm_request *req = tdm_request_alloc();
    if (!req)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the request");
    req->kind = a->kind;
    if (!handed_off && (a->kind == TDM_COLL_ALLREDUCE || a->kind == TDM_COLL_ALLGATHER ||
                        a->kind == TDM_COLL_REDUCE_SCATTER || a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK))
        tdm_torus_of(comm, a); /* for the torus_bucket algorithms */
    /* The tag first: every rank takes one per call, even if this rank then fails to start, so that
     * the ranks' sequence numbers never drift apart. */
    int tag;
    rc = tdm_shadow_claim_tag(shadow, &req->run.tag_hold, &tag);
    if (rc != MPI_SUCCESS) {
        tdm_request_free(req);
        return tdm_mpi_error(fn, "completing earlier collectives to reuse their tag", rc);
    }
    req->run.shadow = shadow;
    a->nodes = handed_off || making.on_group ? NULL : shadow->layout;
    if ((rc = hold_types(req, a)) != MPI_SUCCESS)
        return abandon(req, tdm_mpi_error(fn, "duplicating a derived datatype", rc));
    if ((a->kind == TDM_COLL_ALLTOALLW || a->kind == TDM_COLL_NEIGHBOR_ALLTOALLW) &&
        (rc = tdm_hold_typed_blocks(req, a)) != MPI_SUCCESS)
        return abandon(req, tdm_mpi_error(fn, "holding the datatypes of the blocks", rc));
    if (a->op != MPI_OP_NULL && !tdm_op_is_predefined(a->op)) { /* the program may free it at once */
        if ((rc = tdm_op_hold(a->op)) != MPI_SUCCESS)
            return abandon(req, tdm_error(fn, rc, "out of memory for the request"));
        req->held_op = a->op;
        req->holds_op = 1;
    }
    /* -1 unless in split-tree mode; the chunks of a call are lanes, never split (split schedules are trees) */
    a->split_levels = making.grouping || making.on_group ? -1 : tdm_split_levels_for(a->size);
    if (handed_off)
        return handoff_start(fn, a, key, comm, req, tag, via, request);
    const tdm_algorithm *alg = tdm_select(a);
    if (alg->needs & TDM_NEEDS_NODES)
        tdm_select_across_nodes(a);
    /* every lane holds a tag of its own: never more lanes than tags (TANDEM_TAG_RANGE tests wraps) */
    unsigned long tags = tdm_shadow_tags_at_once();
    int per_thread;
    /* the chunks of a call are its lanes, one each (chunked_calls.c counts their tags) */
    int most = making.grouping || making.on_group ? 1 : tags < TDM_MAX_LANES ? (int)tags : TDM_MAX_LANES;
    a->lanes = tdm_select_lanes(alg, a, most, &per_thread);
    a->lane = 0;
    if ((rc = build(fn, a, alg, req, tag)) != MPI_SUCCESS ||
        (rc = build_lanes(fn, a, alg, req, per_thread)) != MPI_SUCCESS)
        return abandon(req, rc);
    if (tdm_global.verbose) /* counted only when reported: an atomic add costs as much as a message */
        __atomic_add_fetch(&tdm_global.schedules_built, 1, __ATOMIC_RELAXED);
    if (key && a->lanes <= 1 && !making.grouping) {
        req->key = *key;
        req->cacheable = tdm_sched_cache_admits(req);
    }
    if (tdm_global.dump_schedules)
        tdm_request_dump(req, stderr);
    return launch(fn, req, request);
}

int tdm_coll_start(const char *fn, tdm_coll_args *a, MPI_Comm comm, TDM_Request *request)
{
    return start(fn, a, NULL, comm, request);
}

/* TANDEM_VERBOSE counts the schedules reused, TANDEM_DUMP_SCHEDULE prints them. */
static __attribute__((noinline, cold)) void report_reuse(const struct tdm_request *req)
{
    if (tdm_global.verbose)
        __atomic_add_fetch(&tdm_global.schedules_reused, 1, __ATOMIC_RELAXED);
    if (tdm_global.dump_schedules)
        tdm_sched_dump(&req->run.sched, stderr);
}

static int report_express(const struct tdm_request *req)
{
    if (tdm_global.verbose | tdm_global.dump_schedules)
        report_reuse(req);
    return MPI_SUCCESS;
}

/* A call seen for the first time (or whose schedule was not kept): checks its arguments, read from its
 * key, builds its schedule and starts it. */
typedef int (*new_call_fn)(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request);

/* Starts a call whose schedule may be cached: runs again the schedule of an identical earlier call if
 * one is kept (it passed every argument check already, so none is repeated), else new_call. The
 * arguments travel in the key, so that the common case, a repeated call, stays a short function. */
static int start_keyed(const char *fn, tdm_sched_key *key, MPI_Comm comm, TDM_Request *request,
                       new_call_fn new_call)
{
    key->settings_epoch = tdm_global.settings_epoch;
    tdm_shadow *shadow = NULL;
    if (tdm_global.initialized && request && !making.on_group) {
        shadow = tdm_shadow_lookup_memo(comm); /* never MPI_COMM_NULL's */
        if (!shadow && comm != MPI_COMM_NULL)
            shadow = tdm_shadow_lookup_attribute(comm);
    }
    /* a persistent call gets a schedule of its own (one a DCP carries holds a stream, not a call number) */
    int may_reuse = shadow && !making.grouping && !making.building_persistent;
    if (may_reuse && shadow->express && tdm_express_start(shadow, key, request))
        return report_express(*request);
    struct tdm_request *req = may_reuse ? tdm_sched_cache_take(shadow, key) : NULL;
    if (req && req->link) { /* handed off */
        if (tdm_agent_takes_answers() && tdm_express_adopt(shadow, req, request))
            return report_express(*request);
        if (!handoff->reuse(req)) { /* it cannot serve this call */
            tdm_request_release(req);
            req = NULL;
        }
    }
    if (!req)
        return new_call(fn, key, comm, request);
    tdm_request_revive(req);
    tdm_shadow *runs_on = shadow;
    if (req->link) { /* it runs on the link, and goes back to its communicator's cache */
        runs_on = req->link;
        req->cache_home = shadow;
        tdm_shadow_hold(shadow);
    }
    int tag;
    int rc = tdm_shadow_claim_tag(runs_on, &req->run.tag_hold, &tag);
    if (rc != MPI_SUCCESS) {
        tdm_request_free(req);
        return tdm_mpi_error(fn, "completing earlier collectives to reuse their tag", rc);
    }
    req->run.shadow = runs_on;
    tdm_exec_restart(&req->run.exec, tag);
    if (tdm_global.verbose | tdm_global.dump_schedules) /* one test on the common path */
        report_reuse(req);
    return launch(fn, req, request);
}

/* A call of one buffer with more data than a chunk runs in chunks (chunked_calls.h). */
static int in_chunks(const char *fn, const tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    return tdm_chunked_elementwise(fn, k->kind, k->sendbuf, k->recvbuf, k->count, k->datatype, k->op, k->root, comm,
                                   request);
}

/* Whether a call in blocks (gather, scatter, allgather, alltoall, the neighbour ones) has blocks
 * larger than a chunk, on the sides this rank reads (the others are 0 in a). */
int tdm_blocks_need_chunks(const tdm_coll_args *a)
{
    return tdm_data_needs_chunks(a->sendcount, a->stype.size) || tdm_data_needs_chunks(a->recvcount, a->rtype.size);
}

static int blocks_in_chunks(const char *fn, const tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    return tdm_chunked_blocks(fn, k->kind, k->sendbuf, k->sendcount, k->sendtype, k->recvbuf, k->recvcount,
                              k->recvtype, k->root, comm, request);
}

static int new_barrier(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_BARRIER, &a));
    return start(fn, &a, k, comm, request);
}

int tdm_ibarrier(const char *fn, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_BARRIER};
    return start_keyed(fn, &key, comm, request, new_barrier);
}

static int new_bcast(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_BCAST, &a));
    CHECK(tdm_check_count(fn, "count", k->count));
    CHECK(tdm_check_type(fn, "datatype", k->datatype, &a.dtype));
    CHECK(tdm_check_root(fn, k->root, a.size));
    CHECK(tdm_check_buffer(fn, "buffer", k->recvbuf, k->count, k->datatype));
    a.recvbuf = k->recvbuf;
    a.count = k->count;
    a.datatype = k->datatype;
    a.root = k->root;
    if (tdm_data_needs_chunks(k->count, a.dtype.size))
        return in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_ibcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_BCAST, .count = count, .datatype = datatype, .root = root, .recvbuf = buffer};
    return start_keyed(fn, &key, comm, request, new_bcast);
}

static int new_reduce(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_REDUCE, &a));
    CHECK(tdm_check_root(fn, k->root, a.size));
    if (a.rank != k->root && k->sendbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root only (argument sendbuf)");
    CHECK(tdm_check_reduction(fn, &a, k->sendbuf, k->recvbuf, k->count, k->datatype, k->op, k->count, a.rank == k->root));
    a.root = k->root;
    if (tdm_reduction_needs_chunks(k->count, a.dtype.size))
        return in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_ireduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_REDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .datatype = datatype, .op = op, .root = root};
    return start_keyed(fn, &key, comm, request, new_reduce);
}

static int new_allreduce(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_ALLREDUCE, &a));
    CHECK(tdm_check_reduction(fn, &a, k->sendbuf, k->recvbuf, k->count, k->datatype, k->op, k->count, 1));
    if (tdm_reduction_needs_chunks(k->count, a.dtype.size))
        return in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_iallreduce(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_ALLREDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .datatype = datatype, .op = op};
    return start_keyed(fn, &key, comm, request, new_allreduce);
}

static int new_scan(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_SCAN, &a));
    CHECK(tdm_check_reduction(fn, &a, k->sendbuf, k->recvbuf, k->count, k->datatype, k->op, k->count, 1));
    if (tdm_reduction_needs_chunks(k->count, a.dtype.size))
        return in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_iscan(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_SCAN, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .datatype = datatype, .op = op};
    return start_keyed(fn, &key, comm, request, new_scan);
}

static int new_exscan(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_EXSCAN, &a));
    /* rank 0's k->recvbuf is not significant: MPI leaves it undefined */
    CHECK(tdm_check_reduction(fn, &a, k->sendbuf, k->recvbuf, k->count, k->datatype, k->op, k->count, a.rank > 0));
    if (tdm_reduction_needs_chunks(k->count, a.dtype.size))
        return in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_iexscan(const char *fn, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_EXSCAN, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .datatype = datatype, .op = op};
    return start_keyed(fn, &key, comm, request, new_exscan);
}

int tdm_ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_REDUCE_SCATTER, &a));
    CHECK(tdm_check_counts(fn, "recvcounts", recvcounts, NULL, (tdm_displs){0}, a.size));
    long long total = 0;
    for (int i = 0; i < a.size; i++)
        total += recvcounts[i];
    CHECK(tdm_check_type(fn, "datatype", datatype, &a.dtype));
    if (tdm_reduction_needs_chunks(total, a.dtype.size)) {
        MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t)a.size);
        if (!counts)
            return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the counts of the call");
        for (int i = 0; i < a.size; i++)
            counts[i] = recvcounts[i];
        int rc = tdm_chunked_reduce_scatter(fn, TDM_COLL_REDUCE_SCATTER, sendbuf, recvbuf, counts, 0, datatype, op,
                                            comm, request);
        free(counts);
        return rc;
    }
    if (total > 0x7fffffff) /* an empty datatype's */
        return tdm_error(fn, MPI_ERR_COUNT, "the recvcounts add up to more than INT_MAX (argument recvcounts)");
    CHECK(tdm_check_reduction(fn, &a, sendbuf, recvbuf, (int)total, datatype, op, recvcounts[a.rank], 1));
    a.recvcounts = recvcounts;
    return start(fn, &a, NULL, comm, request);
}

static int new_reduce_scatter_block(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_REDUCE_SCATTER_BLOCK, &a));
    CHECK(tdm_check_count(fn, "recvcount", k->count));
    CHECK(tdm_check_type(fn, "datatype", k->datatype, &a.dtype));
    if (tdm_reduction_needs_chunks((MPI_Count)k->count * a.size, a.dtype.size))
        return tdm_chunked_reduce_scatter(fn, TDM_COLL_REDUCE_SCATTER_BLOCK, k->sendbuf, k->recvbuf, NULL, k->count,
                                          k->datatype, k->op, comm, request);
    if ((long long)k->count * a.size > 0x7fffffff) /* an empty datatype's */
        return tdm_error(fn, MPI_ERR_COUNT, "recvcount times the communicator size exceeds INT_MAX (argument recvcount)");
    CHECK(tdm_check_reduction(fn, &a, k->sendbuf, k->recvbuf, k->count * a.size, k->datatype, k->op, k->count, 1));
    a.count = k->count; /* the algorithms read the blocks from recvcounts, filled at start */
    return start(fn, &a, k, comm, request);
}

int tdm_ireduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_REDUCE_SCATTER_BLOCK, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = recvcount, .datatype = datatype, .op = op};
    return start_keyed(fn, &key, comm, request, new_reduce_scatter_block);
}

/* A v-collective's receive side: a type and the counts/displacements; the count checked is the sum. */
static int check_recv_side_v(const char *fn, tdm_coll_args *a, void *recvbuf, const int *counts,
                             tdm_displs displs, MPI_Datatype recvtype)
{
    CHECK(tdm_check_counts(fn, "recvcounts", counts, "displs", displs, a->size));
    CHECK(tdm_check_type(fn, "recvtype", recvtype, &a->rtype));
    int any = 0;
    for (int i = 0; i < a->size; i++)
        any |= counts[i] > 0;
    CHECK(tdm_check_buffer(fn, "recvbuf", recvbuf, any, recvtype));
    a->recvbuf = recvbuf;
    a->recvcounts = counts;
    a->rdispls = displs;
    a->recvtype = recvtype;
    return MPI_SUCCESS;
}

static int check_send_side_v(const char *fn, tdm_coll_args *a, const void *sendbuf, const int *counts,
                             tdm_displs displs, MPI_Datatype sendtype)
{
    if (sendbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument sendbuf)");
    CHECK(tdm_check_counts(fn, "sendcounts", counts, "sdispls", displs, a->size));
    CHECK(tdm_check_type(fn, "sendtype", sendtype, &a->stype));
    int any = 0;
    for (int i = 0; i < a->size; i++)
        any |= counts[i] > 0;
    CHECK(tdm_check_buffer(fn, "sendbuf", sendbuf, any, sendtype));
    a->sendbuf = sendbuf;
    a->sendcounts = counts;
    a->sdispls = displs;
    a->sendtype = sendtype;
    return MPI_SUCCESS;
}

/* In place, the receive side describes the rank's own block too. */
static void send_side_from_recv_side(tdm_coll_args *a)
{
    a->sendcount = a->recvcount;
    a->sendtype = a->recvtype;
    a->stype = a->rtype;
}

static int new_gather(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_GATHER, &a));
    CHECK(tdm_check_root(fn, k->root, a.size));
    int is_root = a.rank == k->root;
    CHECK(tdm_check_send_side(fn, &a, k->sendbuf, k->sendcount, k->sendtype, is_root));
    if (is_root) {
        CHECK(tdm_check_recv_side(fn, &a, k->recvbuf, k->recvcount, k->recvtype, 0));
        if (a.in_place)
            send_side_from_recv_side(&a);
    }
    a.root = k->root;
    if (tdm_blocks_need_chunks(&a))
        return blocks_in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_igather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_GATHER, .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype, .root = root};
    return start_keyed(fn, &key, comm, request, new_gather);
}

int tdm_igatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_GATHERV, &a));
    CHECK(tdm_check_root(fn, root, a.size));
    int is_root = a.rank == root;
    CHECK(tdm_check_send_side(fn, &a, sendbuf, sendcount, sendtype, is_root));
    if (is_root) {
        if (recvbuf == MPI_IN_PLACE)
            return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument recvbuf)");
        CHECK(check_recv_side_v(fn, &a, recvbuf, recvcounts, displs, recvtype));
    }
    a.root = root;
    return start(fn, &a, NULL, comm, request);
}

static int new_scatter(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_SCATTER, &a));
    CHECK(tdm_check_root(fn, k->root, a.size));
    int is_root = a.rank == k->root;
    CHECK(tdm_check_recv_side(fn, &a, k->recvbuf, k->recvcount, k->recvtype, is_root));
    if (is_root) {
        CHECK(tdm_check_send_side(fn, &a, k->sendbuf, k->sendcount, k->sendtype, 0));
        if (a.in_place) { /* the k->root's own block stays in k->sendbuf */
            a.recvcount = a.sendcount;
            a.recvtype = a.sendtype;
            a.rtype = a.stype;
        }
    }
    a.root = k->root;
    if (tdm_blocks_need_chunks(&a))
        return blocks_in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_iscatter(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_SCATTER, .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype, .root = root};
    return start_keyed(fn, &key, comm, request, new_scatter);
}

int tdm_iscatterv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs displs,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_SCATTERV, &a));
    CHECK(tdm_check_root(fn, root, a.size));
    int is_root = a.rank == root;
    CHECK(tdm_check_recv_side(fn, &a, recvbuf, recvcount, recvtype, is_root));
    if (is_root)
        CHECK(check_send_side_v(fn, &a, sendbuf, sendcounts, displs, sendtype));
    a.root = root;
    return start(fn, &a, NULL, comm, request);
}

/* Allgather and alltoall take the same arguments and the same checks (their kind is in the key). */
static int new_allgather_or_alltoall(const char *fn, tdm_sched_key *k, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, k->kind, &a));
    CHECK(tdm_check_send_side(fn, &a, k->sendbuf, k->sendcount, k->sendtype, 1));
    CHECK(tdm_check_recv_side(fn, &a, k->recvbuf, k->recvcount, k->recvtype, 0));
    if (a.in_place)
        send_side_from_recv_side(&a);
    else
        CHECK(tdm_check_not_aliased(fn, k->sendbuf, k->recvbuf, k->sendcount));
    if (tdm_blocks_need_chunks(&a))
        return blocks_in_chunks(fn, k, comm, request);
    return start(fn, &a, k, comm, request);
}

int tdm_iallgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                   TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_ALLGATHER, .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype};
    return start_keyed(fn, &key, comm, request, new_allgather_or_alltoall);
}

int tdm_iallgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], tdm_displs displs, MPI_Datatype recvtype,
                    MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_ALLGATHERV, &a));
    CHECK(tdm_check_send_side(fn, &a, sendbuf, sendcount, sendtype, 1));
    if (recvbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument recvbuf)");
    CHECK(check_recv_side_v(fn, &a, recvbuf, recvcounts, displs, recvtype));
    if (a.in_place) {
        a.sendcount = recvcounts[a.rank];
        a.sendtype = a.recvtype;
        a.stype = a.rtype;
    } else {
        CHECK(tdm_check_not_aliased(fn, sendbuf, recvbuf, sendcount));
    }
    return start(fn, &a, NULL, comm, request);
}

int tdm_ialltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                  TDM_Request *request)
{
    tdm_sched_key key = {.kind = TDM_COLL_ALLTOALL, .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype};
    return start_keyed(fn, &key, comm, request, new_allgather_or_alltoall);
}

int tdm_ialltoallv(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                   MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_ALLTOALLV, &a));
    if (recvbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument recvbuf)");
    CHECK(check_recv_side_v(fn, &a, recvbuf, recvcounts, rdispls, recvtype));
    if (sendbuf == MPI_IN_PLACE) {
        a.in_place = 1;
        a.sendtype = a.recvtype;
        a.stype = a.rtype;
    } else {
        CHECK(check_send_side_v(fn, &a, sendbuf, sendcounts, sdispls, sendtype));
        CHECK(tdm_check_not_aliased(fn, sendbuf, recvbuf, 1));
    }
    return start(fn, &a, NULL, comm, request);
}

int tdm_ialltoallw(const char *fn, const void *sendbuf, const int sendcounts[], tdm_displs sdispls,
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], tdm_displs rdispls,
                   const MPI_Datatype recvtypes[], MPI_Comm comm, TDM_Request *request)
{
    tdm_coll_args a;
    CHECK(tdm_check_call(fn, comm, request, TDM_COLL_ALLTOALLW, &a));
    if (recvbuf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument recvbuf)");
    CHECK(tdm_check_typed_blocks(fn, "recv", recvbuf, recvcounts, rdispls, recvtypes, a.size));
    if (sendbuf == MPI_IN_PLACE) {
        a.in_place = 1;
    } else {
        CHECK(tdm_check_typed_blocks(fn, "send", sendbuf, sendcounts, sdispls, sendtypes, a.size));
        CHECK(tdm_check_not_aliased(fn, sendbuf, recvbuf, 1));
        a.sendbuf = sendbuf;
        a.sendcounts = sendcounts;
        a.sdispls = sdispls;
        a.sendtypes = sendtypes;
    }
    a.recvbuf = recvbuf;
    a.recvcounts = recvcounts;
    a.rdispls = rdispls;
    a.recvtypes = recvtypes;
    return start(fn, &a, NULL, comm, request);
}

/* The public non-blocking functions. */
int TDM_Ibarrier(MPI_Comm comm, TDM_Request *request) { return tdm_ibarrier("TDM_Ibarrier", comm, request); }

int TDM_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ibcast("TDM_Ibcast", buffer, count, datatype, root, comm, request);
}

int TDM_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, TDM_Request *request)
{
    return tdm_ireduce("TDM_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int TDM_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, TDM_Request *request)
{
    return tdm_iallreduce("TDM_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request);
}

int TDM_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request)
{
    return tdm_igather("TDM_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request);
}

int TDM_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                 TDM_Request *request)
{
    return tdm_igatherv("TDM_Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs), recvtype,
                        root, comm, request);
}

int TDM_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, TDM_Request *request)
{
    return tdm_iscatter("TDM_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request);
}

int TDM_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  TDM_Request *request)
{
    return tdm_iscatterv("TDM_Iscatterv", sendbuf, sendcounts, tdm_displs_of_ints(displs), sendtype, recvbuf, recvcount,
                         recvtype, root, comm, request);
}

int TDM_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    return tdm_iallgather("TDM_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          comm, request);
}

int TDM_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    TDM_Request *request)
{
    return tdm_iallgatherv("TDM_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, tdm_displs_of_ints(displs),
                           recvtype, comm, request);
}

int TDM_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ireduce_scatter("TDM_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm,
                               request);
}

int TDM_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ireduce_scatter_block("TDM_Ireduce_scatter_block", sendbuf, recvbuf, recvcount, datatype, op,
                                     comm, request);
}

int TDM_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, TDM_Request *request)
{
    return tdm_ialltoall("TDM_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         request);
}

int TDM_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm, TDM_Request *request)
{
    return tdm_ialltoallv("TDM_Ialltoallv", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtype, recvbuf, recvcounts,
                          tdm_displs_of_ints(rdispls), recvtype, comm, request);
}

int TDM_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm, TDM_Request *request)
{
    return tdm_ialltoallw("TDM_Ialltoallw", sendbuf, sendcounts, tdm_displs_of_ints(sdispls), sendtypes, recvbuf, recvcounts,
                          tdm_displs_of_ints(rdispls), recvtypes, comm, request);
}

int TDM_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              TDM_Request *request)
{
    return tdm_iscan("TDM_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request);
}

int TDM_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, TDM_Request *request)
{
    return tdm_iexscan("TDM_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request);
}

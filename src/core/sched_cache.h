/*
 * The schedule cache. Iterative codes repeat the same collective call (same buffers, counts, types,
 * op, root) thousands of times; building its schedule again each time costs more than a small
 * message takes to move. A finished request whose schedule may be reused is kept, whole, in its
 * communicator's shadow, and an identical later call runs it again: no selection, no build, no
 * allocation.
 *
 * Only calls whose schedule depends on nothing but the key below are kept: predefined datatypes and
 * ops (a derived type or user op handle may be freed and its value reused for another one), no
 * per-rank count arrays, and small temporaries (a cached schedule keeps its buffers).
 */
#ifndef TANDEM_SCHED_CACHE_H
#define TANDEM_SCHED_CACHE_H

#include "../schedule/coll_args.h"
#include "../engine/shadow_comm.h"

/* Schedules with more temporary memory than this are not kept. */
#define TDM_SCHED_CACHE_MAX_TMP_BYTES (64 * 1024)

/* A call's own arguments (those of its collective; the others 0), besides the communicator: an
 * identical key means an identical schedule. */
typedef struct tdm_sched_key {
    tdm_coll_kind kind;
    int count, root, sendcount, recvcount;
    unsigned settings_epoch; /* changes whenever a selection setting does (here, it fills what would be
                                padding: the key is compared a word at a time) */
    MPI_Datatype datatype, sendtype, recvtype;
    MPI_Op op;
    const void *sendbuf; /* as passed: MPI_IN_PLACE included */
    void *recvbuf;
} tdm_sched_key;

/* Whether two calls are the same (their schedule is). */
static inline int tdm_sched_key_equal(const tdm_sched_key *x, const tdm_sched_key *y)
{
    /* in the fields' order, so that the compiler compares neighbouring ints as one word */
    return x->kind == y->kind && x->count == y->count && x->root == y->root && x->sendcount == y->sendcount &&
           x->recvcount == y->recvcount && x->settings_epoch == y->settings_epoch &&
           x->datatype == y->datatype && x->sendtype == y->sendtype && x->recvtype == y->recvtype &&
           x->op == y->op && x->sendbuf == y->sendbuf && x->recvbuf == y->recvbuf;
}

struct tdm_request;

/* Whether a request just built, with its key set, may be kept once finished. */
int tdm_sched_cache_admits(const struct tdm_request *req);
/* A kept request for this call, taken out of the cache, or NULL. */
struct tdm_request *tdm_sched_cache_take(tdm_shadow *sh, const tdm_sched_key *key);
/* Keeps a finished request if its schedule may be reused; 1 if kept (it then belongs to the cache). */
int tdm_sched_cache_keep(struct tdm_request *req);
/* Frees every kept request of a shadow (the communicator is going away). */
void tdm_sched_cache_clear(tdm_shadow *sh);

#endif

#include "shadow_comm.h"

#include "../base/smpi_support.h"
#include "node.h"
#include "shadow_slots.h"

#include <pthread.h>
#include <stdlib.h>

static int keyval = MPI_KEYVAL_INVALID;
static tdm_shadow *registry, *pending_list;
static tdm_shadow_hooks hooks; /* the layer above's, from tdm_shadow_module_init */
/* MPI's largest tag (a shadow with a duplicate of its own keeps it for itself), and the testing
 * override of the calls' tag range (0: none): set at TDM_Init (tdm_shadow_set_tag_range). */
static unsigned long tag_ub = 32767, testing_range;
/* The window first spans this many sequence numbers (fewer if the tag range is smaller). */
#define FIRST_WINDOW 64ul

/* The largest window: the largest power of two within the tag range, so that two calls in the window
 * never share a tag. */
static unsigned long largest_window(unsigned long tags)
{
    unsigned long w = 1;
    while (w * 2 <= tags)
        w *= 2;
    return w;
}

/* This thread is inside an MPI call that may complete a duplication request, or an agreement's reduction
 * on the user's communicator (per thread: several application threads may call Tandem). */
static __thread int testing_dups;
/* The registry changes under this lock: application threads may create and free shadows at once. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* The lookup memo (see tdm_shadow_lookup); generation 0 never matches. */
__thread tdm_shadow_memo tdm_shadow_last TDM_TLS_INITIAL_EXEC;

void tdm_shadow_testing_dups(int on) { testing_dups = on; }

/* Duplicates that became ready so far (atomic): requests waiting for one may run now. */
static unsigned long readied;

unsigned long tdm_shadow_readied(void) { return __atomic_load_n(&readied, __ATOMIC_ACQUIRE); }

static void pending_remove(tdm_shadow *sh)
{
    pthread_mutex_lock(&registry_lock);
    if (sh->pending) {
        if (sh->pending_prev)
            sh->pending_prev->pending_next = sh->pending_next;
        else
            pending_list = sh->pending_next;
        if (sh->pending_next)
            sh->pending_next->pending_prev = sh->pending_prev;
        sh->pending = 0;
    }
    pthread_mutex_unlock(&registry_lock);
}

/* Tandem reports MPI's errors on its own traffic as return codes. */
static void mark_ready(tdm_shadow *sh)
{
    pending_remove(sh);
    if (sh->slot < 0) /* the shared communicator has its handler from the start */
        MPI_Comm_set_errhandler(sh->comm, MPI_ERRORS_RETURN);
    __atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&readied, 1, __ATOMIC_ACQ_REL);
}

static int creation_done(tdm_shadow *sh, int *error);

/* Waits for the shadow's creation (its duplication and its ring's agreement, or its slot's agreement)
 * to end. */
static void wait_creation(tdm_shadow *sh)
{
    int error = MPI_SUCCESS;
    MPI_Request *requests[2] = {&sh->creating, &sh->agreeing_ring};
    for (int i = 0; i < 2; i++) {
        int rc = *requests[i] == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_Wait(requests[i], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            tdm_shadow_failed(sh, rc);
            return;
        }
    }
    creation_done(sh, &error);
}

void tdm_shadow_destroy(tdm_shadow *sh)
{
    __atomic_add_fetch(&tdm_global.shadow_generation, 1, __ATOMIC_SEQ_CST);
    hooks.free_cache(sh);
    if (sh->user == MPI_COMM_NULL) { /* a group shadow: its communicator is borrowed, and it is on no registry */
        free(sh->peers);
        free(sh->window);
        free(sh);
        return;
    }
    if (!sh->ready && sh->error == MPI_SUCCESS) /* finalizing: the creation ends first */
        wait_creation(sh);
    if (sh->agreeing_ring != MPI_REQUEST_NULL) /* the duplication failed: the reduction into sh ends first */
        MPI_Wait(&sh->agreeing_ring, MPI_STATUS_IGNORE);
    if (sh->peers) { /* in a slot of the shared communicator: the slot is free again */
        tdm_slots_release(sh);
        free(sh->peers);
    } else if (sh->comm != MPI_COMM_NULL && sh->error == MPI_SUCCESS) {
        /* A duplication that failed left no communicator to free (MPICH hands back a handle that its
         * MPI_Comm_free crashes on). */
        tdm_slots_release_ring(sh);
        MPI_Comm_free(&sh->comm);
    }
    pending_remove(sh);
    free(sh->layout);
    pthread_mutex_lock(&registry_lock);
    if (sh->prev)
        sh->prev->next = sh->next;
    else
        registry = sh->next;
    if (sh->next)
        sh->next->prev = sh->prev;
    pthread_mutex_unlock(&registry_lock);
    free(sh->persistent_used);
    free(sh->window);
    free(sh);
}

/* The user freed the communicator (or Tandem is finalizing): free the shadow now, or when the
 * collectives still running on it complete (MPI lets pending operations finish). */
static int on_user_comm_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)key, (void)extra;
    tdm_shadow *sh = value;
    (void)comm;
    /* every thread's memo of this communicator expires: MPI may give its handle to a new one */
    __atomic_add_fetch(&tdm_global.shadow_generation, 1, __ATOMIC_SEQ_CST);
    /* The duplication, or a slot's agreement, reads the user's communicator: it must end before that one
     * goes away (Open MPI calls this from MPI_Comm_free at once). MPICH instead calls it when the
     * duplication or reduction completes, possibly inside the very MPI call of Tandem that tests it:
     * then it must not be waited for again; that call finishes it. */
    if (!sh->ready && sh->error == MPI_SUCCESS && !testing_dups)
        wait_creation(sh);
    hooks.user_freeing(sh);
    if (sh->outstanding > 0 || (!sh->ready && sh->error == MPI_SUCCESS))
        sh->user_freed = 1;
    else
        tdm_shadow_destroy(sh);
    return MPI_SUCCESS;
}

int tdm_shadow_module_init(const tdm_shadow_hooks *layer_above, int own_duplicates, int own_slots)
{
    hooks = *layer_above;
    if (keyval != MPI_KEYVAL_INVALID)
        return MPI_SUCCESS;
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_user_comm_delete, &keyval, NULL);
    if (rc == MPI_SUCCESS) /* slots of at least the tags MPI promises a communicator */
        rc = tdm_slots_init(tag_ub, 32768, !own_duplicates && !TDM_SIMULATED, own_slots);
    return rc;
}

void tdm_shadow_module_finalize(void)
{
    tdm_shadow_last = (tdm_shadow_memo){MPI_COMM_NULL, NULL, 0};
    __atomic_add_fetch(&tdm_global.shadow_generation, 1, __ATOMIC_SEQ_CST);
    /* Creations still under way (a call handed to a DCP does not wait for its communicator's) end first,
     * tested as calls test them: MPICH may run the attribute callback of a communicator the user freed
     * inside that test, and the callback must not wait for the creation again. */
    while (pending_list) {
        tdm_shadow *sh = pending_list;
        int error = MPI_SUCCESS;
        while (!tdm_shadow_ready(sh, &error) && error == MPI_SUCCESS)
            ;
        if (error != MPI_SUCCESS && sh->pending)
            tdm_shadow_failed(sh, error);
    }
    while (registry) {
        tdm_shadow *sh = registry;
        if (!sh->user_freed)
            MPI_Comm_delete_attr(sh->user, keyval); /* runs on_user_comm_delete */
        if (registry == sh) /* still there: collectives never completed, free it anyway */
            tdm_shadow_destroy(sh);
    }
    if (keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_free_keyval(&keyval);
    keyval = MPI_KEYVAL_INVALID;
    tdm_slots_finalize();
}

tdm_shadow *tdm_shadow_first_pending(void) { return pending_list; }

void tdm_shadow_slot_counts(unsigned long *common, unsigned long *own)
{
    tdm_slots_counts(common, own);
}

/* range > 0: a testing override; 0: MPI_TAG_UB tags, 0 .. MPI_TAG_UB-1 (MPI_TAG_UB is the largest
 * valid tag; the standard promises at least 32767). */
void tdm_shadow_set_tag_range(int range)
{
    void *value;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    tag_ub = found ? (unsigned long)*(int *)value : 32767ul;
    testing_range = range > 0 ? (unsigned long)range : 0;
}

/* Of a shadow's `total` tags, those kept for persistent requests (a quarter), and those its calls take
 * in sequence (the rest, or the testing range). */
static unsigned long persistent_share(unsigned long total) { return total >= 1024 ? total / 4 : 0; }
static unsigned long sequence_tags(unsigned long total)
{
    unsigned long tags = total - persistent_share(total);
    return testing_range && testing_range < tags ? testing_range : tags;
}

/* The duplication does not block (MPI_Comm_idup): the first collective on a communicator must not wait
 * for the other ranks to reach it. The agreement on its ring starts right after it, on the user's
 * communicator too, so that both take the same place among its collectives on every rank and MPI alone
 * moves them on (a second step started once the duplicate is made would wait for Tandem to look: ranks
 * waiting for two communicators' creations in opposite orders would wait for each other). SMPI has no
 * MPI_Comm_idup: there the first collective on a communicator duplicates it blocking (so a program
 * whose ranks start it around a point-to-point exchange between them would deadlock in simulation
 * only). */
static int start_duplication(MPI_Comm comm, tdm_shadow *sh, int with_ring)
{
    if (with_ring)
        tdm_slots_duplicate_ring_reserve(sh);
#ifdef TANDEM_SMPI
    int rc = MPI_Comm_dup(comm, &sh->comm);
#else
    int rc = MPI_Comm_idup(comm, &sh->comm, &sh->creating);
#endif
    if (rc == MPI_SUCCESS && with_ring)
        rc = tdm_slots_duplicate_ring_agree(sh, &sh->agreeing_ring);
    if (rc == MPI_SUCCESS && TDM_SIMULATED) {
        wait_creation(sh);
        rc = sh->error;
    }
    return rc;
}

/* A shadow's memory, with its window of tag holders, for calls' tags 0 .. tags-1, and persistent tags
 * above them up to `total` (at least tags). */
static tdm_shadow *new_shadow(unsigned long tags, unsigned long total)
{
    tdm_shadow *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    sh->bulk = MPI_COMM_NULL;
    sh->creating = sh->agreeing_ring = MPI_REQUEST_NULL;
    sh->tags = tags;
    sh->persistent_tags = total > tags ? persistent_share(total) : 0;
    sh->persistent_base = total - sh->persistent_tags;
    sh->window_mask = (tags < FIRST_WINDOW ? largest_window(tags) : FIRST_WINDOW) - 1;
    sh->window = calloc(sh->window_mask + 1, sizeof *sh->window);
    if (!sh->window) {
        free(sh);
        return NULL;
    }
    return sh;
}

int tdm_shadow_create_group(MPI_Comm comm, int rank, int size, int *peers, int tag_base, unsigned long tags,
                            tdm_shadow **out)
{
    unsigned long calls = testing_range && testing_range < tags ? testing_range : tags;
    tdm_shadow *sh = new_shadow(calls, calls); /* no persistent requests among DCPs */
    if (!sh)
        return MPI_ERR_NO_MEM;
    sh->user = MPI_COMM_NULL;
    sh->comm = comm;
    sh->slot = -1;
    sh->rank = rank;
    sh->size = size;
    sh->peers = peers;
    sh->tag_base = tag_base;
    sh->ready = 1;
    *out = sh;
    return MPI_SUCCESS;
}


/* The layout of comm's ranks on nodes, from their world ranks (world: NULL to translate them here);
 * NULL where every rank is alone on its node, or comm holds processes of another world. */
static tdm_comm_nodes *layout_of(MPI_Comm comm, int size, const int *world)
{
    int *translated = NULL;
    if (!world && !(world = translated = tdm_world_ranks(comm, size)))
        return NULL;
    tdm_comm_nodes *l = tdm_comm_nodes_make(size, world);
    free(translated);
    if (l && l->nnodes == size) { /* nothing shared: node-aware algorithms have nothing to do */
        free(l);
        l = NULL;
    }
    return l;
}

/* A shadow for comm: in a slot of the shared communicator where it can be (own 0), else with a
 * duplicate of its own. The slot's agreement, or the duplication, starts here, in comm's first
 * collective. */
static int create_shadow(MPI_Comm comm, int own, tdm_shadow **out)
{
    int size, rank, *peers = NULL;
    int rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    int in_slot = !own && tdm_slots_serve(comm, size, &peers);
    unsigned long total = in_slot ? tdm_slots_call_tags() : tag_ub; /* a duplicate's own tag: tag_ub */
    tdm_shadow *sh = new_shadow(sequence_tags(total), total);
    if (!sh) {
        free(peers);
        return MPI_ERR_NO_MEM;
    }
    sh->user = comm;
    sh->rank = rank;
    sh->size = size;
    sh->slot = -1;
    sh->layout = layout_of(comm, size, peers);
    if (in_slot) {
        sh->comm = tdm_slots_comm();
        sh->peers = peers;
        rc = tdm_slots_begin(sh, &sh->creating);
    } else {
        sh->comm = MPI_COMM_NULL;
        sh->own_tag = (int)tag_ub; /* above the calls' tags */
        rc = start_duplication(comm, sh, !own); /* a ring for a user's communicator (a DCP's link carries
                                                    no collective) */
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_attr(comm, keyval, sh);
    if (rc != MPI_SUCCESS) {
        if (sh->creating != MPI_REQUEST_NULL)
            MPI_Wait(&sh->creating, MPI_STATUS_IGNORE);
        if (sh->agreeing_ring != MPI_REQUEST_NULL)
            MPI_Wait(&sh->agreeing_ring, MPI_STATUS_IGNORE);
        if (in_slot)
            tdm_slots_release(sh);
        else
            tdm_slots_release_ring(sh);
        if (!in_slot && sh->comm != MPI_COMM_NULL)
            MPI_Comm_free(&sh->comm);
        free(sh->layout);
        free(sh->peers);
        free(sh->window);
        free(sh);
        return rc;
    }
    pthread_mutex_lock(&registry_lock);
    sh->next = registry;
    if (registry)
        registry->prev = sh;
    registry = sh;
    if (!sh->ready && sh->error == MPI_SUCCESS) {
        sh->pending = 1;
        sh->pending_next = pending_list;
        if (pending_list)
            pending_list->pending_prev = sh;
        pending_list = sh;
    }
    pthread_mutex_unlock(&registry_lock);
    *out = sh;
    return MPI_SUCCESS;
}

tdm_shadow *tdm_shadow_lookup_attribute(MPI_Comm comm)
{
    unsigned now = __atomic_load_n(&tdm_global.shadow_generation, __ATOMIC_ACQUIRE);
    void *value;
    int found = 0;
    if (MPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS || !found)
        return NULL;
    tdm_shadow_last = (tdm_shadow_memo){comm, value, now};
    return value;
}

int tdm_shadow_get(MPI_Comm comm, tdm_shadow **shadow)
{
    tdm_shadow *sh = tdm_shadow_lookup(comm);
    if (sh) {
        *shadow = sh;
        return MPI_SUCCESS;
    }
    return create_shadow(comm, 0, shadow);
}

int tdm_shadow_get_own(MPI_Comm comm, tdm_shadow **shadow)
{
    tdm_shadow *sh = tdm_shadow_lookup(comm);
    if (sh) {
        *shadow = sh;
        return sh->peers ? MPI_ERR_COMM : MPI_SUCCESS;
    }
    return create_shadow(comm, 1, shadow);
}

int tdm_shadow_fix_tag(tdm_shadow *sh, tdm_tag_hold *hold)
{
    if (sh->persistent_tags == 0)
        return MPI_SUCCESS;
    if (!sh->persistent_used && !(sh->persistent_used = calloc(sh->persistent_tags, 1)))
        return MPI_ERR_NO_MEM;
    unsigned long i = sh->persistent_next++ % sh->persistent_tags; /* counted on every rank alike */
    if (sh->persistent_used[i])
        return MPI_ERR_OTHER;
    sh->persistent_used[i] = 1;
    hold->fixed_tag = (int)(sh->persistent_base + i) + 1;
    return MPI_SUCCESS;
}

void tdm_shadow_unfix_tag(tdm_shadow *sh, tdm_tag_hold *hold)
{
    if (!hold->fixed_tag)
        return;
    sh->persistent_used[(unsigned long)hold->fixed_tag - 1 - sh->persistent_base] = 0;
    hold->fixed_tag = 0;
}

void tdm_shadow_failed(tdm_shadow *sh, int error)
{
    pending_remove(sh);
    sh->error = error;
    sh->creating = MPI_REQUEST_NULL;
    if (sh->peers)
        tdm_slots_abandon(sh);
    else
        tdm_slots_release_ring(sh);
}

const char *tdm_shadow_error_what(const tdm_shadow *sh)
{
    if (sh->error_what)
        return sh->error_what;
    return sh->peers ? "agreeing the communicator's slot of Tandem's private communicator (MPI_Iallreduce)"
                     : "creating Tandem's private duplicate of the communicator (MPI_Comm_idup; has MPI run out "
                       "of communicators?)";
}

/* The creation requests completed: a slot's agreement settles, or a duplicate's ring's (every rank
 * alike). */
static int creation_done(tdm_shadow *sh, int *error)
{
    if (sh->peers) {
        int rc = tdm_slots_settle(sh, &sh->error_what);
        if (rc != MPI_SUCCESS) {
            sh->error = *error = rc;
            return 0;
        }
    } else {
        tdm_slots_duplicate_ring_settle(sh);
    }
    mark_ready(sh);
    return 1;
}

int tdm_shadow_ready(tdm_shadow *sh, int *error)
{
    if (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE))
        return 1;
    if (sh->error != MPI_SUCCESS) { /* the duplication failed: so does every collective on it */
        *error = sh->error;
        return 0;
    }
    int done = 0;
    testing_dups = 1;
    int rc = MPI_Test(&sh->creating, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && done)
        rc = MPI_Test(&sh->agreeing_ring, &done, MPI_STATUS_IGNORE);
    testing_dups = 0;
    if (rc != MPI_SUCCESS) {
        tdm_shadow_failed(sh, rc);
        *error = rc;
        return 0;
    }
    return done && creation_done(sh, error);
}

unsigned long tdm_shadow_tags_at_once(void)
{
    unsigned long in_slot = tdm_slots_call_tags();
    return largest_window(sequence_tags(in_slot > 0 && in_slot < tag_ub ? in_slot : tag_ub));
}

int tdm_shadow_claims_free(const tdm_shadow *sh, int n)
{
    /* below the largest window every holder lies within it: the window grows instead */
    if (sh->window_mask + 1 < largest_window(sh->tags))
        return 1;
    for (int i = 0; i < n; i++)
        if (sh->window[(sh->next_seq + (unsigned long)i) & sh->window_mask])
            return 0;
    return 1;
}

/* Doubles the window, every call keeping its sequence number's slot in it; 0 if out of memory. */
static int grow_window(tdm_shadow *sh)
{
    unsigned long size = sh->window_mask + 1;
    tdm_tag_hold **grown = calloc(size * 2, sizeof *grown);
    if (!grown)
        return 0;
    for (unsigned long i = 0; i < size; i++)
        if (sh->window[i])
            grown[sh->window[i]->seq & (size * 2 - 1)] = sh->window[i];
    free(sh->window);
    sh->window = grown;
    sh->window_mask = size * 2 - 1;
    return 1;
}

/* Rare (cold), and out of line so that claiming stays short. The calls holding a tag lie within the
 * window_mask sequence numbers before seq, so in a window twice as large seq's slot is free; at the
 * largest window the call in it completes first. */
__attribute__((noinline, cold)) int tdm_shadow_free_slot(tdm_shadow *sh, unsigned long seq)
{
    if (sh->window_mask + 1 < largest_window(sh->tags) && grow_window(sh))
        return MPI_SUCCESS;
    tdm_tag_hold *taken = sh->window[seq & sh->window_mask];
    int rc = hooks.complete_tag_holder(taken);
    if (rc != MPI_SUCCESS)
        return rc;
    tdm_shadow_release(sh, taken); /* if its agent did not already */
    return MPI_SUCCESS;
}


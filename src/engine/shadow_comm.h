/*
 * Every user communicator Tandem runs on gets a private shadow, cached as an attribute of the user
 * communicator and freed with it: a slot of the tags of Tandem's one private communicator
 * (shadow_slots.h), or a duplicate of its own (MPI_Comm_idup) where slots cannot serve it. Either is
 * made without blocking, in the communicator's first collective. Tandem's messages never match the
 * application's. Each collective call takes the next sequence number, and its tag is the sequence
 * number modulo the tag range, so that concurrent collectives never cross.
 *
 * Tag wrap: a tag is reused only when this rank has no unfinished collective that holds it. The calls
 * holding a tag sit in a window indexed by sequence number, as large as the span of sequence numbers
 * they cover (a power of two, grown on demand up to the tag range). A call whose slot is still taken
 * grows the window, or, once it spans the tag range, progresses until the call in that slot completes
 * (see tdm_shadow_claim_tag). With a slot's tags (>= 1023) that wait comes only when a collective
 * still runs after more than half that many later ones started on its communicator.
 */
#ifndef TANDEM_SHADOW_COMM_H
#define TANDEM_SHADOW_COMM_H

#include <mpi.h>
#include <stdint.h>

#include "../base/smpi_support.h"
#include "../base/state.h"

/* Schedules kept per communicator: enough for the distinct calls an iterative solver repeats. */
#define TDM_SHADOW_CACHE_SLOTS 16

/* A collective's hold on its tag (part of its request). */
typedef struct tdm_tag_hold {
    unsigned long seq;         /* the call's sequence number on the communicator */
    int held;                  /* in the shadow's window */
    int fixed_tag;             /* a persistent request's own tag + 1, from its _init to its free (else 0) */
    unsigned starts;           /* a persistent request on its own tag: its starts so far */
} tdm_tag_hold;

/* The call's name, the same on every rank (the engine's tdm_exec.call): its sequence number, or for a
 * start of a persistent request on its own tag, that tag and the count of its starts. */
static inline uint64_t tdm_tag_hold_call(const tdm_tag_hold *hold)
{
    if (hold->fixed_tag)
        return (uint64_t)1 << 63 | (uint64_t)(unsigned)hold->fixed_tag << 32 | hold->starts;
    return hold->seq;
}

typedef struct tdm_shadow {
    MPI_Comm user;             /* the application's communicator (not owned) */
    MPI_Comm comm;             /* where its collectives run: the communicator every shadow shares, in
                                  a slot of its tags (shadow_slots.h), or a duplicate of its own */
    MPI_Comm bulk;             /* MPI_COMM_NULL, or a communicator of the same ranks for sends the
                                  schedules mark bulk (tdm_action.bulk; a DCP client's data): not owned */
    MPI_Request creating;      /* in flight: the duplicate's MPI_Comm_idup, or the slot's agreement */
    MPI_Request agreeing_ring; /* in flight: the agreement on a duplicate's ring (shadow_slots.h) */
    struct tdm_agreement *agreement; /* the agreement on its slot, while it runs */
    int slot;                  /* its slot of the shared communicator's tags; -1: none */
    int own_slot;              /* the slot is one of its rank 0's own (shadow_slots.h) */
    int ready;                 /* the duplicate is usable, or the slot agreed (read by the progress
                                  thread: atomic) */
    int error;                 /* the duplication or agreement failed with this MPI error */
    const char *error_what;    /* what ran out, if the agreement said (else NULL) */
    int rank, size;
    unsigned long next_seq;
    unsigned long tags;        /* the calls' tag range: tags 0 .. tags-1 */
    /* Persistent requests' own tags: persistent_base + 0 .. persistent_tags-1, handed out in init order
     * (persistent_next counts them), each taken (persistent_used) until its request is freed. */
    unsigned long persistent_base, persistent_tags, persistent_next;
    unsigned char *persistent_used;
    int next_tag;              /* next_seq modulo tags, kept without dividing */
    int outstanding;           /* requests started here and not yet freed (Wait/Test) */
    void *express;             /* the layer above's express call (src/core/express_calls.h): in flight,
                                  it holds no count in outstanding until the user frees the communicator */
    /* The calls holding a tag: that of sequence number q in window[q & window_mask]. Every such call
     * lies within the last window_mask + 1 sequence numbers. */
    tdm_tag_hold **window;
    unsigned long window_mask;
    int user_freed;            /* the user freed the communicator while requests were out */
    /* A shadow in a slot, or a group shadow (tdm_shadow_create_group: no user communicator): its
     * collectives run among peers[0..size-1], ranks of comm (not freed with it), with tags tag_base +
     * 0..tags-1. own_tag is the shadow's own, outside its calls' (a DCP client names a communicator
     * with it). */
    int *peers;
    int tag_base;
    int own_tag;
    /* How its ranks lie on nodes (NULL: one rank per node, or not known: a group shadow), and its rings
     * in the node's segment (NULL: its node-aware schedules move data over point-to-point). */
    struct tdm_comm_nodes *layout;
    struct tdm_shm_comm *shm;
    int *ring_world; /* a duplicate's ring: its ranks' world ranks */
    uint64_t ring_words[4]; /* the agreement on a duplicate's ring: this rank's words, then everyone's */
    unsigned long shm_tickets; /* calls with shm actions started on it (their places, shm_ring.h) */
    /* Finished schedules kept for reuse: the schedule cache's (src/core/sched_cache.c), opaque here and
     * freed through the hooks when the shadow goes. */
    void *cache[TDM_SHADOW_CACHE_SLOTS];
    int cache_victim;          /* the slot replaced next when all are taken */
    struct tdm_shadow *prev, *next; /* registry of live shadows */
    /* the shadows still being created (their creation request in flight), which a blocking wait gathers:
     * a list of its own, since a program may hold thousands of ready ones */
    struct tdm_shadow *pending_prev, *pending_next;
    int pending;
} tdm_shadow;

/* What the layer above hangs on a shadow, handed back to it: the collective holding a tag must complete
 * before its slot is taken again (tag wrap), and the kept schedules are freed with the shadow. */
typedef struct tdm_shadow_hooks {
    int (*complete_tag_holder)(tdm_tag_hold *hold); /* drives that collective to completion */
    void (*free_cache)(struct tdm_shadow *sh);      /* frees what sits in sh->cache */
    void (*user_freeing)(struct tdm_shadow *sh);    /* the user frees the communicator: calls in flight
                                                       that hold no count in outstanding take one */
} tdm_shadow_hooks;

/* At TDM_Init, on every rank of MPI_COMM_WORLD. Testing hooks: own_duplicates 1 gives every
 * communicator a duplicate of its own instead of a slot of the shared communicator; own_slots > 0 gives
 * each rank at most that many own slots (shadow_slots.h). */
int tdm_shadow_module_init(const tdm_shadow_hooks *hooks, int own_duplicates, int own_slots);
/* Frees every shadow left (for communicators the application never freed). */
void tdm_shadow_module_finalize(void);
/* The shadow of comm, created on first use. */
int tdm_shadow_get(MPI_Comm comm, tdm_shadow **shadow);
/* The same with a duplicate of its own, whatever the shadows share: for traffic received from any tag
 * (a DCP's link to its clients). */
int tdm_shadow_get_own(MPI_Comm comm, tdm_shadow **shadow);
/* Rank r of the shadow's communicator on its comm. */
static inline int tdm_shadow_peer(const tdm_shadow *sh, int r) { return sh->peers ? sh->peers[r] : r; }
/* What failed when sh->error is set: its duplication, or its slot's agreement. */
const char *tdm_shadow_error_what(const tdm_shadow *sh);
/* A shadow for collectives among a group of the ranks of comm, without a communicator of their own
 * (a dedicated collective process's calls among the DCPs of a communicator, dcp/dcp_server.c):
 * this rank is rank of the size processes peers[] (ranks of comm; the shadow owns the array), and its
 * calls take tags tag_base .. tag_base + tags - 1 of comm, which outlives the shadow. Ready at once;
 * freed with tdm_shadow_destroy once no request refers to it. */
int tdm_shadow_create_group(MPI_Comm comm, int rank, int size, int *peers, int tag_base, unsigned long tags,
                            tdm_shadow **out);
/* The shadow of comm if it has one, else NULL. The last communicator each thread looked up is
 * remembered with its shadow (most programs use one communicator): the memo is valid while no shadow was
 * destroyed since (MPI may reuse a freed communicator's handle value). Inline: every call looks up. */
typedef struct tdm_shadow_memo {
    MPI_Comm user;
    tdm_shadow *shadow;
    unsigned generation;
} tdm_shadow_memo;
extern __thread tdm_shadow_memo tdm_shadow_last TDM_TLS_INITIAL_EXEC;
tdm_shadow *tdm_shadow_lookup_attribute(MPI_Comm comm);
/* The memo's shadow if comm is the communicator looked up last, else NULL. */
static inline tdm_shadow *tdm_shadow_lookup_memo(MPI_Comm comm)
{
    if (comm == tdm_shadow_last.user &&
        tdm_shadow_last.generation == __atomic_load_n(&tdm_global.shadow_generation, __ATOMIC_ACQUIRE))
        return tdm_shadow_last.shadow;
    return NULL;
}
static inline tdm_shadow *tdm_shadow_lookup(MPI_Comm comm)
{
    tdm_shadow *sh = tdm_shadow_lookup_memo(comm);
    return sh ? sh : tdm_shadow_lookup_attribute(comm);
}
/* 1 when the duplicate is ready; progresses its creation. Sets *error on failure. Only the
 * application's thread creates shadows: the progress thread gets requests whose shadow is ready. */
int tdm_shadow_ready(tdm_shadow *sh, int *error);
/* The creation request (sh->creating) completed with an MPI error (found by a wait over many
 * requests): the shadow is never ready, and every collective on it fails with that error. */
void tdm_shadow_failed(tdm_shadow *sh, int error);
/* How many duplicates have become ready so far: a change means requests waiting for one can start. */
unsigned long tdm_shadow_readied(void);
/* The shadows still being created (linked by pending_next), to gather their creation requests. */
tdm_shadow *tdm_shadow_first_pending(void);

/* The slot of sequence number seq is taken by an earlier call still running: grows the window, or
 * completes that call once the window spans the tag range. */
int tdm_shadow_free_slot(tdm_shadow *sh, unsigned long seq);

/* Whether the next n claims on sh take their tags at once, none of them waiting for an earlier call to
 * complete (tag wrap): a loop that must never block asks before it starts calls. */
int tdm_shadow_claims_free(const tdm_shadow *sh, int n);

/* Sequence number and tag for a new collective; may progress other collectives (tag wrap). Inline:
 * every call takes one. */
static inline int tdm_shadow_claim_tag(tdm_shadow *sh, tdm_tag_hold *hold, int *tag)
{
    unsigned long s = sh->next_seq++;
    int claimed = sh->next_tag; /* s modulo tags */
    sh->next_tag = (unsigned long)claimed + 1 == sh->tags ? 0 : claimed + 1;
    if (sh->window[s & sh->window_mask]) {
        int rc = tdm_shadow_free_slot(sh, s);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    hold->seq = s;
    hold->held = 1;
    sh->window[s & sh->window_mask] = hold;
    sh->outstanding++;
    *tag = claimed; /* within the shadow's range: the engine adds tag_base once bound to it */
    return MPI_SUCCESS;
}

/* A persistent request's own tag for hold, in init order: MPI_ERR_OTHER if the one due is still taken
 * (the communicator has persistent_tags requests alive), MPI_ERR_NO_MEM. Where the shadow keeps none,
 * nothing (its starts claim sequence tags). */
int tdm_shadow_fix_tag(tdm_shadow *sh, tdm_tag_hold *hold);
/* Its request is freed: the tag may serve a later _init. */
void tdm_shadow_unfix_tag(tdm_shadow *sh, tdm_tag_hold *hold);
/* A start of a persistent request on its own tag: like a claim, the shadow stays until it is done. */
static inline void tdm_shadow_hold(tdm_shadow *sh) { sh->outstanding++; }

/* The collective holding a tag completed: the tag may be reused. */
static inline void tdm_shadow_release(tdm_shadow *sh, tdm_tag_hold *hold)
{
    if (!hold->held)
        return;
    hold->held = 0;
    sh->window[hold->seq & sh->window_mask] = NULL;
}
/* Frees a shadow (its cached schedules, its duplicate) and takes it off the registry. */
void tdm_shadow_destroy(tdm_shadow *sh);
/* The request that claimed a tag here was freed. Frees the shadow if the user freed its communicator
 * and no request refers to it any more. Inline: every call ends with it. */
static inline void tdm_shadow_put(tdm_shadow *sh)
{
    if (--sh->outstanding == 0 && sh->user_freed)
        tdm_shadow_destroy(sh);
}

/* TANDEM_VERBOSE: communicators that took a common slot of the shared communicator here, and that took
 * one of their rank 0's own slots (shadow_slots.h). */
void tdm_shadow_slot_counts(unsigned long *common, unsigned long *own);

/* Tandem is inside an MPI call that may complete duplication requests (see on_user_comm_delete). */
void tdm_shadow_testing_dups(int on);

/* Calls that may hold a tag at once on one communicator: the largest power of two among the tags in
 * use (the window of holders is a power of two). A further claim first completes the holder of
 * that many claims before. */
unsigned long tdm_shadow_tags_at_once(void);
/* Fixes the number of tags used, at TDM_Init: range > 0 (a testing hook), or 0 for MPI_TAG_UB. */
void tdm_shadow_set_tag_range(int range);

#endif

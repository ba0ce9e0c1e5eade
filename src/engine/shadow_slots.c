#include "shadow_slots.h"

#include "node.h"
#include "shm_ring.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Common slots at most: more than every communicator MPI gives a process (MPICH: 2,046; Open MPI
 * tested to 10,000), each keeping at least `least` tags. They take half of MPI's tags at most. */
#define MOST_COMMON 16384
/* Own slots of each rank: as wide as common slots, as many as fit up to MOST_OWN (first calls of that
 * many communicators at once, each rank in its own order: tests/stress.c's 2,000); where fewer than
 * FEW_OWN fit, narrower ones, down to LEAST_OWN_TAGS tags (else own slots are off). */
#define MOST_OWN 16384
#define FEW_OWN 256
#define LEAST_OWN_TAGS 1024ul

/* The words of an agreement after the bitmap of common slots. */
enum { FLAG_WORD, OWN_SLOT_WORD, NO_RING_WORD, ID_WORD, EXTRA_WORDS };

typedef struct tdm_agreement {
    uint64_t *mine, *all;  /* common slots held, then the flag word, the leader's own slot + 1, whether a
                              rank found no ring for the communicator in its node's segment, and the
                              communicator's id from the leader (shm_ring.h names rings by it) */
    int own;               /* the leader: the own slot it named, else -1 */
    struct tdm_agreement *next; /* the agreements this rank joined whose reduction it has not seen end */
} tdm_agreement;

/* A leader's own slot: the processes that have not yet let it go (0: free), and whether an agreement
 * of this rank names it meanwhile. */
typedef struct own_slot {
    int holders;
    int named;
} own_slot;

static MPI_Comm shared = MPI_COMM_NULL;
static int world_rank;
static unsigned long common_stride, own_stride, own_base; /* tags */
static int ncommon, nown;  /* ncommon 0: slots are off */
static int nwords;         /* of a bitmap of ncommon bits */
static int release_tag;    /* a member's word to the leader: "I let your own slot go" */

/* The state below changes under this lock: application threads may start first collectives at once. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *held;         /* common slots of this rank's shadows */
static own_slot *own;          /* this rank's own slots */
static tdm_agreement *running;
static unsigned long took_common, took_own;
static uint32_t ids_given; /* as a leader: communicators named (their ids: world rank, this count) */
/* Releases: the leader's receive of the next one, and the members' sends still in flight. */
static int release_in;
static MPI_Request release_recv = MPI_REQUEST_NULL;
typedef struct release_send {
    int slot;
    MPI_Request request;
    struct release_send *next;
} release_send;
static release_send *sends;

int tdm_slots_init(unsigned long tag_ub, unsigned long least, int wanted, int most_own)
{
    ncommon = 0;
    unsigned long tags = tag_ub + 1, stride = least;
    while (tags / 2 / stride > MOST_COMMON) /* wider slots where MPI has many tags */
        stride *= 2;
    unsigned long n = tags / 2 / stride;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    /* the other half, but the last tag (releases): own slots of each rank */
    unsigned long rest = tags - n * stride - 1, per_rank = rest / (unsigned long)size;
    unsigned long k = per_rank / stride;
    if (k >= FEW_OWN)
        k = k < MOST_OWN ? k : MOST_OWN;
    else
        k = per_rank / LEAST_OWN_TAGS < FEW_OWN ? per_rank / LEAST_OWN_TAGS : FEW_OWN;
    if (most_own > 0 && k > (unsigned long)most_own)
        k = (unsigned long)most_own;
    if (n < 64 || k < 1 || !wanted)
        return MPI_SUCCESS; /* a duplicate per communicator, as MPI's fewest tags allow */
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &shared);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_set_errhandler(shared, MPI_ERRORS_RETURN);
    common_stride = stride;
    own_stride = per_rank / k < stride ? per_rank / k : stride;
    own_base = n * stride;
    release_tag = (int)tag_ub;
    nwords = (int)((n + 63) / 64);
    nown = (int)k;
    held = calloc((size_t)nwords, sizeof *held);
    own = calloc((size_t)nown, sizeof *own);
    if (!held || !own) {
        tdm_slots_finalize();
        return MPI_ERR_NO_MEM;
    }
    ncommon = (int)n;
    took_common = took_own = 0;
    return MPI_SUCCESS;
}

MPI_Comm tdm_slots_comm(void) { return shared; }

unsigned long tdm_slots_call_tags(void)
{
    if (ncommon == 0)
        return 0;
    return (common_stride < own_stride ? common_stride : own_stride) - 1; /* the last: the shadow's own */
}

void tdm_slots_counts(unsigned long *common, unsigned long *own_slots)
{
    *common = took_common;
    *own_slots = took_own;
}

int tdm_slots_serve(MPI_Comm comm, int size, int **peers)
{
    *peers = NULL;
    if (ncommon == 0)
        return 0;
    *peers = tdm_world_ranks(comm, size);
    return *peers != NULL;
}

/* The leader: reads the releases that arrived (under the lock). */
static void read_releases(void)
{
    for (;;) {
        int arrived = 0;
        if (release_recv == MPI_REQUEST_NULL &&
            MPI_Irecv(&release_in, 1, MPI_INT, MPI_ANY_SOURCE, release_tag, shared, &release_recv) != MPI_SUCCESS)
            return;
        if (MPI_Test(&release_recv, &arrived, MPI_STATUS_IGNORE) != MPI_SUCCESS || !arrived)
            return;
        if (release_in >= 0 && release_in < nown && own[release_in].holders > 0)
            own[release_in].holders--;
    }
}

/* The members' releases that left (under the lock). */
static void reap_sends(void)
{
    for (release_send **p = &sends; *p;) {
        int done = 0;
        MPI_Test(&(*p)->request, &done, MPI_STATUS_IGNORE);
        if (done || (*p)->request == MPI_REQUEST_NULL) {
            release_send *gone = *p;
            *p = gone->next;
            free(gone);
        } else {
            p = &(*p)->next;
        }
    }
}

int tdm_slots_begin(tdm_shadow *sh, MPI_Request *request)
{
    tdm_agreement *a = calloc(1, sizeof *a);
    if (a) {
        a->mine = calloc((size_t)nwords + EXTRA_WORDS, sizeof(uint64_t));
        a->all = calloc((size_t)nwords + EXTRA_WORDS, sizeof(uint64_t));
    }
    if (!a || !a->mine || !a->all) {
        if (a)
            free(a->mine), free(a->all);
        free(a);
        return MPI_ERR_NO_MEM;
    }
    a->own = -1;
    pthread_mutex_lock(&lock);
    for (int w = 0; w < nwords; w++)
        a->mine[w] = held[w];
    a->mine[nwords + FLAG_WORD] = running != NULL;
    if (sh->rank == 0) /* the leader names the communicator */
        a->mine[nwords + ID_WORD] = (uint64_t)world_rank << 32 | ++ids_given;
    if (sh->layout && tdm_node_ranks(sh->layout, sh->layout->node_of[sh->rank]) > 1 && tdm_node_has_segment()) {
        sh->shm = tdm_shm_comm_reserve(sh->size, sh->peers);
        a->mine[nwords + NO_RING_WORD] = sh->shm == NULL;
    }
    if (sh->rank == 0) { /* the leader names an own slot, in case a flag comes */
        read_releases();
        for (int s = 0; s < nown && a->own < 0; s++)
            if (!own[s].holders && !own[s].named)
                a->own = s;
        if (a->own >= 0)
            own[a->own].named = 1;
        a->mine[nwords + OWN_SLOT_WORD] = (uint64_t)(a->own + 1);
    }
    a->next = running;
    running = a;
    pthread_mutex_unlock(&lock);
    sh->agreement = a;
    int rc = MPI_Iallreduce(a->mine, a->all, nwords + EXTRA_WORDS, MPI_UINT64_T, MPI_BOR, sh->user, request);
    if (rc != MPI_SUCCESS)
        tdm_slots_abandon(sh);
    return rc;
}

/* Takes sh's agreement off the running list and frees it; the leader's own slot goes back unless it
 * was taken (under the lock). */
static void drop(tdm_shadow *sh)
{
    tdm_agreement *a = sh->agreement;
    for (tdm_agreement **p = &running; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    if (a->own >= 0)
        own[a->own].named = 0;
    free(a->mine), free(a->all);
    free(a);
    sh->agreement = NULL;
}

/* The lowest common slot no rank holds (bits of `all`), or -1. */
static int lowest_free(const uint64_t *all)
{
    for (int w = 0; w < nwords; w++) {
        uint64_t free_bits = ~all[w];
        if (free_bits) {
            int s = w * 64 + __builtin_ctzll(free_bits);
            return s < ncommon ? s : -1;
        }
    }
    return -1;
}

int tdm_slots_settle(tdm_shadow *sh, const char **what)
{
    tdm_agreement *a = sh->agreement;
    int flagged = a->all[nwords + FLAG_WORD] != 0, own_slot = (int)a->all[nwords + OWN_SLOT_WORD] - 1;
    /* a rank without a ring: the node-aware schedules run over point-to-point on every rank alike */
    if (sh->shm && a->all[nwords + NO_RING_WORD]) {
        tdm_shm_comm_release(sh->shm);
        sh->shm = NULL;
    }
    if (sh->shm)
        tdm_shm_comm_publish(sh->shm, a->all[nwords + ID_WORD]);
    int slot = flagged ? own_slot : lowest_free(a->all);
    pthread_mutex_lock(&lock);
    if (flagged && a->own >= 0) /* the leader: taken, until every rank lets it go */
        own[a->own].holders = sh->size;
    if (flagged && slot >= 0)
        took_own++;
    else if (slot >= 0)
        took_common++, held[slot / 64] |= (uint64_t)1 << (slot % 64);
    drop(sh);
    pthread_mutex_unlock(&lock);
    if (slot < 0) { /* every rank saw the same reduction: all fail alike */
        *what = flagged ? "agreeing the communicator's slot of Tandem's private communicator: all its rank 0's "
                          "own slots are taken (too many communicators alive whose first collectives ran at "
                          "once with others')"
                        : "agreeing the communicator's slot of Tandem's private communicator: every slot is taken";
        return MPI_ERR_OTHER;
    }
    sh->slot = slot;
    sh->own_slot = flagged;
    unsigned long base = flagged ? own_base + ((unsigned long)sh->peers[0] * (unsigned long)nown + (unsigned long)slot) * own_stride
                                 : (unsigned long)slot * common_stride;
    sh->tag_base = (int)base;
    sh->own_tag = (int)(base + tdm_slots_call_tags()); /* past its calls' tags */
    return MPI_SUCCESS;
}

void tdm_slots_abandon(tdm_shadow *sh)
{
    tdm_shm_comm_release(sh->shm); /* freed before the agreement ended, or with the communicator */
    sh->shm = NULL;
    if (!sh->agreement)
        return;
    pthread_mutex_lock(&lock);
    drop(sh);
    pthread_mutex_unlock(&lock);
}

void tdm_slots_duplicate_ring_reserve(tdm_shadow *sh)
{
    if (!sh->layout) /* the same on every rank: NULL where no two share a node */
        return;
    uint64_t *mine = sh->ring_words;
    mine[0] = mine[1] = 0;
    if (tdm_node_ranks(sh->layout, sh->layout->node_of[sh->rank]) > 1 && tdm_node_has_segment()) {
        sh->ring_world = tdm_world_ranks(sh->user, sh->size);
        sh->shm = sh->ring_world ? tdm_shm_comm_reserve(sh->size, sh->ring_world) : NULL;
        mine[1] = sh->shm == NULL;
    }
    pthread_mutex_lock(&lock);
    if (sh->rank == 0)
        mine[0] = (uint64_t)world_rank << 32 | ++ids_given;
    pthread_mutex_unlock(&lock);
}

int tdm_slots_duplicate_ring_agree(tdm_shadow *sh, MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    if (!sh->layout)
        return MPI_SUCCESS;
    return MPI_Iallreduce(sh->ring_words, sh->ring_words + 2, 2, MPI_UINT64_T, MPI_BOR, sh->user, request);
}

void tdm_slots_duplicate_ring_settle(tdm_shadow *sh)
{
    const uint64_t *all = sh->ring_words + 2;
    if (!sh->layout)
        return;
    if (all[1]) /* a rank without a ring: the node-aware schedules run over point-to-point on every rank */
        tdm_slots_release_ring(sh);
    else if (sh->shm)
        tdm_shm_comm_publish(sh->shm, all[0]);
}

void tdm_slots_release_ring(tdm_shadow *sh)
{
    tdm_shm_comm_release(sh->shm);
    sh->shm = NULL;
    free(sh->ring_world);
    sh->ring_world = NULL;
}

void tdm_slots_release(tdm_shadow *sh)
{
    tdm_slots_abandon(sh);
    if (sh->slot < 0)
        return;
    pthread_mutex_lock(&lock);
    if (!sh->own_slot) {
        held[sh->slot / 64] &= ~((uint64_t)1 << (sh->slot % 64));
    } else if (sh->peers[0] == world_rank) {
        if (own[sh->slot].holders > 0)
            own[sh->slot].holders--;
    } else { /* tell the leader */
        reap_sends();
        release_send *r = malloc(sizeof *r);
        if (r) {
            r->slot = sh->slot;
            if (MPI_Isend(&r->slot, 1, MPI_INT, sh->peers[0], release_tag, shared, &r->request) == MPI_SUCCESS) {
                r->next = sends;
                sends = r;
            } else {
                free(r); /* the leader never gets that slot back: it has others */
            }
        }
    }
    pthread_mutex_unlock(&lock);
    sh->slot = -1;
}

void tdm_slots_finalize(void)
{
    if (shared != MPI_COMM_NULL) {
        /* The releases still in flight arrive (the leaders read them), then every rank has sent all. */
        MPI_Request barrier = MPI_REQUEST_NULL;
        int done = 0;
        while (sends) {
            read_releases();
            reap_sends();
        }
        MPI_Ibarrier(shared, &barrier);
        while (!done) {
            read_releases();
            MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        }
        read_releases();
        if (release_recv != MPI_REQUEST_NULL) {
            MPI_Cancel(&release_recv);
            MPI_Wait(&release_recv, MPI_STATUS_IGNORE);
        }
        MPI_Comm_free(&shared);
    }
    free(held);
    free(own);
    held = NULL;
    own = NULL;
    ncommon = 0;
}

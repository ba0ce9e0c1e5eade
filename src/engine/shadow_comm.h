/*
 * Every user communicator Tandem runs on gets a private shadow (an MPI_Comm_idup, so that the first
 * collective on a communicator stays non-blocking), cached as an attribute of the user communicator
 * and freed with it: Tandem's messages never match the application's. Each collective call takes the
 * next sequence number, and its tag is the sequence number modulo the tag range, so that concurrent
 * collectives never cross.
 *
 * Tag wrap: a tag is reused only when this rank has no unfinished collective that holds it. Before a
 * call would reuse the tag of a collective still running here, the starting call progresses until that
 * collective completes (see tdm_shadow_claim_tag). With MPI's tag range (>= 32767) this happens only
 * with that many collectives outstanding on one communicator.
 */
#ifndef TANDEM_SHADOW_COMM_H
#define TANDEM_SHADOW_COMM_H

#include <mpi.h>

struct tdm_request;

/* Schedules kept per communicator: enough for the distinct calls an iterative solver repeats. */
#define TDM_SHADOW_CACHE_SLOTS 16

typedef struct tdm_shadow {
    MPI_Comm user;             /* the application's communicator (not owned) */
    MPI_Comm comm;             /* the private duplicate */
    MPI_Request dup_request;   /* the MPI_Comm_idup in flight */
    int ready;                 /* the duplicate is usable (read by the progress thread: atomic) */
    int error;                 /* the duplication failed with this MPI error */
    int rank, size;
    unsigned long next_seq;
    int next_tag;              /* next_seq modulo the tag range, kept without dividing */
    int outstanding;           /* requests started here and not yet freed (Wait/Test) */
    struct tdm_request *oldest, *newest; /* those collectives, in start order */
    int user_freed;            /* the user freed the communicator while requests were out */
    struct tdm_request *cache[TDM_SHADOW_CACHE_SLOTS]; /* finished schedules kept for reuse */
    int cache_victim;          /* the slot replaced next when all are taken */
    struct tdm_shadow *prev, *next; /* registry of live shadows */
} tdm_shadow;

int tdm_shadow_module_init(void);
/* Frees every shadow left (for communicators the application never freed). */
void tdm_shadow_module_finalize(void);
/* The shadow of comm, created on first use. */
int tdm_shadow_get(MPI_Comm comm, tdm_shadow **shadow);
/* The shadow of comm if it has one, else NULL. */
tdm_shadow *tdm_shadow_lookup(MPI_Comm comm);
/* 1 when the duplicate is ready; progresses its creation. Sets *error on failure. Only the
 * application's thread creates shadows: the progress thread gets requests whose shadow is ready. */
int tdm_shadow_ready(tdm_shadow *sh, int *error);
/* How many duplicates have become ready so far: a change means requests waiting for one can start. */
unsigned long tdm_shadow_readied(void);
/* The registry of shadows, to find duplicates still being created. */
tdm_shadow *tdm_shadow_first(void);

/* Sequence number and tag for a new collective; may progress other collectives (tag wrap). */
int tdm_shadow_claim_tag(tdm_shadow *sh, struct tdm_request *req, int *tag);
/* The collective holding a tag completed: the tag may be reused. */
void tdm_shadow_release(tdm_shadow *sh, struct tdm_request *req);
/* The request that claimed a tag here was freed. Frees the shadow if the user freed its communicator
 * and no request refers to it any more. */
void tdm_shadow_put(tdm_shadow *sh);

/* Tandem is inside an MPI call that may complete duplication requests (see on_user_comm_delete). */
void tdm_shadow_testing_dups(int on);

/* Tags in use (distinct tags for that many collectives outstanding on one communicator). */
unsigned long tdm_shadow_tag_count(void);
/* Testing hook: the number of tags used (0: MPI_TAG_UB + 1). */
void tdm_shadow_set_tag_range(int range);

#endif

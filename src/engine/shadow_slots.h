/*
 * Slots of one private communicator, shared by the user communicators (engine-internal, for
 * shadow_comm.c). MPI gives a process a limited number of communicators (MPICH: 2,046), and a duplicate
 * per user communicator would halve what a program may hold. So Tandem duplicates MPI_COMM_WORLD once,
 * at TDM_Init, and cuts its tags into slots: each user communicator whose ranks are all in
 * MPI_COMM_WORLD runs its collectives there, on its ranks' world ranks, in a slot of its own. Its
 * messages never meet the application's (another communicator) nor those of another user communicator
 * that two of its processes share (another slot).
 *
 * A communicator's slot is agreed in its first collective by one MPI_Iallreduce (bitwise or) on it,
 * started inside that call, so that it takes the same place among the communicator's collectives on
 * every rank, and progressed by MPI alone, like the MPI_Comm_idup it replaces. Each rank gives
 *   - the common slots it holds;
 *   - a flag if it joined another agreement whose reduction it has not yet seen complete (such an
 *     agreement may yet take any common slot this rank holds none of);
 *   - rank 0 (the leader) also names one of its own slots, free until every process of the
 *     communicator that last had it has let it go.
 * Without a flag the communicator takes the lowest common slot no rank holds: any communicator that
 * shares a process with it and holds that slot would have been seen holding it there. With a flag it
 * takes the leader's own slot: own slots of different leaders are different, and a leader hands one
 * out again only once every process that had it has said so (a message to the leader when its
 * communicator is freed there, read by the leader when it next needs a slot). Nothing waits for an
 * answer, so a rank inside any MPI call moves the agreement on.
 */
#ifndef TANDEM_SHADOW_SLOTS_H
#define TANDEM_SHADOW_SLOTS_H

#include "shadow_comm.h"

/* At TDM_Init, on every rank of MPI_COMM_WORLD: duplicates it and cuts tag_ub + 1 tags into common
 * slots of `least` tags or more and own slots of each rank (at most most_own, if above 0). Leaves
 * slots off (every user communicator then gets a duplicate of its own) where MPI has too few tags, or
 * `wanted` is 0. */
int tdm_slots_init(unsigned long tag_ub, unsigned long least, int wanted, int most_own);
/* At TDM_Finalize, on every rank of MPI_COMM_WORLD, once every shadow is gone. */
void tdm_slots_finalize(void);
/* Whether comm's collectives run in a slot of the shared communicator; if so *peers (malloc'ed) are
 * its ranks' ranks there. The same answer on every rank of comm. */
int tdm_slots_serve(MPI_Comm comm, int size, int **peers);
MPI_Comm tdm_slots_comm(void);
/* Tags each slot gives its communicator's calls (0: slots are off). */
unsigned long tdm_slots_call_tags(void);
/* TANDEM_VERBOSE: communicators that took a common slot here, and that took a leader's own slot. */
void tdm_slots_counts(unsigned long *common, unsigned long *own);

/* The agreement on sh's slot (sh->user, sh->rank, sh->size, sh->peers set), started in its first
 * collective: *request is its reduction. Once that completed, tdm_slots_settle sets sh->slot,
 * sh->tag_base and sh->own_tag, or returns an error (every rank alike) and names it in *what;
 * tdm_slots_abandon ends an agreement whose reduction failed. */
int tdm_slots_begin(tdm_shadow *sh, MPI_Request *request);
int tdm_slots_settle(tdm_shadow *sh, const char **what);
void tdm_slots_abandon(tdm_shadow *sh);
/* sh goes, its calls done: its slot is free again here (and, for a leader's own slot, the leader is
 * told). */
void tdm_slots_release(tdm_shadow *sh);

/* A communicator with a duplicate of its own (MPI has too few tags for slots, or TANDEM_OWN_DUPLICATES)
 * has its ring in the node's segment agreed as a slot's is: a ring on every rank that needs one, or
 * none on any; the leader names it. tdm_slots_duplicate_ring_reserve, in its first collective (sh->user,
 * sh->rank, sh->size, sh->layout set), reserves this rank's ring and writes its words; right after
 * the duplication starts, tdm_slots_duplicate_ring_agree starts one MPI_Iallreduce on the user's
 * communicator (*request stays MPI_REQUEST_NULL where no two ranks share a node, the same on every
 * rank); once both completed, tdm_slots_duplicate_ring_settle keeps or lets go the ring. sh->ring_world holds the world ranks the ring finds its peers by;
 * tdm_slots_release_ring, when sh goes, lets both go. */
void tdm_slots_duplicate_ring_reserve(tdm_shadow *sh);
int tdm_slots_duplicate_ring_agree(tdm_shadow *sh, MPI_Request *request);
void tdm_slots_duplicate_ring_settle(tdm_shadow *sh);
void tdm_slots_release_ring(tdm_shadow *sh);

#endif

/*
 * The engine: runs one schedule over MPI point-to-point and a node's shared segment. It posts a round's
 * sends and receives (MPI_Isend / MPI_Irecv on the private communicator, with the call's tag), runs its
 * local actions (MPI_Reduce_local, copies), does its shm puts and gets in order as their cells allow
 * (shm_ring.h, no MPI call; as messages where the communicator has no rings), and moves to the next
 * round when every message and shm action has completed. It knows nothing of the collective it runs
 * nor of who drives it (an agent).
 */
#ifndef TANDEM_EXEC_H
#define TANDEM_EXEC_H

#include "../schedule/schedule.h"

#define TDM_EXEC_INLINE_REQUESTS 4

#include "shm_ring.h"

typedef struct tdm_exec {
    const tdm_schedule *sched;
    MPI_Comm comm;
    MPI_Comm bulk;    /* the shadow's bulk channel (tdm_shadow.bulk; set with comm) */
    int tag_base;     /* of the shadow's range of tags on comm (set with comm) */
    const int *peers; /* the schedule's rank r is peers[r] on comm (NULL: r itself; set with comm) */
    int tag;          /* the call's, within that range */
    tdm_shm_comm *shm; /* the communicator's rings in the node's segment (set with comm); NULL:
                                 shm actions run as messages */
    uint64_t call;    /* the call's name, the same on every rank (shm cells carry it; set at each start) */
    int shm_next;     /* the round's next shm action to do (shm actions complete in order) */
    uint64_t shm_ticket; /* the call's place among the calls on its communicator (shm_ring.h) */
    int shm_admitted; /* its cells are reserved in the ring (from its first shm action to its end) */
    tdm_shm_holds shm_holds; /* its cells not known to be read */
    void *staging;    /* shm gets that reduce, run as messages: where they arrive (grown as needed) */
    size_t staging_bytes;
    int round;        /* the round in flight; sched->nrounds once finished */
    int end_round;    /* the driver runs rounds up to this one (a split schedule runs in segments) */
    int posted;       /* messages of that round posted; -1 before the round started */
    MPI_Request *reqs;
    int error;        /* MPI error code of the first failure, MPI_SUCCESS if none */
    int draining;     /* after a failure: the round's receives were cancelled */
    MPI_Request reqs_inline[TDM_EXEC_INLINE_REQUESTS];
} tdm_exec;

int tdm_exec_init(tdm_exec *e, const tdm_schedule *s, MPI_Comm comm, int tag);
/* Runs the same schedule again, from its first round, with a new tag (a reused, cached schedule). */
void tdm_exec_restart(tdm_exec *e, int tag);
void tdm_exec_destroy(tdm_exec *e);

/* Starts the first round (local actions run, messages are posted) without testing anything. */
void tdm_exec_kick(tdm_exec *e);
/* Advances without blocking as far as the messages allow; returns 1 once finished. After a failure it
 * finishes only when every message already posted has completed (receives are cancelled), so that
 * MPI no longer uses the schedule's buffers when the request is released. */
int tdm_exec_progress(tdm_exec *e);
/* The same without testing any message: moves past rounds whose messages a wait outside the engine has
 * completed (their handles are MPI_REQUEST_NULL) and posts the next. In simulation, where tests cost
 * (SMPI 3.32 keeps each message a test completes in its rank's list of activities, and every later
 * completion walks the list), the inline agent's blocking wait advances with this after its
 * MPI_Waitany. */
int tdm_exec_advance_settled(tdm_exec *e);

/* The segment being driven is done (all of the schedule, unless it runs split). */
static inline int tdm_exec_finished(const tdm_exec *e)
{
    return e->round >= e->end_round;
}

/* Every round of the schedule is done (or abandoned after a failure). */
static inline int tdm_exec_all_done(const tdm_exec *e)
{
    return e->round >= e->sched->nrounds;
}

/* The round in flight waits for shm or mailbox actions (a cell to fill or to read, an answer): only
 * polling moves it, no MPI request completes for it. */
static inline int tdm_exec_shm_waiting(const tdm_exec *e)
{
    return (e->shm || e->sched->mailbox_actions) && e->posted >= 0 && e->round < e->end_round &&
           e->shm_next < e->sched->round_end[e->round];
}

/* The schedule waits for nothing but answers in this process's mailbox: one round of local and mailbox
 * actions, no message, no cell (a small call handed to a dedicated collective process of the node).
 * Once kicked, only the other process moves it on: no agent needs to drive it in the background. */
static inline int tdm_exec_only_answers(const tdm_exec *e)
{
    const tdm_schedule *s = e->sched;
    return s->mailbox_actions > 0 && s->nrounds == 1 && s->max_round_messages == 0 && s->shm_actions == 0;
}

/* For such a schedule, in place of tdm_exec_kick and tdm_exec_progress (a fresh or restarted state):
 * runs its local actions and its mailbox actions up to the first take; then takes the answers as they
 * come, 1 once the schedule is finished. */
void tdm_exec_post_answers(tdm_exec *e);
int tdm_exec_take_answers(tdm_exec *e);
/* A restarted state whose actions before `next` were done outside the engine (an express call's copy
 * and post): its answers are taken from action `next` on. */
static inline void tdm_exec_resume_answers(tdm_exec *e, int next)
{
    e->round = 0;
    e->end_round = e->sched->nrounds;
    e->posted = 0;
    e->error = MPI_SUCCESS;
    e->draining = 0;
    e->shm_next = next;
}
/* Whether such a state has answers left to take. */
static inline int tdm_exec_answers_due(const tdm_exec *e) { return e->shm_next < e->sched->round_end[0]; }

/* In simulation, a count of the rounds and shm actions this rank's schedules have done: a wait for
 * cells that sees it move starts its polls afresh (0 in other builds). */
unsigned long tdm_exec_moves(void);

/* Records a failure reported for one of the round's requests by a wait outside the engine. */
void tdm_exec_fail(tdm_exec *e, int error);

#endif

/*
 * A schedule is one rank's program for one collective call: an ordered list of rounds, each a list of
 * actions (send, recv, reduce, copy). Round k+1 starts when every message of round k has completed.
 *
 * Within a round, actions are started in the order they were added: a local action (reduce, copy) runs
 * to completion when it is reached, so a send added after it sends the result. A local action must not
 * read what a receive of its own round delivers; put it in the next round.
 *
 * Algorithms build schedules with the tdm_sched_* vocabulary below and never call MPI; the engine runs
 * them and never knows which collective it runs.
 */
#ifndef TANDEM_SCHEDULE_H
#define TANDEM_SCHEDULE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* SHM_PUT and SHM_GET move data between ranks of one node, MAILBOX_POST and MAILBOX_TAKE hand a request
 * to a server process of the node and take its answer (see the builder vocabulary below). */
typedef enum {
    TDM_ACT_SEND,
    TDM_ACT_RECV,
    TDM_ACT_REDUCE,
    TDM_ACT_COPY,
    TDM_ACT_SHM_PUT,
    TDM_ACT_SHM_GET,
    TDM_ACT_MAILBOX_POST,
    TDM_ACT_MAILBOX_TAKE
} tdm_action_kind;

/* MPI_PACKED as a copy's source or destination type means "bytes produced by MPI_Pack", count bytes. */
typedef struct tdm_action {
    tdm_action_kind kind;
    int peer;               /* send, recv: rank in the communicator */
    int count;              /* elements of type at src (send, reduce, copy) or at dst (recv) */
    MPI_Datatype type;
    const void *src;        /* send: data; reduce: input; copy: source */
    void *dst;              /* recv: buffer; reduce: input-output (dst = src op dst); copy: target */
    int dst_count;          /* copy only */
    int bulk;               /* send only: on the shadow's bulk channel (tdm_shadow.bulk), apart from the
                               messages a receiver takes with MPI_ANY_TAG */
    MPI_Datatype dst_type;  /* copy only */
    MPI_Op op;              /* reduce only */
    MPI_Datatype basic;     /* reduce only: see tdm_schedule.reduce_basic */
    int link;               /* send on a torus: the link it travels, 2 * dimension + (1 if toward lower
                               coordinates), dimensions as in tdm_schedule.torus_dims; -1 otherwise */
    int repeat;             /* reduce, copy: done this many times (at least once), src and dst moving */
    MPI_Aint plain_bytes;   /* copy only: both sides one dense run of this many bytes (a plain memcpy,
                               decided once when built); -1 otherwise */
    MPI_Aint src_stride, dst_stride; /* by these many bytes each time (see the builder vocabulary) */
    /* shm put and get: the writer's step (its count of puts before this one in the schedule); a put's
     * readers (ranks of the communicator); the data's memory image, from its first byte (the type's
     * true lower bound) for image_bytes. A get reduces with op (MPI_OP_NULL: copies). A put's
     * plain_bytes, a get's too, is that of a dense image (a memcpy), else -1. */
    int step;
    int nreaders;
    const int *readers;
    MPI_Aint image_lb, image_bytes;
} tdm_action;

/* Where repetition k of a local action reads (base src) or writes (base dst). Integer arithmetic: the
 * repetitions of a folded action may lie in different objects. */
static inline void *tdm_action_at(const void *base, MPI_Aint stride, int k)
{
    return (void *)((uintptr_t)base + (uintptr_t)(stride * k));
}

#define TDM_SCHED_INLINE_ACTIONS 8
#define TDM_SCHED_INLINE_ROUNDS 4
#define TDM_SCHED_INLINE_TMP 2

typedef struct tdm_schedule {
    const char *algorithm;  /* e.g. "allreduce_ring": static string; a builder that hands the call to
                               another algorithm renames the schedule after the one that built it */
    int rank, size;         /* of the communicator the schedule was built for */

    tdm_action *actions;
    int nactions, actions_cap;
    int *round_end;         /* round r holds actions [round_end[r-1], round_end[r]) */
    int nrounds, rounds_cap;
    int max_round_messages; /* sends + recvs of the busiest round: sizes the engine's request array (a
                               shm put counts once per reader, a get once: where the communicator has
                               no rings the engine runs them as messages) */
    int open_round_messages;

    void **tmp;             /* temporary buffers owned by the schedule */
    int ntmp, tmp_cap;
    size_t tmp_bytes;       /* their total size */

    /* Split schedules (split-tree mode): rounds [0, bg_begin) run on the application thread in the
     * starting call, [bg_begin, bg_end) on the progress agent, [bg_end, nrounds) on the application
     * thread in Wait/Test. -1: not set (bg_begin 0, bg_end the end). */
    int bg_begin, bg_end;

    /* torus_bucket schedules: the torus used, dimensions longer than 1 in row-major order (printed by
     * the dump, read by the model), and its form (tdm_bucket_form: 0 unidirectional, 1 bidirectional,
     * 2 halfway); 0 dimensions otherwise */
    int torus_ndims, torus_dims[8], torus_form;
    /* One lane of a call built in several (tdm_coll_args.lanes): printed by the dump. 0 of 1 otherwise */
    int lane, nlanes;

    int shm_puts;           /* shm puts so far: the next one's step */
    int shm_actions;        /* shm puts and gets in all */
    int shm_cells;          /* the most cells of its ring the call's puts hold at once (set when
                               finished: its puts, at most TDM_SHM_CALL_CELLS) */
    int mailbox_actions;    /* mailbox posts and takes in all */

    int error;              /* first build error (MPI error class), MPI_SUCCESS if none */
    /* A predefined op on a derived datatype is applied through the one predefined type the datatype
     * repeats (some MPIs refuse it in MPI_Reduce_local); MPI_DATATYPE_NULL: apply directly. */
    MPI_Datatype reduce_basic;

    tdm_action actions_inline[TDM_SCHED_INLINE_ACTIONS];
    int round_end_inline[TDM_SCHED_INLINE_ROUNDS];
    void *tmp_inline[TDM_SCHED_INLINE_TMP];
} tdm_schedule;

void tdm_sched_init(tdm_schedule *s, const char *algorithm, int rank, int size);
void tdm_sched_destroy(tdm_schedule *s);

/* The builder vocabulary. Failures (out of memory) are recorded in s->error and checked once at the
 * end, so that algorithms read as plain sequences. Messages of count 0 are dropped on both sides.
 *
 * A reduce or copy that follows one just like it (same kind, counts, types and op, same round, nothing
 * in between) at the same distances in both buffers as the one before is folded into it: the action is
 * repeated, its buffers moving by those strides. The engine runs it as the separate actions would run.
 * A torus bucket moves p owners' parts between its buffer and the user's one at a time, strided along a
 * dimension: folded, 4096 ranks need 256 actions per sub-color instead of 4096. */
void tdm_sched_send(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer);
void tdm_sched_recv(tdm_schedule *s, void *buf, int count, MPI_Datatype type, int peer);
/* A send on the shadow's bulk channel (tdm_action.bulk): a DCP client's data, which its DCP receives
 * when it can use it, apart from the headers it takes as they come. */
void tdm_sched_send_bulk(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer);
/* A send to a torus neighbour that names the link it uses (see tdm_action.link), for the model. */
void tdm_sched_send_on_link(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, int peer, int link);
void tdm_sched_reduce(tdm_schedule *s, const void *in, void *inout, int count, MPI_Datatype type,
                      MPI_Op op);
void tdm_sched_copy(tdm_schedule *s, const void *src, int src_count, MPI_Datatype src_type, void *dst,
                    int dst_count, MPI_Datatype dst_type);
/*
 * Node-aware schedules move data between the ranks of one node through the node's shared segment
 * (engine/shm_ring.h). A put offers count elements of type at buf to the readers listed (ranks of the
 * communicator on this rank's node; the array must outlive the schedule: schedule memory, or the
 * communicator's node layout); it is the writer's step tdm_sched_shm_next_step() at the time. Each
 * reader takes it with a get naming the writer and that step, copying the data into buf, or with an op
 * reducing it into buf (buf = data op buf). A put of 0 bytes is a flag: it still counts, as a step and
 * for its readers.
 *
 * Like a message, a put reads buf and a get writes buf some time before its round ends, not when
 * reached; unlike messages, a round's shm actions are done in the order they were added, each once the
 * one before is (a get that reduces into a buffer another get of the round reduces into reduces after
 * it). A put waits for a free cell: a rank's puts go at most TDM_SHM_CALL_CELLS ahead of the gets that
 * its readers need from it to reach their own. A put's data fits in one cell (tdm_comm_nodes.cell_bytes):
 * larger data goes in several puts. Data movement between ranks whose datatypes may differ (anything
 * but a reduction's) goes as bytes, packed where the type is not dense: a put carries the memory image
 * of its typed data.
 *
 * Where the communicator has no rings in the segment (none made, none free, simulation, TANDEM_SHM=off),
 * the engine runs a put as sends to its readers and a get as a receive, reducing once its round is done:
 * a reader must get one writer's puts in the order of their steps, so that both transports match alike.
 */
/* A call's puts hold at most this many cells at once: half a ring (engine/shm_ring.h admits calls by
 * it). A builder puts no more than this many ahead of the gets that let its readers go on. */
#define TDM_SHM_CALL_CELLS 4
void tdm_sched_shm_put(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const int *readers,
                       int nreaders);
void tdm_sched_shm_get(tdm_schedule *s, void *buf, int count, MPI_Datatype type, int writer, int step);
void tdm_sched_shm_get_reduce(tdm_schedule *s, void *buf, int count, MPI_Datatype type, MPI_Op op, int writer,
                              int step);
/* A get that reduces the cell with `in` (count elements of type, not buf) into buf: buf = cell op in, in
 * one pass where it can, instead of a copy of in to buf and a get that reduces into it. */
void tdm_sched_shm_get_reduce_from(tdm_schedule *s, const void *in, void *buf, int count, MPI_Datatype type, MPI_Op op,
                                   int writer, int step);
/* Whether such a get (or a reduce action run with another input) makes one pass: a dense run of a
 * common predefined type and op, outside simulation; else its other input is copied first (what the
 * engine does, and the models count). */
int tdm_action_reduce_fuses(const tdm_action *a);
static inline int tdm_sched_shm_next_step(const tdm_schedule *s) { return s->shm_puts; }
/*
 * The hand-off to a server process of the node through this process's mailbox (engine/mailbox.h), whose
 * slot the builder reserved: a post copies `bytes` bytes at buf into the slot and publishes them; a take
 * waits for the slot's answer and copies its first `bytes` bytes to buf (none if bytes is 0). They are
 * done in order with the round's shm actions, without MPI.
 */
void tdm_sched_mailbox_post(tdm_schedule *s, const void *buf, int bytes, int slot);
void tdm_sched_mailbox_take(tdm_schedule *s, void *buf, int bytes, int slot);
/* Appends round r of src to s's open round. The actions point into src's buffers: src must outlive them
 * (the model's view of a call built in lanes, their rounds side by side). */
void tdm_sched_append_round(tdm_schedule *s, const tdm_schedule *src, int round);
/* Appends every round of part (built for a group of the communicator's ranks) to s as rounds of its own,
 * its messages going to map[peer]; s takes over part's temporary memory (part is then destroyed as
 * usual). Point-to-point actions only. */
int tdm_sched_adopt(tdm_schedule *s, tdm_schedule *part, const int *map);
/* Ends the current round (no-op if it is empty). */
void tdm_sched_round(tdm_schedule *s);
/* Split-tree builders: the rounds from here on run in the background (first call counts), or from
 * here on in the foreground after the background ones (first call counts). Both end the round. */
void tdm_sched_split_background(tdm_schedule *s);
void tdm_sched_split_foreground(tdm_schedule *s);
static inline int tdm_sched_bg_begin(const tdm_schedule *s) { return s->bg_begin < 0 ? 0 : s->bg_begin; }
/* Rounds of the trailing foreground segment start here (nrounds if none). */
static inline int tdm_sched_bg_end(const tdm_schedule *s) { return s->bg_end < 0 ? s->nrounds : s->bg_end; }
/* Temporary memory freed with the schedule; NULL (and s->error set) if out of memory. */
void *tdm_sched_tmp(tdm_schedule *s, size_t bytes);
/* The same, never one block shared by all ranks in a timing-only simulation (tmp_pool.h). */
void *tdm_sched_tmp_private(tdm_schedule *s, size_t bytes);
/* Closes the last round; returns s->error. */
int tdm_sched_finish(tdm_schedule *s);

/* First action of round r and one past its last. */
static inline int tdm_sched_round_begin(const tdm_schedule *s, int r)
{
    return r == 0 ? 0 : s->round_end[r - 1];
}
static inline int tdm_sched_round_end(const tdm_schedule *s, int r) { return s->round_end[r]; }

void tdm_sched_dump(const tdm_schedule *s, FILE *out);

#endif

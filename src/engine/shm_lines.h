/*
 * Lines: the small payloads of blocking collectives among the processes of one node, each in its
 * writer's cache lines, with no count of reads. A ring of the node's segment (shm_ring.h) starts with
 * its process's lines for that communicator: TDM_SHM_LINES_DEPTH buffers, each a line with a sequence
 * number and the first 56 bytes of a payload of at most TDM_SHM_LINES_MAX_BYTES (the rest in the lines
 * after it), and a line of its own with the count of calls the process finished.
 *
 * Call k of a communicator (counted here, the same on every process: the calls that take the lines are
 * chosen from arguments all processes share) writes buffer k mod depth: its payload, then its sequence
 * number k with a release store; a reader waits for k there with acquire loads and reads the payload in
 * place. A writer may fill that buffer again once every process finished call k - depth (their reads of
 * the buffer are done): allreduce and barrier learn it for free (every process published call k - 1,
 * so each finished k - 2); a bcast's root and a reduce's other ranks, which read nobody, look at the
 * finished counts once every depth - 1 calls.
 *
 * A communicator freed here keeps its ring until every process finished its last call on the lines
 * (or gave its own ring up, which it does only after the same), so that a reader late in that call never
 * sees its buffer refilled by the next communicator of the ring.
 */
#ifndef TANDEM_SHM_LINES_H
#define TANDEM_SHM_LINES_H

#include "../schedule/comm_nodes.h" /* the geometry: TDM_SHM_LINES_* */

#include <stddef.h>
#include <stdint.h>

/* Bytes of a ring's lines (a multiple of 64), and their state when the ring is taken. */
size_t tdm_shm_lines_bytes(void);
void tdm_shm_lines_clear(void *lines);

struct tdm_shm_comm;

/* What a wait does between polls that found nothing (polls: how many so far): the caller's progress on
 * everything else this process runs, and the core given up once spinning is no longer worth it. */
typedef void (*tdm_shm_lines_idle)(int polls);

/* Call k on the lines begins on rank `me` of c (k from 1): on the first, waits until every process's
 * ring is found. Returns k. */
uint64_t tdm_shm_lines_begin(struct tdm_shm_comm *c, int me, tdm_shm_lines_idle idle);
/* This process's buffer of call k, once its readers are done with the call that filled it before:
 * fill it, then publish. */
void *tdm_shm_lines_mine(struct tdm_shm_comm *c, uint64_t k, tdm_shm_lines_idle idle);
void tdm_shm_lines_publish(struct tdm_shm_comm *c, uint64_t k);
/* Rank r's payload of call k, once published. */
const void *tdm_shm_lines_wait(struct tdm_shm_comm *c, int r, uint64_t k, tdm_shm_lines_idle idle);
/* This process is done with call k; all_published: it saw every process's publication of k (so every
 * process finished k - 1). */
void tdm_shm_lines_finish(struct tdm_shm_comm *c, uint64_t k, int all_published);

/* A communicator's lines as one of its processes sees them (part of its tdm_shm_comm). */
typedef struct tdm_shm_lines_state {
    uint64_t calls;      /* calls on the lines so far */
    uint64_t free_until; /* every process finished this call (this process's buffers up to call
                            free_until + depth may be filled) */
    int me;              /* this process's rank in the communicator */
    int found;           /* every process's ring is known */
    void **of;           /* [size] once found: each process's lines (NULL if out of memory: looked up) */
} tdm_shm_lines_state;

/* The count of calls a process finished on its lines (shm_ring.c: whether a ring may be taken again). */
uint64_t tdm_shm_lines_finished(const void *lines);

#endif

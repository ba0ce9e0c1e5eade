/*
 * A process's mailbox in its part of the node's segment (node.h): slots through which it hands small
 * requests to one server process of its node and gets their answers, a copy and a flag each way
 * instead of an MPI message. Dedicated collective processes use it (src/dcp/): a client hands its call
 * to its DCP through the mailbox when they share a node and the call fits a slot.
 *
 * Only the mailbox's owner (the client) posts, only its server reads and answers. A slot:
 *   the client reserves it when it builds a call (tdm_mailbox_reserve: a slot its server has read and
 *   whose answer it took), copies the request in and publishes it (tdm_mailbox_post: the slot's count
 *   of posts, then the mailbox's bell, both with release);
 *   the server sees the bell move, finds the slots posted since it last looked, copies each request
 *   out and says so (tdm_mailbox_read), and later copies the answer in and publishes it
 *   (tdm_mailbox_answer);
 *   the client takes the answer (tdm_mailbox_take), and the slot is free again.
 * Each side writes its own cache lines only. A client with every slot taken hands its call over MPI.
 */
#ifndef TANDEM_MAILBOX_H
#define TANDEM_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#define TDM_MAILBOX_SLOTS 8
/* The most a request or an answer carries: a call's header, its counts and a few KiB of data. */
#define TDM_MAILBOX_BYTES 4056

/* Bytes of a mailbox in a part (node.c puts it after the rings) and its clearing by its owner. */
size_t tdm_mailbox_bytes(void);
void tdm_mailbox_clear(void *box);

/* ---- the owner (client) ---- */

/* A free slot of this process's mailbox box for a request whose answer comes (answered 1) or not (0);
 * -1 if none is free. The slot is this call's until its answer is taken (or, without an answer, until
 * the server read it). */
int tdm_mailbox_reserve(void *box, int answered);
/* A slot reserved for a call that will not use it after all (nothing posted in it). */
void tdm_mailbox_cancel(void *box, int slot);
/* The request's bytes (at most TDM_MAILBOX_BYTES) into the slot, published. */
void tdm_mailbox_post(void *box, int slot, const void *request, size_t bytes);
/* The same for a request in two parts (its bytes first, then rest's): the caller's data need not be
 * copied into the request first. */
void tdm_mailbox_post_parts(void *box, int slot, const void *first, size_t first_bytes, const void *rest,
                            size_t rest_bytes);
/* Requests this process posted, ever. */
unsigned long tdm_mailbox_posts(void);
/* 1 once the slot's answer is there: its first `bytes` (at most the answer's) copied to dst and the slot
 * free; 0 while it is not. */
int tdm_mailbox_take(void *box, int slot, void *dst, size_t bytes);

/* ---- the server ---- */

/* What a server knows of one client's mailbox. */
typedef struct tdm_mailbox_reader {
    void *box;
    uint32_t bell;                       /* the bell as it last looked */
    uint32_t posts[TDM_MAILBOX_SLOTS];   /* each slot's posts it has read */
} tdm_mailbox_reader;

void tdm_mailbox_reader_init(tdm_mailbox_reader *r, void *box);
/* Whether the client posted since the server last found no request (one load: the bell). */
int tdm_mailbox_rung(const tdm_mailbox_reader *r);
/* A slot with a request the server has not read (*bytes: its length), or -1 if none (the bell then
 * counts as heard). */
int tdm_mailbox_next(tdm_mailbox_reader *r, size_t *bytes);
/* The slot's request copied to dst (its *bytes from tdm_mailbox_next): the client may reuse a slot
 * whose call needs no answer. */
void tdm_mailbox_read(tdm_mailbox_reader *r, int slot, void *dst);
/* The slot's answer: bytes (at most TDM_MAILBOX_BYTES) from data, published. */
void tdm_mailbox_answer(tdm_mailbox_reader *r, int slot, const void *data, size_t bytes);

#endif

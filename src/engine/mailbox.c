#include "mailbox.h"

#include <stdatomic.h>
#include <string.h>

#define HEAD_BYTES 56

/* A slot: three lines of flags, each written by one side, the first bytes of the request and of the
 * answer in their flag's line (a small call's request and answer cross between cores in one line each),
 * then the rest of each. */
typedef struct slot {
    _Atomic uint32_t posts;   /* the client's: requests published in this slot */
    uint32_t bytes;
    char request_head[HEAD_BYTES];
    _Atomic uint32_t reads;   /* the server's: requests it copied out */
    char reads_line[60];
    _Atomic uint32_t answers; /* the server's: answers published (an answer's count is its request's) */
    uint32_t answer_bytes;
    char answer_head[HEAD_BYTES];
    char request[TDM_MAILBOX_BYTES - HEAD_BYTES];
    char answer[TDM_MAILBOX_BYTES - HEAD_BYTES];
} slot;

typedef struct box {
    _Atomic uint32_t bell; /* the client's: requests published, over all slots */
    char bell_line[60];
    slot slots[TDM_MAILBOX_SLOTS];
} box;

_Static_assert(sizeof(slot) == 8192 && sizeof(box) % 64 == 0, "mailbox lines");

/* The owner's side: one mailbox per process, used by whichever thread runs its calls (one at a time:
 * Tandem's calls run under its lock). In one cache line: a call reads it all.
 *   used: posts made in each slot;
 *   held: the slot is a call's (HELD_UNTIL_ANSWER: until its answer is taken; HELD_UNTIL_POST: a call
 *   without answer, reserved when its schedule was built, which may post much later, once its
 *   communicator is named: after the post, the server's read frees the slot);
 *   read_known: the slot's last request is known copied out without looking: its answer came (the
 *   server answers only what it read), or nothing was posted. Looking is a cache miss: the server's core
 *   wrote the line. */
enum { HELD_NOT, HELD_UNTIL_ANSWER, HELD_UNTIL_POST };
static struct {
    uint32_t used[TDM_MAILBOX_SLOTS];
    unsigned char held[TDM_MAILBOX_SLOTS];
    unsigned char read_known[TDM_MAILBOX_SLOTS];
    uint32_t rung;
    int next_try;
    uint64_t posts; /* ever */
} __attribute__((aligned(64))) own;
size_t tdm_mailbox_bytes(void) { return sizeof(box); }

void tdm_mailbox_clear(void *b)
{
    memset(b, 0, sizeof(box));
    memset(own.used, 0, sizeof own.used);
    memset(own.held, HELD_NOT, sizeof own.held);
    memset(own.read_known, 1, sizeof own.read_known);
    own.rung = 0;
    own.next_try = 0;
}

static slot *slot_of(void *b, int k) { return &((box *)b)->slots[k]; }

/* bytes from src into a slot's head and body, at offset `at` of the whole */
static void split_copy(char *head, char *body, size_t at, const void *src, size_t bytes)
{
    size_t first = at >= HEAD_BYTES ? 0 : bytes < HEAD_BYTES - at ? bytes : HEAD_BYTES - at;
    if (first > 0)
        memcpy(head + at, src, first);
    if (bytes > first)
        memcpy(body + (at + first - HEAD_BYTES), (const char *)src + first, bytes - first);
}

static void join_copy(void *dst, const char *head, const char *body, size_t bytes)
{
    size_t first = bytes < HEAD_BYTES ? bytes : HEAD_BYTES;
    memcpy(dst, head, first);
    if (bytes > first)
        memcpy((char *)dst + first, body, bytes - first);
}

int tdm_mailbox_reserve(void *b, int answered)
{
    for (int i = 0; i < TDM_MAILBOX_SLOTS; i++) {
        int k = (own.next_try + i) % TDM_MAILBOX_SLOTS;
        if (own.held[k] != HELD_NOT ||
            (!own.read_known[k] && atomic_load_explicit(&slot_of(b, k)->reads, memory_order_acquire) != own.used[k]))
            continue;
        own.held[k] = answered ? HELD_UNTIL_ANSWER : HELD_UNTIL_POST;
        own.next_try = (k + 1) % TDM_MAILBOX_SLOTS;
        return k;
    }
    return -1;
}

void tdm_mailbox_cancel(void *b, int k)
{
    (void)b;
    own.held[k] = HELD_NOT;
}

void tdm_mailbox_post_parts(void *b, int k, const void *first, size_t first_bytes, const void *rest,
                            size_t rest_bytes)
{
    slot *s = slot_of(b, k);
    split_copy(s->request_head, s->request, 0, first, first_bytes);
    if (rest_bytes > 0)
        split_copy(s->request_head, s->request, first_bytes, rest, rest_bytes);
    s->bytes = (uint32_t)(first_bytes + rest_bytes);
    own.read_known[k] = 0;
    if (own.held[k] == HELD_UNTIL_POST)
        own.held[k] = HELD_NOT;
    atomic_store_explicit(&s->posts, ++own.used[k], memory_order_release);
    atomic_store_explicit(&((box *)b)->bell, ++own.rung, memory_order_release);
    own.posts++;
}

void tdm_mailbox_post(void *b, int k, const void *request, size_t bytes)
{
    tdm_mailbox_post_parts(b, k, request, bytes, NULL, 0);
}

unsigned long tdm_mailbox_posts(void) { return (unsigned long)own.posts; }

int tdm_mailbox_take(void *b, int k, void *dst, size_t bytes)
{
    slot *s = slot_of(b, k);
    if (atomic_load_explicit(&s->answers, memory_order_acquire) != own.used[k])
        return 0;
    if (bytes > s->answer_bytes) /* (a correct program's answer is as long as its call expects) */
        bytes = s->answer_bytes;
    join_copy(dst, s->answer_head, s->answer, bytes);
    own.held[k] = HELD_NOT;
    own.read_known[k] = 1;
    return 1;
}

void tdm_mailbox_reader_init(tdm_mailbox_reader *r, void *b)
{
    memset(r, 0, sizeof *r);
    r->box = b;
}

int tdm_mailbox_rung(const tdm_mailbox_reader *r)
{
    return atomic_load_explicit(&((box *)r->box)->bell, memory_order_relaxed) != r->bell;
}

int tdm_mailbox_next(tdm_mailbox_reader *r, size_t *bytes)
{
    uint32_t bell = atomic_load_explicit(&((box *)r->box)->bell, memory_order_acquire);
    for (int k = 0; k < TDM_MAILBOX_SLOTS; k++) {
        slot *s = slot_of(r->box, k);
        if (atomic_load_explicit(&s->posts, memory_order_acquire) != r->posts[k]) {
            *bytes = s->bytes;
            return k;
        }
    }
    r->bell = bell; /* a post after this load rings again */
    return -1;
}

void tdm_mailbox_read(tdm_mailbox_reader *r, int k, void *dst)
{
    slot *s = slot_of(r->box, k);
    join_copy(dst, s->request_head, s->request, s->bytes);
    r->posts[k]++;
    atomic_store_explicit(&s->reads, r->posts[k], memory_order_release);
}

void tdm_mailbox_answer(tdm_mailbox_reader *r, int k, const void *data, size_t bytes)
{
    slot *s = slot_of(r->box, k);
    split_copy(s->answer_head, s->answer, 0, data, bytes);
    s->answer_bytes = (uint32_t)bytes;
    atomic_store_explicit(&s->answers, r->posts[k], memory_order_release);
}

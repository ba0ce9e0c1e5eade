#include "shm_lines.h"

#include "shm_ring.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A buffer: the sequence number of the call that filled it last (0: none), then its payload, of which
 * the first 56 bytes share the number's line. */
typedef struct buffer {
    alignas(64) _Atomic uint64_t seq;
    char payload[TDM_SHM_LINES_MAX_BYTES + 56];
} buffer;

/* A process's lines for one communicator: its finished count on a line of its own (written once a
 * call, read by the others only when a buffer must be refilled), then its buffers. */
typedef struct lines {
    alignas(64) _Atomic uint64_t finished;
    buffer buffers[TDM_SHM_LINES_DEPTH];
} lines;

_Static_assert(sizeof(lines) == TDM_SHM_LINES_BYTES, "the geometry's count (comm_nodes.h)");
_Static_assert(TDM_SHM_LINES_DEPTH >= 2, "an allreduce's call k knows every process finished call k - 2");

size_t tdm_shm_lines_bytes(void) { return sizeof(lines); }

void tdm_shm_lines_clear(void *area)
{
    lines *l = area;
    atomic_store_explicit(&l->finished, 0, memory_order_relaxed);
    for (int b = 0; b < TDM_SHM_LINES_DEPTH; b++)
        atomic_store_explicit(&l->buffers[b].seq, 0, memory_order_relaxed);
}

uint64_t tdm_shm_lines_finished(const void *area)
{
    return atomic_load_explicit(&((lines *)area)->finished, memory_order_acquire);
}

static buffer *buffer_of(void *area, uint64_t k) { return &((lines *)area)->buffers[k % TDM_SHM_LINES_DEPTH]; }

/* Rank r's lines (every ring found). */
static void *lines_at(tdm_shm_comm *c, const tdm_shm_lines_state *st, int r)
{
    return st->of ? st->of[r] : tdm_shm_comm_lines_of(c, r);
}

/* A spin-wait's pause: the core's hint that this is a wait, not work. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

uint64_t tdm_shm_lines_begin(tdm_shm_comm *c, int me, tdm_shm_lines_idle idle)
{
    tdm_shm_lines_state *st = tdm_shm_comm_lines(c);
    if (!st->found) { /* every ring, once: a later release checks each reader's finished count */
        int n = tdm_shm_comm_size(c);
        st->me = me;
        for (int r = 0, polls = 0; r < n;)
            if (tdm_shm_comm_lines_of(c, r))
                r++;
            else
                idle(++polls);
        st->of = malloc(sizeof *st->of * (size_t)n);
        for (int r = 0; st->of && r < n; r++)
            st->of[r] = tdm_shm_comm_lines_of(c, r);
        st->found = 1;
    }
    return ++st->calls;
}

void *tdm_shm_lines_mine(tdm_shm_comm *c, uint64_t k, tdm_shm_lines_idle idle)
{
    tdm_shm_lines_state *st = tdm_shm_comm_lines(c);
    if (k > st->free_until + TDM_SHM_LINES_DEPTH) { /* learn again how far every process is */
        uint64_t least = k - 1;
        for (int r = 0; r < tdm_shm_comm_size(c); r++) {
            if (r == st->me)
                continue;
            const void *theirs = lines_at(c, st, r);
            uint64_t f;
            for (int polls = 0; (f = tdm_shm_lines_finished(theirs)) + TDM_SHM_LINES_DEPTH < k;)
                if (++polls % 64 == 0)
                    idle(polls / 64);
                else
                    cpu_relax();
            if (f < least)
                least = f;
        }
        st->free_until = least;
    }
    return buffer_of(lines_at(c, st, st->me), k)->payload;
}

void tdm_shm_lines_publish(tdm_shm_comm *c, uint64_t k)
{
    tdm_shm_lines_state *st = tdm_shm_comm_lines(c);
    atomic_store_explicit(&buffer_of(lines_at(c, st, st->me), k)->seq, k, memory_order_release);
}

const void *tdm_shm_lines_wait(tdm_shm_comm *c, int r, uint64_t k, tdm_shm_lines_idle idle)
{
    buffer *b = buffer_of(lines_at(c, tdm_shm_comm_lines(c), r), k);
    /* the writer cannot publish k + depth before this process finished k: the number is k or older */
    for (int polls = 0; atomic_load_explicit(&b->seq, memory_order_acquire) != k;)
        if (++polls % 64 == 0)
            idle(polls / 64);
        else
            cpu_relax();
    return b->payload;
}

void tdm_shm_lines_finish(tdm_shm_comm *c, uint64_t k, int all_published)
{
    tdm_shm_lines_state *st = tdm_shm_comm_lines(c);
    lines *mine = lines_at(c, st, st->me);
    /* release: this process's reads of call k come before the count others refill their buffers on */
    atomic_store_explicit(&mine->finished, k, memory_order_release);
    if (all_published && k - 1 > st->free_until)
        st->free_until = k - 1;
}

#include "shm_ring.h"

#include "local_copy.h"
#include "shm_lines.h"
#include "local_reduce.h"
#include "node.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A cell. Line 0 is the readers' (their count of reads, over every time the cell was published); from
 * line 1 on, the writer's: the flag, the name, and the payload, whose first 32 bytes share the flag's
 * line. The writer never writes line 0 and the readers never write the others: each line crosses
 * between cores once per publication, the readers' while nobody waits for it. */
typedef struct cell {
    _Atomic uint64_t reads;
    double published_at; /* in simulation only: the writer's time of publication (smpi_support.h) */
    char readers_line[48];
    _Atomic uint64_t state;  /* odd while the writer fills it; even once published (0: never used) */
    _Atomic uint64_t call;
    _Atomic uint32_t step;
    _Atomic uint32_t readers;
    _Atomic uint64_t all_read; /* reads once every reader of this publication has read it */
    /* payload from here (TDM_SHM_CELL_HEADER_BYTES) */
} cell;

/* A ring: its communicator's id (0: free), then its lines (shm_lines.h), then its cells. */
typedef struct ring {
    _Atomic uint64_t id;
    _Atomic uint32_t retiring; /* released while some cell was unread: free once all are */
    char pad[52];
} ring;

_Static_assert(sizeof(cell) == TDM_SHM_CELL_HEADER_BYTES, "cell header");
_Static_assert(sizeof(ring) == 64, "ring header");

struct tdm_shm_comm {
    uint64_t id;
    ring *mine;
    int size;
    const int *world;
    _Atomic(ring *) *rings; /* [size]: each process's ring, found on first use */
    _Atomic unsigned *look; /* [size]: where a get looks first in each ring (after the cell found last) */
    _Atomic unsigned next;  /* the cell a put tries first */
    _Atomic uint64_t serving;  /* the ticket admitted next */
    _Atomic int reserved;      /* cells the calls admitted and not finished may hold, and the unread
                                  cells of calls finished (left) */
    /* the unread cells of calls finished here (NULL: a free place), each with the count of reads it
     * waits for; calls on several threads leave at once: a place is taken and given back by CAS */
    _Atomic(cell *) left[TDM_SHM_RING_CELLS];
    _Atomic uint64_t left_until[TDM_SHM_RING_CELLS];
    tdm_shm_lines_state lines;
    struct tdm_shm_comm *next_retiring; /* freed while a process may still read its lines (retiring) */
};

static size_t cell_stride(size_t cell_bytes) { return (TDM_SHM_CELL_HEADER_BYTES + cell_bytes + 63) / 64 * 64; }

size_t tdm_shm_ring_bytes(size_t cell_bytes)
{
    return sizeof(ring) + tdm_shm_lines_bytes() + TDM_SHM_RING_CELLS * cell_stride(cell_bytes);
}

static void *lines_of(ring *r) { return r + 1; }

static cell *cell_at(ring *r, int i)
{
    return (cell *)((char *)lines_of(r) + tdm_shm_lines_bytes() + (size_t)i * cell_stride(tdm_node_cell_bytes()));
}

static char *payload(cell *c) { return (char *)c + TDM_SHM_CELL_HEADER_BYTES; }

static ring *ring_at(void *part, int i) { return (ring *)((char *)part + (size_t)i * tdm_shm_ring_bytes(tdm_node_cell_bytes())); }

static void clear_ring(ring *r)
{
    for (int i = 0; i < TDM_SHM_RING_CELLS; i++) {
        cell *c = cell_at(r, i);
        atomic_store_explicit(&c->reads, 0, memory_order_relaxed);
        atomic_store_explicit(&c->all_read, 0, memory_order_relaxed);
        atomic_store_explicit(&c->readers, 0, memory_order_relaxed);
        atomic_store_explicit(&c->state, 0, memory_order_relaxed);
    }
    tdm_shm_lines_clear(lines_of(r));
    atomic_store_explicit(&r->retiring, 0, memory_order_relaxed);
}

void tdm_shm_part_clear(void *part, int rings, size_t cell_bytes)
{
    (void)cell_bytes; /* the node's: cell_at reads it */
    for (int i = 0; i < rings; i++) {
        ring *r = ring_at(part, i);
        clear_ring(r);
        atomic_store_explicit(&r->id, 0, memory_order_release);
    }
}

/* The reads of c reached `until` (the writer's view). */
static int read_until(cell *c, uint64_t until) { return atomic_load_explicit(&c->reads, memory_order_acquire) >= until; }

/* Every reader of every publication of c has read it. */
static int cell_free(cell *c) { return read_until(c, atomic_load_explicit(&c->all_read, memory_order_relaxed)); }

static int ring_all_read(ring *r)
{
    for (int i = 0; i < TDM_SHM_RING_CELLS; i++)
        if (!cell_free(cell_at(r, i)))
            return 0;
    return 1;
}

/* Application threads may create and free communicators at once: the part's rings change under this. */
static pthread_mutex_t part_lock = PTHREAD_MUTEX_INITIALIZER;

/* Communicators freed here whose lines some process may still read (shm_lines.h), under part_lock. */
static tdm_shm_comm *retiring;

/* No process reads c's lines any more: each finished c's last call on them, or gave its ring up (which
 * it does only once every process finished it). Every ring is known (tdm_shm_lines_begin). */
static int lines_drained(tdm_shm_comm *c)
{
    for (int r = 0; r < c->size; r++) {
        ring *x = atomic_load_explicit(&c->rings[r], memory_order_relaxed);
        if (x != c->mine && atomic_load_explicit(&x->id, memory_order_acquire) == c->id &&
            tdm_shm_lines_finished(lines_of(x)) < c->lines.calls)
            return 0;
    }
    return 1;
}

static void free_comm(tdm_shm_comm *c)
{
    free(c->lines.of);
    free(c->rings);
    free(c->look);
    free(c);
}

/* The rings of communicators retiring that nobody reads any more are free again (under part_lock). */
static void free_drained(void)
{
    for (tdm_shm_comm **p = &retiring; *p;) {
        tdm_shm_comm *c = *p;
        if (ring_all_read(c->mine) && lines_drained(c)) {
            atomic_store_explicit(&c->mine->id, 0, memory_order_release);
            *p = c->next_retiring;
            free_comm(c);
        } else {
            p = &c->next_retiring;
        }
    }
}

void tdm_shm_rings_finalize(void)
{
    pthread_mutex_lock(&part_lock);
    while (retiring) {
        tdm_shm_comm *c = retiring;
        retiring = c->next_retiring;
        free_comm(c);
    }
    pthread_mutex_unlock(&part_lock);
}

tdm_shm_comm *tdm_shm_comm_reserve(int size, const int *world)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    void *part = tdm_node_part(me);
    if (!part)
        return NULL;
    tdm_shm_comm *c = calloc(1, sizeof *c);
    if (c) {
        c->rings = calloc((size_t)size, sizeof *c->rings);
        c->look = calloc((size_t)size, sizeof *c->look);
    }
    if (!c || !c->rings || !c->look) {
        if (c)
            free(c->rings);
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&part_lock);
    free_drained();
    for (int i = 0; i < tdm_node_rings_per_part() && !c->mine; i++) {
        ring *r = ring_at(part, i);
        uint64_t id = atomic_load_explicit(&r->id, memory_order_relaxed);
        if (id == 0 || (atomic_load_explicit(&r->retiring, memory_order_relaxed) && ring_all_read(r))) {
            /* named "taken" until the id is agreed: no reader looks for UINT64_MAX */
            atomic_store_explicit(&r->id, UINT64_MAX, memory_order_relaxed);
            clear_ring(r);
            c->mine = r;
        }
    }
    pthread_mutex_unlock(&part_lock);
    if (!c->mine) {
        free_comm(c);
        return NULL;
    }
    c->size = size;
    c->world = world;
    return c;
}

void tdm_shm_comm_publish(tdm_shm_comm *c, uint64_t id)
{
    c->id = id;
    atomic_store_explicit(&c->mine->id, id, memory_order_release);
}

void tdm_shm_comm_release(tdm_shm_comm *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&part_lock);
    if (c->lines.calls > 0 && !lines_drained(c)) { /* a process may still read its lines */
        c->next_retiring = retiring;
        retiring = c;
        pthread_mutex_unlock(&part_lock);
        return;
    }
    if (ring_all_read(c->mine))
        atomic_store_explicit(&c->mine->id, 0, memory_order_release);
    else /* a reader still has a cell to read: the ring keeps its id until then */
        atomic_store_explicit(&c->mine->retiring, 1, memory_order_relaxed);
    pthread_mutex_unlock(&part_lock);
    free_comm(c);
}

tdm_shm_lines_state *tdm_shm_comm_lines(tdm_shm_comm *c) { return &c->lines; }
int tdm_shm_comm_size(const tdm_shm_comm *c) { return c->size; }

/* The ring of rank r of the communicator, found in its part by the communicator's id; NULL while its
 * process has not published it yet. */
static ring *ring_of(tdm_shm_comm *c, int r)
{
    ring *found = atomic_load_explicit(&c->rings[r], memory_order_relaxed);
    if (found)
        return found;
    void *part = tdm_node_part(c->world[r]);
    for (int i = 0; part && i < tdm_node_rings_per_part(); i++) {
        ring *x = ring_at(part, i);
        if (atomic_load_explicit(&x->id, memory_order_acquire) == c->id) {
            atomic_store_explicit(&c->rings[r], x, memory_order_relaxed);
            return x;
        }
    }
    return NULL;
}

void *tdm_shm_comm_lines_of(tdm_shm_comm *c, int r)
{
    ring *x = ring_of(c, r);
    return x ? lines_of(x) : NULL;
}

/* The memory image of count elements of type at buf: from its first byte, image_bytes long. A dense type
 * is a memcpy; any other goes through MPI_Pack, element by element as MPI lays them out. */
static int copy_image(const void *src, void *dst, const tdm_action *a, MPI_Comm comm)
{
    if (TDM_SIMULATED && tdm_smpi_charge_shm_copy((size_t)a->image_bytes))
        return MPI_SUCCESS;
    if (a->plain_bytes >= 0) {
        if (a->plain_bytes > 0) /* a barrier's flag carries nothing, from NULL */
            memcpy(dst, src, (size_t)a->plain_bytes);
        return MPI_SUCCESS;
    }
    tdm_action copy = {.kind = TDM_ACT_COPY, .src = src, .count = a->count, .type = a->type, .dst = dst,
                       .dst_count = a->count, .dst_type = a->type, .repeat = 1, .plain_bytes = -1};
    return tdm_local_copy_any(&copy, comm);
}

/* Drops the cells read from holds; 1 if none is left. */
static int holds_read(tdm_shm_holds *holds)
{
    for (int i = 0; i < holds->n;) /* the call's cells read since: no longer its */
        if (read_until(holds->cells[i], holds->until[i])) {
            holds->n--;
            holds->cells[i] = holds->cells[holds->n];
            holds->until[i] = holds->until[holds->n];
        } else {
            i++;
        }
    return holds->n == 0;
}

int tdm_shm_put(tdm_shm_comm *c, uint64_t call, const tdm_action *a, MPI_Comm comm, tdm_shm_holds *holds, int most,
                int *error)
{
    holds_read(holds);
    if (holds->n >= most && holds->n > 0)
        return 0;
    cell *mine = NULL;
    uint64_t state = 0;
    unsigned first = atomic_load_explicit(&c->next, memory_order_relaxed);
    for (unsigned k = 0; k < TDM_SHM_RING_CELLS && !mine; k++) {
        cell *x = cell_at(c->mine, (int)((first + k) % TDM_SHM_RING_CELLS));
        state = atomic_load_explicit(&x->state, memory_order_relaxed);
        /* lanes of a call on other threads may put into the ring too: the odd state claims the cell */
        if (!(state & 1) && cell_free(x) &&
            atomic_compare_exchange_strong_explicit(&x->state, &state, state + 1, memory_order_acquire,
                                                    memory_order_relaxed)) {
            mine = x;
            atomic_store_explicit(&c->next, first + k + 1, memory_order_relaxed);
        }
    }
    if (!mine)
        return 0; /* every cell waits for a reader */
    uint64_t all_read = atomic_load_explicit(&mine->all_read, memory_order_relaxed) + (uint64_t)a->nreaders;
    atomic_store_explicit(&mine->call, call, memory_order_relaxed);
    atomic_store_explicit(&mine->step, (uint32_t)a->step, memory_order_relaxed);
    atomic_store_explicit(&mine->readers, (uint32_t)a->nreaders, memory_order_relaxed);
    atomic_store_explicit(&mine->all_read, all_read, memory_order_relaxed);
    *error = copy_image((const char *)a->src, payload(mine) - a->image_lb, a, comm);
    if (TDM_SIMULATED)
        mine->published_at = tdm_smpi_now();
    atomic_store_explicit(&mine->state, state + 2, memory_order_release);
    if (holds->n < TDM_SHM_CALL_CELLS) {
        holds->cells[holds->n] = mine;
        holds->until[holds->n++] = all_read;
    }
    return 1;
}

/* The writer's published cell of (call, step) in ring r, or NULL. A cell's name is read between two
 * loads of its flag, which must agree (the writer may be refilling a cell meant for others). The writer
 * takes its cells in turn, so the search starts after the cell this reader found last in that ring
 * (*look): each cell looked at is a cache line the writer's core holds. */
static cell *find_cell(ring *r, _Atomic unsigned *look, uint64_t call, int step)
{
    unsigned first = atomic_load_explicit(look, memory_order_relaxed);
    for (unsigned k = 0; k < TDM_SHM_RING_CELLS; k++) {
        unsigned i = (first + k) % TDM_SHM_RING_CELLS;
        cell *x = cell_at(r, (int)i);
        uint64_t before = atomic_load_explicit(&x->state, memory_order_acquire);
        if (before == 0 || (before & 1))
            continue;
        uint64_t named = atomic_load_explicit(&x->call, memory_order_relaxed);
        uint32_t at = atomic_load_explicit(&x->step, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (named == call && at == (uint32_t)step && atomic_load_explicit(&x->state, memory_order_relaxed) == before) {
            atomic_store_explicit(look, i + 1, memory_order_relaxed);
            return x;
        }
    }
    return NULL;
}

int tdm_shm_get(tdm_shm_comm *c, uint64_t call, const tdm_action *a, MPI_Comm comm, int *error)
{
    ring *r = ring_of(c, a->peer);
    cell *x = r ? find_cell(r, &c->look[a->peer], call, a->step) : NULL;
    if (!x)
        return 0;
    if (TDM_SIMULATED)
        tdm_smpi_shm_seen(x->published_at);
    const char *data = payload(x) - a->image_lb;
    if (a->op == MPI_OP_NULL) {
        *error = copy_image(data, a->dst, a, comm);
    } else {
        tdm_action reduce = *a;
        reduce.kind = TDM_ACT_REDUCE;
        reduce.src = data;
        reduce.repeat = 1;
        *error = a->src ? tdm_local_reduce_from(&reduce, a->src, comm) : tdm_local_reduce(&reduce, comm);
    }
    /* a sole reader stores the count: unlike an atomic add, a store does not stall this core for the
     * line (the writer counted the reads of the cell's earlier publications before it refilled it) */
    if (atomic_load_explicit(&x->readers, memory_order_relaxed) == 1)
        atomic_store_explicit(&x->reads, atomic_load_explicit(&x->all_read, memory_order_relaxed), memory_order_release);
    else
        atomic_fetch_add_explicit(&x->reads, 1, memory_order_release);
    return 1;
}

/* A place of the list of cells left being filled. */
#define FILLING ((cell *)1)

/* Puts a cell left unread in a free place of the list; 0 if none (never: each holds a reservation, and
 * there are as many places as a ring has cells). */
static int keep_left(tdm_shm_comm *c, cell *x, uint64_t until)
{
    for (int i = 0; i < TDM_SHM_RING_CELLS; i++) {
        cell *none = NULL;
        if (!atomic_load_explicit(&c->left[i], memory_order_relaxed) &&
            atomic_compare_exchange_strong_explicit(&c->left[i], &none, FILLING, memory_order_acquire,
                                                    memory_order_relaxed)) {
            atomic_store_explicit(&c->left_until[i], until, memory_order_relaxed);
            atomic_store_explicit(&c->left[i], x, memory_order_release);
            return 1;
        }
    }
    return 0;
}

/* The cells of calls finished here read since give their places back; whether any did. */
static int release_left(tdm_shm_comm *c)
{
    int released = 0;
    for (int i = 0; i < TDM_SHM_RING_CELLS; i++) {
        cell *x = atomic_load_explicit(&c->left[i], memory_order_acquire);
        if (x && x != FILLING && read_until(x, atomic_load_explicit(&c->left_until[i], memory_order_relaxed)) &&
            atomic_compare_exchange_strong_explicit(&c->left[i], &x, NULL, memory_order_acq_rel, memory_order_relaxed)) {
            atomic_fetch_sub_explicit(&c->reserved, 1, memory_order_acq_rel);
            released = 1;
        }
    }
    return released;
}

int tdm_shm_admit(tdm_shm_comm *c, uint64_t ticket, int cells)
{
    if (atomic_load_explicit(&c->serving, memory_order_acquire) != ticket)
        return 0;
    int held = atomic_load_explicit(&c->reserved, memory_order_acquire);
    /* cells of calls finished here count until read: looked at only when the ring seems full (a look
     * is a cache line the readers' cores hold) */
    if (held + cells > TDM_SHM_RING_CELLS && release_left(c))
        held = atomic_load_explicit(&c->reserved, memory_order_acquire);
    do {
        if (held + cells > TDM_SHM_RING_CELLS && held > 0)
            return 0; /* a call that needs more than a ring (never: builders keep within it) waits alone */
    } while (!atomic_compare_exchange_weak_explicit(&c->reserved, &held, held + cells, memory_order_acq_rel,
                                                    memory_order_acquire));
    atomic_store_explicit(&c->serving, ticket + 1, memory_order_release);
    return 1;
}

void tdm_shm_leave(tdm_shm_comm *c, int cells, tdm_shm_holds *holds)
{
    /* not looked at now (perhaps read already): tdm_shm_admit looks when it needs their places */
    int unread = 0;
    for (int h = 0; h < holds->n; h++)
        unread += keep_left(c, holds->cells[h], holds->until[h]);
    holds->n = 0;
    atomic_fetch_sub_explicit(&c->reserved, cells - unread, memory_order_acq_rel);
}

/*
 * A dedicated collective process's side (see dcp.h, dcp_protocol.h): the service loop. It receives its
 * clients' calls, queued per communicator and client in the order of each client's calls; once every
 * client it serves in a communicator sent the next call, it combines their contributions (in the order
 * of their ranks), runs the call among the DCPs of that communicator (Tandem's own collective, on a
 * group shadow of dcp_link) and answers each client with the tag its call came with. Many calls run at
 * once, on any communicators, and are answered as they complete. Nothing moving, it blocks until any of
 * its messages completes: a receive kept posted per client and one for the other DCPs, its segments,
 * its answers and its calls among the DCPs (block()).
 *
 * The DCPs of a communicator are those of its ranks, in the order of the first rank each serves. The
 * first of them (the DCP of rank 0) lends the communicator a slot of tags from its share and grants it
 * to the others; each tells it when it is done with the communicator (its clients freed it, or
 * finalized), and the slot is lent again once all are.
 */
#include "../base/error.h"
#include "../base/smpi_support.h"
#include "../base/state.h"
#include "../core/api_internal.h"
#include "../engine/mailbox.h"
#include "../engine/node.h"
#include "../engine/shadow_comm.h"
#include "../agents/agent.h"
#include "dcp_segments.h"
#include "dcp_server.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    int d;                      /* this DCP's index in the mapping */
    int first, clients;         /* its block of application ranks */
    int *finalized;             /* per client */
    int finished;               /* clients that finalized */
    served_comm *comms;
    served_call *calls, **calls_end;
    char *share_used;           /* the slots it lends: slot first_slot + i taken */
    int first_slot, next_slot;
    int waits;                  /* communicators that waited for a slot so far */
    /* receives kept posted: one per client (first_bytes), one for the other DCPs' control messages */
    char **posted_buf;
    MPI_Request *posted;
    dcp_control control_in;
    MPI_Request control;
    /* what the service loop blocks on: the posted receives first (their statuses in wait_status) */
    MPI_Request **wait;
    MPI_Status *wait_status;
    int nwait, wait_cap;
    /* per client: its contributions whose data is not fetched yet, oldest first; the bytes it has ahead
     * of its calls (fetch_ahead), and the most any had */
    contribution **unfetched_first, **unfetched_last;
    long long *ahead, most_ahead;
    contribution *arriving; /* messages whose rest the DCP needs before it can queue them */
    int *held;              /* per client: its next receive waits for such a rest, so that its messages
                             * are taken in order (a FREED or FINALIZED never before its last calls) */
    contribution *feeding;  /* fetched calls whose segment receives are not all posted yet */
    tdm_mailbox_reader *boxes; /* per client: its mailbox, where it shares this DCP's node (box NULL if not) */
    int with_boxes;            /* clients that have one */
} srv;

void tdm_dcp_abort(void)
{
    usleep(200000);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void tdm_dcp_fail(const char *what, int rc)
{
    fprintf(stderr, "tandem: dedicated collective process: %s failed (MPI error %d); aborting\n", what, rc);
    tdm_dcp_abort();
}

void *tdm_dcp_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
    return p;
}

void *tdm_dcp_alloc_data(size_t bytes)
{
    void *p = tdm_smpi_shared_temp_alloc(bytes);
    return p ? p : tdm_dcp_alloc(bytes);
}

void tdm_dcp_free_data(void *p)
{
    if (!tdm_smpi_shared_temp_free(p))
        free(p);
}

void tdm_dcp_free_contribution(contribution *in)
{
    if (in->segments) { /* freed once its call answered: every segment arrived */
        tdm_dcp_free_data(in->data);
        free(in->segments);
    }
    free(in->segment_at);
    free(in->message);
    free(in);
}

/* ---- slots ---- */

static int lend_slot(void)
{
    int n = tdm_dcp.slots_per_dcp;
    for (int k = 0; k < n; k++) {
        int i = (srv.next_slot + k) % n;
        if (!srv.share_used[i]) {
            srv.share_used[i] = 1;
            srv.next_slot = (i + 1) % n; /* a slot given back waits for the others before it is lent again */
            return srv.first_slot + i;
        }
    }
    static int said;
    if (!said++)
        fprintf(stderr, "tandem: dedicated collective process: more than %d communicators whose rank 0 it serves are "
                        "in use at once (MPI_TAG_UB is small): the calls of the next ones wait until one is freed\n", n);
    return -1;
}

static void send_control(dcp_control c, int to)
{
    int rc = MPI_Send(&c, (int)sizeof c, MPI_BYTE, to, DCP_CONTROL_TAG, tdm_dcp.dcp_link);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("telling another DCP about a communicator", rc);
}

static void control(int what, dcp_key key, int slot, int to)
{
    send_control((dcp_control){.what = what, .key = key, .slot = slot}, to);
}

/* A group shadow of sc's DCPs on the tags of its slot from `first`, half the slot's. */
static tdm_shadow *group_shadow(const served_comm *sc, int first)
{
    int *peers = tdm_dcp_alloc(sizeof(int) * (size_t)sc->group_size), half = tdm_dcp.window / 2;
    memcpy(peers, sc->group, sizeof(int) * (size_t)sc->group_size);
    tdm_shadow *shadow = NULL;
    /* one DCP alone: its calls among itself send nothing, any tags do */
    int rc = tdm_shadow_create_group(tdm_dcp.dcp_link, sc->group_rank, sc->group_size, peers,
                                     sc->slot * tdm_dcp.window + first, (unsigned long)half, &shadow);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("creating the DCPs' group of a communicator", rc);
    return shadow;
}

/* sc's first DCP: a slot for sc, granted to its other DCPs; none free, sc waits (lend_to_waiting). */
static void lend(served_comm *sc)
{
    if ((sc->slot = lend_slot()) < 0) {
        sc->waiting = ++srv.waits;
        return;
    }
    for (int g = 1; g < sc->group_size; g++)
        control(DCP_GRANT, sc->key, sc->slot, sc->group[g]);
}

/* The group shadows, once the members are known and the slot granted: the calls in order take the first
 * half of the slot's tags, the persistent calls the second. */
static void join_group(served_comm *sc)
{
    if (sc->among || sc->size == 0 || sc->slot < 0)
        return;
    sc->among = group_shadow(sc, 0);
    sc->among_streams = group_shadow(sc, tdm_dcp.window / 2);
}

/* ---- communicators ---- */

static served_comm *find(dcp_key key)
{
    for (served_comm *sc = srv.comms; sc; sc = sc->next)
        if (dcp_key_equal(sc->key, key))
            return sc;
    return NULL;
}

static served_comm *find_or_add(dcp_key key)
{
    served_comm *sc = find(key);
    if (sc)
        return sc;
    sc = tdm_dcp_alloc(sizeof *sc);
    sc->key = key;
    sc->slot = -1;
    sc->next_call = tdm_dcp.first_call;
    sc->next_turn = sc->turns_given = tdm_dcp.first_call; /* testing: near the wrap too */
    sc->next = srv.comms;
    srv.comms = sc;
    return sc;
}

/* The client's index among the clients of sc, or -1. */
static int position(const served_comm *sc, int client)
{
    int w = tdm_dcp.map.app_world[srv.first + client];
    for (int i = 0; i < sc->mine; i++)
        if (sc->members[sc->mine_ranks[i]] == w)
            return i;
    return -1;
}

static void queue_message(served_comm *sc, contribution *in)
{
    int i = position(sc, in->client);
    if (i < 0)
        tdm_dcp_fail("a client's call on a communicator without it", MPI_ERR_COMM);
    if (in->h.kind == DCP_FREED) {
        sc->freed_after[i] = in->h.call;
        sc->freed[i] = 1;
        tdm_dcp_free_contribution(in);
        return;
    }
    if (in->h.stream > 0) { /* a persistent call's start: matched by its stream and count, in any order */
        in->next = sc->stream_queue[i];
        sc->stream_queue[i] = in;
        return;
    }
    contribution **p = &sc->queue[i];
    while (*p && dcp_call_before((*p)->h.call, in->h.call))
        p = &(*p)->next;
    in->next = *p;
    *p = in;
}

/* The members of sc are known: who its clients and DCPs are. */
static void learn(served_comm *sc, const int *members, int size)
{
    sc->size = size;
    sc->members = tdm_dcp_alloc(sizeof(int) * (size_t)size);
    memcpy(sc->members, members, sizeof(int) * (size_t)size);
    sc->mine_ranks = tdm_dcp_alloc(sizeof(int) * (size_t)size);
    sc->group = tdm_dcp_alloc(sizeof(int) * (size_t)size);
    sc->group_of_rank = tdm_dcp_alloc(sizeof(int) * (size_t)size);
    sc->order = tdm_dcp_alloc(sizeof(int) * (size_t)size);
    sc->group_size = tdm_dcp_groups(members, size, sc->group_of_rank, sc->group, sc->order);
    int me = tdm_dcp.map.dcp_world[srv.d];
    while (sc->group[sc->group_rank] != me)
        sc->group_rank++;
    for (int r = 0; r < size; r++)
        if (sc->group_of_rank[r] == sc->group_rank)
            sc->mine_ranks[sc->mine++] = r;
    sc->queue = tdm_dcp_alloc(sizeof *sc->queue * (size_t)sc->mine);
    sc->stream_queue = tdm_dcp_alloc(sizeof *sc->stream_queue * (size_t)sc->mine);
    sc->freed_after = tdm_dcp_alloc(sizeof *sc->freed_after * (size_t)sc->mine);
    sc->freed = tdm_dcp_alloc((size_t)sc->mine);
    for (int i = 0; i < sc->mine; i++)
        sc->freed[i] = 0;
    if (sc->group_size == 1) {
        sc->slot = 0;
    } else if (dcp_key_equal(sc->key, DCP_APP_WORLD_KEY)) {
        sc->slot = 1;
    } else if (sc->group_rank == 0) { /* its first DCP lends it a slot, now or once one is given back */
        lend(sc);
    }
    join_group(sc);
    for (contribution *in = sc->unsorted, *next; in; in = next) {
        next = in->next;
        queue_message(sc, in);
    }
    sc->unsorted = NULL;
}

/* Whether this DCP is done with sc: every client of it freed it after its last call started here, or
 * finalized; and no call of it runs or waits (a client whose side of a call ended early, a reduce's
 * sender, may finalize before its DCP could start the call). */
static int done_with(const served_comm *sc)
{
    if (sc->size == 0 || sc->running > 0 || sc->starts)
        return 0;
    for (int i = 0; i < sc->mine; i++) {
        if (sc->queue[i] || sc->stream_queue[i])
            return 0;
        int client = tdm_dcp.map.app_index[sc->members[sc->mine_ranks[i]]] - srv.first;
        if (!srv.finalized[client] && (!sc->freed[i] || dcp_call_before(sc->next_call, sc->freed_after[i])))
            return 0;
    }
    return 1;
}

static void forget(served_comm *sc)
{
    if (sc->group_rank == 0 && sc->slot >= srv.first_slot)
        srv.share_used[sc->slot - srv.first_slot] = 0;
    if (sc->among) { /* no call runs on them */
        tdm_shadow_destroy(sc->among);
        tdm_shadow_destroy(sc->among_streams);
    }
    for (int i = 0; i < sc->mine; i++)
        for (contribution *in = sc->queue[i], *next; in; in = next) {
            next = in->next;
            tdm_dcp_free_contribution(in);
        }
    for (stream_start *st = sc->starts, *next; st; st = next) { /* a first DCP's, of the others' READY */
        next = st->next;
        free(st);
    }
    free(sc->members);
    free(sc->mine_ranks);
    free(sc->queue);
    free(sc->stream_queue);
    free(sc->freed_after);
    free(sc->freed);
    free(sc->group);
    free(sc->group_of_rank);
    free(sc->order);
    free(sc);
}

/* A slot given back: the communicator that has waited longest takes it (the program may free the
 * later ones only once the earlier ones' calls completed). */
static void lend_to_waiting(void)
{
    served_comm *first = NULL;
    for (served_comm *sc = srv.comms; sc; sc = sc->next)
        if (sc->waiting > 0 && (!first || sc->waiting < first->waiting))
            first = sc;
    if (first) {
        first->waiting = 0;
        lend(first);
        join_group(first);
    }
}

/* Communicators this DCP is done with: told to their first DCP, and forgotten once that one heard from
 * every DCP of theirs. Returns whether any changed. */
static int retire_comms(void)
{
    int moved = 0;
    for (served_comm **p = &srv.comms; *p;) {
        served_comm *sc = *p;
        if (!sc->released && done_with(sc)) {
            sc->released = 1;
            if (sc->group_rank > 0 && sc->slot >= 2)
                control(DCP_RELEASE, sc->key, 0, sc->group[0]);
            moved = 1;
        }
        int lent = sc->group_rank == 0 && sc->slot >= 2;
        if (sc->released && (!lent || sc->releases == sc->group_size - 1)) {
            *p = sc->next;
            forget(sc);
            moved = 1;
            if (lent)
                lend_to_waiting();
        } else {
            p = &sc->next;
        }
    }
    return moved;
}

/* ---- a client's data ----
 * What a call gives past its first message (the rest of the message, its segments) comes on the data
 * link, and the DCP takes it only when it can use it: at once for the calls that start next on their
 * communicators (arrived), ahead for the others while what their client has ahead of its calls stays
 * under DCP_AHEAD_BYTES (fetch_ahead). A client that runs ahead keeps the rest in its own memory (MPI
 * holds a send until its receive is posted, past its eager size): the DCP holds the first parts. It still
 * reads every first part as it comes: a program may wait in one communicator's call while the calls it
 * made before on another cannot start yet. */

static int source_of(const contribution *in) { return tdm_dcp.map.app_world[srv.first + in->client]; }

static void unfetched_add(contribution *in)
{
    int c = in->client;
    in->later = NULL;
    in->earlier = srv.unfetched_last[c];
    if (in->earlier)
        in->earlier->later = in;
    else
        srv.unfetched_first[c] = in;
    srv.unfetched_last[c] = in;
}

static void unfetched_remove(contribution *in)
{
    int c = in->client;
    if (in->earlier)
        in->earlier->later = in->later;
    else
        srv.unfetched_first[c] = in->later;
    if (in->later)
        in->later->earlier = in->earlier;
    else
        srv.unfetched_last[c] = in->earlier;
    in->earlier = in->later = NULL;
}

/* Where the counts and the data lie in the message. */
static void point_into_message(contribution *in)
{
    in->counts = (const int *)(in->message + sizeof in->h) + in->h.members;
    in->data = in->message + tdm_dcp_data_offset(in->h.members, in->h.counts);
}

static void receive_part(contribution *in, int bytes);

/* The message's rest received into it, grown to its whole size now. */
static void receive_rest(contribution *in)
{
    receive_part(in, in->rest_bytes);
}

/* The next `bytes` of the message's rest received into it, grown to hold them now. The client sends
 * the rest as one message, or (members and counts past the first part) as two: up to the data, then
 * the data. */
static void receive_part(contribution *in, int bytes)
{
    int at = in->h.bytes - in->rest_bytes;
    char *grown = realloc(in->message, (size_t)(at + bytes));
    if (!grown)
        tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
    in->message = grown;
    point_into_message(in);
    int rc = MPI_Irecv(in->message + at, bytes, MPI_BYTE, source_of(in), in->tag, tdm_dcp.data_link, &in->rest);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("receiving a client's message", rc);
    in->rest_bytes -= bytes;
}

/* Posts the receives of in's data (its rest, its segments): the memory for it taken now. Returns the
 * bytes they bring. */
static long long fetch(contribution *in)
{
    long long bytes = in->rest_bytes;
    if (in->earlier || srv.unfetched_first[in->client] == in)
        unfetched_remove(in);
    in->fetched = 1;
    if (in->rest_bytes > 0)
        receive_rest(in);
    long long segments = 0;
    if (tdm_dcp_data_in_segments(&in->h) && !tdm_dcp_receive_segments(in, source_of(in), &segments)) {
        in->later = srv.feeding; /* a v-form of many segments: the next posted as the first arrive */
        srv.feeding = in;
    }
    return in->fetched_bytes = bytes + segments;
}

/* Whether in's data is all there to start its call with (its segments may come later). Fetched out of
 * its client's order: the client's older unfetched calls with its tag first (an answerless call, a
 * reduce's non-root, ends on the client once its data is sent, and its tag may serve a later call), so
 * that the receives of one tag on the data link are posted in the order the client sent. */
static int arrived(contribution *in)
{
    for (contribution *older = srv.unfetched_first[in->client]; !in->fetched && older && older != in;) {
        contribution *next = older->later;
        if (older->tag == in->tag) {
            older->ahead = fetch(older);
            srv.ahead[older->client] += older->ahead;
        }
        older = next;
    }
    if (!in->fetched)
        fetch(in);
    return in->rest == MPI_REQUEST_NULL;
}

/* in's call starts: its bytes no longer count as ahead. */
static void leave_queue(contribution *in)
{
    srv.ahead[in->client] -= in->ahead;
    in->ahead = 0;
}

/* Data of calls that cannot start yet, each client's oldest first, within DCP_AHEAD_BYTES of it. */
static int fetch_ahead(void)
{
    int moved = 0;
    for (int c = 0; c < srv.clients; c++)
        while (srv.unfetched_first[c] && srv.ahead[c] < DCP_AHEAD_BYTES) {
            contribution *in = srv.unfetched_first[c];
            in->ahead = fetch(in);
            srv.ahead[c] += in->ahead;
            srv.most_ahead = srv.ahead[c] > srv.most_ahead ? srv.ahead[c] : srv.most_ahead;
            moved = 1;
        }
    return moved;
}

/* ---- calls ---- */

/* Tags a call takes among the DCPs when it starts: an agreement on the size of its blocks, and the call
 * (its segments start later, a few at a time: feed_segments). */
#define CLAIMS_PER_CALL 2

/* Whether a call whose clients' data is `bytes` may start on sc's shadow `on` (0: among, 1:
 * among_streams): beside the data of the calls that run there, it stays within DCP_RUNNING_BYTES, or none
 * runs (a larger call runs alone). Each shadow on its own: the DCPs start the calls of each in one order,
 * and the oldest call of each completes whatever the other holds. */
static int room_for(const served_comm *sc, int on, long long bytes)
{
    return sc->running_on[on] == 0 || sc->bytes_on[on] + bytes <= DCP_RUNNING_BYTES;
}

static long long bytes_of(contribution **in, int n)
{
    long long bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += in[i]->fetched_bytes;
    return bytes;
}

/* A call started among the DCPs: in flight until answered; a segmented one holds sc's later calls. */
static void run(served_comm *sc, served_call *x, long long bytes)
{
    int on = x->among == sc->among_streams;
    x->bytes = bytes;
    sc->running_on[on]++;
    sc->bytes_on[on] += bytes;
    if (x->segments > 0)
        sc->holding = x;
    sc->running++;
    *srv.calls_end = x;
    srv.calls_end = &x->next;
}

/* Starts the calls of sc whose contributions are all there. Returns whether any started. */
static int start_ready_calls(served_comm *sc)
{
    if (!sc->among)
        return 0;
    int moved = 0;
    contribution **oldest = tdm_dcp_alloc(sizeof *oldest * (size_t)sc->mine);
    while (!sc->holding) {
        /* a call whose tags among the DCPs are still taken waits here, in the queue: claiming them
         * would wait for the oldest call inside the service loop, which then serves no one */
        if (!tdm_shadow_claims_free(sc->among, CLAIMS_PER_CALL))
            break;
        int ready = 1; /* every client's data fetched at once: not one after the other */
        for (int i = 0; i < sc->mine; i++)
            ready &= sc->queue[i] && sc->queue[i]->h.call == sc->next_call && arrived(sc->queue[i]);
        if (!ready || !room_for(sc, 0, bytes_of(sc->queue, sc->mine)))
            break;
        for (int i = 0; i < sc->mine; i++) {
            oldest[i] = sc->queue[i];
            sc->queue[i] = oldest[i]->next;
            leave_queue(oldest[i]);
        }
        sc->next_call++;
        run(sc, tdm_dcp_start_call(sc, sc->among, oldest), bytes_of(oldest, sc->mine));
        moved = 1;
    }
    free(oldest);
    return moved;
}

/* ---- persistent calls ----
 * Their starts come in any order: a start runs among the DCPs once every client of the communicator
 * started it, in the turn its first DCP gives (the DCPs of a group shadow must start their calls on it
 * in one order). */

static stream_start *find_start(served_comm *sc, int stream, unsigned call)
{
    stream_start **p = &sc->starts;
    while (*p && !((*p)->stream == stream && (*p)->call == call))
        p = &(*p)->next;
    if (!*p) {
        *p = tdm_dcp_alloc(sizeof **p);
        **p = (stream_start){.stream = stream, .call = call};
    }
    return *p;
}

/* Client i's message of the start, or NULL; with take, out of its queue. */
static contribution *start_of(served_comm *sc, int i, const stream_start *st, int take)
{
    for (contribution **p = &sc->stream_queue[i]; *p; p = &(*p)->next) {
        contribution *in = *p;
        if (in->h.stream == st->stream && in->h.call == st->call) {
            if (take)
                *p = in->next;
            return in;
        }
    }
    return NULL;
}

static void stream_control(int what, const served_comm *sc, const stream_start *st, int to)
{
    send_control((dcp_control){.what = what, .key = sc->key, .turn = st->turn, .stream = st->stream, .call = st->call},
                 to);
}

/* The start of sc's persistent calls to run next: its place in sc->starts (*place NULL if none yet). */
static stream_start **next_stream_start(served_comm *sc)
{
    stream_start **p = &sc->starts;
    while (*p && !((*p)->has_turn && (*p)->turn == sc->next_turn && (*p)->ready))
        p = &(*p)->next;
    return p;
}

/* The first DCP: a start every DCP is ready for gets its turn, told to the others. */
static void give_turn(served_comm *sc, stream_start *st)
{
    if (st->has_turn || st->ready_dcps < sc->group_size)
        return;
    st->turn = sc->turns_given++;
    st->has_turn = 1;
    for (int g = 1; g < sc->group_size; g++)
        stream_control(DCP_STREAM_RUN, sc, st, sc->group[g]);
}

/* Starts of sc's persistent calls: those its clients all made reported (or, on the first DCP, counted),
 * then the one whose turn it is run. Returns whether any moved. */
static int start_stream_calls(served_comm *sc)
{
    if (!sc->among)
        return 0;
    int moved = 0;
    for (contribution *in = sc->mine > 0 ? sc->stream_queue[0] : NULL; in; in = in->next) {
        stream_start *st = find_start(sc, in->h.stream, in->h.call);
        int all = !st->ready;
        for (int i = 0; i < sc->mine && all; i++)
            all = start_of(sc, i, st, 0) != NULL;
        if (!all)
            continue;
        st->ready = 1;
        moved = 1;
        if (sc->group_rank == 0) {
            st->ready_dcps++;
            give_turn(sc, st);
        } else {
            stream_control(DCP_STREAM_READY, sc, st, sc->group[0]);
        }
    }
    contribution **in = NULL;
    while (!sc->holding && tdm_shadow_claims_free(sc->among_streams, CLAIMS_PER_CALL)) {
        stream_start **p = next_stream_start(sc);
        if (!*p)
            break;
        int ready = 1;
        long long bytes = 0;
        for (int i = 0; i < sc->mine; i++) {
            contribution *in = start_of(sc, i, *p, 0);
            ready &= arrived(in);
            bytes += in->fetched_bytes;
        }
        if (!ready || !room_for(sc, 1, bytes))
            break;
        stream_start *st = *p;
        *p = st->next;
        if (!in)
            in = tdm_dcp_alloc(sizeof *in * (size_t)sc->mine);
        for (int i = 0; i < sc->mine; i++)
            leave_queue(in[i] = start_of(sc, i, st, 1));
        free(st);
        sc->next_turn++;
        run(sc, tdm_dcp_start_call(sc, sc->among_streams, in), bytes);
        moved = 1;
    }
    free(in);
    return moved;
}

/* Calls in flight: done among the DCPs, then answered. Returns whether any moved. */
static int progress_calls(void)
{
    int moved = 0;
    for (served_call **p = &srv.calls; *p;) {
        served_call *x = *p;
        int done;
        moved |= tdm_dcp_advance_call(x, &done);
        if (!x->agreeing && x->started == x->segments && x->sc->holding == x)
            x->sc->holding = NULL;
        if (done) {
            *p = x->next;
            if (!*p)
                srv.calls_end = p;
            int on = x->among == x->sc->among_streams;
            x->sc->running--;
            x->sc->running_on[on]--;
            x->sc->bytes_on[on] -= x->bytes;
            tdm_dcp_free_call(x);
            moved = 1;
        } else {
            p = &x->next;
        }
    }
    return moved;
}

/* ---- messages ---- */

static const char *kind_name(int kind)
{
    static const char *const names[] = {
        [DCP_ALLREDUCE] = "allreduce", [DCP_REDUCE] = "reduce",   [DCP_SCAN] = "scan",
        [DCP_EXSCAN] = "exscan",       [DCP_REDUCE_SCATTER] = "reduce_scatter", [DCP_BCAST] = "bcast",
        [DCP_BARRIER] = "barrier",     [DCP_GATHER] = "gather(v)", [DCP_SCATTER] = "scatter(v)",
        [DCP_ALLGATHER] = "allgather(v)", [DCP_ALLTOALL] = "alltoall(v, w) or neighbourhood collective",
    };
    return kind > 0 && kind < (int)(sizeof names / sizeof *names) && names[kind] ? names[kind] : "collective";
}

static void post_client_receive(int client)
{
    int rc = MPI_Irecv(srv.posted_buf[client], tdm_dcp.first_bytes, MPI_BYTE, tdm_dcp.map.app_world[srv.first + client],
                       MPI_ANY_TAG, tdm_dcp.link_shadow->comm, &srv.posted[client]);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("posting a receive for a client", rc);
}

/* A client's message whose first part (and, if the DCP needs it at once, its rest) arrived: queued on
 * its communicator. */
static void take_message(contribution *in);

/* The calls a client posted in its mailbox since the DCP last looked, taken. Returns whether any was. */
static int mailbox_messages(int client)
{
    tdm_mailbox_reader *r = &srv.boxes[client];
    if (!r->box || !tdm_mailbox_rung(r))
        return 0;
    int k, moved = 0;
    size_t bytes;
    while ((k = tdm_mailbox_next(r, &bytes)) >= 0) {
        contribution *in = tdm_dcp_alloc(sizeof *in);
        in->message = malloc(bytes > 0 ? bytes : 1);
        if (!in->message)
            tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
        tdm_mailbox_read(r, k, in->message);
        if (bytes < sizeof in->h)
            tdm_dcp_fail("a client's mailbox request shorter than a header", MPI_ERR_TRUNCATE);
        memcpy(&in->h, in->message, sizeof in->h);
        if ((size_t)in->h.bytes != bytes)
            tdm_dcp_fail("a client's mailbox request not as long as its header says", MPI_ERR_INTERN);
        in->rest = MPI_REQUEST_NULL;
        in->client = client;
        in->mailbox_slot = k + 1;
        take_message(in);
        moved = 1;
    }
    return moved;
}

/* Whether any client with a mailbox posted since the DCP last looked: the service loop's wait returns. */
static int any_mailbox_rung(void)
{
    for (int c = 0; c < srv.clients; c++)
        if (srv.boxes[c].box && tdm_mailbox_rung(&srv.boxes[c]))
            return 1;
    return 0;
}

void tdm_dcp_answer(const contribution *in, const void *data, int count, MPI_Datatype type, MPI_Request *sent)
{
    if (in->mailbox_slot) {
        MPI_Aint lb, extent, true_extent;
        MPI_Type_get_extent(type, &lb, &extent);
        MPI_Type_get_true_extent(type, &lb, &true_extent);
        long long bytes = count > 0 ? (long long)(count - 1) * extent + true_extent : 0;
        if (bytes > TDM_MAILBOX_BYTES)
            tdm_dcp_fail("an answer longer than a mailbox slot", MPI_ERR_INTERN);
        tdm_mailbox_answer(&srv.boxes[in->client], in->mailbox_slot - 1, data, (size_t)bytes);
        return;
    }
    int rc = MPI_Isend(data, count, type, source_of(in), in->tag, tdm_dcp.link_shadow->comm, sent);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("answering a client", rc);
}

/* The first part of a client's message arrived in its posted receive (status): the client's next
 * receive posted (nothing else of this call comes on the link), the message taken, or put off until its
 * rest arrives where the DCP needs that to queue it. The calls the client posted in its mailbox before
 * this message are taken first: a FREED or a FINALIZED never comes before the calls it counts. */
static void client_message(int client, const MPI_Status *status)
{
    mailbox_messages(client);
    int got;
    MPI_Get_count(status, MPI_BYTE, &got);
    contribution *in = tdm_dcp_alloc(sizeof *in);
    if (got < (int)sizeof in->h)
        tdm_dcp_fail("a client's message shorter than a header", MPI_ERR_TRUNCATE);
    memcpy(&in->h, srv.posted_buf[client], sizeof in->h);
    if (in->h.bytes < got)
        tdm_dcp_fail("a client's message longer than its header says", MPI_ERR_INTERN);
    in->message = malloc((size_t)got);
    if (!in->message)
        tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
    memcpy(in->message, srv.posted_buf[client], (size_t)got);
    in->rest_bytes = in->h.bytes - got;
    in->rest = MPI_REQUEST_NULL;
    in->tag = status->MPI_TAG;
    in->client = client;
    long long data_at = (long long)tdm_dcp_data_offset(in->h.members, in->h.counts);
    data_at = data_at < in->h.bytes ? data_at : in->h.bytes; /* (a message of a header alone) */
    if (data_at > got) { /* members and counts past the first part (a communicator of thousands of ranks):
                            needed first, they come as a message of their own; the data stays for fetch */
        receive_part(in, (int)(data_at - got));
        in->next = srv.arriving;
        srv.arriving = in;
        srv.held[client] = 1; /* its next message waits: taken before this one, a FREED could retire
                                 the communicator this call is on */
        return;
    }
    if (in->h.kind != DCP_FINALIZED) /* (its last message) */
        post_client_receive(client);
    take_message(in);
}

static void take_message(contribution *in)
{
    int source = source_of(in);
    if (in->h.kind == DCP_REFUSED) {
        fprintf(stderr,
                "tandem: dedicated collective process: rank %d of MPI_COMM_WORLD called a %s whose data to or from its "
                "DCP passes INT_MAX bytes in one message (MPI_ERR_COUNT); the other ranks of the call would wait "
                "for it forever: aborting\n",
                source, kind_name((int)in->h.call));
        tdm_dcp_abort();
    }
    if (in->h.kind == DCP_FINALIZED) { /* its last message */
        srv.finalized[in->client] = 1;
        srv.finished++;
        free(in->message);
        free(in);
        return;
    }
    point_into_message(in);
    if (in->rest_bytes > 0 || tdm_dcp_data_in_segments(&in->h))
        unfetched_add(in);
    else
        in->fetched = 1; /* all in its first part */
    served_comm *sc = find_or_add(in->h.key);
    if (sc->size == 0 && in->h.members > 0)
        learn(sc, (const int *)(in->message + sizeof in->h), in->h.members);
    if (sc->size > 0) {
        queue_message(sc, in);
    } else {
        in->next = sc->unsorted;
        sc->unsorted = in;
    }
}

static void post_control_receive(void)
{
    int rc = MPI_Irecv(&srv.control_in, (int)sizeof srv.control_in, MPI_BYTE, MPI_ANY_SOURCE, DCP_CONTROL_TAG,
                       tdm_dcp.dcp_link, &srv.control);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("posting a receive for the other DCPs", rc);
}

/* Another DCP's message arrived (srv.control_in). */
static void control_message(void)
{
    dcp_control c = srv.control_in;
    post_control_receive();
    if (c.what == DCP_GRANT) {
        served_comm *sc = find_or_add(c.key);
        sc->slot = c.slot;
        join_group(sc);
    } else if (c.what == DCP_STREAM_READY) { /* on the first DCP: another's clients all started it */
        served_comm *sc = find_or_add(c.key);
        stream_start *st = find_start(sc, c.stream, c.call);
        st->ready_dcps++;
        if (sc->size > 0)
            give_turn(sc, st);
    } else if (c.what == DCP_STREAM_RUN) { /* from the first DCP: its turn */
        served_comm *sc = find_or_add(c.key);
        stream_start *st = find_start(sc, c.stream, c.call);
        st->turn = c.turn;
        st->has_turn = 1;
    } else {
        served_comm *sc = find(c.key);
        if (!sc)
            tdm_dcp_fail("a release of a communicator it does not know", MPI_ERR_INTERN);
        sc->releases++;
    }
}

/* Posts more of the segment receives of calls with more than TDM_DCP_MAX_SEGMENTS (v-forms) as their
 * first ones arrive. Returns whether any call's all were. */
static int feed_segments(void)
{
    int moved = 0;
    for (contribution **p = &srv.feeding; *p;) {
        contribution *in = *p;
        if (tdm_dcp_post_segments(in, source_of(in))) {
            *p = in->later;
            in->later = NULL;
            moved = 1;
        } else {
            p = &in->later;
        }
    }
    return moved;
}

/* Messages whose rest arrived, which the DCP needed before it could queue them. */
static int take_arrived(void)
{
    int moved = 0;
    for (contribution **p = &srv.arriving; *p;) {
        contribution *in = *p;
        if (in->rest == MPI_REQUEST_NULL) {
            *p = in->next;
            srv.held[in->client] = 0;
            post_client_receive(in->client);
            take_message(in);
            moved = 1;
        } else {
            p = &in->next;
        }
    }
    return moved;
}

/* ---- blocking ---- */

static void wait_on(MPI_Request *r)
{
    if (srv.nwait == srv.wait_cap) {
        srv.wait_cap = srv.wait_cap ? 2 * srv.wait_cap : 64;
        srv.wait = realloc(srv.wait, sizeof *srv.wait * (size_t)srv.wait_cap);
        srv.wait_status = realloc(srv.wait_status, sizeof *srv.wait_status * (size_t)srv.wait_cap);
        if (!srv.wait || !srv.wait_status)
            tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
    }
    srv.wait[srv.nwait++] = r;
}

/* The first of requests[0 .. n-1] still pending, if any: waiting for one at a time is enough where all
 * must complete (in simulation, each extra request costs every later wait a look). */
static void wait_on_first(MPI_Request *requests, int n)
{
    for (int k = 0; k < n; k++)
        if (requests[k] != MPI_REQUEST_NULL) {
            wait_on(&requests[k]);
            return;
        }
}

/* A contribution's rest and its segments (in order: the next one to combine first) */
static void wait_on_contribution(contribution *in)
{
    if (in->rest != MPI_REQUEST_NULL)
        wait_on(&in->rest);
    if (in->segments)
        wait_on_first(in->segments, in->posted);
}

/* Nothing moved: blocks until one of this DCP's messages completes, those of its calls among the DCPs
 * included (the inline agent's wait, which then advances them). Nothing polls: a test that fails costs
 * simulated time, and SMPI makes each later completion walk the record of failed ones. */
static void block(void)
{
    srv.nwait = 0;
    for (int c = 0; c < srv.clients; c++) /* first: wait_status[c] is the status of client c's message */
        wait_on(&srv.posted[c]);
    wait_on(&srv.control);
    for (contribution *in = srv.arriving; in; in = in->next)
        wait_on(&in->rest);
    for (served_comm *sc = srv.comms; sc; sc = sc->next) {
        for (contribution *in = sc->unsorted; in; in = in->next)
            wait_on_contribution(in);
        for (int i = 0; i < sc->mine; i++) {
            for (contribution *in = sc->queue[i]; in; in = in->next)
                wait_on_contribution(in);
            for (contribution *in = sc->stream_queue[i]; in; in = in->next)
                wait_on_contribution(in);
        }
    }
    for (served_call *x = srv.calls; x; x = x->next) {
        for (int i = 0; i < x->sc->mine; i++)
            wait_on_contribution(x->in[i]);
        if (x->answering)
            wait_on_first(x->answers, x->sc->mine);
        for (int k = x->freed; k < x->answered; k++)
            if (x->parts[k])
                wait_on_first(x->parts[k]->answers, x->sc->mine);
    }
    int rc = tdm_inline_block(tdm_agent_completion_mark(), srv.wait, srv.wait_status, srv.nwait);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("waiting for messages", rc);
}

void tdm_dcp_serve(int d)
{
    srv.d = d;
    srv.first = tdm_dcp.map.first_client[d];
    srv.clients = tdm_dcp.map.clients[d];
    srv.finalized = tdm_dcp_alloc(sizeof(int) * (size_t)(srv.clients + 1));
    srv.calls_end = &srv.calls;
    srv.share_used = tdm_dcp_alloc((size_t)tdm_dcp.slots_per_dcp);
    srv.first_slot = 2 + tdm_dcp_world_rank(d) * tdm_dcp.slots_per_dcp;
    srv.posted_buf = tdm_dcp_alloc(sizeof(char *) * (size_t)(srv.clients + 1));
    srv.posted = tdm_dcp_alloc(sizeof(MPI_Request) * (size_t)(srv.clients + 1));
    srv.unfetched_first = tdm_dcp_alloc(sizeof *srv.unfetched_first * (size_t)(srv.clients + 1));
    srv.unfetched_last = tdm_dcp_alloc(sizeof *srv.unfetched_last * (size_t)(srv.clients + 1));
    srv.ahead = tdm_dcp_alloc(sizeof *srv.ahead * (size_t)(srv.clients + 1));
    srv.held = tdm_dcp_alloc(sizeof *srv.held * (size_t)(srv.clients + 1));
    srv.boxes = tdm_dcp_alloc(sizeof *srv.boxes * (size_t)(srv.clients + 1));
    for (int c = 0; c < srv.clients; c++) {
        srv.posted_buf[c] = tdm_dcp_alloc((size_t)tdm_dcp.first_bytes);
        post_client_receive(c);
        tdm_mailbox_reader_init(&srv.boxes[c], tdm_node_mailbox(tdm_dcp.map.app_world[srv.first + c]));
        srv.with_boxes += srv.boxes[c].box != NULL;
    }
    if (srv.with_boxes) /* its wait returns when a client posts a call in its mailbox */
        tdm_inline_watch(any_mailbox_rung);
    post_control_receive();
    if (srv.clients > 0) { /* the application world: its members are known to all */
        served_comm *world = find_or_add(DCP_APP_WORLD_KEY);
        learn(world, tdm_dcp.map.app_world, tdm_dcp.map.app_ranks);
    }
    while (srv.finished < srv.clients || srv.comms || srv.arriving) {
        int moved = take_arrived();
        for (int c = 0; c < srv.clients; c++)
            if (!srv.finalized[c] && !srv.held[c] && srv.posted[c] == MPI_REQUEST_NULL) {
                client_message(c, &srv.wait_status[c]);
                moved = 1;
            }
        for (int c = 0; c < srv.clients && srv.with_boxes; c++)
            moved |= mailbox_messages(c);
        if (srv.control == MPI_REQUEST_NULL) {
            control_message();
            moved = 1;
        }
        moved |= fetch_ahead() | feed_segments();
        for (served_comm *sc = srv.comms; sc; sc = sc->next)
            moved |= start_ready_calls(sc) | start_stream_calls(sc);
        moved |= progress_calls();
        moved |= retire_comms();
        if (!moved)
            block();
    }
    /* no other DCP sends it anything now: it told them it is done with every communicator */
    MPI_Status cancelled;
    int lost = 0;
    MPI_Cancel(&srv.control);
    MPI_Wait(&srv.control, &cancelled);
    MPI_Test_cancelled(&cancelled, &lost);
    if (!lost)
        tdm_dcp_fail("a message from another DCP after the end of its service", MPI_ERR_INTERN);
    for (int c = 0; c < srv.clients; c++)
        free(srv.posted_buf[c]);
    free(srv.posted_buf);
    free(srv.posted);
    if (srv.with_boxes)
        tdm_inline_watch(NULL);
    free(srv.boxes);
    if (tdm_global.verbose)
        fprintf(stderr, "tandem: dedicated collective process %d: at most %lld bytes of a client's data held ahead of "
                        "its calls\n", srv.d, srv.most_ahead);
    free(srv.unfetched_first);
    free(srv.unfetched_last);
    free(srv.ahead);
    free(srv.held);
    free(srv.wait);
    free(srv.wait_status);
    free(srv.finalized);
    free(srv.share_used);
}

/*
 * A dedicated collective process's side (see dcp.h, dcp_protocol.h): the service loop. It receives its
 * clients' calls, queued per communicator and client in the order of each client's calls; once every
 * client it serves in a communicator sent the next call, it combines their contributions (in the order
 * of their ranks), runs the call among the DCPs of that communicator (Tandem's own collective, on a
 * group shadow of dcp_link) and answers each client with the tag its call came with. Many calls run at
 * once, on any communicators, and are answered as they complete.
 *
 * The DCPs of a communicator are those of its ranks, in the order of the first rank each serves. The
 * first of them (the DCP of rank 0) lends the communicator a slot of tags from its share and grants it
 * to the others; each tells it when it is done with the communicator (its clients freed it, or
 * finalized), and the slot is lent again once all are.
 */
#include "../base/error.h"
#include "../base/smpi_support.h"
#include "../core/api_internal.h"
#include "../engine/shadow_comm.h"
#include "dcp_server.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int d;                      /* this DCP's index in the mapping */
    int first, clients;         /* its block of application ranks */
    int *finalized;             /* per client */
    int finished;               /* clients that finalized */
    served_comm *comms;
    served_call *calls, **calls_end;
    char *share_used;           /* the slots it lends: slot first_slot + i taken */
    int first_slot, next_slot;
} srv;

void tdm_dcp_fail(const char *what, int rc)
{
    fprintf(stderr, "tandem: dedicated collective process: %s failed (MPI error %d); aborting\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
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
    fprintf(stderr, "tandem: dedicated collective process: more than %d communicators whose rank 0 it serves are "
                    "in use at once; aborting\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return -1;
}

static void control(int what, dcp_key key, int slot, int to)
{
    dcp_control c = {.what = what, .key = key, .slot = slot};
    int rc = MPI_Send(&c, (int)sizeof c, MPI_BYTE, to, DCP_CONTROL_TAG, tdm_dcp.dcp_link);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("telling another DCP about a communicator", rc);
}

/* The group shadow, once the members are known and the slot granted. */
static void join_group(served_comm *sc)
{
    if (sc->among || sc->size == 0 || sc->slot < 0)
        return;
    int *peers = tdm_dcp_alloc(sizeof(int) * (size_t)sc->group_size);
    memcpy(peers, sc->group, sizeof(int) * (size_t)sc->group_size);
    /* one DCP alone: its calls among itself send nothing, any tags do */
    int rc = tdm_shadow_create_group(tdm_dcp.dcp_link, sc->group_rank, sc->group_size, peers,
                                     sc->slot * tdm_dcp.window, (unsigned long)tdm_dcp.window, &sc->among);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("creating the DCPs' group of a communicator", rc);
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
        tdm_dcp_free_contribution(in);
        return;
    }
    contribution **p = &sc->queue[i];
    while (*p && (*p)->h.call < in->h.call)
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
    sc->freed_after = tdm_dcp_alloc(sizeof(int) * (size_t)sc->mine);
    for (int i = 0; i < sc->mine; i++)
        sc->freed_after[i] = -1;
    if (sc->group_size == 1) {
        sc->slot = 0;
    } else if (dcp_key_equal(sc->key, DCP_APP_WORLD_KEY)) {
        sc->slot = 1;
    } else if (sc->group_rank == 0) { /* its first DCP lends it a slot */
        sc->slot = lend_slot();
        for (int g = 1; g < sc->group_size; g++)
            control(DCP_GRANT, sc->key, sc->slot, sc->group[g]);
    }
    join_group(sc);
    for (contribution *in = sc->unsorted, *next; in; in = next) {
        next = in->next;
        queue_message(sc, in);
    }
    sc->unsorted = NULL;
}

/* Whether this DCP is done with sc: every client of it freed it after its last call started here, or
 * finalized; and no call of it runs. */
static int done_with(const served_comm *sc)
{
    if (sc->size == 0 || sc->running > 0)
        return 0;
    for (int i = 0; i < sc->mine; i++) {
        int client = tdm_dcp.map.app_index[sc->members[sc->mine_ranks[i]]] - srv.first;
        if (!srv.finalized[client] && (sc->freed_after[i] < 0 || sc->next_call < sc->freed_after[i]))
            return 0;
    }
    return 1;
}

static void forget(served_comm *sc)
{
    if (sc->group_rank == 0 && sc->slot >= srv.first_slot)
        srv.share_used[sc->slot - srv.first_slot] = 0;
    if (sc->among)
        tdm_shadow_destroy(sc->among); /* no call runs on it */
    for (int i = 0; i < sc->mine; i++)
        for (contribution *in = sc->queue[i], *next; in; in = next) {
            next = in->next;
            tdm_dcp_free_contribution(in);
        }
    free(sc->members);
    free(sc->mine_ranks);
    free(sc->queue);
    free(sc->freed_after);
    free(sc->group);
    free(sc->group_of_rank);
    free(sc->order);
    free(sc);
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
        } else {
            p = &sc->next;
        }
    }
    return moved;
}

/* ---- calls ---- */

/* Starts the calls of sc whose contributions are all there. Returns whether any started. */
static int start_ready_calls(served_comm *sc)
{
    if (!sc->among)
        return 0;
    int moved = 0;
    contribution **oldest = tdm_dcp_alloc(sizeof *oldest * (size_t)sc->mine);
    while (!sc->holding) {
        int ready = 1;
        for (int i = 0; i < sc->mine && ready; i++)
            ready = sc->queue[i] && sc->queue[i]->h.call == sc->next_call;
        if (!ready)
            break;
        for (int i = 0; i < sc->mine; i++) {
            oldest[i] = sc->queue[i];
            sc->queue[i] = oldest[i]->next;
        }
        sc->next_call++;
        served_call *x = tdm_dcp_start_call(sc, oldest);
        if (x->segments > 0)
            sc->holding = x;
        sc->running++;
        *srv.calls_end = x;
        srv.calls_end = &x->next;
        moved = 1;
    }
    free(oldest);
    return moved;
}

/* Calls in flight: done among the DCPs, then answered. Returns whether any moved. */
static int progress_calls(void)
{
    int moved = 0, rc;
    for (served_call **p = &srv.calls; *p;) {
        served_call *x = *p;
        served_comm *sc = x->sc;
        int done = 0;
        if (x->segments > 0) {
            moved |= tdm_dcp_progress_segments(x, &done);
            if (x->started == x->segments && sc->holding == x)
                sc->holding = NULL;
            if (!done) {
                p = &x->next;
                continue;
            }
            x->answering = 1; /* all answered: freed below */
        }
        if (x->req) {
            if ((rc = TDM_Test(&x->req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                tdm_dcp_fail("the collective among the DCPs", rc);
            if (!done) {
                p = &x->next;
                continue;
            }
            x->req = NULL;
        }
        if (!x->answering) {
            tdm_dcp_finish_call(x);
            for (int i = 0; i < sc->mine; i++)
                if (x->answer[i] &&
                    (rc = MPI_Isend(x->answer[i], x->answer_count[i], x->type, sc->members[sc->mine_ranks[i]],
                                    x->in[i]->tag, tdm_dcp.link_shadow->comm, &x->answers[i])) != MPI_SUCCESS)
                    tdm_dcp_fail("answering a client", rc);
            x->answering = 1;
            moved = 1;
        }
        done = 1;
        for (int i = 0; i < sc->mine && done; i++)
            if ((rc = MPI_Test(&x->answers[i], &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                tdm_dcp_fail("answering a client", rc);
        if (done) {
            *p = x->next;
            if (!*p)
                srv.calls_end = p;
            sc->running--;
            tdm_dcp_free_call(x);
            moved = 1;
        } else {
            p = &x->next;
        }
    }
    return moved;
}

/* ---- messages ---- */

static void client_message(const MPI_Status *status)
{
    int bytes, rc;
    MPI_Get_count(status, MPI_BYTE, &bytes);
    contribution *in = tdm_dcp_alloc(sizeof *in);
    in->message = tdm_dcp_alloc((size_t)bytes);
    if ((rc = MPI_Recv(in->message, bytes, MPI_BYTE, status->MPI_SOURCE, status->MPI_TAG, tdm_dcp.link_shadow->comm,
                       MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        tdm_dcp_fail("receiving a client's message", rc);
    memcpy(&in->h, in->message, sizeof in->h);
    in->tag = status->MPI_TAG;
    in->client = tdm_dcp.map.app_index[status->MPI_SOURCE] - srv.first;
    if (in->h.kind == DCP_FINALIZED) {
        srv.finalized[in->client] = 1;
        srv.finished++;
        free(in->message);
        free(in);
        return;
    }
    const int *members = (const int *)(in->message + sizeof in->h);
    in->counts = members + in->h.members;
    in->data = (char *)(in->counts + in->h.counts);
    if (in->h.segment > 0) /* before the next probe, which must not see them */
        tdm_dcp_receive_segments(in, status->MPI_SOURCE);
    served_comm *sc = find_or_add(in->h.key);
    if (sc->size == 0 && in->h.members > 0)
        learn(sc, members, in->h.members);
    if (sc->size > 0) {
        queue_message(sc, in);
    } else {
        in->next = sc->unsorted;
        sc->unsorted = in;
    }
}

static void control_message(const MPI_Status *status)
{
    dcp_control c;
    int rc = MPI_Recv(&c, (int)sizeof c, MPI_BYTE, status->MPI_SOURCE, DCP_CONTROL_TAG, tdm_dcp.dcp_link,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("receiving another DCP's message", rc);
    if (c.what == DCP_GRANT) {
        served_comm *sc = find_or_add(c.key);
        sc->slot = c.slot;
        join_group(sc);
    } else {
        served_comm *sc = find(c.key);
        if (!sc)
            tdm_dcp_fail("a release of a communicator it does not know", MPI_ERR_INTERN);
        sc->releases++;
    }
}

/* Nothing to do until a client sends something: no call runs or waits for contributions, and some
 * client has not finalized. Another DCP's messages can wait: a grant matters only to a call that waits,
 * a release only to the slot it gives back. Blocking then spares the core (and, in simulation, the
 * events of polls). */
static int waiting_for_clients(void)
{
    if (srv.calls || srv.finished == srv.clients)
        return 0;
    for (served_comm *sc = srv.comms; sc; sc = sc->next) {
        if (sc->unsorted)
            return 0;
        for (int i = 0; i < sc->mine; i++)
            if (sc->queue[i])
                return 0;
    }
    return 1;
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
    if (srv.clients > 0) { /* the application world: its members are known to all */
        served_comm *world = find_or_add(DCP_APP_WORLD_KEY);
        learn(world, tdm_dcp.map.app_world, tdm_dcp.map.app_ranks);
    }
    while (srv.finished < srv.clients || srv.comms) {
        int moved = 0, flag = 0, rc;
        MPI_Status status;
        /* a probe, then the receive of what it found (SMPI has no MPI_Improbe): on the link's shadow, a
         * client's next call, since the receives of a segmented call's segments are posted as soon as
         * its header is read (MPI keeps one sender's messages of one tag in order) */
        if ((rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, tdm_dcp.link_shadow->comm, &flag, &status)) != MPI_SUCCESS)
            tdm_dcp_fail("MPI_Iprobe", rc);
        if (flag) {
            client_message(&status);
            moved = 1;
        }
        if ((rc = MPI_Iprobe(MPI_ANY_SOURCE, DCP_CONTROL_TAG, tdm_dcp.dcp_link, &flag, &status)) != MPI_SUCCESS)
            tdm_dcp_fail("MPI_Iprobe", rc);
        if (flag) {
            control_message(&status);
            moved = 1;
        }
        for (served_comm *sc = srv.comms; sc; sc = sc->next)
            moved |= start_ready_calls(sc);
        moved |= progress_calls();
        moved |= retire_comms();
        if (!moved && waiting_for_clients()) { /* blocks until a client's next message */
            if ((rc = MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, tdm_dcp.link_shadow->comm, &status)) != MPI_SUCCESS)
                tdm_dcp_fail("MPI_Probe", rc);
            client_message(&status);
        } else if (!moved) {
            sched_yield(); /* a core shared with the application gets it back */
        }
    }
    free(srv.finalized);
    free(srv.share_used);
}

/*
 * The application's side of dedicated collective processes (see dcp.h, dcp_protocol.h). A call the DCP
 * serves is one schedule on the link's shadow: the header and the contribution out to the DCP, the
 * result back. A communicator other than the application world is named at its first such call: its
 * rank 0 gives the others a dcp_key by an MPI_Ibcast on the communicator, and their calls wait for it
 * (the request's prelude); each client's first call also carries the members, so that its
 * DCP learns who the communicator's ranks are. Freeing the communicator tells the DCP how many calls
 * there were.
 */
#include "../base/error.h"
#include "../base/state.h"
#include "../core/request.h"
#include "../schedule/coll_args.h"
#include "../schedule/schedule.h"
#include "dcp.h"
#include "dcp_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tdm_dcp_comm app_world_state;
static tdm_dcp_comm *live;
static int keyval = MPI_KEYVAL_INVALID;
static int group_order(tdm_dcp_comm *cc);
static int names_given;   /* by this rank, as some communicators' rank 0 */
static int said_inline;   /* TANDEM_VERBOSE said once that some calls run inline */

/* The broadcast of a communicator's name (start_naming): its request and the name it carries, apart from
 * the communicator's state, which may go first (the communicator freed, or a persistent call of it freed
 * unstarted, while it is in flight). MPI then completes it later, and may run the communicator's
 * attribute callbacks from inside that completion: nothing here is freed by them. */
typedef struct dcp_naming {
    MPI_Request request;
    dcp_key key;
    tdm_dcp_comm *cc; /* a rank other than 0 whose calls wait for the name, while cc lives; else NULL */
    struct dcp_naming *next;
} dcp_naming;
static dcp_naming *namings; /* in flight */
static void settle_namings(int wait);

void tdm_dcp_tell_server(dcp_header *h)
{
    h->bytes = (int)sizeof *h;
    MPI_Send(h, (int)sizeof *h, MPI_BYTE, tdm_dcp.server, 0, tdm_dcp.link_shadow->comm);
}

static void drop(tdm_dcp_comm *cc)
{
    if (--cc->refs > 0)
        return;
    if (cc->calls != tdm_dcp.first_call && cc->named) { /* its DCP may forget it after that many calls */
        dcp_header h = {.kind = DCP_FREED, .key = cc->key, .call = cc->calls};
        tdm_dcp_tell_server(&h);
    }
    if (cc->naming) /* its broadcast ends without it (settle_namings) */
        cc->naming->cc = NULL;
    if (cc->shadow)
        tdm_shadow_put(cc->shadow);
    if (cc->prev)
        cc->prev->next = cc->next;
    else
        live = cc->next;
    if (cc->next)
        cc->next->prev = cc->prev;
    free(cc->members);
    free(cc->order);
    free(cc);
}

static int on_comm_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    tdm_dcp_comm *cc = value;
    cc->comm = MPI_COMM_NULL;
    drop(cc);
    return MPI_SUCCESS;
}

int tdm_dcp_client_init(const char *fn)
{
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_comm_delete, &keyval, NULL);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating an attribute key", rc);
    int size, rank;
    MPI_Comm_size(tdm_dcp.app_world, &size);
    MPI_Comm_rank(tdm_dcp.app_world, &rank);
    /* its DCPs know its members from the mapping, and its name */
    app_world_state = (tdm_dcp_comm){.comm = tdm_dcp.app_world, .served = size > 1, .size = size, .rank = rank,
                                     .key = DCP_APP_WORLD_KEY, .named = 1, .announced = 1,
                                     .calls = tdm_dcp.first_call};
    app_world_state.members = malloc(sizeof(int) * (size_t)size);
    if (app_world_state.members)
        memcpy(app_world_state.members, tdm_dcp.map.app_world, sizeof(int) * (size_t)size);
    if (!app_world_state.members || !group_order(&app_world_state))
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the application world");
    /* its shadow now, as a first call run inline would make it: each call then finds its rank and size
     * there, not by asking MPI for the communicator's attributes. Made whole here, among the application
     * ranks: no call on it may progress its creation later (MPICH then completed it inside the
     * attribute's deletion at MPI_Finalize, and failed an assertion on the request). */
    tdm_shadow *shadow;
    int error = MPI_SUCCESS;
    rc = tdm_shadow_get(tdm_dcp.app_world, &shadow);
    while (rc == MPI_SUCCESS && !tdm_shadow_ready(shadow, &error))
        if (error != MPI_SUCCESS)
            rc = error;
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating Tandem's private communicator for the application world", rc);
    return MPI_SUCCESS;
}

/* The ranks of cc in group order; 0 if out of memory. */
static int group_order(tdm_dcp_comm *cc)
{
    int *group_of_rank = malloc(sizeof(int) * (size_t)cc->size), *group = malloc(sizeof(int) * (size_t)cc->size);
    cc->order = malloc(sizeof(int) * (size_t)cc->size);
    if (group_of_rank && group && cc->order) {
        tdm_dcp_groups(cc->members, cc->size, group_of_rank, group, cc->order);
        cc->contiguous = 1;
        for (int k = 0; k < cc->size; k++)
            cc->contiguous &= cc->order[k] == k;
    }
    free(group_of_rank);
    free(group);
    return cc->order != NULL;
}

/* The state of comm, made at its first call through the DCPs; NULL if out of memory. */
static tdm_dcp_comm *state_of(MPI_Comm comm)
{
    void *value;
    int found = 0, inter = 0;
    if (MPI_Comm_get_attr(comm, keyval, &value, &found) == MPI_SUCCESS && found)
        return value;
    tdm_dcp_comm *cc = calloc(1, sizeof *cc);
    if (!cc)
        return NULL;
    cc->comm = comm;
    cc->calls = tdm_dcp.first_call;
    cc->refs = 1;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &cc->size);
    MPI_Comm_rank(comm, &cc->rank);
    cc->served = !inter && cc->size > 1;
    if (cc->served) { /* its ranks in the world: all of them application ranks? */
        MPI_Group group, world;
        int *ranks = malloc(sizeof(int) * (size_t)cc->size);
        cc->members = malloc(sizeof(int) * (size_t)cc->size);
        if (!ranks || !cc->members) {
            free(ranks);
            free(cc->members);
            free(cc);
            return NULL;
        }
        for (int r = 0; r < cc->size; r++)
            ranks[r] = r;
        MPI_Comm_group(comm, &group);
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_translate_ranks(group, cc->size, ranks, world, cc->members);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        free(ranks);
        for (int r = 0; r < cc->size; r++)
            if (cc->members[r] != MPI_UNDEFINED && tdm_dcp.map.app_index[cc->members[r]] < 0)
                cc->holds_dcp = 1;
        for (int r = 0; r < cc->size && cc->served; r++)
            cc->served = cc->members[r] != MPI_UNDEFINED && tdm_dcp.map.app_index[cc->members[r]] >= 0;
    }
    if (cc->served && !group_order(cc))
        cc->served = 0;
    if (cc->served && tdm_shadow_get(comm, &cc->shadow) != MPI_SUCCESS)
        cc->served = 0; /* then its calls run inline, and report the error there */
    if (cc->shadow)
        cc->shadow->outstanding++; /* kept until the communicator is named */
    if (MPI_Comm_set_attr(comm, keyval, cc) != MPI_SUCCESS) {
        if (cc->shadow)
            tdm_shadow_put(cc->shadow);
        free(cc->members);
        free(cc);
        return NULL;
    }
    cc->next = live;
    if (live)
        live->prev = cc;
    live = cc;
    return cc;
}

static void say_inline(MPI_Comm comm)
{
    if (!tdm_global.verbose || said_inline)
        return;
    said_inline = 1;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "tandem: dcp progress serves the collectives of MPI-3 with predefined ops; other calls "
                        "run inline\n");
}

int tdm_dcp_serves(const tdm_coll_args *a, MPI_Comm comm, tdm_shadow **link, void **via)
{
    if (!tdm_dcp.active || tdm_dcp.is_dcp)
        return 0;
    tdm_dcp_comm *cc = comm == tdm_dcp.app_world ? &app_world_state : state_of(comm);
    if (cc && cc->holds_dcp) /* its DCP ranks never call: neither the DCPs nor inline can run it */
        return -1;
    if (!tdm_dcp_kind_of(a, 1)) {
        say_inline(comm);
        return 0;
    }
    if (!cc || !cc->served || !tdm_dcp_kind_of(a, cc->contiguous))
        return 0;
    if (namings)
        settle_namings(0);
    *link = tdm_dcp.link_shadow;
    *via = cc;
    return 1;
}

/* ---- naming a communicator ---- */


/* cc is named for this rank: the shadow held until then goes. */
static void named(tdm_dcp_comm *cc)
{
    cc->named = 1;
    if (cc->shadow)
        tdm_shadow_put(cc->shadow);
    cc->shadow = NULL;
}

static void forget_naming(dcp_naming *n)
{
    dcp_naming **at = &namings;
    while (*at != n)
        at = &(*at)->next;
    *at = n->next;
    free(n);
}

/* Completes the broadcasts nobody waits for (rank 0's, and those of communicators gone); wait: until
 * they are done (TDM_Finalize). */
static void settle_namings(int wait)
{
    /* from the first again after each completion: MPI may run attribute callbacks inside it, and they may
     * end other broadcasts (naming_progress); one nobody waits for is ended here only */
    for (dcp_naming *n = namings; n;) {
        int done = 0;
        if (!n->cc) {
            done = 1;
            if (wait)
                MPI_Wait(&n->request, MPI_STATUS_IGNORE);
            else
                MPI_Test(&n->request, &done, MPI_STATUS_IGNORE);
        }
        if (done) {
            forget_naming(n);
            n = namings;
        } else {
            n = n->next;
        }
    }
}

/* Starts naming cc, in the first call through the DCPs, a collective on it: rank 0 gives the others its
 * name by an MPI_Ibcast on the communicator, started inside that call, so that it takes the same place
 * among the communicator's collectives on every rank, and progressed by MPI alone (as the agreement on
 * its slot, shadow_slots.h). Rank 0 may block in MPI (a receive from a rank that waits for this call)
 * before it calls Tandem again: its call went to its DCP with the name, and MPI moves the broadcast on.
 * Rank 0 is named at once, and completes the broadcast in a later call. */
static int start_naming(tdm_dcp_comm *cc)
{
    if (cc->named || cc->naming_started)
        return MPI_SUCCESS;
    dcp_naming *n = calloc(1, sizeof *n);
    if (!n)
        return MPI_ERR_NO_MEM;
    if (cc->rank == 0)
        n->key = cc->key = (dcp_key){.leader = cc->members[0], .number = ++names_given};
    int rc = MPI_Ibcast(&n->key, 2, MPI_INT, 0, cc->comm, &n->request);
    if (rc != MPI_SUCCESS) {
        free(n);
        return rc;
    }
    n->next = namings;
    namings = n;
    cc->naming_started = 1;
    if (cc->rank == 0) {
        named(cc);
    } else {
        n->cc = cc;
        cc->naming = n;
    }
    return MPI_SUCCESS;
}

/* Advances the naming of cc (started) on a rank other than 0; 1 once named. */
static int naming_progress(tdm_dcp_comm *cc, int *error)
{
    if (cc->named)
        return 1;
    dcp_naming *n = cc->naming;
    int done = 0, rc = MPI_Test(&n->request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        *error = rc;
        return 0;
    }
    if (done) {
        cc->key = n->key;
        cc->naming = NULL;
        forget_naming(n);
        named(cc);
    }
    return done;
}

/* What a call waiting for its communicator's name holds. */
typedef struct naming_wait {
    tdm_dcp_comm *cc;
    dcp_header *header; /* in the schedule's message: the key goes there */
} naming_wait;

static int wait_for_name(tdm_run *run, int *error)
{
    naming_wait *w = run->prelude_arg;
    int named = naming_progress(w->cc, error);
    if (named)
        w->header->key = w->cc->key;
    if (named || *error != MPI_SUCCESS)
        drop(w->cc);
    return named;
}

/* The call waits for cc's name in w (which the request keeps). */
static void wait_in(struct tdm_request *req, naming_wait *w, tdm_dcp_comm *cc, dcp_header *header)
{
    *w = (naming_wait){.cc = cc, .header = header};
    cc->refs++;
    req->run.prelude = wait_for_name;
    req->run.prelude_arg = w;
}

int tdm_dcp_wait_for_name(struct tdm_request *req, tdm_dcp_comm *cc, dcp_header *header)
{
    int rc = start_naming(cc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (cc->named) {
        header->key = cc->key;
        return MPI_SUCCESS;
    }
    naming_wait *w = tdm_sched_tmp(&req->run.sched, sizeof *w);
    if (w) /* else out of memory: the schedule's build reports it */
        wait_in(req, w, cc, header);
    return MPI_SUCCESS;
}

/* ---- persistent calls ---- */

/* What a persistent call holds: its communicator, its message's header, its starts so far, and its wait
 * for the communicator's name (the first starts). */
typedef struct persistent_call {
    tdm_dcp_comm *cc;
    dcp_header *header;
    unsigned starts;
    naming_wait wait;
} persistent_call;

static void persistent_restart(struct tdm_request *req)
{
    persistent_call *pc = req->persistent_arg;
    tdm_dcp_comm *cc = pc->cc;
    /* the DCP matches it by its stream (its _init's place) and this count: the starts of different
     * persistent calls may come in different orders on different ranks */
    pc->header->call = pc->starts++;
    cc->announced = 1; /* its message carries the members */
    if (cc->named)
        pc->header->key = cc->key;
    else
        wait_in(req, &pc->wait, cc, pc->header);
}

static void persistent_release(struct tdm_request *req)
{
    persistent_call *pc = req->persistent_arg;
    if (pc->cc != &app_world_state) /* which lives until TDM_Finalize */
        drop(pc->cc);
}

int tdm_dcp_persistent_call(struct tdm_request *req, tdm_dcp_comm *cc, dcp_header *header)
{
    int rc = start_naming(cc); /* at the _init, a collective: its starts need not come in one order */
    if (rc != MPI_SUCCESS)
        return rc;
    persistent_call *pc = tdm_sched_tmp(&req->run.sched, sizeof *pc);
    if (!pc)
        return MPI_SUCCESS; /* the schedule's build reports it */
    *pc = (persistent_call){.cc = cc, .header = header};
    if (cc != &app_world_state)
        cc->refs++; /* its DCP hears that the communicator is freed only once this request is too */
    req->persistent_arg = pc;
    req->restart = persistent_restart;
    req->release = persistent_release;
    return MPI_SUCCESS;
}

void tdm_dcp_finalize(void)
{
    if (!tdm_dcp.active)
        return;
    while (live) { /* communicators never freed: their DCPs hear of it first */
        tdm_dcp_comm *cc = live;
        if (cc->comm != MPI_COMM_NULL)
            MPI_Comm_delete_attr(cc->comm, keyval); /* runs on_comm_delete */
        if (live == cc) { /* still held by calls never completed */
            live = cc->next;
            cc->prev = cc->next = NULL;
        }
    }
    settle_namings(1);
    dcp_header h = {.kind = DCP_FINALIZED};
    tdm_dcp_tell_server(&h);
    if (tdm_global.verbose) {
        long shm, messages;
        tdm_dcp_handoffs(&shm, &messages);
        fprintf(stderr, "tandem: rank %d: %ld calls handed to its DCP through the node's segment, %ld as messages\n",
                app_world_state.rank, shm, messages);
    }
    free(app_world_state.members);
    free(app_world_state.order);
    MPI_Comm_free_keyval(&keyval);
    MPI_Comm_free(&tdm_dcp.app_world);
    MPI_Comm_free(&tdm_dcp.dcp_link);
    MPI_Comm_free(&tdm_dcp.data_link);
    tdm_dcp_mapping_free(&tdm_dcp.map);
    free(tdm_dcp.node);
    tdm_dcp.node = NULL;
    tdm_dcp.active = 0;
    said_inline = 0;
}

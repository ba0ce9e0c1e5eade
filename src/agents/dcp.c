#include "dcp.h"

#include "../algorithms/coll_args.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../engine/shadow_comm.h"
#include "../placement/dcp_mapping.h"
#include "../schedule/schedule.h"
#include "tandem.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The predefined datatypes and ops a call may carry to its DCP, by their index here: a handle's value
 * may differ from one process to another. */
static const MPI_Datatype carried_types[] = {
    MPI_CHAR,  MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,     MPI_UNSIGNED_SHORT, MPI_INT,    MPI_UNSIGNED,
    MPI_LONG,  MPI_UNSIGNED_LONG, MPI_LONG_LONG,   MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_INT8_T,
    MPI_INT16_T, MPI_INT32_T,   MPI_INT64_T,       MPI_UINT8_T,   MPI_UINT16_T,       MPI_UINT32_T, MPI_UINT64_T,
};
static const MPI_Op carried_ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,  MPI_LAND,
                                     MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
#define NTYPES ((int)(sizeof carried_types / sizeof carried_types[0]))
#define NOPS ((int)(sizeof carried_ops / sizeof carried_ops[0]))

/* What a client's message to its DCP starts with; the contribution's bytes follow. */
typedef struct {
    int kind;  /* DCP_ALLREDUCE, or DCP_FINALIZED: the client is done */
    int type;  /* index in carried_types */
    int op;    /* index in carried_ops */
    int count;
} dcp_header;

enum { DCP_ALLREDUCE = 1, DCP_FINALIZED = 2 };

static struct {
    int active;
    tdm_dcp_mapping map;
    MPI_Comm app_world;  /* the application ranks */
    MPI_Comm dcp_world;  /* the DCPs that serve clients (on a DCP rank) */
    MPI_Comm link;       /* clients and DCPs: a private duplicate of MPI_COMM_WORLD */
    tdm_shadow *link_shadow; /* its shadow, whose duplicate carries the messages and whose tags they take */
    int server;          /* a client's DCP, as a rank of the link */
    int said_inline;     /* TANDEM_VERBOSE said once that some calls run inline */
} dcp = {.app_world = MPI_COMM_NULL, .dcp_world = MPI_COMM_NULL, .link = MPI_COMM_NULL};

int tdm_dcp_active(void) { return dcp.active; }

MPI_Comm tdm_dcp_app_world(void) { return dcp.active ? dcp.app_world : MPI_COMM_WORLD; }

static int index_of_type(MPI_Datatype type)
{
    for (int i = 0; i < NTYPES; i++)
        if (carried_types[i] == type)
            return i;
    return -1;
}

static int index_of_op(MPI_Op op)
{
    for (int i = 0; i < NOPS; i++)
        if (carried_ops[i] == op)
            return i;
    return -1;
}

/* ---- the DCP's side ---- */

/* One client's contribution to a call, queued until every client's is there. */
typedef struct contribution {
    struct contribution *next;
    dcp_header h;
    int tag;    /* the client's, for the answer */
    char *data; /* the message: the header, then the bytes */
} contribution;

/* A call the DCPs run among themselves, then answer. */
typedef struct call {
    struct call *next;
    TDM_Request req; /* the allreduce among the DCPs; done: NULL */
    char *combined, *result;
    int count;
    MPI_Datatype type;
    int *tags;             /* per client */
    MPI_Request *answers;  /* per client, once the result is there */
} call;

/* The clients' contributions, combined in the clients' order: c_0 op (c_1 op (... op c_last)). */
static char *combine(contribution **oldest, int clients, MPI_Datatype type, MPI_Op op, int count)
{
    int size;
    MPI_Type_size(type, &size);
    size_t bytes = (size_t)count * (size_t)size;
    char *acc = malloc(bytes + 1);
    if (!acc)
        return NULL;
    memcpy(acc, oldest[clients - 1]->data + sizeof(dcp_header), bytes);
    for (int c = clients - 2; c >= 0; c--)
        MPI_Reduce_local(oldest[c]->data + sizeof(dcp_header), acc, count, type, op);
    return acc;
}

static void fail(const char *what, int rc)
{
    fprintf(stderr, "tandem: dedicated collective process: %s failed (MPI error %d); aborting\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Serves the clients of DCP d until they all finalized. */
static void serve(int d)
{
    int first = dcp.map.first_client[d], clients = dcp.map.clients[d], finished = 0;
    contribution **head = calloc((size_t)clients + 1, sizeof *head), **tail = calloc((size_t)clients + 1, sizeof *tail);
    contribution **oldest = calloc((size_t)clients + 1, sizeof *oldest);
    call *calls = NULL, **calls_end = &calls;
    if (!head || !tail || !oldest)
        fail("allocating its queues", MPI_ERR_NO_MEM);
    while (finished < clients || calls) {
        int moved = 0, flag = 0, rc;
        MPI_Message message;
        MPI_Status status;
        /* a client's message: a contribution, or its end */
        if ((rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, dcp.link_shadow->comm, &flag, &message, &status)) != MPI_SUCCESS)
            fail("MPI_Improbe", rc);
        if (flag) {
            int bytes;
            MPI_Get_count(&status, MPI_BYTE, &bytes);
            contribution *in = malloc(sizeof *in);
            char *data = malloc((size_t)bytes + 1);
            if (!in || !data)
                fail("allocating a contribution", MPI_ERR_NO_MEM);
            if ((rc = MPI_Mrecv(data, bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                fail("MPI_Mrecv", rc);
            int c = dcp.map.app_index[status.MPI_SOURCE] - first;
            *in = (contribution){.tag = status.MPI_TAG, .data = data};
            memcpy(&in->h, data, sizeof in->h);
            if (in->h.kind == DCP_FINALIZED) {
                finished++;
                free(data);
                free(in);
            } else {
                *(tail[c] ? &tail[c]->next : &head[c]) = in;
                tail[c] = in;
            }
            moved = 1;
        }
        /* the oldest call of every client there: combined, and run among the DCPs */
        int ready = clients > 0;
        for (int c = 0; c < clients; c++)
            ready &= head[c] != NULL;
        if (ready) {
            for (int c = 0; c < clients; c++) {
                oldest[c] = head[c];
                head[c] = head[c]->next;
                if (!head[c])
                    tail[c] = NULL;
            }
            dcp_header h = oldest[0]->h;
            call *x = calloc(1, sizeof *x);
            if (!x || !(x->tags = malloc(sizeof(int) * (size_t)clients)) ||
                !(x->answers = malloc(sizeof(MPI_Request) * (size_t)clients)))
                fail("allocating a call", MPI_ERR_NO_MEM);
            x->count = h.count;
            x->type = carried_types[h.type];
            int size;
            MPI_Type_size(x->type, &size);
            if (!(x->combined = combine(oldest, clients, x->type, carried_ops[h.op], h.count)) ||
                !(x->result = malloc((size_t)h.count * (size_t)size + 1)))
                fail("allocating a call's buffers", MPI_ERR_NO_MEM);
            for (int c = 0; c < clients; c++) {
                x->tags[c] = oldest[c]->tag;
                free(oldest[c]->data);
                free(oldest[c]);
            }
            if ((rc = TDM_Iallreduce(x->combined, x->result, h.count, x->type, carried_ops[h.op], dcp.dcp_world,
                                     &x->req)) != MPI_SUCCESS)
                fail("the allreduce among the DCPs", rc);
            *calls_end = x;
            calls_end = &x->next;
            moved = 1;
        }
        /* calls in flight: done among the DCPs, then answered */
        for (call **p = &calls; *p;) {
            call *x = *p;
            int done = 0;
            if (x->req) {
                if ((rc = TDM_Test(&x->req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                    fail("the allreduce among the DCPs", rc);
                if (done) {
                    x->req = NULL;
                    for (int c = 0; c < clients; c++)
                        MPI_Isend(x->result, x->count, x->type, dcp.map.app_world[first + c], x->tags[c], dcp.link_shadow->comm,
                                  &x->answers[c]);
                    moved = 1;
                }
                done = 0;
            } else {
                done = 1;
                for (int c = 0; c < clients && done; c++) { /* answers go out in client order */
                    int sent = 0;
                    if ((rc = MPI_Test(&x->answers[c], &sent, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                        fail("answering a client", rc);
                    done = sent;
                }
            }
            if (done) {
                *p = x->next;
                if (!*p)
                    calls_end = p;
                free(x->combined);
                free(x->result);
                free(x->tags);
                free(x->answers);
                free(x);
                moved = 1;
            } else {
                p = &x->next;
            }
        }
        if (!moved)
            sched_yield(); /* nothing arrived: a core shared with the application gets it back */
    }
    free(head);
    free(tail);
    free(oldest);
}

/* ---- setup ---- */

static int positive_setting(const char *fn, const char *name, int *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return MPI_SUCCESS;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > INT_MAX)
        return tdm_error(fn, MPI_ERR_ARG, "%s=%s: expected a positive number", name, v);
    *out = (int)n;
    return MPI_SUCCESS;
}

int tdm_dcp_init(const char *fn)
{
    int ranks, rank, ratio = 8, count = 0, rc;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((rc = positive_setting(fn, "TANDEM_DCP_RATIO", &ratio)) != MPI_SUCCESS ||
        (rc = positive_setting(fn, "TANDEM_DCP_COUNT", &count)) != MPI_SUCCESS)
        return rc;
    if (ranks < 2)
        return tdm_error(fn, MPI_ERR_OTHER, "dcp progress needs 2 ranks or more (a dedicated collective process "
                                            "and an application rank); the job has 1");
    int dcps = count ? count : tdm_dcp_count_from_ratio(ranks, ratio, 0);
    if (dcps >= ranks)
        return tdm_error(fn, MPI_ERR_ARG, "%s leaves no application rank: %d dedicated collective processes of "
                                          "%d ranks", count ? "TANDEM_DCP_COUNT" : "TANDEM_DCP_RATIO", dcps, ranks);
    /* every rank's node: the lowest rank on it */
    MPI_Comm node;
    int leader = rank, *nodes = malloc(sizeof(int) * (size_t)ranks);
    if (!nodes)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the mapping");
    if ((rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) != MPI_SUCCESS) {
        free(nodes);
        return tdm_mpi_error(fn, "finding the ranks of this node", rc);
    }
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    MPI_Allgather(&leader, 1, MPI_INT, nodes, 1, MPI_INT, MPI_COMM_WORLD);
    rc = tdm_dcp_map(ranks, nodes, dcps, &dcp.map);
    free(nodes);
    if (rc != 0)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the mapping");
    int d = dcp.map.dcp_index[rank], serving = d >= 0 && dcp.map.clients[d] > 0;
    MPI_Comm_split(MPI_COMM_WORLD, d >= 0 ? MPI_UNDEFINED : 0, rank, &dcp.app_world);
    MPI_Comm_split(MPI_COMM_WORLD, serving ? 0 : MPI_UNDEFINED, rank, &dcp.dcp_world);
    if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &dcp.link)) != MPI_SUCCESS)
        return tdm_mpi_error(fn, "duplicating MPI_COMM_WORLD", rc);
    /* the link's shadow on every rank now: its duplicate is collective over all of them */
    int error = MPI_SUCCESS;
    if ((rc = tdm_shadow_get(dcp.link, &dcp.link_shadow)) != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating the link to the dedicated collective processes", rc);
    while (!tdm_shadow_ready(dcp.link_shadow, &error))
        if (error != MPI_SUCCESS)
            return tdm_mpi_error(fn, "creating the link to the dedicated collective processes", error);
    dcp.active = 1;
    if (tdm_global.verbose && rank == 0)
        fprintf(stderr, "tandem: dcp progress: %d dedicated collective processes serve %d application ranks\n",
                dcps, ranks - dcps);
    if (d >= 0) { /* a DCP: serves, then leaves the program */
        serve(d);
        MPI_Finalize();
        exit(0);
    }
    dcp.server = dcp.map.dcp_world[dcp.map.server[dcp.map.app_index[rank]]];
    return MPI_SUCCESS;
}

/* ---- the application's side ---- */

int tdm_dcp_serves(const struct tdm_coll_args *a, MPI_Comm comm, struct tdm_shadow **link, int *server)
{
    if (!dcp.active)
        return 0;
    int served = a->kind == TDM_COLL_ALLREDUCE && comm == dcp.app_world && a->count > 0 &&
                 index_of_type(a->datatype) >= 0 && index_of_op(a->op) >= 0;
    if (!served) {
        if (tdm_global.verbose && !dcp.said_inline && comm == dcp.app_world) {
            dcp.said_inline = 1;
            int rank;
            MPI_Comm_rank(dcp.app_world, &rank);
            if (rank == 0)
                fprintf(stderr, "tandem: dcp progress serves allreduce of predefined datatypes and ops on "
                                "TDM_Comm_world(); other calls run inline\n");
        }
        return 0;
    }
    *link = dcp.link_shadow;
    *server = dcp.server;
    return 1;
}

int tdm_dcp_build_client(void *sched, const struct tdm_coll_args *a, int server)
{
    tdm_schedule *s = sched;
    dcp_header h = {.kind = DCP_ALLREDUCE, .type = index_of_type(a->datatype), .op = index_of_op(a->op),
                    .count = a->count};
    int bytes = a->count * a->dtype.size;
    char *message = tdm_sched_tmp(s, sizeof h + (size_t)bytes);
    if (!message)
        return tdm_sched_finish(s);
    memcpy(message, &h, sizeof h);
    const void *mine = a->in_place ? a->recvbuf : a->sendbuf;
    tdm_sched_copy(s, mine, a->count, a->datatype, message + sizeof h, bytes, MPI_PACKED);
    tdm_sched_send(s, message, (int)sizeof h + bytes, MPI_BYTE, server);
    tdm_sched_recv(s, a->recvbuf, a->count, a->datatype, server);
    return tdm_sched_finish(s);
}

void tdm_dcp_finalize(void)
{
    if (!dcp.active)
        return;
    dcp_header h = {.kind = DCP_FINALIZED};
    MPI_Send(&h, (int)sizeof h, MPI_BYTE, dcp.server, 0, dcp.link_shadow->comm);
    MPI_Comm_free(&dcp.app_world);
    tdm_dcp_mapping_free(&dcp.map);
    dcp.active = 0;
    dcp.said_inline = 0;
}

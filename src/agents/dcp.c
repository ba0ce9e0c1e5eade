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

/* What a client's message to its DCP starts with; its contribution's bytes follow (allreduce, reduce,
 * the root's bcast). Every client of a call sends one, so that every DCP learns of the call. */
typedef struct {
    int kind;  /* DCP_ALLREDUCE ... DCP_BARRIER, or DCP_FINALIZED: the client is done */
    int type;  /* index in carried_types */
    int op;    /* index in carried_ops */
    int count;
    int root;  /* reduce, bcast: an application rank */
} dcp_header;

enum { DCP_ALLREDUCE = 1, DCP_REDUCE, DCP_BCAST, DCP_BARRIER, DCP_FINALIZED };

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
    TDM_Request req; /* the collective among the DCPs; done: NULL */
    char *combined, *result;
    int count;       /* elements of type in the answer */
    MPI_Datatype type;
    int *tags;             /* per client */
    int *answered;         /* per client: whether it gets the result */
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

/* The rank among the serving DCPs (dcp_world) of the DCP that serves application rank a. */
static int dcp_world_rank_of(int a)
{
    int d = dcp.map.server[a], rank = 0;
    for (int e = 0; e < d; e++)
        rank += dcp.map.clients[e] > 0;
    return rank;
}

/* Starts the call whose contributions are oldest[0..clients-1] (its clients from application rank
 * `first` on) among the DCPs, and frees the contributions. */
static call *start_call(contribution **oldest, int clients, int first)
{
    dcp_header h = oldest[0]->h;
    call *x = calloc(1, sizeof *x);
    if (!x || !(x->tags = malloc(sizeof(int) * (size_t)clients)) ||
        !(x->answered = malloc(sizeof(int) * (size_t)clients)) ||
        !(x->answers = malloc(sizeof(MPI_Request) * (size_t)clients)))
        fail("allocating a call", MPI_ERR_NO_MEM);
    int barrier = h.kind == DCP_BARRIER, size = 1;
    x->type = barrier ? MPI_BYTE : carried_types[h.type];
    x->count = barrier ? 1 : h.count; /* a barrier answers with a byte */
    MPI_Type_size(x->type, &size);
    size_t bytes = (size_t)x->count * (size_t)size;
    if (!(x->result = malloc(bytes + 1)))
        fail("allocating a call's buffers", MPI_ERR_NO_MEM);
    int root_dcp = h.kind == DCP_REDUCE || h.kind == DCP_BCAST ? dcp_world_rank_of(h.root) : -1, rc;
    for (int c = 0; c < clients; c++) {
        x->tags[c] = oldest[c]->tag;
        x->answers[c] = MPI_REQUEST_NULL;
        x->answered[c] = h.kind == DCP_REDUCE ? first + c == h.root : h.kind == DCP_BCAST ? first + c != h.root : 1;
        if (h.kind == DCP_BCAST && first + c == h.root) /* the root's data, to bcast from here */
            memcpy(x->result, oldest[c]->data + sizeof(dcp_header), bytes);
    }
    if (h.kind == DCP_ALLREDUCE || h.kind == DCP_REDUCE)
        if (!(x->combined = combine(oldest, clients, x->type, carried_ops[h.op], h.count)))
            fail("allocating a call's buffers", MPI_ERR_NO_MEM);
    for (int c = 0; c < clients; c++) {
        free(oldest[c]->data);
        free(oldest[c]);
    }
    switch (h.kind) {
    case DCP_ALLREDUCE:
        rc = TDM_Iallreduce(x->combined, x->result, h.count, x->type, carried_ops[h.op], dcp.dcp_world, &x->req);
        break;
    case DCP_REDUCE:
        rc = TDM_Ireduce(x->combined, x->result, h.count, x->type, carried_ops[h.op], root_dcp, dcp.dcp_world, &x->req);
        break;
    case DCP_BCAST:
        rc = TDM_Ibcast(x->result, h.count, x->type, root_dcp, dcp.dcp_world, &x->req);
        break;
    default:
        rc = TDM_Ibarrier(dcp.dcp_world, &x->req);
        break;
    }
    if (rc != MPI_SUCCESS)
        fail("the collective among the DCPs", rc);
    return x;
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
            call *x = start_call(oldest, clients, first);
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
                    fail("the collective among the DCPs", rc);
                if (done) {
                    x->req = NULL;
                    for (int c = 0; c < clients; c++)
                        if (x->answered[c])
                            MPI_Isend(x->result, x->count, x->type, dcp.map.app_world[first + c], x->tags[c],
                                      dcp.link_shadow->comm, &x->answers[c]);
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
                free(x->answered);
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
    int typed = a->count > 0 && index_of_type(a->datatype) >= 0;
    int served = comm == dcp.app_world &&
                 (((a->kind == TDM_COLL_ALLREDUCE || a->kind == TDM_COLL_REDUCE) && typed && index_of_op(a->op) >= 0) ||
                  (a->kind == TDM_COLL_BCAST && typed) || a->kind == TDM_COLL_BARRIER);
    if (!served) {
        if (tdm_global.verbose && !dcp.said_inline && comm == dcp.app_world) {
            dcp.said_inline = 1;
            int rank;
            MPI_Comm_rank(dcp.app_world, &rank);
            if (rank == 0)
                fprintf(stderr, "tandem: dcp progress serves allreduce, reduce, bcast and barrier of predefined "
                                "datatypes and ops on TDM_Comm_world(); other calls run inline\n");
        }
        return 0;
    }
    *link = dcp.link_shadow;
    *server = dcp.server;
    return 1;
}

const char *tdm_dcp_client_name(const struct tdm_coll_args *a)
{
    return a->kind == TDM_COLL_ALLREDUCE ? "allreduce_dcp"
           : a->kind == TDM_COLL_REDUCE  ? "reduce_dcp"
           : a->kind == TDM_COLL_BCAST   ? "bcast_dcp"
                                         : "barrier_dcp";
}

int tdm_dcp_build_client(void *sched, const struct tdm_coll_args *a, int server)
{
    tdm_schedule *s = sched;
    int kind = a->kind == TDM_COLL_ALLREDUCE ? DCP_ALLREDUCE
               : a->kind == TDM_COLL_REDUCE  ? DCP_REDUCE
               : a->kind == TDM_COLL_BCAST   ? DCP_BCAST
                                             : DCP_BARRIER;
    dcp_header h = {.kind = kind, .type = index_of_type(a->datatype), .op = index_of_op(a->op), .count = a->count,
                    .root = a->root};
    /* what this client sends besides the header, and whether a result comes back */
    int contributes = kind == DCP_ALLREDUCE || kind == DCP_REDUCE || (kind == DCP_BCAST && a->rank == a->root);
    int receives = kind == DCP_ALLREDUCE || kind == DCP_BARRIER || (kind == DCP_REDUCE && a->rank == a->root) ||
                   (kind == DCP_BCAST && a->rank != a->root);
    int bytes = contributes ? a->count * a->dtype.size : 0;
    char *message = tdm_sched_tmp(s, sizeof h + (size_t)bytes + (kind == DCP_BARRIER));
    if (!message)
        return tdm_sched_finish(s);
    memcpy(message, &h, sizeof h);
    if (contributes) {
        const void *mine = kind == DCP_BCAST || a->in_place ? a->recvbuf : a->sendbuf;
        tdm_sched_copy(s, mine, a->count, a->datatype, message + sizeof h, bytes, MPI_PACKED);
    }
    tdm_sched_send(s, message, (int)sizeof h + bytes, MPI_BYTE, server);
    if (receives && kind == DCP_BARRIER)
        tdm_sched_recv(s, message + sizeof h, 1, MPI_BYTE, server); /* the DCPs' barrier passed */
    else if (receives)
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

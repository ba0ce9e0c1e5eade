/*
 * The neighbourhood collectives on every kind of topology, compared with MPI's own: Cartesian (a
 * periodic ring, a 2-D grid open in one dimension, a periodic dimension of 2 ranks or of 1, where a rank
 * is both neighbours of a dimension), a graph with every edge twice, and an asymmetric distributed
 * graph. Each of the five collectives non-blocking, blocking, and persistent over rounds of new data;
 * block sizes differ per pair of ranks, and alltoallw mixes datatypes. Then the bad arguments. In dcp
 * progress (TANDEM_PROGRESS=dcp) on the application's ranks, every call through the DCPs.
 */
#include "harness.h"

#ifdef TANDEM_TEST_THROUGH_MPI
#include <dlfcn.h>
#endif

#include <stdlib.h>
#include <string.h>

/* MPI_UNWEIGHTED is a constant pointer that GCC takes for an empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

#define MAXN 16   /* neighbours at most */
#define BLOCK 8   /* ints reserved per neighbour */

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, NKINDS };
static const char *kind_name[NKINDS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

typedef struct {
    MPI_Comm comm;
    const char *name;
    int rank, nin, nout, in[MAXN], out[MAXN];
} topology;

static int pair_count(int from, int to) { return 1 + (from + 2 * to) % 3; } /* what rank `from` sends `to` */

static void neighbours(topology *t)
{
    int status;
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Topo_test(t->comm, &status);
    if (status == MPI_CART) {
        int nd;
        MPI_Cartdim_get(t->comm, &nd);
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]);
        t->nin = t->nout = 2 * nd;
        memcpy(t->out, t->in, sizeof t->in);
    } else if (status == MPI_GRAPH) {
        MPI_Graph_neighbors_count(t->comm, t->rank, &t->nin);
        MPI_Graph_neighbors(t->comm, t->rank, MAXN, t->in);
        t->nout = t->nin;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int weighted;
        MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &weighted);
        MPI_Dist_graph_neighbors(t->comm, MAXN, t->in, MPI_UNWEIGHTED, MAXN, t->out, MPI_UNWEIGHTED);
    }
}

/* The arguments of one call: sends and receives laid out per neighbour. */
typedef struct {
    int send[MAXN * BLOCK], scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
    MPI_Aint sbytes[MAXN], rbytes[MAXN];
    MPI_Datatype stypes[MAXN], rtypes[MAXN];
} call_args;

static MPI_Datatype one_int; /* a derived datatype of one int: alltoallw mixes it with MPI_INT */

static void layout(const topology *t, int kind, int round, call_args *c)
{
    for (int k = 0; k < MAXN * BLOCK; k++)
        c->send[k] = (t->rank + 1) * 10000 + round * 100 + k;
    for (int j = 0; j < t->nout; j++) {
        int peer = t->out[j] == MPI_PROC_NULL ? 0 : t->out[j];
        c->scounts[j] = kind == ALLTOALL ? 2 : pair_count(t->rank, peer);
        c->sdispls[j] = (t->nout - 1 - j) * BLOCK; /* reverse order: displacements matter */
        c->sbytes[j] = (MPI_Aint)c->sdispls[j] * (MPI_Aint)sizeof(int);
        c->stypes[j] = (t->rank + peer) % 2 ? one_int : MPI_INT;
    }
    for (int i = 0; i < t->nin; i++) {
        int peer = t->in[i] == MPI_PROC_NULL ? 0 : t->in[i];
        c->rcounts[i] = kind == ALLTOALL || kind == ALLGATHER ? 2
                        : kind == ALLGATHERV                  ? 1 + peer % 3
                                                              : pair_count(peer, t->rank);
        c->rdispls[i] = i * BLOCK;
        c->rbytes[i] = (MPI_Aint)c->rdispls[i] * (MPI_Aint)sizeof(int);
        c->rtypes[i] = (t->rank + peer) % 2 ? one_int : MPI_INT;
    }
}

/* MPI's call (mpi) or Tandem's non-blocking (0), blocking (1) or persistent (2) one. */
static int call(int kind, int mpi, int form, const topology *t, call_args *c, int *recv, TDM_Request *req)
{
    MPI_Comm comm = t->comm;
    int sc = kind == ALLGATHERV ? 1 + t->rank % 3 : 2;
    switch (kind) {
    case ALLGATHER:
        if (mpi) return REFERENCE(MPI_Ineighbor_allgather, c->send, sc, MPI_INT, recv, 2, MPI_INT, comm);
        if (form == 1) return TDM_Neighbor_allgather(c->send, sc, MPI_INT, recv, 2, MPI_INT, comm);
        if (form == 2) return TDM_Neighbor_allgather_init(c->send, sc, MPI_INT, recv, 2, MPI_INT, comm, MPI_INFO_NULL, req);
        return TDM_Ineighbor_allgather(c->send, sc, MPI_INT, recv, 2, MPI_INT, comm, req);
    case ALLGATHERV:
        if (mpi) return REFERENCE(MPI_Ineighbor_allgatherv, c->send, sc, MPI_INT, recv, c->rcounts, c->rdispls, MPI_INT, comm);
        if (form == 1) return TDM_Neighbor_allgatherv(c->send, sc, MPI_INT, recv, c->rcounts, c->rdispls, MPI_INT, comm);
        if (form == 2)
            return TDM_Neighbor_allgatherv_init(c->send, sc, MPI_INT, recv, c->rcounts, c->rdispls, MPI_INT, comm,
                                                MPI_INFO_NULL, req);
        return TDM_Ineighbor_allgatherv(c->send, sc, MPI_INT, recv, c->rcounts, c->rdispls, MPI_INT, comm, req);
    case ALLTOALL:
        if (mpi) return REFERENCE(MPI_Ineighbor_alltoall, c->send, 2, MPI_INT, recv, 2, MPI_INT, comm);
        if (form == 1) return TDM_Neighbor_alltoall(c->send, 2, MPI_INT, recv, 2, MPI_INT, comm);
        if (form == 2) return TDM_Neighbor_alltoall_init(c->send, 2, MPI_INT, recv, 2, MPI_INT, comm, MPI_INFO_NULL, req);
        return TDM_Ineighbor_alltoall(c->send, 2, MPI_INT, recv, 2, MPI_INT, comm, req);
    case ALLTOALLV:
        if (mpi)
            return REFERENCE(MPI_Ineighbor_alltoallv, c->send, c->scounts, c->sdispls, MPI_INT, recv, c->rcounts,
                             c->rdispls, MPI_INT, comm);
        if (form == 1)
            return TDM_Neighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, recv, c->rcounts, c->rdispls,
                                          MPI_INT, comm);
        if (form == 2)
            return TDM_Neighbor_alltoallv_init(c->send, c->scounts, c->sdispls, MPI_INT, recv, c->rcounts, c->rdispls,
                                               MPI_INT, comm, MPI_INFO_NULL, req);
        return TDM_Ineighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, recv, c->rcounts, c->rdispls,
                                       MPI_INT, comm, req);
    default:
        if (mpi)
            return REFERENCE(MPI_Ineighbor_alltoallw, c->send, c->scounts, c->sbytes, c->stypes, recv, c->rcounts,
                             c->rbytes, c->rtypes, comm);
        if (form == 1)
            return TDM_Neighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, recv, c->rcounts, c->rbytes,
                                          c->rtypes, comm);
        if (form == 2)
            return TDM_Neighbor_alltoallw_init(c->send, c->scounts, c->sbytes, c->stypes, recv, c->rcounts, c->rbytes,
                                               c->rtypes, comm, MPI_INFO_NULL, req);
        return TDM_Ineighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, recv, c->rcounts, c->rbytes,
                                       c->rtypes, comm, req);
    }
}

/*
 * The standard's own definition as the reference where MPIs disagree (MPI-4.1 section 8.6, Example
 * 8.10, an MPI-3.1 erratum): the point-to-point exchange the collective equals. On a Cartesian
 * topology the block a rank sends to neighbour j arrives in block j^1 of that neighbour (per-direction
 * tags make it so where one rank is both neighbours of a dimension); on graphs the k-th edge to a rank
 * matches the k-th edge from it.
 */
static void standard_reference(int kind, const topology *t, const call_args *c, int *recv)
{
    MPI_Request reqs[2 * MAXN];
    int n = 0, cart, sc = kind == ALLGATHERV ? 1 + t->rank % 3 : 2;
    MPI_Topo_test(t->comm, &cart);
    cart = cart == MPI_CART;
    for (int i = 0; i < t->nin; i++) {
        MPI_Datatype type = kind == ALLTOALLW ? c->rtypes[i] : MPI_INT;
        int count = kind == ALLGATHER || kind == ALLTOALL ? 2 : c->rcounts[i];
        int *block = recv + (kind == ALLGATHER || kind == ALLTOALL ? 2 * i : c->rdispls[i]);
        MPI_Irecv(block, count, type, t->in[i], cart ? i ^ 1 : 0, t->comm, &reqs[n++]);
    }
    for (int j = 0; j < t->nout; j++) {
        MPI_Datatype type = kind == ALLTOALLW ? c->stypes[j] : MPI_INT;
        int count = kind == ALLGATHER || kind == ALLGATHERV ? sc : kind == ALLTOALL ? 2 : c->scounts[j];
        const int *block = kind == ALLGATHER || kind == ALLGATHERV ? c->send
                           : kind == ALLTOALL                     ? c->send + 2 * j
                                                                  : c->send + c->sdispls[j];
        MPI_Isend(block, count, type, t->out[j], cart ? j : 0, t->comm, &reqs[n++]);
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}

static void compare(const topology *t, int kind, const char *form, int round, const int *ours, const int *theirs)
{
    check(memcmp(ours, theirs, sizeof(int) * MAXN * BLOCK) == 0, "%s, neighbor_%s (%s, round %d): not MPI's result",
          t->name, kind_name[kind], form, round);
}

/* Some neighbour appears twice in the lists (on a Cartesian topology, a periodic dimension of 1 or 2
 * ranks): where MPIs disagree with the standard (Open MPI 4.1's non-blocking neighbour alltoalls on
 * such Cartesian dimensions, MPICH 4.0's neighbour alltoall on a graph's repeated edges). */
static int repeats_an_edge(const topology *t)
{
    for (int j = 0; j < t->nout; j++)
        for (int k = j + 1; k < t->nout; k++)
            if (t->out[j] == t->out[k] && t->out[j] != MPI_PROC_NULL)
                return 1;
    return 0;
}

/* The expected result: the standard's exchange, and MPI's own collective where MPIs agree with it. */
static void expect(const topology *t, int kind, const call_args *c, int *theirs)
{
    standard_reference(kind, t, c, theirs);
    if (repeats_an_edge(t))
        return;
    static int mpi[MAXN * BLOCK];
    memset(mpi, 0xff, sizeof mpi);
    check(call(kind, 1, 0, t, (call_args *)c, mpi, NULL) == MPI_SUCCESS, "MPI's neighbor_%s failed", kind_name[kind]);
    check(memcmp(mpi, theirs, sizeof mpi) == 0, "%s, neighbor_%s: MPI's own differs from the standard's exchange",
          t->name, kind_name[kind]);
}

/* TANDEM_PROGRESS=dcp: every neighbourhood collective goes through the dedicated collective processes. */
static int dcp_mode;

static void served_by_dcps(const topology *t, int kind, TDM_Request req)
{
#ifndef TANDEM_TEST_THROUGH_MPI
    char name[64];
    snprintf(name, sizeof name, "neighbor_%s_dcp", kind_name[kind]);
    const char *running = TDM_Request_algorithm(req);
    if (dcp_mode)
        check(running && strcmp(running, name) == 0, "%s: neighbor_%s runs %s, not through the DCPs", t->name,
              kind_name[kind], running ? running : "(null)");
#else
    (void)t, (void)kind, (void)req;
#endif
}

static void run_topology(topology *t)
{
    neighbours(t);
    static int ours[MAXN * BLOCK], theirs[MAXN * BLOCK];
    for (int kind = 0; kind < NKINDS; kind++) {
        call_args c;
        /* non-blocking and blocking */
        for (int form = 0; form < 2; form++) {
            layout(t, kind, form, &c);
            memset(ours, 0xff, sizeof ours);
            memset(theirs, 0xff, sizeof theirs);
            TDM_Request req;
            int rc = call(kind, 0, form, t, &c, ours, &req);
            check(rc == MPI_SUCCESS, "%s, neighbor_%s: %s", t->name, kind_name[kind], TDM_Last_error());
            if (rc == MPI_SUCCESS && form == 0) {
                served_by_dcps(t, kind, req);
                CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
            }
            expect(t, kind, &c, theirs);
            compare(t, kind, form ? "blocking" : "non-blocking", 0, ours, theirs);
        }
        /* persistent: built once, run 3 times with new data */
        TDM_Request req;
        layout(t, kind, 0, &c);
        memset(ours, 0xff, sizeof ours);
        CHECK_TDM(call(kind, 0, 2, t, &c, ours, &req));
        for (int round = 1; round <= 3; round++) {
            layout(t, kind, round, &c);
            CHECK_TDM(TDM_Start(&req));
            CHECK_TDM(TDM_Wait(&req, MPI_STATUS_IGNORE));
            memset(theirs, 0xff, sizeof theirs);
            expect(t, kind, &c, theirs);
            compare(t, kind, "persistent", round, ours, theirs);
        }
        CHECK_TDM(TDM_Request_free(&req));
    }
}

#ifndef TANDEM_TEST_THROUGH_MPI
static void bad_arguments(MPI_Comm cart)
{
    int buf[4] = {0}, counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    TDM_Request req;
    int rc = TDM_Ineighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD, &req);
    check(rc == MPI_ERR_TOPOLOGY && strstr(TDM_Last_error(), "comm"),
          "no topology: MPI_ERR_TOPOLOGY naming comm expected, got %d: %s", rc, TDM_Last_error());
    rc = TDM_Ineighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, cart, &req);
    check(rc == MPI_ERR_BUFFER && strstr(TDM_Last_error(), "sendbuf"), "MPI_IN_PLACE: got %d: %s", rc, TDM_Last_error());
    rc = TDM_Ineighbor_alltoallv(buf, counts, NULL, MPI_INT, buf, counts, displs, MPI_INT, cart, &req);
    check(rc == MPI_ERR_ARG && strstr(TDM_Last_error(), "sdispls"), "NULL sdispls: got %d: %s", rc, TDM_Last_error());
    rc = TDM_Neighbor_allgather(buf, -1, MPI_INT, buf, 1, MPI_INT, cart);
    check(rc == MPI_ERR_COUNT && strstr(TDM_Last_error(), "TDM_Neighbor_allgather") && strstr(TDM_Last_error(), "sendcount"),
          "negative sendcount: got %d: %s", rc, TDM_Last_error());
    rc = TDM_Ineighbor_allgather(buf, 1, MPI_DATATYPE_NULL, buf, 1, MPI_INT, cart, &req);
    check(rc == MPI_ERR_TYPE && strstr(TDM_Last_error(), "sendtype"), "null sendtype: got %d: %s", rc, TDM_Last_error());
}
#endif

int main(int argc, char **argv)
{
    harness_init("test_neighbor", &argc, &argv);
    MPI_Comm world = harness_world(); /* in dcp progress, the application's ranks */
    const char *progress = getenv("TANDEM_PROGRESS");
    dcp_mode = progress && strcmp(progress, "dcp") == 0;
    int rank, p;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &p);
    MPI_Type_contiguous(1, MPI_INT, &one_int);
    MPI_Type_commit(&one_int);
    topology t;

    int dims[2] = {0, 0}, periods[2] = {1, 0};
    t.name = "periodic ring";
    MPI_Cart_create(world, 1, (int[]){p}, periods, 0, &t.comm);
    run_topology(&t);
#ifndef TANDEM_TEST_THROUGH_MPI /* through the interposer, MPI reports bad arguments its own way */
    bad_arguments(t.comm);
#endif
    MPI_Comm_free(&t.comm);

    t.name = "2-D grid, the second dimension open";
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(world, 2, dims, periods, 0, &t.comm);
    run_topology(&t);
    MPI_Comm_free(&t.comm);

    t.name = "periodic 2 x p/2 (one rank is both neighbours)";
    int small[3] = {p % 2 ? 1 : 2, p % 2 ? p : p / 2, 1}, all_periodic[3] = {1, 1, 1};
    MPI_Cart_create(world, 3, small, all_periodic, 0, &t.comm);
    run_topology(&t);
    MPI_Comm_free(&t.comm);

    t.name = "graph, every edge twice";
    int *index = malloc(sizeof(int) * (size_t)p), *edges = malloc(sizeof(int) * 4 * (size_t)p);
    for (int r = 0; r < p; r++) {
        index[r] = 4 * (r + 1);
        for (int k = 0; k < 4; k++)
            edges[4 * r + k] = k % 2 ? (r - 1 + p) % p : (r + 1) % p;
    }
    MPI_Graph_create(world, p, index, edges, 0, &t.comm);
    run_topology(&t);
    MPI_Comm_free(&t.comm);
    free(index);
    free(edges);

    t.name = "distributed graph, from the 2 below to the 2 above";
    int sources[2] = {(rank - 1 + p) % p, (rank - 2 + 2 * p) % p}, dests[2] = {(rank + 1) % p, (rank + 2) % p};
    MPI_Dist_graph_create_adjacent(world, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &t.comm);
    run_topology(&t);
    MPI_Comm_free(&t.comm);

#ifdef TANDEM_TEST_THROUGH_MPI
    void (*counts)(unsigned long *, unsigned long *) =
        (void (*)(unsigned long *, unsigned long *))dlsym(RTLD_DEFAULT, "tdm_ip_counts");
    unsigned long served = 0, native = 0;
    if (counts)
        counts(&served, &native);
    /* 5 kinds on 5 topologies, non-blocking and persistent (and blocking with TANDEM_INTERPOSE=all) */
    check(counts && served >= 5 * 5 * 2 && native == 0, "the interposer served %lu calls, passed %lu to MPI", served,
          native);
#endif
    MPI_Type_free(&one_int);
    return harness_finish();
}

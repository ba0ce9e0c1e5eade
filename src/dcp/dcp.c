#include "dcp.h"

#include "../base/error.h"
#include "../base/smpi_support.h"
#include "../base/state.h"
#include "../engine/node.h"
#include "dcp_protocol.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

tdm_dcp_job tdm_dcp = {.app_world = MPI_COMM_NULL, .dcp_world = MPI_COMM_NULL, .link = MPI_COMM_NULL,
                       .data_link = MPI_COMM_NULL, .dcp_link = MPI_COMM_NULL};

/* The predefined datatypes and ops a call may carry to its DCP: every type a predefined op accepts
 * (MPI-4.0 section 6.9.2: C, Fortran, C++ bool and complex, byte, and the pairs of MAXLOC and MINLOC).
 * The DCP reduces with MPI_Reduce_local, and the client's checks already refused a pair the op does
 * not take. */
static const MPI_Datatype carried_types[] = {
    /* C integers */
    MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG,
    MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T,
    MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_WCHAR, MPI_AINT, MPI_OFFSET, MPI_COUNT,
    /* floating point, logical, complex, byte */
    MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
    MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_BYTE,
    /* Fortran */
    MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_LOGICAL, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_INTEGER1,
    MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_REAL4, MPI_REAL8,
    /* the pairs of MAXLOC and MINLOC */
    MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL,
    MPI_2DOUBLE_PRECISION, MPI_2INTEGER,
};
static const MPI_Op carried_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN,  MPI_LAND,   MPI_LOR,
                                     MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
#define NTYPES ((int)(sizeof carried_types / sizeof carried_types[0]))
#define NOPS ((int)(sizeof carried_ops / sizeof carried_ops[0]))

/* Which of them this MPI has (a pair with padding, MPI_DOUBLE_INT, travels as an array of it, padding
 * included: dcp_client_calls.c). Set at TDM_Init. */
static unsigned char carried[NTYPES];

/* A call asks several times, and a program mostly uses one or two types: the last answer first (per
 * thread; forgotten when the carried types are found). */
static _Thread_local MPI_Datatype last = MPI_DATATYPE_NULL;
static _Thread_local int last_index = -1;

static void find_carried_types(void)
{
    last = MPI_DATATYPE_NULL;
    for (int i = 0; i < NTYPES; i++) {
        int size = 0;
        MPI_Aint lb = 0, extent = 0;
        carried[i] = carried_types[i] != MPI_DATATYPE_NULL && MPI_Type_size(carried_types[i], &size) == MPI_SUCCESS &&
                     MPI_Type_get_extent(carried_types[i], &lb, &extent) == MPI_SUCCESS && size > 0 && lb == 0 &&
                     extent >= size;
    }
}

int tdm_dcp_type_index(MPI_Datatype type)
{
    if (type == last && type != MPI_DATATYPE_NULL)
        return last_index;
    int index = -1;
    for (int i = 0; i < NTYPES && index < 0; i++)
        if (carried[i] && carried_types[i] == type)
            index = i;
    last = type;
    last_index = index;
    return index;
}

int tdm_dcp_op_index(MPI_Op op)
{
    for (int i = 0; i < NOPS; i++)
        if (carried_ops[i] == op)
            return i;
    return -1;
}

MPI_Datatype tdm_dcp_type(int index) { return carried_types[index]; }
MPI_Op tdm_dcp_op(int index) { return carried_ops[index]; }

int tdm_dcp_active(void) { return tdm_dcp.active; }

void tdm_dcp_placement(int *dcp, int *first_client, int *clients, int *same_node)
{
    *dcp = -1, *first_client = *clients = *same_node = 0;
    if (!tdm_dcp.active || tdm_dcp.is_dcp)
        return;
    int me, d;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    d = tdm_dcp.map.server[tdm_dcp.map.app_index[me]];
    *dcp = tdm_dcp.map.dcp_world[d];
    *first_client = tdm_dcp.map.first_client[d];
    *clients = tdm_dcp.map.clients[d];
    *same_node = tdm_dcp.node[*dcp] == tdm_dcp.node[me];
}

MPI_Comm tdm_dcp_app_world(void) { return tdm_dcp.active ? tdm_dcp.app_world : MPI_COMM_WORLD; }

int tdm_dcp_world_rank(int d)
{
    int rank = 0;
    for (int e = 0; e < d; e++)
        rank += tdm_dcp.map.clients[e] > 0;
    return rank;
}

int tdm_dcp_groups(const int *members, int n, int *group_of_rank, int *group, int *order)
{
    int groups = 0;
    for (int r = 0; r < n; r++) {
        int a = tdm_dcp.map.app_index[members[r]];
        int w = tdm_dcp.map.dcp_world[tdm_dcp.map.server[a]], g = 0;
        while (g < groups && group[g] != w)
            g++;
        if (g == groups)
            group[groups++] = w;
        group_of_rank[r] = g;
    }
    for (int g = 0, k = 0; g < groups; g++)
        for (int r = 0; r < n; r++)
            if (group_of_rank[r] == g)
                order[k++] = r;
    return groups;
}

/* The tags of dcp_link: DCP_CONTROL_TAG, slot 1 (the application world), then each serving DCP's share
 * of slots, of `window` tags each: up to 512 calls of a communicator among the DCPs at once, and as
 * many persistent ones (a slot's two halves), fewer when MPI has few tags, so that each DCP has 8
 * slots at least. */
static void divide_tags(int serving, int most)
{
    void *value;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    long tags = (found ? (long)*(int *)value : 32767L) + 1;
    int window = 1024;
    while (window > most) /* a testing setting: few tags, so that calls wait for them */
        window /= 2;
    while (window > 4 && tags / window < 2 + 8L * serving) /* 4: each half a call's 2 tags (dcp_server.c) */
        window /= 2;
    tdm_dcp.window = window;
    tdm_dcp.slots_per_dcp = (int)((tags / window - 2) / (serving > 0 ? serving : 1));
}

/* A whole-number setting of at least `least` (else *out is left as it is). */
static int number_setting(const char *fn, const char *name, int least, int *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return MPI_SUCCESS;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < least || n > INT_MAX)
        return tdm_error(fn, MPI_ERR_ARG, "%s=%s: expected a %s number", name, v, least ? "positive" : "whole");
    *out = (int)n;
    return MPI_SUCCESS;
}

int tdm_dcp_init(const char *fn)
{
    int ranks, rank, ratio = 8, count = 0, segment = TDM_DCP_DEFAULT_SEGMENT, rc;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((rc = number_setting(fn, "TANDEM_DCP_RATIO", 1, &ratio)) == MPI_SUCCESS &&
        (rc = number_setting(fn, "TANDEM_DCP_COUNT", 1, &count)) == MPI_SUCCESS)
        rc = number_setting(fn, "TANDEM_DCP_SEGMENT", 0, &segment);
    /* every rank fails alike, or none does: a rank that went on would wait for the others forever */
    int bad = rc != MPI_SUCCESS, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        return bad ? rc : tdm_error(fn, MPI_ERR_ARG, "a TANDEM_DCP_* setting of another rank is not valid");
    MPI_Bcast(&segment, 1, MPI_INT, 0, MPI_COMM_WORLD); /* clients and DCPs must cut calls alike */
    tdm_dcp.segment_bytes = segment;
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
    tdm_allgather_int(leader, nodes, MPI_COMM_WORLD);
    rc = tdm_dcp_map(ranks, nodes, dcps, &tdm_dcp.map);
    tdm_dcp.node = nodes;
    if (rc != 0)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the mapping");
    int d = tdm_dcp.map.dcp_index[rank], serving = d >= 0 && tdm_dcp.map.clients[d] > 0;
    MPI_Comm_split(MPI_COMM_WORLD, d >= 0 ? MPI_UNDEFINED : 0, rank, &tdm_dcp.app_world);
    MPI_Comm_split(MPI_COMM_WORLD, serving ? 0 : MPI_UNDEFINED, rank, &tdm_dcp.dcp_world);
    if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &tdm_dcp.link)) != MPI_SUCCESS ||
        (rc = MPI_Comm_dup(MPI_COMM_WORLD, &tdm_dcp.data_link)) != MPI_SUCCESS ||
        (rc = MPI_Comm_dup(MPI_COMM_WORLD, &tdm_dcp.dcp_link)) != MPI_SUCCESS)
        return tdm_mpi_error(fn, "duplicating MPI_COMM_WORLD", rc);
    MPI_Comm_set_errhandler(tdm_dcp.dcp_link, MPI_ERRORS_RETURN);
    int serving_dcps = 0;
    for (int e = 0; e < dcps; e++)
        serving_dcps += tdm_dcp.map.clients[e] > 0;
    int most_window = 1024; /* testing: TANDEM_DCP_WINDOW */
    if ((rc = number_setting(fn, "TANDEM_DCP_WINDOW", 4, &most_window)) != MPI_SUCCESS)
        return rc;
    divide_tags(serving_dcps, most_window);
    int most_slots = tdm_dcp.slots_per_dcp; /* testing: TANDEM_DCP_SLOTS, few, so that communicators wait */
    if ((rc = number_setting(fn, "TANDEM_DCP_SLOTS", 1, &most_slots)) != MPI_SUCCESS)
        return rc;
    if (most_slots < tdm_dcp.slots_per_dcp)
        tdm_dcp.slots_per_dcp = most_slots;
    /* testing: a short first part, so that a call's members or counts follow in its rest */
    tdm_dcp.first_bytes = DCP_FIRST_BYTES;
    if ((rc = number_setting(fn, "TANDEM_DCP_FIRST_BYTES", (int)sizeof(dcp_header), &tdm_dcp.first_bytes)) !=
        MPI_SUCCESS)
        return rc;
    /* testing: call numbers near their wrap, so that a short run passes it (2^32 calls take hours) */
    const char *first_call = getenv("TANDEM_DCP_FIRST_CALL");
    tdm_dcp.first_call = 0;
    if (first_call && *first_call) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(first_call, &end, 10);
        if (*end || errno || n > UINT_MAX || first_call[0] == '-')
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_DCP_FIRST_CALL=%s: expected a number below 2^32", first_call);
        tdm_dcp.first_call = (unsigned)n;
    }
    find_carried_types();
    /* the link's shadow on every rank now: its duplicate is collective over all of them */
    int error = MPI_SUCCESS;
    if ((rc = tdm_shadow_get_own(tdm_dcp.link, &tdm_dcp.link_shadow)) != MPI_SUCCESS) /* DCPs receive any tag */
        return tdm_mpi_error(fn, "creating the link to the dedicated collective processes", rc);
    while (!tdm_shadow_ready(tdm_dcp.link_shadow, &error))
        if (error != MPI_SUCCESS)
            return tdm_mpi_error(fn, "creating the link to the dedicated collective processes", error);
    tdm_dcp.link_shadow->bulk = tdm_dcp.data_link;
    tdm_dcp.active = 1;
    if (tdm_global.verbose && rank == 0)
        fprintf(stderr, "tandem: dcp progress: %d dedicated collective processes serve %d application ranks\n",
                dcps, ranks - dcps);
    if (d >= 0) { /* a DCP: serves, then leaves the program */
        tdm_dcp.is_dcp = 1;
        tdm_dcp_serve(d);
        tdm_shadow_module_finalize(); /* with the application ranks' TDM_Finalize: collective */
        tdm_node_finalize();          /* the node's segment, the same way */
        MPI_Finalize();
        tdm_smpi_leave(); /* exit(0), or in SMPI the end of this rank's actor */
    }
    tdm_dcp.server = tdm_dcp.map.dcp_world[tdm_dcp.map.server[tdm_dcp.map.app_index[rank]]];
    return tdm_dcp_client_init(fn);
}


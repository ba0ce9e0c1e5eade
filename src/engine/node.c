#include "node.h"

#include "../base/error.h"
#include "../base/smpi_support.h"
#include "../base/state.h"
#include "mailbox.h"
#include "shm_ring.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_BYTES ((size_t)4096)
#define MOST_NODE_SIZES 64

static int *node_of_world;      /* [world size]: each process's node (its lowest world rank) */
static int node_size = 1, machine_size = 1;
static int *members;            /* [node_size]: the world ranks of this node, in order */
static MPI_Win window = MPI_WIN_NULL;
static void **parts;            /* [node_size]: each member's part of the segment */
static size_t cell_bytes;
static int shm_wanted;          /* node-aware algorithms are chosen on their own (see node.h) */
static int rings_per_part;
static size_t mailbox_at;       /* where each part's mailbox starts; 0: the parts have none */

/* A positive size in bytes, or the default; 0 with an error if malformed. */
static int read_bytes(const char *fn, const char *name, size_t fallback, size_t least, size_t *out)
{
    const char *text = getenv(name);
    *out = fallback;
    if (!text || !*text)
        return 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || errno || v < least || text[0] == '-') {
        tdm_error(fn, MPI_ERR_ARG, "%s=%s: expected a number of bytes, at least %zu", name, text, least);
        return 0;
    }
    *out = (size_t)v;
    return 1;
}

/* TANDEM_NODE_SIZE: "k", or "k1,k2,...", the sizes of the emulated nodes each machine node is cut into,
 * in the order of its processes, the last size repeating. 0 sizes: not set. */
static int read_node_sizes(const char *fn, int *sizes, int *nsizes)
{
    const char *text = getenv("TANDEM_NODE_SIZE");
    *nsizes = 0;
    if (!text || !*text)
        return 1;
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > INT_MAX || (*end && *end != ',') || *nsizes == MOST_NODE_SIZES) {
            tdm_error(fn, MPI_ERR_ARG, "TANDEM_NODE_SIZE=%s: expected a number of processes per node, or a "
                                       "comma-separated list of at most %d of them", text, MOST_NODE_SIZES);
            return 0;
        }
        sizes[(*nsizes)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return 1;
}

/* The emulated node of the process at place `local` of its machine node: the index of its piece. */
static int emulated_piece(int local, const int *sizes, int nsizes)
{
    int piece = 0, first = 0;
    for (;;) {
        int size = sizes[piece < nsizes ? piece : nsizes - 1];
        if (local < first + size)
            return piece;
        first += size;
        piece++;
    }
}

/* Says once per node (its first process), under TANDEM_VERBOSE, what the node has. */
static void report(const char *what)
{
    if (!tdm_global.verbose || tdm_node_of(members[0]) != members[0])
        return;
    int world;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    if (world == members[0])
        fprintf(stderr, "tandem: node of world rank %d: %d processes; %s\n", world, node_size, what);
}

/* The segment over the node's processes: each a part of part_bytes, its rings cleared before any other
 * process looks. Returns a reason if there is none. */
/* A part from its first cache line: MPI may hand a window's parts out at any 8-byte boundary (Open MPI
 * does), and a flag sharing a line with the data before it would move with that data. */
static void *line_aligned(void *p) { return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

static const char *make_segment(MPI_Comm node, size_t part_bytes)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void *mine = NULL;
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate_shared((MPI_Aint)(part_bytes + 64), 1, info, node, &mine, &window);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        window = MPI_WIN_NULL;
        return "MPI_Win_allocate_shared refused the segment (is /dev/shm large enough? see TANDEM_SHM_BYTES)";
    }
    MPI_Win_set_errhandler(window, MPI_ERRORS_RETURN);
    parts = calloc((size_t)node_size, sizeof *parts);
    if (!parts)
        return "out of memory";
    mine = line_aligned(mine);
    tdm_shm_part_clear(mine, rings_per_part, cell_bytes);
    if (mailbox_at)
        tdm_mailbox_clear((char *)mine + mailbox_at);
    if (TDM_SIMULATED) {
        /* SMPI 3.32's MPI_Win_shared_query gives the first part for every rank; its ranks share one
         * address space, so each tells the others where its part is */
        MPI_Aint at = (MPI_Aint)(uintptr_t)mine;
        MPI_Aint *all = malloc(sizeof *all * (size_t)node_size);
        if (!all || MPI_Allgather(&at, 1, MPI_AINT, all, 1, MPI_AINT, node) != MPI_SUCCESS) {
            free(all);
            return "the simulated processes could not tell each other their parts";
        }
        for (int i = 0; i < node_size; i++)
            parts[i] = (void *)(uintptr_t)all[i];
        free(all);
    }
    for (int i = 0; i < node_size && !TDM_SIMULATED; i++) {
        MPI_Aint size;
        int disp;
        if (MPI_Win_shared_query(window, i, &size, &disp, &parts[i]) != MPI_SUCCESS || (size_t)size < part_bytes + 64)
            return "MPI_Win_shared_query gave no part";
        parts[i] = line_aligned(parts[i]);
    }
    MPI_Barrier(node); /* every part cleared before any process reads one */
    return NULL;
}

int tdm_node_init(const char *fn, int mailboxes)
{
    int sizes[MOST_NODE_SIZES], nsizes;
    size_t segment_bytes, forced_cell;
    const char *shm = getenv("TANDEM_SHM");
    if (shm && *shm && strcmp(shm, "on") != 0 && strcmp(shm, "off") != 0)
        return tdm_error(fn, MPI_ERR_ARG, "TANDEM_SHM=%s: expected on or off", shm);
    if (!read_node_sizes(fn, sizes, &nsizes) ||
        !read_bytes(fn, "TANDEM_SHM_BYTES", TDM_SHM_DEFAULT_BYTES, 1, &segment_bytes) ||
        !read_bytes(fn, "TANDEM_SHM_CELL_BYTES", 0, 16, &forced_cell))
        return MPI_ERR_ARG;

    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm machine, node;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &machine);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "finding the processes of this node (MPI_Comm_split_type)", rc);
    int local;
    MPI_Comm_size(machine, &machine_size);
    MPI_Comm_rank(machine, &local);
    if (nsizes > 0) {
        rc = MPI_Comm_split(machine, emulated_piece(local, sizes, nsizes), world_rank, &node);
        MPI_Comm_free(&machine);
        if (rc != MPI_SUCCESS)
            return tdm_mpi_error(fn, "cutting the node into emulated nodes (TANDEM_NODE_SIZE)", rc);
    } else {
        node = machine;
    }
    MPI_Comm_size(node, &node_size);
    node_of_world = malloc(sizeof(int) * (size_t)world_size);
    members = malloc(sizeof(int) * (size_t)node_size);
    if (!node_of_world || !members) {
        MPI_Comm_free(&node);
        tdm_node_finalize();
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory for the table of nodes");
    }
    rc = tdm_allgather_int(world_rank, members, node);
    int lowest = members[0];
    if (rc == MPI_SUCCESS)
        rc = tdm_allgather_int(lowest, node_of_world, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        tdm_node_finalize();
        return tdm_mpi_error(fn, "telling the processes of each node", rc);
    }

    /* The cells follow from the settings and the largest node only: every process finds the same cells,
     * segment or not, so that all build the same schedules (and select alike). */
    int largest = node_size;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&node_size, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        tdm_node_finalize();
        return tdm_mpi_error(fn, "telling the processes of each node", rc);
    }
    size_t part_bytes = segment_bytes / (size_t)node_size / PAGE_BYTES * PAGE_BYTES;
    cell_bytes = forced_cell ? (forced_cell + 15) / 16 * 16 : tdm_shm_cell_bytes(segment_bytes, largest);
    /* in simulation the DCPs take their calls as messages: a mailbox's waits poll outside the engine, and
     * a simulated rank that polls without taking simulated time would never let its client run */
    mailboxes = mailboxes && !TDM_SIMULATED;
    size_t box_bytes = mailboxes ? (tdm_mailbox_bytes() + 63) / 64 * 64 : 0;
    rings_per_part = part_bytes > box_bytes ? (int)((part_bytes - box_bytes) / tdm_shm_ring_bytes(cell_bytes)) : 0;
    mailbox_at = mailboxes ? (size_t)rings_per_part * tdm_shm_ring_bytes(cell_bytes) : 0;
    const char *none = NULL;
    char why[200];
    shm_wanted = !TDM_SIMULATED && !(shm && strcmp(shm, "off") == 0);
    if (shm && strcmp(shm, "off") == 0)
        none = "TANDEM_SHM=off";
    else if (node_size == 1)
        none = "alone on its node";
    else if (rings_per_part < 1) {
        snprintf(why, sizeof why, "TANDEM_SHM_BYTES=%zu leaves each process %zu bytes, less than one ring of %d "
                 "cells of %zu bytes", segment_bytes, part_bytes, TDM_SHM_RING_CELLS, cell_bytes);
        none = why;
    }
    if (!none)
        none = make_segment(node, part_bytes);
    if (none) {
        if (window != MPI_WIN_NULL)
            MPI_Win_free(&window);
        free(parts);
        parts = NULL;
        rings_per_part = 0;
        mailbox_at = 0;
        if (node_size > 1)
            report(none); /* "intra-node steps go over point-to-point" */
    } else {
        snprintf(why, sizeof why, "shared segment of %zu bytes, %d rings per process of %d cells of %zu bytes%s",
                 part_bytes * (size_t)node_size, rings_per_part, TDM_SHM_RING_CELLS, cell_bytes,
                 mailbox_at ? ", a mailbox per process" : "");
        report(why);
    }
    MPI_Comm_free(&node);
    return MPI_SUCCESS;
}

void tdm_node_finalize(void)
{
    tdm_shm_rings_finalize();
    if (window != MPI_WIN_NULL)
        MPI_Win_free(&window);
    free(parts);
    free(members);
    free(node_of_world);
    parts = NULL;
    members = NULL;
    node_of_world = NULL;
    node_size = machine_size = 1;
    rings_per_part = 0;
    mailbox_at = 0;
}

int tdm_node_of(int world_rank) { return node_of_world ? node_of_world[world_rank] : world_rank; }
int tdm_node_shm_wanted(void) { return shm_wanted; }
int tdm_node_size(void) { return node_size; }
int tdm_node_machine_size(void) { return machine_size; }
size_t tdm_node_cell_bytes(void) { return cell_bytes; }
int tdm_node_has_segment(void) { return parts != NULL; }
int tdm_node_rings_per_part(void) { return rings_per_part; }

void *tdm_node_part(int world_rank)
{
    if (!parts || tdm_node_of(world_rank) != members[0])
        return NULL;
    for (int i = 0; i < node_size; i++) /* few: the processes of one node */
        if (members[i] == world_rank)
            return parts[i];
    return NULL;
}

void *tdm_node_mailbox(int world_rank)
{
    char *part = mailbox_at ? tdm_node_part(world_rank) : NULL;
    return part ? part + mailbox_at : NULL;
}

tdm_comm_nodes *tdm_comm_nodes_make(int size, const int *world)
{
    int *node_key = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    if (!node_key)
        return NULL;
    for (int r = 0; r < size; r++)
        node_key[r] = tdm_node_of(world[r]);
    tdm_comm_nodes *l = tdm_comm_nodes_of(size, node_key, cell_bytes, shm_wanted);
    free(node_key);
    return l;
}

int *tdm_world_ranks(MPI_Comm comm, int size)
{
    MPI_Group group, world_group;
    int *ranks = malloc(sizeof(int) * (size_t)size * 2);
    if (!ranks || MPI_Comm_group(comm, &group) != MPI_SUCCESS) {
        free(ranks);
        return NULL;
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int r = 0; r < size; r++)
        ranks[size + r] = r;
    int rc = MPI_Group_translate_ranks(group, size, ranks + size, world_group, ranks);
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        if (ranks[r] == MPI_UNDEFINED)
            rc = MPI_ERR_GROUP;
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return NULL;
    }
    int *fitted = realloc(ranks, sizeof(int) * (size_t)size);
    return fitted ? fitted : ranks;
}

/* A small harness for MPI test programs: counts checks per rank, reports the first failures, and
 * ends with one verdict line from rank 0 and the exit code CTest reads. */
#ifndef TANDEM_TEST_HARNESS_H
#define TANDEM_TEST_HARNESS_H

#include "tandem.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long harness_checks, harness_failures;
static const char *harness_name = "test";

static inline void harness_find_node(void);

static inline void harness_init(const char *name, int *argc, char ***argv)
{
    harness_name = name;
#ifdef TANDEM_TEST_THROUGH_MPI
    int rc = MPI_Init(argc, argv); /* the interposer starts Tandem */
#else
    int rc = TDM_Init(argc, argv);
#endif
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s: TDM_Init failed: %s\n", name, TDM_Last_error());
        exit(2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    harness_find_node();
    /* The job has the ranks CTest launched (tests/CMakeLists.txt sets them): another MPI's launcher
     * would start each process as a singleton, and every test would pass on one rank. (PMPI: under
     * the interposer in dcp progress MPI_COMM_WORLD is the application's ranks.) */
    const char *launched = getenv("TANDEM_TEST_RANKS");
    int size;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (launched && *launched && atoi(launched) != size) {
        fprintf(stderr, "%s: launched on %s ranks, MPI_COMM_WORLD has %d: is the launcher of another MPI?\n", name,
                launched, size);
        exit(2);
    }
}

/* The ranks the test runs on: the application's (TDM_Comm_world(): MPI_COMM_WORLD but in dcp
 * progress, where dedicated collective processes take some of the job's ranks). */
static inline MPI_Comm harness_world(void)
{
#ifdef TANDEM_TEST_THROUGH_MPI
    return MPI_COMM_WORLD;
#else
    return TDM_Comm_world();
#endif
}

/* The node of this process as Tandem sees it (set by harness_init), for tests that know which calls
 * node-aware algorithms serve: its machine node (MPI_COMM_TYPE_SHARED) and, under TANDEM_NODE_SIZE=k or
 * k1,k2,..., the piece of it its place falls in (pieces of those sizes, the last repeating). */
static long harness_node_key;

static inline void harness_find_node(void)
{
    MPI_Comm machine;
    int world, local, lowest;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    /* (MPI_, not PMPI_: under the interposer in dcp progress MPI_COMM_WORLD is the application's ranks) */
    MPI_Comm_split_type(harness_world(), MPI_COMM_TYPE_SHARED, world, MPI_INFO_NULL, &machine);
    MPI_Comm_rank(machine, &local);
    lowest = world;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, machine);
    MPI_Comm_free(&machine);
    int piece = 0;
    const char *sizes = getenv("TANDEM_NODE_SIZE");
    if (sizes && *sizes) {
        for (int first = 0, size = 1;; piece++, first += size) {
            const char *p = sizes;
            for (int i = 0; i < piece && strchr(p, ','); i++)
                p = strchr(p, ',') + 1;
            size = atoi(p);
            if (local < first + size)
                break;
        }
    }
    harness_node_key = (long)lowest * 65536 + piece;
}

/* Whether two ranks of comm share a node, whether each node holds consecutive ranks, and whether the
 * ranks are on more than one node. Collective over comm. */
static inline void harness_nodes_of(MPI_Comm comm, int *shared, int *in_order, int *several)
{
    int size;
    MPI_Comm_size(comm, &size);
    long *keys = (long *)malloc(sizeof(long) * (size_t)size);
    MPI_Allgather(&harness_node_key, 1, MPI_LONG, keys, 1, MPI_LONG, comm);
    *shared = 0;
    *in_order = 1;
    *several = 0;
    for (int r = 0; r < size; r++) {
        *several |= keys[r] != keys[0];
        for (int q = 0; q < r; q++)
            if (keys[q] == keys[r]) {
                *shared = 1;
                *in_order &= keys[r - 1] == keys[r]; /* a node's ranks in one run */
            }
    }
    free(keys);
}

/* What the process's private writable mappings hold now (VmData, what RLIMIT_DATA limits), in bytes;
 * -1 if /proc does not say. */
static inline long harness_data_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

__attribute__((format(printf, 2, 3))) static inline void check(int ok, const char *fmt, ...)
{
    harness_checks++;
    if (ok)
        return;
    harness_failures++;
    if (harness_failures <= 10) {
        int rank;
        MPI_Comm_rank(harness_world(), &rank);
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "[%s rank %d] FAIL: ", harness_name, rank);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

/* A reference is MPI's own collective: a program whose MPI calls go through Tandem's interposer
 * (TANDEM_TEST_THROUGH_MPI) calls it by its PMPI name, past the interposer. */
#ifdef TANDEM_TEST_THROUGH_MPI
#define MPI_OWN(function) P##function
#else
#define MPI_OWN(function) function
#endif

/* Waits for MPI's own non-blocking collective, a check's reference, yielding the core between tests:
 * MPICH's blocking collectives spin without yielding, which crawls when a test runs more ranks than
 * cores. Returns the start's error, else the wait's. */
static inline int reference_wait(int start_rc, MPI_Request *req)
{
    if (start_rc != MPI_SUCCESS)
        return start_rc;
    for (int done = 0;;) {
        int rc = MPI_OWN(MPI_Test)(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        sched_yield();
    }
}
/* REFERENCE(MPI_Iallreduce, send, want, n, MPI_INT, MPI_SUM, comm): the collective's result by MPI,
 * as its blocking form gives it. */
#define REFERENCE(start, ...)                                                                           \
    __extension__({                                                                                     \
        MPI_Request reference_request_;                                                                 \
        reference_wait(MPI_OWN(start)(__VA_ARGS__, &reference_request_), &reference_request_);          \
    })

/* Fails the test (with TDM_Last_error) when a Tandem call returned an error. */
#define CHECK_TDM(call)                                                                                 \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        check(rc_ == MPI_SUCCESS, "%s returned %d: %s", #call, rc_, TDM_Last_error());                  \
    } while (0)

#ifndef TANDEM_TEST_THROUGH_MPI /* there the program holds MPI requests */
/* The text TDM_Request_dump writes for a request (free it), or NULL. */
static inline char *harness_dump(TDM_Request req)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    TDM_Request_dump(req, out);
    fclose(out);
    return text;
}
#endif

/* Collects the verdict over all ranks, prints it on rank 0, finalizes; returns the exit code. */
static inline int harness_finish(void)
{
    /* A rank done early sleeps between tests: spinning in MPICH's blocking allreduce, it took the core
     * from the ranks still testing (test_collectives on 8 ranks: 16 s instead of 9). Not MPI_OWN: through
     * the interposer MPI_COMM_WORLD must mean the application's ranks, the DCPs aside. */
    long totals[2], mine[2] = {harness_checks, harness_failures};
    MPI_Request verdict;
    MPI_Iallreduce(mine, totals, 2, MPI_LONG, MPI_SUM, harness_world(), &verdict);
    struct timespec pause = {0, 100000};
    for (int done = 0; !done && MPI_Test(&verdict, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS;)
        if (!done)
            nanosleep(&pause, NULL);
    int rank, size;
    MPI_Comm_rank(harness_world(), &rank);
    MPI_Comm_size(harness_world(), &size);
    if (rank == 0)
        printf("%s (%d ranks): %ld checks, %ld failed: %s\n", harness_name, size, totals[0], totals[1],
               totals[1] == 0 && totals[0] > 0 ? "PASS" : "FAIL");
#ifdef TANDEM_TEST_THROUGH_MPI
    MPI_Finalize();
#else
    TDM_Finalize();
#endif
    return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}

#endif

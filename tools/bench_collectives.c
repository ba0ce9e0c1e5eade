/* The collectives tandem-bench times, their buffers, and small helpers. */
#include "bench.h"

#include "../src/base/smpi_support.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

const bench_collective bench_collectives[] = {
    {"allreduce", 0, 1}, {"bcast", 0, 0},     {"allgather", 1, 0}, {"reduce", 0, 1},
    {"alltoall", 1, 0},  {"reduce_scatter_block", 1, 1}, {"gather", 1, 0}, {"scatter", 1, 0},
    {"barrier", 0, 0},   {"gatherv", 1, 0},   {"alltoallv", 1, 0},
};
const int BENCH_NCOLLECTIVES = (int)(sizeof bench_collectives / sizeof bench_collectives[0]);

void bench_buffers_alloc(bench_buffers *b, const bench_collective *c, long bytes, int ranks)
{
    b->type = c->reduction ? MPI_DOUBLE : MPI_BYTE;
    b->count = (int)(c->reduction ? (bytes + 7) / 8 : bytes);
    size_t elem = c->reduction ? 8 : 1;
    size_t total = (size_t)b->count * elem * (c->per_rank_blocks ? (size_t)ranks : 1);
    /* (in simulation, one block for all ranks: their content is never checked) */
    b->send = tdm_smpi_scratch_alloc(total);
    b->recv = tdm_smpi_scratch_alloc(total);
    b->counts = malloc(sizeof(int) * (size_t)ranks);
    b->displs = malloc(sizeof(int) * (size_t)ranks);
    for (int r = 0; b->counts && b->displs && r < ranks; r++) { /* the v-forms: every block alike */
        b->counts[r] = b->count;
        b->displs[r] = (int)((long long)b->count * r > INT_MAX ? 0 : (long long)b->count * r); /* (past it: timing only) */
    }
    if (!b->send || !b->recv || !b->counts || !b->displs) {
        fprintf(stderr, "tandem-bench: out of memory for %ld-byte buffers\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* written, so that every page is backed by its own memory (calloc'd pages may all map the one
     * zero page until first written); not in simulation, where memory costs no time and writing
     * 4096 ranks' views of the shared block page-faults for many minutes */
    if (!TDM_SIMULATED) {
        memset(b->send, 1, total);
        memset(b->recv, 2, total);
    }
}

void bench_buffers_free(bench_buffers *b)
{
    tdm_smpi_scratch_free(b->send);
    tdm_smpi_scratch_free(b->recv);
    free(b->counts);
    free(b->displs);
}

int bench_start_tandem(const bench_collective *c, bench_buffers *b, TDM_Request *req)
{
    const char *n = c->name;
    MPI_Comm w = bench_world;
    int k = b->count;
    MPI_Datatype t = b->type;
    if (!strcmp(n, "allreduce")) return TDM_Iallreduce(b->send, b->recv, k, t, MPI_SUM, w, req);
    if (!strcmp(n, "bcast")) return TDM_Ibcast(b->recv, k, t, 0, w, req);
    if (!strcmp(n, "allgather")) return TDM_Iallgather(b->send, k, t, b->recv, k, t, w, req);
    if (!strcmp(n, "reduce")) return TDM_Ireduce(b->send, b->recv, k, t, MPI_SUM, 0, w, req);
    if (!strcmp(n, "alltoall")) return TDM_Ialltoall(b->send, k, t, b->recv, k, t, w, req);
    if (!strcmp(n, "reduce_scatter_block")) return TDM_Ireduce_scatter_block(b->send, b->recv, k, t, MPI_SUM, w, req);
    if (!strcmp(n, "gather")) return TDM_Igather(b->send, k, t, b->recv, k, t, 0, w, req);
    if (!strcmp(n, "scatter")) return TDM_Iscatter(b->send, k, t, b->recv, k, t, 0, w, req);
    if (!strcmp(n, "gatherv")) return TDM_Igatherv(b->send, k, t, b->recv, b->counts, b->displs, t, 0, w, req);
    if (!strcmp(n, "alltoallv"))
        return TDM_Ialltoallv(b->send, b->counts, b->displs, t, b->recv, b->counts, b->displs, t, w, req);
    return TDM_Ibarrier(w, req);
}

int bench_start_mpi(const bench_collective *c, bench_buffers *b, MPI_Request *req)
{
    const char *n = c->name;
    MPI_Comm w = bench_world;
    int k = b->count;
    MPI_Datatype t = b->type;
    if (!strcmp(n, "allreduce")) return MPI_Iallreduce(b->send, b->recv, k, t, MPI_SUM, w, req);
    if (!strcmp(n, "bcast")) return MPI_Ibcast(b->recv, k, t, 0, w, req);
    if (!strcmp(n, "allgather")) return MPI_Iallgather(b->send, k, t, b->recv, k, t, w, req);
    if (!strcmp(n, "reduce")) return MPI_Ireduce(b->send, b->recv, k, t, MPI_SUM, 0, w, req);
    if (!strcmp(n, "alltoall")) return MPI_Ialltoall(b->send, k, t, b->recv, k, t, w, req);
    if (!strcmp(n, "reduce_scatter_block")) return MPI_Ireduce_scatter_block(b->send, b->recv, k, t, MPI_SUM, w, req);
    if (!strcmp(n, "gather")) return MPI_Igather(b->send, k, t, b->recv, k, t, 0, w, req);
    if (!strcmp(n, "scatter")) return MPI_Iscatter(b->send, k, t, b->recv, k, t, 0, w, req);
    if (!strcmp(n, "gatherv")) return MPI_Igatherv(b->send, k, t, b->recv, b->counts, b->displs, t, 0, w, req);
    if (!strcmp(n, "alltoallv"))
        return MPI_Ialltoallv(b->send, b->counts, b->displs, t, b->recv, b->counts, b->displs, t, w, req);
    return MPI_Ibarrier(w, req);
}

int bench_run_blocking(const bench_collective *c, bench_buffers *b)
{
    const char *n = c->name;
    MPI_Comm w = bench_world;
    int k = b->count;
    MPI_Datatype t = b->type;
    if (!strcmp(n, "allreduce")) return MPI_Allreduce(b->send, b->recv, k, t, MPI_SUM, w);
    if (!strcmp(n, "bcast")) return MPI_Bcast(b->recv, k, t, 0, w);
    if (!strcmp(n, "allgather")) return MPI_Allgather(b->send, k, t, b->recv, k, t, w);
    if (!strcmp(n, "reduce")) return MPI_Reduce(b->send, b->recv, k, t, MPI_SUM, 0, w);
    if (!strcmp(n, "alltoall")) return MPI_Alltoall(b->send, k, t, b->recv, k, t, w);
    if (!strcmp(n, "reduce_scatter_block")) return MPI_Reduce_scatter_block(b->send, b->recv, k, t, MPI_SUM, w);
    if (!strcmp(n, "gather")) return MPI_Gather(b->send, k, t, b->recv, k, t, 0, w);
    if (!strcmp(n, "scatter")) return MPI_Scatter(b->send, k, t, b->recv, k, t, 0, w);
    if (!strcmp(n, "gatherv")) return MPI_Gatherv(b->send, k, t, b->recv, b->counts, b->displs, t, 0, w);
    if (!strcmp(n, "alltoallv"))
        return MPI_Alltoallv(b->send, b->counts, b->displs, t, b->recv, b->counts, b->displs, t, w);
    return MPI_Barrier(w);
}

int bench_run_tandem_blocking(const bench_collective *c, bench_buffers *b)
{
    const char *n = c->name;
    MPI_Comm w = bench_world;
    int k = b->count;
    MPI_Datatype t = b->type;
    if (!strcmp(n, "allreduce")) return TDM_Allreduce(b->send, b->recv, k, t, MPI_SUM, w);
    if (!strcmp(n, "bcast")) return TDM_Bcast(b->recv, k, t, 0, w);
    if (!strcmp(n, "allgather")) return TDM_Allgather(b->send, k, t, b->recv, k, t, w);
    if (!strcmp(n, "reduce")) return TDM_Reduce(b->send, b->recv, k, t, MPI_SUM, 0, w);
    if (!strcmp(n, "alltoall")) return TDM_Alltoall(b->send, k, t, b->recv, k, t, w);
    if (!strcmp(n, "reduce_scatter_block")) return TDM_Reduce_scatter_block(b->send, b->recv, k, t, MPI_SUM, w);
    if (!strcmp(n, "gather")) return TDM_Gather(b->send, k, t, b->recv, k, t, 0, w);
    if (!strcmp(n, "scatter")) return TDM_Scatter(b->send, k, t, b->recv, k, t, 0, w);
    if (!strcmp(n, "gatherv")) return TDM_Gatherv(b->send, k, t, b->recv, b->counts, b->displs, t, 0, w);
    if (!strcmp(n, "alltoallv"))
        return TDM_Alltoallv(b->send, b->counts, b->displs, t, b->recv, b->counts, b->displs, t, w);
    return TDM_Barrier(w);
}

int bench_wanted(const char *list, const char *name)
{
    char pattern[64], padded[300];
    snprintf(pattern, sizeof pattern, ",%s,", name);
    snprintf(padded, sizeof padded, ",%s,", list);
    return strstr(padded, pattern) != NULL;
}

int bench_mode_wanted(const bench_options *o, const char *mode)
{
    return !o->modes[0] || bench_wanted(o->modes, mode);
}

int bench_modes_known(const bench_options *o, const char *const *known, int n, int rank)
{
    char list[sizeof o->modes];
    snprintf(list, sizeof list, "%s", o->modes);
    for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int k = 0; k < n; k++)
            found |= !strcmp(tok, known[k]);
        if (!found) {
            if (rank == 0) {
                fprintf(stderr, "tandem-bench: --modes: unknown mode %s; known:", tok);
                for (int k = 0; k < n; k++)
                    fprintf(stderr, " %s", known[k]);
                fprintf(stderr, "\n");
            }
            return 0;
        }
    }
    return 1;
}

int bench_iterations(const bench_options *o, int automatic) { return o->iters > 0 ? o->iters : automatic; }

int bench_parse_size(const char *text, long *bytes)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : 0;
    end += shift > 0;
    /* a count of MPI_BYTE is an int */
    if (end == text || *end || errno || v < 1 || v > (long)(INT_MAX >> shift))
        return 0;
    *bytes = v << shift;
    return 1;
}

int bench_ranks_on_node(void)
{
    MPI_Comm node;
    int n;
    MPI_Comm_split_type(bench_world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return n;
}

void bench_say_dcps(int local, int cores)
{
    int world, apps;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_size(bench_world, &apps);
    if (world == apps || TDM_SIMULATED)
        return;
    if (local == apps) /* one node: the DCPs are here too */
        printf("plus %d dedicated collective processes (dcp progress): %d processes on this node's %d cores%s\n",
               world - apps, local + world - apps, cores,
               local + world - apps > cores ? "  ** OVERSUBSCRIBED: timings say nothing about speed **" : "");
    else
        printf("plus %d dedicated collective processes (dcp progress), not counted above\n", world - apps);
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(double), bench_cmp_double);
    return values[n / 2];
}

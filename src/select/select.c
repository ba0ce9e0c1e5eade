#include "select.h"

#include "../algorithms/node_phases.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../model/loggp.h"
#include "../placement/placement.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thresholds of the automatic choice (bytes are of the whole vector unless named per block). */
#define BCAST_LONG_BYTES (512 * 1024)          /* scatter + ring allgather from here, p >= 3 */
/* Recursive doubling below: it sends the whole vector in every message. From 4 KiB that passes Open
 * MPI's shared-memory eager limit (btl_vader_eager_limit), where a message costs a rendezvous round
 * trip (a 4 KiB allreduce on 2 ranks: 2.5 us instead of 0.75); the halving algorithms' messages stay
 * eager twice as long. */
#define ALLREDUCE_SHORT_BYTES (4 * 1024)
#define GATHER_LONG_BLOCK_BYTES (32 * 1024)    /* linear gather/scatter from here: no forwarding */
#define ALLGATHER_SHORT_BYTES (64 * 1024)      /* Bruck / recursive doubling below, ring above */
#define ALLTOALL_SHORT_BLOCK_BYTES 256         /* Bruck for short blocks on many ranks */
#define ALLTOALL_FEW_RANKS 8                   /* all messages at once up to this many ranks */
#define SCAN_CHAIN_RANKS 2                     /* the chain is as good up to this many ranks */
#define SCAN_NODE_BYTES (64 * 1024)            /* node-aware scan and exscan below */
#define NODE_LONG_BYTES (1024 * 1024)          /* node-aware allreduce below, unless cells win */
#define BCAST_NODE_LONG_BYTES (256 * 1024)     /* node-aware bcast below, unless cells win */
#define REDUCE_SCATTER_NODE_BYTES (64 * 1024)  /* node-aware reduce_scatter below, in all (several nodes) */

#define ALG(coll, alg, needs) {#alg, #coll "_" #alg, tdm_##coll##_##alg, needs, NULL}
/* an algorithm whose calls may run in several lanes (TANDEM_COLOR_THREADS) */
#define ALG_LANES(coll, alg, needs) {#alg, #coll "_" #alg, tdm_##coll##_##alg, needs, tdm_##coll##_##alg##_lanes}
#define COMM TDM_NEEDS_COMMUTATIVE
#define POF2 TDM_NEEDS_POWER_OF_TWO
#define NODES TDM_NEEDS_NODES

static const tdm_algorithm barrier_algs[] = {ALG(barrier, dissemination, 0), ALG(barrier, node, NODES)};
static const tdm_algorithm bcast_algs[] = {ALG(bcast, binomial, 0), ALG(bcast, linear, 0),
                                           ALG(bcast, scatter_allgather, 0), ALG(bcast, node, NODES),
                                           ALG(bcast, knomial, 0)};
static const tdm_algorithm reduce_algs[] = {ALG(reduce, binomial, 0), ALG(reduce, linear, 0), ALG(reduce, node, NODES)};
static const tdm_algorithm allreduce_algs[] = {
    ALG(allreduce, recursive_doubling, 0), ALG(allreduce, rabenseifner, 0),
    ALG(allreduce, ring, COMM), ALG(allreduce, reduce_bcast, 0), ALG_LANES(allreduce, torus_bucket, COMM),
    ALG_LANES(allreduce, torus_bucket_uni, COMM), ALG(allreduce, node, NODES)};
static const tdm_algorithm gather_algs[] = {ALG(gather, binomial, 0), ALG(gather, linear, 0), ALG(gather, node, NODES)};
static const tdm_algorithm gatherv_algs[] = {ALG(gatherv, linear, 0)};
static const tdm_algorithm scatter_algs[] = {ALG(scatter, binomial, 0), ALG(scatter, linear, 0), ALG(scatter, node, NODES)};
static const tdm_algorithm scatterv_algs[] = {ALG(scatterv, linear, 0)};
static const tdm_algorithm allgather_algs[] = {ALG(allgather, bruck, 0), ALG(allgather, ring, 0),
                                               ALG(allgather, recursive_doubling, POF2),
                                               ALG_LANES(allgather, torus_bucket, 0),
                                               ALG_LANES(allgather, torus_bucket_uni, 0),
                                               ALG_LANES(allgather, torus_bucket_halfway, 0),
                                               ALG(allgather, node, NODES)};
static const tdm_algorithm allgatherv_algs[] = {ALG(allgatherv, ring, 0), ALG(allgatherv, linear, 0)};
static const tdm_algorithm reduce_scatter_algs[] = {ALG(reduce_scatter, pairwise, 0),
                                                    ALG(reduce_scatter, ring, COMM),
                                                    ALG_LANES(reduce_scatter, torus_bucket, COMM),
                                                    ALG_LANES(reduce_scatter, torus_bucket_uni, COMM),
                                                    ALG(reduce_scatter, node, NODES)};
static const tdm_algorithm alltoall_algs[] = {ALG(alltoall, pairwise, 0), ALG(alltoall, bruck, 0),
                                              ALG(alltoall, linear, 0)};
static const tdm_algorithm alltoallv_algs[] = {ALG(alltoallv, pairwise, 0), ALG(alltoallv, linear, 0)};
static const tdm_algorithm alltoallw_algs[] = {ALG(alltoallw, pairwise, 0), ALG(alltoallw, linear, 0)};
static const tdm_algorithm neighbor_allgather_algs[] = {ALG(neighbor_allgather, linear, 0)};
static const tdm_algorithm neighbor_allgatherv_algs[] = {ALG(neighbor_allgatherv, linear, 0)};
static const tdm_algorithm neighbor_alltoall_algs[] = {ALG(neighbor_alltoall, linear, 0)};
static const tdm_algorithm neighbor_alltoallv_algs[] = {ALG(neighbor_alltoallv, linear, 0)};
static const tdm_algorithm neighbor_alltoallw_algs[] = {ALG(neighbor_alltoallw, linear, 0)};
static const tdm_algorithm scan_algs[] = {ALG(scan, recursive_doubling, 0), ALG(scan, linear, 0), ALG(scan, node, NODES)};
static const tdm_algorithm exscan_algs[] = {ALG(exscan, recursive_doubling, 0), ALG(exscan, linear, 0),
                                            ALG(exscan, node, NODES)};

/*
 * Large messages: the algorithm of least modelled cost (collective_costs.h, with the machine's LogGP
 * parameters). The torus bucket counts only on a torus the network is (a->torus_network); otherwise a
 * rank has one port and the bucket algorithm has nothing over the ring but more messages.
 */
static int torus_is_network(const tdm_coll_args *a, tdm_torus *t)
{
    if (!a->torus_network)
        return 0;
    t->ndims = a->torus_ndims;
    for (int i = 0; i < a->torus_ndims; i++)
        t->dims[i] = a->torus_dims[i];
    t->bidirectional = 1;
    return 1;
}

/* Among ring (index ring), torus bucket (index torus) and, if other >= 0, other_cost: the cheapest;
 * ties go to the ring, the one measured fastest here. */
static int cheapest(const tdm_coll_args *a, tdm_cost_collective c, double bytes, int ring, int torus, int other,
                    double other_cost)
{
    tdm_torus t;
    int best = ring;
    double best_cost = tdm_cost_ring_pipelined(c, a->size, bytes, &a->loggp);
    if (other >= 0 && other_cost < best_cost)
        best = other, best_cost = other_cost;
    if (!torus_is_network(a, &t))
        return best;
    /* the allgather's torus choice is the halfway form: the bidirectional one's bytes in half the steps */
    double torus_cost = c == TDM_COST_ALLGATHER ? tdm_cost_torus_halfway_allgather(&t, bytes, &a->loggp)
                                                : tdm_cost_torus_bucket(c, &t, bytes, &a->loggp);
    if (torus_cost < best_cost)
        best = torus;
    return best;
}

/* Index of the automatic choice for a call. */
typedef int (*chooser)(const tdm_coll_args *a);

static size_t vector_bytes(const tdm_coll_args *a) { return (size_t)a->count * a->dtype.size; }
static size_t recv_block_bytes(const tdm_coll_args *a) { return (size_t)a->recvcount * a->rtype.size; }
static size_t send_block_bytes(const tdm_coll_args *a) { return (size_t)a->sendcount * a->stype.size; }

static int first(const tdm_coll_args *a) { (void)a; return 0; }

/* Node-aware algorithms on their own wherever ranks share a node (and the segment is wanted), except in
 * split-tree mode, whose trees they are not. */
static int node_aware(const tdm_coll_args *a) { return a->nodes && a->split_levels < 0 && a->nodes->shm_wanted; }

static int choose_barrier(const tdm_coll_args *a) { return node_aware(a) ? 1 : 0; }

static int choose_reduce(const tdm_coll_args *a) { return node_aware(a) ? 2 : 0; }

/* Long data inside a node: a byte through a cell costs two copies (in, then out) where a message
 * between two processes of a node costs MPI one (Linux's cross-memory attach), at beta. Which is faster
 * is the machine's: 2 ranks on this project's machine, allreduce of 4 MiB, node 0.41 ms against the
 * ring's 0.56 while shm_beta measured 35 ps/B, 1.10 ms against 1.01 an hour later at 115 ps/B (beta
 * 95 ps/B both times). `tandem-model loggp` measures both; the built-in values (0.1 ns/B each) keep
 * the point-to-point forms. Every node-aware form that moves long data through cells
 * (allreduce and reduce in slices, gather, scatter, allgather, bcast) pays about two copies per byte;
 * the point-to-point forms `messages` per byte: one, or two for a bcast of 3 ranks or more (a binomial
 * tree's two rounds, or scatter + allgather). */
int tdm_select_cells_beat_messages(const tdm_loggp *m, double messages)
{
    return 2 * tdm_loggp_shm_beta(m) < messages * m->beta;
}

static int cells_beat_messages(const tdm_coll_args *a, double messages)
{
    return tdm_select_cells_beat_messages(&a->loggp, messages);
}

/* On a node, its form (long data where cells win, above); else short vectors: the binomial tree, or a
 * wider k-nomial one where the model finds it cheaper (messages started together sharing a network
 * latency long beside their start-up: TANDEM_LOGGP's latency). */
static int choose_bcast(const tdm_coll_args *a)
{
    int flat_rounds = a->nodes && a->nodes->largest > 2 ? 2 : 1;
    if (node_aware(a) && (vector_bytes(a) < BCAST_NODE_LONG_BYTES || cells_beat_messages(a, flat_rounds)))
        return 3;
    if (a->size >= 3 && vector_bytes(a) >= BCAST_LONG_BYTES)
        return 2;
    return tdm_bcast_knomial_radix(a) > 2 ? 4 : 0;
}

static int choose_allreduce(const tdm_coll_args *a)
{
    size_t bytes = vector_bytes(a);
    if (node_aware(a) && (bytes < NODE_LONG_BYTES || cells_beat_messages(a, 1)))
        return 6;
    if (bytes < ALLREDUCE_SHORT_BYTES && a->split_levels >= 0)
        return 3; /* split-tree mode: the tree form (reduce + bcast), cut between the threads */
    if (bytes < ALLREDUCE_SHORT_BYTES || a->count < a->size)
        return 0;
    if (!a->commutative)
        return 1;
    double rabenseifner = tdm_cost_rabenseifner_allreduce(a->size, (double)bytes, &a->loggp);
    if ((a->size & (a->size - 1)) != 0) /* the fold to a power of two: one more vector each way */
        rabenseifner += 2 * (a->loggp.alpha + (double)bytes * a->loggp.beta) + (double)bytes * a->loggp.gamma;
    return cheapest(a, TDM_COST_ALLREDUCE, (double)bytes, 2, 4, 1, rabenseifner);
}

/* Gather, scatter and allgather take their node-aware forms for short blocks, and for long ones where
 * cells beat messages (2 ranks, calls of 4 MiB while shm_beta measured 35 ps/B: gather 0.35 ms
 * against 0.59, allgather 0.51 against 0.67). */
static int choose_gather(const tdm_coll_args *a)
{
    size_t block = a->rank == a->root ? recv_block_bytes(a) : send_block_bytes(a);
    if (node_aware(a) && (block < GATHER_LONG_BLOCK_BYTES || cells_beat_messages(a, 1)))
        return 2;
    return block >= GATHER_LONG_BLOCK_BYTES ? 1 : 0;
}

static int choose_scatter(const tdm_coll_args *a)
{
    size_t block = a->rank == a->root ? send_block_bytes(a) : recv_block_bytes(a);
    if (node_aware(a) && (block < GATHER_LONG_BLOCK_BYTES || cells_beat_messages(a, 1)))
        return 2;
    return block >= GATHER_LONG_BLOCK_BYTES ? 1 : 0;
}

static int choose_allgather(const tdm_coll_args *a)
{
    double bytes = (double)recv_block_bytes(a) * a->size;
    if (node_aware(a) && (bytes < ALLGATHER_SHORT_BYTES || cells_beat_messages(a, 1)))
        return 6;
    if (bytes >= ALLGATHER_SHORT_BYTES)
        return cheapest(a, TDM_COST_ALLGATHER, bytes, 1, 5, -1, 0);
    return (a->size & (a->size - 1)) == 0 ? 2 : 0;
}

/* The node-aware reduce_scatter has each node's leader reduce the node's vectors: short vectors only,
 * except on one node, where each rank reduces its own block (a commutative op), as fast as the ring or
 * faster at every size (2 ranks, Open MPI: 64 KiB 10.8 us against 51.7; 1 MiB 141 us against 167;
 * 16 MiB 5.4 ms against 6.0). */
static int choose_reduce_scatter(const tdm_coll_args *a)
{
    double bytes = 0;
    if (a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK)
        bytes = (double)a->count * a->size * a->dtype.size;
    else
        for (int r = 0; r < a->size; r++)
            bytes += (double)a->recvcounts[r] * a->dtype.size;
    if (node_aware(a) && (bytes < REDUCE_SCATTER_NODE_BYTES || (a->nodes->nnodes == 1 && a->commutative)))
        return 4;
    if (!a->commutative)
        return 0;
    return cheapest(a, TDM_COST_REDUCE_SCATTER, bytes, 1, 2, -1, 0);
}

static int choose_alltoall(const tdm_coll_args *a)
{
    if (recv_block_bytes(a) <= ALLTOALL_SHORT_BLOCK_BYTES && a->size > ALLTOALL_FEW_RANKS)
        return 1;
    return a->size <= ALLTOALL_FEW_RANKS ? 2 : 0;
}

static int choose_alltoallv(const tdm_coll_args *a) { return a->size <= ALLTOALL_FEW_RANKS ? 1 : 0; }

/* The node-aware scan has each rank of a node read every lower rank's vector: short vectors only. */
static int choose_scan(const tdm_coll_args *a)
{
    if (node_aware(a) && vector_bytes(a) < SCAN_NODE_BYTES)
        return 2;
    return a->size <= SCAN_CHAIN_RANKS ? 1 : 0;
}

typedef struct {
    const char *name;
    const tdm_algorithm *algs;
    int nalgs;
    int fallback;     /* serves every call */
    chooser choose;
} collective_table;

#define TABLE(name, algs, fallback, choose) {name, algs, (int)(sizeof algs / sizeof algs[0]), fallback, choose}

static const collective_table tables[TDM_NCOLLECTIVES] = {
    [TDM_COLL_BARRIER] = TABLE("barrier", barrier_algs, 0, choose_barrier),
    [TDM_COLL_BCAST] = TABLE("bcast", bcast_algs, 0, choose_bcast),
    [TDM_COLL_REDUCE] = TABLE("reduce", reduce_algs, 0, choose_reduce),
    [TDM_COLL_ALLREDUCE] = TABLE("allreduce", allreduce_algs, 1, choose_allreduce),
    [TDM_COLL_GATHER] = TABLE("gather", gather_algs, 0, choose_gather),
    [TDM_COLL_GATHERV] = TABLE("gatherv", gatherv_algs, 0, first),
    [TDM_COLL_SCATTER] = TABLE("scatter", scatter_algs, 0, choose_scatter),
    [TDM_COLL_SCATTERV] = TABLE("scatterv", scatterv_algs, 0, first),
    [TDM_COLL_ALLGATHER] = TABLE("allgather", allgather_algs, 0, choose_allgather),
    [TDM_COLL_ALLGATHERV] = TABLE("allgatherv", allgatherv_algs, 0, first),
    [TDM_COLL_REDUCE_SCATTER] = TABLE("reduce_scatter", reduce_scatter_algs, 0, choose_reduce_scatter),
    [TDM_COLL_REDUCE_SCATTER_BLOCK] =
        TABLE("reduce_scatter_block", reduce_scatter_algs, 0, choose_reduce_scatter),
    [TDM_COLL_ALLTOALL] = TABLE("alltoall", alltoall_algs, 0, choose_alltoall),
    [TDM_COLL_ALLTOALLV] = TABLE("alltoallv", alltoallv_algs, 0, choose_alltoallv),
    [TDM_COLL_ALLTOALLW] = TABLE("alltoallw", alltoallw_algs, 0, choose_alltoallv),
    [TDM_COLL_SCAN] = TABLE("scan", scan_algs, 0, choose_scan),
    [TDM_COLL_EXSCAN] = TABLE("exscan", exscan_algs, 0, choose_scan),
    [TDM_COLL_NEIGHBOR_ALLGATHER] = TABLE("neighbor_allgather", neighbor_allgather_algs, 0, first),
    [TDM_COLL_NEIGHBOR_ALLGATHERV] = TABLE("neighbor_allgatherv", neighbor_allgatherv_algs, 0, first),
    [TDM_COLL_NEIGHBOR_ALLTOALL] = TABLE("neighbor_alltoall", neighbor_alltoall_algs, 0, first),
    [TDM_COLL_NEIGHBOR_ALLTOALLV] = TABLE("neighbor_alltoallv", neighbor_alltoallv_algs, 0, first),
    [TDM_COLL_NEIGHBOR_ALLTOALLW] = TABLE("neighbor_alltoallw", neighbor_alltoallw_algs, 0, first),
};

static int forced[TDM_NCOLLECTIVES]; /* algorithm index + 1; 0 = auto */
static char names_buf[TDM_NCOLLECTIVES][256];
static unsigned fallback_reported[TDM_NCOLLECTIVES];

static int find_collective(const char *name)
{
    for (int k = 0; k < TDM_NCOLLECTIVES; k++)
        if (strcmp(tables[k].name, name) == 0)
            return k;
    return -1;
}

int tdm_select_kind(const char *collective) { return find_collective(collective); }

int tdm_select_automatic(int kind) { return !forced[kind]; }

const char *tdm_select_names(const char *collective)
{
    int k = collective ? find_collective(collective) : -1;
    if (k < 0)
        return NULL;
    char *buf = names_buf[k];
    int n = snprintf(buf, sizeof names_buf[k], "auto");
    for (int i = 0; i < tables[k].nalgs && n > 0 && (size_t)n < sizeof names_buf[k]; i++)
        n += snprintf(buf + n, sizeof names_buf[k] - (size_t)n, " %s", tables[k].algs[i].name);
    return buf;
}

const tdm_algorithm *tdm_select_named(const char *collective, const char *algorithm)
{
    int k = collective && algorithm ? find_collective(collective) : -1;
    for (int i = 0; k >= 0 && i < tables[k].nalgs; i++)
        if (strcmp(tables[k].algs[i].name, algorithm) == 0)
            return &tables[k].algs[i];
    return NULL;
}

tdm_algorithm_fn tdm_select_builder(const char *collective, const char *algorithm)
{
    const tdm_algorithm *alg = tdm_select_named(collective, algorithm);
    return alg ? alg->build : NULL;
}

int tdm_select_force(const char *fn, const char *collective, const char *algorithm)
{
    int k = collective ? find_collective(collective) : -1;
    if (k < 0)
        return tdm_error(fn, MPI_ERR_ARG, "unknown collective \"%s\" (argument collective)",
                         collective ? collective : "(null)");
    if (!algorithm)
        return tdm_error(fn, MPI_ERR_ARG, "algorithm is NULL (argument algorithm)");
    tdm_global.settings_epoch++; /* schedules cached under the old choice expire */
    if (strcmp(algorithm, "auto") == 0) {
        forced[k] = 0;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < tables[k].nalgs; i++)
        if (strcmp(tables[k].algs[i].name, algorithm) == 0) {
            forced[k] = i + 1;
            return MPI_SUCCESS;
        }
    return tdm_error(fn, MPI_ERR_ARG, "unknown %s algorithm \"%s\"; known: %s", collective, algorithm,
                     tdm_select_names(collective));
}

/* A setting counting lanes (TANDEM_COLOR_THREADS, TANDEM_BUCKET_CHAINS): 1 to TDM_MAX_LANES, or
 * `unset` when absent; MPI_ERR_ARG naming the variable otherwise. */
static int lane_count_setting(const char *fn, const char *name, const char *what, int unset, int *out)
{
    const char *text = getenv(name);
    *out = unset;
    if (!text || !*text)
        return MPI_SUCCESS;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v < 1 || v > TDM_MAX_LANES)
        return tdm_error(fn, MPI_ERR_ARG, "%s=%s: expected a number of %s, 1 to %d", name, text, what, TDM_MAX_LANES);
    *out = (int)v;
    return MPI_SUCCESS;
}

int tdm_select_init_from_env(const char *fn)
{
    tdm_global.settings_epoch++;
    memset(forced, 0, sizeof forced);
    memset(fallback_reported, 0, sizeof fallback_reported);
    for (int k = 0; k < TDM_NCOLLECTIVES; k++) {
        char var[64];
        snprintf(var, sizeof var, "TANDEM_%s", tables[k].name);
        for (char *c = var; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        const char *value = getenv(var);
        if (!value || !*value)
            continue;
        int rc = tdm_select_force(fn, tables[k].name, value);
        if (rc != MPI_SUCCESS)
            return tdm_error(fn, rc, "%s=%s: unknown algorithm; known: %s", var, value,
                             tdm_select_names(tables[k].name));
    }
    int rc = tdm_torus_init_from_env(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *seg = getenv("TANDEM_SEGMENT_BYTES");
    tdm_global.segment_bytes = 0; /* the model chooses */
    if (seg && *seg) {
        char *end;
        long long v = strtoll(seg, &end, 10);
        if (*end != '\0' || v <= 0)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_SEGMENT_BYTES=%s: expected a positive number of bytes",
                             seg);
        tdm_global.segment_bytes = (size_t)v;
    }
    const char *cache = getenv("TANDEM_CACHE_BYTES");
    tdm_global.cache_bytes = tdm_placement_last_cache_bytes(); /* 0 if hwloc cannot tell */
    if (cache && *cache) {
        char *end;
        long long v = strtoll(cache, &end, 10);
        if (*end != '\0' || v <= 0)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_CACHE_BYTES=%s: expected a positive number of bytes", cache);
        tdm_global.cache_bytes = (size_t)v;
    }
    if ((rc = lane_count_setting(fn, "TANDEM_COLOR_THREADS", "threads", 1, &tdm_global.color_threads)) != MPI_SUCCESS ||
        (rc = lane_count_setting(fn, "TANDEM_BUCKET_CHAINS", "chains", 0, &tdm_global.bucket_chains)) != MPI_SUCCESS)
        return rc; /* no chains setting: chosen by size */
    const char *loggp = getenv("TANDEM_LOGGP");
    tdm_global.loggp = tdm_loggp_defaults();
    if (loggp && *loggp && !tdm_loggp_parse_setting(loggp, &tdm_global.loggp))
        return tdm_error(fn, MPI_ERR_ARG,
                         "TANDEM_LOGGP=%s: expected a file written by tandem-model loggp or "
                         "alpha,beta,gamma[,latency] (seconds per message, per byte sent, per byte reduced; the "
                         "latency a round's messages share, 0 to alpha)",
                         loggp);
    return MPI_SUCCESS;
}

int tdm_select_lanes(const tdm_algorithm *alg, const tdm_coll_args *a, int most, int *per_thread)
{
    *per_thread = 1;
    if (!alg->lanes)
        return 1;
    int lanes = alg->lanes(a, tdm_global.color_threads, per_thread);
    if (lanes > most) { /* fewer tags than lanes (TANDEM_TAG_RANGE): one schedule */
        *per_thread = 1;
        return 1;
    }
    return lanes;
}

/* Why a node-aware algorithm cannot serve a call (NULL if it can): ranks that share no node; a
 * non-commutative op where nodes do not hold consecutive ranks; an element larger than a cell; a bcast
 * whose bytes pass INT_MAX (it moves them as bytes). */
static const char *nodes_refuse(const tdm_coll_args *a)
{
    if (!a->nodes)
        return "no ranks share a node";
    if (a->kind == TDM_COLL_REDUCE || a->kind == TDM_COLL_ALLREDUCE || a->kind == TDM_COLL_REDUCE_SCATTER ||
        a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK) {
        if (!a->commutative && !a->nodes->in_rank_order)
            return "non-commutative op, and nodes do not hold consecutive ranks";
        if (!tdm_node_fits(a->nodes, &a->dtype))
            return "one element of the datatype is larger than a shared-memory cell";
    }
    if (a->kind == TDM_COLL_REDUCE_SCATTER_BLOCK && (long long)a->count * a->size > INT_MAX)
        return "more than INT_MAX elements in all";
    if (a->kind == TDM_COLL_REDUCE_SCATTER) {
        long long total = 0;
        for (int r = 0; r < a->size; r++)
            total += a->recvcounts[r];
        if (total > INT_MAX)
            return "more than INT_MAX elements in all";
    }
    if (a->kind == TDM_COLL_SCAN || a->kind == TDM_COLL_EXSCAN) {
        if (a->nodes->nnodes > 1 && !a->nodes->in_rank_order)
            return "several nodes that do not hold consecutive ranks";
        if (!tdm_node_fits(a->nodes, &a->dtype))
            return "one element of the datatype is larger than a shared-memory cell";
    }
    if (a->kind == TDM_COLL_BCAST && (long long)a->count * a->dtype.size > INT_MAX)
        return "more than INT_MAX bytes";
    if ((a->kind == TDM_COLL_GATHER || a->kind == TDM_COLL_SCATTER || a->kind == TDM_COLL_ALLGATHER) &&
        (long long)tdm_node_block_bytes(a) * a->size > INT_MAX)
        return "more than INT_MAX bytes in all";
    return NULL;
}

static const char *cannot_serve(const tdm_algorithm *alg, const tdm_coll_args *a)
{
    if ((alg->needs & TDM_NEEDS_COMMUTATIVE) && !a->commutative)
        return "non-commutative op";
    if ((alg->needs & TDM_NEEDS_POWER_OF_TWO) && (a->size & (a->size - 1)) != 0)
        return "communicator size not a power of two";
    if (alg->needs & TDM_NEEDS_NODES)
        return nodes_refuse(a);
    return NULL;
}

static int can_serve(const tdm_algorithm *alg, const tdm_coll_args *a) { return cannot_serve(alg, a) == NULL; }

const tdm_algorithm *tdm_select(const tdm_coll_args *a)
{
    const collective_table *t = &tables[a->kind];
    int i = forced[a->kind] ? forced[a->kind] - 1 : t->choose(a);
    const char *why = cannot_serve(&t->algs[i], a);
    if (!why)
        return &t->algs[i];
    /* the automatic choice of a node-aware algorithm falls back quietly: it is tried on every call */
    if (tdm_global.verbose && forced[a->kind] && !(fallback_reported[a->kind] & (1u << i))) {
        fallback_reported[a->kind] |= 1u << i;
        fprintf(stderr, "tandem: %s cannot serve this call (%s); using %s\n", t->algs[i].full_name, why,
                t->algs[t->fallback].full_name);
    }
    if (!forced[a->kind] && (t->algs[i].needs & TDM_NEEDS_NODES)) { /* the choice without nodes */
        tdm_coll_args flat = *a;
        flat.nodes = NULL;
        i = t->choose(&flat);
        if (can_serve(&t->algs[i], a))
            return &t->algs[i];
    }
    return &t->algs[t->fallback];
}

void tdm_select_across_nodes(tdm_coll_args *a)
{
    tdm_coll_args among = *a;
    among.rank = a->nodes->node_of[a->rank];
    among.size = a->nodes->nnodes;
    among.nodes = NULL;
    among.split_levels = -1;
    among.torus_ndims = 0;
    among.torus_network = 0;
    among.lanes = 0;
    /* bcast, gather, scatter and allgather move bytes among the nodes: chosen as bytes, so that ranks
     * giving datatypes of one signature but other sizes choose alike (bcast_node.c builds it so) */
    tdm_typeinfo byte = {.extent = 1, .true_lb = 0, .true_extent = 1, .size = 1, .contiguous = 1};
    if (a->kind == TDM_COLL_BCAST) {
        among.count = a->count * a->dtype.size;
        among.datatype = MPI_BYTE;
        among.dtype = byte;
        among.root = a->nodes->node_of[a->root];
    }
    if (a->kind == TDM_COLL_GATHER || a->kind == TDM_COLL_SCATTER || a->kind == TDM_COLL_ALLGATHER) {
        /* a block of bytes per node (tdm_node_among_blocks), or the v form where nodes differ */
        among.sendcount = among.recvcount = (int)(tdm_node_block_bytes(a) * (size_t)a->nodes->largest);
        among.sendtype = among.recvtype = MPI_BYTE;
        among.stype = among.rtype = byte;
        if (a->kind != TDM_COLL_ALLGATHER)
            among.root = a->nodes->node_of[a->root];
        if (!tdm_nodes_uniform(a->nodes))
            among.kind = a->kind == TDM_COLL_GATHER ? TDM_COLL_GATHERV
                         : a->kind == TDM_COLL_SCATTER ? TDM_COLL_SCATTERV : TDM_COLL_ALLGATHERV;
    }
    int slices = a->kind == TDM_COLL_ALLREDUCE || a->kind == TDM_COLL_REDUCE ? tdm_node_slices(a) : 0;
    if (slices > 0) /* a slice among its owners */
        among.count = a->count / slices;
    if (a->kind == TDM_COLL_SCAN) /* the nodes' totals: an exscan */
        among.kind = TDM_COLL_EXSCAN;
    const collective_table *t = &tables[among.kind];
    int i = t->choose(&among);
    a->across_nodes = can_serve(&t->algs[i], &among) ? t->algs[i].build : t->algs[t->fallback].build;
}

/*
 * The arguments of one collective call, as every layer sees them (algorithms, selection, the model, the
 * DCP client): MPI's own arguments plus the communicator's size and the calling rank, and the datatype
 * geometry the algorithms need for temporary buffers. Filled once by the API layer after the arguments
 * were checked. Where each rank's block lies is in coll_blocks.h.
 */
#ifndef TANDEM_COLL_ARGS_H
#define TANDEM_COLL_ARGS_H

#include "../base/loggp_params.h"
#include "comm_nodes.h"

#include <mpi.h>
#include <stddef.h>

/* Dimensions of a torus at most (the torus bucket algorithms, the model's tori). */
#ifndef TDM_TORUS_MAX_DIMS
#define TDM_TORUS_MAX_DIMS 8
#endif

/* Lanes of one call at most: one per sub-color of the torus bucket (2 directions per dimension). */
#define TDM_MAX_LANES (2 * TDM_TORUS_MAX_DIMS)

typedef enum {
    TDM_COLL_BARRIER,
    TDM_COLL_BCAST,
    TDM_COLL_REDUCE,
    TDM_COLL_ALLREDUCE,
    TDM_COLL_GATHER,
    TDM_COLL_GATHERV,
    TDM_COLL_SCATTER,
    TDM_COLL_SCATTERV,
    TDM_COLL_ALLGATHER,
    TDM_COLL_ALLGATHERV,
    TDM_COLL_REDUCE_SCATTER,
    TDM_COLL_REDUCE_SCATTER_BLOCK,
    TDM_COLL_ALLTOALL,
    TDM_COLL_ALLTOALLV,
    TDM_COLL_ALLTOALLW,
    TDM_COLL_SCAN,
    TDM_COLL_EXSCAN,
    TDM_COLL_NEIGHBOR_ALLGATHER,
    TDM_COLL_NEIGHBOR_ALLGATHERV,
    TDM_COLL_NEIGHBOR_ALLTOALL,
    TDM_COLL_NEIGHBOR_ALLTOALLV,
    TDM_COLL_NEIGHBOR_ALLTOALLW,
    TDM_NCOLLECTIVES
} tdm_coll_kind;

/* Displacements as the caller gave them: MPI-3's int arrays, or MPI_Aint ones (the large-count forms,
 * neighbour alltoallw, a call run in chunks). At most one is set; neither: none given. */
typedef struct tdm_displs {
    const int *ints;
    const MPI_Aint *aints;
} tdm_displs;

static inline tdm_displs tdm_displs_of_ints(const int *d) { return (tdm_displs){.ints = d, .aints = NULL}; }
static inline tdm_displs tdm_displs_of_aints(const MPI_Aint *d) { return (tdm_displs){.ints = NULL, .aints = d}; }
static inline int tdm_displs_given(tdm_displs d) { return d.ints || d.aints; }
static inline MPI_Aint tdm_displ(tdm_displs d, int i) { return d.aints ? d.aints[i] : d.ints[i]; }

/* Geometry of count elements of a datatype in memory. */
typedef struct tdm_typeinfo {
    MPI_Aint extent;      /* stride between consecutive elements */
    MPI_Aint true_lb;     /* first byte touched, relative to the buffer pointer */
    MPI_Aint true_extent; /* bytes touched by one element */
    int size;             /* bytes of data in one element */
    int contiguous;       /* one element is `size` dense bytes at offset 0 and extent == size */
} tdm_typeinfo;

/* The geometry of a datatype (MPI's error code if MPI cannot tell it). */
int tdm_typeinfo_get(MPI_Datatype type, tdm_typeinfo *info);
/* The common predefined types, whose geometry is known without asking MPI. */
int tdm_type_is_common(MPI_Datatype type);

struct tdm_schedule;

typedef struct tdm_coll_args {
    tdm_coll_kind kind;
    int rank, size;

    /* bcast, reduce, allreduce, scan, exscan, reduce_scatter(_block): one buffer type */
    int count;              /* reduce_scatter_block: the per-rank block; bcast: buffer count */
    MPI_Datatype datatype;
    tdm_typeinfo dtype;
    MPI_Op op;
    int commutative;
    MPI_Datatype reduce_basic; /* see tdm_schedule.reduce_basic */

    /* all collectives: sendbuf is NULL-free here: MPI_IN_PLACE is turned into in_place = 1 */
    const void *sendbuf;
    void *recvbuf;          /* bcast: the buffer */
    int in_place;

    /* gather, scatter, allgather, alltoall and their v forms */
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    tdm_typeinfo stype, rtype;
    const int *sendcounts, *recvcounts; /* recvcounts: also reduce_scatter's */
    tdm_displs sdispls, rdispls;        /* in elements; alltoallw's in bytes */
    /* alltoallw: a datatype per rank */
    const MPI_Datatype *sendtypes, *recvtypes;
    /* neighbourhood collectives: the topology's neighbours, in MPI's order (MPI_PROC_NULL where a
     * Cartesian dimension ends); counts, displacements and datatypes index these lists */
    int nsources, ndests;
    const int *sources, *dests;
    int cartesian;          /* sources and dests are a Cartesian topology's (negative, positive) pairs */

    int root;

    /* tuning */
    size_t segment_bytes;   /* pipelining segment of ring and bucket steps; 0: chosen by the model */
    int bucket_chains;      /* TANDEM_BUCKET_CHAINS: chains of the torus bucket; 0: chosen by size */
    tdm_loggp loggp;        /* the machine's parameters, for the model's choices */
    int shared_memory;      /* all ranks on one node: a message is a copy the processes make
                               themselves, not a transfer beside the CPUs */
    size_t cache_bytes;     /* the node's last-level cache (0: unknown) */
    int split_levels;       /* split-tree mode: tree levels nearest the leaves that run on the
                               application thread (S); -1: not split */
    int torus_ndims;        /* the torus the ranks form (torus_bucket algorithms): from the
                               communicator's Cartesian topology, TANDEM_TORUS_DIMS or a
                               factorization of size; 0: a ring */
    int torus_dims[TDM_TORUS_MAX_DIMS];
    int torus_network;      /* the torus is the network's (TANDEM_TORUS_DIMS): selection may count on
                               its 2N links per rank */
    int lanes;              /* the call runs as this many independent schedules, one per lane (the
                               torus bucket's colors and chains, TANDEM_COLOR_THREADS); 0 or 1: one
                               schedule */
    int lane;               /* the lane this build is for, 0..lanes-1 */
    const tdm_comm_nodes *nodes; /* how the ranks lie on nodes (node-aware algorithms); NULL: every
                               rank alone on its node, or not known */
    /* node-aware algorithms: the algorithm of their phase among one rank per node (chosen by
       selection for that phase's call) */
    int (*across_nodes)(struct tdm_schedule *s, const struct tdm_coll_args *a);
} tdm_coll_args;

struct tdm_schedule;
/* An algorithm: builds this rank's schedule of the call (algorithms/algorithms.h has them all). */
typedef int (*tdm_algorithm_fn)(struct tdm_schedule *s, const tdm_coll_args *a);
/* The lanes (independent schedules, see tdm_coll_args.lanes) a call is built in, for `threads` color
 * threads (1: no color threads); *per_thread: how many consecutive lanes one color thread drives.
 * Only algorithms of independent parts have one (the torus bucket's colors and chains). */
typedef int (*tdm_lanes_fn)(const tdm_coll_args *a, int threads, int *per_thread);

/* Address of element i of a buffer of the given geometry. */
static inline void *tdm_elem(const void *buf, const tdm_typeinfo *t, MPI_Aint i)
{
    return (char *)buf + i * t->extent;
}

#endif

/* Small helpers shared by the algorithm builders. */
#ifndef TANDEM_ALG_UTIL_H
#define TANDEM_ALG_UTIL_H

#include "../schedule/coll_blocks.h"
#include "algorithms.h"


/* acc = lower op acc: the incoming partial result comes from lower ranks. */
void tdm_reduce_from_lower(tdm_schedule *s, const tdm_coll_args *a, const void *lower, void *acc,
                           int count);
/* acc = acc op higher: the incoming partial comes from higher ranks. For a non-commutative op this
 * takes two local actions and overwrites `higher`, which must be scratch. */
void tdm_reduce_from_higher(tdm_schedule *s, const tdm_coll_args *a, void *higher, void *acc,
                            int count);

/*
 * Non-power-of-two reductions (recursive doubling, Rabenseifner): the first 2*rem ranks, rem = p - pof2,
 * pair up; each even one hands its vector to the odd one above it, which combines them (in order) and
 * takes part in the power-of-two algorithm under rank r/2; ranks >= 2*rem take part as r - rem.
 * Returns the new rank, or -1 for a rank that sits out; unfold sends the result back to it.
 */
int tdm_pof2_fold(tdm_schedule *s, const tdm_coll_args *a, void *acc, void *scratch);
void tdm_pof2_unfold(tdm_schedule *s, const tdm_coll_args *a, void *acc);
static inline int tdm_pof2_real_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/*
 * The two halves of ring algorithms, on p blocks given by element offsets and counts (block b ends at
 * rank b). The reduce-scatter is commutative only: it leaves block `rank` of input, reduced over all
 * ranks, in out, pipelining segments of a->segment_bytes so that the reduction of one segment overlaps
 * the arrival of the next. The allgather circulates block b from rank b to every rank, in buf.
 */
void tdm_ring_reduce_scatter(tdm_schedule *s, const tdm_coll_args *a, const void *input,
                             const MPI_Aint *offset, const int *count, void *out);
void tdm_ring_allgather(tdm_schedule *s, int rank, int size, void *buf, const tdm_typeinfo *t,
                        MPI_Datatype type, const MPI_Aint *offset, const int *count, int first_step);
/*
 * The multi-color bucket algorithm on the torus of a->torus_dims (torus_bucket.c): reduce-scatter
 * leaves block `rank` of input (p blocks at input_offset, of counts), reduced over all ranks, at the
 * start of out; allgather fills every block of out (at offset) from each rank's own block (in input at
 * input_offset[rank]); allreduce does both, every block of out. Commutative ops only.
 *
 * With a->lanes > 1 the build is one lane's: only its sub-colors (see lane_of), a schedule
 * independent of the other lanes' (they may run on other threads, or interleave on one). Lanes touch disjoint parts of the
 * user's buffers, except an in-place reduce-scatter (its result overwrites input another lane may not
 * have read yet): that one must run in one lane.
 */
typedef enum { TDM_TORUS_REDUCE_SCATTER, TDM_TORUS_ALLGATHER, TDM_TORUS_ALLREDUCE } tdm_torus_bucket_op;
/* Unidirectional: every ring one way. Bidirectional: each color halved, one half the whole way round
 * each way (d - 1 steps a ring). Halfway (allgather only): each part goes the shorter way round, so
 * both ways carry the color's parts and a ring takes d/2 steps (d - 1 halves at its last step when d
 * is even), with the bidirectional form's bytes on every link. */
typedef enum { TDM_BUCKET_UNIDIRECTIONAL, TDM_BUCKET_BIDIRECTIONAL, TDM_BUCKET_HALFWAY } tdm_bucket_form;
int tdm_torus_bucket(tdm_schedule *s, const tdm_coll_args *a, tdm_torus_bucket_op op, tdm_bucket_form form,
                     const void *input, const MPI_Aint *input_offset, const MPI_Aint *offset, const int *count,
                     void *out);
/* The lanes a torus bucket call runs in (see tdm_lanes_fn): one per chain for each of `threads` color
 * threads, at most one thread per color and direction (halfway: per color); 1 on one rank. */
int tdm_torus_bucket_lanes(const tdm_coll_args *a, tdm_torus_bucket_op op, tdm_bucket_form form, int threads,
                           int *per_thread);

/* Segments to cut a message of `elems` elements into: of TANDEM_SEGMENT_BYTES each if set, else as many
 * as the model finds best (one if the receiver reduces nothing). Never more than elems. */
int tdm_segments(const tdm_coll_args *a, MPI_Aint elems, int reduces);

/* Arrays of p block offsets and counts for a vector of n elements split evenly (schedule memory).
 * Offsets are MPI_Aint: p blocks of an int count may add up past INT_MAX. */
int tdm_even_blocks(tdm_schedule *s, MPI_Aint n, int p, MPI_Aint **offset, int **count);

/*
 * Packed blocks: intermediate buffers of gather/scatter/allgather/alltoall trees hold each rank's block
 * as the bytes of its type signature (MPI_PACKED), so that ranks with different datatypes agree on the
 * layout (the homogeneous layout of Open MPI and MPICH). A message is packed at both ends or typed
 * at both ends, never mixed: MPI allows receiving MPI_PACKED data with a datatype, but MPICH 4.0 with
 * UCX reports long such messages as truncated.
 */
/* Copies the packed blocks of ranks [rel0, rel0 + n) relative to root out of / into a typed buffer
 * holding one block of `count` elements per absolute rank, splitting where the range wraps past p-1. */
void tdm_unpack_blocks(tdm_schedule *s, const char *packed, size_t block_bytes, int rel0, int n,
                       int root, int p, void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t);
void tdm_pack_blocks(tdm_schedule *s, const void *buf, int count, MPI_Datatype type,
                     const tdm_typeinfo *t, int rel0, int n, int root, int p, char *packed,
                     size_t block_bytes);
/* Sends count elements as packed bytes: straight from buf for a contiguous type, else packed into
 * schedule memory first (in the current round). */
void tdm_send_packed(tdm_schedule *s, const void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t,
                     int peer);
/* Receives packed bytes into count elements: straight into buf for a contiguous type, else into
 * schedule memory, returned; the caller unpacks it after the round with tdm_unpack_received. */
void *tdm_recv_packed(tdm_schedule *s, void *buf, int count, MPI_Datatype type, const tdm_typeinfo *t,
                      int peer);
void tdm_unpack_received(tdm_schedule *s, const void *staged, void *buf, int count, MPI_Datatype type,
                         const tdm_typeinfo *t);
/* The block of absolute rank r in a typed buffer of one block of `count` elements per rank. */
static inline void *tdm_rank_block(const void *buf, const tdm_typeinfo *t, int count, int r)
{
    return tdm_elem(buf, t, (MPI_Aint)count * r);
}


/* count elements split into nblocks nearly equal blocks, the first count % nblocks one larger. */
static inline int tdm_block_count(int count, int nblocks, int i)
{
    return count / nblocks + (i < count % nblocks);
}
static inline int tdm_block_offset(int count, int nblocks, int i)
{
    int extra = count % nblocks;
    return i * (count / nblocks) + (i < extra ? i : extra);
}

/* Largest power of two <= p (p >= 1). */
static inline int tdm_pof2_floor(int p)
{
    int v = 1;
    while (v * 2 <= p)
        v *= 2;
    return v;
}

/* Rank of r relative to root, and back. */
static inline int tdm_rel_rank(int r, int root, int p) { return (r - root + p) % p; }
static inline int tdm_abs_rank(int rel, int root, int p) { return (rel + root) % p; }

/* The send buffer of a reduction collective, taking MPI_IN_PLACE into account. */
static inline const void *tdm_reduction_input(const tdm_coll_args *a)
{
    return a->in_place ? a->recvbuf : a->sendbuf;
}

#endif

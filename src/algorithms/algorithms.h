/*
 * Every algorithm: a builder that turns one call's arguments into this rank's schedule. Algorithms
 * never call MPI for communication; they only describe it. One file per collective and algorithm.
 */
#ifndef TANDEM_ALGORITHMS_H
#define TANDEM_ALGORITHMS_H

#include "../schedule/coll_args.h"
#include "../schedule/schedule.h"

/* tdm_algorithm_fn and tdm_lanes_fn, the builders' types, are in schedule/coll_args.h: the model costs any
 * builder without knowing the algorithms. */

int tdm_barrier_dissemination(tdm_schedule *s, const tdm_coll_args *a);
int tdm_barrier_node(tdm_schedule *s, const tdm_coll_args *a);

int tdm_bcast_binomial(tdm_schedule *s, const tdm_coll_args *a);
int tdm_bcast_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_bcast_knomial(tdm_schedule *s, const tdm_coll_args *a);
/* The radix tdm_bcast_knomial takes for this call (the model's). */
int tdm_bcast_knomial_radix(const tdm_coll_args *a);
int tdm_bcast_scatter_allgather(tdm_schedule *s, const tdm_coll_args *a);
int tdm_bcast_node(tdm_schedule *s, const tdm_coll_args *a);

int tdm_reduce_binomial(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_node(tdm_schedule *s, const tdm_coll_args *a);

int tdm_allreduce_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_rabenseifner(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_ring(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_torus_bucket(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_allreduce_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_allreduce_reduce_bcast(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allreduce_node(tdm_schedule *s, const tdm_coll_args *a);

int tdm_gather_binomial(tdm_schedule *s, const tdm_coll_args *a);
int tdm_gather_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_gather_node(tdm_schedule *s, const tdm_coll_args *a);
int tdm_gatherv_linear(tdm_schedule *s, const tdm_coll_args *a);

int tdm_scatter_binomial(tdm_schedule *s, const tdm_coll_args *a);
int tdm_scatter_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_scatter_node(tdm_schedule *s, const tdm_coll_args *a);
int tdm_scatterv_linear(tdm_schedule *s, const tdm_coll_args *a);

int tdm_allgather_bruck(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_ring(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_torus_bucket(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_allgather_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_allgather_torus_bucket_halfway(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_torus_bucket_halfway_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_allgather_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgather_node(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgatherv_ring(tdm_schedule *s, const tdm_coll_args *a);
int tdm_allgatherv_linear(tdm_schedule *s, const tdm_coll_args *a);

int tdm_reduce_scatter_ring(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_scatter_torus_bucket(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_scatter_torus_bucket_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_reduce_scatter_torus_bucket_uni(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_scatter_torus_bucket_uni_lanes(const tdm_coll_args *a, int threads, int *per_thread);
int tdm_reduce_scatter_pairwise(tdm_schedule *s, const tdm_coll_args *a);
int tdm_reduce_scatter_node(tdm_schedule *s, const tdm_coll_args *a);


int tdm_alltoall_pairwise(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoall_bruck(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoall_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoallv_pairwise(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoallv_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoallw_pairwise(tdm_schedule *s, const tdm_coll_args *a);
int tdm_alltoallw_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_neighbor_allgather_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_neighbor_allgatherv_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_neighbor_alltoall_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_neighbor_alltoallv_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_neighbor_alltoallw_linear(tdm_schedule *s, const tdm_coll_args *a);

int tdm_scan_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a);
int tdm_scan_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_exscan_recursive_doubling(tdm_schedule *s, const tdm_coll_args *a);
int tdm_exscan_linear(tdm_schedule *s, const tdm_coll_args *a);
int tdm_scan_node(tdm_schedule *s, const tdm_coll_args *a);
int tdm_exscan_node(tdm_schedule *s, const tdm_coll_args *a);

#endif

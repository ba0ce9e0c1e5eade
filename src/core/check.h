/*
 * Argument checks shared by every collective start: each returns MPI_SUCCESS or the MPI error class
 * with a message naming the function and the argument (see error.h).
 */
#ifndef TANDEM_CHECK_H
#define TANDEM_CHECK_H

#include "../schedule/coll_args.h"

/* Tandem initialized, a request pointer, a valid intra-communicator; fills kind, rank and size. */
int tdm_check_call(const char *fn, MPI_Comm comm, void *request, tdm_coll_kind kind, tdm_coll_args *a);
int tdm_check_count(const char *fn, const char *name, int count);
/* Not MPI_DATATYPE_NULL; fills the geometry. */
int tdm_check_type(const char *fn, const char *name, MPI_Datatype type, tdm_typeinfo *info);
/* A buffer that must hold data: not MPI_IN_PLACE, not NULL for count > 0 of a predefined type
 * (a derived type may address from MPI_BOTTOM). */
int tdm_check_buffer(const char *fn, const char *name, const void *buf, int count, MPI_Datatype type);
int tdm_check_root(const char *fn, int root, int size);
/* The op exists for the datatype (MPI_ERR_OP otherwise); fills a->op and a->commutative. */
int tdm_check_op(const char *fn, MPI_Op op, MPI_Datatype type, tdm_coll_args *a);
/* counts[size] (and displs[size] unless NULL is passed for displs_name) present, counts >= 0. */
int tdm_check_counts(const char *fn, const char *counts_name, const int *counts, const char *displs_name,
                     tdm_displs displs, int size);
/* sendbuf and recvbuf must not be the same memory unless MPI_IN_PLACE is used. */
/* One side of an alltoallw (or neighbour alltoallw: n blocks): counts, displacements (only their
 * presence is checked) and a datatype per block, checked where a block has elements (a datatype
 * is not significant for an empty block). side: "send" or "recv". */
int tdm_check_typed_blocks(const char *fn, const char *side, const void *buf, const int *counts, tdm_displs displs,
                           const MPI_Datatype *types, int n);
int tdm_check_not_aliased(const char *fn, const void *sendbuf, const void *recvbuf, int count);
/* The checks common to reductions (reduce, allreduce, scan, exscan, reduce_scatter*): count, datatype,
 * op, the buffers (recvbuf of recv_count elements, if significant here); fills a's reduction fields. */
int tdm_check_reduction(const char *fn, tdm_coll_args *a, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, int recv_count, int recv_significant);
/* One side of a call in blocks (MPI_IN_PLACE where allowed sets a->in_place): count, datatype, buffer;
 * fills a's fields of that side. */
int tdm_check_send_side(const char *fn, tdm_coll_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        int in_place_allowed);
int tdm_check_recv_side(const char *fn, tdm_coll_args *a, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int in_place_allowed);

#endif

/* Local reductions: inout = in op inout. */
#ifndef TANDEM_LOCAL_REDUCE_H
#define TANDEM_LOCAL_REDUCE_H

#include "../schedule/schedule.h"

/* Runs a reduce action, every repetition: dst = src op dst. Its basic type: MPI_DATATYPE_NULL to apply
 * op to type directly (MPI_Reduce_local); else the predefined type that the derived `type` repeats,
 * through which a predefined op is applied. Returns an MPI error code. */
int tdm_local_reduce(const tdm_action *a, MPI_Comm comm);
/* Runs a reduce action once (its repeat must be 1: a get is never folded) with its input-output apart:
 * dst = src op other, where other holds count elements of type too (not dst). One pass where
 * tdm_action_reduce_fuses (schedule.h); otherwise other is copied to dst first. */
int tdm_local_reduce_from(const tdm_action *a, const void *other, MPI_Comm comm);
/* inout = in op inout for count elements of a type whose elements are dense (size == extent, from
 * offset 0): the common pairs here, the others through MPI_Reduce_local. */
int tdm_local_reduce_dense(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op);

#endif

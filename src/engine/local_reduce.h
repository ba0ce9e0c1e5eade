/* Local reductions: inout = in op inout. */
#ifndef TANDEM_LOCAL_REDUCE_H
#define TANDEM_LOCAL_REDUCE_H

#include <mpi.h>

/* basic: MPI_DATATYPE_NULL to apply op to type directly (MPI_Reduce_local); else the predefined type
 * that the derived `type` repeats, through which a predefined op is applied. */
int tdm_local_reduce(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Datatype basic, MPI_Comm comm);

#endif

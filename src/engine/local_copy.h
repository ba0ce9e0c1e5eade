/* Copying typed data between two buffers of matching type signatures, in process. */
#ifndef TANDEM_LOCAL_COPY_H
#define TANDEM_LOCAL_COPY_H

#include <mpi.h>

/* MPI_PACKED as either type means bytes produced by MPI_Pack (count = bytes). comm is only used for
 * MPI_Pack/MPI_Unpack. Returns an MPI error code. */
int tdm_local_copy(const void *src, int src_count, MPI_Datatype src_type, void *dst, int dst_count,
                   MPI_Datatype dst_type, MPI_Comm comm);

#endif

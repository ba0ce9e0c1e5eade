/* Copying typed data between two buffers of matching type signatures, in process. */
#ifndef TANDEM_LOCAL_COPY_H
#define TANDEM_LOCAL_COPY_H

#include "../base/smpi_support.h"
#include "../schedule/schedule.h"

#include <string.h>

/* Large dense copies go in blocks of this size (see local_copy.c). */
#define TDM_COPY_BLOCK_BYTES ((size_t)128 * 1024)

/* Runs a copy action, every repetition. MPI_PACKED as either type means bytes produced by MPI_Pack
 * (count = bytes). comm is only used for MPI_Pack/MPI_Unpack. Returns an MPI error code. */
int tdm_local_copy_any(const tdm_action *a, MPI_Comm comm);

/* The same, with the common case, one dense block of bytes, inline. */
static inline int tdm_local_copy(const tdm_action *a, MPI_Comm comm)
{
    if (TDM_SIMULATED || a->plain_bytes < 0 || a->repeat != 1 || (size_t)a->plain_bytes > TDM_COPY_BLOCK_BYTES)
        return tdm_local_copy_any(a, comm);
    if (a->src != a->dst)
        memcpy(a->dst, a->src, (size_t)a->plain_bytes);
    return MPI_SUCCESS;
}

#endif

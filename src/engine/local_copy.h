/* Copying typed data between two buffers of matching type signatures, in process. */
#ifndef TANDEM_LOCAL_COPY_H
#define TANDEM_LOCAL_COPY_H

#include "../schedule/schedule.h"

/* Runs a copy action, every repetition. MPI_PACKED as either type means bytes produced by MPI_Pack
 * (count = bytes). comm is only used for MPI_Pack/MPI_Unpack. Returns an MPI error code. */
int tdm_local_copy(const tdm_action *a, MPI_Comm comm);

#endif

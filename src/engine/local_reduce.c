#include "local_reduce.h"

#include <stdlib.h>

/* Packs both operands into dense arrays of the basic type, reduces those, unpacks the result. */
static int reduce_through_basic(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op,
                                MPI_Datatype basic, MPI_Comm comm)
{
    int type_size, basic_size;
    MPI_Type_size(type, &type_size);
    MPI_Type_size(basic, &basic_size);
    size_t bytes = (size_t)count * (size_t)type_size;
    int nbasic = (int)(bytes / (size_t)basic_size);
    char *packed = malloc(2 * bytes);
    if (!packed)
        return MPI_ERR_NO_MEM;
    int pos_in = 0, pos_inout = 0, pos_out = 0;
    int rc = MPI_Pack(in, count, type, packed, (int)bytes, &pos_in, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Pack(inout, count, type, packed + bytes, (int)bytes, &pos_inout, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce_local(packed, packed + bytes, nbasic, basic, op);
    if (rc == MPI_SUCCESS)
        rc = MPI_Unpack(packed + bytes, (int)bytes, &pos_out, inout, count, type, comm);
    free(packed);
    return rc;
}

int tdm_local_reduce(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Datatype basic, MPI_Comm comm)
{
    if (basic == MPI_DATATYPE_NULL)
        return MPI_Reduce_local(in, inout, count, type, op);
    return reduce_through_basic(in, inout, count, type, op, basic, comm);
}

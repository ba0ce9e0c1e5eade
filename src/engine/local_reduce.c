#include "local_reduce.h"

#include "../base/smpi_support.h"

#include <stdlib.h>

/*
 * Applies a predefined op to a derived datatype through the one predefined type it repeats: both
 * operands are copied into arrays of that basic type (through the packed form, which also handles
 * basic types with padding such as MPI_DOUBLE_INT), reduced there, and copied back.
 */
static int reduce_through_basic(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op,
                                MPI_Datatype basic, MPI_Comm comm)
{
    int type_size, basic_size, rc;
    MPI_Aint lb, basic_extent;
    MPI_Type_size(type, &type_size);
    MPI_Type_size(basic, &basic_size);
    MPI_Type_get_extent(basic, &lb, &basic_extent);
    long long bytes = (long long)count * type_size;
    long long nbasic = bytes / basic_size;
    if (bytes > 0x7fffffff)
        return MPI_ERR_COUNT; /* MPI_Pack counts bytes in an int */
    char *packed = malloc((size_t)bytes + 1);
    char *a = malloc((size_t)(nbasic * basic_extent) + 1), *b = malloc((size_t)(nbasic * basic_extent) + 1);
    if (!packed || !a || !b) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int pos;
#define STEP(call)                                                                                      \
    if ((rc = (call)) != MPI_SUCCESS)                                                                   \
        goto out;
    pos = 0;
    STEP(MPI_Pack(in, count, type, packed, (int)bytes, &pos, comm));
    pos = 0;
    STEP(MPI_Unpack(packed, (int)bytes, &pos, a, (int)nbasic, basic, comm));
    pos = 0;
    STEP(MPI_Pack(inout, count, type, packed, (int)bytes, &pos, comm));
    pos = 0;
    STEP(MPI_Unpack(packed, (int)bytes, &pos, b, (int)nbasic, basic, comm));
    STEP(MPI_Reduce_local(a, b, (int)nbasic, basic, op));
    pos = 0;
    STEP(MPI_Pack(b, (int)nbasic, basic, packed, (int)bytes, &pos, comm));
    pos = 0;
    STEP(MPI_Unpack(packed, (int)bytes, &pos, inout, count, type, comm));
#undef STEP
out:
    free(packed);
    free(a);
    free(b);
    return rc;
}

int tdm_local_reduce(const tdm_action *a, MPI_Comm comm)
{
    /* one charge for every repetition: each is an event of the simulation */
    if (tdm_smpi_charge_reduction((double)a->count * a->repeat, a->type))
        return MPI_SUCCESS; /* a timing-only simulation: charged, not computed */
    int rc = MPI_SUCCESS;
    for (int k = 0; k < a->repeat && rc == MPI_SUCCESS; k++) {
        const void *in = tdm_action_at(a->src, a->src_stride, k);
        void *inout = tdm_action_at(a->dst, a->dst_stride, k);
        rc = a->basic == MPI_DATATYPE_NULL ? MPI_Reduce_local(in, inout, a->count, a->type, a->op)
                                           : reduce_through_basic(in, inout, a->count, a->type, a->op, a->basic, comm);
    }
    return rc;
}

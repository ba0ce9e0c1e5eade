#include "local_reduce.h"

#include "../base/smpi_support.h"
#include "local_copy.h"

#include <stdint.h>
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

/* reduce_<T>: y = x op z for the ops of T below (z may be y: in place), sums and products in U
 * (unsigned for integers: they wrap, as MPI's do, where signed overflow would be undefined); 0 where op
 * is not one. */
#define DEFINE_REDUCE(T, U, ordered)                                                                    \
    static int reduce_##T(const T *x, const T *z, T *y, int count, MPI_Op op)                           \
    {                                                                                                   \
        if (op == MPI_SUM)                                                                              \
            for (int i = 0; i < count; i++)                                                             \
                y[i] = (T)((U)x[i] + (U)z[i]);                                                          \
        else if (op == MPI_PROD)                                                                        \
            for (int i = 0; i < count; i++)                                                             \
                y[i] = (T)((U)x[i] * (U)z[i]);                                                          \
        else if (ordered && op == MPI_MAX)                                                              \
            for (int i = 0; i < count; i++)                                                             \
                y[i] = x[i] > z[i] ? x[i] : z[i];                                                       \
        else if (ordered && op == MPI_MIN)                                                              \
            for (int i = 0; i < count; i++)                                                             \
                y[i] = x[i] < z[i] ? x[i] : z[i];                                                       \
        else                                                                                            \
            return 0;                                                                                   \
        return 1;                                                                                       \
    }
DEFINE_REDUCE(double, double, 0)
DEFINE_REDUCE(float, float, 0)
DEFINE_REDUCE(int32_t, uint32_t, 1)
DEFINE_REDUCE(int64_t, uint64_t, 1)
DEFINE_REDUCE(uint32_t, uint32_t, 1)
DEFINE_REDUCE(uint64_t, uint64_t, 1)
#undef DEFINE_REDUCE

/* The common predefined ops on the common predefined types, inout = in op other (other may be inout):
 * MPI_Reduce_local's dispatch costs about 180 instructions a call in Open MPI, more than an 8-byte
 * allreduce through the node's segment takes otherwise. Sums and products of floating-point numbers
 * give the bits MPI's do (one IEEE operation per element); the maximum and minimum only of integers
 * (MPI libraries differ on NaN and signed zeros there). 0 where the pair is not one of these: MPI
 * applies it. */
static int reduce_common(const void *in, const void *other, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    int long64 = sizeof(long) == 8;
    if (type == MPI_DOUBLE)
        return reduce_double(in, other, inout, count, op);
    if (type == MPI_FLOAT)
        return reduce_float(in, other, inout, count, op);
    if (type == MPI_INT || type == MPI_INT32_T)
        return reduce_int32_t(in, other, inout, count, op);
    if (type == MPI_LONG_LONG || type == MPI_INT64_T || (long64 && type == MPI_LONG))
        return reduce_int64_t(in, other, inout, count, op);
    if (type == MPI_UNSIGNED || type == MPI_UINT32_T)
        return reduce_uint32_t(in, other, inout, count, op);
    if (type == MPI_UNSIGNED_LONG_LONG || type == MPI_UINT64_T || (long64 && type == MPI_UNSIGNED_LONG))
        return reduce_uint64_t(in, other, inout, count, op);
    return 0;
}

int tdm_local_reduce_dense(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    return reduce_common(in, inout, inout, count, type, op) ? MPI_SUCCESS : MPI_Reduce_local(in, inout, count, type, op);
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
        if (a->basic != MPI_DATATYPE_NULL)
            rc = reduce_through_basic(in, inout, a->count, a->type, a->op, a->basic, comm);
        else if (!reduce_common(in, inout, inout, a->count, a->type, a->op))
            rc = MPI_Reduce_local(in, inout, a->count, a->type, a->op);
    }
    return rc;
}

int tdm_local_reduce_from(const tdm_action *a, const void *other, MPI_Comm comm)
{
    if (tdm_action_reduce_fuses(a) && reduce_common(a->src, other, a->dst, a->count, a->type, a->op))
        return MPI_SUCCESS;
    /* otherwise: other copied to dst, then reduced there (a derived type's copy keeps its gaps) */
    tdm_action copy = *a;
    copy.kind = TDM_ACT_COPY;
    copy.src = other;
    copy.dst_count = a->count;
    copy.dst_type = a->type;
    copy.src_stride = copy.dst_stride = 0;
    copy.repeat = 1;
    int rc = tdm_local_copy_any(&copy, comm);
    return rc == MPI_SUCCESS ? tdm_local_reduce(a, comm) : rc;
}

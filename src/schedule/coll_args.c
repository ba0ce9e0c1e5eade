/* A datatype's geometry (coll_args.h): the common predefined types without asking MPI, as a call's
 * arguments are described on every collective's start. */
#include "coll_args.h"

static int common_type(MPI_Datatype type, tdm_typeinfo *info)
{
    int size = type == MPI_DOUBLE || type == MPI_LONG_LONG || type == MPI_INT64_T ? 8
               : type == MPI_INT || type == MPI_FLOAT || type == MPI_UNSIGNED    ? 4
               : type == MPI_BYTE || type == MPI_CHAR                            ? 1
                                                                                  : 0;
    if (!size)
        return 0;
    *info = (tdm_typeinfo){.extent = size, .true_lb = 0, .true_extent = size, .size = size, .contiguous = 1};
    return 1;
}

int tdm_typeinfo_get(MPI_Datatype type, tdm_typeinfo *info)
{
    if (common_type(type, info))
        return MPI_SUCCESS;
    MPI_Aint lb;
    int rc = MPI_Type_size(type, &info->size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_extent(type, &lb, &info->extent);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_get_true_extent(type, &info->true_lb, &info->true_extent);
    info->contiguous = rc == MPI_SUCCESS && info->true_lb == 0 && info->true_extent == info->size &&
                       info->extent == info->size;
    return rc;
}

int tdm_type_is_common(MPI_Datatype type)
{
    tdm_typeinfo ignored;
    return common_type(type, &ignored);
}

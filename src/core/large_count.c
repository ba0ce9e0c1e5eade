#include "large_count.h"

#include "../base/error.h"
#include "../base/state.h"
#include "../base/state.h"

#include <limits.h>
#include <stdlib.h>

int tdm_count_from_large(const char *fn, const char *name, MPI_Count count, int *out)
{
    if (count > INT_MAX)
        return tdm_error(fn, MPI_ERR_COUNT, "count %lld exceeds INT_MAX, which a v or w form's blocks must fit in "
                                            "(argument %s)", (long long)count, name);
    *out = count < 0 ? -1 : (int)count;
    return MPI_SUCCESS;
}

int tdm_counts_from_large(const char *fn, const char *name, const MPI_Count *in, int n, int **out)
{
    *out = NULL;
    if (!in)
        return MPI_SUCCESS;
    int *converted = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!converted)
        return tdm_error(fn, MPI_ERR_NO_MEM, "out of memory converting %s", name);
    for (int i = 0; i < n; i++) {
        long long v = (long long)in[i];
        if (v > INT_MAX || v < INT_MIN) {
            free(converted);
            return tdm_error(fn, MPI_ERR_COUNT, "%s[%d] = %lld is beyond INT_MAX, which a v or w form's blocks "
                                                "must fit in (argument %s)", name, i, v, name);
        }
        converted[i] = (int)v;
    }
    *out = converted;
    return MPI_SUCCESS;
}

int tdm_large_agree(const char *fn, MPI_Comm comm, int rc)
{
    int inter = 0, refused = rc != MPI_SUCCESS, anywhere = refused;
    if (!tdm_global.initialized || comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        inter)
        return rc;
    if (MPI_Allreduce(&refused, &anywhere, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return rc;
    if (anywhere && !refused)
        return tdm_error(fn, MPI_ERR_COUNT, "another rank's counts do not fit in int: every rank refuses the "
                                            "call (arguments sendcounts, recvcounts)");
    return rc;
}

int tdm_large_blocks(MPI_Comm comm)
{
    int n = 0, inter = 0;
    if (comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    return n;
}

int tdm_large_is_root(MPI_Comm comm, int root)
{
    int rank = -1;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_rank(comm, &rank);
    return rank == root;
}

#include "check.h"

#include "api_internal.h"

#include "../base/error.h"
#include "../base/state.h"
#include "../engine/shadow_comm.h"
#include "op_rules.h"

#include <stdio.h>
#include <string.h>

int tdm_check_call(const char *fn, MPI_Comm comm, void *request, tdm_coll_kind kind, tdm_coll_args *a)
{
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized (call TDM_Init first%s)",
                         tdm_global.finalized ? "; TDM_Finalize was called" : "");
    if (!request)
        return tdm_error(fn, MPI_ERR_ARG, "request is NULL (argument request)");
    if (comm == MPI_COMM_NULL)
        return tdm_error(fn, MPI_ERR_COMM, "comm is MPI_COMM_NULL (argument comm)");
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->datatype = a->sendtype = a->recvtype = MPI_DATATYPE_NULL;
    a->op = MPI_OP_NULL;
    a->segment_bytes = tdm_global.segment_bytes;
    a->bucket_chains = tdm_global.bucket_chains;
    a->loggp = tdm_global.loggp;
    a->shared_memory = tdm_global.one_node;
    a->cache_bytes = tdm_global.cache_bytes;
    a->split_levels = -1;
    a->torus_ndims = 0;
    tdm_shadow *sh = tdm_coll_group(); /* a DCP's call among the DCPs of a communicator: the group's */
    if (!sh)
        sh = tdm_shadow_lookup(comm);
    if (sh) {
        a->rank = sh->rank;
        a->size = sh->size;
        return MPI_SUCCESS;
    }
    int inter = 0, rc = MPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS)
        return tdm_error(fn, MPI_ERR_COMM, "invalid communicator (argument comm)");
    if (inter)
        return tdm_error(fn, MPI_ERR_COMM,
                         "inter-communicators are not supported (argument comm); use MPI's own collective");
    MPI_Comm_rank(comm, &a->rank);
    MPI_Comm_size(comm, &a->size);
    return MPI_SUCCESS;
}

int tdm_check_count(const char *fn, const char *name, int count)
{
    if (count < 0)
        return tdm_error(fn, MPI_ERR_COUNT, "negative count %d (argument %s)", count, name);
    return MPI_SUCCESS;
}

int tdm_check_type(const char *fn, const char *name, MPI_Datatype type, tdm_typeinfo *info)
{
    if (type == MPI_DATATYPE_NULL)
        return tdm_error(fn, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL (argument %s)", name, name);
    if (tdm_typeinfo_get(type, info) != MPI_SUCCESS)
        return tdm_error(fn, MPI_ERR_TYPE, "invalid datatype (argument %s)", name);
    return MPI_SUCCESS;
}

static int is_derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    return MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
           combiner != MPI_COMBINER_NAMED;
}

int tdm_check_buffer(const char *fn, const char *name, const void *buf, int count, MPI_Datatype type)
{
    if (buf == MPI_IN_PLACE)
        return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument %s)", name);
    if (buf == NULL && count > 0 && !is_derived(type))
        return tdm_error(fn, MPI_ERR_BUFFER, "NULL buffer with count %d (argument %s)", count, name);
    return MPI_SUCCESS;
}

int tdm_check_root(const char *fn, int root, int size)
{
    if (root < 0 || root >= size)
        return tdm_error(fn, MPI_ERR_ROOT, "invalid root %d for a communicator of %d ranks (argument root)",
                         root, size);
    return MPI_SUCCESS;
}

int tdm_check_op(const char *fn, MPI_Op op, MPI_Datatype type, tdm_coll_args *a)
{
    if (op == MPI_OP_NULL)
        return tdm_error(fn, MPI_ERR_OP, "op is MPI_OP_NULL (argument op)");
    char why[256];
    int rc = tdm_op_check(op, type, &a->reduce_basic, why, sizeof why);
    if (rc != MPI_SUCCESS && why[0])
        return tdm_error(fn, rc, "%s (arguments op, datatype)", why);
    if (rc != MPI_SUCCESS)
        return tdm_error(fn, MPI_ERR_TYPE, "invalid datatype (argument datatype)");
    a->op = op;
    a->commutative = 1;
    if (!tdm_op_is_predefined(op) && MPI_Op_commutative(op, &a->commutative) != MPI_SUCCESS)
        return tdm_error(fn, MPI_ERR_OP, "invalid op (argument op)");
    return MPI_SUCCESS;
}

int tdm_check_counts(const char *fn, const char *counts_name, const int *counts, const char *displs_name,
                     tdm_displs displs, int size)
{
    if (!counts)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", counts_name, counts_name);
    if (displs_name && !tdm_displs_given(displs))
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", displs_name, displs_name);
    for (int i = 0; i < size; i++)
        if (counts[i] < 0)
            return tdm_error(fn, MPI_ERR_COUNT, "negative count %d at %s[%d] (argument %s)", counts[i],
                             counts_name, i, counts_name);
    return MPI_SUCCESS;
}

int tdm_check_typed_blocks(const char *fn, const char *side, const void *buf, const int *counts, tdm_displs displs,
                           const MPI_Datatype *types, int n)
{
    char counts_name[16], displs_name[16], types_name[16], buf_name[16], one[32];
    snprintf(counts_name, sizeof counts_name, "%scounts", side);
    snprintf(displs_name, sizeof displs_name, "%sdispls", side[0] == 's' ? "s" : "r");
    snprintf(types_name, sizeof types_name, "%stypes", side);
    snprintf(buf_name, sizeof buf_name, "%sbuf", side);
    int rc = tdm_check_counts(fn, counts_name, counts, NULL, (tdm_displs){0}, n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!tdm_displs_given(displs))
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", displs_name, displs_name);
    if (!types)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", types_name, types_name);
    for (int j = 0; j < n; j++) {
        if (counts[j] == 0)
            continue;
        tdm_typeinfo info;
        snprintf(one, sizeof one, "%s[%d]", types_name, j);
        if ((rc = tdm_check_type(fn, one, types[j], &info)) != MPI_SUCCESS ||
            (rc = tdm_check_buffer(fn, buf_name, buf, counts[j], types[j])) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int tdm_check_not_aliased(const char *fn, const void *sendbuf, const void *recvbuf, int count)
{
    if (count > 0 && sendbuf != NULL && sendbuf == recvbuf)
        return tdm_error(fn, MPI_ERR_BUFFER,
                         "sendbuf and recvbuf are the same buffer (arguments sendbuf, recvbuf); use MPI_IN_PLACE");
    return MPI_SUCCESS;
}

#define CHECKED(call)                                                                                   \
    do {                                                                                                \
        int rc_ = (call);                                                                               \
        if (rc_ != MPI_SUCCESS)                                                                         \
            return rc_;                                                                                 \
    } while (0)

int tdm_check_reduction(const char *fn, tdm_coll_args *a, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int recv_count, int recv_significant)
{
    CHECKED(tdm_check_count(fn, "count", count));
    CHECKED(tdm_check_type(fn, "datatype", datatype, &a->dtype));
    CHECKED(tdm_check_op(fn, op, datatype, a));
    a->datatype = datatype;
    a->count = count;
    a->in_place = sendbuf == MPI_IN_PLACE;
    if (!a->in_place)
        CHECKED(tdm_check_buffer(fn, "sendbuf", sendbuf, count, datatype));
    if (recv_significant) {
        CHECKED(tdm_check_buffer(fn, "recvbuf", recvbuf, recv_count, datatype));
        if (!a->in_place)
            CHECKED(tdm_check_not_aliased(fn, sendbuf, recvbuf, count));
    }
    a->sendbuf = a->in_place ? NULL : sendbuf;
    a->recvbuf = recvbuf;
    return MPI_SUCCESS;
}

/* The send side of gather-like calls, or the in-place case (then the receive side stands for it). */
int tdm_check_send_side(const char *fn, tdm_coll_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        int in_place_allowed)
{
    if (sendbuf == MPI_IN_PLACE) {
        if (!in_place_allowed)
            return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument sendbuf)");
        a->in_place = 1;
        return MPI_SUCCESS;
    }
    CHECKED(tdm_check_count(fn, "sendcount", sendcount));
    CHECKED(tdm_check_type(fn, "sendtype", sendtype, &a->stype));
    CHECKED(tdm_check_buffer(fn, "sendbuf", sendbuf, sendcount, sendtype));
    a->sendbuf = sendbuf;
    a->sendcount = sendcount;
    a->sendtype = sendtype;
    return MPI_SUCCESS;
}

int tdm_check_recv_side(const char *fn, tdm_coll_args *a, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int in_place_allowed)
{
    if (recvbuf == MPI_IN_PLACE) {
        if (!in_place_allowed)
            return tdm_error(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here (argument recvbuf)");
        a->in_place = 1;
        return MPI_SUCCESS;
    }
    CHECKED(tdm_check_count(fn, "recvcount", recvcount));
    CHECKED(tdm_check_type(fn, "recvtype", recvtype, &a->rtype));
    CHECKED(tdm_check_buffer(fn, "recvbuf", recvbuf, recvcount, recvtype));
    a->recvbuf = recvbuf;
    a->recvcount = recvcount;
    a->recvtype = recvtype;
    return MPI_SUCCESS;
}

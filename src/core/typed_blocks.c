#include "typed_blocks.h"

#include "check.h"

#include <stdlib.h>

static int is_derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    if (type == MPI_DATATYPE_NULL || tdm_type_is_common(type))
        return 0;
    return MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED;
}

/* The duplicate of a derived datatype, made once however many ranks' blocks use it. */
static int held(struct tdm_request *req, MPI_Datatype *originals, MPI_Datatype type, MPI_Datatype *copy)
{
    if (!is_derived(type)) {
        *copy = type;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < req->ntyped_dups; i++)
        if (originals[i] == type) {
            *copy = req->typed_dups[i];
            return MPI_SUCCESS;
        }
    int rc = MPI_Type_dup(type, &req->typed_dups[req->ntyped_dups]);
    if (rc == MPI_SUCCESS) {
        originals[req->ntyped_dups] = type;
        *copy = req->typed_dups[req->ntyped_dups++];
    }
    return rc;
}

int tdm_hold_typed_blocks(struct tdm_request *req, tdm_coll_args *a)
{
    int neighbor = a->kind == TDM_COLL_NEIGHBOR_ALLTOALLW;
    size_t n[2] = {(size_t)(neighbor ? a->ndests : a->size), (size_t)(neighbor ? a->nsources : a->size)};
    const MPI_Datatype *given[2] = {a->sendtypes, a->recvtypes};
    req->typed_blocks = malloc(sizeof(MPI_Datatype) * (n[0] + n[1] + 1));
    req->typed_dups = malloc(sizeof(MPI_Datatype) * (n[0] + n[1] + 1));
    MPI_Datatype *originals = malloc(sizeof(MPI_Datatype) * (n[0] + n[1] + 1));
    int rc = req->typed_blocks && req->typed_dups && originals ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int side = 0; side < 2 && rc == MPI_SUCCESS; side++)
        for (size_t j = 0; given[side] && j < n[side] && rc == MPI_SUCCESS; j++)
            rc = held(req, originals, given[side][j], &req->typed_blocks[side * n[0] + j]);
    free(originals);
    if (rc == MPI_SUCCESS) {
        a->sendtypes = given[0] ? req->typed_blocks : NULL;
        a->recvtypes = given[1] ? req->typed_blocks + n[0] : NULL;
    }
    return rc;
}

void tdm_release_typed_blocks(struct tdm_request *req)
{
    for (int i = 0; i < req->ntyped_dups; i++)
        MPI_Type_free(&req->typed_dups[i]);
    free(req->typed_blocks);
    free(req->typed_dups);
    req->typed_blocks = req->typed_dups = NULL;
    req->ntyped_dups = 0;
}

#include "call_args.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int is_reduction(tdm_coll_kind k)
{
    return k == TDM_COLL_REDUCE || k == TDM_COLL_ALLREDUCE || k == TDM_COLL_SCAN || k == TDM_COLL_EXSCAN ||
           k == TDM_COLL_REDUCE_SCATTER || k == TDM_COLL_REDUCE_SCATTER_BLOCK;
}

/* The collectives whose buffers hold a block per rank: the others' hold one vector. */
static int has_blocks(tdm_coll_kind k)
{
    return k == TDM_COLL_GATHER || k == TDM_COLL_GATHERV || k == TDM_COLL_SCATTER || k == TDM_COLL_SCATTERV ||
           k == TDM_COLL_ALLGATHER || k == TDM_COLL_ALLGATHERV || k == TDM_COLL_REDUCE_SCATTER_BLOCK ||
           k == TDM_COLL_ALLTOALL || k == TDM_COLL_ALLTOALLV;
}

void tdm_call_args_free(tdm_call_args *c)
{
    free(c->send), free(c->recv), free(c->counts), free(c->displs);
    memset(c, 0, sizeof *c);
}

int tdm_call_args_init(tdm_call_args *c, tdm_coll_kind kind, int p, double bytes, const tdm_loggp *m)
{
    memset(c, 0, sizeof *c);
    if (kind == TDM_COLL_ALLTOALLW || kind >= TDM_COLL_NEIGHBOR_ALLGATHER || p < 1)
        return MPI_ERR_ARG;
    int reduction = is_reduction(kind);
    c->elem_bytes = reduction ? sizeof(double) : 1;
    double n = bytes / c->elem_bytes; /* elements: of the vector or of a block */
    if (n < 1 && kind != TDM_COLL_BARRIER)
        return MPI_ERR_ARG;
    int blocks = has_blocks(kind) ? p : 1;
    if (n > INT_MAX || n * blocks > INT_MAX)
        return MPI_ERR_COUNT;
    int count = (int)n;
    tdm_coll_args *a = &c->a;
    a->kind = kind;
    a->size = p;
    a->root = 0;
    a->datatype = a->sendtype = a->recvtype = reduction ? MPI_DOUBLE : MPI_BYTE;
    int size = (int)c->elem_bytes;
    a->dtype = (tdm_typeinfo){size, 0, size, size, 1};
    a->stype = a->rtype = a->dtype;
    a->op = MPI_SUM;
    a->commutative = 1;
    a->reduce_basic = MPI_DATATYPE_NULL;
    a->loggp = *m;
    a->bucket_chains = 1; /* as tdm_cost_call: one chain, whose rounds the costing can follow */
    a->split_levels = -1;
    a->count = count;
    a->sendcount = a->recvcount = count;
    int rows = 1; /* the torus algorithms' ranks as a balanced 2-D grid, as tdm_torus_of makes it */
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            rows = d;
    a->torus_ndims = 2;
    a->torus_dims[0] = p / rows;
    a->torus_dims[1] = rows;
    size_t total = (size_t)count * (size_t)blocks * (size_t)size + 1;
    c->send = malloc(total);
    c->recv = malloc(total);
    c->counts = malloc(sizeof(int) * (size_t)p);
    c->displs = malloc(sizeof(int) * (size_t)p);
    if (!c->send || !c->recv || !c->counts || !c->displs) {
        tdm_call_args_free(c);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < p; r++) /* (a single vector's calls read no displacements) */
        c->counts[r] = count, c->displs[r] = blocks > 1 ? r * count : 0;
    a->sendbuf = c->send;
    a->recvbuf = c->recv;
    a->sendcounts = a->recvcounts = c->counts;
    a->sdispls = a->rdispls = tdm_displs_of_ints(c->displs);
    if (kind == TDM_COLL_REDUCE_SCATTER) /* the vector: p blocks of count / p */
        for (int r = 0; r < p; r++)
            c->counts[r] = count / p + (r < count % p);
    return MPI_SUCCESS;
}

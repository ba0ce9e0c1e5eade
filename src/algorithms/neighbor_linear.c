/*
 * The neighbourhood collectives: every message to and from the topology's neighbours posted at once, in
 * one round (a rank has few neighbours), in the order neighbor_blocks.h gives.
 */
#include "alg_util.h"
#include "neighbor_blocks.h"

const void *tdm_neighbor_send_block(const tdm_coll_args *a, int j, int *count, MPI_Datatype *type)
{
    switch (a->kind) {
    case TDM_COLL_NEIGHBOR_ALLGATHER:
    case TDM_COLL_NEIGHBOR_ALLGATHERV:
        *count = a->sendcount, *type = a->sendtype;
        return a->sendbuf;
    case TDM_COLL_NEIGHBOR_ALLTOALL:
        *count = a->sendcount, *type = a->sendtype;
        return tdm_elem(a->sendbuf, &a->stype, (MPI_Aint)j * a->sendcount);
    case TDM_COLL_NEIGHBOR_ALLTOALLV:
        *count = a->sendcounts[j], *type = a->sendtype;
        return tdm_elem(a->sendbuf, &a->stype, tdm_displ(a->sdispls, j));
    default: /* alltoallw */
        *count = a->sendcounts[j], *type = a->sendtypes[j];
        return (const char *)a->sendbuf + tdm_displ(a->sdispls, j);
    }
}

void *tdm_neighbor_recv_block(const tdm_coll_args *a, int i, int *count, MPI_Datatype *type)
{
    switch (a->kind) {
    case TDM_COLL_NEIGHBOR_ALLGATHER:
    case TDM_COLL_NEIGHBOR_ALLTOALL:
        *count = a->recvcount, *type = a->recvtype;
        return tdm_elem(a->recvbuf, &a->rtype, (MPI_Aint)i * a->recvcount);
    case TDM_COLL_NEIGHBOR_ALLGATHERV:
    case TDM_COLL_NEIGHBOR_ALLTOALLV:
        *count = a->recvcounts[i], *type = a->recvtype;
        return tdm_elem(a->recvbuf, &a->rtype, tdm_displ(a->rdispls, i));
    default: /* alltoallw */
        *count = a->recvcounts[i], *type = a->recvtypes[i];
        return (char *)a->recvbuf + tdm_displ(a->rdispls, i);
    }
}

static int neighbor_linear(tdm_schedule *s, const tdm_coll_args *a)
{
    int count;
    MPI_Datatype type;
    for (int i = 0; i < a->nsources; i++) {
        void *buf = tdm_neighbor_recv_block(a, i, &count, &type);
        if (a->sources[i] != MPI_PROC_NULL)
            tdm_sched_recv(s, buf, count, type, a->sources[i]);
    }
    for (int k = 0; k < a->ndests; k++) {
        int j = tdm_neighbor_send_order(a, k);
        const void *buf = tdm_neighbor_send_block(a, j, &count, &type);
        if (a->dests[j] != MPI_PROC_NULL)
            tdm_sched_send(s, buf, count, type, a->dests[j]);
    }
    return tdm_sched_finish(s);
}

int tdm_neighbor_allgather_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_allgatherv_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoall_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoallv_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }
int tdm_neighbor_alltoallw_linear(tdm_schedule *s, const tdm_coll_args *a) { return neighbor_linear(s, a); }

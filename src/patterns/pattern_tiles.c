/*
 * One tile of an overlap pattern: its slot's buffers sized for its items, the items computed into them,
 * its collective started (for the v-forms: its sizes first, then its data once they are known), tested,
 * waited for, and its result handed to the consume function.
 *
 * Layouts, in elements of the spec's datatype, for a tile of n items of item_count (c) each:
 *   one destination (allgather(v), gather(v), allreduce): item j at j c (the v-forms: packed, in order)
 *   each rank its part (alltoall, reduce_scatter): rank r's part of item j at (r n + j) c;
 *   alltoallv: rank r's parts packed in order from r n c.
 */
#include "pattern.h"

#include "../base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *fn_run = "TDM_Pattern_run";

/* The bytes count elements of the datatype span (from their true lower bound). */
static size_t span(const struct tdm_pattern *pt, size_t count)
{
    return count ? (count - 1) * (size_t)pt->extent + (size_t)pt->true_extent : 0;
}

/* Element i of a buffer whose span starts at alloc. */
static char *element(const struct tdm_pattern *pt, char *alloc, size_t i)
{
    return alloc - pt->true_lb + i * (size_t)pt->extent;
}

static int grow(const struct tdm_pattern *pt, char **alloc, size_t *cap, size_t count)
{
    if (count <= *cap && *alloc)
        return MPI_SUCCESS;
    char *more = realloc(*alloc, span(pt, count) ? span(pt, count) : 1);
    if (!more)
        return tdm_error(fn_run, MPI_ERR_NO_MEM, "no memory for a tile of %zu elements", count);
    *alloc = more, *cap = count;
    return MPI_SUCCESS;
}

void tdm_pattern_fail(struct tdm_pattern *pt, int error)
{
    if (pt->error == MPI_SUCCESS)
        pt->error = error;
}

int tdm_tile_prepare(struct tdm_pattern *pt, tile_slot *s, int first, int items)
{
    int p = pt->size;
    if (!s->send_counts) {
        s->send_counts = calloc((size_t)p * 4, sizeof(int));
        if (!s->send_counts)
            return tdm_error(fn_run, MPI_ERR_NO_MEM, "no memory for a tile's counts");
        s->send_displs = s->send_counts + p, s->recv_counts = s->send_counts + 2 * p, s->recv_displs = s->send_counts + 3 * p;
    }
    size_t per_part = (size_t)items * (size_t)pt->spec.item_count;
    size_t send = pt->per_rank ? per_part * (size_t)p : per_part;
    int rc = grow(pt, &s->send_alloc, &s->send_cap, send);
    if (rc != MPI_SUCCESS)
        return rc;
    s->first = first, s->items = items, s->own_count = 0;
    s->sizes_request = s->data_request = TDM_REQUEST_NULL;
    for (int r = 0; r < p; r++) /* the v-forms fill as items come; the others are full from the start */
        s->send_counts[r] = pt->variable ? 0 : (int)per_part, s->send_displs[r] = (int)(r * per_part);
    if (!pt->variable) {
        int root_only = pt->spec.kind == TDM_PATTERN_GATHER;
        int gathered = pt->spec.kind == TDM_PATTERN_ALLGATHER || pt->spec.kind == TDM_PATTERN_ALLTOALL || root_only;
        size_t recv = gathered ? (root_only && pt->rank != pt->spec.root ? 0 : per_part * (size_t)p) : per_part;
        for (int r = 0; r < p; r++)
            s->recv_counts[r] = (int)per_part, s->recv_displs[r] = gathered ? (int)(r * per_part) : 0;
        s->own_count = (int)per_part;
        return grow(pt, &s->recv_alloc, &s->recv_cap, recv);
    }
    return MPI_SUCCESS;
}

char *tdm_tile_out(const struct tdm_pattern *pt, const tile_slot *s, int dest, size_t at)
{
    return element(pt, s->send_alloc, (size_t)s->send_displs[dest] + at);
}

/* Item j of the tile (or, past this rank's items or after an error, its stand-in: zeros, or nothing for
 * the v-forms). */
void tdm_tile_compute(struct tdm_pattern *pt, tile_slot *s, int j)
{
    const TDM_Pattern_spec *sp = &pt->spec;
    int parts = pt->per_rank ? pt->size : 1, c = sp->item_count;
    void *outs[parts > 0 ? parts : 1];
    int counts[parts > 0 ? parts : 1];
    for (int d = 0; d < parts; d++) {
        size_t at = pt->variable ? (size_t)(pt->per_rank ? s->send_counts[d] : s->own_count) : (size_t)j * (size_t)c;
        outs[d] = tdm_tile_out(pt, s, d, at);
        counts[d] = c;
    }
    int item = s->first + j;
    int computed = item < sp->items && pt->error == MPI_SUCCESS;
    if (computed) {
        double start = MPI_Wtime();
        int rc = sp->compute(item, outs, counts, sp->user);
        pt->compute_time_sum += MPI_Wtime() - start;
        if (rc != 0) {
            tdm_pattern_fail(pt, tdm_error(fn_run, rc > 0 && rc <= MPI_ERR_LASTCODE ? rc : MPI_ERR_OTHER,
                                           "the compute function returned %d for item %d", rc, item));
            computed = 0;
        }
        for (int d = 0; computed && d < parts; d++)
            if (pt->variable ? counts[d] < 0 || counts[d] > c : counts[d] != c) {
                tdm_pattern_fail(pt, tdm_error(fn_run, MPI_ERR_COUNT,
                                               "the compute function set counts[%d] to %d for item %d; expected %s %d",
                                               d, counts[d], item, pt->variable ? "0 .. item_count" : "item_count", c));
                computed = 0;
            }
    }
    for (int d = 0; d < parts; d++) {
        if (!computed)
            counts[d] = pt->variable ? 0 : c;
        if (!computed && !pt->variable)
            memset(tdm_tile_out(pt, s, d, (size_t)j * (size_t)c) + pt->true_lb, 0, span(pt, (size_t)c));
        if (pt->variable && pt->per_rank)
            s->send_counts[d] += counts[d];
        else if (pt->variable)
            s->own_count += counts[d];
    }
}

static int start_data(struct tdm_pattern *pt, tile_slot *s)
{
    const TDM_Pattern_spec *sp = &pt->spec;
    MPI_Datatype t = sp->datatype;
    MPI_Comm comm = pt->data_comm;
    int p = pt->size, n = s->send_counts[0];
    char *send = element(pt, s->send_alloc, 0);
    if (pt->variable) { /* the sizes are in: where each rank's elements land */
        int receives = sp->kind != TDM_PATTERN_GATHERV || pt->rank == sp->root;
        size_t total = 0;
        for (int r = 0; r < p; r++) {
            if (!receives)
                s->recv_counts[r] = 0;
            s->recv_displs[r] = (int)total;
            total += (size_t)s->recv_counts[r];
        }
        if (total > INT32_MAX)
            return tdm_error(fn_run, MPI_ERR_COUNT, "tile of items %d..: %zu elements to receive, more than INT_MAX",
                             s->first, total);
        int rc = grow(pt, &s->recv_alloc, &s->recv_cap, total);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    char *recv = element(pt, s->recv_alloc, 0);
    TDM_Request *r = &s->data_request;
    s->state = TILE_DATA;
    switch (sp->kind) {
    case TDM_PATTERN_ALLGATHER: return TDM_Iallgather(send, n, t, recv, n, t, comm, r);
    case TDM_PATTERN_ALLGATHERV:
        return TDM_Iallgatherv(send, s->own_count, t, recv, s->recv_counts, s->recv_displs, t, comm, r);
    case TDM_PATTERN_GATHER: return TDM_Igather(send, n, t, recv, n, t, sp->root, comm, r);
    case TDM_PATTERN_GATHERV:
        return TDM_Igatherv(send, s->own_count, t, recv, s->recv_counts, s->recv_displs, t, sp->root, comm, r);
    case TDM_PATTERN_ALLTOALL: return TDM_Ialltoall(send, n, t, recv, n, t, comm, r);
    case TDM_PATTERN_ALLTOALLV:
        return TDM_Ialltoallv(send, s->send_counts, s->send_displs, t, recv, s->recv_counts, s->recv_displs, t, comm, r);
    case TDM_PATTERN_ALLREDUCE: return TDM_Iallreduce(send, recv, n, t, sp->op, comm, r);
    case TDM_PATTERN_REDUCE_SCATTER: return TDM_Ireduce_scatter_block(send, recv, n, t, sp->op, comm, r);
    }
    return MPI_ERR_INTERN;
}

int tdm_tile_start(struct tdm_pattern *pt, tile_slot *s)
{
    MPI_Comm comm = pt->sizes_comm;
    TDM_Request *r = &s->sizes_request;
    s->state = TILE_SIZES;
    switch (pt->spec.kind) {
    case TDM_PATTERN_ALLGATHERV: return TDM_Iallgather(&s->own_count, 1, MPI_INT, s->recv_counts, 1, MPI_INT, comm, r);
    case TDM_PATTERN_GATHERV:
        return TDM_Igather(&s->own_count, 1, MPI_INT, s->recv_counts, 1, MPI_INT, pt->spec.root, comm, r);
    case TDM_PATTERN_ALLTOALLV: return TDM_Ialltoall(s->send_counts, 1, MPI_INT, s->recv_counts, 1, MPI_INT, comm, r);
    default: return start_data(pt, s);
    }
}

/* One look at the tile: its sizes' or data's collective tested, its data started when its sizes are in
 * and may_start_data (the tiles before it have started theirs: the data collectives go in tile order). */
int tdm_tile_test(struct tdm_pattern *pt, tile_slot *s, int may_start_data, int *done)
{
    int flag = 0, rc = MPI_SUCCESS;
    if (s->state == TILE_SIZES && may_start_data) {
        rc = TDM_Test(&s->sizes_request, &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && flag)
            rc = start_data(pt, s);
    }
    if (rc == MPI_SUCCESS && s->state == TILE_DATA) {
        rc = TDM_Test(&s->data_request, &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && flag)
            s->state = TILE_DONE;
    }
    *done = s->state == TILE_DONE;
    return rc;
}

int tdm_tile_wait(struct tdm_pattern *pt, tile_slot *s)
{
    int rc = MPI_SUCCESS;
    if (s->state == TILE_SIZES) {
        rc = TDM_Wait(&s->sizes_request, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = start_data(pt, s);
    }
    if (rc == MPI_SUCCESS && s->state == TILE_DATA) {
        rc = TDM_Wait(&s->data_request, MPI_STATUS_IGNORE);
        s->state = TILE_DONE;
    }
    return rc;
}

void tdm_tile_consume(struct tdm_pattern *pt, tile_slot *s)
{
    const TDM_Pattern_spec *sp = &pt->spec;
    s->state = TILE_FREE;
    int rooted = sp->kind == TDM_PATTERN_GATHER || sp->kind == TDM_PATTERN_GATHERV;
    if (!sp->consume || pt->error != MPI_SUCCESS || (rooted && pt->rank != sp->root))
        return;
    double start = MPI_Wtime();
    int rc = sp->consume(s->first, s->items, element(pt, s->recv_alloc, 0), s->recv_counts, s->recv_displs, sp->user);
    pt->consume_time_sum += MPI_Wtime() - start;
    if (rc != 0)
        tdm_pattern_fail(pt, tdm_error(fn_run, rc > 0 && rc <= MPI_ERR_LASTCODE ? rc : MPI_ERR_OTHER,
                                       "the consume function returned %d for the tile of items %d .. %d", rc, s->first,
                                       s->first + s->items - 1));
}

void tdm_tile_slot_free(tile_slot *s)
{
    free(s->send_alloc);
    free(s->recv_alloc);
    free(s->send_counts);
    memset(s, 0, sizeof *s);
}

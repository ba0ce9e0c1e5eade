/*
 * What a dedicated collective process does for each kind of collective (see dcp_server.h): from its
 * clients' contributions to its part of the call among the DCPs of the communicator, and from the
 * result to each client's answer. Reductions combine the clients' data in the order of their ranks
 * first; blocks of data travel among the DCPs in group order, in bytes.
 */
#include "dcp_server.h"
#include "dcp_segments.h"

#include "../base/smpi_support.h"
#include "../core/api_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The bytes a unit of a call's data takes here: an array of it as MPI lays it out (a pair with padding,
 * MPI_DOUBLE_INT: 16), as the clients send it (dcp_client_calls.c). */
static int type_size(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (int)extent;
}

/* inout = in op inout; in simulation charged as Tandem's own reductions are (SMPI charges nothing for
 * MPI_Reduce_local), and in timing-only runs not computed. */
static void reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    if (!tdm_smpi_charge_reduction((double)count, type))
        MPI_Reduce_local(in, inout, count, type, op);
}

/* Elements first .. first + count - 1 of the clients' contributions, combined in the order of their
 * ranks into acc: c_0 op (c_1 op (... op c_last)). */
static void combine_into(char *acc, contribution **in, int n, MPI_Datatype type, MPI_Op op, size_t first, int count)
{
    size_t size = (size_t)type_size(type), at = first * size;
    if (!tdm_smpi_charge_copy((MPI_Aint)((size_t)count * size)))
        memcpy(acc, in[n - 1]->data + at, (size_t)count * size);
    for (int c = n - 2; c >= 0; c--)
        reduce_local(in[c]->data + at, acc, count, type, op);
}

static char *combine(contribution **in, int n, MPI_Datatype type, MPI_Op op, int count)
{
    char *acc = tdm_dcp_alloc_data((size_t)count * (size_t)type_size(type));
    combine_into(acc, in, n, type, op, 0, count);
    return acc;
}

/* The client whose rank is r, or -1. */
static int client_of_rank(const served_comm *sc, int r)
{
    for (int i = 0; i < sc->mine; i++)
        if (sc->mine_ranks[i] == r)
            return i;
    return -1;
}

/* ---- segmented calls (dcp_segments.h) ---- */

/* The unit of a call's data: a reduction's carried type, else bytes. */
static MPI_Datatype unit_of(const dcp_header *h) { return h->kind <= DCP_REDUCE_SCATTER ? tdm_dcp_type(h->type) : MPI_BYTE; }

int tdm_dcp_receive_segments(contribution *in, int source, long long *bytes)
{
    MPI_Datatype unit = unit_of(&in->h);
    int n = tdm_dcp_header_ranks(&in->h); /* the counts' ranks: all a message's blocks need */
    int *lengths = tdm_dcp_alloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int blocks = tdm_dcp_message_blocks(&in->h, in->counts, NULL, n, in->h.rank, lengths);
    long long total = 0;
    for (int b = 0; b < blocks; b++)
        total += lengths[b];
    in->segment_at = tdm_dcp_alloc(sizeof(long long) * (size_t)(in->h.segments + 1));
    for (int k = 0; k < in->h.segments; k++)
        in->segment_at[k + 1] = in->segment_at[k] + tdm_dcp_segment_length(lengths, blocks, in->h.segment, k);
    free(lengths);
    *bytes = total * type_size(unit);
    if (total == 0) /* it gives nothing */
        return 1;
    in->data = tdm_dcp_alloc_data((size_t)total * (size_t)type_size(unit));
    in->segments = tdm_dcp_alloc(sizeof(MPI_Request) * (size_t)in->h.segments);
    for (int k = 0; k < in->h.segments; k++)
        in->segments[k] = MPI_REQUEST_NULL;
    return tdm_dcp_post_segments(in, source);
}

int tdm_dcp_post_segments(contribution *in, int source)
{
    size_t size = (size_t)type_size(unit_of(&in->h));
    int rc;
    while (in->arrived < in->posted && in->segments[in->arrived] == MPI_REQUEST_NULL)
        in->arrived++;
    for (; in->posted < in->h.segments && in->posted - in->arrived < TDM_DCP_MAX_SEGMENTS; in->posted++) {
        int k = in->posted;
        long long at = in->segment_at[k], units = in->segment_at[k + 1] - at;
        if (units > 0 && (rc = MPI_Irecv(in->data + (size_t)at * size, (int)units, unit_of(&in->h), source, in->tag,
                                         tdm_dcp.data_link, &in->segments[k])) != MPI_SUCCESS)
            tdm_dcp_fail("receiving a client's segments", rc);
    }
    return in->posted == in->h.segments;
}

/* Segments among the DCPs at once per call: within the tags of a communicator's group shadow, half its
 * slot (a call beyond them would wait for the oldest inside the service loop, which then serves nobody). */
static int segments_in_flight(void)
{
    int half = tdm_dcp.window / 4;
    return half < 1 ? 1 : half < 64 ? half : 64;
}

/* Segment k of x as a call of its own: each client's header and counts cut to the segment, its data the
 * segment's part of what it gave. */
static served_call *start_segment(served_call *x, int k)
{
    int m = x->sc->mine;
    size_t size = (size_t)type_size(x->type);
    contribution **in = tdm_dcp_alloc(sizeof *in * (size_t)m);
    for (int i = 0; i < m; i++) {
        contribution *whole = x->in[i], *c = tdm_dcp_alloc(sizeof *c);
        int *counts = tdm_dcp_alloc(sizeof(int) * (size_t)(whole->h.counts + 1));
        tdm_dcp_segment_header(&whole->h, whole->counts, k, &c->h, counts);
        c->message = (char *)counts; /* freed with c; its data stays whole's */
        c->counts = counts;
        c->tag = whole->tag;
        c->client = whole->client;
        c->rest = MPI_REQUEST_NULL;
        if (whole->data && k < whole->h.segments) /* (a v-form's single segment: in the message) */
            c->data = whole->data + (whole->segment_at ? (size_t)whole->segment_at[k] * size : 0);
        in[i] = c;
    }
    served_call *part = tdm_dcp_start_call(x->sc, x->among, in);
    free(in);
    return part;
}

/* A segmented call: its segments start as their data arrives, within segments_in_flight(); each is
 * answered once the ones before it were (a client receives its segments in order). */
static int advance_segments(served_call *x, int *done)
{
    int moved = 0, part_done, rc;
    if (x->agreeing) { /* a v-form: the segments past its clients' most start once the DCPs agree */
        if ((rc = tdm_test_settled(&x->req, &part_done)) != MPI_SUCCESS)
            tdm_dcp_fail("the DCPs' count of a call's segments", rc);
        if (part_done) {
            x->req = NULL;
            x->agreeing = 0;
            x->parts = realloc(x->parts, sizeof *x->parts * (size_t)x->agreed);
            if (!x->parts)
                tdm_dcp_fail("allocating memory", MPI_ERR_NO_MEM);
            memset(x->parts + x->segments, 0, sizeof *x->parts * (size_t)(x->agreed - x->segments));
            x->segments = x->agreed;
            moved = 1;
        }
    }
    while (x->started < x->segments && x->started - x->answered < segments_in_flight()) {
        int k = x->started, ready = 1;
        for (int i = 0; i < x->sc->mine && ready; i++) { /* the service loop's block() completes the receives */
            contribution *in = x->in[i];
            ready = k >= in->h.segments || !in->segments || (k < in->posted && in->segments[k] == MPI_REQUEST_NULL);
        }
        if (!ready)
            break;
        x->parts[k] = start_segment(x, k);
        x->started++;
        moved = 1;
    }
    while (x->answered < x->started) {
        moved |= tdm_dcp_advance_call(x->parts[x->answered], &part_done);
        if (!x->parts[x->answered]->answering)
            break;
        x->answered++;
    }
    for (int k = x->freed; k < x->answered; k++) /* parts whose answers went out */
        if (x->parts[k] && (tdm_dcp_advance_call(x->parts[k], &part_done), part_done)) {
            tdm_dcp_free_call(x->parts[k]);
            x->parts[k] = NULL;
            moved = 1;
        }
    while (x->freed < x->answered && !x->parts[x->freed])
        x->freed++;
    *done = !x->agreeing && x->freed == x->segments;
    return moved;
}

/* An int that must hold a sum of bytes or elements. */
static int checked_int(long long n)
{
    if (n > INT_MAX)
        tdm_dcp_fail("a call of more than INT_MAX bytes through a DCP", MPI_ERR_COUNT);
    return (int)n;
}

/* counts[g] = the sum of per_rank over the ranks of DCP g; displs their prefix sums. */
static void group_sums(const served_comm *sc, const int *per_rank, int *counts, int *displs)
{
    long long *sum = tdm_dcp_alloc(sizeof(long long) * (size_t)sc->group_size);
    for (int r = 0; r < sc->size; r++)
        sum[sc->group_of_rank[r]] += per_rank[r];
    long long at = 0;
    for (int g = 0; g < sc->group_size; g++) {
        counts[g] = checked_int(sum[g]);
        displs[g] = checked_int(at);
        at += sum[g];
    }
    free(sum);
}

/* The clients' data, one after another in the order of their ranks (their part of the group order). */
static char *concatenate(served_call *x, int *bytes)
{
    long long total = 0;
    for (int i = 0; i < x->sc->mine; i++)
        total += x->in[i]->h.count;
    *bytes = checked_int(total);
    char *out = tdm_dcp_alloc((size_t)total), *at = out;
    for (int i = 0; i < x->sc->mine; i++) {
        if (x->in[i]->h.count > 0) /* (a segment may carry nothing of a client's: no data at all) */
            memcpy(at, x->in[i]->data, (size_t)x->in[i]->h.count);
        at += x->in[i]->h.count;
    }
    return out;
}

/* A vector of blocks in rank order (per_rank elements of size bytes each), rearranged in group order. */
static char *in_group_order(const served_comm *sc, const char *v, const int *per_rank, int size)
{
    long long *at = tdm_dcp_alloc(sizeof(long long) * (size_t)sc->size), total = 0;
    for (int r = 0; r < sc->size; r++) {
        at[r] = total;
        total += per_rank[r];
    }
    char *out = tdm_dcp_alloc((size_t)total * (size_t)size), *to = out;
    for (int k = 0; k < sc->size; k++) {
        int r = sc->order[k];
        memcpy(to, v + at[r] * size, (size_t)per_rank[r] * (size_t)size);
        to += (size_t)per_rank[r] * (size_t)size;
    }
    free(at);
    return out;
}

/* Alltoall: this DCP's clients' blocks for each DCP (its clients in rank order, each with its blocks
 * for that DCP's ranks, which it packed in group order), and the sizes of what comes back. */
static void alltoall_input(served_call *x)
{
    served_comm *sc = x->sc;
    int n = sc->size, m = sc->mine, G = sc->group_size;
    long long *send = tdm_dcp_alloc(sizeof(long long) * (size_t)G), *recv = tdm_dcp_alloc(sizeof(long long) * (size_t)G);
    long long total = 0;
    for (int i = 0; i < m; i++)
        for (int r = 0; r < n; r++) {
            send[sc->group_of_rank[r]] += x->in[i]->counts[r];
            recv[sc->group_of_rank[r]] += x->in[i]->counts[n + r];
        }
    long long at = 0, back = 0;
    for (int g = 0; g < G; g++) {
        x->counts[g] = checked_int(send[g]);
        x->displs[g] = checked_int(at);
        x->counts2[g] = checked_int(recv[g]);
        x->displs2[g] = checked_int(back);
        at += send[g];
        back += recv[g];
    }
    total = at;
    x->input = tdm_dcp_alloc((size_t)total);
    x->output = tdm_dcp_alloc((size_t)back);
    char *to = x->input;
    long long *from = tdm_dcp_alloc(sizeof(long long) * (size_t)m); /* per client: its next block */
    for (int g = 0, k = 0; g < G; g++) { /* k: the group order's position of DCP g's first rank */
        int end = k;
        while (end < n && sc->group_of_rank[sc->order[end]] == g)
            end++;
        for (int i = 0; i < m; i++) {
            long long len = 0;
            for (int q = k; q < end; q++)
                len += x->in[i]->counts[sc->order[q]];
            if (len > 0) /* (a segment may carry nothing of a client's: no data at all) */
                memcpy(to, x->in[i]->data + from[i], (size_t)len);
            to += len;
            from[i] += len;
        }
        k = end;
    }
    free(from);
    free(send);
    free(recv);
}

/* Alltoall: each client's blocks, from every rank in group order, out of what the DCPs sent. DCP g sent
 * its ranks' blocks in rank order, each with its blocks for this DCP's clients in rank order. */
static void alltoall_answers(served_call *x)
{
    served_comm *sc = x->sc;
    int n = sc->size, m = sc->mine;
    /* at[s]: where rank s's block for the next client is, in what its DCP sent */
    long long *at = tdm_dcp_alloc(sizeof(long long) * (size_t)n), running = 0, total = 0;
    for (int k = 0; k < n; k++) {
        int s = sc->order[k], g = sc->group_of_rank[s];
        if (k == 0 || sc->group_of_rank[sc->order[k - 1]] != g)
            running = x->displs2[g];
        at[s] = running;
        for (int j = 0; j < m; j++)
            running += x->in[j]->counts[n + s];
    }
    for (int i = 0; i < m; i++)
        for (int r = 0; r < n; r++)
            total += x->in[i]->counts[n + r];
    x->scratch = tdm_dcp_alloc((size_t)total);
    char *to = x->scratch;
    for (int i = 0; i < m; i++) {
        x->answer[i] = to;
        long long mine = 0;
        for (int k = 0; k < n; k++) {
            int s = sc->order[k], len = x->in[i]->counts[n + s];
            memcpy(to, x->output + at[s], (size_t)len);
            at[s] += len;
            to += len;
            mine += len;
        }
        x->answer_count[i] = checked_int(mine);
    }
    free(at);
}

/* The clients' headers of one call agree on what MPI requires them to (an erroneous program gets a
 * clear end, not a read past its buffers): the collective, its datatype and op, root, and the count
 * where every rank gives the same. */
static void check_agreement(const served_comm *sc, contribution **in)
{
    const dcp_header *h = &in[0]->h;
    int same_count = h->kind == DCP_ALLREDUCE || h->kind == DCP_REDUCE || h->kind == DCP_SCAN ||
                     h->kind == DCP_EXSCAN || h->kind == DCP_BCAST;
    int rooted = h->kind == DCP_BCAST || h->kind == DCP_REDUCE || h->kind == DCP_GATHER || h->kind == DCP_SCATTER;
    for (int i = 1; i < sc->mine; i++) {
        const dcp_header *o = &in[i]->h;
        const char *what = o->kind != h->kind ? "collective"
                           : h->kind <= DCP_REDUCE_SCATTER && (o->type != h->type || o->op != h->op) ? "datatype or op"
                           : rooted && o->root != h->root       ? "root"
                           : same_count && o->count != h->count ? "count"
                                                                : NULL;
        if (what) {
            char call[64];
            if (h->stream > 0)
                snprintf(call, sizeof call, "start %u of its persistent call %d", h->call, h->stream - 1);
            else
                snprintf(call, sizeof call, "its call %u", h->call);
            fprintf(stderr, "tandem: dedicated collective process: ranks %d and %d of a communicator called %s "
                            "with a different %s (an erroneous program); aborting\n",
                    h->rank, o->rank, call, what);
            tdm_dcp_abort();
        }
    }
}

served_call *tdm_dcp_start_call(served_comm *sc, tdm_shadow *among, contribution **in)
{
    check_agreement(sc, in);
    dcp_header h = in[0]->h;
    int m = sc->mine, K, bytes = 0, rc = MPI_SUCCESS;
    MPI_Comm_size(tdm_dcp.dcp_world, &K);
    served_call *x = tdm_dcp_alloc(sizeof *x);
    x->sc = sc;
    x->among = among;
    x->in = tdm_dcp_alloc(sizeof *x->in * (size_t)m);
    memcpy(x->in, in, sizeof *x->in * (size_t)m);
    x->answer = tdm_dcp_alloc(sizeof *x->answer * (size_t)m);
    x->answer_count = tdm_dcp_alloc(sizeof(int) * (size_t)m);
    x->answers = tdm_dcp_alloc(sizeof(MPI_Request) * (size_t)m);
    for (int i = 0; i < m; i++)
        x->answers[i] = MPI_REQUEST_NULL;
    x->counts = tdm_dcp_alloc(sizeof(int) * (size_t)K);
    x->displs = tdm_dcp_alloc(sizeof(int) * (size_t)K);
    x->counts2 = tdm_dcp_alloc(sizeof(int) * (size_t)K);
    x->displs2 = tdm_dcp_alloc(sizeof(int) * (size_t)K);
    int reduction = h.kind <= DCP_REDUCE_SCATTER;
    x->type = reduction ? tdm_dcp_type(h.type) : MPI_BYTE;
    MPI_Op op = reduction ? tdm_dcp_op(h.op) : MPI_OP_NULL;
    size_t elem = (size_t)type_size(x->type), vector = (size_t)h.count * elem;
    int rooted = h.kind == DCP_BCAST || h.kind == DCP_REDUCE || h.kind == DCP_GATHER || h.kind == DCP_SCATTER;
    int root = rooted ? sc->group_of_rank[h.root] : 0; /* the root's DCP */
    int root_client = rooted ? client_of_rank(sc, h.root) : -1;
    if (h.segment > 0) { /* a segmented call: advance_segments runs it */
        for (int i = 0; i < m; i++) {
            if (in[i]->h.segment != h.segment || in[i]->h.varying != h.varying ||
                (!h.varying && in[i]->h.segments != h.segments))
                tdm_dcp_fail("clients that cut a call into segments differently", MPI_ERR_INTERN);
            x->segments = in[i]->h.segments > x->segments ? in[i]->h.segments : x->segments;
        }
        x->parts = tdm_dcp_alloc(sizeof *x->parts * (size_t)x->segments);
        if (h.varying) { /* the DCPs' first call of it, then its segments */
            x->most = x->segments;
            x->agreeing = 1;
            tdm_coll_on_group(among);
            rc = TDM_Iallreduce(&x->most, &x->agreed, 1, MPI_INT, MPI_MAX, tdm_dcp.dcp_world, &x->req);
            tdm_coll_on_group(NULL);
            if (rc != MPI_SUCCESS)
                tdm_dcp_fail("the DCPs' count of a call's segments", rc);
        }
        return x;
    }
    MPI_Comm checked = tdm_dcp.dcp_world; /* as many ranks as any group or more: checks the arguments */
    tdm_coll_on_group(among);
    switch (h.kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
        x->input = combine(in, m, x->type, op, h.count);
        x->output = tdm_dcp_alloc(vector);
        rc = h.kind == DCP_ALLREDUCE
                 ? TDM_Iallreduce(x->input, x->output, h.count, x->type, op, checked, &x->req)
                 : TDM_Ireduce(x->input, x->output, h.count, x->type, op, root, checked, &x->req);
        break;
    case DCP_SCAN:
    case DCP_EXSCAN: /* prefixes over the clients, in place; the DCPs' exclusive scan of their totals */
        for (int i = 1; i < m; i++)
            reduce_local(in[i - 1]->data, in[i]->data, h.count, x->type, op);
        x->input = tdm_dcp_alloc(vector);
        memcpy(x->input, in[m - 1]->data, vector);
        x->output = tdm_dcp_alloc(vector);
        rc = TDM_Iexscan(x->input, x->output, h.count, x->type, op, checked, &x->req);
        break;
    case DCP_REDUCE_SCATTER: {
        char *combined = combine(in, m, x->type, op, h.count);
        x->input = in_group_order(sc, combined, in[0]->counts, (int)elem);
        tdm_dcp_free_data(combined);
        group_sums(sc, in[0]->counts, x->counts, x->displs);
        x->output = tdm_dcp_alloc((size_t)x->counts[sc->group_rank] * elem);
        rc = TDM_Ireduce_scatter(x->input, x->output, x->counts, x->type, op, checked, &x->req);
        break;
    }
    case DCP_BCAST:
        x->output = tdm_dcp_alloc((size_t)h.count);
        if (root_client >= 0)
            memcpy(x->output, in[root_client]->data, (size_t)h.count);
        rc = TDM_Ibcast(x->output, h.count, MPI_BYTE, root, checked, &x->req);
        break;
    case DCP_BARRIER:
        x->output = tdm_dcp_alloc(1);
        rc = TDM_Ibarrier(checked, &x->req);
        break;
    case DCP_GATHER:
        x->input = concatenate(x, &bytes);
        if (root_client >= 0) {
            group_sums(sc, in[root_client]->counts, x->counts, x->displs);
            x->output = tdm_dcp_alloc((size_t)x->displs[sc->group_size - 1] + (size_t)x->counts[sc->group_size - 1]);
        }
        rc = TDM_Igatherv(x->input, bytes, MPI_BYTE, x->output, x->counts, x->displs, MPI_BYTE, root, checked, &x->req);
        break;
    case DCP_SCATTER: {
        long long mine = 0;
        for (int i = 0; i < m; i++)
            mine += in[i]->h.count;
        x->output = tdm_dcp_alloc((size_t)mine);
        if (root_client >= 0)
            group_sums(sc, in[root_client]->counts, x->counts, x->displs);
        const void *data = root_client >= 0 ? in[root_client]->data : NULL;
        rc = TDM_Iscatterv(data, x->counts, x->displs, MPI_BYTE, x->output, checked_int(mine), MPI_BYTE, root, checked,
                           &x->req);
        break;
    }
    case DCP_ALLGATHER:
        x->input = concatenate(x, &bytes);
        group_sums(sc, in[0]->counts, x->counts, x->displs);
        x->output = tdm_dcp_alloc((size_t)x->displs[sc->group_size - 1] + (size_t)x->counts[sc->group_size - 1]);
        rc = TDM_Iallgatherv(x->input, bytes, MPI_BYTE, x->output, x->counts, x->displs, MPI_BYTE, checked, &x->req);
        break;
    case DCP_ALLTOALL:
        alltoall_input(x);
        rc = TDM_Ialltoallv(x->input, x->counts, x->displs, MPI_BYTE, x->output, x->counts2, x->displs2, MPI_BYTE,
                            checked, &x->req);
        break;
    default:
        rc = MPI_ERR_INTERN;
        break;
    }
    tdm_coll_on_group(NULL);
    if (rc != MPI_SUCCESS)
        tdm_dcp_fail("the collective among the DCPs", rc);
    return x;
}

/* The call among the DCPs completed: the answers to the clients (x->answer). */
static void finish_call(served_call *x)
{
    served_comm *sc = x->sc;
    dcp_header h = x->in[0]->h;
    int m = sc->mine, first = sc->group_rank == 0;
    MPI_Op op = h.kind <= DCP_REDUCE_SCATTER ? tdm_dcp_op(h.op) : MPI_OP_NULL;
    long long at = 0;
    for (int i = 0; i < m; i++) {
        int r = sc->mine_ranks[i];
        char **answer = &x->answer[i];
        int *count = &x->answer_count[i];
        switch (h.kind) {
        case DCP_ALLREDUCE:
        case DCP_REDUCE:
            if (h.kind == DCP_ALLREDUCE || r == h.root)
                *answer = x->output, *count = h.count;
            break;
        case DCP_SCAN:
        case DCP_EXSCAN:
            if (!first) /* the ranks before this DCP's, then this DCP's up to the client */
                reduce_local(x->output, x->in[i]->data, h.count, x->type, op);
            if (h.kind == DCP_SCAN)
                *answer = x->in[i]->data, *count = h.count;
            else if (i > 0 || !first)
                *answer = i > 0 ? x->in[i - 1]->data : x->output, *count = h.count;
            break;
        case DCP_REDUCE_SCATTER:
        case DCP_SCATTER: {
            int n = h.kind == DCP_SCATTER ? x->in[i]->h.count : x->in[0]->counts[r];
            *answer = x->output + at * type_size(x->type);
            *count = n;
            at += n;
            break;
        }
        case DCP_BCAST:
            if (r != h.root)
                *answer = x->output, *count = h.count;
            break;
        case DCP_BARRIER:
            *answer = x->output, *count = 1;
            break;
        case DCP_GATHER:
            if (r == h.root)
                *answer = x->output, *count = x->displs[sc->group_size - 1] + x->counts[sc->group_size - 1];
            break;
        case DCP_ALLGATHER:
            *answer = x->output, *count = x->displs[sc->group_size - 1] + x->counts[sc->group_size - 1];
            break;
        }
    }
    if (h.kind == DCP_ALLTOALL)
        alltoall_answers(x);
    for (int i = 0; i < m; i++) /* a client expects no message for nothing */
        if (x->answer_count[i] == 0)
            x->answer[i] = NULL;
}

void tdm_dcp_free_call(served_call *x)
{
    for (int i = 0; i < x->sc->mine; i++)
        tdm_dcp_free_contribution(x->in[i]);
    free(x->in);
    tdm_dcp_free_data(x->input);
    tdm_dcp_free_data(x->output);
    free(x->scratch);
    free(x->counts);
    free(x->displs);
    free(x->counts2);
    free(x->displs2);
    free(x->answer);
    free(x->answer_count);
    free(x->answers);
    for (int k = 0; k < x->segments; k++)
        if (x->parts && x->parts[k])
            tdm_dcp_free_call(x->parts[k]);
    free(x->parts);
    free(x);
}

int tdm_dcp_advance_call(served_call *x, int *done)
{
    served_comm *sc = x->sc;
    int moved = 0, rc;
    *done = 0;
    if (x->segments > 0)
        return advance_segments(x, done);
    if (x->req) {
        if ((rc = tdm_test_settled(&x->req, done)) != MPI_SUCCESS)
            tdm_dcp_fail("the collective among the DCPs", rc);
        if (!*done)
            return 0;
        x->req = NULL;
    }
    if (!x->answering) {
        finish_call(x);
        for (int i = 0; i < sc->mine; i++)
            if (x->answer[i])
                tdm_dcp_answer(x->in[i], x->answer[i], x->answer_count[i], x->type, &x->answers[i]);
        x->answering = 1;
        moved = 1;
    }
    *done = 1; /* the answers' sends complete in the service loop's block() */
    for (int i = 0; i < sc->mine && *done; i++)
        *done = x->answers[i] == MPI_REQUEST_NULL;
    return moved;
}

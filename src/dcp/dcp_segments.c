/*
 * The blocks of a call's message and answer, and segment k of a call (dcp_segments.h).
 */
#include "dcp_segments.h"

int tdm_dcp_header_ranks(const dcp_header *h) { return h->kind == DCP_ALLTOALL ? h->counts / 2 : h->counts; }

/* lengths[k] = counts[offset + order[k]] for the n ranks in group order. */
static int in_group_order(const int *counts, int offset, const int *order, int n, int *lengths)
{
    for (int k = 0; k < n; k++)
        lengths[k] = counts[offset + (order ? order[k] : k)];
    return n;
}

static int one(int length, int *lengths)
{
    lengths[0] = length;
    return 1;
}

int tdm_dcp_message_blocks(const dcp_header *h, const int *counts, const int *order, int n, int rank, int *lengths)
{
    int root = rank == h->root;
    switch (h->kind) {
    case DCP_ALLREDUCE:
    case DCP_REDUCE:
    case DCP_SCAN:
    case DCP_EXSCAN:
    case DCP_GATHER:
    case DCP_ALLGATHER:
        return one(h->count, lengths);
    case DCP_REDUCE_SCATTER: /* the vector: each rank's block, in rank order */
        for (int r = 0; r < n; r++)
            lengths[r] = counts[r];
        return n;
    case DCP_BCAST:
        return root ? one(h->count, lengths) : 0;
    case DCP_SCATTER:
        return root ? in_group_order(counts, 0, order, n, lengths) : 0;
    case DCP_ALLTOALL:
        return in_group_order(counts, 0, order, n, lengths);
    default:
        return 0;
    }
}

int tdm_dcp_answer_blocks(const dcp_header *h, const int *counts, const int *order, int n, int rank, int *lengths)
{
    int root = rank == h->root;
    switch (h->kind) {
    case DCP_ALLREDUCE:
    case DCP_SCAN:
    case DCP_SCATTER:
        return one(h->count, lengths);
    case DCP_REDUCE:
        return root ? one(h->count, lengths) : 0;
    case DCP_EXSCAN:
        return rank > 0 ? one(h->count, lengths) : 0;
    case DCP_REDUCE_SCATTER:
        return one(counts[rank], lengths);
    case DCP_BCAST:
        return root ? 0 : one(h->count, lengths);
    case DCP_GATHER:
        return root ? in_group_order(counts, 0, order, n, lengths) : 0;
    case DCP_ALLGATHER:
        return in_group_order(counts, 0, order, n, lengths);
    case DCP_ALLTOALL:
        return in_group_order(counts, n, order, n, lengths);
    default:
        return 0;
    }
}

long long tdm_dcp_segment_length(const int *lengths, int blocks, int segment, int k)
{
    long long sum = 0;
    for (int b = 0; b < blocks; b++)
        sum += tdm_dcp_piece(lengths[b], segment, k);
    return sum;
}

void tdm_dcp_segment_header(const dcp_header *h, const int *counts, int k, dcp_header *piece, int *piece_counts)
{
    *piece = *h;
    piece->members = 0;
    piece->segment = 0;
    piece->segments = 0;
    piece->varying = 0;
    for (int i = 0; i < h->counts; i++)
        piece_counts[i] = tdm_dcp_piece(counts[i], h->segment, k);
    if (h->kind == DCP_ALLTOALL || h->kind == DCP_REDUCE_SCATTER) { /* count: the whole message's */
        long long sum = 0;
        for (int r = 0; r < tdm_dcp_header_ranks(h); r++)
            sum += piece_counts[r];
        piece->count = (int)sum;
    } else {
        piece->count = tdm_dcp_piece(h->count, h->segment, k);
    }
}

/*
 * How a call through the dedicated collective processes is cut into segments (dcp_protocol.h), the
 * same on both sides. A call's data is a list of blocks: those of its message (what the client gives)
 * and those of its answer (what it gets), each in the order it travels. Segment k of a call carries,
 * of every block, its units k*S .. k*S + S - 1 (S units per segment; units are a reduction's carried
 * elements, else bytes), nothing of a block shorter than k*S; its message and its answer hold those
 * pieces in the blocks' order. So segment k is an ordinary call of the same kind whose blocks are the
 * pieces: the DCP runs it as it runs any call, and only the blocks' lengths change.
 *
 * Every DCP of a call must count the same segments. The count comes from the longest block any rank
 * has, which every rank knows where MPI makes the blocks' sizes match; in the v-forms each client counts
 * by its own blocks and the DCPs agree on the most (dcp_protocol.h).
 */
#ifndef TANDEM_DCP_SEGMENTS_H
#define TANDEM_DCP_SEGMENTS_H

#include "dcp_protocol.h"

/* Whether the data of the call h heads follows its header's message in segments (else it is in it). */
static inline int tdm_dcp_data_in_segments(const dcp_header *h)
{
    return h->segment > 0 && !(h->varying && h->segments == 1);
}

/* Of a block of `length` units, what segment k carries. */
static inline int tdm_dcp_piece(long long length, int segment, int k)
{
    long long left = length - (long long)k * segment;
    return left <= 0 ? 0 : left < segment ? (int)left : segment;
}

/* The ranks of the communicator a header's counts describe. */
int tdm_dcp_header_ranks(const dcp_header *h);

/* The lengths (units) of the blocks of the message of the client with rank `rank`, whose header is h and
 * counts `counts`; order: the communicator's ranks in group order (dcp_server.h), or NULL for rank
 * order (a segment's length, a sum over blocks, does not depend on it). lengths has room for the
 * communicator's size. Returns the number of blocks. */
int tdm_dcp_message_blocks(const dcp_header *h, const int *counts, const int *order, int n, int rank, int *lengths);
/* The same for the answer the client gets. */
int tdm_dcp_answer_blocks(const dcp_header *h, const int *counts, const int *order, int n, int rank, int *lengths);

/* What segment k carries of the blocks, in all. */
long long tdm_dcp_segment_length(const int *lengths, int blocks, int segment, int k);

/* Segment k's header and counts (room for h->counts): the call with every block cut to its piece. */
void tdm_dcp_segment_header(const dcp_header *h, const int *counts, int k, dcp_header *piece, int *piece_counts);

#endif

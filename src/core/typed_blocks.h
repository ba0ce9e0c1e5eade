/*
 * Alltoallw's datatype arrays (and neighbour alltoallw's), held for its call: MPI lets the caller free a derived datatype once the
 * call has started, so the schedule reads copies of the arrays in which each derived datatype is a
 * duplicate (one per distinct datatype), freed with the request.
 */
#ifndef TANDEM_TYPED_BLOCKS_H
#define TANDEM_TYPED_BLOCKS_H

#include "request.h"

/* Points a->sendtypes and a->recvtypes (either may be NULL: in place) at the held copies. */
int tdm_hold_typed_blocks(struct tdm_request *req, tdm_coll_args *a);
void tdm_release_typed_blocks(struct tdm_request *req);

#endif

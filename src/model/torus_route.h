/*
 * The links a message crosses on a torus, routed as SimGrid's torus routes it (the platforms of the
 * simulated studies): dimension by dimension, the fastest-varying first (ranks numbered row-major, as
 * MPI_Cart numbers them, the last dimension fastest), the shorter way round each ring; where both ways
 * are as long, the way SimGrid's rule picks from the source's coordinate x on a ring of n:
 * toward higher coordinates if the target y has x < y <= x + n/2, or if x > n/2 and y <= (x + n/2) mod n.
 *
 * A link is the one between a rank and its neighbour toward higher coordinates in one dimension, named
 * by that rank and the dimension (rank * TDM_TORUS_MAX_DIMS + dimension): the same links as SimGrid's,
 * whose numbers differ (its dimensions reversed, its own count per node). On a bidirectional torus each
 * way is its own link (the number times 2, plus 1 for the way toward lower coordinates).
 */
#ifndef TANDEM_TORUS_ROUTE_H
#define TANDEM_TORUS_ROUTE_H

#include "collective_costs.h"

/* The number of link names on t: 2 * TDM_TORUS_MAX_DIMS per rank. */
int tdm_torus_links(const tdm_torus *t);

/* The links from rank `from` to rank `to`, in order, into links (room for max; the hops past max are
 * counted, not written); returns how many there are (0 from a rank to itself). */
int tdm_torus_route(const tdm_torus *t, int from, int to, int *links, int max);

#endif

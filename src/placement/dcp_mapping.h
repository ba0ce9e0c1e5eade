/*
 * Which ranks of a job are dedicated collective processes (DCPs), and which DCP serves each
 * application rank: the mapping function APP -> DCP of the CDCP paper. A pure function of the job's
 * layout (the node of every rank), so that every rank computes the same mapping without asking.
 *
 *   - The K DCPs are spread over the nodes in proportion to their ranks (largest remainders, ties to
 *     the earlier node), leaving each node an application rank while that can be, each node's DCPs
 *     its highest ranks: world rank 0 stays an application rank, and the application ranks keep the
 *     order of the world (application rank = position among them).
 *   - Where the ranks of each node are consecutive in the world (block placement), each node's
 *     application ranks are served by that node's DCPs, in consecutive blocks as equal as can be; a
 *     node without a DCP joins the nearest node before it that has one (else the nearest after).
 *     Otherwise (ranks spread round robin) the application ranks are cut into K consecutive blocks as
 *     equal as can be, served by the DCPs in world order.
 *   Either way each DCP serves one consecutive block of application ranks, in order: a reduction over
 *   a DCP's clients and then over the DCPs in order is the canonical order (scans, non-commutative ops).
 */
#ifndef TANDEM_DCP_MAPPING_H
#define TANDEM_DCP_MAPPING_H

typedef struct tdm_dcp_mapping {
    int ranks;       /* of the job */
    int dcps;        /* K */
    int app_ranks;   /* ranks - dcps */
    int *app_index;  /* per world rank: its application rank, or -1 for a DCP */
    int *dcp_index;  /* per world rank: its index among the DCPs (0..K-1, in world order), or -1 */
    int *app_world;  /* per application rank: its world rank */
    int *dcp_world;  /* per DCP: its world rank */
    int *server;     /* per application rank: the index of the DCP that serves it */
    int *first_client, *clients; /* per DCP: its block of application ranks */
} tdm_dcp_mapping;

/* The mapping of a job of `ranks` ranks, node[r] the node of world rank r (any integers: equal for
 * ranks of one node), with `dcps` DCPs, 1 to ranks - 1. Returns 0, or -1 if out of memory or the
 * counts are out of range. */
int tdm_dcp_map(int ranks, const int *node, int dcps, tdm_dcp_mapping *map);
void tdm_dcp_mapping_free(tdm_dcp_mapping *map);

/* The DCPs of a ratio 1:R: from the job's ranks, ceil(ranks / (R + 1)); added to an application of
 * `ranks` ranks, ceil(ranks / R) more. */
int tdm_dcp_count_from_ratio(int ranks, int ratio, int added);

#endif

/*
 * Dedicated collective processes (TANDEM_PROGRESS=dcp): some ranks of the job never return to the
 * application; each serves a block of application ranks (src/placement/dcp_mapping.h). A client sends
 * its contribution to its DCP and goes on; the DCP combines its clients' contributions, runs the
 * collective with the other DCPs (with Tandem's own collectives, among the DCPs) and sends the results
 * back.
 *
 * Served so far: allreduce, reduce, bcast and barrier on the application world (TDM_Comm_world()) of
 * a predefined datatype and op from the table in dcp.c. Every other call runs inline on the
 * application rank (said once under TANDEM_VERBOSE).
 *
 * Messages between a client and its DCP go on a private duplicate of MPI_COMM_WORLD (the link), with
 * the tags of the link's shadow: the DCP answers each call with the tag it came with.
 */
#ifndef TANDEM_DCP_H
#define TANDEM_DCP_H

#include <mpi.h>

struct tdm_coll_args;
struct tdm_shadow;

/* At TDM_Init in dcp mode: the mapping and the communicators. On a DCP rank it serves its clients
 * until they all finalized, finalizes MPI and exits with status 0: it returns only on an error. */
int tdm_dcp_init(const char *fn);
int tdm_dcp_active(void);
/* The application ranks' communicator (MPI_COMM_WORLD outside dcp mode). */
MPI_Comm tdm_dcp_app_world(void);
/* Whether the DCP serves this call on comm; if so, *link is the shadow its schedule runs on and
 * *server the DCP's rank there. */
int tdm_dcp_serves(const struct tdm_coll_args *a, MPI_Comm comm, struct tdm_shadow **link, int *server);
/* The application's side of a call the DCP serves: its contribution out, the result in; and its name
 * (TDM_Request_algorithm: "allreduce_dcp", ...). */
const char *tdm_dcp_client_name(const struct tdm_coll_args *a);
int tdm_dcp_build_client(void *sched, const struct tdm_coll_args *a, int server);
/* At TDM_Finalize on an application rank: the DCP is told this client is done. */
void tdm_dcp_finalize(void);

#endif

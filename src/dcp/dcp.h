/*
 * Dedicated collective processes (TANDEM_PROGRESS=dcp): some ranks of the job never return to the
 * application; each serves a block of application ranks (src/placement/dcp_mapping.h). A client sends
 * its contribution to its DCP and goes on; the DCP combines its clients' contributions, runs the
 * collective with the other DCPs of the communicator (Tandem's own collectives, among the DCPs) and
 * sends the results back.
 *
 * Served: every collective of MPI-3, neighbourhood ones included, with a predefined op (scans: where each
 * DCP's ranks are consecutive), on the application world (TDM_Comm_world()) and every communicator of
 * two ranks or more made from it. Every other call runs inline on the application rank (said once
 * under TANDEM_VERBOSE).
 *
 * The part sits above core, as the interposer does: the service loop is a program on Tandem's own
 * API, and core hears of the calls handed to a DCP only through the hooks job.c sets (core/handoff.h).
 * job.c holds TDM_Init and TDM_Finalize, where the job divides; dcp.c divides it (the mapping of
 * placement/dcp_mapping.h, the communicators); dcp_client.c (communicators) and dcp_client_calls.c
 * (each collective) are the application's side, its hand-off a schedule like any algorithm's;
 * dcp_server.c (the service loop) and dcp_server_calls.c (each collective) the DCP's; dcp_protocol.h
 * what they say to each other, dcp_segments.h how a long call is cut.
 */
#ifndef TANDEM_DCP_H
#define TANDEM_DCP_H

#include "../core/handoff.h"
#include "../engine/shadow_comm.h"
#include "../schedule/coll_args.h"

struct tdm_request;

/* At TDM_Init in dcp mode: the mapping and the communicators. On a DCP rank it serves its clients
 * until they all finalized, finalizes MPI and exits with status 0: it returns only on an error. */
int tdm_dcp_init(const char *fn);
int tdm_dcp_active(void);
/* The application ranks' communicator (MPI_COMM_WORLD outside dcp mode). */
MPI_Comm tdm_dcp_app_world(void);
/* Whether the DCP serves this call on comm (1; 0: it runs inline; -1: comm holds DCP ranks, so it
 * cannot run); if so, *link is the shadow its schedule runs on and *via the communicator's state (a
 * tdm_dcp_comm), for tdm_dcp_build_client. */
int tdm_dcp_serves(const tdm_coll_args *a, MPI_Comm comm, tdm_shadow **link, void **via);
/* The application's side of a call the DCP serves: its contribution out, the result in; and its name
 * (TDM_Request_algorithm: "allreduce_dcp", ...). Builds req->run.sched; a communicator's first calls
 * wait (req->run.prelude) until its ranks agreed on its name. A persistent call (persistent 1) takes its
 * call number and waits for the name at each start instead (req->restart). */
const char *tdm_dcp_client_name(const tdm_coll_args *a);
int tdm_dcp_build_client(struct tdm_request *req, const tdm_coll_args *a, void *via, int persistent);
/* A kept client schedule (a call through the mailbox) for another identical call: its slot and call
 * number; 0 if no slot is free. */
int tdm_dcp_reuse_client(struct tdm_request *req);
/* Express calls (core/handoff.h): a kept call through the mailbox of one plain copy, its post and take. */
int tdm_dcp_express(struct tdm_request *req, tdm_express_call *call);
int tdm_dcp_resume_express(struct tdm_request *req, int slot);
/* TDM_Get_dcp_placement: this rank's DCP (world rank, -1 outside dcp progress), the block it serves
 * and whether it shares this rank's node. */
void tdm_dcp_placement(int *dcp, int *first_client, int *clients, int *same_node);
/* TDM_Get_dcp_handoffs: this rank's calls handed to its DCP through its mailbox and as messages. */
void tdm_dcp_handoffs(long *through_segment, long *as_messages);
/* At TDM_Finalize on an application rank: the DCP is told this client is done. */
void tdm_dcp_finalize(void);

#endif

/*
 * The application's side of dedicated collective processes: a communicator's state (dcp_client.c) and
 * the calls (dcp_client_calls.c).
 */
#ifndef TANDEM_DCP_CLIENT_H
#define TANDEM_DCP_CLIENT_H

#include "dcp_protocol.h"

struct tdm_request;
struct tdm_coll_args;

/* A communicator, as a client of the DCPs sees it. */
typedef struct tdm_dcp_comm {
    MPI_Comm comm;            /* the user's (while it lives) */
    int served;               /* intracommunicator of two application ranks or more */
    int holds_dcp;            /* a rank of it is a DCP: no Tandem call can run on it */
    int size, rank;
    int *members;             /* world ranks, in its order */
    int *order;               /* its ranks in group order (dcp_server.h) */
    int contiguous;           /* each DCP's ranks in it are consecutive (scans keep their order) */
    dcp_key key;              /* its name among the DCPs, once named */
    int named;
    int announced;            /* the members went to the DCP with a call */
    unsigned calls;           /* calls through the DCP so far (modulo 2^32) */
    int streams;              /* persistent calls through the DCP initialized so far */
    tdm_shadow *shadow;       /* its shadow (held until named) */
    struct dcp_naming *naming; /* the broadcast of its name, while this rank waits for it */
    int naming_started;
    int refs;                 /* its attribute, and each call waiting for its name */
    struct tdm_dcp_comm *prev, *next; /* the live ones, freed at TDM_Finalize */
} tdm_dcp_comm;

/* A header-only message to this rank's DCP (h->bytes set here). */
void tdm_dcp_tell_server(dcp_header *h);
/* The DCPs' kind of a call (dcp_protocol.h), 0 if they do not serve it; contiguous: each DCP's ranks
 * in the communicator are consecutive. */
int tdm_dcp_kind_of(const struct tdm_coll_args *a, int contiguous);
/* The call, started now, names the communicator if none did before, and waits for the name (a request
 * prelude) if this rank has none yet. An MPI error code if the naming could not start. */
int tdm_dcp_wait_for_name(struct tdm_request *req, tdm_dcp_comm *cc, dcp_header *header);
/* A persistent call (the header's stream set), initialized now: names the communicator as above; at each
 * start, its count of starts and (the first times) its wait for the name go into header; it holds cc
 * until freed. An MPI error code if the naming could not start. */
int tdm_dcp_persistent_call(struct tdm_request *req, tdm_dcp_comm *cc, dcp_header *header);

#endif

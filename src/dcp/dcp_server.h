/*
 * Inside a dedicated collective process: the communicators it serves and the calls it runs.
 * dcp_server.c receives, queues, starts and answers; dcp_server_calls.c turns the contributions of
 * each kind of collective into a call among the DCPs and the answers to the clients.
 *
 * A communicator's ranks in *group order*: those of its first DCP (the DCP of rank 0), then those of
 * the next DCP to appear in rank order, and so on, each DCP's ranks ascending. Blocks of data travel
 * among the DCPs in group order; each client unpacks them into rank order (dcp_client_calls.c).
 */
#ifndef TANDEM_DCP_SERVER_H
#define TANDEM_DCP_SERVER_H

#include "dcp_protocol.h"
#include "tandem.h"

/* One client's message about a communicator (a call, or that it freed the communicator), queued until
 * the DCP can act on it. */
typedef struct contribution {
    struct contribution *next;
    dcp_header h;
    int tag;        /* the client's, for the answer */
    int mailbox_slot; /* 0: it came by MPI, answered with tag; k + 1: through slot k of its client's
                       * mailbox (engine/mailbox.h), answered there */
    int client;     /* among this DCP's clients, 0 .. clients-1 */
    char *message;  /* the header, the members if any, the counts if any, then the data */
    int rest_bytes;   /* the message's bytes past its first part (they come on the data link) whose
                       * receive is not posted yet */
    MPI_Request rest; /* that receive, or MPI_REQUEST_NULL */
    int fetched;      /* the receives of its data past the first part (rest, segments) posted */
    long long fetched_bytes; /* what those receives bring */
    long long ahead;  /* of them, what counts in what its client has ahead of its calls (dcp_server.c) */
    struct contribution *earlier, *later; /* among its client's contributions not fetched yet; then
                                           * (later) among the calls whose segments are being posted */
    const int *counts;
    char *data;     /* in the message, or (segmented) its own memory the segments arrive in */
    MPI_Request *segments; /* a segmented call: the receives of its segments if it gives some, else NULL */
    int posted, arrived;   /* ... the first `posted` of them posted, the first `arrived` of those done */
    long long *segment_at; /* ... and where each segment starts in data (units) */
} contribution;

/* A start of a persistent call on a communicator, as this DCP knows it: from its clients' messages
 * (ready once they all sent it) and, on the communicator's first DCP, from the others' READY. */
typedef struct stream_start {
    struct stream_start *next;
    int stream;        /* the persistent call (the header's stream) */
    unsigned call;     /* and its start */
    int ready;         /* this DCP's clients all started it */
    int ready_dcps;    /* the first DCP: the DCPs whose clients all did, itself included */
    int has_turn;      /* the first DCP gave it its turn: */
    unsigned turn;     /* its place among the communicator's persistent calls among the DCPs (wraps) */
} stream_start;

/* A communicator some clients of this DCP call collectives on. */
typedef struct served_comm {
    struct served_comm *next;
    dcp_key key;
    int size;                   /* 0 until a client sent its members */
    int *members;               /* world ranks, in its order */
    int mine;                   /* this DCP's clients in it */
    int *mine_ranks;            /* their ranks in it, ascending */
    contribution *unsorted;     /* messages that came before the members */
    contribution **queue;       /* per client in it: its calls, by call number */
    unsigned *freed_after;      /* per client in it that freed it: its calls on it */
    char *freed;                /* per client in it: it freed it */
    unsigned next_call;         /* the call number to start next */
    int group_size, group_rank;
    int *group;                 /* the world ranks of its DCPs, in order */
    int *group_of_rank;         /* per rank of it: the group index of its DCP */
    int *order;                 /* its ranks in group order */
    int slot;                   /* of tags on dcp_link; -1: not granted yet; 0: needs none (one DCP) */
    int waiting;                /* its first DCP: > 0 while it waits for a slot, its place in line */
    tdm_shadow *among;          /* its DCPs' group shadow, once granted: its calls in order */
    contribution **stream_queue; /* per client in it: starts of its persistent calls, as they came */
    stream_start *starts;       /* those not run yet */
    tdm_shadow *among_streams;  /* its DCPs' group shadow for them, in the turns the first DCP gives */
    unsigned next_turn;         /* the turn of the next one to run (turns wrap at 2^32, as call numbers) */
    unsigned turns_given;       /* the first DCP: turns handed out */
    int running;                /* calls started and not yet answered */
    int running_on[2];          /* ... of them, on among (0) and on among_streams (1) */
    long long bytes_on[2];      /* ... and their clients' data (dcp_server.c: room_for) */
    struct served_call *holding; /* a segmented call whose segments have not all started (on either
                                  * shadow: the calls after it wait) */
    int released;               /* this DCP is done with it (told the first DCP) */
    int releases;               /* the first DCP: the others that are done with it */
} served_comm;

/* A call among the DCPs of a communicator, then answered. */
typedef struct served_call {
    struct served_call *next;
    served_comm *sc;
    tdm_shadow *among;          /* sc's shadow it runs on (sc->among, or among_streams) */
    long long bytes;            /* its clients' data fetched for it */
    contribution **in;          /* per client in the communicator, kept until answered */
    TDM_Request req;            /* among the DCPs; NULL once done */
    char *input, *output;       /* this DCP's part of the call among the DCPs, and what it gets */
    char *scratch;              /* answers assembled here (alltoall) */
    int *counts, *displs;       /* per DCP of the communicator (as many as dcp_world has ranks) */
    int *counts2, *displs2;
    MPI_Datatype type;          /* of the answers */
    char **answer;              /* per client: its answer, NULL for none */
    int *answer_count;          /* per client: elements of type */
    MPI_Request *answers;       /* per client */
    int answering;              /* the answers went out */
    /* a segmented call (dcp_segments.h): each segment a call of its own, started in order once its
     * data is in, answered in order */
    int segments, started, answered, freed;
    int agreeing;               /* a v-form: the DCPs' allreduce of their clients' most segments (req)
                                 * runs; segments is this DCP's clients' most until it is done */
    int most, agreed;           /* its input and output */
    struct served_call **parts; /* per segment, from its start until its answers went out */
} served_call;

/* The receives of the segments a client's segmented call gives posted, TDM_DCP_MAX_SEGMENTS at most (a
 * v-form may have more: dcp_protocol.h). Returns whether all are; *bytes: the data they bring. */
int tdm_dcp_receive_segments(contribution *in, int source, long long *bytes);
/* More of them posted as the first ones arrive, TDM_DCP_MAX_SEGMENTS at most pending; whether all are. */
int tdm_dcp_post_segments(contribution *in, int source);
void tdm_dcp_free_contribution(contribution *in);

/* Starts the call of sc whose contributions are in[0 .. sc->mine - 1] among its DCPs, on the group
 * shadow among (sc->among or sc->among_streams). */
served_call *tdm_dcp_start_call(served_comm *sc, tdm_shadow *among, contribution **in);
/* Advances a call: among the DCPs, then its answers (tdm_dcp_finish_call) out. Returns whether anything
 * moved; *done once every answer went out. A segmented call's segments start in order and, on sc,
 * before any later call (sc->holding): the DCPs of sc must start their calls among themselves in one
 * order. */
int tdm_dcp_advance_call(served_call *x, int *done);
void tdm_dcp_free_call(served_call *x);

/* The answer to the call `in` came with, count units of type from data: through its client's mailbox
 * (then *sent stays MPI_REQUEST_NULL) or as a message (*sent its send). */
void tdm_dcp_answer(const contribution *in, const void *data, int count, MPI_Datatype type, MPI_Request *sent);

/* Aborts the job: a DCP cannot report an error to anyone. */
void tdm_dcp_fail(const char *what, int rc);
/* Ends the job after a message on stderr, given time to reach the launcher first (MPICH's dropped it
 * about once in 40 aborts). */
void tdm_dcp_abort(void);
/* calloc that aborts when out of memory */
void *tdm_dcp_alloc(size_t bytes);
/* The same for data, whose content a timing-only simulation never looks at: there SMPI's shared memory
 * from 64 KiB on (no copies between such buffers, and thousands of ranks fit in memory). */
void *tdm_dcp_alloc_data(size_t bytes);
void tdm_dcp_free_data(void *p);

#endif

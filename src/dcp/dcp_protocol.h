/*
 * Dedicated collective processes: what the two sides share. The job's division (set up by dcp.c at
 * TDM_Init), and the messages:
 *
 *   client -> its DCP, on the link's shadow, with the tag the client's call took there (the DCP
 *   answers with it): a dcp_header, then the communicator's members (world ranks, in its order) if the
 *   header says so, then the counts, then the call's data (packed bytes, or an array of a reduction's
 *   unit; from tdm_dcp_data_offset). A message of more than DCP_FIRST_BYTES goes as two with the same
 *   tag: its header, members and counts (DCP_FIRST_BYTES at most), then the rest on the data link (the
 *   link shadow's bulk channel). The DCP keeps a receive of DCP_FIRST_BYTES posted for each client on the
 *   link, so that it reads every call's first part as it comes and can block until any of its clients,
 *   its peers or its own messages moves (it does not poll: in simulation each poll costs time and
 *   events); it receives the rest when it can use the data (dcp_server.c), or at once where it needs
 *   the members or counts in it.
 *
 *   A segmented call (a call with a block longer than segment_bytes; dcp_segments.h): the header's
 *   message carries no data; the data follows in segments on the data link, one message each with the
 *   same tag, and the answer comes back in segments on the link the same way (MPI keeps the messages
 *   of one tag in order). Nothing of a call but its first part travels on the link from the client, so
 *   the DCP's receive of any tag there never takes a rest or a segment, and it may put those off.

 *   The v-forms (gatherv, scatterv, alltoallv, alltoallw, the neighbourhood collectives) are always
 *   segmented, each client by its own blocks (no rank knows the others'): its header's `segments`
 *   counts its own, and one segment travels in the header's message as an unsegmented call's data does.
 *   The DCPs agree on the call's count (the most, an allreduce among them started with its first
 *   segment); a client gets no message for a segment that carries nothing of its answer.
 *
 *   DCP -> DCP, on dcp_link with DCP_CONTROL_TAG: a dcp_control (slot grants and releases, the turns of
 *   persistent calls). Calls among the DCPs of a communicator take the tags of its slot on dcp_link:
 *   slot s owns the tags s * window .. s * window + window - 1, the first half for its calls in order,
 *   the second for its persistent calls. Slot 1 is the application world's; the DCP of a
 *   communicator's rank 0 hands out the others from its share (dcp_server.c).
 *
 * A communicator is named among the DCPs by a dcp_key its ranks agree on at its first call through
 * them: the world rank of its rank 0 and a number that rank never gave another communicator.
 */
#ifndef TANDEM_DCP_PROTOCOL_H
#define TANDEM_DCP_PROTOCOL_H

#include "../engine/shadow_comm.h"
#include "../placement/dcp_mapping.h"

#include <limits.h>
#include <mpi.h>

typedef struct dcp_key {
    int leader; /* world rank of the communicator's rank 0; -1: the application world */
    int number; /* the leader's count of communicators it named */
} dcp_key;

static inline int dcp_key_equal(dcp_key a, dcp_key b) { return a.leader == b.leader && a.number == b.number; }

#define DCP_APP_WORLD_KEY ((dcp_key){-1, 0})

/* What a call's header counts, and the counts that follow it (one per rank of the communicator):
 *   reductions (allreduce, reduce, scan, exscan, reduce_scatter): count elements of the carried type
 *     (a derived datatype travels as the predefined one it repeats); reduce_scatter (both forms): the
 *     elements of each rank's block;
 *   bcast: count bytes; gather(v): count bytes sent, and at the root the bytes from each rank;
 *   scatter(v): count bytes received, and at the root the bytes to each rank (its own 0 in place);
 *   allgather(v): count bytes sent, and the bytes from each rank;
 *   alltoall(v, w): count bytes sent, the bytes to each rank, then the bytes from each rank.
 * Blocks of data go in group order (dcp_server.h), packed. */
enum dcp_kind {
    DCP_ALLREDUCE = 1,
    DCP_REDUCE,
    DCP_SCAN,
    DCP_EXSCAN,
    DCP_REDUCE_SCATTER,
    DCP_BCAST,
    DCP_BARRIER,
    DCP_GATHER,
    DCP_SCATTER,
    DCP_ALLGATHER,
    DCP_ALLTOALL,
    DCP_FREED,     /* the client freed the communicator after `call` calls through the DCP */
    DCP_FINALIZED, /* the client called TDM_Finalize: it is done with every communicator */
    DCP_REFUSED,   /* the client refused a call of `call` kind whose message or answer passes INT_MAX
                    * bytes: the DCP stops the job, whose other ranks would wait for it forever */
};

typedef struct dcp_header {
    int kind;
    int type;     /* reductions: index in the carried datatypes */
    int op;       /* reductions: index in the carried ops */
    int count;
    int root;     /* reduce, bcast, gather, scatter: a rank of the communicator */
    int rank;     /* the client's rank in the communicator */
    dcp_key key;  /* the communicator */
    int stream;   /* 0: the communicator's calls, in order; p + 1: its persistent call p (p of them
                   * initialized before it), whose starts may come in any order among its others */
    unsigned call; /* stream 0: the client's calls through the DCP on it before this one (FREED: all of
                    * them); else the persistent call's starts before this one. Counted modulo 2^32:
                    * compared with dcp_call_before */
    int members;  /* > 0: the communicator's size; its members' world ranks follow the header */
    int counts;   /* the counts that follow (after the members): 0, the size or twice the size */
    int segment;  /* a segmented call: units per segment (a reduction's elements, else bytes); 0: the
                   * data follows in this message */
    int segments; /* a segmented call: how many */
    int varying;  /* a v-form: segments counts this client's own (1: its data in this message) */
    int bytes;    /* the message's, header included (its first DCP_FIRST_BYTES come first) */
} dcp_header;

/* Where a call's data starts in its message, after the header, the members and the counts: at a
 * multiple of 16 bytes, so that the DCP reduces it where it lies (a long double's pair wants that). */
static inline size_t tdm_dcp_data_offset(int members, int counts)
{
    size_t prefix = sizeof(dcp_header) + sizeof(int) * ((size_t)members + (size_t)counts);
    return (prefix + 15) / 16 * 16;
}

/* The first message of a call: the header, the members of a communicator of up to a thousand ranks or so,
 * and small data fit. */
#define DCP_FIRST_BYTES 8192

/* What a DCP receives of a client's data ahead of its calls (dcp_server.c): a 1 MiB allreduce's next
 * few calls, a bound whatever the number of calls the client has outstanding. */
#define DCP_AHEAD_BYTES (4LL << 20)
/* What the calls that run on a communicator hold of their clients' data, on a DCP (a larger call runs
 * alone): a few of its 1 MiB allreduces at once, pipelined among the DCPs. */
#define DCP_RUNNING_BYTES (16LL << 20)

/* DCP -> DCP. A communicator's persistent calls run among its DCPs in an order its first DCP gives:
 * each DCP tells it when its clients all started one (READY), and once all did it hands the start its
 * turn (RUN), the same on every DCP, as the communicator's other calls have their call numbers. */
enum { DCP_CONTROL_TAG = 0, DCP_GRANT = 1, DCP_RELEASE, DCP_STREAM_READY, DCP_STREAM_RUN };
typedef struct dcp_control {
    int what;   /* DCP_GRANT (the slot of key, from the DCP of its rank 0) or DCP_RELEASE (to it); the
                 * DCP_STREAM_ ones: to it, and from it */
    dcp_key key;
    int slot;
    unsigned turn;    /* DCP_STREAM_RUN: the turn */
    int stream;       /* DCP_STREAM_*: the persistent call */
    unsigned call;    /* and its start */
} dcp_control;

/* Call numbers wrap (a communicator may see more than 2^32 calls): a comes before b if b is less than
 * half the range ahead. */
static inline int dcp_call_before(unsigned a, unsigned b) { return a - b > UINT_MAX / 2; }

/* TANDEM_DCP_SEGMENT's default: 64 KiB, a few microseconds on a network link, long enough that a
 * segment's messages cost little beside its bytes, short enough that a 1 MiB vector is 16 segments in
 * flight at once through the DCP. */
#define TDM_DCP_DEFAULT_SEGMENT 65536

/* A call goes in this many segments at most: longer blocks get longer segments. A DCP posts the
 * receives of a call's segments at once, and MPI's matching walks the posted receives (MPICH took 87 s
 * to match about 100 000 and failed an assertion near 400 000); past a few hundred segments the
 * pipeline gains nothing more. A v-form's client may have more (it cannot know the others' longest
 * block): its DCP keeps this many of its segment receives posted, the next as the first arrive, and
 * the client's next message waits in MPI until all are (the receive that takes it matches any tag). */
#define TDM_DCP_MAX_SEGMENTS 256

/* The division of the job, the same on every rank (dcp.c). */
typedef struct tdm_dcp_job {
    int active;
    int is_dcp;
    tdm_dcp_mapping map;
    int *node;               /* per world rank: the lowest world rank of its node */
    MPI_Comm app_world;      /* the application ranks (on them) */
    MPI_Comm dcp_world;      /* the DCPs that serve clients (on them) */
    MPI_Comm link;           /* every rank: a private duplicate of MPI_COMM_WORLD */
    tdm_shadow *link_shadow; /* its shadow: clients and DCPs talk on its duplicate, with its tags */
    MPI_Comm data_link;      /* every rank: another duplicate, the link shadow's bulk channel: a call's
                              * data past its first message, which the DCP takes when it can use it */
    MPI_Comm dcp_link;       /* every rank: another duplicate, for the DCPs among themselves */
    int server;              /* a client: the world rank of its DCP */
    int window;              /* tags of a slot: calls of one communicator among the DCPs at once */
    int slots_per_dcp;       /* slots each serving DCP hands out */
    int segment_bytes;       /* TANDEM_DCP_SEGMENT (rank 0's): a call with a block above it goes in
                              * segments of about that many bytes; 0: whole */
    int first_bytes;         /* a message's first part: DCP_FIRST_BYTES (testing: TANDEM_DCP_FIRST_BYTES) */
    unsigned first_call;     /* a communicator's first call number: 0 (testing: TANDEM_DCP_FIRST_CALL) */
} tdm_dcp_job;

extern tdm_dcp_job tdm_dcp;

/* The predefined datatypes and ops a call may carry to its DCP, by index (a handle's value may differ
 * from one process to another): -1 if not carried. */
int tdm_dcp_type_index(MPI_Datatype type);
int tdm_dcp_op_index(MPI_Op op);
MPI_Datatype tdm_dcp_type(int index);
MPI_Op tdm_dcp_op(int index);

/* The rank among the serving DCPs (dcp_world) of the DCP with index d in the mapping. */
int tdm_dcp_world_rank(int d);

/* The DCPs of a communicator whose ranks are the world ranks members[0..n-1], in order of the first
 * rank each serves: group_of_rank[r] is rank r's DCP's index among them, group[g] that DCP's world
 * rank; order is the ranks in group order (each DCP's ranks ascending, DCP after DCP): the identity
 * when each DCP's ranks are consecutive. Arrays of n. Returns the number of DCPs. */
int tdm_dcp_groups(const int *members, int n, int *group_of_rank, int *group, int *order);

/* On a DCP (dcp_server.c): serves the clients of DCP d until they all finalized. */
void tdm_dcp_serve(int d);
/* On an application rank (dcp_client.c), once the job is divided. */
int tdm_dcp_client_init(const char *fn);

#endif

/* Process-wide state of the library (one copy per rank, also under SMPI's privatized globals). */
#ifndef TANDEM_STATE_H
#define TANDEM_STATE_H

#include "loggp_params.h"

#include <stddef.h>

typedef struct tdm_state {
    /* What every call reads, in the first cache line */
    int initialized;          /* between TDM_Init and TDM_Finalize */
    unsigned settings_epoch;  /* bumped when a selection setting changes: cached schedules expire */
    int verbose;              /* TANDEM_VERBOSE */
    int dump_schedules;       /* TANDEM_DUMP_SCHEDULE */
    int completion_hooks;     /* requests may get completion hooks (the interposer): agents pass the
                                 hook gate only then, so that plain calls pay no atomic for it */
    unsigned shadow_generation; /* atomic: bumped when a shadow goes (engine/shadow_comm.h's memo) */
    long express_calls;       /* express calls started (core/express_calls.h), and in flight */
    int express_running;
    int finalized;
    int we_initialized_mpi;
    int mpi_thread_level;     /* what MPI provides (TDM_Init asks for MPI_THREAD_MULTIPLE) */
    size_t segment_bytes;     /* TANDEM_SEGMENT_BYTES; 0: the model chooses */
    long long chunk_bytes;    /* TANDEM_CHUNK_BYTES: the most data one schedule carries (chunked_calls.h) */
    tdm_loggp loggp;          /* TANDEM_LOGGP or the defaults */
    int bucket_chains;        /* TANDEM_BUCKET_CHAINS: chains of a torus bucket call; 0: chosen by size */
    int color_threads;        /* TANDEM_COLOR_THREADS: lanes of a torus bucket call (1: one schedule) */
    int one_node;             /* all of MPI_COMM_WORLD's ranks are on this node: messages are copies
                                 between processes' memory, made by the processes themselves */
    size_t cache_bytes;       /* TANDEM_CACHE_BYTES, else this node's last-level cache from hwloc; 0 if
                                 unknown */
    unsigned long schedules_built, schedules_reused; /* reported at TDM_Finalize by TANDEM_VERBOSE */
} tdm_state;

extern tdm_state tdm_global;

#endif

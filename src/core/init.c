/* Life cycle and settings: what TDM_Init and TDM_Finalize do for core and the parts below it (the
 * public functions themselves are in dcp/job.c, where dcp progress divides the job), the environment,
 * algorithm forcing. */
#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../engine/node.h"
#include "../engine/shadow_comm.h"
#include "../placement/placement.h"
#include "../schedule/tmp_pool.h"
#include "../select/select.h"
#include "api_internal.h"
#include "chunked_calls.h"
#include "express_calls.h"
#include "op_hold.h"
#include "op_rules.h"
#include "request.h"
#include "sched_cache.h"
#include "tandem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine's shadows hand back what this layer hangs on them: the call holding a tag, to be
 * completed at tag wrap, and the schedule cache. */
static int complete_tag_holder(tdm_tag_hold *hold) { return tdm_agent_wait(tdm_run_of_hold(hold)); }
static const tdm_shadow_hooks shadow_hooks = {complete_tag_holder, tdm_sched_cache_clear, tdm_express_user_freeing};
/* The agents hand back the calls they complete: the interposer's completion hook runs. */
static const tdm_agent_hooks agent_hooks = {tdm_request_completing};

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* The placement policy: TDM_Set_progress_placement before TDM_Init, else TANDEM_PROGRESS_PLACEMENT. */
static char placement_text[128] = "none";
static int placement_asked;

static int placement_from_environment(const char *fn)
{
    const char *env = getenv("TANDEM_PROGRESS_PLACEMENT");
    if (!placement_asked) {
        if (env && strlen(env) >= sizeof placement_text)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_PROGRESS_PLACEMENT is too long");
        strcpy(placement_text, env && *env ? env : "none");
    }
    placement_asked = 0;
    char where[200]; /* errors name the setting */
    snprintf(where, sizeof where, "%s (placement %s)", fn, placement_text);
    tdm_placement_policy policy;
    int rc = tdm_placement_parse(where, placement_text, &policy);
    if (rc == MPI_SUCCESS)
        rc = tdm_placement_init(where, &policy);
    return rc;
}

/* Settings read once at TDM_Init. */
/* A testing setting: a positive number, or unset (*out left as it is); 0 with an error if malformed. */
static int testing_count(const char *fn, const char *name, int *out)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return 1;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v < 1 || v > INT_MAX) {
        tdm_error(fn, MPI_ERR_ARG, "%s=%s: expected a positive number", name, text);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int read_environment(const char *fn)
{
    tdm_global.verbose = env_flag("TANDEM_VERBOSE");
    tdm_global.dump_schedules = env_flag("TANDEM_DUMP_SCHEDULE");
    int range = 0; /* testing: force tags to wrap early */
    if (!testing_count(fn, "TANDEM_TAG_RANGE", &range))
        return MPI_ERR_ARG;
    tdm_shadow_set_tag_range(range);
    const char *chunk = getenv("TANDEM_CHUNK_BYTES");
    tdm_global.chunk_bytes = TDM_DEFAULT_CHUNK_BYTES;
    if (chunk && *chunk) {
        char *end;
        long long v = strtoll(chunk, &end, 10);
        if (*end != '\0' || v < 1 || v > INT_MAX)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_CHUNK_BYTES=%s: expected a number of bytes from 1 to %d", chunk,
                             INT_MAX);
        tdm_global.chunk_bytes = v;
    }
    return tdm_select_init_from_env(fn);
}

int tdm_core_init(const char *fn, int *argc, char ***argv)
{
    if (tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is already initialized");
    int mpi_ready = 0, mpi_done = 0;
    MPI_Finalized(&mpi_done);
    if (mpi_done)
        return tdm_error(fn, MPI_ERR_OTHER, "MPI is already finalized");
    MPI_Initialized(&mpi_ready);
    if (!mpi_ready) { /* the progress thread, if it is ever wanted, calls MPI beside the application */
        int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &tdm_global.mpi_thread_level);
        if (rc != MPI_SUCCESS)
            return tdm_mpi_error(fn, "MPI_Init_thread", rc);
        tdm_global.we_initialized_mpi = 1;
    } else {
        MPI_Query_thread(&tdm_global.mpi_thread_level);
    }
    int rc = read_environment(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = placement_from_environment(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = tdm_node_init(fn, tdm_progress_dcp_wanted()); /* dcp progress: mailboxes for the hand-off */
    if (rc != MPI_SUCCESS)
        return rc;
    /* testing: every communicator a duplicate of its own, as where MPI has too few tags for slots; or
     * few own slots per rank, so that they must come back */
    int own_slots = 0;
    if (!testing_count(fn, "TANDEM_OWN_SLOTS", &own_slots))
        return MPI_ERR_ARG;
    rc = tdm_shadow_module_init(&shadow_hooks, env_flag("TANDEM_OWN_DUPLICATES"), own_slots);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating an attribute key", rc);
    tdm_op_rules_init();
    tdm_agents_set_hooks(&agent_hooks);
    tdm_global.initialized = 1;
    tdm_global.finalized = 0;
    rc = tdm_agents_init(fn);
    if (rc != MPI_SUCCESS) {
        tdm_global.initialized = 0;
        return rc;
    }
    return MPI_SUCCESS;
}

void tdm_core_report_start(const char *progress)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "tandem %d.%d: %s progress, placement %s, segment %zu bytes (0: the model's)\n",
                TANDEM_VERSION_MAJOR, TANDEM_VERSION_MINOR,
                progress ? progress : tdm_progress_current() == TDM_PROGRESS_THREAD ? "thread" : "inline",
                placement_text, tdm_global.segment_bytes);
}

int tdm_core_finalize(const char *fn)
{
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized");
    int running = tdm_agent_running() + tdm_express_running();
    if (running > 0 && tdm_global.verbose)
        fprintf(stderr, "tandem: TDM_Finalize with %d collectives still running; they are abandoned\n",
                running);
    if (tdm_global.verbose) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "tandem: rank %d: %lu schedules built, %lu reused from the cache\n", rank,
                tdm_global.schedules_built, tdm_global.schedules_reused);
        unsigned long common, own;
        tdm_shadow_slot_counts(&common, &own);
        fprintf(stderr, "tandem: rank %d: %lu communicators took a common slot of Tandem's private communicator, %lu "
                        "one of their rank 0's own\n", rank, common, own);
        unsigned long by_workers, by_application;
        tdm_thread_agent_completed_by(&by_workers, &by_application);
        if (by_workers + by_application > 0)
            fprintf(stderr, "tandem: rank %d: of the progress thread's calls, %lu completed on it and %lu by "
                            "application threads driving while they waited\n", rank, by_workers, by_application);
    }
    tdm_agents_finalize(); /* the progress thread stops before its shadows go */
    tdm_shadow_module_finalize();
    tdm_node_finalize(); /* the communicators' rings went with their shadows */
    tdm_placement_finalize();
    tdm_tmp_pool_release();
    tdm_request_pool_finalize();
    tdm_op_hold_finalize();
    tdm_global.initialized = 0;
    tdm_global.finalized = 1;
    if (tdm_global.we_initialized_mpi) {
        tdm_global.we_initialized_mpi = 0;
        int rc = MPI_Finalize();
        if (rc != MPI_SUCCESS)
            return tdm_mpi_error(fn, "MPI_Finalize", rc);
    }
    return MPI_SUCCESS;
}

const char *TDM_Last_error(void) { return tdm_last_error(); }

int TDM_Initialized(int *flag)
{
    if (!flag)
        return tdm_error("TDM_Initialized", MPI_ERR_ARG, "flag is NULL (argument flag)");
    *flag = tdm_global.initialized;
    return MPI_SUCCESS;
}

int TDM_Set_algorithm(const char *collective, const char *algorithm)
{
    return tdm_select_force("TDM_Set_algorithm", collective, algorithm);
}

const char *TDM_Algorithm_names(const char *collective) { return tdm_select_names(collective); }

int TDM_Set_progress(const char *mode) { return tdm_progress_set("TDM_Set_progress", mode); }

int TDM_Set_progress_placement(const char *policy)
{
    static const char *fn = "TDM_Set_progress_placement";
    if (tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "the placement is chosen before TDM_Init");
    tdm_placement_policy parsed;
    int rc = tdm_placement_parse(fn, policy, &parsed);
    if (rc != MPI_SUCCESS)
        return rc;
    if (strlen(policy) >= sizeof placement_text)
        return tdm_error(fn, MPI_ERR_ARG, "placement is too long (argument policy)");
    strcpy(placement_text, policy);
    placement_asked = 1;
    return MPI_SUCCESS;
}

int TDM_Get_placement(int *app_core, int *progress_core)
{
    if (!app_core || !progress_core)
        return tdm_error("TDM_Get_placement", MPI_ERR_ARG, "%s is NULL (argument %s)",
                         app_core ? "progress_core" : "app_core", app_core ? "progress_core" : "app_core");
    *app_core = tdm_placement_current_core();
    *progress_core = tdm_placement_progress_core();
    return MPI_SUCCESS;
}

int TDM_Get_color_placement(int maxthreads, int cores[], int *nthreads)
{
    const char *fn = "TDM_Get_color_placement";
    if (!nthreads)
        return tdm_error(fn, MPI_ERR_ARG, "nthreads is NULL (argument nthreads)");
    if (maxthreads < 0)
        return tdm_error(fn, MPI_ERR_ARG, "maxthreads is %d; expected 0 or more (argument maxthreads)", maxthreads);
    if (maxthreads > 0 && !cores)
        return tdm_error(fn, MPI_ERR_ARG, "cores is NULL with maxthreads %d (argument cores)", maxthreads);
    *nthreads = tdm_global.color_threads > 1 ? tdm_global.color_threads - 1 : 0;
    for (int t = 1; t <= *nthreads && t <= maxthreads; t++)
        cores[t - 1] = tdm_placement_lane_thread_core(t);
    return MPI_SUCCESS;
}

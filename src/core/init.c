/* Life cycle and settings: TDM_Init, TDM_Finalize, the environment, algorithm forcing. */
#include "../agents/agent.h"
#include "../engine/shadow_comm.h"
#include "../select/select.h"
#include "error.h"
#include "op_rules.h"
#include "request.h"
#include "state.h"
#include "tandem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tdm_state tdm_global;

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Settings read once at TDM_Init. */
static int read_environment(const char *fn)
{
    tdm_global.verbose = env_flag("TANDEM_VERBOSE");
    tdm_global.dump_schedules = env_flag("TANDEM_DUMP_SCHEDULE");
    const char *range = getenv("TANDEM_TAG_RANGE"); /* testing: force tags to wrap early */
    if (range && *range) {
        int v = atoi(range);
        if (v < 1)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_TAG_RANGE=%s: expected a positive number", range);
        tdm_shadow_set_tag_range(v);
    } else {
        tdm_shadow_set_tag_range(0);
    }
    return tdm_select_init_from_env(fn);
}

int TDM_Init(int *argc, char ***argv)
{
    static const char *fn = "TDM_Init";
    if (tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is already initialized");
    int mpi_ready = 0, mpi_done = 0;
    MPI_Finalized(&mpi_done);
    if (mpi_done)
        return tdm_error(fn, MPI_ERR_OTHER, "MPI is already finalized");
    MPI_Initialized(&mpi_ready);
    if (!mpi_ready) {
        int rc = MPI_Init(argc, argv);
        if (rc != MPI_SUCCESS)
            return tdm_mpi_error(fn, "MPI_Init", rc);
        tdm_global.we_initialized_mpi = 1;
    }
    int rc = read_environment(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = tdm_shadow_module_init();
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "creating an attribute key", rc);
    tdm_op_rules_init();
    tdm_global.initialized = 1;
    tdm_global.finalized = 0;
    if (tdm_global.verbose) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "tandem %d.%d: inline progress, segment %zu bytes\n", TANDEM_VERSION_MAJOR,
                    TANDEM_VERSION_MINOR, tdm_global.segment_bytes);
    }
    return MPI_SUCCESS;
}

int TDM_Finalize(void)
{
    static const char *fn = "TDM_Finalize";
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized");
    int running = tdm_agent_running();
    if (running > 0 && tdm_global.verbose)
        fprintf(stderr, "tandem: TDM_Finalize with %d collectives still running; they are abandoned\n",
                running);
    if (tdm_global.verbose) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "tandem: rank %d: %lu schedules built, %lu reused from the cache\n", rank,
                tdm_global.schedules_built, tdm_global.schedules_reused);
    }
    tdm_shadow_module_finalize();
    tdm_agent_finalize();
    tdm_request_pool_finalize();
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

int TDM_Initialized(int *flag)
{
    if (!flag)
        return tdm_error("TDM_Initialized", MPI_ERR_ARG, "flag is NULL (argument flag)");
    *flag = tdm_global.initialized;
    return MPI_SUCCESS;
}

MPI_Comm TDM_Comm_world(void) { return MPI_COMM_WORLD; }

int TDM_Set_algorithm(const char *collective, const char *algorithm)
{
    return tdm_select_force("TDM_Set_algorithm", collective, algorithm);
}

const char *TDM_Algorithm_names(const char *collective) { return tdm_select_names(collective); }

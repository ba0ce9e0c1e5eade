/*
 * TDM_Init and TDM_Finalize: the job's life cycle as the application sees it. Core starts first (MPI,
 * settings, placement, shadows, agents: core/init.c); in dcp progress the job then divides into
 * application ranks and dedicated collective processes, which never return from TDM_Init, and core is
 * told which calls they serve (core/handoff.h). They live here, above core, because only this part
 * may know of both.
 */
#include "../agents/agent.h"
#include "../base/error.h"
#include "../base/state.h"
#include "../core/api_internal.h"
#include "../core/handoff.h"
#include "dcp.h"

#include "tandem.h"

static const tdm_handoff dcp_handoff = {tdm_dcp_serves, tdm_dcp_client_name, tdm_dcp_build_client,
                                        tdm_dcp_reuse_client, tdm_dcp_express, tdm_dcp_resume_express};

int TDM_Init(int *argc, char ***argv)
{
    static const char *fn = "TDM_Init";
    int rc = tdm_core_init(fn, argc, argv);
    if (rc != MPI_SUCCESS)
        return rc;
    if (tdm_progress_dcp_chosen()) {
        rc = tdm_dcp_init(fn); /* on a dedicated collective process: does not return */
        if (rc != MPI_SUCCESS) {
            tdm_global.initialized = 0;
            return rc;
        }
        tdm_handoff_set(&dcp_handoff);
    }
    if (tdm_global.verbose)
        tdm_core_report_start(tdm_dcp_active() ? "dcp (the rest inline)" : NULL);
    return MPI_SUCCESS;
}

int TDM_Finalize(void)
{
    static const char *fn = "TDM_Finalize";
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "Tandem is not initialized");
    tdm_dcp_finalize(); /* this rank's dedicated collective process stops serving it */
    tdm_handoff_set(NULL);
    return tdm_core_finalize(fn);
}

MPI_Comm TDM_Comm_world(void) { return tdm_dcp_app_world(); }

int TDM_Get_dcp_placement(int *dcp, int *first_client, int *clients, int *same_node)
{
    const char *fn = "TDM_Get_dcp_placement";
    const char *null = !dcp ? "dcp" : !first_client ? "first_client" : !clients ? "clients" : !same_node ? "same_node" : NULL;
    if (null)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", null, null);
    tdm_dcp_placement(dcp, first_client, clients, same_node);
    return MPI_SUCCESS;
}

int TDM_Get_dcp_handoffs(long *through_segment, long *as_messages)
{
    const char *fn = "TDM_Get_dcp_handoffs";
    const char *null = !through_segment ? "through_segment" : !as_messages ? "as_messages" : NULL;
    if (null)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", null, null);
    tdm_dcp_handoffs(through_segment, as_messages);
    return MPI_SUCCESS;
}

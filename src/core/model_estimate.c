/* TDM_Model_estimate: the cost model of src/model offered to programs (the overlap patterns size their
 * tiles with it). */
#include "../base/error.h"
#include "../base/state.h"
#include "../engine/node.h"
#include "../select/select.h"
#include "../select/select_estimate.h"
#include "tandem.h"

int TDM_Model_estimate(const char *collective, MPI_Comm comm, double bytes, double *latency, double *cpu)
{
    const char *fn = "TDM_Model_estimate";
    const char *null = !collective ? "collective" : !latency ? "latency" : !cpu ? "cpu" : NULL;
    if (null)
        return tdm_error(fn, MPI_ERR_ARG, "%s is NULL (argument %s)", null, null);
    if (!tdm_global.initialized)
        return tdm_error(fn, MPI_ERR_OTHER, "called outside TDM_Init .. TDM_Finalize");
    if (comm == MPI_COMM_NULL)
        return tdm_error(fn, MPI_ERR_COMM, "comm is MPI_COMM_NULL (argument comm)");
    int p;
    int rc = MPI_Comm_size(comm, &p);
    if (rc != MPI_SUCCESS)
        return tdm_mpi_error(fn, "MPI_Comm_size(comm)", rc);
    if (!(bytes >= 0))
        return tdm_error(fn, MPI_ERR_ARG, "bytes is %g; expected 0 or more (argument bytes)", bytes);
    tdm_cpu_costs costs = {tdm_global.loggp.gamma, 0, 0, TDM_DEFAULT_EAGER_LIMIT};
    tdm_cpu_estimate e;
    rc = tdm_select_estimate(collective, NULL, p, tdm_node_size(), bytes, &tdm_global.loggp, NULL, NULL, &costs, NULL, &e);
    if (rc == MPI_ERR_ARG && tdm_select_kind(collective) < 0)
        return tdm_error(fn, rc, "collective '%s' is not one the model knows (argument collective)", collective);
    if (rc != MPI_SUCCESS)
        return tdm_error(fn, rc, "bytes %g: %s (argument bytes)", bytes,
                         rc == MPI_ERR_COUNT ? "more than INT_MAX elements" : "cannot be costed (below one element?)");
    *latency = e.latency, *cpu = e.most;
    return MPI_SUCCESS;
}

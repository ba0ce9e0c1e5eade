#include "select_estimate.h"

#include "../base/state.h"
#include "select.h"

#include <stdlib.h>
#include <string.h>

int tdm_select_estimate(const char *collective, const char *algorithm, int p, int per_node, double bytes,
                        const tdm_loggp *m, const tdm_torus *torus, const tdm_loggp_params *table, const tdm_cpu_costs *costs,
                        tdm_rank_work *work, tdm_cpu_estimate *out)
{
    memset(out, 0, sizeof *out);
    int known = tdm_select_kind(collective);
    if (known < 0)
        return MPI_ERR_ARG;
    if (torus && tdm_torus_ranks(torus) != p)
        return MPI_ERR_ARG;
    tdm_call_args c;
    int rc = tdm_call_args_init(&c, (tdm_coll_kind)known, p, bytes, m);
    if (rc != MPI_SUCCESS)
        return rc;
    if (torus) { /* the network's torus, not the grid */
        c.a.torus_ndims = torus->ndims;
        memcpy(c.a.torus_dims, torus->dims, sizeof c.a.torus_dims);
        c.a.torus_network = 1;
    }
    /* the lanes the library builds the call in (the torus bucket's chains: TANDEM_BUCKET_CHAINS, else by
     * size on the network's torus), each with its messages */
    c.a.bucket_chains = tdm_global.bucket_chains;
    tdm_comm_nodes *nodes = NULL; /* as the library lays out a communicator whose ranks share nodes */
    if (per_node > 1 && p > 1) {
        int on_node = per_node < p ? per_node : p;
        if (!(nodes = tdm_comm_nodes_blocked(p, on_node, tdm_shm_cell_bytes(TDM_SHM_DEFAULT_BYTES, on_node)))) {
            tdm_call_args_free(&c);
            return MPI_ERR_NO_MEM;
        }
        c.a.nodes = nodes;
    }
    const tdm_algorithm *alg = algorithm ? tdm_select_named(collective, algorithm) : tdm_select(&c.a);
    if (alg) {
        int per_thread;
        c.a.lanes = tdm_select_lanes(alg, &c.a, TDM_MAX_LANES, &per_thread);
        if ((alg->needs & TDM_NEEDS_NODES) && !c.a.nodes)
            rc = MPI_ERR_ARG; /* a node-aware algorithm, every rank alone on its node */
        else if (alg->needs & TDM_NEEDS_NODES)
            tdm_select_across_nodes(&c.a);
        if (rc == MPI_SUCCESS)
            rc = tdm_cpu_estimate_of(&c, alg->build, bytes, m, torus, table, costs, work, out);
    } else {
        rc = MPI_ERR_ARG;
    }
    out->algorithm = algorithm ? algorithm : alg ? alg->name : NULL;
    tdm_call_args_free(&c);
    free(nodes);
    return rc;
}

/*
 * The torus the ranks of a communicator form, for the torus_bucket algorithms: the communicator's
 * Cartesian topology when it has one (MPI_Cart_create), else TANDEM_TORUS_DIMS (such as 16x16x16, if
 * its product is the communicator's size), else a balanced 2-D factorization (MPI_Dims_create).
 * Only TANDEM_TORUS_DIMS says that the network itself is that torus (an application's Cartesian
 * topology describes its data, not its links), so only then does selection count on 2N links.
 */
#include "select.h"

#include "../base/error.h"
#include "../model/collective_costs.h"

#include <stdlib.h>
#include <string.h>

static tdm_torus env_torus; /* TANDEM_TORUS_DIMS; ndims 0 if unset */

int tdm_torus_init_from_env(const char *fn)
{
    memset(&env_torus, 0, sizeof env_torus);
    const char *text = getenv("TANDEM_TORUS_DIMS");
    if (text && *text && !tdm_torus_parse(text, &env_torus))
        return tdm_error(fn, MPI_ERR_ARG, "TANDEM_TORUS_DIMS=%s: expected dimension lengths such as 16x16x16", text);
    return MPI_SUCCESS;
}

/* SMPI has no MPI_Topo_test: simulated runs name their torus with TANDEM_TORUS_DIMS. */
static int is_cartesian(MPI_Comm comm)
{
#ifdef TANDEM_SMPI
    (void)comm;
    return 0;
#else
    int status = MPI_UNDEFINED;
    return MPI_Topo_test(comm, &status) == MPI_SUCCESS && status == MPI_CART;
#endif
}

void tdm_torus_of(MPI_Comm comm, tdm_coll_args *a)
{
    int nd = 0;
    a->torus_ndims = 0;
    if (is_cartesian(comm) &&
        MPI_Cartdim_get(comm, &nd) == MPI_SUCCESS && nd >= 1 && nd <= TDM_TORUS_MAX_DIMS) {
        int periods[TDM_TORUS_MAX_DIMS], coords[TDM_TORUS_MAX_DIMS];
        if (MPI_Cart_get(comm, nd, a->torus_dims, periods, coords) == MPI_SUCCESS) {
            a->torus_ndims = nd;
            return;
        }
    }
    if (env_torus.ndims > 0 && tdm_torus_ranks(&env_torus) == a->size) {
        a->torus_network = 1;
        a->torus_ndims = env_torus.ndims;
        memcpy(a->torus_dims, env_torus.dims, sizeof(int) * (size_t)env_torus.ndims);
        return;
    }
    a->torus_dims[0] = a->torus_dims[1] = 0;
    if (MPI_Dims_create(a->size, 2, a->torus_dims) == MPI_SUCCESS)
        a->torus_ndims = 2;
}

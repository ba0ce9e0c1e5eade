/*
 * The model's cost of what selection would run: the call described as the model describes it
 * (model/call_args.h), the algorithm selection picks (or the one named), built in the lanes the library
 * builds it in, costed by the model (model/cpu_overhead.h). The model costs; selection chooses; this is
 * where the two meet, for TDM_Model_estimate, tandem-model and tandem-bench.
 */
#ifndef TANDEM_SELECT_ESTIMATE_H
#define TANDEM_SELECT_ESTIMATE_H

#include "../model/cpu_overhead.h"

/* The collective named ("allreduce") on p ranks with `bytes` (as tdm_call_args_init takes them), by
 * `algorithm` ("ring"; NULL: selection's choice for the call), on nodes of per_node consecutive ranks
 * (1: every rank alone on its node), on the torus (NULL: a 2-D grid), with the
 * table, costs and work of tdm_cpu_estimate_of. out->algorithm names the algorithm costed. MPI_ERR_ARG
 * for an unknown collective or an algorithm it does not have; else as tdm_call_args_init and
 * tdm_cpu_estimate_of. */
int tdm_select_estimate(const char *collective, const char *algorithm, int p, int per_node, double bytes,
                        const tdm_loggp *m, const tdm_torus *torus, const tdm_loggp_params *table, const tdm_cpu_costs *costs,
                        tdm_rank_work *work, tdm_cpu_estimate *out);

#endif

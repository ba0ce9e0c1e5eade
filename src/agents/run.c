#include "run.h"

static void no_hook(tdm_run *whole) { (void)whole; }

tdm_agent_hooks tdm_run_hooks = {no_hook};

void tdm_agents_set_hooks(const tdm_agent_hooks *hooks) { tdm_run_hooks = *hooks; }

tdm_run *tdm_run_lanes_finished(tdm_run *run)
{
    tdm_run *whole = run->lane_parent ? run->lane_parent : run;
    return __atomic_sub_fetch(&whole->lanes_running, 1, __ATOMIC_ACQ_REL) == 0 ? whole : NULL;
}

int tdm_run_bind_comm_slow(tdm_run *run)
{
    tdm_exec *e = &run->exec;
    int error = MPI_SUCCESS;
    if (run->prelude) {
        if (!run->prelude(run, &error) && error == MPI_SUCCESS)
            return 0;
        run->prelude = NULL;
        if (error != MPI_SUCCESS)
            tdm_exec_fail(e, error);
    }
    if (!tdm_shadow_ready(run->shadow, &error)) {
        if (error == MPI_SUCCESS)
            return 0;
        tdm_exec_fail(e, error);
    }
    e->tag_base = run->shadow->tag_base;
    e->peers = run->shadow->peers;
    e->bulk = run->shadow->bulk;
    /* A persistent request on its own tag may start in an order of each rank's own: its node-aware
     * steps go as messages, since rings admit calls in the order they start (shm_ring.h). */
    e->shm = run->tag_hold.fixed_tag ? NULL : run->shadow->shm;
    e->comm = run->shadow->comm;
    return 1;
}

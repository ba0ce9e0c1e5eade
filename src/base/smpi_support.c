/* The parts of Tandem's SMPI support that keep state (see smpi_support.h); empty in other builds. */
#include "smpi_support.h"

#include "state.h"

#ifdef TANDEM_SMPI
#include <simgrid/actor.h>
#include <string.h>

void tdm_smpi_leave(void)
{
    sg_actor_exit();
    exit(0); /* not reached */
}

int tdm_smpi_timing_only(void)
{
    static int cached = -1; /* per rank: SMPI privatizes globals */
    if (cached < 0) {
        const char *env = getenv("TANDEM_SMPI_TIMING_ONLY");
        cached = env && *env && strcmp(env, "0") != 0;
    }
    return cached;
}

int tdm_smpi_charge_copy(MPI_Aint bytes)
{
    static double ns_per_byte = -1; /* per rank: SMPI privatizes globals */
    if (ns_per_byte < 0) {
        const char *env = getenv("TANDEM_SMPI_COPY_NS_PER_BYTE");
        ns_per_byte = env && *env ? atof(env) : 0;
        if (ns_per_byte < 0)
            ns_per_byte = 0;
    }
    if (ns_per_byte > 0 && bytes > 0)
        smpi_execute_benched((double)bytes * ns_per_byte * 1e-9);
    return tdm_smpi_timing_only() && bytes >= TDM_SMPI_EXACT_BELOW;
}

int tdm_smpi_charge_shm_copy(size_t bytes)
{
    if (bytes > 0)
        smpi_execute_benched((double)bytes * tdm_loggp_shm_beta(&tdm_global.loggp));
    return tdm_smpi_timing_only() && bytes >= TDM_SMPI_EXACT_BELOW;
}

double tdm_smpi_now(void) { return MPI_Wtime(); }

void tdm_smpi_shm_seen(double published_at)
{
    double late = published_at + tdm_loggp_shm_flag(&tdm_global.loggp) - MPI_Wtime();
    if (late > 0)
        smpi_execute_benched(late);
}

void tdm_smpi_shm_poll(double waited)
{
    double slice = tdm_loggp_shm_flag(&tdm_global.loggp) / 4;
    smpi_execute_benched(waited / 256 > slice ? waited / 256 : slice);
}

/* The shared temporaries this rank holds: few (a schedule's data buffers), so a plain list. */
static void **shared;
static int nshared, shared_cap;

void *tdm_smpi_shared_temp_alloc(size_t bytes)
{
    if (bytes < TDM_SMPI_SHARED_FROM || !tdm_smpi_timing_only())
        return NULL;
    if (nshared == shared_cap) {
        int cap = shared_cap ? 2 * shared_cap : 16;
        void **grown = realloc(shared, sizeof *grown * (size_t)cap);
        if (!grown)
            return NULL;
        shared = grown, shared_cap = cap;
    }
    void *p = SMPI_SHARED_MALLOC(bytes);
    if (p)
        shared[nshared++] = p;
    return p;
}

int tdm_smpi_shared_temp_free(void *p)
{
    for (int i = 0; i < nshared; i++)
        if (shared[i] == p) {
            SMPI_SHARED_FREE(p);
            shared[i] = shared[--nshared];
            return 1;
        }
    return 0;
}
#else
typedef int tdm_smpi_support_unused; /* ISO C: no empty translation unit */
#endif

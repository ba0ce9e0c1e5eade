/*
 * Tandem inside SimGrid's SMPI (built with -DTANDEM_SMPI=ON, compiled by smpicc): the few places where
 * the simulated MPI asks for something else than a real one. SMPI runs every rank of the simulation in
 * one process, each rank in its own dlopen'ed copy of the program (Tandem linked statically into it),
 * and has no threads.
 */
#ifndef TANDEM_SMPI_SUPPORT_H
#define TANDEM_SMPI_SUPPORT_H

#include <mpi.h>
#include <stdlib.h>

#ifdef TANDEM_SMPI
#include <smpi/smpi.h>

/* Simulated ranks run one at a time and every MPI_Test costs simulated time (smpi/test): waits block in
 * MPI_Waitany instead of polling. */
#define TDM_SIMULATED 1

/* Timing-only runs (TANDEM_SMPI_TIMING_ONLY=1, which sim/run sets): nothing checks the data, so large
 * temporaries are SMPI's shared malloc (one physical block for all ranks, and SMPI does not copy
 * messages between such blocks) and reductions are charged but not computed. Thousands of ranks then
 * fit in memory and simulate fast; results are garbage, but for copies and reductions of fewer than
 * TDM_SMPI_EXACT_BELOW bytes, which are done: control data (the count of segments the dedicated
 * collective processes agree on) must be exact, and they cost the simulation nothing. */
int tdm_smpi_timing_only(void);
#define TDM_SMPI_EXACT_BELOW 1024

/* SMPI charges nothing for MPI_Reduce_local: Tandem charges its reductions itself, one flop per byte
 * reduced, so the simulated host's speed (flops per second) is 1/gamma. Returns 1 if the reduction is
 * not to be computed (timing-only runs). */
static inline int tdm_smpi_charge_reduction(double count, MPI_Datatype type)
{
    int type_size = 0;
    MPI_Type_size(type, &type_size);
    smpi_execute_flops_benched(count * type_size);
    return tdm_smpi_timing_only() && count * type_size >= TDM_SMPI_EXACT_BELOW;
}

/* SMPI charges no host time for a local copy. TANDEM_SMPI_COPY_NS_PER_BYTE=c charges c ns per byte
 * copied (memory bandwidth 1/c GB/s), so that algorithms that stage data pay for it; unset, copies are
 * free. Returns 1 if the copy is not to be done: timing-only runs copy nothing in process but short
 * copies (writing shared blocks page-faults: the copies of a 512-rank bucket allreduce took a third of
 * its run). */
int tdm_smpi_charge_copy(MPI_Aint bytes);

/* Timing-only runs: a temporary of TDM_SMPI_SHARED_FROM bytes or more is shared (only data temporaries
 * are that large; index arrays of p entries stay below it up to 8191 ranks). NULL: allocate it
 * normally. tdm_smpi_shared_temp_free frees p and returns 1 if it was one. */
#define TDM_SMPI_SHARED_FROM (64 * 1024)
void *tdm_smpi_shared_temp_alloc(size_t bytes);
int tdm_smpi_shared_temp_free(void *p);

/* Simulated computation (benchmarks): `seconds` of simulated time on this rank's host. */
static inline void tdm_smpi_execute(double seconds)
{
    if (seconds > 0)
        smpi_execute_benched(seconds);
}

/* The simulated segment (engine/node.h). SMPI's ranks share one address space, and its
 * MPI_Win_allocate_shared gives a host's ranks real shared memory: the cells are filled and read for
 * real, and what they would cost is charged from the model's shared-memory parameters (TANDEM_LOGGP's
 * shm_flag and shm_beta), as tandem-model costs them:
 * - a byte into or out of a cell, shm_beta (returns 1 if the copy is not to be done: timing-only runs
 *   copy only short ones, as tdm_smpi_charge_copy);
 * - a published cell, seen by a reader shm_flag after its publication (tdm_smpi_now at the writer);
 * - a poll that finds nothing: a slice of simulated time, so that the ranks that fill the cells run
 *   (simulated ranks run one at a time, and only until they take simulated time). The slice grows with
 *   the wait (`waited` seconds since the rank's calls last moved): shm_flag / 4, or 1/256 of the wait
 *   if more, so that a long wait costs a few thousand polls and is seen late by at most that share. */
int tdm_smpi_charge_shm_copy(size_t bytes);
double tdm_smpi_now(void);
void tdm_smpi_shm_seen(double published_at);
void tdm_smpi_shm_poll(double waited);

/* Buffers whose content does not matter (a benchmark's): in simulation every rank's are one physical
 * block (SMPI's shared malloc), so thousands of ranks fit in memory. */
/* A rank leaves the program with status 0 after MPI_Finalize (a dedicated collective process): in SMPI
 * every rank lives in one process, so only its actor ends. */
void tdm_smpi_leave(void) __attribute__((noreturn));

static inline void *tdm_smpi_scratch_alloc(size_t bytes) { return SMPI_SHARED_MALLOC(bytes ? bytes : 1); }
static inline void tdm_smpi_scratch_free(void *p) { SMPI_SHARED_FREE(p); }

/* Thread-local storage of the initial-exec model lives in a static block that hundreds of dlopen'ed
 * copies of the program exhaust: under SMPI thread-locals take the general model. */
#define TDM_TLS_INITIAL_EXEC
#else
#define TDM_SIMULATED 0
static inline int tdm_smpi_charge_reduction(double count, MPI_Datatype type) { return (void)count, (void)type, 0; }
static inline int tdm_smpi_charge_copy(MPI_Aint bytes) { return (void)bytes, 0; }
static inline void *tdm_smpi_shared_temp_alloc(size_t bytes) { return (void)bytes, NULL; }
static inline int tdm_smpi_shared_temp_free(void *p) { return (void)p, 0; }
static inline void tdm_smpi_execute(double seconds) { (void)seconds; }
static inline int tdm_smpi_charge_shm_copy(size_t bytes) { return (void)bytes, 0; }
static inline double tdm_smpi_now(void) { return 0; }
static inline void tdm_smpi_shm_seen(double published_at) { (void)published_at; }
static inline void tdm_smpi_shm_poll(double waited) { (void)waited; }
static inline __attribute__((noreturn)) void tdm_smpi_leave(void) { exit(0); }
static inline void *tdm_smpi_scratch_alloc(size_t bytes) { return calloc(bytes ? bytes : 1, 1); }
static inline void tdm_smpi_scratch_free(void *p) { free(p); }
#define TDM_TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#endif

/* Every rank's int over comm, in rank order (MPI_Allgather of one MPI_INT). In simulation not through
 * MPI_Allgather: SMPI's default one (SimGrid 3.32, no --selector) is linear, p(p-1) small sends in flight
 * at once, all detached (eager), and the completion of each walks SimGrid's list of every detached send
 * in flight (EngineImpl's maestro activities_, a std::list), so it costs O(p^4): 128 ranks 3 s, 160 ranks
 * 80 s, 256 ranks beyond 10 minutes. A gather to rank 0 (p - 1 messages) and a binomial broadcast take
 * O(p^2) at worst. */
static inline int tdm_allgather_int(int mine, int *all, MPI_Comm comm)
{
    if (!TDM_SIMULATED)
        return MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm);
    int size, rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, comm);
    MPI_Comm_size(comm, &size);
    return rc == MPI_SUCCESS ? MPI_Bcast(all, size, MPI_INT, 0, comm) : rc;
}

#endif

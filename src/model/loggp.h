/*
 * The machine's LogGP parameters for the model: alpha (seconds per message), beta (seconds per byte on
 * a link) and gamma (seconds per byte reduced), and optionally the latency that messages started at
 * once share (tdm_loggp.latency; not measured: 0 unless given). Built-in defaults, or what
 * `tandem-model loggp` measured and saved (TANDEM_LOGGP=file), or given inline
 * (TANDEM_LOGGP=alpha,beta,gamma[,latency]).
 */
#ifndef TANDEM_LOGGP_H
#define TANDEM_LOGGP_H

#include "collective_costs.h"

#include <mpi.h>
#include <stdio.h>

/* Shared-memory values of a current x86 node (2 ranks, Open MPI 4.1 and MPICH 4.0 on Debian 12):
 * a large message's start-up is a rendezvous of a few microseconds. */
#define TDM_LOGGP_DEFAULT_ALPHA 3e-6
#define TDM_LOGGP_DEFAULT_BETA 1e-10
#define TDM_LOGGP_DEFAULT_GAMMA 1.5e-10

tdm_loggp tdm_loggp_defaults(void);
/* From a file written by tdm_loggp_write or from "alpha,beta,gamma[,latency]"; 0 if malformed (latency
 * must lie in 0 .. alpha). */
int tdm_loggp_parse_setting(const char *setting, tdm_loggp *m);
/* The latency a round's messages share is part of a message's start-up: 0 to alpha. */
static inline int tdm_loggp_latency_valid(const tdm_loggp *m) { return m->latency >= 0 && m->latency <= m->alpha; }
int tdm_loggp_write(FILE *out, const tdm_loggp *m, const char *how);

/*
 * gamma: rank 0's MPI_Reduce_local time per byte of MPI_SUM over doubles (16 MiB), the median of reps;
 * every rank of comm gets it (collective). 0 when out of memory. Alpha and beta come from LogGP's
 * parameters (loggp_prtt.h).
 */
double tdm_loggp_measure_gamma(MPI_Comm comm, int reps);
/*
 * shm_flag and shm_beta (tdm_loggp): rank 0 and another rank of its node, if there is one, through a
 * segment of MPI_Win_allocate_shared: half the round trip of a flag, and the time per byte of 64 KiB
 * copied in by one and out by the other, medians of reps (collective). 0 (m untouched) where rank 0
 * shares its node with no other rank.
 */
int tdm_loggp_measure_shm(MPI_Comm comm, int reps, tdm_loggp *m);

#endif

/*
 * LogGP's parameters measured between two ranks the way Netgauge does (Hoefler, Lichei and Rehm,
 * "Low-overhead LogGP parameter assessment for modern interconnection networks", 2007), from
 * parametrized round trips: PRTT(n, d, s) is the time rank 0 takes to send n messages of s bytes, with
 * d seconds of busy computation after each but the last, and to receive rank 1's reply of s bytes,
 * which rank 1 sends once it received the n messages. With n large enough:
 *
 *   gap(s) = g + (s - 1) G = (PRTT(n, 0, s) - PRTT(1, 0, s)) / (n - 1)      a train's time per message
 *   o_s(s)                 = (PRTT(n, d, s) - PRTT(1, 0, s)) / (n - 1) - d  with d > gap(s): the sender's
 *                                                                            CPU time per message
 *   o_r(s): rank 1's time in MPI_Irecv and MPI_Test for a message that arrived while it computed
 *   L      = PRTT(1, 0, 1) / 2 - o_s(1) - o_r(1)                            a byte's one way, less the CPUs'
 *   g      = gap(1);  G = the least-squares slope of gap(s) over the sizes from 256 KiB up
 *
 * Over MPI, a train's messages are MPI_Isend, completed together after the last (as a schedule's are),
 * and a receive an MPI_Irecv completed by MPI_Test, as Tandem's engine completes them: o_s(s) and o_r(s) are the times the CPUs spend on a
 * message that computation cannot hide (posting it, a copy in shared memory, progress a rendezvous
 * needs), its transfer being free to overlap the computation. Timed intervals leave out the clock's own
 * cost (clock_cost.h) and the computation's overshoot of d: both are as large as a small message's o.
 */
#ifndef TANDEM_LOGGP_PRTT_H
#define TANDEM_LOGGP_PRTT_H

#include "../base/loggp_params.h"

#include <mpi.h>
#include <stdio.h>

#define TDM_LOGGP_MAX_SIZES 32
#define TDM_LOGGP_MAX_TRAIN 64

/* A median and its spread (the interquartile range) over the repetitions. */
typedef struct tdm_measured {
    double median, spread;
} tdm_measured;

/* What was measured at one message size. */
typedef struct tdm_loggp_size {
    double bytes;
    tdm_measured rtt;  /* PRTT(1, 0, s) */
    tdm_measured gap;  /* g + (s - 1) G */
    tdm_measured o_s, o_r;
} tdm_loggp_size;

typedef struct tdm_loggp_params {
    double L, o_s, o_r, g, G;   /* seconds, seconds per byte (G) */
    int nsizes;
    tdm_loggp_size size[TDM_LOGGP_MAX_SIZES];
} tdm_loggp_params;

/* The sizes measured unless told: 1 B to 4 MiB, by factors of 4. */
int tdm_loggp_default_sizes(double *sizes);

/* Measures between ranks 0 and 1 of comm (the others wait) at each of the n sizes (bytes, ascending,
 * the first 1 for L and g, at most TDM_LOGGP_MAX_SIZES), medians of reps repetitions of trains of
 * `train` messages; every rank gets the result. Collective over comm, which needs two ranks or more.
 * MPI_ERR_ARG for bad arguments, MPI_ERR_NO_MEM. */
int tdm_loggp_prtt_measure(MPI_Comm comm, int reps, int train, const double *sizes, int n, tdm_loggp_params *p);

/* The model's alpha, beta and latency from them (gamma left alone): beta = G; alpha the start-up of a
 * large message, half the round trip of the size nearest 256 KiB less its bytes times G (at least half
 * a byte's round trip); latency L (at most alpha). */
void tdm_loggp_from_prtt(const tdm_loggp_params *p, tdm_loggp *m);

/* Text (the parameters, then a table of the sizes) and JSON. */
int tdm_loggp_prtt_write(FILE *out, const tdm_loggp_params *p);
/* Reads what tdm_loggp_prtt_write wrote (in a file of tandem-model loggp --save, among other lines): 1
 * if it found the five parameters and one size or more, else 0. */
int tdm_loggp_prtt_read(FILE *in, tdm_loggp_params *p);
int tdm_loggp_prtt_write_json(FILE *out, const tdm_loggp_params *p, const tdm_loggp *m);

#endif

/*
 * What reading MPI_Wtime costs. A region timed between two MPI_Wtime calls also counts one call's
 * worth of the clock itself (what the first does after it read the clock, and the second before):
 * some 25 ns here, a tenth of a small message's CPU time. Measurements of sub-microsecond CPU times
 * (a message's o_s and o_r, a test call) subtract it.
 */
#ifndef TANDEM_CLOCK_COST_H
#define TANDEM_CLOCK_COST_H

/* Seconds per MPI_Wtime call: the least of 7 runs of 1000 calls back to back. Local; MPI initialized. */
double tdm_wtime_cost(void);

#endif

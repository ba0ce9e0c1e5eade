/*
 * User-defined ops in use by Tandem's calls in flight. MPI lets a program free an op while
 * collectives that use it are pending; Tandem applies the op later, from its schedules, so the free
 * waits for the last such call (TDM_Op_free, and the interposer's MPI_Op_free).
 */
#ifndef TANDEM_OP_HOLD_H
#define TANDEM_OP_HOLD_H

#include <mpi.h>

/* A call starts using a user op; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int tdm_op_hold(MPI_Op op);
/* A call is done with it: frees it if the program already asked to. */
void tdm_op_release(MPI_Op op);
/* The program frees op: now if no call uses it, else when the last one ends. */
int tdm_op_free(MPI_Op op);
/* TDM_Finalize: frees the ops whose free was deferred (every call is over by then). */
void tdm_op_hold_finalize(void);

#endif

/* Which predefined reduction ops apply to which datatypes: MPI-3.1 section 5.9.2, and what the MPI in
 * use accepts beyond it. */
#ifndef TANDEM_OP_RULES_H
#define TANDEM_OP_RULES_H

#include <mpi.h>

/* MPI_SUCCESS if op may reduce type: the standard defines the pair, or the MPI underneath accepts it.
 * Else the error class (MPI_ERR_OP, or the one the MPI gave) with the mismatch described in why, or the
 * error of a failed datatype query with why left empty. User-defined ops accept every type. For a
 * predefined op on a derived datatype, *basic is the predefined type it repeats; else
 * MPI_DATATYPE_NULL. */
int tdm_op_check(MPI_Op op, MPI_Datatype type, MPI_Datatype *basic, char *why, int why_len);
void tdm_op_rules_init(void);
/* 1 for MPI's predefined ops (all commutative). */
int tdm_op_is_predefined(MPI_Op op);
const char *tdm_op_name(MPI_Op op);

#endif

/*
 * The program's user-defined ops: MPI lets it free one while collectives that apply it are pending,
 * and Tandem applies it later, from its schedules; the free waits for the last of those calls.
 */
#include "interpose.h"

#include "../core/op_hold.h"
#include "../core/op_rules.h"

int MPI_Op_free(MPI_Op *op)
{
    if (!op || *op == MPI_OP_NULL || tdm_op_is_predefined(*op) || tdm_ip_mode_now() == TDM_IP_OFF)
        return PMPI_Op_free(op); /* nothing of Tandem's uses it; MPI reports bad arguments its way */
    int rc = tdm_op_free(*op);
    if (rc == MPI_SUCCESS)
        *op = MPI_OP_NULL;
    return rc;
}

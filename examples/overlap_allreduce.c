/* The README's example: start an allreduce, compute, wait. Prints the result on rank 0. */
#include <stdio.h>
#include <tandem.h>

int main(int argc, char **argv)
{
    TDM_Init(&argc, &argv);                      /* initializes MPI if needed */
    double local[1024], global[1024];
    for (int i = 0; i < 1024; i++) local[i] = i;
    TDM_Request req;
    TDM_Iallreduce(local, global, 1024, MPI_DOUBLE, MPI_SUM, TDM_Comm_world(), &req);
    /* ... computation that does not touch local/global ... */
    TDM_Wait(&req, MPI_STATUS_IGNORE);           /* or TDM_Test in the compute loop */
    int rank, size;
    MPI_Comm_rank(TDM_Comm_world(), &rank);
    MPI_Comm_size(TDM_Comm_world(), &size);
    if (rank == 0)
        printf("global[1023] = %g (expected %g)\n", global[1023], 1023.0 * size);
    TDM_Finalize();                              /* finalizes MPI if TDM_Init did */
    return global[1023] == 1023.0 * size ? 0 : 1;
}

/* test-cost: what one MPI_Testsome costs while k receives are pending (none of them completes), for
 * k = 1 .. 512: its time and the time per pending request, the fastest of 7 rounds of 2000 calls. The
 * simulated platforms charge a poll per request tested (sim/make-platform --poll): this is the number
 * to give them. Rank 1 sends the k messages once rank 0 is done. Run: mpirun -np 2 --bind-to core test-cost */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "test-cost: run it on 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int pending[] = {1, 8, 32, 128, 512};
    if (rank == 0) printf("%8s %14s %20s\n", "pending", "testsome ns", "per request ns");
    for (int c = 0; c < 5; c++) {
        int k = pending[c], outcount, go = 0;
        int *buf = calloc((size_t)k, sizeof *buf), *indices = malloc((size_t)k * sizeof *indices);
        MPI_Request *requests = malloc((size_t)k * sizeof *requests);
        MPI_Status *statuses = malloc((size_t)k * sizeof *statuses);
        if (rank == 0) {
            for (int i = 0; i < k; i++) MPI_Irecv(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &requests[i]);
            double best = 1e9;
            for (int round = 0; round < 7; round++) {
                double t = MPI_Wtime();
                for (int n = 0; n < 2000; n++) MPI_Testsome(k, requests, &outcount, indices, statuses);
                t = (MPI_Wtime() - t) / 2000;
                best = t < best ? t : best;
            }
            printf("%8d %14.1f %20.2f\n", k, best * 1e9, best * 1e9 / k);
            MPI_Send(&go, 1, MPI_INT, 1, k, MPI_COMM_WORLD);
            MPI_Waitall(k, requests, statuses);
        } else {
            MPI_Recv(&go, 1, MPI_INT, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < k; i++) MPI_Send(&buf[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD);
        }
        free(buf), free(indices), free(requests), free(statuses);
    }
    MPI_Finalize();
    return 0;
}

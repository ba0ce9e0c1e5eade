/* p2p-floor: the floor of any schedule engine over MPI point-to-point for an 8-byte bcast and
 * allreduce on 2 ranks: the bare Isend/Irecv/Wait pattern against MPI_Bcast / MPI_Allreduce,
 * interleaved, median of 9 repetitions. Run: mpirun -np 2 --bind-to core p2p-floor */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
    double in = 1, out, t[4][9]; int n = 20000;
    for (int rep = 0; rep < 9; rep++) {
        for (int m = 0; m < 4; m++) {
            MPI_Barrier(MPI_COMM_WORLD); double t0 = MPI_Wtime();
            for (int i = 0; i < n; i++) {
                MPI_Request q[2];
                MPI_Status st[2];
                if (m == 0) MPI_Bcast(&out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                else if (m == 1) { if (r == 0) { MPI_Isend(&in, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, q); MPI_Wait(q, MPI_STATUS_IGNORE); } else { MPI_Irecv(&out, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, q); MPI_Wait(q, MPI_STATUS_IGNORE); } }
                else if (m == 2) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                else { MPI_Irecv(&out, 1, MPI_DOUBLE, 1 - r, 0, MPI_COMM_WORLD, &q[0]); MPI_Isend(&in, 1, MPI_DOUBLE, 1 - r, 0, MPI_COMM_WORLD, &q[1]); MPI_Waitall(2, q, st); out += in; }
            }
            double mine = (MPI_Wtime() - t0) / n; MPI_Allreduce(&mine, &t[m][rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
    }
    for (int m = 0; m < 4; m++) qsort(t[m], 9, sizeof(double), cmp);
    if (!r) printf("bcast: MPI_Bcast %.0f ns, bare Isend/Irecv+Wait %.0f ns (%.2fx)\nallreduce: MPI_Allreduce %.0f ns, bare Irecv+Isend+Waitall %.0f ns (%.2fx)\n",
        t[0][4]*1e9, t[1][4]*1e9, t[1][4]/t[0][4], t[2][4]*1e9, t[3][4]*1e9, t[3][4]/t[2][4]);
    MPI_Finalize();
}

/*
 * Tandem's torus neighbours are the platform's: on a torus written by sim/make-platform and named to
 * Tandem by TANDEM_TORUS_DIMS, rank 0 and its neighbour along each dimension, either way round (the
 * bucket algorithms' rings), are one link apart. A round trip of empty messages between neighbours
 * takes 2 link latencies, or 3 (SimGrid 3.32's torus routes add one on most neighbour paths: measured
 * 2 only along +1 of its first dimension); a peer h >= 2 hops away takes at least 2h = 4.
 *
 *   test_torus_hops <alpha>   (the platform's link latency, seconds)
 */
#include "harness.h"

#include "../../src/model/collective_costs.h"

#include <stdlib.h>

static double round_trip(int peer)
{
    double t0 = MPI_Wtime();
    MPI_Send(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    harness_init("test_torus_hops", &argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double alpha = argc > 1 ? atof(argv[1]) : 0;
    tdm_torus torus;
    const char *dims = getenv("TANDEM_TORUS_DIMS");
    check(alpha > 0 && dims && tdm_torus_parse(dims, &torus) != 0 && tdm_torus_ranks(&torus) == size,
          "usage: TANDEM_TORUS_DIMS naming the %d ranks, and the link latency as argument", size);
    if (harness_failures == 0) {
        int stride = 1; /* row-major, as MPI_Cart and the bucket algorithms number ranks */
        for (int i = torus.ndims - 1; i >= 0; i--) {
            int d = torus.dims[i];
            int peers[2] = {stride, (d - 1) * stride}; /* coordinate +1, and -1 around the ring */
            for (int k = 0; k < (d > 2 ? 2 : d > 1 ? 1 : 0); k++) {
                double rtt = 0;
                if (rank == 0)
                    rtt = round_trip(peers[k]);
                else if (rank == peers[k]) {
                    MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
                if (rank == 0)
                    check(rtt < 3.5 * alpha, "dimension %d (length %d): rank %d is %.1f link latencies from rank 0 each way", i, d,
                          peers[k], rtt / (2 * alpha));
                MPI_Barrier(MPI_COMM_WORLD);
            }
            stride *= d;
        }
    }
    return harness_finish();
}

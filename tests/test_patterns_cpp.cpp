// The overlap patterns' C++ front: lambdas for the computation and the consumer, against MPI's own
// allgather and alltoallv; a lambda's exception thrown again from run(); a bad spec thrown as
// tandem::Error with its MPI error class.
#include "harness.h"
#include "tandem_patterns.hpp"

#include <cstring>
#include <vector>

static int value(int src, int item, int dest) { return src * 1000 + item * 10 + dest + 1; }

int main(int argc, char **argv)
{
    harness_init("test_patterns_cpp", &argc, &argv);
    MPI_Comm comm = harness_world();
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int items = 6;

    // allgather of one double per item, tiles of 4 (the last of 2), window 2
    std::vector<std::vector<double>> got(size);
    TDM_Pattern_spec spec{};
    spec.kind = TDM_PATTERN_ALLGATHER, spec.comm = comm, spec.datatype = MPI_DOUBLE, spec.op = MPI_OP_NULL;
    spec.items = items, spec.item_count = 1, spec.tile = 4, spec.window = 2;
    {
        tandem::Pattern gather(
            spec, [&](int item, void *const out[], int[]) { *static_cast<double *>(out[0]) = value(rank, item, 0); },
            [&](int, int, const void *in, const int counts[], const int displs[]) {
                for (int r = 0; r < size; r++)
                    for (int k = 0; k < counts[r]; k++)
                        got[r].push_back(static_cast<const double *>(in)[displs[r] + k]);
            });
        gather.run();
        std::vector<double> mine(items), want((size_t)size * items);
        for (int i = 0; i < items; i++)
            mine[i] = value(rank, i, 0);
        REFERENCE(MPI_Iallgather, mine.data(), items, MPI_DOUBLE, want.data(), items, MPI_DOUBLE, comm);
        for (int r = 0; r < size; r++)
            check(got[r] == std::vector<double>(want.begin() + (long)r * items, want.begin() + (long)(r + 1) * items),
                  "allgather from rank %d: not MPI's", r);
        check(gather.tile() == 4 && gather.window() == 2, "tile %d window %d, not 4 and 2", gather.tile(), gather.window());
    }

    // alltoallv: item i sends rank d (i + d) % 3 ints; auto tile and window
    std::vector<std::vector<int>> from(size);
    {
        spec.kind = TDM_PATTERN_ALLTOALLV, spec.datatype = MPI_INT, spec.item_count = 2, spec.tile = 0, spec.window = 0;
        auto count_of = [](int item, int dest) { return (item + dest) % 3; };
        tandem::Pattern exchange(
            spec,
            [&](int item, void *const out[], int counts[]) {
                for (int d = 0; d < size; d++) {
                    counts[d] = count_of(item, d);
                    for (int k = 0; k < counts[d]; k++)
                        static_cast<int *>(out[d])[k] = value(rank, item, d);
                }
            },
            [&](int, int, const void *in, const int counts[], const int displs[]) {
                for (int r = 0; r < size; r++)
                    from[r].insert(from[r].end(), static_cast<const int *>(in) + displs[r],
                                   static_cast<const int *>(in) + displs[r] + counts[r]);
            });
        for (int run = 0; run < 2; run++) {
            for (auto &f : from)
                f.clear();
            exchange.run();
            for (int r = 0; r < size; r++) { // what rank r's items sent this rank, as MPI_Alltoallv gives it
                std::vector<int> want;
                for (int i = 0; i < items; i++)
                    want.insert(want.end(), (size_t)count_of(i, rank), value(r, i, rank));
                check(from[r] == want, "alltoallv run %d from rank %d: not what it sent", run, r);
            }
        }
    }

    // a lambda that throws on one rank: run() throws it there, the others complete
    bool thrown = false;
    spec.kind = TDM_PATTERN_ALLGATHER, spec.datatype = MPI_DOUBLE, spec.item_count = 1, spec.tile = 1, spec.window = 1;
    try {
        tandem::Pattern failing(spec, [&](int item, void *const out[], int[]) {
            if (rank == size - 1 && item == 3)
                throw std::range_error("item 3 is out of range");
            *static_cast<double *>(out[0]) = item;
        });
        failing.run();
    } catch (const std::range_error &e) {
        thrown = std::strcmp(e.what(), "item 3 is out of range") == 0;
    }
    check(thrown == (rank == size - 1), "the lambda's exception %s", thrown ? "thrown on the wrong rank" : "lost");

    // a bad spec: tandem::Error with MPI's class and the message naming the field
    spec.window = -1;
    int error_class = MPI_SUCCESS;
    try {
        tandem::Pattern bad(spec, [](int, void *const[], int[]) {});
    } catch (const tandem::Error &e) {
        error_class = e.error_class();
        check(std::strstr(e.what(), "window") != nullptr, "the message does not name window: %s", e.what());
    }
    check(error_class == MPI_ERR_ARG, "a window of -1 gave %d, not MPI_ERR_ARG", error_class);
    return harness_finish();
}

/* tandem-fft3d --check: the same transform by FFTW, the reference users trust (fft3d.h). */
#include "fft3d.h"

#include "../common/app_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef TANDEM_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

MPI_Datatype fft_complex_type = MPI_DATATYPE_NULL;

void fft_types_init(void)
{
    MPI_Type_contiguous(2, MPI_DOUBLE, &fft_complex_type);
    MPI_Type_commit(&fft_complex_type);
}

void fft_types_free(void) { MPI_Type_free(&fft_complex_type); }

/* Elements [first, first + count) of the input, C order: from the file (rank 0 only reads it whole
 * before) or made up. */
static void input_part(const fftw_complex *file, size_t first, size_t count, fftw_complex *to, fft_made_up_fn *made_up)
{
    for (size_t k = 0; k < count; k++)
        if (file) {
            to[k][0] = file[first + k][0], to[k][1] = file[first + k][1];
        } else {
            made_up(first + k, to[k]);
        }
}

static fftw_complex *read_whole(const char *path, size_t elems)
{
    fftw_complex *all = fftw_malloc(elems * sizeof *all);
    FILE *f = fopen(path, "rb");
    size_t got = f && all ? fread(all, sizeof *all, elems, f) : 0;
    if (f)
        fclose(f);
    return got == elems ? all : (fftw_free(all), NULL);
}

#ifdef TANDEM_HAVE_FFTW_MPI
static const char *reference_name = "FFTW's MPI transform (fftw_mpi_plan_dft_3d)";
/* FFTW-MPI's own distribution of the x-planes, the input scattered to it, transformed, gathered back. */
static fftw_complex *reference(const int n[3], const char *in_path, fft_made_up_fn *made_up)
{
    fftw_mpi_init();
    ptrdiff_t local_n0, local_0_start;
    ptrdiff_t alloc = fftw_mpi_local_size_3d(n[0], n[1], n[2], app_comm, &local_n0, &local_0_start);
    fftw_complex *data = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    fftw_plan plan = fftw_mpi_plan_dft_3d(n[0], n[1], n[2], data, data, app_comm, FFTW_FORWARD, FFTW_ESTIMATE);
    size_t plane = (size_t)n[1] * (size_t)n[2], elems = (size_t)n[0] * plane;
    int mine[2] = {(int)((size_t)local_n0 * plane), (int)((size_t)local_0_start * plane)};
    int *parts = malloc((size_t)app_size * 2 * sizeof *parts), counts[app_size], displs[app_size];
    MPI_Allgather(mine, 2, MPI_INT, parts, 2, MPI_INT, app_comm);
    for (int r = 0; r < app_size; r++)
        counts[r] = parts[2 * r], displs[r] = parts[2 * r + 1];
    free(parts);
    fftw_complex *whole = app_rank == 0 ? fftw_malloc(elems * sizeof *whole) : NULL;
    if (in_path) {
        fftw_complex *file = app_rank == 0 ? read_whole(in_path, elems) : NULL;
        MPI_Scatterv(file, counts, displs, fft_complex_type, data, mine[0], fft_complex_type, 0, app_comm);
        fftw_free(file);
    } else {
        input_part(NULL, (size_t)mine[1], (size_t)mine[0], data, made_up);
    }
    fftw_execute(plan);
    MPI_Gatherv(data, mine[0], fft_complex_type, whole, counts, displs, fft_complex_type, 0, app_comm);
    fftw_destroy_plan(plan);
    fftw_free(data);
    return whole;
}
#else
static const char *reference_name = "FFTW's serial 3-D transform (fftw_plan_dft_3d) on rank 0";
static fftw_complex *reference(const int n[3], const char *in_path, fft_made_up_fn *made_up)
{
    if (app_rank != 0)
        return NULL;
    size_t elems = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    fftw_complex *whole = in_path ? read_whole(in_path, elems) : fftw_malloc(elems * sizeof *whole);
    if (!in_path)
        input_part(NULL, 0, elems, whole, made_up);
    fftw_plan plan = fftw_plan_dft_3d(n[0], n[1], n[2], whole, whole, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    return whole;
}
#endif

int fft_check(const int n[3], const char *in_path, const fftw_complex *ours, fft_made_up_fn *made_up)
{
    fftw_complex *want = reference(n, in_path, made_up);
    int failed = 0;
    if (app_rank == 0) {
        size_t elems = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
        double largest = 0, worst = 0;
        for (size_t k = 0; want && k < elems; k++) {
            largest = fmax(largest, hypot(want[k][0], want[k][1]));
            worst = fmax(worst, hypot(ours[k][0] - want[k][0], ours[k][1] - want[k][1]));
        }
        double relative = largest > 0 ? worst / largest : worst;
        failed = !want || !(relative <= 1e-10);
        printf("check: largest difference %.3g of largest value %.3g (relative %.3g) against %s: %s\n", worst, largest,
               relative, reference_name, failed ? "FAILED" : "ok");
    }
    fftw_free(want);
    MPI_Bcast(&failed, 1, MPI_INT, 0, app_comm);
    return failed;
}

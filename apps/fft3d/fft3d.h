/* tandem-fft3d's parts: the complex datatype and the check against FFTW. */
#ifndef TANDEM_FFT3D_H
#define TANDEM_FFT3D_H

#include <fftw3.h>
#include <mpi.h>
#include <stddef.h>

/* complex128: two doubles, as one MPI datatype (counts of elements, not of doubles) */
extern MPI_Datatype fft_complex_type;
void fft_types_init(void);
void fft_types_free(void);

/* Element `index` (C order) of the made-up input. */
typedef void fft_made_up_fn(size_t index, fftw_complex v);

/* Collective. The forward transform of the same input (--in's file, or made_up) by FFTW's own MPI 3-D
 * transform (fftw_mpi_plan_dft_3d) where this build has it, else by FFTW's serial 3-D transform on
 * rank 0, compared on rank 0 with ours (the whole result, C order): prints the largest difference
 * relative to the largest value and returns 1 on every rank if it is above 1e-10, else 0. MPI's own
 * calls only: the reference does not go through Tandem. */
int fft_check(const int n[3], const char *in_path, const fftw_complex *ours, fft_made_up_fn *made_up);

#endif

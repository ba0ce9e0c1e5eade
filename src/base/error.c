#include "error.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

static __thread char last_error[512]; /* per thread: several threads may call Tandem */

int tdm_error(const char *fn, int error_class, const char *fmt, ...)
{
    int n = snprintf(last_error, sizeof last_error, "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof last_error)
        vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    return error_class;
}

int tdm_mpi_error(const char *fn, const char *what, int mpi_code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, error_class = MPI_ERR_OTHER;
    if (MPI_Error_string(mpi_code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", mpi_code);
    MPI_Error_class(mpi_code, &error_class);
    return tdm_error(fn, error_class, "%s failed in MPI: %s", what, text);
}

const char *tdm_last_error(void) { return last_error; }

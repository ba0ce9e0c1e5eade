/* Error reporting: every failing Tandem call returns an MPI error class and leaves a message naming
 * the function and the argument, readable with tdm_last_error() (the API's TDM_Last_error()). */
#ifndef TANDEM_ERROR_H
#define TANDEM_ERROR_H

/* Records "fn: message" and returns error_class. */
int tdm_error(const char *fn, int error_class, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error code from MPI underneath: records it with MPI's own text and returns its class. */
int tdm_mpi_error(const char *fn, const char *what, int mpi_code);
/* The last message this thread recorded. */
const char *tdm_last_error(void);

#endif

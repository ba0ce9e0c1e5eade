/*
 * Fortran bindings of the interposer, for the Fortran bindings of the MPI in use that call the C
 * library by the PMPI names, past the interposer:
 * - Open MPI: all of them (mpif.h and `use mpi`: mpi_xxx_; `use mpi_f08`: mpi_xxx_f08_, whose buffers
 *   are addresses and whose handle types are one INTEGER, so one function serves both names);
 * - MPICH: only mpi_f08's routines without a choice buffer (init, waits, tests, barriers: mpi_xxx_f08_);
 *   its other bindings call the C names, which the interposer defines already.
 * Each binding converts the Fortran handles (MPI_Comm_f2c and friends) and the Fortran sentinels
 * (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS(ES)_IGNORE) and calls the interposer's C function. Names are
 * gfortran's (one trailing underscore), the compiler both MPIs' Fortran modules are built with here;
 * mpi_f08's ierror is optional (NULL when left out).
 */
#ifndef TANDEM_INTERPOSE_FORTRAN_H
#define TANDEM_INTERPOSE_FORTRAN_H

#include "../interpose.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays (counts, displacements) are passed as int");

#define ALIAS(symbol, impl) extern __typeof__(impl) symbol __attribute__((alias(#impl)))
#if defined(OPEN_MPI)
#define FORTRAN_NAMES(name, impl) ALIAS(name##_, impl); ALIAS(name##_f08_, impl)
#elif defined(MPICH)
#define FORTRAN_NAMES(name, impl) ALIAS(name##_f08_, impl)
#else
#error "the interposer's Fortran bindings know Open MPI and MPICH"
#endif

/* A Fortran status, counted in INTEGERs (MPI_STATUS_SIZE): the C status, as both MPIs lay it out. */
#define FORTRAN_STATUS_SIZE ((sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint))

/* The C value of a Fortran buffer argument (MPI_IN_PLACE, MPI_BOTTOM or the address). */
#define HIDDEN __attribute__((visibility("hidden"))) /* internal to the library, not MPI's */
HIDDEN void *tdm_f_buffer(void *fortran);
/* Whether a Fortran status (array) argument is MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE). */
HIDDEN int tdm_f_status_ignored(const MPI_Fint *status);
HIDDEN int tdm_f_statuses_ignored(const MPI_Fint *statuses);

#define BUF(f) tdm_f_buffer(f)
#define TYPE(f) PMPI_Type_f2c(*(f))
#define OP(f) PMPI_Op_f2c(*(f))
#define COMM(f) PMPI_Comm_f2c(*(f))

static inline void tdm_f_set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

/* A started call's request back to Fortran (read through a pointer: only once the call has set it). */
static inline void tdm_f_started(int rc, const MPI_Request *c_request, MPI_Fint *request, MPI_Fint *ierr)
{
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(*c_request);
    tdm_f_set_ierr(ierr, rc);
}

#endif

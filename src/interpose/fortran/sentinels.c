/*
 * The Fortran sentinels of the MPI in use: the addresses its Fortran constants stand at (one address
 * per process: the program's copy relocations make every library refer to the same one). Weak
 * references: the library must not depend on where the MPI defines them.
 */
#include "fortran.h"

#if defined(OPEN_MPI)
extern char mpi_fortran_in_place_, mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_status_ignore_[], mpi_fortran_statuses_ignore_[];
#pragma weak mpi_fortran_in_place_
#pragma weak mpi_fortran_bottom_
#pragma weak mpi_fortran_status_ignore_
#pragma weak mpi_fortran_statuses_ignore_
#define IN_PLACE (void *)&mpi_fortran_in_place_
#define BOTTOM (void *)&mpi_fortran_bottom_
#define STATUS_IGNORE (const MPI_Fint *)mpi_fortran_status_ignore_
#define STATUSES_IGNORE (const MPI_Fint *)mpi_fortran_statuses_ignore_
#else /* MPICH's mpi_f08 (mpi.h declares them) */
#pragma weak MPIR_F08_MPI_IN_PLACE
#pragma weak MPIR_F08_MPI_BOTTOM
#pragma weak MPIR_F08_MPI_STATUS_IGNORE_OBJ
#pragma weak MPIR_F08_MPI_STATUSES_IGNORE_OBJ
#define IN_PLACE (void *)&MPIR_F08_MPI_IN_PLACE
#define BOTTOM (void *)&MPIR_F08_MPI_BOTTOM
#define STATUS_IGNORE (const MPI_Fint *)(void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ
#define STATUSES_IGNORE (const MPI_Fint *)(void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ
#endif

void *tdm_f_buffer(void *fortran)
{
    if (fortran && fortran == IN_PLACE)
        return MPI_IN_PLACE;
    if (fortran && fortran == BOTTOM)
        return MPI_BOTTOM;
    return fortran;
}

int tdm_f_status_ignored(const MPI_Fint *status) { return status == STATUS_IGNORE; }
int tdm_f_statuses_ignored(const MPI_Fint *statuses) { return statuses == STATUSES_IGNORE; }

/*
 * The application world under the interposer. In dcp progress some ranks of the job are dedicated
 * collective processes that never return to the program: for it, MPI_COMM_WORLD is the other ranks,
 * Tandem's TDM_Comm_world(). Every MPI function with a communicator argument maps MPI_COMM_WORLD to it
 * (app_world_calls.c, generated from the MPI standard; the collectives in TDM_IP_ROUTE), so sizes,
 * ranks, point-to-point, groups, communicator creation, attributes and error handlers all see the
 * application ranks only (an error handler is given the application world's handle). Fortran handles
 * reach C through MPI_Comm_f2c, taken over here where the MPI's Fortran bindings call it (Open MPI);
 * MPICH's call the C functions with the handle itself.
 */
#define _GNU_SOURCE
#include "interpose.h"

#include <dlfcn.h>

/* Set in MPI_Init before the program's first call, back to MPI_COMM_WORLD in MPI_Finalize; read only
 * in between. */
MPI_Comm tdm_ip_app_world = MPI_COMM_WORLD;

MPI_Comm tdm_ip_attr_comm(MPI_Comm comm, int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL: case MPI_UNIVERSE_SIZE: case MPI_APPNUM:
    case MPI_LASTUSEDCODE:
        return comm; /* cached on MPI_COMM_WORLD alone (Open MPI) */
    default:
        return tdm_ip_comm(comm);
    }
}

void tdm_ip_app_world_start(void)
{
    MPI_Comm app = TDM_Comm_world();
    if (app == MPI_COMM_WORLD)
        return;
    PMPI_Comm_set_name(app, "MPI_COMM_WORLD"); /* what the program asks MPI_Comm_get_name for */
    tdm_ip_app_world = app;
}

void tdm_ip_app_world_end(void) { tdm_ip_app_world = MPI_COMM_WORLD; }

/* The program's error handler for MPI_COMM_WORLD goes on the application world and on MPI_COMM_WORLD
 * itself, whose handler MPI calls for errors outside any communicator (MPI 3.1). */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc = PMPI_Comm_set_errhandler(comm, errhandler);
    if (rc == MPI_SUCCESS && tdm_ip_comm(comm) != comm)
        rc = PMPI_Comm_set_errhandler(tdm_ip_comm(comm), errhandler);
    return rc;
}

#if defined(OPEN_MPI)
/* Open MPI's Fortran bindings turn each communicator handle into C with this function: the Fortran
 * MPI_COMM_WORLD becomes the application world there. */
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm)
{
    static MPI_Comm (*mpi_f2c)(MPI_Fint); /* MPI's own, found once (the same on every thread) */
    MPI_Comm (*f2c)(MPI_Fint) = __atomic_load_n(&mpi_f2c, __ATOMIC_RELAXED);
    if (!f2c) {
        *(void **)&f2c = dlsym(RTLD_NEXT, "PMPI_Comm_f2c");
        if (!f2c)
            f2c = MPI_Comm_f2c; /* a static MPI: its other name */
        __atomic_store_n(&mpi_f2c, f2c, __ATOMIC_RELAXED);
    }
    return tdm_ip_comm(f2c(comm));
}
#endif

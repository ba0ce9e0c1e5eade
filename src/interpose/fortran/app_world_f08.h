/*
 * MPICH's mpi_f08 routines and the application world (app_world_f08.c, generated): those routines call
 * MPI by the PMPI names with the program's handle itself, past the interposer's MPI_* functions, so in
 * dcp progress the interposer defines them too: each maps its input communicators (MPI_COMM_WORLD's
 * handle becomes the application world's) and calls MPICH's own routine with every argument as it
 * came, by gfortran's conventions (every argument an address, then a hidden length per CHARACTER
 * argument; an absent OPTIONAL ierror a null address). A TYPE(MPI_Comm) is one INTEGER, its handle.
 */
#ifndef TANDEM_INTERPOSE_APP_WORLD_F08_H
#define TANDEM_INTERPOSE_APP_WORLD_F08_H

#include "fortran.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* MPI's own definition of an mpi_f08 routine, found once (the same on every thread). */
static inline void *tdm_f08_next(const char *symbol, void **cache)
{
    void *next = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!next) {
        next = dlsym(RTLD_NEXT, symbol);
        if (!next) { /* the program called a routine of the MPI's module that the MPI's library lacks */
            fprintf(stderr, "tandem: the MPI library has no %s\n", symbol);
            abort();
        }
        __atomic_store_n(cache, next, __ATOMIC_RELAXED);
    }
    return next;
}

/* An input communicator: MPI_COMM_WORLD's handle turned into the application world's. */
static inline MPI_Fint tdm_f08_comm(const MPI_Fint *comm) { return PMPI_Comm_c2f(tdm_ip_comm(PMPI_Comm_f2c(*comm))); }

/* The communicator an attribute is read from: MPI_COMM_WORLD itself for those MPI caches there alone. */
static inline MPI_Fint tdm_f08_attr_comm(const MPI_Fint *comm, const MPI_Fint *keyval)
{
    return PMPI_Comm_c2f(tdm_ip_attr_comm(PMPI_Comm_f2c(*comm), *keyval));
}

#endif

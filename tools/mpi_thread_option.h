/*
 * --mpi-thread single, of tandem-bench and tandem-model loggp: MPI initialized with MPI_THREAD_SINGLE
 * instead of MPI_THREAD_MULTIPLE, which TDM_Init asks for and at which some MPIs' calls cost more. MPI
 * starts before the options are parsed, so main takes it, as the first option, before anything else.
 */
#ifndef TANDEM_MPI_THREAD_OPTION_H
#define TANDEM_MPI_THREAD_OPTION_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* If argv[at], argv[at + 1] are "--mpi-thread single": removes them (argv[0 .. at-1] move up to stay
 * before the rest) and returns 1; else 0. */
static inline int tdm_take_mpi_thread_single(int *argc, char ***argv, int at)
{
    char **v = *argv;
    if (*argc <= at + 1 || strcmp(v[at], "--mpi-thread") || strcmp(v[at + 1], "single"))
        return 0;
    for (int i = at - 1; i >= 0; i--)
        v[i + 2] = v[i];
    *argc -= 2;
    *argv = v + 2;
    return 1;
}

/* What is wrong with an --mpi-thread the parser meets (main took a leading one): into why. */
static inline void tdm_mpi_thread_misplaced(const char *name, const char *value, char *why, size_t len)
{
    if (strcmp(value, "single"))
        snprintf(why, len, "%s wants single, not '%s'", name, value);
    else
        snprintf(why, len, "%s single must be the first option", name);
}

#endif

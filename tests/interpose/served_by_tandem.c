/*
 * For the plain MPI test programs (C and Fortran): how many collectives the interposer has served and
 * passed to MPI. Asked by name (dlsym), so that the same program also links and runs without Tandem.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

/* 1 and the counts if the interposer is loaded, else 0 (counts -1). Fortran: bind(C) with c_long. */
int served_by_tandem(long *served, long *native)
{
    void (*counts)(unsigned long *, unsigned long *);
    *(void **)&counts = dlsym(RTLD_DEFAULT, "tdm_ip_counts");
    *served = *native = -1;
    if (!counts)
        return 0;
    unsigned long s = 0, n = 0;
    counts(&s, &n);
    *served = (long)s;
    *native = (long)n;
    return 1;
}

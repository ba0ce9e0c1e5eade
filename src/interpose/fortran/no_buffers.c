/*
 * The Fortran bindings without choice buffers (see fortran.h): the barriers, MPI_Op_free, the waits and
 * tests, which must move Tandem's calls while a Fortran program waits, and starting and stopping MPI.
 */
#include "fortran.h"

#include <stdlib.h>

/* MPICH's MPI_Waitall and MPI_Waitsome declare their status array's size: GCC then takes
 * MPI_STATUSES_IGNORE, a constant pointer, for an empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* ---- barriers ---- */

static void ibarrier(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r;
    tdm_f_started(MPI_Ibarrier(COMM(comm), &r), &r, request, ierr);
}
FORTRAN_NAMES(mpi_ibarrier, ibarrier);

static void barrier(MPI_Fint *comm, MPI_Fint *ierr) { tdm_f_set_ierr(ierr, MPI_Barrier(COMM(comm))); }
FORTRAN_NAMES(mpi_barrier, barrier);

/* ---- user ops: freed once Tandem's calls in flight are done with them ---- */

static void op_free(MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op c = OP(op);
    int rc = MPI_Op_free(&c);
    if (rc == MPI_SUCCESS)
        *op = PMPI_Op_c2f(c);
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_op_free, op_free);

/* ---- waits and tests: Tandem's calls must move while a Fortran program waits too ---- */

/* No memory for the C arrays: the program hears of it through MPI_COMM_WORLD's error handler (fatal by
 * default), since a Fortran caller may have left out ierror. */
static int out_of_memory(void)
{
    PMPI_Comm_call_errhandler(tdm_ip_comm(MPI_COMM_WORLD), MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

/* A request array in C form, converted back after the call; NULL if out of memory. */
static MPI_Request *requests_f2c(int count, const MPI_Fint *requests)
{
    MPI_Request *c = malloc(sizeof *c * (count > 0 ? (size_t)count : 1));
    for (int i = 0; c && i < count; i++)
        c[i] = PMPI_Request_f2c(requests[i]);
    return c;
}

static void requests_c2f(int count, const MPI_Request *c, MPI_Fint *requests)
{
    for (int i = 0; i < count; i++)
        requests[i] = PMPI_Request_c2f(c[i]);
}

/* The C status array a call fills (MPI_STATUSES_IGNORE stays so); `failed` on no memory. */
static MPI_Status *statuses_for(int count, const MPI_Fint *statuses, int *failed)
{
    if (tdm_f_statuses_ignored(statuses))
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = malloc(sizeof *c * (count > 0 ? (size_t)count : 1));
    *failed = c == NULL;
    return c;
}

/* Statuses back to Fortran: those MPI filled (all, or the first n), when it says it did. */
static void statuses_c2f(int rc, int n, MPI_Status *c, MPI_Fint *statuses)
{
    if (c == MPI_STATUSES_IGNORE)
        return;
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < n; i++)
            PMPI_Status_c2f(&c[i], statuses + (size_t)i * FORTRAN_STATUS_SIZE);
    free(c);
}

/* The C status a call fills for a Fortran status argument (MPI_STATUS_IGNORE stays so), and back to
 * Fortran when the call filled it. */
static MPI_Status *status_for(const MPI_Fint *status, MPI_Status *c)
{
    return tdm_f_status_ignored(status) ? MPI_STATUS_IGNORE : c;
}

static void status_c2f(int filled, const MPI_Status *c, MPI_Fint *status)
{
    if (filled && c != MPI_STATUS_IGNORE)
        PMPI_Status_c2f(c, status);
}

/* MPI_Wait (flag NULL) and MPI_Test. */
static void wait_or_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    MPI_Status s, *cs = status_for(status, &s);
    int done = 1, rc = flag ? MPI_Test(&c, &done, cs) : MPI_Wait(&c, cs);
    *request = PMPI_Request_c2f(c);
    if (flag)
        *flag = done;
    status_c2f(rc == MPI_SUCCESS && done, cs, status);
    tdm_f_set_ierr(ierr, rc);
}

static void wait_one(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) { wait_or_test(request, NULL, status, ierr); }
FORTRAN_NAMES(mpi_wait, wait_one);

static void test_one(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    wait_or_test(request, flag, status, ierr);
}
FORTRAN_NAMES(mpi_test, test_one);

/* MPI_Waitall (flag NULL) and MPI_Testall. */
static void all(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)
{
    int no_memory = 0, done = 1, rc;
    MPI_Request *c = requests_f2c(*count, requests);
    MPI_Status *s = statuses_for(*count, statuses, &no_memory);
    if (c && !no_memory) {
        rc = flag ? MPI_Testall(*count, c, &done, s) : MPI_Waitall(*count, c, s);
        requests_c2f(*count, c, requests);
    } else {
        rc = out_of_memory();
    }
    if (flag)
        *flag = done;
    statuses_c2f(rc, done || rc == MPI_ERR_IN_STATUS ? *count : 0, s, statuses);
    free(c);
    tdm_f_set_ierr(ierr, rc);
}

static void waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    all(count, requests, NULL, statuses, ierr);
}
FORTRAN_NAMES(mpi_waitall, waitall);

static void testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr)
{
    all(count, requests, flag, statuses, ierr);
}
FORTRAN_NAMES(mpi_testall, testall);

/* MPI_Waitany (flag NULL) and MPI_Testany; Fortran counts from 1. */
static void any(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                MPI_Fint *ierr)
{
    MPI_Request *c = requests_f2c(*count, requests);
    MPI_Status s, *cs = status_for(status, &s);
    int i = MPI_UNDEFINED, done = 1, rc;
    if (c) {
        rc = flag ? MPI_Testany(*count, c, &i, &done, cs) : MPI_Waitany(*count, c, &i, cs);
        requests_c2f(*count, c, requests);
    } else {
        rc = out_of_memory();
    }
    *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    if (flag)
        *flag = done;
    status_c2f(rc == MPI_SUCCESS && done, cs, status);
    free(c);
    tdm_f_set_ierr(ierr, rc);
}

static void waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr)
{
    any(count, requests, index, NULL, status, ierr);
}
FORTRAN_NAMES(mpi_waitany, waitany);

static void testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                    MPI_Fint *ierr)
{
    any(count, requests, index, flag, status, ierr);
}
FORTRAN_NAMES(mpi_testany, testany);

/* MPI_Waitsome and MPI_Testsome. */
static void some(int wait_for_one, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                 MPI_Fint *statuses, MPI_Fint *ierr)
{
    int no_memory = 0, n = MPI_UNDEFINED;
    MPI_Request *c = requests_f2c(*incount, requests);
    MPI_Status *s = statuses_for(*incount, statuses, &no_memory);
    int rc;
    if (c && !no_memory) {
        rc = wait_for_one ? MPI_Waitsome(*incount, c, &n, indices, s) : MPI_Testsome(*incount, c, &n, indices, s);
        requests_c2f(*incount, c, requests);
    } else {
        rc = out_of_memory();
    }
    *outcount = n;
    for (int i = 0; n != MPI_UNDEFINED && i < n; i++)
        indices[i] += 1;
    statuses_c2f(rc, n == MPI_UNDEFINED ? 0 : n, s, statuses);
    free(c);
    tdm_f_set_ierr(ierr, rc);
}

static void waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                     MPI_Fint *ierr)
{
    some(1, incount, requests, outcount, indices, statuses, ierr);
}
FORTRAN_NAMES(mpi_waitsome, waitsome);

static void testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
                     MPI_Fint *ierr)
{
    some(0, incount, requests, outcount, indices, statuses, ierr);
}
FORTRAN_NAMES(mpi_testsome, testsome);

static void request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s, *cs = status_for(status, &s);
    int done = 0, rc = MPI_Request_get_status(PMPI_Request_f2c(*request), &done, cs);
    *flag = done;
    status_c2f(rc == MPI_SUCCESS && done, cs, status);
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_request_get_status, request_get_status);

static void request_free(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    int rc = MPI_Request_free(&c);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_request_free, request_free);

/* ---- start and stop ---- */

static void init(MPI_Fint *ierr) { tdm_f_set_ierr(ierr, MPI_Init(NULL, NULL)); }
FORTRAN_NAMES(mpi_init, init);

static void init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int level = MPI_THREAD_SINGLE, rc = MPI_Init_thread(NULL, NULL, *required, &level);
    *provided = level;
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_init_thread, init_thread);

static void query_thread(MPI_Fint *provided, MPI_Fint *ierr)
{
    int level = MPI_THREAD_SINGLE, rc = MPI_Query_thread(&level);
    *provided = level;
    tdm_f_set_ierr(ierr, rc);
}
FORTRAN_NAMES(mpi_query_thread, query_thread);

static void finalize(MPI_Fint *ierr) { tdm_f_set_ierr(ierr, MPI_Finalize()); }
FORTRAN_NAMES(mpi_finalize, finalize);

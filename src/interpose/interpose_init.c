/*
 * Starting and stopping Tandem under an MPI program: MPI_Init / MPI_Init_thread start MPI (with the
 * thread level Tandem's progress mode needs) and then Tandem; MPI_Finalize finishes Tandem's calls and
 * Tandem before MPI. Settings come from the environment only: TANDEM_INTERPOSE=nonblocking (default),
 * all (blocking collectives too) or off, and every TANDEM_* variable of the library.
 */
#include "interpose.h"

#include "../agents/agent.h"
#include "../dcp/dcp.h"
#include "../base/state.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tdm_ip_mode mode = TDM_IP_OFF;  /* atomic: read by every wrapper */
static int reported_level = -1;        /* the thread level the program was told (-1: MPI's own) */
static unsigned long served, native;   /* atomic */

/* Functions whose calls went to MPI, each reported once (TANDEM_VERBOSE). */
#define MAX_REPORTED 64
static const char *reported[MAX_REPORTED];
static int nreported;
static pthread_mutex_t reported_lock = PTHREAD_MUTEX_INITIALIZER;

tdm_ip_mode tdm_ip_mode_now(void) { return __atomic_load_n(&mode, __ATOMIC_ACQUIRE); }

static void report_native_once(const char *fn, const char *why)
{
    if (!tdm_global.verbose)
        return;
    pthread_mutex_lock(&reported_lock);
    int seen = 0;
    for (int i = 0; i < nreported && !seen; i++)
        seen = strcmp(reported[i], fn) == 0;
    if (!seen && nreported < MAX_REPORTED)
        reported[nreported++] = fn;
    pthread_mutex_unlock(&reported_lock);
    if (!seen)
        fprintf(stderr, "tandem: %s goes to MPI: %s\n", fn, why);
}

int tdm_ip_takes(const char *fn, MPI_Comm comm, int blocking)
{
    tdm_ip_mode m = tdm_ip_mode_now();
    if (m == TDM_IP_OFF || (blocking && m != TDM_IP_ALL))
        return 0;
    int inter = 0;
    if (comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter) {
        __atomic_add_fetch(&native, 1, __ATOMIC_RELAXED);
        report_native_once(fn, "an inter-communicator (Tandem serves intra-communicators)");
        return 0;
    }
    __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
    return 1;
}

int tdm_ip_refused(const char *fn, int rc)
{
    __atomic_sub_fetch(&served, 1, __ATOMIC_RELAXED);
    switch (rc) { /* Tandem's argument checks, made before the call takes a tag: MPI may take it */
    case MPI_ERR_BUFFER: case MPI_ERR_COUNT: case MPI_ERR_TYPE: case MPI_ERR_ROOT: case MPI_ERR_COMM:
    case MPI_ERR_OP: case MPI_ERR_ARG: case MPI_ERR_REQUEST:
        __atomic_add_fetch(&native, 1, __ATOMIC_RELAXED);
        report_native_once(fn, TDM_Last_error());
        return 1;
    default: /* the call failed under way (the other ranks run it in Tandem): the program hears of it */
        fprintf(stderr, "tandem: %s: %s\n", fn, TDM_Last_error());
        return 0;
    }
}

void tdm_ip_counts(unsigned long *s, unsigned long *n)
{
    *s = __atomic_load_n(&served, __ATOMIC_RELAXED);
    *n = __atomic_load_n(&native, __ATOMIC_RELAXED);
}

static tdm_ip_mode mode_from_environment(void)
{
    const char *env = getenv("TANDEM_INTERPOSE");
    if (!env || !*env || strcmp(env, "nonblocking") == 0)
        return TDM_IP_NONBLOCKING;
    if (strcmp(env, "all") == 0)
        return TDM_IP_ALL;
    if (strcmp(env, "off") != 0)
        fprintf(stderr, "tandem: TANDEM_INTERPOSE=%s: expected nonblocking, all or off; interposition is off\n", env);
    return TDM_IP_OFF;
}

/*
 * Progress under the interposer is the progress thread unless TANDEM_PROGRESS says otherwise: MPI's
 * progress rule lets a program block in MPI_Recv while its collective must still move, and inline
 * progress moves only inside wait and test calls. Thread and split progress need MPI_THREAD_MULTIPLE.
 */
static int needs_threads(void)
{
    const char *env = getenv("TANDEM_PROGRESS");
    return !env || !*env || strcmp(env, "thread") == 0 || strcmp(env, "split") == 0;
}

static int dcp_wanted(void)
{
    const char *env = getenv("TANDEM_PROGRESS");
    return env && strcmp(env, "dcp") == 0;
}

/* The progress mode: the environment's, else the thread. A program that calls MPI from several threads
 * gets the thread too: the inline, split and dcp agents expect one thread in Tandem at a time. */
static void choose_progress(int program_level)
{
    const char *env = getenv("TANDEM_PROGRESS");
    if (!env || !*env) {
        TDM_Set_progress("thread");
    } else if (program_level == MPI_THREAD_MULTIPLE && strcmp(env, "thread") != 0) {
        fprintf(stderr, "tandem: TANDEM_PROGRESS=%s serves one application thread at a time; this program asked "
                        "for MPI_THREAD_MULTIPLE: thread progress\n", env);
        TDM_Set_progress("thread");
    }
}

static const char *mode_name(tdm_ip_mode m)
{
    return m == TDM_IP_ALL ? "all" : m == TDM_IP_NONBLOCKING ? "nonblocking" : "off";
}

/* MPI is up. tandem-run --dcp-ratio launched ranks to serve the program's collectives: a program that
 * would run without them (interposition off, or MPI_THREAD_MULTIPLE, which dcp progress does not serve)
 * would take them for its own ranks, so the job stops instead. */
static void refuse_added_ranks(tdm_ip_mode wanted, int program_level)
{
    const char *added = getenv("TANDEM_DCP_ADDED");
    if (!added || !*added || !dcp_wanted() || (wanted != TDM_IP_OFF && program_level != MPI_THREAD_MULTIPLE))
        return;
    fprintf(stderr, "tandem: tandem-run --dcp-ratio added ranks to serve this program's collectives, but %s: the job "
                    "stops\n", wanted == TDM_IP_OFF ? "TANDEM_INTERPOSE=off"
                                                    : "it asks for MPI_THREAD_MULTIPLE, which dcp progress does not serve");
    PMPI_Finalize();
    exit(1);
}

/* MPI is up: Tandem starts, or interposition stays off with a message. Every rank must agree: a rank
 * that sent its collectives to MPI while the others ran Tandem would hang them all. */
static void start_tandem(int *argc, char ***argv, tdm_ip_mode wanted, int program_level)
{
    choose_progress(program_level);
    int ok = TDM_Init(argc, argv) == MPI_SUCCESS, all_ok = 0;
    if (!ok && dcp_wanted() && program_level != MPI_THREAD_MULTIPLE) {
        /* no going back to MPI alone: the program would see the ranks meant to serve it */
        fprintf(stderr, "tandem: %s; dcp progress cannot start: the job stops\n", TDM_Last_error());
        if (tdm_dcp_active()) /* the job was divided: other ranks may serve already, only an abort ends them */
            PMPI_Abort(MPI_COMM_WORLD, 1);
        PMPI_Finalize(); /* every rank failed alike, on the settings, before dividing the job */
        exit(1);
    }
    if (!ok)
        fprintf(stderr, "tandem: %s; collectives go to MPI\n", TDM_Last_error());
    else
        tdm_ip_app_world_start(); /* a dedicated process never came back from TDM_Init */
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, tdm_ip_app_world);
    if (!all_ok) {
        if (ok) {
            fprintf(stderr, "tandem: Tandem failed to start on another rank; collectives go to MPI\n");
            TDM_Finalize();
        }
        return;
    }
    tdm_global.completion_hooks = 1; /* before any collective: every request passes the hook gate */
    __atomic_store_n(&mode, wanted, __ATOMIC_RELEASE);
    if (tdm_global.verbose) {
        int rank = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        tdm_progress_mode p = tdm_progress_current();
        fprintf(stderr,
                "tandem: rank %d: interposing %s collectives (MPI_Ibarrier ... MPI_Iexscan%s), %s progress\n", rank,
                mode_name(wanted), wanted == TDM_IP_ALL ? ", MPI_Barrier ... MPI_Exscan" : "",
                tdm_dcp_active()             ? "dcp"
                : p == TDM_PROGRESS_THREAD ? "thread"
                : p == TDM_PROGRESS_SPLIT  ? "split"
                                           : "inline");
    }
}

int MPI_Init(int *argc, char ***argv)
{
    tdm_ip_mode wanted = mode_from_environment();
    if (wanted == TDM_IP_OFF) {
        int rc = PMPI_Init(argc, argv);
        if (rc == MPI_SUCCESS)
            refuse_added_ranks(wanted, MPI_THREAD_SINGLE);
        return rc;
    }
    int provided, rc;
    if (needs_threads()) {
        rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        reported_level = MPI_THREAD_SINGLE; /* what MPI_Init gives a program */
    } else {
        rc = PMPI_Init(argc, argv);
    }
    if (rc == MPI_SUCCESS)
        start_tandem(argc, argv, wanted, MPI_THREAD_SINGLE);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    tdm_ip_mode wanted = mode_from_environment();
    if (wanted == TDM_IP_OFF || !needs_threads() || required == MPI_THREAD_MULTIPLE) {
        int rc = PMPI_Init_thread(argc, argv, required, provided);
        if (rc == MPI_SUCCESS)
            refuse_added_ranks(wanted, required);
        if (rc == MPI_SUCCESS && wanted != TDM_IP_OFF)
            start_tandem(argc, argv, wanted, required);
        return rc;
    }
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, provided);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the level asked for, or less if MPI could not give it */
    reported_level = *provided < required ? *provided : required;
    *provided = reported_level;
    start_tandem(argc, argv, wanted, required);
    return rc;
}

int MPI_Query_thread(int *provided)
{
    if (reported_level >= 0 && provided) {
        *provided = reported_level;
        return MPI_SUCCESS;
    }
    return PMPI_Query_thread(provided);
}

int MPI_Finalize(void)
{
    if (tdm_ip_mode_now() != TDM_IP_OFF) {
        tdm_ip_complete_all();
        tdm_ip_persistent_finalize();
        if (tdm_global.verbose) {
            int rank = 0;
            PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
            unsigned long s, n;
            tdm_ip_counts(&s, &n);
            fprintf(stderr, "tandem: rank %d: %lu collectives served by Tandem, %lu passed to MPI\n", rank, s, n);
        }
        __atomic_store_n(&mode, TDM_IP_OFF, __ATOMIC_RELEASE);
        TDM_Finalize();
        tdm_ip_app_world_end();
        tdm_global.completion_hooks = 0;
    }
    reported_level = -1;
    return PMPI_Finalize();
}

/*
 * The inline agent. Every running request is on one list; progress walks it and advances each
 * schedule. Blocking waits gather the pending MPI requests of all running schedules (and of shadow
 * communicators still being created) into one MPI_Testsome loop, so that a rank waiting for one collective
 * keeps serving all the others: no deadlock when ranks complete collectives in different orders.
 * A blocking wait also returns when the progress thread completes something (requests of both agents
 * may be waited for together).
 */
#include "agent.h"

#include "../base/smpi_support.h"

#include <sched.h>
#include <stdlib.h>

/* Failed polls of a blocking wait before it starts yielding the core between polls. */
#define SPIN_POLLS 100

static tdm_run *running;
static int nrunning;
/* tdm_shadow_readied() at the end of the last progress pass: every running request whose duplicate was
 * ready by then has started. */
static unsigned long readied_seen;

/* A duplicate became ready since the last progress pass: calls waiting for it (here or on the progress
 * thread's pending list) need a pass to start. */
static int pass_missed(void) { return tdm_shadow_readied() != readied_seen; }

/* Scratch for the blocking wait, grown as needed. */
static MPI_Request *wait_reqs;
static MPI_Request **wait_slots;
static tdm_exec **wait_owner;
static tdm_shadow **wait_shadow; /* a shadow's duplication request: its shadow (else NULL) */
static int *wait_index;
static MPI_Status *wait_status;
static int wait_cap;

static void unlink_running(tdm_run *run)
{
    tdm_run_list_remove(&running, run);
    nrunning--;
}

/* Blocking waits in a row that polled shm cells (the core is yielded past SPIN_POLLS of them); in
 * simulation, when the first of them began since a schedule last moved. */
static int shm_polls;
static double shm_wait_began;

static void complete(tdm_run *run)
{
    shm_polls = 0;
    unlink_running(run);
    if (tdm_exec_all_done(&run->exec)) /* not after the first segment of a split schedule */
        tdm_shadow_release(run->shadow, &run->tag_hold);
    if (run->lane_parent) /* as in thread.c: the lane first, then the count */
        tdm_run_mark_done_here(run);
    tdm_run *whole = tdm_run_lane_finished(run); /* a call in lanes: its last lane */
    if (whole) {
        tdm_run_completing(whole);
        tdm_run_mark_done_here(whole);
    }
}

/* Advances one request (testing its messages, or only past rounds a blocking wait completed);
 * completes it when its schedule is done. */
static void advance(tdm_run *run, int may_test)
{
    if (!tdm_run_bind_comm(run))
        return;
    if (may_test ? tdm_exec_progress(&run->exec) : tdm_exec_advance_settled(&run->exec))
        complete(run);
}

void tdm_inline_start(tdm_run *run)
{
    /* Opportunistic progress: the collectives already running advance in every Tandem call. */
    if (nrunning > 0)
        tdm_inline_progress();
    tdm_run_list_push(&running, run);
    nrunning++;
    /* post the first round at once; testing it so soon would rarely find anything done */
    if (tdm_run_bind_comm(run)) {
        tdm_exec_kick(&run->exec);
        if (tdm_exec_finished(&run->exec))
            complete(run);
    }
}

/* One progress pass over every running request; testing their messages or (may_test 0) only moving
 * past rounds a blocking wait has completed. */
static void progress_pass(int may_test)
{
    if (tdm_split_waiting()) /* tails of split requests: other ranks may be waiting for them */
        tdm_split_poll();
    /* Again if a duplicate became ready meanwhile (a later request's test completed it): an earlier
     * request waiting for it, here or on the progress thread's pending list, would otherwise stay
     * unstarted, with no MPI request a blocking wait could gather to wake for it. */
    unsigned long readied;
    do {
        readied = tdm_shadow_readied();
        tdm_thread_agent_pump();
        for (tdm_run *run = running, *next; run; run = next) {
            next = run->active_next;
            advance(run, may_test);
        }
    } while (tdm_shadow_readied() != readied);
    readied_seen = readied;
}

void tdm_inline_progress(void) { progress_pass(1); }

static int reserve(int n)
{
    if (n <= wait_cap)
        return 1;
    int cap = n * 2;
    MPI_Request *r = realloc(wait_reqs, sizeof *r * cap);
    if (r)
        wait_reqs = r;
    MPI_Request **sl = realloc(wait_slots, sizeof *sl * cap);
    if (sl)
        wait_slots = sl;
    tdm_exec **ow = realloc(wait_owner, sizeof *ow * cap);
    if (ow)
        wait_owner = ow;
    tdm_shadow **sw = realloc(wait_shadow, sizeof *sw * cap);
    if (sw)
        wait_shadow = sw;
    int *ix = realloc(wait_index, sizeof *ix * cap);
    if (ix)
        wait_index = ix;
    MPI_Status *st = realloc(wait_status, sizeof *st * cap);
    if (st)
        wait_status = st;
    if (!r || !sl || !ow || !sw || !ix || !st)
        return 0;
    wait_cap = cap;
    return 1;
}

static void gather(MPI_Request *slot, tdm_exec *owner, tdm_shadow *shadow, int *n)
{
    if (*slot == MPI_REQUEST_NULL)
        return;
    wait_reqs[*n] = *slot;
    wait_slots[*n] = slot;
    wait_owner[*n] = owner;
    wait_shadow[*n] = shadow;
    (*n)++;
}

/* Hands the gathered handles back to their slots: MPI set the completed ones to MPI_REQUEST_NULL. This
 * must happen right after each MPI_Testsome / MPI_Waitsome / MPI_Waitany, before anything else runs
 * progress: the progress a split tail triggers tests the same slots, and a copy written back after that
 * would resurrect handles MPI has already freed and may have reused for its own internal requests. */
static void return_handles(int n)
{
    for (int i = 0; i < n; i++)
        *wait_slots[i] = wait_reqs[i];
}

/* MPI_Testsome on the gathered requests until one completes, the progress thread completes something,
 * or a split tail has new messages. Polling rather than MPI_Waitsome, and after a short spin yielding
 * the core between polls: with more ranks than cores (oversubscribed runs) a rank spinning inside MPI
 * starves the one it waits for. Returns with the handles back in their slots. */
static int (*watched)(void); /* tdm_inline_watch */

void tdm_inline_watch(int (*ready)(void)) { watched = ready; }

static int poll_some(int n, int *outcount, unsigned long mark)
{
    int rc;
    for (int polls = 0;; polls++) {
        tdm_shadow_testing_dups(1);
        rc = MPI_Testsome(n, wait_reqs, outcount, wait_index, wait_status);
        tdm_shadow_testing_dups(0);
        return_handles(n);
        if (rc != MPI_SUCCESS || *outcount != 0 || tdm_thread_agent_completions() != mark || (watched && watched()))
            return rc;
        if (tdm_split_waiting() && tdm_split_poll())
            return rc; /* new messages of this rank to post and wait for */
        if (polls >= SPIN_POLLS)
            sched_yield();
    }
}

int tdm_inline_block(unsigned long mark, MPI_Request *const *extra, MPI_Status *extra_status, int n_extra)
{
    if (pass_missed()) { /* requests that can start now have no MPI request yet */
        tdm_inline_progress();
        return MPI_SUCCESS;
    }
    int total = 0, preludes = 0, unposted = 0, shm_waiting = 0;
    for (tdm_run *run = running; run; run = run->active_next) {
        total += run->exec.posted > 0 ? run->exec.posted : 0;
        preludes += run->prelude != NULL;
        /* started with a local round (no message to wait for): a pass moves it on */
        unposted += run->exec.posted <= 0 && run->exec.comm != MPI_COMM_NULL && !tdm_exec_finished(&run->exec);
        shm_waiting += tdm_exec_shm_waiting(&run->exec);
    }
    if (unposted && !shm_waiting) {
        progress_pass(!TDM_SIMULATED);
        return MPI_SUCCESS;
    }
    if (shm_waiting) { /* cells to fill or read: no MPI request completes for them, passes poll them */
        unsigned long moves = tdm_exec_moves();
        progress_pass(1);
        if (TDM_SIMULATED) { /* the simulated ranks that fill the cells run only while this one takes time */
            if (tdm_exec_moves() != moves) /* a step was done: the wait for the next begins */
                shm_polls = 0;
            if (shm_polls++ == 0)
                shm_wait_began = tdm_smpi_now();
            tdm_smpi_shm_poll(tdm_smpi_now() - shm_wait_began);
        } else if (++shm_polls > SPIN_POLLS) {
            sched_yield(); /* more ranks than cores: the one that fills the cell needs this core */
        }
        return MPI_SUCCESS;
    }
    if (preludes) { /* their MPI requests are not the engine's: poll (only at a communicator's first use) */
        sched_yield();
        tdm_inline_progress();
        return MPI_SUCCESS;
    }
    for (tdm_shadow *sh = tdm_shadow_first_pending(); sh; sh = sh->pending_next)
        total += 2; /* its creation, and its ring's agreement (gathered below) */
    total += n_extra;
    if (total == 0)
        return MPI_SUCCESS;
    if (!reserve(total))
        return MPI_ERR_NO_MEM;

    int n = 0, live_extras = 0;
    for (; n < n_extra; n++) { /* first and null ones too (MPI skips them): index i is extra[i] */
        wait_reqs[n] = *extra[n];
        wait_slots[n] = extra[n];
        wait_owner[n] = NULL;
        wait_shadow[n] = NULL;
        live_extras += *extra[n] != MPI_REQUEST_NULL;
    }
    for (tdm_shadow *sh = tdm_shadow_first_pending(); sh; sh = sh->pending_next) {
        gather(&sh->creating, NULL, sh, &n);
        gather(&sh->agreeing_ring, NULL, sh, &n);
    }
    for (tdm_run *run = running; run; run = run->active_next)
        for (int i = 0; i < run->exec.posted; i++)
            gather(&run->exec.reqs[i], &run->exec, NULL, &n);
    if (n - n_extra + live_extras == 0) { /* nothing is waiting on MPI: the schedules move by progress */
        tdm_inline_progress();
        return MPI_SUCCESS;
    }
    int outcount = 0;
    int rc;
    if (TDM_SIMULATED) {
        /* Block, and test nothing: SMPI 3.32 keeps each message a test completes in its rank's list of
         * activities, which every later completion walks: 4096-rank runs were quadratic. Its
         * MPI_Waitsome tests every request left after the first completes, so one MPI_Waitany here,
         * and progress afterwards only moves past the rounds it completed (tdm_exec_advance_settled). */
        rc = MPI_Waitany(n, wait_reqs, &wait_index[0], &wait_status[0]);
        outcount = wait_index[0] == MPI_UNDEFINED ? 0 : 1;
        if (rc != MPI_SUCCESS && outcount) { /* report it the way MPI_Waitsome does */
            wait_status[0].MPI_ERROR = rc;
            rc = MPI_ERR_IN_STATUS;
        }
        return_handles(n);
    } else {
        rc = poll_some(n, &outcount, mark);
    }
    for (int k = 0; k < outcount && extra_status; k++)
        if (wait_index[k] < n_extra)
            extra_status[wait_index[k]] = wait_status[k];
    int extra_error = MPI_SUCCESS;
    if (rc == MPI_ERR_IN_STATUS) {
        for (int k = 0; k < outcount; k++) {
            int i = wait_index[k];
            if (wait_status[k].MPI_ERROR == MPI_SUCCESS)
                continue;
            if (wait_owner[i])
                tdm_exec_fail(wait_owner[i], wait_status[k].MPI_ERROR);
            else if (wait_shadow[i]) /* MPI could not make the duplicate: every call on it fails */
                tdm_shadow_failed(wait_shadow[i], wait_status[k].MPI_ERROR);
            else if (i < n_extra)
                extra_error = wait_status[k].MPI_ERROR;
        }
    } else if (rc != MPI_SUCCESS) {
        return rc;
    }
    progress_pass(!TDM_SIMULATED);
    return extra_error;
}

/* The general wait: progress passes over every running request, blocking between them. Out of line:
 * the common wait is for a request running alone (below). */
static __attribute__((noinline)) int wait_with_others(tdm_run *run)
{
    /* In simulation the blocking wait below finds what has completed without a test, and each test
     * costs simulated time (smpi/test per request): testing every running request here, right after
     * they were posted, held up the first round of a 2-chain bucket allgather by 2.4 us (24 tests of
     * 0.1 us), 2% of its 8 MiB run at 512 and at 4096 ranks. */
    progress_pass(!TDM_SIMULATED);
    while (!tdm_run_done(run)) {
        int rc = tdm_inline_block(tdm_thread_agent_completions(), NULL, NULL, 0);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int tdm_inline_wait(tdm_run *run)
{
    /* Only this request runs: poll its messages directly, yielding after a short spin, until it is done
     * or something else needs a general pass (a duplicate became ready, a split tail waits). In
     * simulation, block at once. */
    if (!TDM_SIMULATED && nrunning == 1 && running == run && run->exec.comm != MPI_COMM_NULL) {
        for (int polls = 0; !pass_missed() && !tdm_split_waiting(); polls++) {
            if (tdm_exec_progress(&run->exec)) {
                complete(run);
                if (tdm_run_done(run))
                    return MPI_SUCCESS;
                break; /* a lane of a call whose other lanes still run */
            }
            if (polls >= SPIN_POLLS)
                sched_yield();
        }
    }
    return wait_with_others(run);
}

int tdm_inline_running(void) { return nrunning; }

void tdm_inline_test_missed(void)
{
    if (!TDM_SIMULATED)
        return;
    for (tdm_run *run = running; run; run = run->active_next)
        if (tdm_exec_shm_waiting(&run->exec)) {
            tdm_smpi_shm_poll(0);
            return;
        }
}

void tdm_inline_finalize(void)
{
    running = NULL; /* requests never completed are abandoned with their shadows */
    nrunning = 0;
    free(wait_reqs);
    free(wait_slots);
    free(wait_owner);
    free(wait_shadow);
    free(wait_index);
    free(wait_status);
    wait_reqs = NULL;
    wait_slots = NULL;
    wait_owner = NULL;
    wait_shadow = NULL;
    wait_index = NULL;
    wait_status = NULL;
    wait_cap = 0;
}

/*
 * The thread agent: one progress thread per process drives every schedule handed to it; a call built in
 * lanes (TANDEM_COLOR_THREADS) has its lanes driven by color threads, as tdm_run.thread says.
 *
 * Hand-off is a lock-free stack: the application pushes a request with one compare-and-swap and the
 * worker takes the whole stack with one exchange. Completion is a flag on the request (release store /
 * acquire load) and a counter of completions for waits on any request.
 *
 * The wheel: whoever holds a worker's wheel (a flag taken with one exchange, never waited for) drives
 * its requests, so a handed-over request is touched by one thread at a time until it is marked
 * complete; after that only the application touches it. The worker's thread holds the wheel while it
 * makes a pass; an application thread that waits, or tests, takes it when it is free and drives the
 * requests itself, as inline progress would: on a core shared with the progress thread, a short
 * collective then completes without a thread switch, and the progress thread keeps everything that
 * goes on while the application computes.
 *
 * Idle: the thread spins a little after its last piece of work, then sleeps on a condition variable
 * until a request arrives or an application thread leaves the wheel with requests still running
 * (`kick`). It also sleeps when it finds the wheel taken: the application is driving. A waiting
 * application thread polls, yielding the core between polls, and never sleeps: it can always drive.
 *
 * A request whose shadow communicator is still being created waits on the application side (the
 * duplication request is only ever tested by the application's thread) and is handed over as soon as
 * a Tandem call finds the shadow ready.
 */
#include "agent.h"

#include "../placement/placement.h"
#include "../schedule/coll_args.h" /* TDM_MAX_LANES */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

/* Waiting, on either side, first spins on the CPU (PAUSE_SPINS), then yields the core between polls
 * (a thread sharing the core, as with the bind placement, gets it at once): an idle progress thread
 * sleeps after IDLE_YIELDS polls, an application thread waiting for any of several requests after
 * WAIT_YIELDS, and one waiting for a request of its own never (it drives). A busy progress thread
 * (messages in flight) yields after PAUSE_SPINS polls that found nothing done. */
#define PAUSE_SPINS 64
#define IDLE_YIELDS 2000
#define WAIT_YIELDS 20000

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

/*
 * A worker: one thread and the requests it drives. Worker 0 is the progress thread; workers 1.. are
 * color threads (TANDEM_COLOR_THREADS), started when the first lane for them arrives: a lane runs on
 * worker tdm_run.thread (its lane number, or with a torus bucket's chains, lane / chains).
 */
typedef struct worker {
    int index;
    pthread_t thread;
    int started;                  /* atomic; changed under start_lock */
    int placed;                   /* atomic: the thread has bound itself to its core */
    tdm_run *incoming; /* the hand-off stack (atomic) */
    int stop;                     /* atomic: finalize asks the thread to leave */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;
    int sleeping;                 /* atomic: the thread sleeps on wake_cond */
    int kick;                     /* atomic: an application thread left requests running (wakes it) */
    int wheel;                    /* atomic: 1 while a thread drives the requests below */
    tdm_run *mine;                /* its running requests (active_prev/next are free while they run);
                                     touched only by the wheel's holder */
} worker;

static worker workers[TDM_MAX_LANES];
_Static_assert(TDM_PLACEMENT_MAX_LANES >= TDM_MAX_LANES, "placement must know a core for every color thread");
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER; /* starting and stopping workers */

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int waiters;                /* atomic: application threads sleeping on done_cond */
static unsigned long completions;  /* atomic: requests the workers completed (the user's, not lanes) */
static unsigned long handed_over;  /* atomic: application threads hand over (the user's requests) */
/* TANDEM_VERBOSE: the user's requests completed by the workers' threads and by application threads
 * driving (atomic; counted only when verbose) */
static unsigned long completed_by_workers, completed_by_application;

/* Application side: requests whose shadow is not ready yet (several application threads may start
 * collectives at once: under pending_lock; npending is read without it). */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static tdm_run *pending;
static int npending;

/* ---- a worker thread ---- */

static void link_mine(worker *w, tdm_run *run) { tdm_run_list_push(&w->mine, run); }

/* The request's schedule is done: the request completes, or for a call in lanes, its last lane
 * completes the user's request. */
static void complete(worker *w, tdm_run *run, int by_application)
{
    tdm_run_list_remove(&w->mine, run);
    /* A lane is marked first: once the count drops, the last lane's thread may complete the call
     * and the application free every lane. After the count, only `whole` may be touched. */
    if (run->lane_parent)
        tdm_run_mark_done(run); /* for tag wraps */
    tdm_run *whole = tdm_run_lane_finished(run);
    if (whole) {
        tdm_run_completing(whole);
        tdm_run_mark_done(whole);
        __atomic_add_fetch(&completions, 1, __ATOMIC_SEQ_CST);
        if (tdm_global.verbose)
            __atomic_add_fetch(by_application ? &completed_by_application : &completed_by_workers, 1,
                               __ATOMIC_RELAXED);
    }
}

/* Takes the requests handed over since last time, oldest first, and posts their first rounds. */
static int take_incoming(worker *w)
{
    tdm_run *stack = __atomic_exchange_n(&w->incoming, NULL, __ATOMIC_ACQUIRE), *fifo = NULL;
    if (!stack)
        return 0;
    while (stack) { /* the stack holds the newest first */
        tdm_run *next = stack->handoff_next;
        stack->handoff_next = fifo;
        fifo = stack;
        stack = next;
    }
    for (tdm_run *run = fifo, *next; run; run = next) {
        next = run->handoff_next;
        link_mine(w, run);
        tdm_run_bind_comm(run); /* the shadow is ready: this only binds */
        tdm_exec_kick(&run->exec);
    }
    return 1;
}

/* Advances every request; returns how many completed. */
static int advance_all(worker *w, int by_application)
{
    int done = 0;
    for (tdm_run *run = w->mine, *next; run; run = next) {
        next = run->active_next;
        if (tdm_exec_progress(&run->exec)) {
            complete(w, run, by_application);
            done++;
        }
    }
    return done;
}

static void wake_waiters(void)
{
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST) > 0) {
        pthread_mutex_lock(&done_lock);
        pthread_cond_broadcast(&done_cond);
        pthread_mutex_unlock(&done_lock);
    }
}

/* The wheel is never waited for: 0 if another thread drives. */
static int take_wheel(worker *w)
{
    return !__atomic_load_n(&w->wheel, __ATOMIC_RELAXED) && !__atomic_exchange_n(&w->wheel, 1, __ATOMIC_ACQUIRE);
}

static void leave_wheel(worker *w) { __atomic_store_n(&w->wheel, 0, __ATOMIC_RELEASE); }

/* One pass: takes the new requests and advances all; returns whether anything moved, and in *busy
 * whether requests are still running. Waiters are woken when requests complete. */
static int drive(worker *w, int by_application, int *busy)
{
    int moved = take_incoming(w);
    int done = advance_all(w, by_application);
    *busy = w->mine != NULL;
    if (done)
        wake_waiters();
    return moved || done;
}

static void wake_thread(worker *w)
{
    if (__atomic_load_n(&w->sleeping, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&w->wake_lock);
        pthread_cond_signal(&w->wake_cond);
        pthread_mutex_unlock(&w->wake_lock);
    }
}

/* An application thread drives w once, if the wheel is free; returns whether anything moved. */
static int drive_from_application(worker *w)
{
    if (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE) || !take_wheel(w))
        return 0;
    int busy, moved = drive(w, 1, &busy);
    leave_wheel(w);
    if (busy) { /* the progress thread may sleep: it must go on with them once this thread returns */
        __atomic_store_n(&w->kick, 1, __ATOMIC_SEQ_CST);
        wake_thread(w);
    }
    return moved;
}

static int has_work(worker *w)
{
    return __atomic_load_n(&w->incoming, __ATOMIC_SEQ_CST) || __atomic_load_n(&w->kick, __ATOMIC_SEQ_CST) ||
           __atomic_load_n(&w->stop, __ATOMIC_SEQ_CST);
}

static void sleep_until_work(worker *w)
{
    pthread_mutex_lock(&w->wake_lock);
    __atomic_store_n(&w->sleeping, 1, __ATOMIC_SEQ_CST);
    while (!has_work(w))
        pthread_cond_wait(&w->wake_cond, &w->wake_lock);
    __atomic_store_n(&w->sleeping, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->kick, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&w->wake_lock);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    if (w->index == 0)
        tdm_placement_bind_progress_thread();
    else
        tdm_placement_bind_lane_thread(w->index);
    __atomic_store_n(&w->placed, 1, __ATOMIC_RELEASE);
    int polls = 0;
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
        if (!take_wheel(w)) { /* an application thread drives: it kicks this one when it leaves */
            sleep_until_work(w);
            polls = 0;
            continue;
        }
        int busy, moved = drive(w, 0, &busy);
        leave_wheel(w);
        if (moved) {
            polls = 0;
            continue;
        }
        polls++;
        if (!busy && polls > PAUSE_SPINS + IDLE_YIELDS) {
            sleep_until_work(w);
            polls = 0;
        } else if (polls > PAUSE_SPINS) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
    return NULL; /* requests still running are abandoned (TDM_Finalize reports them) */
}

/* ---- the application side ---- */

/* Starts worker i if it is not running; MPI_ERR_OTHER if the thread cannot be created. */
static int start_worker(int i)
{
    worker *w = &workers[i];
    pthread_mutex_lock(&start_lock);
    int rc = MPI_SUCCESS;
    if (!w->started) {
        w->index = i;
        w->incoming = w->mine = NULL;
        w->sleeping = w->kick = w->wheel = 0;
        __atomic_store_n(&w->stop, 0, __ATOMIC_SEQ_CST);
        pthread_mutex_init(&w->wake_lock, NULL);
        pthread_cond_init(&w->wake_cond, NULL);
        w->placed = 0;
        if (pthread_create(&w->thread, NULL, worker_main, w) == 0) {
            /* where it runs is known once started (TDM_Get_placement), even if the application
             * thread drives everything before the new thread is first scheduled */
            while (!__atomic_load_n(&w->placed, __ATOMIC_ACQUIRE))
                sched_yield();
            __atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
        } else {
            rc = MPI_ERR_OTHER;
        }
    }
    pthread_mutex_unlock(&start_lock);
    return rc;
}

int tdm_thread_agent_start_thread(void) { return start_worker(0); }

void tdm_thread_agent_stop(void)
{
    pthread_mutex_lock(&start_lock);
    for (int i = 0; i < TDM_MAX_LANES; i++) {
        worker *w = &workers[i];
        if (!w->started)
            continue;
        pthread_mutex_lock(&w->wake_lock);
        __atomic_store_n(&w->stop, 1, __ATOMIC_SEQ_CST);
        pthread_cond_signal(&w->wake_cond);
        pthread_mutex_unlock(&w->wake_lock);
        pthread_join(w->thread, NULL);
        pthread_mutex_destroy(&w->wake_lock);
        pthread_cond_destroy(&w->wake_cond);
        __atomic_store_n(&w->started, 0, __ATOMIC_RELEASE);
        w->incoming = w->mine = NULL;
    }
    pthread_mutex_unlock(&start_lock);
    pending = NULL;
    npending = 0;
    handed_over = completions = completed_by_workers = completed_by_application = 0;
}

/* The worker of a request: its lane's, once that thread runs (if it cannot start, the progress thread
 * drives the lane: lanes are independent schedules, one thread can run them all). */
static worker *worker_for(const tdm_run *run)
{
    worker *w = &workers[run->thread];
    if (run->thread > 0 && !__atomic_load_n(&w->started, __ATOMIC_ACQUIRE) && start_worker(run->thread) != MPI_SUCCESS)
        return &workers[0];
    return w;
}

static void push(tdm_run *run)
{
    worker *w = worker_for(run);
    tdm_run *top = __atomic_load_n(&w->incoming, __ATOMIC_RELAXED);
    do
        run->handoff_next = top;
    while (!__atomic_compare_exchange_n(&w->incoming, &top, run, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    if (!run->lane_parent)
        __atomic_add_fetch(&handed_over, 1, __ATOMIC_RELAXED);
    wake_thread(w);
}

void tdm_thread_agent_hand_over(tdm_run *run)
{
    if (__atomic_load_n(&run->shadow->ready, __ATOMIC_ACQUIRE)) {
        tdm_run_bind_comm(run);
        push(run);
        return;
    }
    /* the duplication request is tested by one application thread at a time */
    pthread_mutex_lock(&pending_lock);
    if (tdm_run_bind_comm(run)) {
        pthread_mutex_unlock(&pending_lock);
        push(run);
        return;
    }
    run->handoff_next = pending;
    pending = run;
    __atomic_add_fetch(&npending, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&pending_lock);
}

/* Hands over the pending requests whose shadow became ready. */
void tdm_thread_agent_pump(void)
{
    if (__atomic_load_n(&npending, __ATOMIC_SEQ_CST) == 0)
        return;
    pthread_mutex_lock(&pending_lock);
    for (tdm_run **link = &pending; *link;) {
        tdm_run *run = *link;
        if (tdm_run_bind_comm(run)) {
            *link = run->handoff_next;
            __atomic_sub_fetch(&npending, 1, __ATOMIC_SEQ_CST);
            push(run);
        } else {
            link = &run->handoff_next;
        }
    }
    pthread_mutex_unlock(&pending_lock);
}

/* Whether run, or one of its lanes, waits for its shadow. */
static int is_pending(const tdm_run *run)
{
    if (__atomic_load_n(&npending, __ATOMIC_SEQ_CST) == 0)
        return 0;
    pthread_mutex_lock(&pending_lock);
    int found = 0;
    for (const tdm_run *p = pending; p && !found; p = p->handoff_next)
        for (const tdm_run *lane = run; lane && !found; lane = lane->lane_next)
            found = p == lane;
    pthread_mutex_unlock(&pending_lock);
    return found;
}

void tdm_thread_agent_completed_by(unsigned long *workers_, unsigned long *application)
{
    *workers_ = __atomic_load_n(&completed_by_workers, __ATOMIC_RELAXED);
    *application = __atomic_load_n(&completed_by_application, __ATOMIC_RELAXED);
}

unsigned long tdm_thread_agent_completions(void) { return __atomic_load_n(&completions, __ATOMIC_SEQ_CST); }

/* Sleeps on done_cond until cond(arg) holds, at most timeout_ms (0: no limit). */
static void sleep_until(int (*cond)(const void *), const void *arg, int timeout_ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += (long)timeout_ms * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&done_lock);
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* before reading the flag: pairs with the thread's marking */
    while (!cond(arg)) {
        if (timeout_ms == 0)
            pthread_cond_wait(&done_cond, &done_lock);
        else if (pthread_cond_timedwait(&done_cond, &done_lock, &deadline) == ETIMEDOUT)
            break;
    }
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&done_lock);
}

/* Drives the workers of run's lanes once, where their wheels are free; returns whether anything moved. */
static int drive_lanes(const tdm_run *run)
{
    int moved = 0, driven = 0; /* bit i: worker i driven already */
    for (const tdm_run *lane = run; lane; lane = lane->lane_next) {
        int i = lane->thread < TDM_MAX_LANES && __atomic_load_n(&workers[lane->thread].started, __ATOMIC_ACQUIRE)
                    ? lane->thread
                    : 0;
        if (!(driven & 1 << i))
            moved |= drive_from_application(&workers[i]);
        driven |= 1 << i;
    }
    return moved;
}

void tdm_thread_agent_drive(void)
{
    for (int i = 0; i < TDM_MAX_LANES; i++)
        drive_from_application(&workers[i]);
}

int tdm_thread_agent_wait(tdm_run *run)
{
    while (is_pending(run)) { /* its shadow is being created: only this thread can finish that */
        tdm_thread_agent_pump();
        if (is_pending(run))
            sched_yield();
    }
    for (int polls = 0; !tdm_run_done(run);) {
        /* work of this thread's own: inline requests and split tails may be what another rank needs
         * before this request can finish, and so may requests still waiting for their shadow (another
         * started after them found it ready and went ahead: only an application thread hands them over) */
        if (tdm_inline_running() > 0 || tdm_split_waiting())
            tdm_inline_progress();
        tdm_thread_agent_pump();
        if (drive_lanes(run))
            polls = 0;
        else if (++polls < PAUSE_SPINS)
            cpu_relax();
        else
            sched_yield();
    }
    return MPI_SUCCESS;
}

static int completions_moved(const void *mark) { return tdm_thread_agent_completions() != *(const unsigned long *)mark; }

void tdm_thread_agent_wait_change(unsigned long mark)
{
    if (tdm_split_waiting() && tdm_split_poll())
        return;
    if (__atomic_load_n(&npending, __ATOMIC_SEQ_CST) > 0) {
        tdm_thread_agent_pump();
        sched_yield();
        return;
    }
    for (int polls = 0; polls < PAUSE_SPINS + WAIT_YIELDS; polls++) {
        tdm_thread_agent_drive();
        if (completions_moved(&mark))
            return;
        if (polls < PAUSE_SPINS)
            cpu_relax();
        else
            sched_yield();
    }
    sleep_until(completions_moved, &mark, 10);
}

int tdm_thread_agent_running(void)
{
    return (int)(__atomic_load_n(&handed_over, __ATOMIC_SEQ_CST) - tdm_thread_agent_completions()) +
           __atomic_load_n(&npending, __ATOMIC_SEQ_CST);
}

/*
 * Agent dispatch: the progress mode picks the agent of each new request, and completion calls go to
 * the agent that runs the request. Requests of both agents may be outstanding at once (the mode may
 * change between collectives).
 */
#include "agent.h"

#include "../base/error.h"
#include "../base/smpi_support.h"
#include "../base/state.h"
#include "../engine/node.h"
#include "../model/split_tree_model.h"
#include "../placement/placement.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tdm_progress_mode mode = TDM_PROGRESS_INLINE;
static int mode_asked;       /* a mode was set before TDM_Init: applied there */
static tdm_progress_mode asked;
static int dcp_asked;        /* "dcp": dedicated collective processes (src/dcp/), the rest inline */
static int dcp_chosen;       /* the job runs in dcp progress, chosen at TDM_Init */
static tdm_run *answered;     /* answered runs (below) started and not complete, linked by active_next */
static int nanswered;
static int answered_polls;   /* looks at answers in a row that found none (a wait yields past many) */

static int parse_mode(const char *fn, const char *name, tdm_progress_mode *out)
{
    int is_dcp = name && strcmp(name, "dcp") == 0;
    if (is_dcp) {
        *out = TDM_PROGRESS_INLINE;
        dcp_asked = 1;
        return MPI_SUCCESS;
    }
    if (name && strcmp(name, "inline") == 0)
        *out = TDM_PROGRESS_INLINE;
    else if (name && strcmp(name, "thread") == 0)
        *out = TDM_PROGRESS_THREAD;
    else if (name && strcmp(name, "split") == 0)
        *out = TDM_PROGRESS_SPLIT;
    else
        return tdm_error(fn, MPI_ERR_ARG,
                         "unknown progress mode \"%s\" (argument mode); known: inline thread split dcp",
                         name ? name : "(null)");
    return MPI_SUCCESS;
}

static const char *thread_level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                            : "MPI_THREAD_MULTIPLE";
}

static int switch_to(const char *fn, tdm_progress_mode wanted)
{
    if (wanted != TDM_PROGRESS_INLINE) {
        if (TDM_SIMULATED)
            return tdm_error(fn, MPI_ERR_OTHER,
                             "%s progress needs a progress thread, and SimGrid's SMPI cannot simulate threads "
                             "(dedicated processes can be); progress stays inline",
                             wanted == TDM_PROGRESS_SPLIT ? "split" : "thread");
        if (tdm_global.mpi_thread_level < MPI_THREAD_MULTIPLE)
            return tdm_error(fn, MPI_ERR_OTHER,
                             "%s progress needs MPI_THREAD_MULTIPLE, MPI provides %s; progress stays inline",
                             wanted == TDM_PROGRESS_SPLIT ? "split" : "thread",
                             thread_level_name(tdm_global.mpi_thread_level));
        int rc = tdm_thread_agent_start_thread();
        if (rc != MPI_SUCCESS)
            return tdm_error(fn, rc, "could not start the progress thread; progress stays inline");
    }
    if (mode != wanted)
        tdm_global.settings_epoch++; /* cached schedules were built for the old mode */
    mode = wanted;
    return MPI_SUCCESS;
}

int tdm_progress_set(const char *fn, const char *name)
{
    tdm_progress_mode wanted = TDM_PROGRESS_INLINE;
    if (tdm_global.initialized && name && strcmp(name, "dcp") == 0) /* the job's ranks are divided at TDM_Init */
        return tdm_error(fn, MPI_ERR_OTHER, "dcp progress is chosen before TDM_Init (argument mode)");
    int rc = parse_mode(fn, name, &wanted);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!tdm_global.initialized) { /* before TDM_Init: applied there */
        mode_asked = 1;
        asked = wanted;
        return MPI_SUCCESS;
    }
    /* the application's side of a call through a DCP runs inline (its first call on a communicator waits
     * for the communicator's name there), and so do the calls the DCPs do not serve */
    if (dcp_chosen && wanted != TDM_PROGRESS_INLINE)
        return tdm_error(fn, MPI_ERR_OTHER, "the job runs in dcp progress, chosen at TDM_Init; \"%s\" is refused "
                                            "(argument mode)", name);
    return switch_to(fn, wanted);
}

tdm_progress_mode tdm_progress_current(void) { return mode; }

/* The split-tree model's inputs: ranks and cores of this node; TANDEM_SPLIT_S overrides the model.
 * Also whether every rank is on this node (tdm_global.one_node). */
static int node_ranks = 1, node_cores = 1, split_s_env = -1;

static int read_split_settings(const char *fn)
{
    node_ranks = tdm_node_machine_size(); /* the machine's node, not an emulated one */
    int world_ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &world_ranks);
    tdm_global.one_node = node_ranks == world_ranks;
    node_cores = tdm_placement_node_cores();
    split_s_env = -1;
    const char *env = getenv("TANDEM_SPLIT_S");
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end || v < 0 || v > 30)
            return tdm_error(fn, MPI_ERR_ARG, "TANDEM_SPLIT_S=%s: expected a number of tree levels (0..30)", env);
        split_s_env = (int)v;
    }
    return MPI_SUCCESS;
}

int tdm_split_levels_for(int size)
{
    if (mode != TDM_PROGRESS_SPLIT)
        return -1;
    int height = tdm_split_height(size);
    int s = split_s_env;
    if (s < 0) {
        tdm_split_model model = {node_cores, 0};
        s = tdm_split_best_s(&model, node_ranks < node_cores ? node_ranks : node_cores);
    }
    return s < height ? s : height;
}

int tdm_agents_init(const char *fn)
{
    mode = TDM_PROGRESS_INLINE;
    int rc = read_split_settings(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    tdm_progress_mode wanted = TDM_PROGRESS_INLINE;
    const char *env = getenv("TANDEM_PROGRESS");
    if (mode_asked) {
        wanted = asked; /* the C call wins over the environment */
    } else if (env && *env) {
        rc = parse_mode(fn, env, &wanted);
        if (rc != MPI_SUCCESS)
            return tdm_error(fn, rc, "TANDEM_PROGRESS=%s: unknown progress mode; known: inline thread split dcp",
                             env);
    }
    mode_asked = 0;
    dcp_chosen = dcp_asked;
    dcp_asked = 0;
    if (dcp_chosen)
        return MPI_SUCCESS; /* TDM_Init divides the job next (src/dcp/) */
    if (wanted != TDM_PROGRESS_INLINE && switch_to(fn, wanted) != MPI_SUCCESS)
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
    return MPI_SUCCESS;
}

int tdm_progress_dcp_chosen(void) { return dcp_chosen; }

int tdm_progress_dcp_wanted(void)
{
    const char *env = getenv("TANDEM_PROGRESS");
    return mode_asked ? dcp_asked : env && strcmp(env, "dcp") == 0;
}

void tdm_agents_finalize(void)
{
    dcp_chosen = 0;
    answered = NULL; /* runs never completed are abandoned */
    nanswered = 0;
    answered_polls = 0;
    tdm_thread_agent_stop();
    tdm_split_finalize();
    tdm_inline_finalize();
    mode = TDM_PROGRESS_INLINE;
}

/* The lanes after the first of a call: to color threads under the thread agent, else interleaved
 * inline. (Calls in lanes are never split: split schedules are trees.) */
static __attribute__((noinline)) void start_lanes(tdm_run *run)
{
    for (tdm_run *lane = run->lane_next; lane; lane = lane->lane_next) {
        lane->split_tail = 0;
        lane->agent = run->agent;
        if (lane->agent == TDM_PROGRESS_THREAD)
            tdm_thread_agent_hand_over(lane);
        else
            tdm_inline_start(lane);
    }
}

/* ---- answered runs ----
 * A run that waits only for answers in this process's mailbox (tdm_exec_only_answers: a small call
 * handed to a dedicated collective process of the node), started inline, is posted in its start and
 * then only looked at: its DCP answers it, and a wait for it, a test of it or any progress call (the
 * interposer's requests complete through their hook) looks for the answer. The call then costs the
 * application a post and a take, not the inline agent's passes, opportunistic progress and blocking
 * waits over MPI's requests. */
#define ANSWER_SPIN_POLLS 100

static void answered_complete(tdm_run *run)
{
    tdm_run_list_remove(&answered, run);
    nanswered--;
    answered_polls = 0;
    tdm_shadow_release(run->shadow, &run->tag_hold);
    tdm_run_completing(run);
    tdm_run_mark_done_here(run);
}

/* 1 once the run's answers are taken (or it failed). */
static int answered_poll(tdm_run *run)
{
    if (tdm_run_done(run))
        return 1;
    if (!tdm_exec_take_answers(&run->exec))
        return 0;
    answered_complete(run);
    return 1;
}

/* Looks at every answered run's answers: a completion hook (the interposer's requests) must run without
 * a wait for the run itself. */
static void poll_answered(void)
{
    for (tdm_run *run = answered, *next; run; run = next) {
        next = run->active_next;
        answered_poll(run);
    }
}

/* Between looks at an answer: this thread's other calls move on, now and then MPI's own progress (a
 * message this process sent before may need it), and past a short spin the core goes to whoever needs
 * it (the DCP may share it). */
void tdm_agent_answer_pause(int polls)
{
    tdm_agent_idle();
    if (polls % 16 == 0) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    if (polls > ANSWER_SPIN_POLLS)
        sched_yield();
}

static void answered_pause(void) { tdm_agent_answer_pause(++answered_polls); }

static int starts_answered(tdm_run *run)
{
    return mode == TDM_PROGRESS_INLINE && !run->lane_next && !run->lane_parent && !run->prelude &&
           tdm_exec_only_answers(&run->exec) && tdm_run_bind_comm(run);
}

static void start_answered(tdm_run *run)
{
    if (tdm_inline_running() > 0) /* opportunistic progress, as every inline start makes */
        tdm_inline_progress();
    run->agent = TDM_AGENT_ANSWERED;
    tdm_run_list_push(&answered, run);
    nanswered++;
    tdm_exec_post_answers(&run->exec);
    if (tdm_exec_finished(&run->exec)) /* failed at once */
        answered_complete(run);
}

int tdm_agent_takes_answers(void) { return mode == TDM_PROGRESS_INLINE; }

void tdm_agent_answering(tdm_run *run)
{
    run->agent = TDM_AGENT_ANSWERED;
    run->split_tail = 0;
    tdm_run_list_push(&answered, run);
    nanswered++;
    if (!tdm_exec_answers_due(&run->exec) && tdm_exec_take_answers(&run->exec)) /* an answerless call */
        answered_complete(run);
}

void tdm_agent_start(tdm_run *run)
{
    run->split_tail = 0;
    for (tdm_run *lane = run; lane; lane = lane->lane_next) { /* names its shm cells, takes its turn for them */
        lane->exec.call = tdm_tag_hold_call(&lane->tag_hold);
        if (lane->exec.sched->shm_actions && !lane->tag_hold.fixed_tag) /* see tdm_run_bind_comm_slow */
            lane->exec.shm_ticket = lane->shadow->shm_tickets++;
    }
    if (starts_answered(run)) {
        start_answered(run);
        return;
    }
    if (mode == TDM_PROGRESS_SPLIT) {
        tdm_split_start(run); /* it picks the agent of each segment */
        if (run->lane_next)
            start_lanes(run);
        return;
    }
    run->agent = mode;
    /* The lanes run independently (each has its own tag): the others start first, so that the common
     * call, in one lane, ends with its own start. */
    if (run->lane_next)
        start_lanes(run);
    if (mode == TDM_PROGRESS_THREAD)
        tdm_thread_agent_hand_over(run);
    else
        tdm_inline_start(run);
}

void tdm_agent_progress(void)
{
    tdm_inline_progress(); /* it also hands over pending requests */
    if (answered)
        poll_answered();
    if (mode != TDM_PROGRESS_INLINE)
        tdm_thread_agent_drive(); /* as MPI_Test drives MPI: the progress thread may share this core */
}

void tdm_agent_idle(void)
{
    /* as a wait for a progress thread's request does it: inline requests and split tails are this
     * thread's (and not safe to move from several application threads unless there are some) */
    if (tdm_inline_running() > 0 || tdm_split_waiting())
        tdm_inline_progress();
    if (answered)
        poll_answered();
    tdm_thread_agent_pump();
    if (mode != TDM_PROGRESS_INLINE)
        tdm_thread_agent_drive();
}

unsigned long tdm_agent_completion_mark(void) { return tdm_thread_agent_completions(); }

int tdm_agent_block(unsigned long mark)
{
    if (nanswered > 0) { /* no MPI request completes for an answer: poll (and let MPI progress now and then) */
        answered_pause();
        return MPI_SUCCESS;
    }
    if (tdm_inline_running() > 0)
        return tdm_inline_block(mark, NULL, NULL, 0); /* it also returns when the progress thread completes something */
    tdm_thread_agent_wait_change(mark);
    return MPI_SUCCESS;
}

int tdm_agent_wait(tdm_run *run)
{
    if (run->agent == TDM_AGENT_ANSWERED) {
        while (!answered_poll(run))
            answered_pause();
        return MPI_SUCCESS;
    }
    if (run->agent == TDM_PROGRESS_THREAD)
        return run->split_tail ? tdm_split_wait(run) : tdm_thread_agent_wait(run);
    return tdm_inline_wait(run);
}

int tdm_agent_check(tdm_run *run)
{
    if (run->agent == TDM_AGENT_ANSWERED)
        return answered_poll(run);
    return run->split_tail ? tdm_split_check(run) : tdm_run_done(run);
}

int tdm_agent_running(void) { return tdm_inline_running() + nanswered + tdm_thread_agent_running(); }

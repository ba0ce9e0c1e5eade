/*
 * Agents drive the engine for the schedules of running calls (runs, run.h): any schedule, whatever the
 * collective; they know neither requests nor collectives. Three exist:
 *   inline  schedules advance inside Tandem calls (Test, Wait, any collective start) on the
 *           application's thread (inline.c);
 *   thread  one progress thread per process drives every schedule handed to it; the application only
 *           hands a run over and later picks up its completion (thread.c).
 *   split   the thread agent, with tree schedules cut in split-tree form: the S levels nearest the
 *           leaves run on the application thread (in the starting call for all-to-one trees, in
 *           Wait/Test for one-to-all trees), the others on the progress thread (split.c).
 * The progress mode picks the agent of each new call; it may change between collectives, and calls
 * already running stay with the agent that started them. A run that waits only for answers in the
 * process's mailbox (a small call handed to a DCP of the node) needs no driving: posted as it starts,
 * it is only looked at, by waits, tests and progress calls (agent.c).
 */
#ifndef TANDEM_AGENT_H
#define TANDEM_AGENT_H

#include "run.h"

#include <mpi.h>

typedef enum { TDM_PROGRESS_INLINE, TDM_PROGRESS_THREAD, TDM_PROGRESS_SPLIT } tdm_progress_mode;
/* The agent of a run that waits only for answers (above). */
enum { TDM_AGENT_ANSWERED = TDM_PROGRESS_SPLIT + 1 };

/* Applies the progress mode asked for before TDM_Init (TDM_Set_progress, TANDEM_PROGRESS); a thread
 * mode MPI cannot support falls back to inline with a message. */
int tdm_agents_init(const char *fn);
/* Whether TDM_Init was asked for dcp progress (TDM_Set_progress("dcp") or TANDEM_PROGRESS=dcp): the job is
 * then divided into application ranks and dedicated collective processes (src/dcp/), and the agent of
 * the application's calls stays inline. */
int tdm_progress_dcp_chosen(void);
/* Before tdm_agents_init: whether TDM_Init will choose dcp progress (TDM_Set_progress, else TANDEM_PROGRESS). */
int tdm_progress_dcp_wanted(void);
/* Stops the progress thread; requests still running are abandoned. */
void tdm_agents_finalize(void);
/* Selects the agent of the collectives started from now on. */
int tdm_progress_set(const char *fn, const char *mode);
tdm_progress_mode tdm_progress_current(void);

/* Takes over a request whose schedule and tag are set. */
void tdm_agent_start(tdm_run *run);
/* Whether runs that wait only for answers (tdm_exec_only_answers) are this thread's to take (inline
 * progress): then a call may post its own and hand its run over with tdm_agent_answering. */
int tdm_agent_takes_answers(void);
/* Takes over a run that waits only for answers, posted already (its exec resumed at its takes); makes
 * no MPI call (a communicator's delete callback may hand one over). */
void tdm_agent_answering(tdm_run *run);
/* Between looks at an answer in this process's mailbox, the polls-th in a row: the other calls of this
 * thread move on, MPI now and then, and past a short spin the core goes to the other processes. */
void tdm_agent_answer_pause(int polls);
/* Advances what the application thread drives (inline requests), without blocking. */
void tdm_agent_progress(void);
/* What a thread does between polls of a wait outside any request (a blocking call on the node's lines):
 * moves its inline requests and split tails, hands over requests whose shadow became ready, drives the
 * progress thread's requests if no thread does. */
void tdm_agent_idle(void);
/* A mark to block on: take it before looking at the requests' completion flags. */
unsigned long tdm_agent_completion_mark(void);
/* Blocks until some running request may have completed since the mark was taken (or returns at once
 * if none is running). */
int tdm_agent_block(unsigned long mark);
/* Blocks until run is complete, advancing inline requests meanwhile. */
int tdm_agent_wait(tdm_run *run);
/* Whether run is complete, without blocking; moves a split request on to its last segment. */
int tdm_agent_check(tdm_run *run);
/* The split level S for a tree collective on a communicator of `size` ranks in split mode (-1 in the
 * other modes): TANDEM_SPLIT_S if set, else the split-tree model for this node's ranks and cores. */
int tdm_split_levels_for(int size);
/* Requests started and not yet complete, over both agents. */
int tdm_agent_running(void);

/* The agents' own entry points, used by the dispatch above. */
void tdm_inline_start(tdm_run *run);
void tdm_inline_progress(void);
/* Blocks until one of the running requests' messages, or of the n_extra requests *extra[i], completes
 * (or the progress thread completes something after mark), then makes a progress pass. A completed
 * extra request is set to MPI_REQUEST_NULL, its status in extra_status[i] (if not NULL); an error of one
 * is returned. */
int tdm_inline_block(unsigned long mark, MPI_Request *const *extra, MPI_Status *extra_status, int n_extra);
/* Something besides MPI that tdm_inline_block's wait must notice (a DCP's clients' mailboxes): while it
 * polls, it returns as soon as ready() says so. NULL: nothing. */
void tdm_inline_watch(int (*ready)(void));
int tdm_inline_wait(tdm_run *run);
int tdm_inline_running(void);
/* A test found a request not done: in simulation, where some call waits for cells, the time of a poll
 * passes (as SMPI charges an MPI_Test), so that a program's test loop lets the ranks that fill them
 * run. */
void tdm_inline_test_missed(void);
void tdm_inline_finalize(void);

int tdm_thread_agent_start_thread(void);
void tdm_thread_agent_stop(void);
void tdm_thread_agent_hand_over(tdm_run *run);
/* Hands over the requests that waited for their shadow communicator, if it is ready now. */
void tdm_thread_agent_pump(void);
int tdm_thread_agent_wait(tdm_run *run);
/* The application thread drives the progress thread's requests once, if no thread drives them. */
void tdm_thread_agent_drive(void);
/* Completions the progress thread has signalled so far: a wait for any completion watches it. */
unsigned long tdm_thread_agent_completions(void);
/* TANDEM_VERBOSE: calls completed by the progress and color threads, and by application threads that
 * drove them while waiting or testing. */
void tdm_thread_agent_completed_by(unsigned long *workers, unsigned long *application);
/* Sleeps until the completion count differs from seen (or a short time passed). */
void tdm_thread_agent_wait_change(unsigned long seen);
int tdm_thread_agent_running(void);

/* Split execution (split.c). */
void tdm_split_start(tdm_run *run);
int tdm_split_wait(tdm_run *run);
int tdm_split_check(tdm_run *run);
/* Starts the tails whose background segment is done; 1 if any started. */
int tdm_split_poll(void);
int tdm_split_waiting(void);
void tdm_split_finalize(void);

#endif

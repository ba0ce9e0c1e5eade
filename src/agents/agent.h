/*
 * Agents drive the engine for running requests. This issue has the inline agent: schedules advance
 * inside Tandem calls (Test, Wait, and any collective start) on the application's thread.
 */
#ifndef TANDEM_AGENT_H
#define TANDEM_AGENT_H

struct tdm_request;

/* Takes over a request whose schedule and tag are set, and advances it as far as it can. */
void tdm_agent_start(struct tdm_request *req);
/* Advances every running request as far as possible without blocking. */
void tdm_agent_progress(void);
/* Blocks until at least one message of a running request completes (or returns at once if none is
 * running), then advances. */
int tdm_agent_block(void);
/* Progresses everything until req is complete. */
int tdm_agent_progress_until(struct tdm_request *req);
/* Running requests, for Finalize's check. */
int tdm_agent_running(void);
void tdm_agent_finalize(void);

#endif

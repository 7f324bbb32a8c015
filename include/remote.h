/* SPDX-License-Identifier: GPL-2.0-or-later */
/* remote.h: monitor a remote board through its pmutop agent (client), and the agent's controls. */
#ifndef PMUTOP_REMOTE_H
#define PMUTOP_REMOTE_H
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;

/*
 * The agent is `pmutop -b -r -`: batch mode writing a recording to its stdout. When its stdin
 * is a pipe it also reads control lines there (one per line, answers and errors on stderr):
 *   mode NAME       switch mode (the stream gets a mode line)
 *   interval MS     change the interval
 *   cpus LIST|all   change the CPU set
 *   mark TEXT       put a marker into the stream
 *   quit            end (so does end of file on stdin, or its stdout closing)
 *
 * The client (--remote [USER@]HOST) runs `TRANSPORT -- HOST AGENT -b -r - -i MS [-m MODE]
 * [-C LIST]` (TRANSPORT default "ssh -T", AGENT default "pmutop", both split into words
 * with the command-line quoting rules and run with execvp; every word after HOST quoted for the
 * remote shell, as ssh joins them into one shell line there; the host, the mode name and the
 * CPU list checked first), reads the stream as it comes, checks it (mode names, CPUs) and
 * feeds it to a live replay (replay.h), so the screen, batch output and commands work as for
 * a local run; mode, interval and cpus changes are sent to the agent. When the link drops,
 * the client says so, keeps what it has and reconnects with backoff (1 s doubling to 30 s).
 */

/* Client: registers the client as an observer of the run (its state, the agent's pipes, the
 * header's link state, the changes it forwards); app_init then opens it as the source: starts the
 * agent and waits (up to 20 s) for its header, mode and first tick. Returns 0, or -1 with a
 * message (out of memory). */
int remote_client_add(struct app_ctx *app, char *err, size_t errlen);
/* Client: true when this run is a remote client. */
bool remote_app_active(const struct app_ctx *app);
/* Client: watches the agent's pipes in app->loop (call once the loop exists). */
void remote_app_attach(struct app_ctx *app);
/* Client: @fd became readable. Returns the number of new ticks, or 0; -1 when @fd is not one
 * of the client's. */
int remote_app_input(struct app_ctx *app, int fd);
/* Client: sends one control line to the agent; -1 with @err when the link is down. */
int remote_app_send(struct app_ctx *app, const char *line, char *err, size_t errlen);
/* Client: on every timer tick: reconnects a lost link when its backoff is over. */
void remote_app_poll(struct app_ctx *app);

/* Agent: true when this run is an agent reading control lines (-b -r - with a pipe on stdin). */
bool remote_agent_wanted(const struct app_ctx *app);
/* Agent: registers the agent as an observer of the run: it reads and runs the control lines that
 * arrive on stdin and ends the run (app_quit) at end of file or "quit". -1: out of memory. */
int remote_agent_add(struct app_ctx *app);
/* Agent: runs one control line (a COMMAND_CONTROL command of the table, command.h). Returns
 * 0, or -1 with "control: message". */
int remote_agent_command(struct app_ctx *app, const char *line, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.h: the one loop of a run: timer, signals and input drive ticks; each refresh makes a frame.
 */
#ifndef PMUTOP_RUN_H
#define PMUTOP_RUN_H
#include <stdbool.h>

struct app_ctx;
struct frame;

/* Exit status when the screen's terminal went away without a SIGHUP (hangup, EIO, a closed
 * pane): the run stopped and recordings and the flight ring were flushed and closed. */
#define RUN_EXIT_TERMINAL_LOST 3

/* What the loop hands to the front end (the screen, or batch output). */
struct run_frontend {
	void *ctx;
	/* A new frame (a refresh): draw or print it. Returns 0, 1 to end the run cleanly (the
	 * reader went away), -1 on error (the run exits 1). */
	int (*on_frame)(void *ctx, const struct frame *f);
	/* A tick or a command changed what is shown without a new frame (screen redraw). */
	void (*on_change)(void *ctx);
	/* stdin is readable, or @hangup: poll said POLLHUP/POLLERR/POLLNVAL (keys; NULL: stdin is
	 * not watched). */
	void (*on_stdin)(void *ctx, bool hangup);
	/* SIGWINCH. */
	void (*on_resize)(void *ctx);
	/* After every tick, new frame or not (stepwise work such as the cache probe). */
	void (*after_tick)(void *ctx);
	/* Checked after every event: non-zero is the exit status of a run whose front end cannot
	 * go on (the screen's terminal went away: RUN_EXIT_TERMINAL_LOST). NULL: never. */
	int (*ended)(void *ctx);
	/* Serve a recording as fast as it can be read (batch replay) instead of at its pace. */
	bool unpaced;
	/* A read error ends the run with status 1 (batch); else it is logged and the run goes on
	 * (the screen shows it). */
	bool errors_end_run;
};

/* Runs until quit, a signal, the end of an unpaced recording, -n frames, or the front end's
 * end (a lost terminal). Returns the exit status (0, 1 on a read error, or what ended()
 * said). */
int run_loop(struct app_ctx *app, const struct run_frontend *fe);

#endif

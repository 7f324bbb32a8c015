/* SPDX-License-Identifier: GPL-2.0-or-later */
/* playback.h: the engine's driver of a recorded source: -R FILE, a remote stream, step, seek. */
#ifndef PMUTOP_PLAYBACK_H
#define PMUTOP_PLAYBACK_H
#include <stddef.h>

struct app_ctx;

/* Loads app->opt.replay (unless app->replay is already set up by the remote client), makes it
 * the run's source, takes family and interval from its header. A pipe or FIFO is followed as
 * a stream: this waits for its header and first mode (app->stream_wait). Returns 0, or an
 * exit status (2: unreadable or corrupt file, no data) with @err, or APP_INIT_QUIT. */
int playback_open(struct app_ctx *app, char *err, size_t errlen);
/* A mode, interval or CPU change on a recorded source: returns 1 to go on as on a live one, else
 * 0 (done: the recorded mode runs, or the agent was asked) or -1 with @err. */
/* A new sample cadence on a source that forwards commands (--remote): the agent ticks at it (the
 * interval when 0). 0 (also for other sources), or -1 with @err. */
int playback_sample(struct app_ctx *app, long sample_ms, char *err, size_t errlen);
int playback_filter(struct app_ctx *app, const char *what, const char *arg, char *err,
		    size_t errlen);
/* A streamed recording (-R - or a FIFO): the descriptor the run loop watches, -1 if none. */
int playback_stream_fd(const struct app_ctx *app);
/* The stream is readable: takes what arrived. Returns the new ticks; -1 at its end (logged),
 * -2 when it failed (a line too long, a bad header or mode; logged as an error). */
int playback_input(struct app_ctx *app);
/* The mode to start with: the first recorded one. */
const char *playback_default_mode(struct app_ctx *app);
/* Ticks left to serve. */
int playback_pending(const struct app_ctx *app);
/* Serves the next tick (following the recording's mode switches, logging markers). Returns
 * 1 with a snapshot, 0 for none (priming, end of the recording), -1 on error. */
int playback_tick(struct app_ctx *app, char *err, size_t errlen);
/* Shows recorded tick @index (0-based; rebuilt from the tick before it). */
int playback_seek(struct app_ctx *app, int index, char *err, size_t errlen);
/* :tick [N], :jump TIME|+S|-S|start|end|mark [TEXT] */
int playback_step(struct app_ctx *app, int n, char *err, size_t errlen);
int playback_seek_arg(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen);
/* Banner ("REPLAY file") and position line ("tick 12/300  t 12.0 of 300.0 s  x2"). */
void playback_banner(const struct app_ctx *app, char *buf, size_t len);
void playback_status(const struct app_ctx *app, char *buf, size_t len);
void playback_free(struct app_ctx *app);

#endif

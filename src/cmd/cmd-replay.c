/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-replay.c: "tick [N]", "jump WHERE", "rate X": moving through a replay (pmutop -R). */
#include "app.h"
#include "command.h"
#include "playback.h"
#include <stdio.h>
#include <stdlib.h>

static int need_replay(const struct app_ctx *app, const char *cmd, char *err, size_t errlen)
{
	if (source_has(&app->source, SOURCE_CAP_SEEK))
		return 0;
	snprintf(err, errlen, "%s works in a replay (pmutop -R FILE)", cmd);
	return -1;
}

/* After a step or a jump the screen shows the tick reached: a frame of its own. */
static int show(struct app_ctx *app, int rc)
{
	if (rc == 0)
		app_frame_step(app);
	return rc;
}

/* Steps N ticks (back when negative) and holds the replay there (the display pauses). */
static int exec_tick(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct app_ctx *app = ctx->app;

	if (need_replay(app, argv[0], err, errlen) < 0)
		return -1;
	int n = argc > 1 ? atoi(argv[1]) : 1;
	app_set_paused(app, true);
	return show(app, playback_step(app, n, err, errlen));
}

static int exec_jump(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	if (need_replay(ctx->app, argv[0], err, errlen) < 0)
		return -1;
	return show(ctx->app, playback_seek_arg(ctx->app, argc, argv, err, errlen));
}

static int exec_rate(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (need_replay(ctx->app, argv[0], err, errlen) < 0)
		return -1;
	return app_set_speed(ctx->app, argv[1], err, errlen);
}

const struct command cmd_tick_entry = {
    .name = "tick",
    .usage = "tick [N]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_NUMBER},
    .exec = exec_tick,
    .help = "replay: show the next tick (N ticks; negative steps back)",
};

const struct command cmd_jump_entry = {
    .name = "jump",
    .usage = "jump SECONDS|+S|-S|start|end|mark [TEXT]",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_TEXT},
    .exec = exec_jump,
    .help = "replay: go to a time, relative time, the start or end, or the next mark (with TEXT)",
};

const struct command cmd_rate_entry = {
    .name = "rate",
    .usage = "rate X|+|-",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_NUMBER},
    .exec = exec_rate,
    .help = "replay: play at X times the recorded pace (0.5 to 16)",
};

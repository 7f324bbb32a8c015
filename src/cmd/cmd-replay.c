/* cmd-replay.c: "tick [N]", "jump WHERE", "rate X": moving through a replay (pmutop -R). */
#include "app.h"
#include "command.h"
#include "replay.h"
#include <stdio.h>
#include <stdlib.h>

static int need_replay(const struct app_ctx *app, const char *cmd, char *err, size_t errlen)
{
	if (app->replay && !app->remote)
		return 0;
	snprintf(err, errlen, "%s works in a replay (pmutop -R FILE)", cmd);
	return -1;
}

/* Steps N ticks (back when negative) and pauses the replay's own pace. */
static int exec_tick(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct app_ctx *app = ctx->app;

	if (need_replay(app, argv[0], err, errlen) < 0)
		return -1;
	int n = argc > 1 ? atoi(argv[1]) : 1;
	app->paused = true;
	return replay_app_step(app, n, err, errlen);
}

static int exec_jump(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	if (need_replay(ctx->app, argv[0], err, errlen) < 0)
		return -1;
	return replay_app_seek_arg(ctx->app, argc, argv, err, errlen);
}

static int exec_rate(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (need_replay(ctx->app, argv[0], err, errlen) < 0)
		return -1;
	return replay_app_speed(ctx->app, argv[1], err, errlen);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-interval.c: "interval DURATION|+|-", the refresh interval, in steps or as a duration. */
#include "app.h"
#include "command.h"
#include <stdio.h>
#include <string.h>

static const long steps[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000};
#define NSTEPS (long)(sizeof(steps) / sizeof(steps[0]))

/* The next step above (@dir 1) or below (@dir -1) @cur; @cur when there is none. */
static long step_interval(long cur, int dir)
{
	if (dir > 0) {
		for (long i = 0; i < NSTEPS; i++)
			if (steps[i] > cur)
				return steps[i];
	} else {
		for (long i = NSTEPS - 1; i >= 0; i--)
			if (steps[i] < cur)
				return steps[i];
	}
	return cur;
}

static int exec_interval(const struct command_ctx *ctx, int argc, char **argv, char *err,
			 size_t errlen)
{
	const char *v = argv[1];
	long ms;

	(void)argc;
	if (strcmp(v, "+") == 0 || strcmp(v, "-") == 0)
		return app_set_interval(ctx->app,
					step_interval(ctx->app->interval_ms, v[0] == '+' ? 1 : -1),
					err, errlen);
	if (command_parse_ms(v, &ms, err, errlen) < 0) {
		snprintf(err, errlen, "interval: \"%s\" is not a duration (500, 500ms, 2.5s)", v);
		return -1;
	}
	return app_set_interval(ctx->app, ms, err, errlen);
}

const struct command cmd_interval_entry = {
    .name = "interval",
    .usage = "interval DURATION|+|-",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_NUMBER},
    .flags = COMMAND_CONTROL,
    .exec = exec_interval,
    .help = "set the refresh interval (500 = 500ms, 2.5s, 1m); + and - step it",
};

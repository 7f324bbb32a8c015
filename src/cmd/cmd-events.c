/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-events.c: "add EVENT...", "remove EVENT...", "define NAME EVENTS METRICS": ad hoc modes. */
#include "app.h"
#include "command.h"
#include "mode.h"
#include <stdio.h>
#include <string.h>

/* The running mode plus or minus events (app_edit_events): one engine function. */
static int change_events(const struct command_ctx *ctx, int argc, char **argv, bool add, char *err,
			 size_t errlen)
{
	if (app_edit_events(ctx->app, add, argc - 1, argv + 1, err, errlen) < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

static int exec_add(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	return change_events(ctx, argc, argv, true, err, errlen);
}

static int exec_remove(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	return change_events(ctx, argc, argv, false, err, errlen);
}

static int exec_define(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	struct app_ctx *app = ctx->app;
	char metrics[1024];

	(void)argc;
	/* METRICS as "a=EXPR,b=EXPR" or "a=EXPR;b=EXPR" */
	snprintf(metrics, sizeof(metrics), "%s", argv[3]);
	struct mode *m = mode_define(argv[1], argv[2], metrics, err, errlen);
	if (!m)
		return -1;
	const struct mode *old = mode_find(app->modes, argv[1]);
	if (old && strcmp(old->name, argv[1]) == 0 && old->source &&
	    strcmp(old->source, "define") != 0) {
		mode_free(m);
		snprintf(err, errlen,
			 "mode %s already exists (built-in or from a file); choose another name",
			 argv[1]);
		return -1;
	}
	mode_register(app->modes, m);
	if (app_set_mode(app, argv[1], err, errlen) < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

const struct command cmd_add_entry = {
    .name = "add",
    .usage = "add EVENT...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_EVENT},
    .exec = exec_add,
    .help = "add events (perf's syntax: cycles:u, cpu/event=0x3c/, n=r3c; each gets a column "
	    "ALIAS_ps, per second)",
};

const struct command cmd_remove_entry = {
    .name = "remove",
    .usage = "remove EVENT...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_EVENT},
    .exec = exec_remove,
    .help = "remove events from the current mode",
};

const struct command cmd_define_entry = {
    .name = "define",
    .usage = "define NAME EVENTS METRICS",
    .min_args = 3,
    .max_args = 3,
    .args = {ARG_TEXT, ARG_EVENT, ARG_TEXT},
    .exec = exec_define,
    .help = "define mode NAME: EVENTS a=EV,b=EV or {a=EV,b=EV} (perf's syntax); METRICS "
	    "name=FORMULA;...",
};

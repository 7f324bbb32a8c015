/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-record.c: "record FILE", "stop", "mark TEXT...": the recording and its markers. */
#include "app.h"
#include "command.h"
#include "recorder.h"
#include "remote.h"
#include <stdio.h>
#include <stdlib.h>

static int exec_record(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	char s[300];

	(void)argc;
	if (recorder_start(ctx->app, argv[1], err, errlen) < 0)
		return -1;
	recorder_status(ctx->app, s, sizeof(s));
	command_note(ctx, "recording: %s", s);
	return 0;
}

static int exec_stop(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	char s[300];

	(void)argc, (void)argv;
	recorder_status(ctx->app, s, sizeof(s));
	if (recorder_stop(ctx->app, err, errlen) < 0)
		return -1;
	command_note(ctx, "recording stopped (%s)", s);
	return 0;
}

static int exec_mark(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct app_ctx *app = ctx->app;
	char *text = command_join(argc - 1, argv + 1);
	int rc;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (remote_app_active(app)) {
		/* into the agent's stream; the local recording, if there is one, gets it when the
		 * stream brings it back (at the board's tick, as every mark the stream carries) */
		char line[600];
		snprintf(line, sizeof(line), "mark %s", text);
		rc = remote_app_send(app, line, err, errlen);
	} else {
		rc = recorder_mark(app, text, err, errlen);
	}
	if (rc == 0)
		command_note(ctx, "mark: %s", text);
	free(text);
	return rc;
}

const struct command cmd_record_entry = {
    .name = "record",
    .usage = "record FILE",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_FILE},
    .exec = exec_record,
    .help = "record every sample to FILE",
};

const struct command cmd_stop_entry = {
    .name = "stop",
    .usage = "stop",
    .exec = exec_stop,
    .help = "stop recording",
};

const struct command cmd_mark_entry = {
    .name = "mark",
    .usage = "mark TEXT...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_TEXT},
    .flags = COMMAND_CONTROL,
    .exec = exec_mark,
    .help = "put a marker with TEXT into the recording and history",
};

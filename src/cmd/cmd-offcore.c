/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-offcore.c: "offcore [BIT...] [response=NAME]", the offcore request breakdown by request-type
 * bits. */
#include "app.h"
#include "command.h"

static int exec_offcore(const struct command_ctx *ctx, int argc, char **argv, char *err,
			size_t errlen)
{
	/* a new selection shows the breakdown on the screen (its app hook) */
	if (app_set_offcore(ctx->app, argc - 1, argv + 1, err, errlen) < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

const struct command cmd_offcore_entry = {
    .name = "offcore",
    .usage = "offcore [BIT...] [response=NAME]",
    .min_args = 0,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_OFFCORE_BIT},
    .exec = exec_offcore,
    .help = "offcore request breakdown by request-type bits (0-15), one response type",
};

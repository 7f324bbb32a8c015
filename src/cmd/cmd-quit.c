/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-quit.c: "quit", the end of the run (the screen's, batch mode's, the agent's). */
#include "app.h"
#include "command.h"

static int exec_quit(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	app_quit(ctx->app);
	return 0;
}

const struct command cmd_quit_entry = {
    .name = "quit",
    .alias = "q",
    .usage = "quit",
    .flags = COMMAND_CONTROL,
    .exec = exec_quit,
    .help = "leave pmutop",
};

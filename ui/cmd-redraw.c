/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-redraw.c: "redraw", "command-line": repaint the screen, open the : prompt. */
#include "app.h"
#include "command.h"
#include "uistate.h"

static int exec_redraw(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	ui_state_of(ctx->app)->force_full = true;
	return 0;
}

static int exec_command_line(const struct command_ctx *ctx, int argc, char **argv, char *err,
			     size_t errlen)
{
	struct ui_state *u = ui_state_of(ctx->app);

	(void)argc, (void)argv, (void)err, (void)errlen;
	u->prompting = true;
	lineedit_clear(&u->le);
	return 0;
}

const struct command ui_cmd_redraw_entry = {
    .name = "redraw",
    .usage = "redraw",
    .flags = COMMAND_SCREEN,
    .exec = exec_redraw,
    .help = "repaint the whole screen",
};

const struct command ui_cmd_command_line_entry = {
    .name = "command-line",
    .usage = "command-line",
    .flags = COMMAND_SCREEN,
    .exec = exec_command_line,
    .help = "open the : prompt",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-pause.c: "pause", "resume", "toggle-pause": freeze the display (counting goes on). */
#include "app.h"
#include "command.h"
#include <string.h>

static int exec_pause(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct app_ctx *app = ctx->app;

	(void)argc, (void)err, (void)errlen;
	if (strcmp(argv[0], "toggle-pause") == 0)
		app_set_paused(app, !app->display_paused);
	else
		app_set_paused(app, strcmp(argv[0], "pause") == 0);
	command_note(ctx, "%s",
		     app->display_paused ? "display paused, counting goes on (space resumes)"
					 : "resumed");
	return 0;
}

const struct command ui_cmd_pause_entry = {
    .name = "pause",
    .usage = "pause",
    .flags = COMMAND_SCREEN,
    .exec = exec_pause,
    .help = "freeze the display (counting, recording and rules go on)",
};

const struct command ui_cmd_resume_entry = {
    .name = "resume",
    .usage = "resume",
    .flags = COMMAND_SCREEN,
    .exec = exec_pause,
    .help = "resume updating the display",
};

const struct command ui_cmd_toggle_pause_entry = {
    .name = "toggle-pause",
    .usage = "toggle-pause",
    .flags = COMMAND_SCREEN,
    .exec = exec_pause,
    .help = "pause, or resume when paused",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-bind.c: "bind KEY COMMAND...": key bindings are command lines. */
#include "app.h"
#include "command.h"
#include "uistate.h"
#include <stdio.h>
#include <stdlib.h>

static int exec_bind(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(ctx->app);
	char *command = command_join(argc - 2, argv + 2);

	if (!command) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = keys_bind(&u->km, argv[1], command, err, errlen);
	if (rc == 0)
		command_note(ctx, "%s is now bound to: %s", argv[1], command);
	free(command);
	return rc;
}

const struct command ui_cmd_bind_entry = {
    .name = "bind",
    .usage = "bind KEY COMMAND...",
    .min_args = 2,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_KEY, ARG_COMMAND, ARG_NONE},
    .flags = COMMAND_SCREEN,
    .exec = exec_bind,
    .help = "bind KEY (q, space, C-l, F1, up, ...) to COMMAND; 'none' unbinds",
};

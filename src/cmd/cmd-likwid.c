/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-likwid.c: "likwid-groups DIR": likwid performance groups as modes likwid:GROUP. */
#include "app.h"
#include "command.h"
#include "textutil.h"

static int exec_likwid_groups(const struct command_ctx *ctx, int argc, char **argv, char *err,
			      size_t errlen)
{
	(void)argc;
	int n = app_load_likwid(ctx->app, argv[1], err, errlen);
	if (n < 0)
		return -1;
	char dir[200];
	text_escape(argv[1], TEXT_NUL_TERMINATED, dir, sizeof(dir));
	command_note(ctx, "likwid groups: %d loaded from %s (:mode likwid:<Tab>)", n, dir);
	return 0;
}

const struct command cmd_likwid_groups_entry = {
    .name = "likwid-groups",
    .usage = "likwid-groups DIR",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_FILE},
    .exec = exec_likwid_groups,
    .help = "load likwid performance groups, DIR/<arch>/*.txt or DIR/*.txt, as modes likwid:GROUP",
};

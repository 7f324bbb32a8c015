/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-baseline.c: "baseline FILE|last DURATION|off": the reference each cell is compared with. */
#include "baseline.h"
#include "command.h"
#include <stdio.h>
#include <string.h>

static int exec_baseline(const struct command_ctx *ctx, int argc, char **argv, char *err,
			 size_t errlen)
{
	char arg[1100] = "";
	for (int i = 1; i < argc; i++) /* "last 30s" */
		snprintf(arg + strlen(arg), sizeof(arg) - strlen(arg), "%s%s", i > 1 ? " " : "",
			 argv[i]);
	return baseline_command(ctx->app, arg, err, errlen);
}

const struct command cmd_baseline_entry = {
    .name = "baseline",
    .usage = "baseline FILE|last DURATION|off",
    .min_args = 1,
    .max_args = 2,
    .args = {ARG_FILE},
    .exec = exec_baseline,
    .help = "compare every cell with a recording or the last DURATION of this run (Welch's "
	    "t-test over the windows, Holm-corrected over a metric's rows: significant changes "
	    "coloured)",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-rows.c: "rows cpu|core|die|socket|cluster|cache|type", what a table row stands for. */
#include "app.h"
#include "command.h"
#include <stdio.h>

static int exec_rows(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	enum row_unit u;
	if (argc < 2) { /* no unit: say the one in force */
		app_log(ctx->app, MSG_INFO, "rows: %s (units: %s)",
			rows_unit_name(ctx->app->rows.unit), rows_unit_list());
		return 0;
	}
	if (rows_unit_parse(argv[1], &u, err, errlen) < 0)
		return -1;
	if (app_set_rows(ctx->app, u, err, errlen) < 0)
		return -1;
	command_note(ctx, "rows: %s", rows_unit_help(u));
	return 0;
}

const struct command cmd_rows_entry = {
    .name = "rows",
    .usage = "rows [UNIT]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_ROWS},
    .exec = exec_rows,
    .help = "what a row is: cpu, core, die, socket, cluster, cache or type (a core's SMT "
	    "siblings, ... summed, then the formulas applied, as perf's --per-core); alone, "
	    "the unit in force",
};

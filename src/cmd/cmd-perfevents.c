/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-perfevents.c: "perf-events DIR", loading perf's pmu-events metric library at run time. */
#include "app.h"
#include "command.h"
#include <stdio.h>

static int exec_perf_events(const struct command_ctx *ctx, int argc, char **argv, char *err,
			    size_t errlen)
{
	(void)argc;
	int n = app_load_perf_events(ctx->app, argv[1], err, errlen);
	if (n < 0)
		return -1;
	command_note(ctx, "perf-events: %d modes perf:GROUP (see :mode, --list-modes)", n);
	return 0;
}

const struct command cmd_perf_events_entry = {
    .name = "perf-events",
    .usage = "perf-events DIR",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_FILE},
    .exec = exec_perf_events,
    .help = "load perf's metrics (tools/perf/pmu-events/arch) from DIR: modes perf:GROUP",
};

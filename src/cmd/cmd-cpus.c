/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-cpus.c: "cpus LIST|all", the CPUs monitored. */
#include "app.h"
#include "command.h"
#include <string.h>

static int exec_cpus(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return app_set_cpus(ctx->app, strcmp(argv[1], "all") == 0 ? NULL : argv[1], err, errlen);
}

const struct command cmd_cpus_entry = {
    .name = "cpus",
    .usage = "cpus LIST|all",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_CPUS},
    .flags = COMMAND_CONTROL,
    .exec = exec_cpus,
    .help = "show only the CPUs in LIST (\"0-3,8\")",
};

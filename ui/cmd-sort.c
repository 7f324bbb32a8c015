/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-sort.c: "sort COLUMN|next|prev", "spark METRIC|off": the table's order and sparkline. */
#include "app.h"
#include "command.h"
#include "uistate.h"
#include <stdio.h>
#include <string.h>

static int exec_sort(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct ui_state *u = ui_state_of(app);
	int nm = app->mode.nmetrics;
	const char *v = argv[1];

	(void)argc;
	if (strcmp(v, "next") == 0 || strcmp(v, "prev") == 0) {
		int col = u->vs.sort_col + (v[0] == 'n' ? 1 : -1);
		if (col >= nm)
			col = -1;
		if (col < -1)
			col = nm - 1;
		u->vs.sort_col = col;
		u->vs.sort_desc = col >= 0;
		return 0;
	}
	bool asc = false;
	char name[64];
	snprintf(name, sizeof(name), "%s", v);
	size_t len = strlen(name);
	if (len > 1 && (name[len - 1] == '+' || name[len - 1] == '-')) {
		asc = name[len - 1] == '+';
		name[len - 1] = '\0';
	}
	if (strcmp(name, "cpu") == 0) {
		u->vs.sort_col = -1;
		return 0;
	}
	for (int m = 0; m < nm; m++)
		if (strcmp(app->mode.metrics[m].name, name) == 0) {
			u->vs.sort_col = m;
			u->vs.sort_desc = !asc;
			return 0;
		}
	char list[512] = "cpu";
	for (int m = 0; m < nm; m++) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, ", %s", app->mode.metrics[m].name);
	}
	snprintf(err, errlen, "unknown column \"%s\" (columns: %s)", name, list);
	return -1;
}

static int exec_spark(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct ui_state *u = ui_state_of(app);

	(void)argc;
	if (strcmp(argv[1], "off") == 0) {
		u->vs.spark_metric = -1;
		return 0;
	}
	for (int m = 0; m < app->mode.nmetrics; m++)
		if (strcmp(app->mode.metrics[m].name, argv[1]) == 0) {
			u->vs.spark_metric = m;
			return 0;
		}
	snprintf(err, errlen, "unknown metric \"%s\" in mode %s", argv[1], app->mode_name);
	return -1;
}

const struct command ui_cmd_sort_entry = {
    .name = "sort",
    .usage = "sort COLUMN|next|prev",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_COLUMN},
    .flags = COMMAND_SCREEN,
    .exec = exec_sort,
    .help = "sort the table by COLUMN (again: reverse the order)",
};

const struct command ui_cmd_spark_entry = {
    .name = "spark",
    .usage = "spark METRIC|off",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_METRIC},
    .flags = COMMAND_SCREEN,
    .exec = exec_spark,
    .help = "show a sparkline of METRIC's history per CPU",
};

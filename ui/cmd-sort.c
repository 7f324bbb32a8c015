/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-sort.c: "sort COLUMN|next|prev", "spark METRIC|off": the table's order and sparkline. */
#include "app.h"
#include "command.h"
#include "taskview.h"
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
	/* the task view's run% and cpu% columns follow the metrics */
	bool task = app_taskview_kind(app, NULL) != TASKVIEW_OFF;
	if (strcmp(v, "next") == 0 || strcmp(v, "prev") == 0) {
		int cols[nm + 3], n = 0, at = 0; /* in the order drawn */
		cols[n++] = -1;
		for (int m = 0; m < nm; m++)
			cols[n++] = m;
		if (task)
			cols[n++] = VIEWS_SORT_RUN, cols[n++] = VIEWS_SORT_CPU_SHARE;
		for (int i = 0; i < n; i++)
			if (cols[i] == u->vs.sort_col)
				at = i;
		int col = cols[(at + (v[0] == 'n' ? 1 : n - 1)) % n];
		u->vs.sort_col = col;
		u->vs.sort_desc = col != -1;
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
	if (task && (strcmp(name, "run%") == 0 || strcmp(name, "cpu%") == 0)) {
		u->vs.sort_col = name[0] == 'r' ? VIEWS_SORT_RUN : VIEWS_SORT_CPU_SHARE;
		u->vs.sort_desc = !asc;
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
	if (task) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, ", run%%, cpu%%");
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
    .usage = "sort COLUMN[+|-]|next|prev",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_COLUMN},
    .flags = COMMAND_SCREEN,
    .exec = exec_sort,
    .help = "sort by COLUMN, largest first (COLUMN+ smallest); cpu: the rows' order; "
	    "task view: run%, cpu%",
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

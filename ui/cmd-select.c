/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-select.c: "select up|down|left|right|pgup|pgdn|top|bottom|CPU": the row selection and
 * scrolling (left/right: the table's columns). */
#include "app.h"
#include "command.h"
#include "uistate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exec_select(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct ui_state *u = ui_state_of(app);
	const char *v = argv[1];
	int page = u->canvas ? u->canvas->h - 8 : 10;

	(void)argc;
	if (page < 1)
		page = 1;
	if (!strcmp(v, "left") || !strcmp(v, "right")) {
		/* the table's metric columns; the table clamps to those hidden */
		u->vs.col_first += !strcmp(v, "left") ? -1 : 1;
		if (u->vs.col_first < 0)
			u->vs.col_first = 0;
		return 0;
	}
	if (!strcmp(v, "up"))
		u->vs.scroll--;
	else if (!strcmp(v, "down"))
		u->vs.scroll++;
	else if (!strcmp(v, "pgup"))
		u->vs.scroll -= page;
	else if (!strcmp(v, "pgdn"))
		u->vs.scroll += page;
	else if (!strcmp(v, "top"))
		u->vs.scroll = 0;
	else if (!strcmp(v, "bottom"))
		u->vs.scroll = 1 << 20;
	else {
		char *end;
		long cpu = strtol(v, &end, 10);
		if (*end || end == v) {
			snprintf(err, errlen,
				 "select: expected up, down, left, right, pgup, pgdn, top, bottom "
				 "or a CPU "
				 "number");
			return -1;
		}
		for (int r = 0; r < app->ncpus; r++)
			if (app->cpus[r] == cpu) {
				u->vs.scroll = r;
				return 0;
			}
		snprintf(err, errlen, "CPU %ld is not shown", cpu);
		return -1;
	}
	bool table = u->vs.view == VIEWS_TABLE || u->vs.view == views_find("tasks") ||
		     u->vs.view == views_find("cgroups"); /* the task views draw the table */
	int rows = !table	   ? u->ntext
		   : u->shown.snap ? u->shown.snap->nrows /* rows summed by task or cgroup */
				   : app->ncpus;
	if (u->vs.scroll > rows - 1)
		u->vs.scroll = rows - 1;
	if (u->vs.scroll < 0)
		u->vs.scroll = 0;
	return 0;
}

const struct command ui_cmd_select_entry = {
    .name = "select",
    .usage = "select up|down|left|right|pgup|pgdn|top|bottom|CPU",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_SELECT},
    .flags = COMMAND_SCREEN,
    .exec = exec_select,
    .help = "move the row selection; left/right scroll the columns",
};

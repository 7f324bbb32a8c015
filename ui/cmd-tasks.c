/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-tasks.c: the screen's side of the task and cgroup views: :view tasks / cgroups / cpus,
 * Enter (one task or cgroup per CPU), Esc (back), :set tasks N. */
#include "app.h"
#include "command.h"
#include "options.h"
#include "recorder.h"
#include "taskview.h"
#include "uistate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A recording's rows are those of its header: they stay while it runs. */
static bool recording(struct app_ctx *app, char *err, size_t errlen)
{
	if (!recorder_active(app))
		return false;
	snprintf(err, errlen, "the rows a recording counts stay while it runs (:stop it first)");
	return true;
}

int ui_taskview_show(struct app_ctx *app, int view, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(app);
	bool filtered;
	enum taskview_kind now = app_taskview_kind(app, &filtered);
	enum taskview_kind want = view == views_find("tasks")	  ? TASKVIEW_TASKS
				  : view == views_find("cgroups") ? TASKVIEW_CGROUPS
								  : TASKVIEW_OFF;
	/* the same list again (T twice) returns to the CPUs */
	if (want != TASKVIEW_OFF && want == now && !filtered && u->vs.view == view)
		want = TASKVIEW_OFF;
	if ((want != TASKVIEW_OFF || now != TASKVIEW_OFF) && recording(app, err, errlen))
		return -1;
	if (want == TASKVIEW_OFF) {
		if (app_taskview_close(app, err, errlen) < 0)
			return -1;
		u->vs.view = VIEWS_TABLE;
		u->vs.scroll = 0;
		return 0;
	}
	app_taskview_fit(app, u->canvas ? u->canvas->h - 12 : TASKVIEW_DEFAULT);
	if (app_taskview_open(app, want, err, errlen) < 0)
		return -1;
	u->vs.view = view;
	u->vs.scroll = 0;
	return 0;
}

bool ui_taskview_back(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);
	bool filtered;
	enum taskview_kind now = app_taskview_kind(app, &filtered);
	if (now == TASKVIEW_OFF || u->prompting)
		return false;
	char err[320];
	int rc = recording(app, err, sizeof(err)) ? -1
		 : filtered			  ? app_taskview_open(app, now, err, sizeof(err))
						  : app_taskview_close(app, err, sizeof(err));
	if (rc < 0)
		snprintf(app->status, sizeof(app->status), "%.250s", err);
	else if (!filtered)
		u->vs.view = VIEWS_TABLE;
	u->vs.scroll = 0;
	return true;
}

bool ui_taskview_enter(struct app_ctx *app, char *err, size_t errlen, int *rc)
{
	struct ui_state *u = ui_state_of(app);
	bool filtered;
	if (app_taskview_kind(app, &filtered) == TASKVIEW_OFF || filtered ||
	    (u->vs.view != views_find("tasks") && u->vs.view != views_find("cgroups")))
		return false;
	if (recording(app, err, errlen)) {
		*rc = -1;
		return true;
	}
	const struct snapshot *snap = u->shown.snap;
	if (!snap || snap->nrows <= 0 || !u->shown.row_keys) {
		snprintf(err, errlen, "no row to open yet");
		*rc = -1;
		return true;
	}
	int order[snap->nrows];
	views_table_order(snap, u->shown.core_type, &u->vs, order);
	int k = u->vs.scroll;
	k = k < 0 ? 0 : k >= snap->nrows ? snap->nrows - 1 : k;
	*rc = app_taskview_filter(app, u->shown.row_keys[order[k]].id, err, errlen);
	if (*rc == 0)
		u->vs.scroll = 0;
	return true;
}

void ui_taskview_columns(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);
	const struct snapshot *snap = u->shown.snap;
	u->vs.task_cpu = NULL;
	u->vs.ntask_cpu = 0;
	if (app_taskview_kind(app, NULL) == TASKVIEW_OFF) {
		if (u->vs.sort_col <= VIEWS_SORT_RUN) /* its columns are gone */
			u->vs.sort_col = -1;
		return;
	}
	int n = snap && u->shown.row_keys ? snap->nrows : 0;
	if (n + 1 > u->task_cpu_cap) { /* never empty: a NULL array hides the columns */
		double *v = realloc(u->task_cpu, (size_t)(n + 1) * sizeof(*v));
		if (!v)
			return;
		u->task_cpu = v, u->task_cpu_cap = n + 1;
	}
	for (int r = 0; r < n; r++)
		u->task_cpu[r] = app_taskview_cpu_share(app, u->shown.row_keys[r].id);
	u->vs.task_cpu = u->task_cpu;
	u->vs.ntask_cpu = n;
}

static int set_tasks(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end) {
		snprintf(err, errlen, "tasks: \"%.40s\" is not a number (0..%d)", v, TASKVIEW_MAX);
		return -1;
	}
	return app_taskview_set_count(ctx->app,
				      (int)(n < -1	? -1
					    : n > 99999 ? 99999
							: n),
				      err, errlen);
}

static void show_tasks(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%d", app_taskview_count(ctx->app));
}

void ui_taskview_bind(void) { (void)options_bind_screen("tasks", set_tasks, show_tasks); }

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view-tasks.c: the task and cgroup views: a line on what is counted (view_input.text), then the
 * table of their rows (sorted, selected and drawn as the CPU table is). */
#include "theme.h"
#include "views.h"

static void view_tasks(struct canvas *c, int top, int bottom, const struct view_input *in,
		       struct view_state *vs)
{
	/* the running share of a task's counters shows in its cells when under 100 % */
	bool running = vs->show_running;
	for (int i = 0; i < in->text.n && top < bottom - 1; i++, top++)
		canvas_putx(c, 0, top, in->text.roles ? in->text.roles[i] : ROLE_LEGEND, 0, -1,
			    CANVAS_ELLIPSIS, in->text.lines[i]);
	vs->show_running = true;
	views_draw_table(c, top, bottom, in, vs);
	vs->show_running = running;
}

const struct view_def view_tasks_def = {
    "tasks", "the busiest tasks, each counted (pid=TID, cpu=-1); Enter: one per CPU", view_tasks};
const struct view_def view_cgroups_def = {
    "cgroups", "the busiest cgroup v2 groups, each counted; Enter: one per CPU", view_tasks};

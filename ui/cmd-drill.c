/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-drill.c: "drill [down|up]": open the running mode's drill-down mode, or go back. */
#include "app.h"
#include "command.h"
#include "uistate.h"
#include <stdio.h>
#include <string.h>

/* The CPU of the selected row (the first row shown, in the order the table draws), or -1. */
static int selected_cpu(const struct app_ctx *app, const struct ui_state *u)
{
	(void)app;
	const struct snapshot *snap = u->shown.snap; /* the table the screen shows */
	if (!snap || snap->nrows <= 0)
		return -1;
	int order[snap->nrows];
	views_table_order(snap, u->shown.core_type, &u->vs, order);
	int k = u->vs.scroll;
	k = k < 0 ? 0 : k >= snap->nrows ? snap->nrows - 1 : k;
	return snap->cpus[order[k]];
}

/* Switches to @name the way :mode does (recordings, the flight recorder and a remote agent see
 * the same switch); the selection stays on @cpu. */
static int switch_mode(const struct command_ctx *ctx, const char *name, int cpu, char *err,
		       size_t errlen)
{
	struct ui_state *u = ui_state_of(ctx->app);
	if (app_set_mode(ctx->app, name, err, errlen) < 0)
		return -1;
	if (cpu >= 0) {
		u->vs.pin = true;
		u->vs.pin_cpu = cpu;
	}
	return 0;
}

static int exec_drill(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct ui_state *u = ui_state_of(app);
	const char *way = argc > 1 ? argv[1] : "down";
	bool up = strcmp(way, "up") == 0;
	if (!up && strcmp(way, "down") != 0) {
		snprintf(err, errlen, "drill: expected down or up, not \"%.40s\"", way);
		return -1;
	}
	int rc;
	if (!up && ui_taskview_enter(app, err, errlen, &rc))
		return rc;
	if (u->vs.view != VIEWS_TABLE) {
		snprintf(err, errlen, "drill: works on the table (Esc returns to it)");
		return -1;
	}
	int cpu = selected_cpu(app, u);
	char from[sizeof(app->mode_name)];
	snprintf(from, sizeof(from), "%s", app->mode_name);
	if (up) {
		/* only straight back: a mode opened otherwise since ends the way back */
		if (u->ndrills > 0 && strcmp(u->drills[u->ndrills - 1].to, app->mode_name) != 0)
			u->ndrills = 0;
		if (u->ndrills == 0) {
			snprintf(
			    err, errlen,
			    "drill up: mode %s was not opened by a drill-down (enter opens one "
			    "in a mode with drill =)",
			    from);
			return -1;
		}
		char back[sizeof(u->drills[0].from)];
		snprintf(back, sizeof(back), "%s", u->drills[u->ndrills - 1].from);
		if (switch_mode(ctx, back, cpu, err, errlen) < 0)
			return -1;
		u->ndrills--;
		command_note(ctx, "back to mode %s from %s; its first full tick arrives in %ld ms",
			     back, from, app->interval_ms);
		return 0;
	}
	if (!app->mode.drill[0]) {
		snprintf(err, errlen,
			 "drill: mode %s has no drill-down mode (a mode file's drill = names one)",
			 from);
		return -1;
	}
	char to[sizeof(app->mode.drill)];
	snprintf(to, sizeof(to), "%s", app->mode.drill);
	if (switch_mode(ctx, to, cpu, err, errlen) < 0)
		return -1;
	if (u->ndrills == UI_MAX_DRILLS) { /* the oldest way back goes */
		memmove(&u->drills[0], &u->drills[1], (UI_MAX_DRILLS - 1) * sizeof(u->drills[0]));
		u->ndrills--;
	}
	snprintf(u->drills[u->ndrills].from, sizeof(u->drills[0].from), "%s", from);
	/* a remote agent switches later: its mode line brings the name */
	snprintf(u->drills[u->ndrills].to, sizeof(u->drills[0].to), "%s",
		 strcmp(app->mode_name, from) != 0 ? app->mode_name : to);
	u->ndrills++;
	if (cpu >= 0)
		command_note(ctx,
			     "drill-down: mode %s for CPU %d (backspace: back to %s); its first "
			     "full tick arrives in %ld ms",
			     app->mode_name, cpu, from, app->interval_ms);
	else
		command_note(ctx, "drill-down: mode %s (backspace: back to %s)", app->mode_name,
			     from);
	return 0;
}

const struct command ui_cmd_drill_entry = {
    .name = "drill",
    .usage = "drill [down|up]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_DRILL},
    .flags = COMMAND_SCREEN,
    .exec = exec_drill,
    .help = "open the mode's drill-down (drill =) on the selected CPU; up: go back",
};

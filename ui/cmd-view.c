/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-view.c: "view NAME", "help [COMMAND]", "messages": the screen's views and text views. */
#include "app.h"
#include "command.h"
#include "mode.h"
#include "taskview.h"
#include "uistate.h"
#include "watch.h"
#include <stdio.h>
#include <string.h>

/* The help view: commands and keys (from the tables), settings, modes; or one command. */
static int show_help(struct app_ctx *app, const char *topic, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(app);
	char **lines = topic ? command_help_for(topic, err, errlen) : command_help_lines(&u->km);
	const struct option_def *s;

	if (topic && !lines)
		return -1;
	ui_text_clear(u);
	ui_text_add(u, ROLE_TITLE, "%s",
		    topic ? "Help" : "pmutop help  (Esc or q returns; up/down scroll)");
	for (int i = 0; lines && lines[i]; i++)
		ui_text_add(u, ROLE_HELP_TEXT, "%s", lines[i]);
	command_free_words(-1, lines);
	if (!topic) {
		/* names in a column as wide as the longest (flight-files, stallcycles) */
		int w = 10;
		for (size_t i = 0; (s = command_setting_at(i)); i++)
			w = (int)strlen(s->name) > w ? (int)strlen(s->name) : w;
		for (int i = 0; i < app->modes->n; i++)
			w = (int)strlen(app->modes->modes[i]->name) > w
				? (int)strlen(app->modes->modes[i]->name)
				: w;
		w = w > 24 ? 24 : w;
		ui_text_add(u, ROLE_TITLE, "%s", "");
		ui_text_add(u, ROLE_TITLE, "Settings (:set NAME VALUE, :show [NAME])");
		for (size_t i = 0; (s = command_setting_at(i)); i++)
			ui_text_add(u, ROLE_HELP_TEXT, "  %-*s %s", w, s->name,
				    s->set_help ? s->set_help : s->help);
		ui_text_add(u, ROLE_TITLE, "%s", "");
		ui_text_add(u, ROLE_TITLE, "Modes (:mode NAME, m/M)");
		for (int i = 0; i < app->modes->n; i++) {
			const struct mode *m = app->modes->modes[i];
			struct mode_avail a;
			bool ok = app_mode_availability(app, m, &a) == 0;
			ui_text_add(u, ok ? ROLE_HELP_TEXT : ROLE_CELL_NA, "  %-*s %s%s%s%s%s%s", w,
				    m->name, m->title ? m->title : "", m->drill ? " (Enter: " : "",
				    m->drill ? m->drill : "", m->drill ? ")" : "",
				    ok ? "" : " -- not here: ", ok ? "" : a.reason);
		}
		ui_text_add(u, ROLE_TITLE, "%s", "");
		ui_text_add(u, ROLE_HELP_TEXT,
			    "Cells: n/a no value, n/s not supported, n/c not counted, "
			    "~ scaled (multiplexed; :set running on shows the %%)");
		ui_text_add(u, ROLE_HELP_TEXT, "%s",
			    "* combines events measured in different ticks (rotated event sets)");
		ui_text_add(
		    u, ROLE_HELP_TEXT, "%s",
		    "^ coarse (moves in steps of its source's tick; the legend gives the step)");
		ui_text_add(u, ROLE_HELP_TEXT, "%s",
			    VIEWS_STALE " stale: the last good tick's value while a --remote link "
					"is down (the status line says DISCONNECTED since ...)");
		ui_text_add(u, ROLE_HELP_TEXT, "%s",
			    "Stacked bar (a mode with stack =): each share its own character and "
			    "colour, the bar 100 % wide (a dotted rest: they add to less; + past "
			    "100 %); > the largest share; ~ * ^ after a bar: its values carry that "
			    "mark");
		ui_text_add(
		    u, ROLE_HELP_TEXT, "%s",
		    "Drill-down (a mode with drill =): Enter opens that mode on the selected "
		    "CPU (:drill), Backspace goes back (:drill up)");
		ui_text_add(
		    u, ROLE_HELP_TEXT, "%s",
		    "Task view (T, :view tasks; :view cgroups): the busiest tasks (or cgroup "
		    "v2 groups), each counted; run%: the least running share of its counters "
		    "over the tick, cpu%: its CPU time over the tick (/proc, as top); sort with "
		    "< > or :sort COLUMN (COLUMN+ ascending, cpu: busiest first, run%, cpu%); "
		    "Enter: the selected one on each CPU; Esc: back; :set tasks N (0: as many "
		    "as fit)");
		ui_text_add(u, ROLE_HELP_TEXT, "Command-line options: see pmutop --help");
	}
	u->vs.view = views_find("help");
	u->vs.scroll = 0;
	return 0;
}

/* The message log, newest last. */
static void show_messages(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);
	int start = (app->message_head - app->nmessages + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;

	ui_text_clear(u);
	ui_text_add(u, ROLE_TITLE, "Messages (%d, newest last)", app->nmessages);
	for (int i = 0; i < app->nmessages; i++) {
		const struct app_message *m = &app->messages[(start + i) % APP_MAX_MESSAGES];
		int role = m->level == MSG_ERROR  ? ROLE_MESSAGE_ERROR
			   : m->level == MSG_WARN ? ROLE_MESSAGE_WARN
						  : ROLE_MESSAGE_INFO;
		ui_text_add(u, role, "%8.1fs %s", m->time_s, m->text);
	}
	if (!app->nmessages)
		ui_text_add(u, ROLE_HELP_TEXT, "no messages");
	u->vs.view = views_find("messages");
	u->vs.scroll = app->nmessages;
}

static int exec_view(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(ctx->app);

	(void)argc;
	int v = views_find(argv[1]);
	if (v < 0) {
		char names[256] = "";
		for (int i = 0; views_at(i); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", views_at(i)->name);
		snprintf(err, errlen, "unknown view \"%s\" (%s)", argv[1], names);
		return -1;
	}
	if (v == views_find("help"))
		return show_help(ctx->app, NULL, err, errlen);
	if (v == views_find("tasks") || v == views_find("cgroups") || v == views_find("cpus") ||
	    v == VIEWS_TABLE)
		return ui_taskview_show(ctx->app, v, err, errlen);
	if (v == views_find("messages")) {
		show_messages(ctx->app);
		return 0;
	}
	if (v == views_find("counters") && u->vs.view != v)
		watch_refresh_owners(ctx->app); /* the map at once, not at the next tick */
	if (v == views_find("spikes") && u->vs.view != v) {
		u->vs.view = v;
		u->vs.scroll = 1 << 20; /* newest at the bottom */
		return 0;
	}
	/* the same view again returns to the table (o toggles the offcore view) */
	u->vs.view = u->vs.view == v ? VIEWS_TABLE : v;
	u->vs.scroll = 0;
	return 0;
}

static int exec_help(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	return show_help(ctx->app, argc > 1 ? argv[1] : NULL, err, errlen);
}

static int exec_messages(const struct command_ctx *ctx, int argc, char **argv, char *err,
			 size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	show_messages(ctx->app);
	return 0;
}

const struct command ui_cmd_view_entry = {
    .name = "view",
    .usage = "view NAME",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_VIEW},
    .flags = COMMAND_SCREEN,
    .exec = exec_view,
    .help = "(table, offcore, help, messages, probe, spikes, counters, tasks, cgroups, cpus)",
};

const struct command ui_cmd_help_entry = {
    .name = "help",
    .alias = "?",
    .usage = "help [COMMAND]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_COMMAND},
    .flags = COMMAND_SCREEN,
    .exec = exec_help,
    .help = "show help, for all commands or one",
};

const struct command ui_cmd_messages_entry = {
    .name = "messages",
    .usage = "messages",
    .flags = COMMAND_SCREEN,
    .exec = exec_messages,
    .help = "show the message log",
};

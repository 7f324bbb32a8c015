/* uistate.c: what the keys and : commands do, and what the screen shows (no curses here). */
#include "uistate.h"
#include "app.h"
#include "command.h"
#include "complete.h"
#include "encode.h"
#include "history.h"
#include "jitter.h"
#include "mode.h"
#include "output.h"
#include "probe.h"
#include "recorder.h"
#include "remote.h"
#include "playback.h"
#include "replay.h"
#include "frame.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UI(app) ((struct ui_state *)(app)->ui)

static const long interval_steps[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000};
#define NSTEPS (long)(sizeof(interval_steps) / sizeof(interval_steps[0]))


/* --- text views ----------------------------------------------------------------------------- */

static void text_free(struct ui_state *u)
{
	for (int i = 0; i < u->ntext; i++)
		free(u->text[i]);
	free(u->text);
	free(u->text_roles);
	u->text = NULL;
	u->text_roles = NULL;
	u->ntext = 0;
}

static void text_add(struct ui_state *u, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void text_add(struct ui_state *u, int role, const char *fmt, ...)
{
	char **t = realloc(u->text, (size_t)(u->ntext + 1) * sizeof(char *));
	int *r = realloc(u->text_roles, (size_t)(u->ntext + 1) * sizeof(int));
	if (t)
		u->text = t;
	if (r)
		u->text_roles = r;
	if (!t || !r)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	u->text[u->ntext] = strdup(buf);
	u->text_roles[u->ntext] = role;
	if (u->text[u->ntext])
		u->ntext++;
}

/* Runtime settings for :set and :show (one table). */
struct setting {
	const char *name;
	const char *help;
	int (*set)(struct app_ctx *app, const char *value, char *err, size_t errlen);
	void (*show)(struct app_ctx *app, char *buf, size_t len);
};
static const struct setting settings[];

static void show_help(struct app_ctx *app, const char *topic)
{
	struct ui_state *u = UI(app);
	text_free(u);
	char err[256];
	char **lines = topic ? command_help_for(topic, err, sizeof(err)) : command_help_lines(&u->km);
	if (topic && !lines) {
		app_log(app, MSG_ERROR, "%s", err);
		return;
	}
	text_add(u, ROLE_TITLE, "%s", topic ? "Help" : "pmutop help  (Esc or q returns; up/down scroll)");
	for (int i = 0; lines && lines[i]; i++)
		text_add(u, ROLE_HELP_TEXT, "%s", lines[i]);
	command_free_words(-1, lines);
	if (!topic) {
		text_add(u, ROLE_TITLE, "%s", "");
		text_add(u, ROLE_TITLE, "Settings (:set NAME VALUE, :show [NAME])");
		for (const struct setting *s = settings; s->name; s++)
			text_add(u, ROLE_HELP_TEXT, "  %-10s %s", s->name, s->help);
		text_add(u, ROLE_TITLE, "%s", "");
		text_add(u, ROLE_TITLE, "Modes (:mode NAME, m/M)");
		for (int i = 0; i < app->modes->n; i++) {
			const struct mode *m = app->modes->modes[i];
			struct mode_avail a;
			bool ok = mode_availability(m, app->family, &a) == 0;
			text_add(u, ok ? ROLE_HELP_TEXT : ROLE_CELL_NA, "  %-10s %s%s%s", m->name,
				 m->title ? m->title : "", ok ? "" : " -- not here: ", ok ? "" : a.reason);
		}
		text_add(u, ROLE_TITLE, "%s", "");
		text_add(u, ROLE_HELP_TEXT, "Cells: n/a no value, n/s not supported, n/c not counted, "
					    "~ scaled (multiplexed; :set running on shows the %%)");
		text_add(u, ROLE_HELP_TEXT, "Command-line options: see pmutop --help");
	}
	u->vs.view = VIEW_HELP;
	u->vs.scroll = 0;
}

static void show_messages(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	text_free(u);
	text_add(u, ROLE_TITLE, "Messages (%d, newest last)", app->nmessages);
	int start = (app->message_head - app->nmessages + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
	for (int i = 0; i < app->nmessages; i++) {
		const struct app_message *m = &app->messages[(start + i) % APP_MAX_MESSAGES];
		int role = m->level == MSG_ERROR ? ROLE_MESSAGE_ERROR
			   : m->level == MSG_WARN ? ROLE_MESSAGE_WARN
						  : ROLE_MESSAGE_INFO;
		text_add(u, role, "%8.1fs %s", m->time_s, m->text);
	}
	if (!app->nmessages)
		text_add(u, ROLE_HELP_TEXT, "no messages");
	u->vs.view = VIEW_MESSAGES;
	u->vs.scroll = app->nmessages;
}

/* --- settings ------------------------------------------------------------------------------- */

static int parse_bool(const char *v, bool *out, char *err, size_t errlen)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		*out = false;
	else {
		snprintf(err, errlen, "\"%s\" is not on or off", v);
		return -1;
	}
	return 0;
}

static int set_running(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	return parse_bool(v, &UI(app)->vs.show_running, err, errlen);
}
static void show_running(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%s", UI(app)->vs.show_running ? "on" : "off"); }
static int set_group(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	return parse_bool(v, &UI(app)->vs.group_by_type, err, errlen);
}
static void show_group(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%s", UI(app)->vs.group_by_type ? "on" : "off"); }
static int set_ascii(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	int rc = parse_bool(v, &UI(app)->ascii, err, errlen);
	UI(app)->force_full = true;
	return rc;
}
static void show_ascii(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%s", UI(app)->ascii ? "on" : "off"); }
static void show_interval(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%ld", app->interval_ms); }
static int set_interval_str(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long ms = strtol(v, &end, 10);
	if (errno || end == v || *end) {
		snprintf(err, errlen, "interval: \"%s\" is not a number of milliseconds", v);
		return -1;
	}
	return app_set_interval(app, ms, err, errlen);
}
static void show_theme(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%s", UI(app)->theme.name); }
static void show_mode(struct app_ctx *app, char *b, size_t l) { snprintf(b, l, "%s", app->mode_name); }
static void show_cpus(struct app_ctx *app, char *b, size_t l)
{
	struct cpuset s;
	cpuset_clear(&s);
	for (int i = 0; i < app->ncpus; i++)
		cpuset_add(&s, app->cpus[i]);
	cpuset_format(&s, b, l);
}
static int set_theme_str(struct app_ctx *app, const char *v, char *err, size_t errlen);
static int set_cpus_str(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	return app_set_cpus(app, strcmp(v, "all") == 0 ? NULL : v, err, errlen);
}
static int set_mode_str(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	return app_set_mode(app, v, err, errlen);
}

static int set_attrib(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	bool on;
	if (parse_bool(v, &on, err, errlen) < 0)
		return -1;
	return jitter_get(app) ? jitter_set_attrib(app, on, err, errlen) : 0;
}
static void show_attrib(struct app_ctx *app, char *b, size_t l)
{
	const struct jitter *j = jitter_get(app);
	snprintf(b, l, "%s", j && j->attrib_on ? "on" : "off");
}
static int set_stat(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	struct jitter *j = jitter_get(app);
	int st = jitter_stat_parse(v);
	if (st < 0 || !j) {
		snprintf(err, errlen, "stat: \"%s\" is not value, min, median, p99, max or dev", v);
		return -1;
	}
	j->stat = (enum jitter_stat)st;
	return 0;
}
static void show_stat(struct app_ctx *app, char *b, size_t l)
{
	const struct jitter *j = jitter_get(app);
	snprintf(b, l, "%s", jitter_stat_name(j ? j->stat : JITTER_VALUE));
}
static void show_self(struct app_ctx *app, char *b, size_t l) { jitter_status_line(app, b, l); }
static int set_self(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	(void)app, (void)v;
	snprintf(err, errlen, "self is read-only");
	return -1;
}

static const struct setting settings[] = {
	{"interval", "sampling interval in ms (10..3600000)", set_interval_str, show_interval},
	{"mode", "the event mode", set_mode_str, show_mode},
	{"cpus", "monitored CPUs (list or all)", set_cpus_str, show_cpus},
	{"theme", "colour theme", set_theme_str, show_theme},
	{"running", "on: show the running % of scaled values", set_running, show_running},
	{"group", "on: group rows by core type (hybrid, big.LITTLE)", set_group, show_group},
	{"ascii", "on: ASCII bars and sparklines (serial consoles)", set_ascii, show_ascii},
	{"attrib", "on: attribution columns (switches, irqs, SMIs, MHz, task)", set_attrib, show_attrib},
	{"stat", "window statistic in the table: value min median p99 max dev", set_stat, show_stat},
	{"self", "pmutop's own cadence, lateness, CPU use and memory (read-only)", set_self, show_self},
	{NULL, NULL, NULL, NULL},
};

static const struct setting *setting_find(const char *name, char *err, size_t errlen)
{
	for (const struct setting *s = settings; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	char list[256] = "";
	for (const struct setting *s = settings; s->name; s++) {
		size_t u = strlen(list);
		snprintf(list + u, sizeof(list) - u, "%s%s", u ? ", " : "", s->name);
	}
	snprintf(err, errlen, "unknown option \"%s\" (options: %s)", name, list);
	return NULL;
}

/* --- command handlers ----------------------------------------------------------------------- */

static void after_mode_change(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	view_history_free(&u->hist);
	u->vs.sort_col = -1;
	u->vs.spark_metric = -1;
	app_log(app, MSG_INFO, "mode %s opened; its first full tick arrives in %ld ms", app->mode_name,
		app->interval_ms);
}

static int cmd_mode(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	const char *name = argv[1];
	if (strcmp(name, "next") == 0 || strcmp(name, "prev") == 0) {
		/* the next mode that opens here (in a replay: whose events were recorded) */
		int n = app->modes->n, cur = 0;
		for (int i = 0; i < n; i++)
			if (strcmp(app->modes->modes[i]->name, app->mode_name) == 0)
				cur = i;
		int step = name[0] == 'n' ? 1 : -1;
		for (int k = 1; k < n; k++) {
			const struct mode *m = app->modes->modes[((cur + step * k) % n + n) % n];
			struct mode_avail a;
			if (mode_availability(m, app->family, &a) == 0 && app_set_mode(app, m->name, err, errlen) == 0) {
				after_mode_change(app);
				return 0;
			}
		}
		snprintf(err, errlen, "no other mode is available here");
		return -1;
	}
	if (app_set_mode(app, name, err, errlen) < 0)
		return -1;
	after_mode_change(app);
	return 0;
}

static int cmd_interval(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	const char *v = argv[1];
	if (strcmp(v, "+") == 0 || strcmp(v, "-") == 0) {
		long cur = app->interval_ms, next = cur;
		if (v[0] == '+') {
			for (long i = 0; i < NSTEPS; i++)
				if (interval_steps[i] > cur) {
					next = interval_steps[i];
					break;
				}
		} else {
			for (long i = NSTEPS - 1; i >= 0; i--)
				if (interval_steps[i] < cur) {
					next = interval_steps[i];
					break;
				}
		}
		return app_set_interval(app, next, err, errlen);
	}
	return set_interval_str(app, v, err, errlen);
}

static int cmd_cpus(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (set_cpus_str(app, argv[1], err, errlen) < 0)
		return -1;
	view_history_free(&UI(app)->hist);
	return 0;
}

static int cmd_sort(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	struct ui_state *u = UI(app);
	int nm = app->mode.nmetrics;
	const char *v = argv[1];
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

static int cmd_spark(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	struct ui_state *u = UI(app);
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

static int cmd_pause(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	(void)err;
	(void)errlen;
	if (strcmp(argv[0], "toggle-pause") == 0)
		app->display_paused = !app->display_paused;
	else
		app->display_paused = strcmp(argv[0], "pause") == 0;
	app_log(app, MSG_INFO, "%s", app->display_paused ? "display paused, counting goes on (space resumes)" : "resumed");
	return 0;
}

static int load_theme(struct app_ctx *app, const char *name, char *err, size_t errlen)
{
	struct ui_state *u = UI(app);
	struct theme t;
	theme_init_default(&t);
	if (theme_load(&t, name, err, errlen) < 0) {
		theme_free(&t);
		return -1;
	}
	for (size_t i = 0; i < t.nwarnings; i++)
		app_log(app, MSG_WARN, "%s", t.warnings[i]);
	theme_free(&u->theme);
	u->theme = t;
	u->force_full = true;
	if (u->rebuild_styles)
		u->rebuild_styles(u);
	return 0;
}

static int set_theme_str(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	if (strcmp(v, "next") == 0 || strcmp(v, "prev") == 0) {
		char **names;
		size_t n = theme_list(&names);
		if (n == 0) {
			snprintf(err, errlen, "no themes found");
			return -1;
		}
		size_t cur = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(names[i], UI(app)->theme.name) == 0)
				cur = i;
		size_t next = v[0] == 'n' ? (cur + 1) % n : (cur + n - 1) % n;
		int rc = load_theme(app, names[next], err, errlen);
		theme_list_free(names, n);
		return rc;
	}
	return load_theme(app, v, err, errlen);
}

static int cmd_theme(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (set_theme_str(app, argv[1], err, errlen) < 0)
		return -1;
	app_log(app, MSG_INFO, "theme %s", UI(app)->theme.name);
	return 0;
}

static int cmd_set(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	const struct setting *s = setting_find(argv[1], err, errlen);
	if (!s)
		return -1;
	return s->set(app, argv[2], err, errlen);
}

static int cmd_show(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	char line[1024] = "", val[256];
	if (argc > 1) {
		const struct setting *s = setting_find(argv[1], err, errlen);
		if (!s)
			return -1;
		s->show(app, val, sizeof(val));
		app_log(app, MSG_INFO, "%s = %s", s->name, val);
		return 0;
	}
	for (const struct setting *s = settings; s->name; s++) {
		s->show(app, val, sizeof(val));
		size_t u = strlen(line);
		snprintf(line + u, sizeof(line) - u, "%s%s=%s", u ? "  " : "", s->name, val);
	}
	app_log(app, MSG_INFO, "%s", line);
	return 0;
}

static int cmd_bind(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	char *command = command_join(argc - 2, argv + 2);
	if (!command) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = keys_bind(&UI(app)->km, argv[1], command, err, errlen);
	if (rc == 0)
		app_log(app, MSG_INFO, "%s is now bound to: %s", argv[1], command);
	free(command);
	return rc;
}

static int cmd_messages(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	show_messages(app);
	return 0;
}

static int cmd_help(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	show_help(app, argc > 1 ? argv[1] : NULL);
	return 0;
}

static int cmd_quit(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	app->quit = true;
	return 0;
}

static int cmd_view(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	struct ui_state *u = UI(app);
	for (int v = 0; v < VIEW_COUNT; v++)
		if (strcmp(views_entry((enum view_kind)v)->name, argv[1]) == 0) {
			if (v == VIEW_HELP) {
				show_help(app, NULL);
				return 0;
			}
			if (v == VIEW_MESSAGES) {
				show_messages(app);
				return 0;
			}
			if (v == VIEW_SPIKES && u->vs.view != VIEW_SPIKES) {
				u->vs.view = VIEW_SPIKES;
				u->vs.scroll = 1 << 20; /* newest at the bottom */
				return 0;
			}
			/* the same view again returns to the table (o toggles the offcore view) */
			u->vs.view = u->vs.view == (enum view_kind)v ? VIEW_TABLE : (enum view_kind)v;
			u->vs.scroll = 0;
			return 0;
		}
	snprintf(err, errlen, "unknown view \"%s\" (table, offcore, help, messages, probe, spikes)", argv[1]);
	return -1;
}

static int cmd_select(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	struct ui_state *u = UI(app);
	const char *v = argv[1];
	int page = u->canvas ? u->canvas->h - 8 : 10;
	if (page < 1)
		page = 1;
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
			snprintf(err, errlen, "select: expected up, down, pgup, pgdn, top, bottom or a CPU number");
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
	int rows = u->vs.view == VIEW_TABLE ? app->ncpus : u->ntext;
	if (u->vs.scroll > rows - 1)
		u->vs.scroll = rows - 1;
	if (u->vs.scroll < 0)
		u->vs.scroll = 0;
	return 0;
}

static int cmd_redraw(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	UI(app)->force_full = true;
	return 0;
}

static int cmd_command_line(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv, (void)err, (void)errlen;
	struct ui_state *u = UI(app);
	u->prompting = true;
	lineedit_clear(&u->le);
	return 0;
}

static int change_events(struct app_ctx *app, int argc, char **argv, bool add, char *err, size_t errlen)
{
	if (app_edit_events(app, add, argc - 1, argv + 1, err, errlen) < 0)
		return -1;
	after_mode_change(app);
	return 0;
}

static int cmd_add(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	return change_events(app, argc, argv, true, err, errlen);
}

static int cmd_remove(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	return change_events(app, argc, argv, false, err, errlen);
}

static int cmd_define(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	/* METRICS as "a=EXPR,b=EXPR" or "a=EXPR;b=EXPR" */
	char metrics[1024];
	snprintf(metrics, sizeof(metrics), "%s", argv[3]);
	struct mode *m = mode_define(argv[1], argv[2], metrics, err, errlen);
	if (!m)
		return -1;
	const struct mode *old = mode_find(app->modes, argv[1]);
	if (old && strcmp(old->name, argv[1]) == 0 && old->source && strcmp(old->source, "define") != 0) {
		mode_free(m);
		snprintf(err, errlen, "mode %s already exists (built-in or from a file); choose another name", argv[1]);
		return -1;
	}
	mode_register(app->modes, m);
	if (app_set_mode(app, argv[1], err, errlen) < 0)
		return -1;
	after_mode_change(app);
	return 0;
}

static int cmd_offcore(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	if (app_set_offcore(app, argc - 1, argv + 1, err, errlen) < 0)
		return -1;
	after_mode_change(app);
	UI(app)->vs.view = VIEW_OFFCORE;
	return 0;
}

/* --- cache probe view ---------------------------------------------------------------------- */

static void probe_line(void *ctx, const char *line)
{
	text_add(ctx, ROLE_HELP_TEXT, "%s", line);
}

/* Rebuilds the probe view's lines from its progress or result. */
static void probe_text(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	if (!u->probe)
		return;
	text_free(u);
	if (!u->probe_done) {
		text_add(u, ROLE_TITLE, "cache probe: %s %3.0f%%  (the probe loads one CPU; :probe stop ends it)",
			 probe_phase_name(u->probe), probe_progress(u->probe) * 100);
		return;
	}
	const char *perr = probe_error(u->probe);
	if (perr && perr[0]) {
		text_add(u, ROLE_MESSAGE_ERROR, "cache probe failed: %s", perr);
		return;
	}
	const struct probe_result *r = probe_result(u->probe);
	text_add(u, ROLE_TITLE, "cache probe results (Esc returns; up/down scroll)");
	probe_format_summary(r, probe_line, u);
	probe_format_table(r, probe_line, u);
	int w = u->canvas ? u->canvas->w - 2 : 78;
	probe_format_plot(r, w > 100 ? 100 : w, 16, probe_line, u);
	probe_format_tlb(r, probe_line, u);
	probe_format_seed(r, probe_line, u);
}

static int cmd_probe(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	struct ui_state *u = UI(app);
	if (strcmp(argv[1], "cache") != 0 && strcmp(argv[1], "stop") != 0) {
		snprintf(err, errlen, "unknown probe \"%s\" (cache)", argv[1]);
		return -1;
	}
	bool stop = strcmp(argv[1], "stop") == 0 || (argc > 2 && strcmp(argv[2], "stop") == 0);
	if (stop) {
		if (!u->probe) {
			snprintf(err, errlen, "no probe is running");
			return -1;
		}
		probe_free(u->probe);
		u->probe = NULL;
		text_free(u);
		u->vs.view = VIEW_TABLE;
		app_log(app, MSG_INFO, "cache probe stopped");
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "full") != 0 && strcmp(argv[2], "quick") != 0) {
		snprintf(err, errlen, "usage: probe cache [full|stop]");
		return -1;
	}
	struct probe_opts opts = {.cpu = -1, .quick = !(argc > 2 && strcmp(argv[2], "full") == 0),
				  .sysfs_root = app->pf.root[0] ? app->pf.root : "/"};
	struct probe *p = probe_new(&opts, err, errlen);
	if (!p)
		return -1;
	if (u->probe)
		probe_free(u->probe);
	u->probe = p;
	u->probe_done = false;
	u->vs.view = VIEW_PROBE;
	u->vs.scroll = 0;
	probe_text(app);
	app_log(app, MSG_INFO, "cache probe started (%s); it runs between ticks", opts.quick ? "quick" : "full");
	return 0;
}

/* Runs a slice of the probe after a tick: at most a quarter of the interval, up to 250 ms. */
static void probe_advance(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	if (!u->probe || u->probe_done)
		return;
	double budget = (double)app->interval_ms / 4;
	if (budget > 250)
		budget = 250;
	int rc = probe_step(u->probe, budget);
	if (rc <= 0) {
		u->probe_done = true;
		app_log(app, rc < 0 ? MSG_ERROR : MSG_INFO, "cache probe %s", rc < 0 ? "failed" : "finished");
	}
	probe_text(app);
}

static int cmd_fallback(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)app, (void)argc;
	snprintf(err, errlen, "%s is not available in this build yet", argv[0]);
	return -1;
}

/* --- recording and replay ------------------------------------------------------------------ */

static int cmd_record(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (recorder_start(app, argv[1], err, errlen) < 0)
		return -1;
	char s[300];
	recorder_status(app, s, sizeof(s));
	app_log(app, MSG_INFO, "recording: %s", s);
	return 0;
}

static int cmd_stop(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc, (void)argv;
	char s[300];
	recorder_status(app, s, sizeof(s));
	if (recorder_stop(app, err, errlen) < 0)
		return -1;
	app_log(app, MSG_INFO, "recording stopped (%s)", s);
	return 0;
}

static int cmd_mark(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	char *text = command_join(argc - 1, argv + 1);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc;
	if (app->remote) {
		/* into the agent's stream, and into the local recording if there is one */
		char line[600];
		snprintf(line, sizeof(line), "mark %s", text);
		rc = remote_app_send(app, line, err, errlen);
		if (rc == 0 && app->recorder)
			rc = recorder_mark(app, text, err, errlen);
	} else {
		rc = recorder_mark(app, text, err, errlen);
	}
	if (rc == 0)
		app_log(app, MSG_INFO, "mark: %s", text);
	free(text);
	return rc;
}

static int need_replay(struct app_ctx *app, const char *cmd, char *err, size_t errlen)
{
	if (app->replay && !app->remote)
		return 0;
	snprintf(err, errlen, "%s works in a replay (pmutop -R FILE)", cmd);
	return -1;
}

static int cmd_step(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	if (need_replay(app, argv[0], err, errlen) < 0)
		return -1;
	int n = argc > 1 ? atoi(argv[1]) : 1;
	app->display_paused = true; /* stepping: the replay holds between steps */
	int rc = n < 0 ? playback_step(app, n, err, errlen) : 0;
	if (n < 0)
		view_history_free(&UI(app)->hist);
	for (int i = 0; n > 0 && i < n && rc == 0; i++) {
		if (playback_pending(app) <= 0) {
			snprintf(err, errlen, "end of the recording");
			return -1;
		}
		rc = playback_tick(app, err, errlen) < 0 ? -1 : 0;
	}
	const struct frame *f = rc == 0 ? app_frame_build(app) : NULL;
	if (f)
		ui_state_frame(app, f);
	return rc;
}

static int cmd_seek(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	if (need_replay(app, argv[0], err, errlen) < 0)
		return -1;
	view_history_free(&UI(app)->hist);
	int rc = playback_seek_arg(app, argc, argv, err, errlen);
	const struct frame *f = rc == 0 ? app_frame_build(app) : NULL;
	if (f)
		ui_state_frame(app, f);
	return rc;
}

static int cmd_speed(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (need_replay(app, argv[0], err, errlen) < 0)
		return -1;
	return app_set_speed(app, argv[1], err, errlen);
}

static const struct {
	const char *name;
	command_fn fn;
} handlers[] = {
	{"record", cmd_record},   {"stop", cmd_stop},         {"mark", cmd_mark},
	{"tick", cmd_step},       {"jump", cmd_seek},         {"rate", cmd_speed},
	{"mode", cmd_mode},       {"interval", cmd_interval}, {"cpus", cmd_cpus},
	{"sort", cmd_sort},       {"spark", cmd_spark},       {"pause", cmd_pause},
	{"resume", cmd_pause},    {"toggle-pause", cmd_pause}, {"theme", cmd_theme},
	{"add", cmd_add},         {"remove", cmd_remove},     {"define", cmd_define},
	{"set", cmd_set},         {"show", cmd_show},         {"bind", cmd_bind},
	{"messages", cmd_messages}, {"help", cmd_help},       {"quit", cmd_quit},
	{"view", cmd_view},       {"select", cmd_select},     {"redraw", cmd_redraw},
	{"command-line", cmd_command_line}, {"offcore", cmd_offcore}, {"probe", cmd_probe},
};

/* --- completion ----------------------------------------------------------------------------- */

static void complete_kind(void *user, enum command_arg kind, struct complete_list *out)
{
	struct app_ctx *app = user;
	switch (kind) {
	case ARG_MODE:
		for (int i = 0; i < app->modes->n; i++)
			complete_list_add(out, app->modes->modes[i]->name);
		complete_list_add(out, "next");
		complete_list_add(out, "prev");
		break;
	case ARG_COLUMN:
		complete_list_add(out, "cpu");
		/* fall through */
	case ARG_METRIC:
		for (int m = 0; m < app->mode.nmetrics; m++)
			complete_list_add(out, app->mode.metrics[m].name);
		break;
	case ARG_OPTION:
		for (const struct setting *s = settings; s->name; s++)
			complete_list_add(out, s->name);
		break;
	case ARG_VIEW:
		for (int v = 0; v < VIEW_COUNT; v++)
			complete_list_add(out, views_entry((enum view_kind)v)->name);
		break;
	case ARG_EVENT:
		for (int e = 0; e < app->mode.nevents; e++)
			complete_list_add(out, app->mode.events[e].name);
		break;
	default:
		break;
	}
}

struct event_complete {
	struct complete_list *out;
	const char *prefix;
};

static void add_event_name(void *arg, const char *pmu, const char *event, const char *desc, bool present)
{
	(void)desc, (void)present;
	struct event_complete *ec = arg;
	char name[160];
	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	if (strncasecmp(name, ec->prefix, strlen(ec->prefix)) == 0)
		complete_list_add(ec->out, name);
}

static void complete_source(void *user, int word, int argc, const char *const *argv,
			    struct complete_list *out)
{
	struct app_ctx *app = user;
	struct complete_kinds kinds = {complete_kind, app};
	complete_commands(&kinds, word, argc, argv, out);
	/* event names from libpfm4 for add/remove: the machine's models and perf:: */
	if (word >= 1 && argc >= 1 && (strcmp(argv[0], "add") == 0)) {
		const char *prefix = word < argc ? argv[word] : "";
		if (strlen(prefix) >= 2) {
			struct event_complete ec = {out, prefix};
			encode_list(NULL, strstr(prefix, "::") != NULL, add_event_name, &ec);
		}
	}
}

static void prompt_complete(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	struct complete_result res;
	if (complete_line(u->le.buf, u->le.cursor, complete_source, app, &res) < 0)
		return;
	if (res.status == COMPLETE_UNIQUE || res.status == COMPLETE_PARTIAL) {
		lineedit_set(&u->le, res.line);
		u->le.cursor = res.cursor <= u->le.len ? res.cursor : u->le.len;
	}
	if (res.matches.n > 1) {
		char line[256] = "";
		for (size_t i = 0; i < res.matches.n; i++) {
			size_t l = strlen(line);
			snprintf(line + l, sizeof(line) - l, "%s%s", i ? " " : "", res.matches.v[i]);
		}
		app_log(app, MSG_INFO, "%zu choices: %s", res.matches.n, line);
	} else if (res.status == COMPLETE_NONE) {
		snprintf(app->status, sizeof(app->status), "no completion");
	}
	complete_result_free(&res);
}

/* --- state ---------------------------------------------------------------------------------- */

int ui_state_command(struct app_ctx *app, const char *line)
{
	char err[512] = "";
	if (command_execute(app, line, err, sizeof(err)) < 0) {
		app_log(app, MSG_ERROR, "%s", err[0] ? err : "command failed");
		return -1;
	}
	return 0;
}

struct ui_state *ui_state_new(struct app_ctx *app, char *err, size_t errlen)
{
	struct ui_state *u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	app->ui = u;
	u->vs.sort_col = -1;
	u->vs.spark_metric = -1;
	theme_init_default(&u->theme);
	const char *theme = app->opt.theme ? app->opt.theme : "default";
	struct theme t;
	theme_init_default(&t);
	if (theme_load(&t, theme, err, errlen) < 0) {
		theme_free(&t);
		ui_state_free(app);
		return NULL;
	}
	theme_free(&u->theme);
	u->theme = t;
	for (size_t i = 0; i < t.nwarnings; i++)
		app_log(app, MSG_WARN, "%s", t.warnings[i]);
	keys_map_init(&u->km);
	lineedit_init(&u->le);
	char why[256] = "";
	u->history = hist_open(NULL, 500, why, sizeof(why));
	if (why[0])
		app_log(app, MSG_WARN, "history: %s", why);
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		command_set_handler(handlers[i].name, handlers[i].fn);
	command_set_fallback(cmd_fallback);
	return u;
}

void ui_state_free(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	if (!u)
		return;
	char err[256];
	if (u->history && hist_close(u->history, err, sizeof(err)) < 0)
		fprintf(stderr, "pmutop: saving history: %s\n", err);
	canvas_free(u->canvas);
	canvas_free(u->prev);
	theme_free(&u->theme);
	keys_map_free(&u->km);
	lineedit_free(&u->le);
	view_history_free(&u->hist);
	text_free(u);
	if (u->probe)
		probe_free(u->probe);
	free(u);
	app->ui = NULL;
}

void ui_state_set_depth(struct app_ctx *app, int colors)
{
	struct ui_state *u = UI(app);
	u->colors = colors;
	u->depth = theme_depth_for(colors, getenv("COLORTERM"), getenv("NO_COLOR"));
	if (u->depth > THEME_256)
		u->depth = THEME_256; /* curses pairs take palette indices */
}

/* Keys of a replay: , and . step a tick, [ and ] change the speed, g/G start/end, ' next mark. */
static void bind_replay_keys(struct app_ctx *app)
{
	static const char *const keys[][2] = {
		{".", "tick"}, {",", "tick -1"}, {"]", "rate +"}, {"[", "rate -"}, {"g", "jump start"},
		{"G", "jump end"}, {"'", "jump mark"},
	};
	char err[128];
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		keys_bind(&UI(app)->km, keys[i][0], keys[i][1], err, sizeof(err));
}

void ui_state_startup(struct app_ctx *app)
{
	if (app->replay && !app->remote)
		bind_replay_keys(app);
	if (!app->opt.no_rc) {
		char path[4096];
		const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		if (xdg && *xdg)
			snprintf(path, sizeof(path), "%s/pmutop/pmutoprc", xdg);
		else if (home)
			snprintf(path, sizeof(path), "%s/.config/pmutop/pmutoprc", home);
		else
			path[0] = '\0';
		FILE *f = path[0] ? fopen(path, "r") : NULL;
		if (f) {
			fclose(f);
			struct command_errors errs = {0};
			command_run_file(app, path, &errs);
			for (size_t i = 0; i < errs.n; i++)
				app_log(app, MSG_ERROR, "%s", errs.msgs[i]);
			command_errors_free(&errs);
		}
	}
	for (int i = 0; i < app->opt.ncommands; i++) {
		struct command_errors errs = {0};
		command_run_text(app, app->opt.commands[i], "-c", &errs);
		for (size_t k = 0; k < errs.n; k++)
			app_log(app, MSG_ERROR, "%s", errs.msgs[k]);
		command_errors_free(&errs);
	}
}

void ui_state_after_tick(struct app_ctx *app) { probe_advance(app); }

void ui_state_frame(struct app_ctx *app, const struct frame *f)
{
	struct ui_state *u = UI(app);
	const struct snapshot *snap = f->snap;
	if (!u->hist.v || u->hist.nrows != snap->nrows || u->hist.nmetrics != snap->nmetrics)
		view_history_reset(&u->hist, snap->nrows, snap->nmetrics);
	view_history_push(&u->hist, snap);
}

static void prompt_key(struct app_ctx *app, int key)
{
	struct ui_state *u = UI(app);
	switch (key) {
	case KEYS_ENTER: {
		char line[1024];
		snprintf(line, sizeof(line), "%s", u->le.buf ? u->le.buf : "");
		u->prompting = false;
		if (u->history)
			hist_add(u->history, line);
		lineedit_clear(&u->le);
		if (line[0]) {
			app->status[0] = '\0';
			ui_state_command(app, line);
		}
		return;
	}
	case KEYS_ESC:
	case KEYS_CTRL('c'):
	case KEYS_CTRL('g'):
		u->prompting = false;
		if (u->history)
			hist_reset(u->history);
		lineedit_clear(&u->le);
		return;
	case KEYS_TAB:
		prompt_complete(app);
		return;
	case KEYS_UP:
	case KEYS_CTRL('p'): {
		const char *h = u->history ? hist_prev(u->history, u->le.buf ? u->le.buf : "") : NULL;
		if (h)
			lineedit_set(&u->le, h);
		return;
	}
	case KEYS_DOWN:
	case KEYS_CTRL('n'): {
		const char *h = u->history ? hist_next(u->history) : NULL;
		if (h)
			lineedit_set(&u->le, h);
		return;
	}
	case KEYS_BACKSPACE:
		if (u->le.len == 0) { /* backspace on an empty prompt closes it, as in vi */
			u->prompting = false;
			return;
		}
		break;
	default:
		break;
	}
	lineedit_key(&u->le, key);
}

void ui_state_key(struct app_ctx *app, int key)
{
	struct ui_state *u = UI(app);
	if (u->prompting) {
		prompt_key(app, key);
		return;
	}
	/* text views close with Esc or q */
	if (u->vs.view != VIEW_TABLE && (key == KEYS_ESC || key == 'q')) {
		u->vs.view = VIEW_TABLE;
		u->vs.scroll = 0;
		return;
	}
	const char *command = keys_lookup(&u->km, key);
	if (!command) {
		char name[32];
		snprintf(app->status, sizeof(app->status), "key %s is not bound (? for help)",
			 keys_name(key, name, sizeof(name)));
		return;
	}
	ui_state_command(app, command);
}

static void add_spike_line(void *ctx, bool title, const char *line)
{
	text_add(ctx, title ? ROLE_TITLE : ROLE_HELP_TEXT, "%s", line);
}

/* The table's window columns, as the frame has them. */
static const struct view_jitter *view_jitter_of(const struct frame *f, struct view_jitter *vj)
{
	*vj = (struct view_jitter){.stat = f->stat, .values = f->stat_values, .nattrib = f->nattrib,
				   .attrib_names = f->attrib_names, .attrib = f->attrib, .task = f->task};
	return vj->stat || vj->nattrib ? vj : NULL;
}

int ui_state_draw(struct app_ctx *app, struct canvas *c)
{
	struct ui_state *u = UI(app);
	const struct frame *f = app->frames ? &app->frame : NULL;
	const struct snapshot *snap = f ? f->snap : NULL;
	if (u->vs.view == VIEW_SPIKES && app->jitter) {
		bool tail = u->vs.scroll >= u->ntext - (c->h - 8); /* follow the newest spikes */
		text_free(u);
		jitter_spike_lines(app, add_spike_line, u);
		if (tail)
			u->vs.scroll = 1 << 20;
	}
	bool have = snap && snap->seq > 0;
	char extra[512] = "";
	if (f && (f->position[0] || f->recorder[0]))
		snprintf(extra, sizeof(extra), "%s%s%s", f->position,
			 f->position[0] && f->recorder[0] ? "  " : "", f->recorder);
	else if (app->overruns)
		snprintf(extra, sizeof(extra), "missed ticks: %llu (machine busy or interval too short)",
			 (unsigned long long)app->overruns);
	if (f && f->show_self) {
		size_t used = strlen(extra);
		snprintf(extra + used, sizeof(extra) - used, "%s%s", used ? "; " : "", f->self);
	}
	/* the header describes the machine the numbers come from (the recorded one in a replay) */
	const struct source_machine *mach = &app->machine;
	struct view_header h = {
		.host = mach->host[0] ? mach->host : "?",
		.kernel = mach->kernel[0] ? mach->kernel : "?",
		.pmu = f ? f->pmu_line : "",
		.banner = f && f->banner[0] ? f->banner : NULL,
		.mode = app->mode_name,
		.title = app->mode.title,
		.interval_ms = app->interval_ms,
		.measured_ms = have ? snap->interval_s * 1000 : 0,
		.samples = f ? f->ticks : 0, /* the tick the frame shows (counting goes on when paused) */
		.paused = app->display_paused,
		.first_tick_pending = f ? f->first_tick_pending : true,
		.capability = mach->capability,
		.warnings = app->warnings,
		.extra = extra,
	};
	struct view_jitter vj;
	struct view_input in = {
		.header = &h,
		.snap = have ? snap : NULL,
		.core_type = f ? f->core_type : NULL,
		.history = &u->hist,
		.text = {(const char *const *)u->text, u->text_roles, u->ntext},
		.message = app->status[0] ? app->status : NULL,
		.message_role = ROLE_MESSAGE_INFO,
		.jitter = have ? view_jitter_of(f, &vj) : NULL,
	};
	if (app->nmessages) {
		int last = (app->message_head - 1 + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
		if (strcmp(app->messages[last].text, app->status) == 0)
			in.message_role = app->messages[last].level == MSG_ERROR ? ROLE_MESSAGE_ERROR
					  : app->messages[last].level == MSG_WARN ? ROLE_MESSAGE_WARN
										  : ROLE_MESSAGE_INFO;
	}
	if (have && f->nbits > 0) {
		in.nbits = f->nbits;
		in.bit_names = f->bit_names;
		in.bit_rate = f->bit_rate;
		in.bit_share = f->bit_share;
		in.bit_age = f->bit_age;
		in.row_bit_share = f->row_bit_share;
	}
	if (u->prompting) {
		struct lineedit_view lv = lineedit_view(&u->le, c->w - 2);
		snprintf(u->prompt_buf, sizeof(u->prompt_buf), ":%.*s", (int)lv.len, u->le.buf + lv.start);
		in.prompt = u->prompt_buf;
		u->cursor_col = 1 + lv.cursor_col;
	}
	return views_draw(c, &in, &u->vs);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uistate.c: the screen's state: keys, prompt, completion, what it shows (no curses; commands in
 * ui/cmd-*.c). */
#include "uistate.h"
#include "app.h"
#include "command.h"
#include "complete.h"
#include "encode.h"
#include "frame.h"
#include "history.h"
#include "jitter.h"
#include "mode.h"
#include "numfmt.h"
#include "output.h"
#include "probe.h"
#include "recorder.h"
#include "replay.h"
#include "taskview.h"
#include "textutil.h"
#include "ui.h"
#include "watch.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UI(app) ui_state_of(app)

/* --- text views ----------------------------------------------------------------------------- */

void ui_text_clear(struct ui_state *u)
{
	for (int i = 0; i < u->ntext; i++)
		free(u->text[i]);
	free(u->text);
	free(u->text_roles);
	u->text = NULL;
	u->text_roles = NULL;
	u->ntext = 0;
}

void ui_text_add(struct ui_state *u, int role, const char *fmt, ...)
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

/* --- what the screen follows of the run (an app hook) ---------------------------------------- */

/* The running mode's metric names, joined. */
static void metrics_of(const struct app_ctx *app, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int m = 0; m < app->mode.nmetrics && o < len; m++)
		o += (size_t)snprintf(buf + o, len - o, "%s,", app->mode.metrics[m].name);
}

/* The user's offcore selection (:offcore BIT... response=NAME). */
static void offcore_of(const struct app_ctx *app, char *buf, size_t len)
{
	const struct offcore_choice *ch = &app->offcore_choice;
	size_t o = (size_t)snprintf(buf, len, "%d %s:", ch->set, ch->response);
	for (int b = 0; b < ch->nbits && o < len; b++)
		o += (size_t)snprintf(buf + o, len - o, " %d", ch->bits[b]);
}

/* A mode (or CPU set) opened, whoever asked: history restarts; sort and sparkline are metric
 * indices and hold while the metrics do; a new offcore selection shows its breakdown. */
static void on_mode(struct app_ctx *app, void *arg)
{
	struct ui_state *u = arg;
	char now[sizeof(u->seen_metrics)];
	view_history_free(&u->hist);
	metrics_of(app, now, sizeof(now));
	if (strcmp(now, u->seen_metrics) != 0) {
		u->vs.sort_col = -1;
		u->vs.spark_metric = -1;
		snprintf(u->seen_metrics, sizeof(u->seen_metrics), "%s", now);
	}
	offcore_of(app, now, sizeof(u->seen_offcore));
	if (strcmp(now, u->seen_offcore) != 0) {
		if (app->mode.offcore.nbits > 0 && app->offcore_choice.set)
			u->vs.view = views_find("offcore");
		snprintf(u->seen_offcore, sizeof(u->seen_offcore), "%s", now);
	}
}

/* The sparkline history follows the frames, however they were made (the run's refreshes, or
 * :tick and :jump in a replay), and holds while the display is paused. */
static void follow_frame(struct ui_state *u)
{
	const struct snapshot *snap = u->shown.snap;
	if (!u->hist.v || u->hist.nrows != snap->nrows || u->hist.nmetrics != snap->nmetrics ||
	    u->seen_rows != (int)u->shown.rows) /* :rows: the rows are other things now */
		view_history_reset(&u->hist, snap->nrows, snap->nmetrics);
	u->seen_rows = (int)u->shown.rows;
	view_history_push(&u->hist, snap);
}

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
		for (size_t i = 0; command_setting_at(i); i++)
			complete_list_add(out, command_setting_at(i)->name);
		break;
	case ARG_VIEW:
		for (int v = 0; views_at(v); v++)
			complete_list_add(out, views_at(v)->name);
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

static void add_event_name(void *arg, const char *pmu, const char *event, const char *desc,
			   bool present)
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
			snprintf(line + l, sizeof(line) - l, "%s%s", i ? " " : "",
				 res.matches.v[i]);
		}
		app_log(app, MSG_INFO, "%zu choices: %s", res.matches.n, line);
	} else if (res.status == COMPLETE_NONE) {
		snprintf(app->status, sizeof(app->status), "no completion");
	}
	complete_result_free(&res);
}

static void obs_mode(struct observer *o, struct app_ctx *app) { on_mode(app, o->state); }

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
	struct observer o = {.name = "ui", .state = u, .on_mode = obs_mode};
	if (!app_observe(app, &o)) {
		free(u);
		snprintf(err, errlen, "too many observers of the run");
		return NULL;
	}
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
	ui_add_commands(); /* before the default bindings, which name the screen's commands */
	keys_map_init(&u->km);
	lineedit_init(&u->le);
	char why[256] = "";
	u->history = hist_open(NULL, 500, why, sizeof(why));
	if (why[0])
		app_log(app, MSG_WARN, "history: %s", why);
	metrics_of(app, u->seen_metrics, sizeof(u->seen_metrics));
	offcore_of(app, u->seen_offcore, sizeof(u->seen_offcore));
	return u;
}

void ui_state_free(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	if (!u)
		return;
	char err[256];
	if (u->history && hist_close(u->history, err, sizeof(err)) < 0)
		text_fprintf(stderr, "pmutop: saving history: %s\n", err);
	canvas_free(u->canvas);
	termout_free(u->out);
	theme_free(&u->theme);
	keys_map_free(&u->km);
	lineedit_free(&u->le);
	view_history_free(&u->hist);
	frame_store_free(u->shown_store);
	ui_text_clear(u);
	if (u->probe)
		probe_free(u->probe);
	free(u->task_cpu);
	free(u);
	app_unobserve(app, "ui");
}

struct ui_state *ui_state_of(const struct app_ctx *app) { return app_observer_state(app, "ui"); }

void ui_state_set_depth(struct app_ctx *app, int colors)
{
	struct ui_state *u = UI(app);
	u->colors = colors;
	u->depth = theme_depth_for(colors, getenv("COLORTERM"), getenv("NO_COLOR"));
	if (u->depth > THEME_256)
		u->depth = THEME_256; /* curses pairs take palette indices */
}

void ui_state_startup(struct app_ctx *app)
{
	if (app->replay && !source_has(&app->source, SOURCE_CAP_FORWARD)) /* not a remote one */
		keys_bind_replay(&UI(app)->km);
	struct command_errors errs = {0};
	command_startup(app, &errs);
	for (size_t i = 0; i < errs.n; i++)
		app_log(app, MSG_ERROR, "%s", errs.msgs[i]);
	command_errors_free(&errs);
}

void ui_state_after_tick(struct app_ctx *app) { ui_probe_advance(app); }

void ui_state_frame(struct app_ctx *app, const struct frame *f)
{
	struct ui_state *u = UI(app);
	if (f == &app->frame && app->frame_store)
		app_frame_take(app, &u->shown, &u->shown_store); /* the newest: no copy */
	else if (frame_copy(&u->shown, &u->shown_store, f) < 0) {
		app_log(app, MSG_WARN, "out of memory: the screen keeps its last frame");
		return;
	}
	follow_frame(u);
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
		const char *h =
		    u->history ? hist_prev(u->history, u->le.buf ? u->le.buf : "") : NULL;
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
	/* the task view: Esc (or q, as in a text view) goes back a step */
	if ((key == KEYS_ESC || key == 'q') &&
	    (u->vs.view == views_find("tasks") || u->vs.view == views_find("cgroups")) &&
	    ui_taskview_back(app))
		return;
	/* text views close with Esc or q */
	if (u->vs.view != VIEWS_TABLE && (key == KEYS_ESC || key == 'q')) {
		enum taskview_kind tk = app_taskview_kind(app, NULL);
		/* back to the task view when its rows are counted */
		u->vs.view = tk == TASKVIEW_TASKS     ? views_find("tasks")
			     : tk == TASKVIEW_CGROUPS ? views_find("cgroups")
						      : VIEWS_TABLE;
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

static void add_counter_line(void *ctx, bool title, const char *line)
{
	ui_text_add(ctx, title ? ROLE_TITLE : ROLE_HELP_TEXT, "%s", line);
}

static void add_spike_line(void *ctx, bool title, const char *line)
{
	ui_text_add(ctx, title ? ROLE_TITLE : ROLE_HELP_TEXT, "%s", line);
}

/* The table's window columns, as the frame has them. */
static const struct view_jitter *view_jitter_of(const struct frame *f, struct view_jitter *vj)
{
	*vj = (struct view_jitter){.stat = f->stat,
				   .values = f->stat_values,
				   .nattrib = f->nattrib,
				   .attrib_names = f->attrib_names,
				   .attrib = f->attrib,
				   .task = f->task};
	return vj->stat || vj->nattrib ? vj : NULL;
}

/* Whether the view shown is the one named @name (views_find(@name), without its search). */
static bool showing(const struct ui_state *u, const char *name)
{
	const struct view_def *v = views_at(u->vs.view);
	return v && strcmp(v->name, name) == 0;
}

int ui_state_draw(struct app_ctx *app, struct canvas *c)
{
	struct ui_state *u = UI(app);
	if (app->frame.stepped && app->frame.seq > u->shown.seq)
		ui_state_frame(app, &app->frame); /* a replay moved by hand, paused or not */
	const struct frame *f = u->shown.snap ? &u->shown : NULL; /* the frame it holds */
	const struct snapshot *snap = f ? f->snap : NULL;
	watch_want_owners(app, showing(u, "counters")); /* kept fresh while shown */
	if (showing(u, "tasks") || showing(u, "cgroups")) {
		char line[512];
		app_taskview_fit(app, c->h - 12); /* header, title, table head, total, legend */
		app_taskview_hold(app, recorder_active(app));
		app_taskview_status(app, line, sizeof(line));
		ui_text_clear(u);
		ui_text_add(u, ROLE_LEGEND, "%s", line);
	}
	ui_taskview_columns(app);
	if (showing(u, "counters")) {
		ui_text_clear(u);
		watch_lines(app, f, add_counter_line, u);
	}
	if (showing(u, "spikes") && jitter_get(app)) {
		bool tail = u->vs.scroll >= u->ntext - (c->h - 8); /* follow the newest spikes */
		ui_text_clear(u);
		jitter_spike_lines(app, add_spike_line, u);
		if (tail)
			u->vs.scroll = 1 << 20;
	}
	bool have = snap && snap->seq > 0;
	char extra[512]; /* set as far as it is used: an initializer would clear all of it */
	extra[0] = '\0';
	size_t used = 0; /* the header's pieces appended as snprintf would cut them, no printf */
	bool replay = f && (f->position[0] || f->recorder[0]);
	if (replay) {
		used = text_cat(extra, sizeof(extra), used, f->position);
		if (f->position[0] && f->recorder[0])
			used = text_cat(extra, sizeof(extra), used, "  ");
		used = text_cat(extra, sizeof(extra), used, f->recorder);
	}
	/* the sampling line before the notes: it starts with FROZEN and holds the lateness and its
	 * --realtime hint, and the line is cut at the screen's width */
	if (f && f->show_self) {
		used = text_cat(extra, sizeof(extra), used, used ? "; " : "");
		used = text_cat(extra, sizeof(extra), used, f->self);
	}
	if (f && !replay && f->overruns) {
		char num[NUMFMT_MAX];
		numfmt_u64(num, f->overruns);
		used = text_cat(extra, sizeof(extra), used,
				used ? "; missed ticks: " : "missed ticks: ");
		used = text_cat(extra, sizeof(extra), used, num);
		used =
		    text_cat(extra, sizeof(extra), used, " (machine busy or interval too short)");
	}
	if (f && f->baseline[0]) { /* which reference the +/- % cells compare with */
		used = text_cat(extra, sizeof(extra), used,
				used ? "; against baseline " : "against baseline ");
		used = text_cat(extra, sizeof(extra), used, f->baseline);
	}
	/* the platform line says where the utilisation comes from */
	char pmu_line[sizeof(f->pmu_line) + sizeof(f->util_source) + 16];
	pmu_line[0] = '\0';
	if (f) {
		size_t pl = text_cat(pmu_line, sizeof(pmu_line), 0, f->pmu_line);
		if (f->util_source[0]) {
			pl = text_cat(pmu_line, sizeof(pmu_line), pl, " | util from ");
			text_cat(pmu_line, sizeof(pmu_line), pl, f->util_source);
		}
	}
	/* the header describes the machine the numbers come from (the recorded one in a replay) */
	const struct source_machine *mach = f ? f->machine : &app->machine;
	char capability[sizeof(mach->capability) + 1400]; /* + the guard's and the owners' facts */
	struct view_header h = {
	    .host = mach->host[0] ? mach->host : "?",
	    .kernel = mach->kernel[0] ? mach->kernel : "?",
	    .pmu = f ? pmu_line : "",
	    .banner = f && f->banner[0] ? f->banner : NULL,
	    .mode = f ? f->mode : app->mode_name,
	    .title = f ? f->title : app->mode.title,
	    .interval_ms = f ? f->interval_ms : app->interval_ms,
	    .measured_ms = have ? snap->interval_s * 1000 : 0,
	    .samples =
		f ? f->ticks : 0, /* the tick the frame shows (counting goes on when paused) */
	    .paused = app->display_paused,
	    .first_tick_pending = f ? f->first_tick_pending : true,
	    .capability = watch_capability(f, mach->capability, capability, sizeof(capability)),
	    .warnings = app->warnings,
	    .extra = extra,
	};
	struct view_jitter vj;
	const struct ui_drill *back = u->ndrills ? &u->drills[u->ndrills - 1] : NULL;
	struct view_input in = {
	    .header = &h,
	    .snap = have ? snap : NULL,
	    .core_type = f ? f->core_type : NULL,
	    .row_unit = f && f->row_keys ? rows_unit_name(f->rows) : NULL,
	    .row_keys = f ? f->row_keys : NULL,
	    .history = &u->hist,
	    .text = {(const char *const *)u->text, u->text_roles, u->ntext},
	    .message = app->status[0] ? app->status : NULL,
	    .message_role = ROLE_MESSAGE_INFO,
	    .jitter = have ? view_jitter_of(f, &vj) : NULL,
	    .nstack = have ? f->nstack : 0,
	    .stack = have ? f->stack : NULL,
	    .err = have && f->stat == NULL ? f->err : NULL,
	    .base_change = have && f->stat == NULL ? f->base_change : NULL,
	    .base_p = have && f->stat == NULL ? f->base_p_adj : NULL,
	    .drill = f && f->drill[0] ? f->drill : NULL,
	    .drilled_from = f && back && strcmp(back->to, f->mode) == 0 ? back->from : NULL,
	    .replay = app->replay && !source_has(&app->source, SOURCE_CAP_FORWARD),
	    .stale = have && f->stale,
	};
	if (app->nmessages) {
		int last = (app->message_head - 1 + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
		if (strcmp(app->messages[last].text, app->status) == 0)
			in.message_role =
			    app->messages[last].level == MSG_ERROR  ? ROLE_MESSAGE_ERROR
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
		snprintf(u->prompt_buf, sizeof(u->prompt_buf), ":%.*s", (int)lv.len,
			 u->le.buf + lv.start);
		in.prompt = u->prompt_buf;
		u->cursor_col = 1 + lv.cursor_col;
	}
	return views_draw(c, &in, &u->vs);
}

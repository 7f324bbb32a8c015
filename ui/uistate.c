/* uistate.c: the screen's state: keys, prompt, completion, what it shows (no curses; commands in
 * ui/cmd-*.c). */
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
#include "replay.h"
#include "ui.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UI(app) ((struct ui_state *)(app)->ui)

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
	size_t o =
	    (size_t)snprintf(buf, len, "%d %s:", app->offcore_sel_set, app->offcore_response);
	for (int b = 0; b < app->offcore_sel_nbits && o < len; b++)
		o += (size_t)snprintf(buf + o, len - o, " %d", app->offcore_sel_bits[b]);
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
		if (app->offcore && app->offcore_sel_set)
			u->vs.view = VIEW_OFFCORE;
		snprintf(u->seen_offcore, sizeof(u->seen_offcore), "%s", now);
	}
}

/* Every snapshot (also those :tick and :jump read) goes to the history, at the refresh cadence. */
static void on_snapshot(struct app_ctx *app, const struct snapshot *snap, void *arg)
{
	struct ui_state *u = arg;
	if (jitter_get(app)) {
		if (jitter_windows(app) == u->seen_windows || !jitter_snapshot(app))
			return;
		u->seen_windows = jitter_windows(app);
		snap = jitter_snapshot(app);
	}
	if (!u->hist.v || u->hist.nrows != snap->nrows || u->hist.nmetrics != snap->nmetrics)
		view_history_reset(&u->hist, snap->nrows, snap->nmetrics);
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
		for (int v = 0; v < VIEW_COUNT; v++)
			complete_list_add(out, ui_view_names[v]);
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
	ui_add_commands(); /* before the default bindings, which name the screen's commands */
	keys_map_init(&u->km);
	lineedit_init(&u->le);
	char why[256] = "";
	u->history = hist_open(NULL, 500, why, sizeof(why));
	if (why[0])
		app_log(app, MSG_WARN, "history: %s", why);
	metrics_of(app, u->seen_metrics, sizeof(u->seen_metrics));
	offcore_of(app, u->seen_offcore, sizeof(u->seen_offcore));
	struct app_hook hook = {
	    .name = "ui", .on_snapshot = on_snapshot, .on_mode = on_mode, .arg = u};
	if (app_add_hook(app, &hook) < 0) {
		snprintf(err, errlen, "too many observers of the run");
		ui_state_free(app);
		return NULL;
	}
	return u;
}

void ui_state_free(struct app_ctx *app)
{
	struct ui_state *u = UI(app);
	if (!u)
		return;
	app_remove_hook(app, "ui");
	char err[256];
	if (u->history && hist_close(u->history, err, sizeof(err)) < 0)
		fprintf(stderr, "pmutop: saving history: %s\n", err);
	canvas_free(u->canvas);
	canvas_free(u->prev);
	theme_free(&u->theme);
	keys_map_free(&u->km);
	lineedit_free(&u->le);
	view_history_free(&u->hist);
	ui_text_clear(u);
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
	remote_app_attach(app);
	struct command_errors errs = {0};
	command_startup(app, &errs);
	for (size_t i = 0; i < errs.n; i++)
		app_log(app, MSG_ERROR, "%s", errs.msgs[i]);
	command_errors_free(&errs);
}

void ui_state_tick(struct app_ctx *app)
{
	char err[512];
	/* the history follows in the app hook (on_snapshot) */
	int rc = app->replay ? replay_app_tick(app, err, sizeof(err)) : app_tick(app, err, sizeof(err));
	ui_probe_advance(app);
	if (rc < 0)
		app_log(app, MSG_ERROR, "%s", err);
}

void ui_state_fd(struct app_ctx *app, int fd)
{
	/* a remote agent's stream: show every tick that arrived (unless paused) */
	if (app->remote && remote_app_input(app, fd) > 0)
		while (!app->paused && replay_app_pending(app) > 0)
			ui_state_tick(app);
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
	ui_text_add(ctx, title ? ROLE_TITLE : ROLE_HELP_TEXT, "%s", line);
}

/* The table's jitter columns: the chosen statistic and attribution. */
static const struct view_jitter *view_jitter_of(struct app_ctx *app, const struct snapshot *snap)
{
	static struct view_jitter vj;
	static double attrib[APP_MAX_ROWS * ATTRIB_NCOLS];
	static char tasks[APP_MAX_ROWS][48];
	static const char *task_ptr[APP_MAX_ROWS];
	struct jitter *j = jitter_get(app);
	if (!j || !snap || !j->have_agg || j->nrows != snap->nrows)
		return NULL;
	vj = (struct view_jitter){0};
	if (j->stat != JITTER_VALUE) {
		vj.stat = jitter_stat_name(j->stat);
		vj.values = j->shown;
	}
	if (j->attrib_on && j->attrib_ready) {
		vj.nattrib = ATTRIB_NCOLS;
		vj.attrib_names = attrib_col_names;
		vj.attrib = attrib;
		vj.task = task_ptr;
		for (int r = 0; r < j->nrows && r < APP_MAX_ROWS; r++) {
			for (int a = 0; a < ATTRIB_NCOLS; a++) {
				const struct jitter_cell *cell = jitter_cell(j, r, j->nmetrics + a);
				double v = NAN;
				if (cell && cell->st.available) {
					switch (j->stat) {
					case JITTER_MIN: v = cell->st.min; break;
					case JITTER_P99: v = cell->st.p99; break;
					case JITTER_MAX: v = cell->st.max; break;
					case JITTER_DEV: v = cell->dev.available ? cell->dev.mad_units : NAN; break;
					default: v = cell->st.median; break;
					}
				}
				attrib[r * ATTRIB_NCOLS + a] = v;
			}
			const struct tasktop_cpu *t = attrib_task(&j->attrib, r);
			if (t)
				snprintf(tasks[r], sizeof(tasks[r]), "%.30s %.0f%%", t->comm, t->cpu_pct);
			task_ptr[r] = t ? tasks[r] : NULL;
		}
	}
	return vj.stat || vj.nattrib ? &vj : NULL;
}

int ui_state_draw(struct app_ctx *app, struct canvas *c)
{
	struct ui_state *u = UI(app);
	const struct snapshot *snap = app->session ? session_snapshot(app->session) : NULL;
	if (jitter_get(app))
		snap = jitter_snapshot(app);
	if (u->vs.view == VIEW_SPIKES && jitter_get(app)) {
		bool tail = u->vs.scroll >= u->ntext - (c->h - 8); /* follow the newest spikes */
		ui_text_clear(u);
		jitter_spike_lines(app, add_spike_line, u);
		if (tail)
			u->vs.scroll = 1 << 20;
	}
	bool have = snap && snap->seq > 0;
	char pmu[160], banner[160] = "", extra[256] = "";
	const struct backend *b = app->session ? session_backend(app->session) : NULL;
	if (b && b->simulated)
		snprintf(pmu, sizeof(pmu), "SIMULATED %s", app->family->desc);
	else if (app->pf.core_pmu_count == 0)
		snprintf(pmu, sizeof(pmu), "software events only");
	else
		snprintf(pmu, sizeof(pmu), "%s PMU", app->family->desc);
	if (b && b->simulated)
		snprintf(banner, sizeof(banner), "SIMULATED");
	if (app->replay)
		replay_app_banner(app, banner, sizeof(banner));
	if (app->replay || app->recorder) {
		char rs[160] = "", rec[160] = "";
		if (app->remote)
			snprintf(rs, sizeof(rs), "%s", remote_app_state(app));
		else if (app->replay)
			replay_app_status(app, rs, sizeof(rs));
		recorder_status(app, rec, sizeof(rec));
		snprintf(extra, sizeof(extra), "%s%s%s", rs, rs[0] && rec[0] ? "  " : "", rec);
	} else if (app->overruns)
		snprintf(extra, sizeof(extra), "missed ticks: %llu (machine busy or interval too short)",
			 (unsigned long long)app->overruns);
	if (jitter_get(app) && (app->sample_ms || jitter_get(app)->frozen || jitter_get(app)->attrib_on)) {
		size_t used = strlen(extra);
		jitter_status_line(app, extra + used + (used ? 2 : 0), sizeof(extra) - used - 2);
		if (used)
			memcpy(extra + used, "; ", 2);
	}
	struct view_header h = {
		.host = app->pf.hostname,
		.kernel = app->pf.kernel,
		.pmu = pmu,
		.banner = banner[0] ? banner : NULL,
		.mode = app->mode_name,
		.title = app->mode.title,
		.interval_ms = app->interval_ms,
		.measured_ms = have ? snap->interval_s * 1000 : 0,
		.samples = app->ticks,
		.paused = app->paused,
		.first_tick_pending = app->ticks <= app->mode_started_tick,
		.capability = app->pf.capability,
		.warnings = app->warnings,
		.extra = extra,
	};
	const char *types[APP_MAX_ROWS > 0 ? 1 : 1];
	(void)types;
	static const char *core_types[APP_MAX_ROWS];
	const struct replay *rp = app->replay;
	for (int r = 0; r < app->ncpus; r++) {
		core_types[r] = platform_core_type(&app->pf, app->cpus[r]);
		/* a recording from another machine brings its own core types */
		for (int k = 0; rp && k < rp->f.header.ncpus; k++)
			if (rp->f.header.cpus[k].cpu == app->cpus[r])
				core_types[r] = rp->f.header.cpus[k].core_type;
	}
	struct view_input in = {
		.header = &h,
		.snap = have ? snap : NULL,
		.core_type = core_types,
		.history = &u->hist,
		.text = {(const char *const *)u->text, u->text_roles, u->ntext},
		.message = app->status[0] ? app->status : NULL,
		.message_role = ROLE_MESSAGE_INFO,
		.jitter = view_jitter_of(app, have ? snap : NULL),
	};
	if (app->nmessages) {
		int last = (app->message_head - 1 + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
		if (strcmp(app->messages[last].text, app->status) == 0)
			in.message_role = app->messages[last].level == MSG_ERROR ? ROLE_MESSAGE_ERROR
					  : app->messages[last].level == MSG_WARN ? ROLE_MESSAGE_WARN
										  : ROLE_MESSAGE_INFO;
	}
	/* the offcore view: per bit its rate, share and age; per row the shares */
	static double bit_rate[16], bit_share[16], row_share[APP_MAX_ROWS * 4];
	static int bit_age[16];
	static const char *bit_names[16];
	if (have && app->offcore && app->offcore->nbits > 0) {
		const struct offcore_map *map = app->offcore;
		int nb = map->nbits;
		int rows = snap->nrows < APP_MAX_ROWS * 4 / 16 ? snap->nrows : APP_MAX_ROWS * 4 / 16;
		for (int b = 0; b < nb; b++) {
			/* the bit's event and share metric, by name (:add/:remove may move them) */
			int e = -1, m = -1;
			for (int k = 0; k < snap->nevents; k++)
				if (strcmp(snap->event_names[k], map->names[b]) == 0)
					e = k;
			for (int k = 0; k < snap->nmetrics; k++)
				if (strcmp(snap->metrics[k].name, map->names[b]) == 0)
					m = k;
			const struct count *t = e >= 0 ? &snap->total_counts[e] : NULL;
			bool ok = t && (t->state == COUNT_OK || t->state == COUNT_SCALED);
			bit_names[b] = map->names[b];
			bit_rate[b] = ok && snap->interval_s > 0 ? t->value / snap->interval_s : NAN;
			bit_share[b] = m >= 0 && !isnan(snap->total_values[m]) ? snap->total_values[m] / 100 : 0;
			bit_age[b] = ok ? (int)snap->event_age[e] : -1;
			for (int r = 0; r < rows; r++) {
				double v = m >= 0 ? snap->values[r * snap->nmetrics + m] : NAN;
				row_share[r * nb + b] = isnan(v) ? 0 : v / 100;
			}
		}
		in.nbits = nb;
		in.bit_names = bit_names;
		in.bit_rate = bit_rate;
		in.bit_share = bit_share;
		in.bit_age = bit_age;
		in.row_bit_share = row_share;
	}
	if (u->prompting) {
		struct lineedit_view lv = lineedit_view(&u->le, c->w - 2);
		snprintf(u->prompt_buf, sizeof(u->prompt_buf), ":%.*s", (int)lv.len, u->le.buf + lv.start);
		in.prompt = u->prompt_buf;
		u->cursor_col = 1 + lv.cursor_col;
	}
	return views_draw(c, &in, &u->vs);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_views.c: golden screens: views_draw() of sim snapshots at 80x24 and 132x40, text and roles.
 */
#include "app.h"
#include "harness.h"
#include "mode.h"
#include "options.h"
#include "output.h"
#include "playback.h"
#include "replay.h"
#include "theme.h"
#include "uistate.h"
#include "views.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct app_ctx app; /* large: static, reset between fixtures */
static struct view_history hist;
static bool have_app;

static void fx_close(void)
{
	if (have_app) {
		ui_state_free(&app);
		app_free(&app);
	}
	view_history_free(&hist);
	memset(&app, 0, sizeof(app));
	memset(&hist, 0, sizeof(hist));
	have_app = false;
}

/* Opens the sim run described by @args ("--sim-cpus 4 -m cpi ...") and reads @ticks ticks. */
static int fx_open(const char *args, int ticks)
{
	fx_close();
	char words[512], buf[512], *argv[HARNESS_MAX_ARGS];
	bool replay = strncmp(args, "-R ", 3) == 0;
	snprintf(words, sizeof(words),
		 replay ? "--no-rc %s" : "--no-rc --backend sim --seed 1 -i 1000 %s", args);
	int argc = harness_argv(words, buf, sizeof(buf), argv);
	char err[512];
	if (options_parse(&app.opt, argc, argv, err, sizeof(err)) < 0 ||
	    app_init(&app, err, sizeof(err)) != 0) {
		CHECK(0, "fixture \"%s\": %s", args, err);
		return -1;
	}
	have_app = true;
	if (!ui_state_new(&app, err, sizeof(err))) {
		CHECK(0, "ui_state_new: %s", err);
		return -1;
	}
	if (!replay && app_tick(&app, err, sizeof(err)) != 0) { /* priming read */
		CHECK(0, "priming: %s", err);
		return -1;
	}
	for (int i = 0; i < ticks; i++) {
		int rc = replay ? playback_tick(&app, err, sizeof(err))
				: app_tick(&app, err, sizeof(err));
		if (replay && rc == 0) { /* the replay's own priming tick */
			i--;
			continue;
		}
		if (rc != 1) {
			CHECK(0, "tick %d: %s", i, err);
			return -1;
		}
		const struct snapshot *s = session_snapshot(app.session);
		if (i == 0)
			CHECK_INT(view_history_reset(&hist, s->nrows, s->nmetrics), 0);
		view_history_push(&hist, s);
	}
	return 0;
}

struct screen {
	const char *const *core_type;
	const char *message;
	int message_role;
	const char *prompt;
	bool paused;
	bool text;		   /* use the ui state's text lines (help) */
	bool ascii;		   /* ASCII bars (:set ascii on) */
	const char *host, *kernel; /* NULL: testhost, 6.1.0-test */
};

/* Draws the fixture's latest snapshot into a w x h canvas. */
static struct canvas *draw(int w, int h, struct view_state *vs, const struct screen *sc)
{
	struct canvas *c = canvas_new(w, h);
	canvas_set_ascii(c, sc->ascii);
	const struct snapshot *snap = session_snapshot(app.session);
	/* a mode with a stacked bar: its metrics as the frame finds them */
	const struct frame *f = app.mode.nstack ? app_frame_build(&app) : NULL;
	if (f && ui_state_of(&app))
		ui_state_frame(&app, f); /* as the run loop hands it to the screen */
	char pmu[160], banner[160];
	snprintf(pmu, sizeof(pmu), "%s%s", app.replay ? "" : "SIMULATED ", app.family->desc);
	snprintf(banner, sizeof(banner), "%s", app.replay ? "REPLAY stat.csv" : "SIMULATED");
	struct view_header hd = {
	    .host = sc->host ? sc->host : "testhost",
	    .kernel = sc->kernel ? sc->kernel : "6.1.0-test",
	    .pmu = pmu,
	    .banner = banner,
	    .mode = app.mode_name,
	    .title = app.mode.title,
	    .interval_ms = app.interval_ms,
	    .measured_ms = snap->interval_s * 1000,
	    .samples = app.ticks,
	    .paused = sc->paused,
	    .capability = "capability line of the test (fixed text)",
	};
	struct ui_state *u = ui_state_of(&app);
	struct view_input in = {
	    .header = &hd,
	    .snap = snap->seq ? snap : NULL,
	    .core_type = sc->core_type,
	    .history = &hist,
	    .message = sc->message,
	    .message_role = sc->message_role,
	    .prompt = sc->prompt,
	    .nstack = f ? f->nstack : 0,
	    .stack = f ? f->stack : NULL,
	    .drill = f && f->drill[0] ? f->drill : NULL,
	};
	if (sc->text)
		in.text =
		    (struct view_lines){(const char *const *)u->text, u->text_roles, u->ntext};
	views_draw(c, &in, vs);
	return c;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ch;
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* Compares one dump with tests/golden/screens/@name; PMUTOP_UPDATE_GOLDEN=1 rewrites it. */
static void golden(const char *name, const char *got)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/golden/screens/%s", harness_src(), name);
	const char *upd = getenv("PMUTOP_UPDATE_GOLDEN");
	if (upd && strcmp(upd, "1") == 0) {
		FILE *f = fopen(path, "w");
		CHECK(f != NULL, "cannot write %s", path);
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		return;
	}
	char *want = slurp(path);
	CHECK(want != NULL, "golden %s missing (PMUTOP_UPDATE_GOLDEN=1 creates it)", path);
	if (want) {
		CHECK(strcmp(want, got) == 0, "screen differs from %s; got:\n%s", path, got);
		free(want);
	}
}

/* not inlined: GCC 12 takes the memstream buffer for a local one (-Wdangling-pointer) */
__attribute__((noinline)) static char *dump(const struct canvas *c, bool roles)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (roles)
		canvas_dump_roles(c, m);
	else
		canvas_dump(c, m);
	fclose(m);
	return buf;
}

/* Draws at w x h, compares text and roles with NAME-WxH.txt / .roles; returns the text. */
static char *screen(const char *name, int w, int h, struct view_state *vs, const struct screen *sc)
{
	struct canvas *c = draw(w, h, vs, sc);
	char file[256];
	char *text = dump(c, false), *roles = dump(c, true);
	snprintf(file, sizeof(file), "%s-%dx%d.txt", name, w, h);
	golden(file, text);
	snprintf(file, sizeof(file), "%s-%dx%d.roles", name, w, h);
	golden(file, roles);
	free(roles);
	canvas_free(c);
	return text;
}

static void both(const char *name, struct view_state *vs, const struct screen *sc)
{
	free(screen(name, 80, 24, vs, sc));
	free(screen(name, 132, 40, vs, sc));
}

static struct view_state table_state(void)
{
	return (struct view_state){.view = VIEWS_TABLE, .sort_col = -1, .spark_metric = -1};
}

/* Does the role layer have @role anywhere on the line of @text that holds @needle? */
static bool role_on_line(const struct canvas *c, const char *needle, int role)
{
	char *t = dump(c, false);
	int line = 0;
	const char *p = strstr(t, needle);
	for (const char *q = t; p && q < p; q++)
		line += *q == '\n';
	bool found = false;
	for (int x = 0; p && x < c->w; x++)
		found |= canvas_cell(c, x, line)->role == role;
	free(t);
	return found;
}

/* The line of @text that holds @needle, or -1. */
static int line_of(const struct canvas *c, const char *needle)
{
	char *t = dump(c, false);
	const char *p = strstr(t, needle);
	size_t off = p ? (size_t)(p - t) : 0;
	int line = p ? 0 : -1;
	for (size_t i = 0; i < off; i++)
		line += t[i] == '\n';
	free(t);
	return line;
}

/* Whether the line of @t starting at @key has ">" (then blanks) right before @value. */
static bool top_marked(const char *t, const char *key, const char *value)
{
	const char *line = strstr(t, key);
	if (!line)
		return false;
	size_t end = strcspn(line + 1, "\n") + 1, vlen = strlen(value);
	for (size_t i = 0; i + vlen <= end; i++)
		if (strncmp(line + i, value, vlen) == 0) {
			size_t k = i;
			while (k > 0 && line[k - 1] == ' ')
				k--;
			if (k > 0 && line[k - 1] == '>')
				return true;
		}
	return false;
}

/* Cells of line @y in @role. */
static int cells_in_role(const struct canvas *c, int y, int role)
{
	int n = 0;
	for (int x = 0; y >= 0 && x < c->w; x++)
		n += canvas_cell(c, x, y)->role == role;
	return n;
}

/* Checks the stacked bars of every row against the snapshot: the bar starts where the column
 * header's legend does and is min(50, what is left - 2) columns wide for 100 %; each share gets
 * round(cumulative end) - round(cumulative start) cells of its role (canvas_stacked_bar), so
 * shares that add to less than 100 % leave the rest blank; the largest share's cell has the top
 * role, bold and the > mark. Returns the bar width (0: no bar). */
static int check_stack_rows(const struct canvas *c, const char *label)
{
	const struct snapshot *snap = session_snapshot(app.session);
	int hy = line_of(c, "CPU ");
	int bar_x = -1;
	for (int x = 0; hy >= 0 && x < c->w && bar_x < 0; x++)
		if (canvas_cell(c, x, hy)->role == ROLE_STACK_0)
			bar_x = x;
	int bar_w = bar_x < 0 ? 0 : c->w - bar_x - 2;
	bar_w = bar_w > 50 ? 50 : bar_w;
	int stack[SESSION_MAX_STACK], n = app.mode.nstack;
	for (int i = 0; i < n; i++)
		stack[i] = views_sort_column(snap, app.mode.stack[i]);
	for (int r = 0; r <= snap->nrows; r++) {
		char key[16];
		if (r < snap->nrows)
			snprintf(key, sizeof(key), "\n%4d ", snap->cpus[r]);
		else
			snprintf(key, sizeof(key), "\n all ");
		int y = line_of(c, key) + 1;
		const double *v =
		    r < snap->nrows ? &snap->values[r * snap->nmetrics] : snap->total_values;
		double cum = 0;
		int top = -1;
		for (int i = 0; i < n; i++) {
			double share = v[stack[i]];
			int start = (int)lround(cum / 100 * bar_w);
			cum += share;
			int end = (int)lround(cum / 100 * bar_w);
			if (bar_w)
				CHECK_INT(cells_in_role(c, y, ROLE_STACK_0 + i), end - start);
			if (top < 0 || share > v[stack[top]])
				top = i;
		}
		/* the top share's value cell: its role, bold, the mark in front */
		int tops = 0, bold = 0;
		for (int x = 0; x < (bar_x < 0 ? c->w : bar_x); x++) {
			const struct canvas_cell *cell = canvas_cell(c, x, y);
			tops += cell->role == ROLE_STACK_TOP;
			bold += cell->role == ROLE_STACK_TOP && (cell->attr & CANVAS_BOLD);
		}
		CHECK(tops > 1 && tops == bold, "%s row %d: the top share is not highlighted",
		      label, r);
		char *t = dump(c, false);
		char want[48];
		snprintf(want, sizeof(want), "%.3f", v[stack[top]]);
		CHECK(top_marked(t, key, want), "%s row %d: no > before %s:\n%s", label, r, want,
		      t);
		free(t);
	}
	return bar_w;
}

/* One frame for the kept-rows test: what views_draw gets from the screen, varied by @step. */
struct keep_step {
	const char *name;
	const char *message, *prompt, *host, *capability, *extra;
	bool paused, stale, ascii, group;
	int view, sort_col, spark;
	int scroll; /* the selected row */
	/* synthetic inputs, their values from @seed (the same seed: the same values): error bars,
	 * a baseline's changes, jitter attribution with busiest tasks, the task view's columns */
	bool err, base, attrib, taskcols, running;
	int seed;
	bool na_state; /* the inputs of n/a values marked offline: another reason shown */
};

/* A value for input @i of seed @seed: NaN now and then. */
static double synth(int seed, int i)
{
	unsigned h = (unsigned)(seed * 2654435761u) ^ (unsigned)(i * 40503u);
	h ^= h >> 13;
	return h % 17 == 0 ? NAN : (double)(h % 100000) / (1 + h % 7);
}

static void draw_step(struct canvas *c, const struct keep_step *st, struct view_state *vs)
{
	static const char *const types[] = {"big", "big", "little", "little"};
	const struct snapshot *snap = session_snapshot(app.session);
	const struct frame *f = app.mode.nstack ? app_frame_build(&app) : NULL;
	struct view_header hd = {
	    .host = st->host ? st->host : "testhost",
	    .kernel = "6.1.0-test",
	    .pmu = "SIMULATED",
	    .banner = "SIMULATED",
	    .mode = app.mode_name,
	    .title = app.mode.title,
	    .interval_ms = app.interval_ms,
	    .measured_ms = snap->interval_s * 1000,
	    .samples = app.ticks,
	    .paused = st->paused,
	    .capability = st->capability,
	    .extra = st->extra,
	};
	struct ui_state *u = ui_state_of(&app);
	struct view_input in = {
	    .header = &hd,
	    .snap = snap->seq ? snap : NULL,
	    .core_type = st->group && snap->nrows == 4 ? types : NULL,
	    .history = &hist,
	    .message = st->message,
	    .message_role = ROLE_MESSAGE_INFO,
	    .prompt = st->prompt,
	    .nstack = f ? f->nstack : 0,
	    .stack = f ? f->stack : NULL,
	    .stale = st->stale,
	    .text = {(const char *const *)u->text, u->text_roles, u->ntext},
	};
	static double err[8 * 64], change[8 * 64], p[8 * 64], attrib[8 * 2], task_cpu[8];
	static const char *const names[] = {"a1", "a2"};
	static const char *tasks[8];
	static const char *const task_names[] = {"stress-ng 98%", "kworker 3%", "\xe4\xb8\x96 wide",
						 NULL};
	for (int i = 0; i < 8 * 64; i++) {
		err[i] = synth(st->seed, i) / 100;
		change[i] = synth(st->seed + 1, i) / 1000 - 50;
		p[i] = fmod(fabs(synth(st->seed + 2, i)), 1);
	}
	for (int i = 0; i < 16; i++)
		attrib[i] = synth(st->seed + 3, i);
	for (int i = 0; i < 8; i++) {
		task_cpu[i] = fmod(fabs(synth(st->seed + 4, i)), 1);
		tasks[i] = task_names[(st->seed + i) % 4];
	}
	struct view_jitter jit = {
	    .nattrib = 2, .attrib_names = names, .attrib = attrib, .task = tasks};
	if (snap->nmetrics <= 64 && snap->nrows < 8) {
		in.err = st->err ? err : NULL;
		in.base_change = st->base ? change : NULL;
		in.base_p = st->base ? p : NULL;
		in.jitter = st->attrib ? &jit : NULL;
		vs->task_cpu = st->taskcols ? task_cpu : NULL;
		vs->ntask_cpu = st->taskcols ? 8 : 0;
	}
	canvas_set_ascii(c, st->ascii);
	vs->scroll = st->scroll;
	vs->show_running = st->running;
	vs->view = st->view;
	vs->sort_col = st->sort_col;
	vs->spark_metric = st->spark;
	vs->group_by_type = st->group;
	/* a changed reason for an n/a value: its inputs' states, the value still NaN */
	struct count *counts = snap->counts, *total = snap->total_counts;
	enum count_state was[64 * 8];
	int changed = 0;
	for (int r = 0; st->na_state && r <= snap->nrows; r++)
		for (int m = 0; m < snap->nmetrics; m++) {
			const struct session_metric *sm = &snap->metrics[m];
			double v = r < snap->nrows ? snap->values[r * snap->nmetrics + m]
						   : snap->total_values[m];
			struct count *row = r < snap->nrows ? &counts[r * snap->nevents] : total;
			for (int k = 0; isnan(v) && k < sm->ninputs && changed < 64 * 8; k++) {
				was[changed++] = row[sm->inputs[k]].state;
				row[sm->inputs[k]].state = COUNT_OFFLINE;
			}
		}
	views_draw(c, &in, vs);
	changed = 0; /* back as they were, in the same order */
	for (int r = 0; st->na_state && r <= snap->nrows; r++)
		for (int m = 0; m < snap->nmetrics; m++) {
			const struct session_metric *sm = &snap->metrics[m];
			double v = r < snap->nrows ? snap->values[r * snap->nmetrics + m]
						   : snap->total_values[m];
			struct count *row = r < snap->nrows ? &counts[r * snap->nevents] : total;
			for (int k = 0; isnan(v) && k < sm->ninputs && changed < 64 * 8; k++)
				row[sm->inputs[k]].state = was[changed++];
		}
}

/* The canvas kept from frame to frame (rows drawn under a key are not drawn again while their
 * inputs stay the same) holds, after every change of what the screen shows, the cells a new
 * canvas gets from the same frame: a kept row that went stale fails here. */
static void test_kept_rows(void)
{
	static const struct keep_step steps[] = {
	    {.name = "table", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "the same again", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "a message",
	     .capability = "cap",
	     .message = "hello",
	     .sort_col = -1,
	     .spark = -1},
	    {.name = "no message", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "a prompt",
	     .capability = "cap",
	     .prompt = ":sort cpi",
	     .sort_col = -1,
	     .spark = -1},
	    {.name = "hints again", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "sorted", .capability = "cap", .sort_col = 0, .spark = -1},
	    {.name = "paused", .capability = "cap", .paused = true, .sort_col = 0, .spark = -1},
	    {.name = "no capability line", .sort_col = 0, .spark = -1},
	    {.name = "an extra line", .extra = "recording x", .sort_col = 0, .spark = -1},
	    {.name = "capability and extra",
	     .capability = "cap",
	     .extra = "recording x",
	     .sort_col = 0,
	     .spark = -1},
	    {.name = "another host",
	     .capability = "cap",
	     .host = "otherhost",
	     .sort_col = 0,
	     .spark = -1},
	    {.name = "ascii", .capability = "cap", .ascii = true, .sort_col = 0, .spark = -1},
	    {.name = "ascii off", .capability = "cap", .sort_col = 0, .spark = -1},
	    {.name = "help view", .capability = "cap", .view = 2, .sort_col = 0, .spark = -1},
	    {.name = "help view again", .capability = "cap", .view = 2, .sort_col = 0, .spark = -1},
	    {.name = "back to the table", .capability = "cap", .sort_col = 0, .spark = -1},
	    {.name = "sparkline", .capability = "cap", .sort_col = 0, .spark = 1},
	    {.name = "grouped", .capability = "cap", .group = true, .sort_col = -1, .spark = -1},
	    {.name = "stale", .capability = "cap", .stale = true, .sort_col = -1, .spark = -1},
	    {.name = "table", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "second row selected",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .scroll = 1},
	    {.name = "error bars", .capability = "cap", .sort_col = -1, .spark = -1, .err = true},
	    {.name = "error bars again",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .err = true},
	    {.name = "error bars changed",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .err = true,
	     .seed = 1},
	    {.name = "baseline", .capability = "cap", .sort_col = -1, .spark = -1, .base = true},
	    {.name = "baseline changed",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .base = true,
	     .seed = 2},
	    {.name = "attribution",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .attrib = true},
	    {.name = "attribution again",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .attrib = true},
	    {.name = "attribution changed",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .attrib = true,
	     .seed = 3},
	    {.name = "task columns",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .taskcols = true},
	    {.name = "task columns changed",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .taskcols = true,
	     .seed = 5},
	    {.name = "task columns, attribution",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .taskcols = true,
	     .attrib = true,
	     .seed = 5},
	    {.name = "running shown",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .running = true},
	    {.name = "plain again", .capability = "cap", .sort_col = -1, .spark = -1},
	    /* more rows than fit (the 40-CPU fixture): the total row's "N more" follows them */
	    {.name = "scrolled", .capability = "cap", .sort_col = -1, .spark = -1, .scroll = 30},
	    {.name = "scrolled further",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .scroll = 33},
	    {.name = "scrolled back", .capability = "cap", .sort_col = -1, .spark = -1},
	    {.name = "n/a for another reason",
	     .capability = "cap",
	     .sort_col = -1,
	     .spark = -1,
	     .na_state = true},
	    {.name = "n/a as before", .capability = "cap", .sort_col = -1, .spark = -1},
	};
	static const char *const fixtures[] = {"--sim-cpus 4 -m cpi", "--sim-cpus 2 -m cpi",
					       "--sim-cpus 4 -m topdown --sim-family zen4",
					       "--sim-cpus 40 -m cpi",
					       "--sim-cpus 4 -m cpi --sim-fail-event 1"};
	struct canvas *kept = canvas_new(120, 30);
	int bad = 0, frames = 0, kept_rows = 0;
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		if (fx_open(fixtures[fx], 3) != 0)
			break;
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			struct view_state vs = table_state(), vs2 = table_state();
			if (i % 4 == 3) { /* a tick between some of the steps: new values */
				char err[256];
				CHECK_INT(app_tick(&app, err, sizeof(err)), 1);
				view_history_push(&hist, session_snapshot(app.session));
			}
			for (int y = 0; y < kept->h; y++)
				kept_rows += kept->key[y] != 0;
			draw_step(kept, &steps[i], &vs);
			struct canvas *fresh = canvas_new(120, 30);
			draw_step(fresh, &steps[i], &vs2);
			frames++;
			bool same = memcmp(kept->cells, fresh->cells,
					   sizeof(*kept->cells) * (size_t)kept->w * kept->h) == 0;
			for (int y = 0; y < kept->h; y++) /* termout skips rows not used */
				for (int x = 0; x < kept->w && !kept->used[y]; x++)
					same &= strcmp(canvas_cell(kept, x, y)->ch, " ") == 0 &&
						canvas_cell(kept, x, y)->role == 0 &&
						canvas_cell(kept, x, y)->attr == 0;
			if (!same && bad++ < 3) {
				char *a = dump(kept, false), *b = dump(fresh, false);
				char *ra = dump(kept, true), *rb = dump(fresh, true);
				CHECK(0, "%s, step \"%s\": kept canvas:\n%s%s\nnew canvas:\n%s%s",
				      fixtures[fx], steps[i].name, a, ra, b, rb);
				free(a), free(b), free(ra), free(rb);
			}
			canvas_free(fresh);
		}
	}
	CHECK(bad == 0, "%d of %d frames differ from a new canvas", bad, frames);
	CHECK(kept_rows > frames, "rows kept: %d over %d frames", kept_rows, frames);
	canvas_free(kept);
}

/* The table's row order, checked pair by pair against its rule (a metric's values ascending or
 * descending, n/a last, then CPU numbers), whether the rows came in order already or not. */
static void test_table_order(void)
{
	static const char *const fixtures[] = {"--sim-cpus 16 -m cpi --seed 7",
					       "--sim-cpus 4 -m cpi --sim-fail-event 1",
					       "--sim-cpus 1 -m cpi"};
	int checked = 0, sorted = 0;
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		if (fx_open(fixtures[fx], 2) != 0)
			continue;
		const struct snapshot *snap = session_snapshot(app.session);
		int n = snap->nrows, nm = snap->nmetrics;
		for (int col = -1; col < nm; col++)
			for (int desc = 0; desc < 2; desc++) {
				struct view_state vs = table_state();
				vs.sort_col = col, vs.sort_desc = desc;
				int order[64], seen[64] = {0};
				CHECK(n <= 64, "%d rows", n);
				views_table_order(snap, NULL, &vs, order);
				bool ok = true;
				for (int k = 0; k < n; k++)
					ok &= order[k] >= 0 && order[k] < n && !seen[order[k]]++;
				for (int k = 1; ok && k < n; k++) {
					int a = order[k - 1], b = order[k];
					double va = col < 0 ? 0 : snap->values[a * nm + col];
					double vb = col < 0 ? 0 : snap->values[b * nm + col];
					bool in_order = isnan(va) != isnan(vb) ? isnan(vb)
							: !isnan(va) && va != vb
							    ? (desc ? va > vb : va < vb)
							    : snap->cpus[a] < snap->cpus[b];
					ok &= in_order;
					sorted += k == n - 1 && order[0] != 0;
				}
				CHECK(ok, "%s: sort column %d%s: rows out of order", fixtures[fx],
				      col, desc ? " descending" : "");
				checked++;
			}
	}
	CHECK(checked >= 10, "%d orders checked", checked);
	CHECK(sorted > 0, "no order moved a row (every case was CPU order already)");
}

int main(void)
{
	char tmp[] = "/tmp/pmutop-views.XXXXXX";
	if (!mkdtemp(tmp))
		return 1;
	setenv("HOME", tmp, 1);
	setenv("XDG_STATE_HOME", tmp, 1);
	setenv("XDG_CONFIG_HOME", tmp, 1);
	struct screen plain = {0};

	/* Rows summed per core: the key column names the unit and holds perf's labels, wide
	 * enough for them, with the core's numbers (the frame's) beside each. */
	char rows_args[512];
	snprintf(rows_args, sizeof(rows_args),
		 "--sim-cpus 8 -m cpi --per-core --sysfs-root %s/tests/sysfs/x86-2s-smt",
		 harness_src());
	if (fx_open(rows_args, 2) == 0) {
		struct view_state vs = table_state();
		const struct frame *f = app_frame_build(&app);
		struct view_header hd = {.host = "testhost", .mode = app.mode_name};
		struct view_input in = {.header = &hd,
					.snap = f ? f->snap : NULL,
					.row_unit = "core",
					.row_keys = f ? f->row_keys : NULL,
					.history = &hist};
		struct canvas *c = canvas_new(100, 24);
		views_draw(c, &in, &vs);
		char *t = dump(c, false);
		CHECK(f && f->row_keys && f->snap->nrows == 4, "4 core rows");
		CHECK(strstr(t, "CORE ") != NULL, "no CORE column head:\n%s", t);
		char want[64];
		if (f && f->row_keys) {
			int cpi = views_sort_column(f->snap, "cpi");
			char num[32];
			output_format_metric(f->snap->values[3 * f->snap->nmetrics + cpi], 0, num,
					     sizeof(num));
			snprintf(want, sizeof(want), "S1-D0-C1 ");
			char *line = strstr(t, want);
			CHECK(line != NULL, "no S1-D0-C1 row:\n%s", t);
			if (line) {
				char *end = strchr(line, '\n');
				if (end)
					*end = '\0';
				CHECK(strstr(line, num) != NULL,
				      "S1-D0-C1 row lacks its cpi %s: %s", num, line);
			}
		}
		free(t);
		canvas_free(c);
	}

	/* Table: dcache with a miss spike on CPU 1 (warn class) among good CPUs. */
	if (fx_open("--sim-cpus 4 -m dcache --sim-spike 1:1:30", 3) == 0) {
		struct view_state vs = table_state();
		both("table-thresholds", &vs, &plain);
		struct canvas *c = draw(80, 24, &vs, &plain);
		char *t = dump(c, false);
		CHECK(strstr(t, "SIMULATED") != NULL, "no SIMULATED banner:\n%s", t);
		CHECK(strstr(t, " all") != NULL, "no total row:\n%s", t);
		CHECK(role_on_line(c, "   1 ", ROLE_CELL_WARN), "CPU 1 not in the warn colour:\n%s",
		      t);
		CHECK(role_on_line(c, "   0 ", ROLE_CELL_GOOD), "CPU 0 not in the good colour:\n%s",
		      t);
		CHECK(!role_on_line(c, "   0 ", ROLE_CELL_WARN), "CPU 0 in the warn colour");
		free(t);
		canvas_free(c);
		/* sorted by dmiss_pct, descending: CPU 1 first */
		vs.sort_col = views_sort_column(session_snapshot(app.session), "dmiss_pct");
		vs.sort_desc = true;
		CHECK_INT(vs.sort_col, 0);
		t = screen("table-sorted", 80, 24, &vs, &plain);
		char *r1 = strstr(t, "\n   1 "), *r0 = strstr(t, "\n   0 ");
		CHECK(r1 && r0 && r1 < r0, "sort by dmiss_pct desc does not put CPU 1 first:\n%s",
		      t);
		free(t);
	}

	/* Multiplexed: the scaled mark, and the running share with show_running. */
	if (fx_open("--sim-cpus 4 -m cpi --sim-mux 0.5", 2) == 0) {
		struct view_state vs = table_state();
		char *t = screen("table-mux", 80, 24, &vs, &plain);
		CHECK(strstr(t, "~") != NULL, "no scaled mark (~):\n%s", t);
		free(t);
		vs.show_running = true;
		t = screen("table-mux-running", 80, 24, &vs, &plain);
		CHECK(strstr(t, "50%") != NULL, "no running share (50%%):\n%s", t);
		free(t);
	}

	/* n/s (event never opens) and an offline CPU, with the total row over online CPUs. */
	if (fx_open("--sim-cpus 4 -m cpi --sim-fail-event 1 --sim-offline 2:1-5", 2) == 0) {
		struct view_state vs = table_state();
		struct screen sc = {
		    .message = "instructions (perf::INSTRUCTIONS) not supported on 4 of 4 CPUs",
		    .message_role = ROLE_MESSAGE_WARN};
		both("table-ns-offline", &vs, &sc);
		char *t = screen("table-ns-offline", 80, 24, &vs, &sc);
		CHECK(strstr(t, "n/s") != NULL, "no n/s cell:\n%s", t);
		CHECK(strstr(t, "   2  offline") != NULL, "CPU 2 not shown offline:\n%s", t);
		free(t);
	}

	/* n/c: the first tick of a rotating mode on XScale (events of the other set). */
	if (fx_open("--sim-cpus 2 -m dtlb --sim-family xscale1", 1) == 0) {
		/* the sim's capability line names the family without an article ("a Intel") */
		CHECK(
		    strcmp(
			app.machine.capability,
			"simulated counters (Intel XScale (xscale1: CCNT + 2)): no number is from "
			"hardware") == 0,
		    "sim capability line: %s", app.machine.capability);
		struct view_state vs = table_state();
		char *t = screen("table-nc", 80, 24, &vs, &plain);
		CHECK(strstr(t, "n/c") != NULL, "no n/c cell:\n%s", t);
		free(t);
	}

	/* Split: dtlb on XScale (CCNT + 2) rotates {daccess dtlb_miss} and {instructions
	 * dtlb_miss}; in tick 2 daccess is carried from tick 1 while dtlb_miss is fresh, so the
	 * miss rate is marked "*", the MPKI (both inputs fresh) only "~" (scaled). */
	if (fx_open("--sim-cpus 2 -m dtlb --sim-family xscale1", 2) == 0) {
		struct view_state vs = table_state();
		const struct snapshot *snap = session_snapshot(app.session);
		CHECK(snap->nmetrics == 2 && snap->split[0] && !snap->split[1],
		      "tick 2: dtlb_miss_pct split, dtlb_mpki not");
		char *t = screen("table-split", 80, 24, &vs, &plain);
		const char *row = strstr(t, "\n   0 ");
		char a[32] = "", b[32] = "";
		CHECK(row && sscanf(row, " %*d %31s %31s", a, b) == 2 && strchr(a, '*') &&
			  strchr(b, '~') && !strchr(b, '*'),
		      "CPU 0: want a * on the split cell, ~ on the other:\n%s", t);
		free(t);
	}

	/* Sparkline of the first metric after 12 ticks, with spikes every 3 ticks on CPU 2. */
	if (fx_open("--sim-cpus 4 -m dcache --sim-spike 2:3:20", 12) == 0) {
		struct view_state vs = table_state();
		vs.spark_metric = 0;
		both("table-spark", &vs, &plain);
		struct canvas *c = draw(132, 40, &vs, &plain);
		bool spark = false;
		for (int y = 0; y < c->h; y++)
			for (int x = 0; x < c->w; x++)
				spark |= canvas_cell(c, x, y)->role == ROLE_SPARKLINE &&
					 strcmp(canvas_cell(c, x, y)->ch, "█") == 0;
		CHECK(spark, "no full sparkline block for the spikes");
		canvas_free(c);
	}

	/* Replay of perf stat CSV captured on a board: the same table, REPLAY in the header. */
	if (fx_open("-R fixtures/perfstat/stat.csv -m cpi", 2) == 0) {
		struct view_state vs = table_state();
		struct screen sc = {0};
		both("replay-perfstat", &vs, &sc);
		char *t = screen("replay-perfstat", 80, 24, &vs, &sc);
		CHECK(strstr(t, "REPLAY stat.csv") != NULL, "REPLAY banner:\n%s", t);
		CHECK(strstr(t, "3.111~") != NULL,
		      "perf's multiplexed line (running < 100%%) is marked scaled:\n%s", t);
		free(t);
	}

	/* The equivalence run of tests/e2e_equiv.sh (keep the two argument lists the same): kernel
	 * multiplexing, offcore request bits rotated over the two MSRs of Silvermont, CPU 1 offline
	 * for ticks 2..4. Tick 4 has CPU 1 offline, tick 7 has it back. e2e_equiv.sh reads these
	 * goldens and checks every number in them against the batch JSON of the same run. */
	static const char equiv_args[] = "--sim-family slm --sim-cpus 2 -m offcore --sim-mux 0.75 "
					 "--sim-offline 1:2-4 --seed 3 -i 100";
	if (fx_open(equiv_args, 4) == 0) {
		struct view_state vs = table_state();
		both("equiv-offcore-t4", &vs, &plain);
		char *t = screen("equiv-offcore-t4", 132, 40, &vs, &plain);
		CHECK(strstr(t, "| #4") != NULL, "tick 4 not in the header:\n%s", t);
		CHECK(strstr(t, "   1  offline") != NULL, "CPU 1 not offline at tick 4:\n%s", t);
		free(t);
	}
	if (fx_open(equiv_args, 7) == 0) {
		struct view_state vs = table_state();
		both("equiv-offcore-t7", &vs, &plain);
		char *t = screen("equiv-offcore-t7", 132, 40, &vs, &plain);
		CHECK(strstr(t, "| #7") != NULL, "tick 7 not in the header:\n%s", t);
		CHECK(strstr(t, "offline") == NULL, "CPU 1 still offline at tick 7:\n%s", t);
		free(t);
	}

	/* Grouping by core type (hybrid: P-cores and E-cores interleaved). */
	if (fx_open("--sim-cpus 6 -m cpi", 2) == 0) {
		static const char *const types[] = {"P-core", "E-core", "P-core",
						    "E-core", "E-core", "P-core"};
		struct view_state vs = table_state();
		vs.group_by_type = true;
		struct screen sc = {.core_type = types};
		both("table-grouped", &vs, &sc);
		char *t = screen("table-grouped", 80, 24, &vs, &sc);
		/* groups in the order of their first CPU: P-cores (CPU 0) before E-cores (CPU 1) */
		char *e = strstr(t, "E-core"), *p = strstr(t, "P-core");
		CHECK(e && p && p < e, "P-core group not before E-core:\n%s", t);
		CHECK(e && strstr(e, "   1 "), "CPU 1 not under E-core:\n%s", t);
		CHECK(p && strstr(p, "   5 ") && strstr(p, "   5 ") < e,
		      "CPU 5 not under P-core:\n%s", t);
		free(t);
	}
	/* one core type (every row's type empty: a "cpu" PMU, or none): one group that says so;
	 * a row whose type is not known among typed ones is titled as such */
	if (fx_open("--sim-cpus 3 -m cpi", 1) == 0) {
		static const char *const none[] = {"", "", ""}, *const odd[] = {"P-core", "",
										"P-core"};
		struct view_state vs = table_state();
		vs.group_by_type = true;
		struct screen sc = {.core_type = none};
		struct canvas *c = draw(80, 24, &vs, &sc);
		char *t = dump(c, false);
		CHECK(strstr(t, "all CPUs: one core type") && !strstr(t, "not known"),
		      "one core type:\n%s", t);
		free(t);
		canvas_free(c);
		sc.core_type = odd;
		c = draw(80, 24, &vs, &sc);
		t = dump(c, false);
		char *unknown = strstr(t, "(core type not known)");
		CHECK(unknown && strstr(unknown, "   1 ") && !strstr(t, "one core type"),
		      "a row of no type among typed ones:\n%s", t);
		free(t);
		canvas_free(c);
	}

	/* Help view, a prompt and a paused header. */
	if (fx_open("--sim-cpus 2 -m cpi", 1) == 0) {
		ui_state_command(&app, "help");
		struct ui_state *u = ui_state_of(&app);
		struct view_state vs = u->vs;
		CHECK_INT(vs.view, views_find("help"));
		/* settings and modes: every description starts in one column */
		int col = -1, rows = 0;
		bool in_list = false;
		for (int i = 0; i < u->ntext; i++) {
			const char *l = u->text[i];
			if (!strncmp(l, "Settings (", 10) || !strncmp(l, "Modes (", 7)) {
				in_list = true;
				continue;
			}
			if (!in_list || strncmp(l, "  ", 2) != 0 || l[2] == ' ') {
				in_list = in_list && l[0] != '\0';
				continue;
			}
			int at = 2 + (int)strcspn(l + 2, " ");
			at += (int)strspn(l + at, " ");
			CHECK(col < 0 || at == col, "help line out of its column (%d, not %d): %s",
			      at, col, l);
			col = col < 0 ? at : col;
			rows++;
		}
		CHECK(rows >= 20, "help: %d setting and mode lines", rows);
		struct screen sc = {.text = true};
		both("help", &vs, &sc);
		struct view_state ts = table_state();
		struct screen ps = {.paused = true, .prompt = ":mode dc"};
		char *t = screen("table-paused-prompt", 80, 24, &ts, &ps);
		CHECK(strstr(t, "PAUSED") != NULL, "no PAUSED in the header:\n%s", t);
		CHECK(strstr(t, "\n:mode dc") != NULL, "no prompt line:\n%s", t);
		free(t);

		/* 40x10 is the smallest full screen; 39x10 and 30x8 say "too small". */
		t = screen("table-min", 40, 10, &ts, &plain);
		CHECK(strstr(t, "too small") == NULL, "40x10 said too small:\n%s", t);
		CHECK(strstr(t, " all") != NULL, "40x10 has no total row:\n%s", t);
		free(t);
		t = screen("small", 30, 8, &ts, &plain);
		CHECK(strstr(t, "terminal too small") && strstr(t, "need 40x10, have 30x8"),
		      "30x8:\n%s", t);
		free(t);
		struct canvas *c = draw(39, 10, &ts, &plain);
		t = dump(c, false);
		CHECK(strstr(t, "too small") != NULL, "39x10 did not say too small:\n%s", t);
		free(t);
		canvas_free(c);

		/* At every width the columns that do not fit are counted in the header ("+N
		 * cols"), all of it on the screen: a column gives way to it. */
		int nm = session_snapshot(app.session)->nmetrics;
		for (int w = 40; w <= 80; w++) {
			c = draw(w, 10, &ts, &plain);
			t = dump(c, false);
			const char *all = strstr(t, "\n all ");
			int shown = 0;
			for (const char *p = all ? all + 5 : ""; *p && *p != '\n'; p++)
				shown += p[0] != ' ' && p[-1] == ' ';
			char more[32];
			snprintf(more, sizeof(more), "+%d cols\n", nm - shown);
			CHECK(all && shown >= 1 && shown <= nm, "%d cols: %d values:\n%s", w, shown,
			      t);
			CHECK(shown == nm || strstr(t, more),
			      "%d cols: %d of %d shown, no '%s':\n%s", w, shown, nm, more, t);
			free(t);
			canvas_free(c);
		}

		/* Host names and kernel releases of any length: the header stays one line that
		 * starts "pmutop HOST", keeps the banner, and cuts what does not fit with "…". */
		char long_host[65], long_kernel[128];
		memset(long_host, 'h', sizeof(long_host) - 1);
		long_host[sizeof(long_host) - 1] = '\0';
		memset(long_kernel, 'k', sizeof(long_kernel) - 1);
		long_kernel[sizeof(long_kernel) - 1] = '\0';
		static const int widths[] = {40, 80, 132};
		const char *hosts[] = {"h", long_host}, *kernels[] = {"1", long_kernel};
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
			for (int hi = 0; hi < 2; hi++)
				for (int ki = 0; ki < 2; ki++) {
					struct screen hs = {.host = hosts[hi],
							    .kernel = kernels[ki]};
					c = draw(widths[w], 10, &ts, &hs);
					t = dump(c, false);
					char head[1024];
					size_t n1 = strcspn(t, "\n");
					snprintf(head, sizeof(head), "%.*s", (int)n1, t);
					const char *rest = t + n1 + (t[n1] != '\0');
					CHECK(strncmp(head, "pmutop h", 8) == 0,
					      "%d cols: line 1 '%s'", widths[w], head);
					CHECK(strncmp(rest, "mode cpi ", 9) == 0,
					      "%d cols: line 2 is not the mode line:\n%s",
					      widths[w], rest);
					CHECK(strstr(head, "SIMULATED") != NULL,
					      "%d cols: banner lost: '%s'", widths[w], head);
					CHECK(strstr(head, hi ? "hhh…  " : "pmutop h  ") != NULL,
					      "%d cols: host not cut: '%s'", widths[w], head);
					CHECK(strstr(head, ki ? "kkk… " : "  1  ") != NULL,
					      "%d cols: release not cut: '%s'", widths[w], head);
					free(t);
					canvas_free(c);
				}
	}
	/* Stacked shares (a mode with stack = and drill =, tests/fixtures/stack/stack.mode): on the
	 * sim fe = 100/2.6 % everywhere, be and ret split the rest by the CPU's utilisation. */
	static const char stack_args[] = "--sim-cpus 4 --mode-file fixtures/stack/stack.mode "
					 "--mode-file fixtures/stack/stack2.mode -m stackfx";
	if (fx_open(stack_args, 2) == 0) {
		struct view_state vs = table_state();
		const struct snapshot *snap = session_snapshot(app.session);
		CHECK_NEAR(snap->values[0], 100 / 2.6, 1e-6);
		both("table-stack", &vs, &plain);
		static const int widths[] = {80, 132};
		for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
			struct canvas *c = draw(widths[i], 24, &vs, &plain);
			int w = check_stack_rows(c, "table-stack");
			CHECK(w >= 8, "%d columns: no bar", widths[i]);
			char *t = dump(c, false);
			CHECK(strstr(t, "█fe ▓be ▒ret") != NULL, "no bar legend:\n%s", t);
			CHECK(strstr(t, "> largest share; bar = 100 %") != NULL,
			      "no legend line:\n%s", t);
			CHECK(strstr(t, "~") == NULL, "an exact count marked scaled:\n%s", t);
			CHECK(strstr(t, "enter drill to stackfx2") != NULL, "no drill hint:\n%s",
			      t);
			CHECK_INT(canvas_cell(c, 0, line_of(c, "\n   0 ") + 1)->role,
				  ROLE_SELECTED_ROW);
			free(t);
			canvas_free(c);
		}
		/* narrow: the bar shrinks (64 columns), then goes (56); the columns all stay */
		free(screen("table-stack-narrow", 64, 24, &vs, &plain));
		struct canvas *c = draw(64, 24, &vs, &plain);
		int w = check_stack_rows(c, "64 columns");
		CHECK(w >= 8 && w < 20, "64 columns: bar of %d", w);
		canvas_free(c);
		char *t = screen("table-stack-narrow", 56, 24, &vs, &plain);
		c = draw(56, 24, &vs, &plain);
		CHECK_INT(check_stack_rows(c, "56 columns"), 0);
		CHECK(strstr(t, "util %") && !strstr(t, "cols") && !strstr(t, "█"),
		      "56 columns: a column cut or a bar drawn:\n%s", t);
		free(t);
		canvas_free(c);
		/* ASCII: each share its own character */
		struct screen as = {.ascii = true};
		c = draw(80, 24, &vs, &as);
		t = dump(c, false);
		CHECK(strstr(t, "#fe =be +ret") && strstr(t, "##=="), "ASCII bar:\n%s", t);
		free(t);
		canvas_free(c);

		/* drill-down: sorted by be descending, the first row is CPU 3; enter opens stackfx2
		 * with CPU 3 kept selected, a second drill says there is none and changes nothing,
		 * and drill up returns */
		ui_state_command(&app, "sort be-");
		CHECK_INT(ui_state_of(&app)->vs.scroll, 0);
		ui_state_key(&app, KEYS_ENTER); /* the default binding: drill */
		CHECK_STR(app.mode_name, "stackfx2");
		CHECK(ui_state_of(&app)->vs.pin && ui_state_of(&app)->vs.pin_cpu == 3,
		      "the drill did not keep CPU 3");
		CHECK(strstr(app.status, "drill-down: mode stackfx2 for CPU 3") != NULL,
		      "status: %s", app.status);
		ui_state_command(&app, "drill");
		CHECK_STR(app.mode_name, "stackfx2");
		CHECK(strstr(app.status, "mode stackfx2 has no drill-down mode") != NULL,
		      "status: %s", app.status);
		ui_state_command(&app, "bind u drill up"); /* bindable like any command */
		ui_state_key(&app, 'u');
		CHECK_STR(app.mode_name, "stackfx");
		ui_state_key(&app, KEYS_BACKSPACE);
		CHECK_STR(app.mode_name, "stackfx");
		CHECK(strstr(app.status, "was not opened by a drill-down") != NULL, "status: %s",
		      app.status);
	}
	/* The drilled mode: fe + be add to less than 100 %, drawn as they are (not stretched). */
	if (fx_open("--sim-cpus 4 --mode-file fixtures/stack/stack.mode --mode-file "
		    "fixtures/stack/stack2.mode -m stackfx2",
		    2) == 0) {
		struct view_state vs = table_state();
		char *t = screen("table-stack-part", 80, 24, &vs, &plain);
		struct canvas *c = draw(80, 24, &vs, &plain);
		int w = check_stack_rows(c, "stackfx2");
		int y = line_of(c, "\n   1 ") + 1; /* CPU 1: the lowest utilisation */
		CHECK(cells_in_role(c, y, ROLE_STACK_0) + cells_in_role(c, y, ROLE_STACK_0 + 1) <
			  w - 10,
		      "the bar of shares adding to ~60 %% fills it:\n%s", t);
		CHECK(strstr(t, "enter drill") == NULL, "a drill hint without drill =:\n%s", t);
		free(t);
		canvas_free(c);
	}
	/* Shares past 100 %: fe and util fill the bar, rest is cut; "+" after it, the legend says.
	 */
	if (fx_open("--sim-cpus 2 --mode-file fixtures/stack/over.mode -m stackover", 2) == 0) {
		struct view_state vs = table_state();
		struct canvas *c = draw(80, 24, &vs, &plain);
		char *t = dump(c, false);
		int hy = line_of(c, "CPU ");
		int bar_x = 0;
		while (bar_x < c->w && canvas_cell(c, bar_x, hy)->role != ROLE_STACK_0)
			bar_x++;
		int w = c->w - bar_x - 2, y = line_of(c, "\n   0 ") + 1;
		w = w > 50 ? 50 : w;
		const struct snapshot *snap = session_snapshot(app.session);
		double fe = snap->values[0], util = snap->values[1];
		CHECK_INT(cells_in_role(c, y, ROLE_STACK_0), (int)lround(fe / 100 * w));
		CHECK_INT(cells_in_role(c, y, ROLE_STACK_0 + 1),
			  (int)lround((fe + util) / 100 * w) - (int)lround(fe / 100 * w));
		CHECK_INT(cells_in_role(c, y, ROLE_STACK_0 + 2),
			  w - (int)lround((fe + util) / 100 * w));
		CHECK_STR(canvas_cell(c, bar_x + w, y)->ch, "+");
		CHECK(strstr(t, "+ shares add past 100 % (bar cut)") != NULL, "no legend:\n%s", t);
		free(t);
		canvas_free(c);
	}
	/* Multiplexed: every share scaled from half the tick; each bar carries ~, the legend says.
	 */
	if (fx_open("--sim-cpus 4 --mode-file fixtures/stack/stack.mode --mode-file "
		    "fixtures/stack/stack2.mode -m stackfx --sim-mux 0.5",
		    2) == 0) {
		struct view_state vs = table_state();
		char *t = screen("table-stack-mux", 80, 24, &vs, &plain);
		struct canvas *c = draw(80, 24, &vs, &plain);
		int w = check_stack_rows(c, "mux");
		const struct snapshot *snap = session_snapshot(app.session);
		int hy = line_of(c, "CPU ");
		int bar_x = 0;
		while (bar_x < c->w && canvas_cell(c, bar_x, hy)->role != ROLE_STACK_0)
			bar_x++;
		for (int r = 0; r < snap->nrows; r++) {
			char key[16];
			snprintf(key, sizeof(key), "\n%4d ", snap->cpus[r]);
			int y = line_of(c, key) + 1;
			CHECK_STR(canvas_cell(c, bar_x + w + 1, y)->ch, "~");
		}
		CHECK(strstr(t, "after a bar: ~ scaled counts (multiplexed)") != NULL,
		      "no mark legend:\n%s", t);
		free(t);
		canvas_free(c);
	}
	/* Rotated sets (XScale: CCNT + 2 counters, three events): tick 1 has an event not counted
	 * yet (n/c), so no bar; from tick 2 every share combines ticks and each bar carries "*". */
	static const char rot_args[] = "--sim-cpus 2 --sim-family xscale1 --mode-file "
				       "fixtures/stack/rotate.mode -m stackrot";
	if (fx_open(rot_args, 1) == 0) {
		struct view_state vs = table_state();
		struct canvas *c = draw(80, 24, &vs, &plain);
		char *t = dump(c, false);
		int y = line_of(c, "\n   0 ") + 1;
		CHECK(strstr(t, "n/c") && cells_in_role(c, y, ROLE_STACK_0) == 0 &&
			  strstr(t, "n/c  n/a"),
		      "tick 1: n/c inputs, an n/a bar:\n%s", t);
		free(t);
		canvas_free(c);
	}
	if (fx_open(rot_args, 3) == 0) {
		struct view_state vs = table_state();
		char *t = screen("table-stack-rotate", 80, 24, &vs, &plain);
		struct canvas *c = draw(80, 24, &vs, &plain);
		int w = check_stack_rows(c, "rotate");
		int hy = line_of(c, "CPU ");
		int bar_x = 0;
		while (bar_x < c->w && canvas_cell(c, bar_x, hy)->role != ROLE_STACK_0)
			bar_x++;
		for (int cpu = 0; cpu < 2; cpu++) {
			char key[16];
			snprintf(key, sizeof(key), "\n%4d ", cpu);
			CHECK_STR(canvas_cell(c, bar_x + w + 1, line_of(c, key) + 1)->ch, "*");
		}
		CHECK(strstr(t, "after a bar: * from different ticks (rotated sets)") != NULL,
		      "no mark legend:\n%s", t);
		free(t);
		canvas_free(c);
	}
	/* n/a: cpu-clock never opens, so every share is n/a: no bar, an n/a cell, no top share;
	 * util (not stacked) still shows. */
	if (fx_open("--sim-cpus 4 --mode-file fixtures/stack/stack.mode --mode-file "
		    "fixtures/stack/stack2.mode -m stackfx --sim-fail-event 0",
		    2) == 0) {
		struct view_state vs = table_state();
		char *t = screen("table-stack-na", 80, 24, &vs, &plain);
		struct canvas *c = draw(80, 24, &vs, &plain);
		int y = line_of(c, "\n   2 ") + 1;
		CHECK(cells_in_role(c, y, ROLE_STACK_TOP) == 0 &&
			  cells_in_role(c, y, ROLE_STACK_0) == 0,
		      "n/a shares: a bar or a top share:\n%s", t);
		const char *row = strstr(t, "\n   2 ");
		int na = 0;
		for (const char *p = row;
		     p && (p = strstr(p + 1, "n/")) && p < strchr(row + 1, '\n');)
			na++;
		CHECK(na == 4, "CPU 2: want three n/s cells and an n/a bar, got %d:\n%s", na, t);
		CHECK(strstr(t, "largest share") == NULL, "legend without a bar:\n%s", t);
		free(t);
		canvas_free(c);
	}
	test_kept_rows();
	test_table_order();
	fx_close();
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		SKIP("could not remove %s", tmp);
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jitter.c: window statistics over fast samples, spike rules and log, flight recorder, self
 * cadence. */
#include "jitter.h"
#include "app.h"
#include "frame.h"
#include "loop.h"
#include "numfmt.h"
#include "platform.h"
#include "recorder.h"
#include "safefile.h"
#include "session.h"
#include "textutil.h"
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define J(app) ((struct jitter *)app_observer_state((app), "jitter"))
#define JITTER_FLIGHT_NAME_TRIES 1000 /* flight names tried past the ones that exist */
#define JITTER_SELF_MIN_NS 100000000  /* own CPU use: the shortest span measured, ns */

static const char *const stat_names[JITTER_NSTATS] = {
    [JITTER_VALUE] = "value", [JITTER_MIN] = "min", [JITTER_MEDIAN] = "median",
    [JITTER_P99] = "p99",     [JITTER_MAX] = "max", [JITTER_DEV] = "dev",
};

const char *jitter_stat_name(enum jitter_stat s) { return s < JITTER_NSTATS ? stat_names[s] : "?"; }

int jitter_stat_parse(const char *name)
{
	for (int i = 0; i < JITTER_NSTATS; i++)
		if (strcmp(stat_names[i], name) == 0)
			return i;
	return -1;
}

struct jitter_agg {
	double *value;		/* [cells] sum of values */
	double *run_s;		/* [cells] sum of running * interval */
	int *counted;		/* [cells] samples with a value */
	bool *scaled;		/* [cells] some sample was scaled */
	enum count_state *last; /* [cells] state of the last sample */
	double interval_s;	/* sum */
	double time_s;		/* last sample */
	bool *offline;		/* [nrows] in the last sample */
	/* storage of the published snapshot */
	struct count *counts, *total_counts;
	double *values, *total_values, *running, *total_running, *age;
	enum metric_class *classes, *total_classes;
	struct metric_detail *detail; /* [(rows + 1) * metrics] */
	bool *snap_offline;
	int *cpus;
	char (*names)[48];
	/* what the last window computed */
	bool stats_ready; /* cells hold the last closed window's statistics */
	bool pushed;	  /* the open window's samples went into the rings */
	size_t na_nwin;	  /* the attribution columns' cells hold n/a of a window of this many
			   * samples (SIZE_MAX: something else) */
	/* metric index of each rule's metric (rule_lookup), valid while rules_n == rules.n */
	size_t rules_n;
	const struct session_metric *rules_metrics;
	int rule_metric[ALERT_RULES_MAX];
};

static void default_rules(struct app_ctx *app);

/* The rules changed: rule_lookup() finds their metrics again. */
static void rules_changed(struct jitter *j)
{
	if (j->acc)
		j->acc->rules_n = 0;
}

/*
 * Window statistics (per-row quantiles and the deviation from the peers) cost a selection per
 * (row, column) and window; they are computed when something reads them: windows of several
 * samples (--sample or --refresh shorter than the interval), a format that reads them (JSON's
 * "stats" members: OUTPUT_READS_STATS), the screen showing a statistic other than the value, the
 * attribution columns, a freeze.
 */
static bool stats_wanted(const struct jitter *j)
{
	return j->k > 1 || (output_format_reads(j->app->opt.format) & OUTPUT_READS_STATS) ||
	       j->stat != JITTER_VALUE || j->attrib_ready || j->freeze_pending || j->frozen;
}

/*
 * The default rules only log: the spike log is read by the screen (spike view, status line),
 * :export spikes, and the formats that read them (OUTPUT_READS_SPIKES). Batch CSV shows none of
 * it (and takes no commands), so there the default rules are not evaluated; user rules (--alert)
 * always are, since they trigger the flight recorder.
 */
static bool default_spikes_shown(const struct app_ctx *app)
{
	return !app->opt.batch || (output_format_reads(app->opt.format) & OUTPUT_READS_SPIKES);
}

/* --- layout --------------------------------------------------------------------------------- */

static void agg_free(struct jitter_agg *a)
{
	if (!a)
		return;
	free(a->value);
	free(a->run_s);
	free(a->counted);
	free(a->scaled);
	free(a->last);
	free(a->offline);
	free(a->counts);
	free(a->total_counts);
	free(a->values);
	free(a->total_values);
	free(a->running);
	free(a->total_running);
	free(a->age);
	free(a->classes);
	free(a->total_classes);
	free(a->detail);
	free(a->snap_offline);
	free(a->cpus);
	free(a->names);
	free(a);
}

__attribute__((cold)) static void layout_free(struct jitter *j)
{
	series_set_free(&j->win);
	agg_free(j->acc);
	j->acc = NULL;
	free(j->cells);
	free(j->shown);
	free(j->ring_mem);
	j->ring_mem = NULL;
	memset(j->rc, 0, sizeof(j->rc));
	j->cells = NULL;
	j->shown = NULL;
	j->have_agg = false;
	j->nrows = j->nevents = j->nmetrics = j->ncols = 0;
	flight_free(j->flight);
	j->flight = NULL;
	j->flight_pending = false;
	if (j->attrib_ready)
		attrib_free(&j->attrib);
	j->attrib_ready = false;
}

/* Do the samples come from sampling rings (live, or a replay of a ring run)? Then @cur (may be
 * NULL) gets the backend's cumulative counts per row, enum ring_count. */
static bool ring_counts(const struct jitter *j, const uint64_t *cur[RING_NCOUNTS])
{
	const struct app_ctx *app = j->app;
	if (!app->session)
		return false;
	const struct backend *b = session_backend(app->session);
	if (b->nrows != j->nrows)
		return false;
	for (int k = 0; k < RING_NCOUNTS; k++) {
		const uint64_t *c = backend_ring_count(b, k);
		if (!c)
			return false;
		if (cur)
			cur[k] = c;
	}
	return true;
}

/* Whether a ring of @nrows rows is to keep the sampling ring's counts (ring_counts() of a layout
 * of @nrows rows), at set-up. */
__attribute__((cold)) static bool ring_counts_for(const struct app_ctx *app, int nrows)
{
	if (!app->session)
		return false;
	const struct backend *b = session_backend(app->session);
	for (int k = 0; k < RING_NCOUNTS; k++)
		if (b->nrows != nrows || !backend_ring_count(b, k))
			return false;
	return true;
}

/* The count from @from to @to; a count that went back started again (a replay stepped back). */
static uint64_t count_since(uint64_t from, uint64_t to) { return to >= from ? to - from : to; }

static size_t window_samples(const struct app_ctx *app)
{
	uint64_t tick = app_tick_ns(app), iv = (uint64_t)app->interval_ms * 1000000ULL;
	uint64_t k = (iv + tick / 2) / (tick > 0 ? tick : 1);
	if (k < 1)
		k = 1;
	if (k > JITTER_WINDOW_MAX)
		k = JITTER_WINDOW_MAX;
	return (size_t)k;
}

static void open_window(struct jitter *j)
{
	struct jitter_agg *a = j->acc;
	size_t cells = (size_t)j->nrows * (size_t)j->nevents;
	for (size_t i = 0; i < cells; i++) {
		a->value[i] = a->run_s[i] = 0;
		a->counted[i] = 0;
		a->scaled[i] = false;
		a->last[i] = COUNT_NOT_COUNTED;
	}
	a->interval_s = 0;
	/* the attribution columns are pushed only while attribution runs, and emptied when it
	 * stops (jitter_set_attrib()): their rings are empty otherwise */
	int pushed_cols = j->attrib_ready ? j->ncols : j->nmetrics;
	if (a->pushed && j->k > 1) /* windows of one sample push nothing (on_snapshot()) */
		for (int r = 0; r < j->nrows; r++)
			for (int c = 0; c < pushed_cols; c++)
				series_ring_clear(series_set_ring(&j->win, r, c));
	a->pushed = false;
	j->nwin = 0;
	j->spikes_open = j->log.total;
	const uint64_t *cur[RING_NCOUNTS];
	for (int k = 0; j->ring_mem && ring_counts(j, cur) && k < RING_NCOUNTS; k++)
		memcpy(j->rc[k].open, cur[k], (size_t)j->nrows * sizeof(uint64_t));
}

/* Attribution reads /proc and sysfs of this machine: only for sources that count it. */
static bool counts_this_machine(const struct app_ctx *app)
{
	return source_has(&app->source, SOURCE_CAP_THIS_MACHINE);
}

__attribute__((cold)) static void start_attrib(struct jitter *j, const struct snapshot *snap)
{
	struct app_ctx *app = j->app;
	if (!j->attrib_on || j->attrib_ready)
		return;
	char err[256];
	if (!counts_this_machine(app)) {
		app_log(app, MSG_WARN, "attribution reads the live machine: n/a with the %s source",
			app->source.ops->name);
		return;
	}
	unsigned slow = (unsigned)(app->interval_ms > 100 ? app->interval_ms : 100);
	if (attrib_init(&j->attrib, app->opt.sysfs_root, snap->nrows, snap->cpus, slow,
			(int)getpid(), true, err, sizeof(err)) < 0) {
		app_log(app, MSG_ERROR, "attribution: %s", err);
		return;
	}
	j->attrib_ready = true;
	if (j->attrib.note[0])
		app_log(app, MSG_INFO, "attribution: %s", j->attrib.note);
}

/* Makes the flight ring for @nrows rows (CPUs @cpus) of @nevents events at the sample cadence. */
__attribute__((cold)) static void start_flight(struct jitter *j, int nrows, const int *cpus,
					       int nevents)
{
	struct app_ctx *app = j->app;
	if (app->opt.flight_s <= 0)
		return;
	char err[256];
	bool clipped;
	/* the recorder counts in ms samples: below 1 ms, as many more seconds of them */
	double tick_ms = (double)app_tick_ns(app) / 1e6;
	double seconds = tick_ms < 1 ? app->opt.flight_s / tick_ms : app->opt.flight_s;
	j->flight = flight_new(nrows, cpus, nevents, ring_counts_for(app, nrows), seconds,
			       app_tick_ms(app), 0, &clipped, err, sizeof(err));
	j->flight_tick_ns = app_tick_ns(app);
	if (!j->flight)
		app_log(app, MSG_WARN, "%s", err);
	else if (clipped)
		app_log(app, MSG_WARN,
			"flight recorder holds %zu samples (%.1f s), not %.0f s: memory cap %u MiB",
			j->flight->cap, (double)j->flight->cap * tick_ms / 1000.0,
			app->opt.flight_s, FLIGHT_MAX_BYTES >> 20);
}

/* The flight ring made at set-up, when the running mode opened: its shape is the session's (its
 * rows and their CPUs, its events), known before the first tick, so that tick neither allocates
 * the ring nor maps it in. No session yet (a recording not started): the first tick makes it. */
__attribute__((cold)) static void flight_at_setup(struct jitter *j)
{
	struct run_facts f;
	app_facts(j->app, &f);
	if (!f.session || j->flight)
		return;
	const struct backend *b = session_backend(f.session);
	if (b->nrows < 1 || b->nrows != f.ncpus || b->nevents < 1)
		return;
	start_flight(j, f.ncpus, f.cpus, b->nevents);
}

/* Whether the flight ring made at set-up (@f, no sample in it yet) fits @snap and the sample
 * cadence: else the layout makes it again. */
static bool flight_fits(const struct jitter *j, const struct flight *f, const struct snapshot *snap)
{
	return f->pushed == 0 && f->nrows == snap->nrows && f->nevents == snap->nevents &&
	       memcmp(f->cpus, snap->cpus, (size_t)f->nrows * sizeof(int)) == 0 &&
	       f->ring == ring_counts(j, NULL) && j->flight_tick_ns == app_tick_ns(j->app);
}

/* Allocates everything sized by the mode and the window length. */
__attribute__((noinline, cold)) static int layout(struct jitter *j, const struct snapshot *snap)
{
	struct flight *made = j->flight; /* made at set-up: kept when it fits */
	j->flight = NULL;
	layout_free(j);
	struct app_ctx *app = j->app;
	j->nrows = snap->nrows;
	j->nevents = snap->nevents;
	j->nmetrics = snap->nmetrics;
	j->ncols = snap->nmetrics + ATTRIB_NCOLS;
	j->k = window_samples(app);
	if (!j->user_rules && j->rules_tick_us != (long)(app_tick_ns(app) / 1000))
		default_rules(app);
	char err[256];
	if (series_set_init(&j->win, j->nrows, j->ncols, j->k, err, sizeof(err)) < 0)
		goto oom;
	struct jitter_agg *a = j->acc = calloc(1, sizeof(*a));
	if (!a)
		goto oom;
	size_t cells = (size_t)j->nrows * (size_t)j->nevents + 1;
	size_t mcells = (size_t)j->nrows * (size_t)(j->nmetrics ? j->nmetrics : 1) + 1;
	size_t nr = (size_t)j->nrows + 1, ne = (size_t)j->nevents + 1, nm = (size_t)j->nmetrics + 1;
	a->value = calloc(cells, sizeof(double));
	a->run_s = calloc(cells, sizeof(double));
	a->counted = calloc(cells, sizeof(int));
	a->scaled = calloc(cells, sizeof(bool));
	a->last = calloc(cells, sizeof(enum count_state));
	a->offline = calloc(nr, sizeof(bool));
	a->counts = calloc(cells, sizeof(struct count));
	a->total_counts = calloc(ne, sizeof(struct count));
	a->values = calloc(mcells, sizeof(double));
	a->total_values = calloc(nm, sizeof(double));
	a->running = calloc(mcells, sizeof(double));
	a->total_running = calloc(nm, sizeof(double));
	a->age = calloc(cells, sizeof(double));
	a->classes = calloc(mcells, sizeof(enum metric_class));
	a->total_classes = calloc(nm, sizeof(enum metric_class));
	a->detail = calloc(mcells + nm, sizeof(*a->detail));
	a->snap_offline = calloc(nr, sizeof(bool));
	a->cpus = calloc(nr, sizeof(int));
	a->names = calloc(ne, sizeof(*a->names));
	j->cells = calloc((size_t)j->nrows * (size_t)j->ncols + 1, sizeof(*j->cells));
	a->na_nwin = SIZE_MAX; /* zeros: not n/a cells */
	j->shown = calloc(mcells, sizeof(double));
	j->ring_mem = calloc(3 * RING_NCOUNTS * nr + 1, sizeof(uint64_t));
	for (int k = 0; j->ring_mem && k < RING_NCOUNTS; k++)
		j->rc[k] = (struct jitter_ring_count){.open = j->ring_mem + (3 * k) * nr,
						      .win = j->ring_mem + (3 * k + 1) * nr,
						      .tick = j->ring_mem + (3 * k + 2) * nr};
	j->ring = false;
	j->win_end_s = 0;
	j->ring_last_ns = 0;
	if (!a->value || !a->run_s || !a->counted || !a->scaled || !a->last || !a->offline ||
	    !a->counts || !a->total_counts || !a->values || !a->total_values || !a->running ||
	    !a->total_running || !a->age || !a->classes || !a->total_classes || !a->detail ||
	    !a->snap_offline || !a->cpus || !a->names || !j->cells || !j->shown || !j->ring_mem)
		goto oom;
	memcpy(a->cpus, snap->cpus, (size_t)j->nrows * sizeof(int));
	memcpy(a->names, snap->event_names, (size_t)j->nevents * sizeof(*a->names));
	const uint64_t *cur[RING_NCOUNTS];
	for (int k = 0; ring_counts(j, cur) && k < RING_NCOUNTS; k++)
		memcpy(j->rc[k].tick, cur[k], (size_t)j->nrows * sizeof(uint64_t));
	open_window(j);
	if (made && flight_fits(j, made, snap)) {
		j->flight = made;
		made = NULL;
	} else {
		flight_free(made);
		made = NULL;
		start_flight(j, snap->nrows, snap->cpus, snap->nevents);
	}
	start_attrib(j, snap);
	return 0;
oom:
	flight_free(made);
	app_log(app, MSG_ERROR,
		"jitter statistics: out of memory for %d CPUs x %d columns x %zu samples", j->nrows,
		j->ncols, j->k);
	layout_free(j);
	return -1;
}

/* --- window close: sums, metrics, statistics ------------------------------------------------ */

double jitter_cell_stat(const struct jitter_cell *c, enum jitter_stat stat)
{
	if (!c)
		return NAN;
	switch (stat) {
	case JITTER_MIN:
		return c->st.available ? c->st.min : NAN;
	case JITTER_P99:
		return c->st.available ? c->st.p99 : NAN;
	case JITTER_MAX:
		return c->st.available ? c->st.max : NAN;
	case JITTER_DEV:
		return c->dev.available ? c->dev.mad_units : NAN;
	default:
		return c->st.available ? c->st.median : NAN;
	}
}

static void fill_shown(struct jitter *j, const double *values)
{
	for (int r = 0; r < j->nrows; r++)
		for (int m = 0; m < j->nmetrics; m++) {
			const struct jitter_cell *c = &j->cells[r * j->ncols + m];
			j->shown[r * j->nmetrics + m] =
			    j->stat == JITTER_VALUE ? values[r * j->nmetrics + m]
			    : j->acc->stats_ready   ? jitter_cell_stat(c, j->stat)
						    : NAN;
		}
}

/* Sums the window's counts per row and in total and evaluates the metrics over them. Out of
 * line: a window of one sample (batch) needs no sums. */
__attribute__((noinline)) static void aggregate(struct jitter *j)
{
	struct jitter_agg *a = j->acc;
	size_t cells = (size_t)j->nrows * (size_t)j->nevents;
	for (size_t i = 0; i < cells; i++) {
		struct count *c = &a->counts[i];
		if (a->counted[i] == 0) {
			*c = (struct count){.state = a->last[i]};
			continue;
		}
		c->value = a->value[i];
		c->running = a->interval_s > 0 ? a->run_s[i] / a->interval_s : 0;
		c->state =
		    a->scaled[i] || (size_t)a->counted[i] < j->nwin ? COUNT_SCALED : COUNT_OK;
	}
	memcpy(a->snap_offline, a->offline, (size_t)j->nrows * sizeof(bool));
	struct snapshot *s = &j->agg; /* its layout is set by close_window() */
	s->seq = j->windows + 1;
	s->time_s = a->time_s;
	s->interval_s = a->interval_s;
	s->first = s->seq == 1;
	s->cpus = a->cpus;
	s->offline = a->snap_offline;
	s->event_names = (const char(*)[48])a->names;
	s->counts = a->counts;
	s->total_counts = a->total_counts;
	s->event_age = a->age;
	s->values = a->values;
	s->total_values = a->total_values;
	s->classes = a->classes;
	s->running = a->running;
	s->total_running = a->total_running;
	s->total_classes = a->total_classes;
	s->detail = a->detail;
	/* the window's sums become metrics exactly as a tick's counts do */
	snapshot_compute(s);
}

/* Statistics per (row, column) over the window's samples and each row's deviation from its
 * peers (the window medians of all rows). Attribution columns only while attribution runs. */
static void window_stats(struct jitter *j, const struct snapshot *last)
{
	int nr = j->nrows > 0 ? j->nrows : 1;
	double med[nr], mm[nr], scratch[2 * nr];
	struct peer_dev dev[nr];
	int ncols = j->attrib_ready ? j->ncols : j->nmetrics;
	for (int c = 0; c < ncols; c++) {
		int navail = 0;
		for (int r = 0; r < j->nrows; r++) {
			struct jitter_cell *cell = &j->cells[r * j->ncols + c];
			if (j->k == 1) { /* the one sample: @last's value (on_snapshot()) */
				const double *av =
				    c < j->nmetrics ? NULL : attrib_values(&j->attrib, r);
				stats_of_one(c < j->nmetrics ? last->values[r * j->nmetrics + c]
					     : av	     ? av[c - j->nmetrics]
							     : NAN,
					     &cell->st);
			} else {
				series_set_stats(&j->win, r, c, 0, &cell->st);
			}
			med[r] = cell->st.available ? cell->st.median : NAN;
			if (cell->st.available)
				mm[navail++] = fabs(cell->st.median);
		}
		double floor = 1e-12;
		if (navail) {
			double typical = stats_percentile_select(mm, (size_t)navail, 0.5);
			if (typical * 0.01 > floor)
				floor = typical * 0.01;
		}
		stats_peer_deviation(med, (size_t)j->nrows, floor, scratch, dev);
		for (int r = 0; r < j->nrows; r++)
			j->cells[r * j->ncols + c].dev = dev[r];
	}
	/* no attribution: its columns are n/a for every sample of the window, written when they
	 * held something else (a window of another length, attribution's figures), not every
	 * window: a row's worth of cells a tick no format reads then */
	struct jitter_agg *a = j->acc;
	if (ncols == j->ncols || a->na_nwin == j->nwin) {
		a->na_nwin = ncols == j->ncols ? SIZE_MAX : j->nwin;
		return;
	}
	for (int c = ncols; c < j->ncols; c++)
		for (int r = 0; r < j->nrows; r++)
			j->cells[r * j->ncols + c] = (struct jitter_cell){
			    .st = {.n_nan = j->nwin},
			    .dev = {.value = NAN, .delta = NAN, .mad_units = NAN},
			};
	a->na_nwin = j->nwin;
}

static void close_window(struct jitter *j, const struct snapshot *last)
{
	struct jitter_agg *a = j->acc;
	if (j->frozen && !j->app->opt.batch) {
		/* the view keeps the frozen window; statistics wait */
		open_window(j);
		return;
	}
	/* One sample per window: the session's snapshot is the window (jitter_snapshot() returns
	 * it), so the sums are only needed for a window that is about to be frozen. */
	bool sums = j->k > 1 || j->freeze_pending;
	struct snapshot *s = &j->agg;
	s->nrows = j->nrows;
	s->nevents = j->nevents;
	s->nmetrics = j->nmetrics;
	s->metrics = last->metrics;
	s->program = last->program;
	s->slots = last->slots;
	if (sums)
		aggregate(j);
	a->stats_ready = a->pushed;
	if (a->pushed)
		window_stats(j, last);
	j->window_interval_ms = j->nwin ? a->interval_s * 1000.0 / (double)j->nwin : 0;
	const uint64_t *cur[RING_NCOUNTS];
	j->ring = ring_counts(j, cur);
	for (int k = 0; j->ring && k < RING_NCOUNTS; k++)
		for (int r = 0; r < j->nrows; r++) {
			j->rc[k].win[r] = count_since(j->rc[k].open[r], cur[k][r]);
			j->rc[k].total += j->rc[k].win[r];
		}
	fill_shown(j, sums ? a->values : last->values);
	j->have_agg = true;
	j->windows++;
	j->spikes_before = j->spikes_open;
	if (j->freeze_pending) {
		j->freeze_pending = false;
		j->frozen = true;
	}
	/* own CPU use, where it is shown (JSON "self", the status line): the process CPU clock is
	 * a system call, not a vDSO read, so it is read once per window but at most once per
	 * JITTER_SELF_MIN_NS of wall time (shorter windows share the last span's figure) */
	int64_t cpu_ns, wall_ns;
	int cpu;
	if (!j->app->opt.batch || (output_format_reads(j->app->opt.format) & OUTPUT_READS_SPIKES)) {
		if (j->cad.self_samples > 0 &&
		    (int64_t)loop_now_ns() - j->cad.self_wall_ns < JITTER_SELF_MIN_NS)
			j->cad.self_cpu = sched_getcpu();
		else if (cadence_self_read(&cpu_ns, &wall_ns, &cpu) == 0)
			cadence_self_sample(&j->cad, cpu_ns, wall_ns, cpu);
	}
	open_window(j);
}

/* --- rules ---------------------------------------------------------------------------------- */

struct lookup_ctx {
	struct jitter *j;
	const struct snapshot *snap;
	int row;
};

static int metric_index(const struct snapshot *snap, const char *name)
{
	for (int m = 0; m < snap->nmetrics; m++)
		if (strcmp(snap->metrics[m].name, name) == 0)
			return m;
	return -1;
}

/* metric_index() of a rule's metric, found once per set of rules and mode, not per sample. */
static int rule_metric_index(struct lookup_ctx *l, const char *metric)
{
	struct jitter_agg *a = l->j->acc;
	const struct alert_set *rules = &l->j->rules;
	if (a->rules_n != rules->n || a->rules_metrics != l->snap->metrics) {
		for (size_t i = 0; i < rules->n; i++)
			a->rule_metric[i] = metric_index(l->snap, rules->rules[i].metric);
		a->rules_n = rules->n;
		a->rules_metrics = l->snap->metrics;
	}
	for (size_t i = 0; i < rules->n; i++)
		if (rules->rules[i].metric == metric)
			return a->rule_metric[i];
	return metric_index(l->snap, metric); /* not one of the rules' own names */
}

static int rule_lookup(void *ctx, int cpu, const char *metric, double *value)
{
	(void)cpu;
	struct lookup_ctx *l = ctx;
	int m = rule_metric_index(l, metric);
	if (m >= 0) {
		int i = l->row * l->snap->nmetrics + m;
		/* the default rules ignore coarse values: a /proc/stat utilisation sampled faster
		 * than a few of its ticks jumps between steps (0, 100, 200 %) and would flood the
		 * log with false spikes; a user rule sees what it asks for */
		if (!l->j->user_rules && l->snap->detail && l->snap->detail[i].coarse)
			return -1;
		*value = l->snap->values[i];
		return isnan(*value) ? -1 : 0;
	}
	int a = attrib_col_find(metric);
	if (a >= 0 && l->j->attrib_ready) {
		*value = attrib_values(&l->j->attrib, l->row)[a];
		return isnan(*value) ? -1 : 0;
	}
	return -1;
}

static int max_cpu(const struct app_ctx *app)
{
	int n = 0;
	for (int r = 0; r < app->ncpus; r++)
		if (app->cpus[r] + 1 > n)
			n = app->cpus[r] + 1;
	return n;
}

static bool mode_has_metric(const struct app_ctx *app, const char *name)
{
	for (int m = 0; m < app->mode.nmetrics; m++)
		if (strcmp(app->mode.metrics[m].name, name) == 0)
			return true;
	return false;
}

static void warn_rule(struct app_ctx *app, const struct alert_rule *rule)
{
	int a = attrib_col_find(rule->metric);
	if (mode_has_metric(app, rule->metric))
		return;
	if (a >= 0) {
		if (!J(app)->attrib_on)
			app_log(app, MSG_WARN,
				"alert \"%s\": %s is an attribution column (:set attrib on)",
				rule->text, rule->metric);
		return;
	}
	char list[256] = "";
	for (int m = 0; m < app->mode.nmetrics; m++) {
		size_t u = strlen(list);
		snprintf(list + u, sizeof(list) - u, "%s%s", m ? ", " : "",
			 app->mode.metrics[m].name);
	}
	app_log(app, MSG_WARN, "alert \"%s\": mode %s has no metric %s (metrics: %s)", rule->text,
		app->mode_name, rule->metric, list);
}

/* The default rule per metric of the running mode. */
static void default_rules(struct app_ctx *app)
{
	struct jitter *j = J(app);
	alert_set_free(&j->rules);
	alert_set_init(&j->rules, max_cpu(app));
	rules_changed(j);
	j->rules_tick_us = (long)(app_tick_ns(app) / 1000);
	for (int m = 0; m < app->mode.nmetrics; m++) {
		char text[ALERT_TEXT_MAX], err[128];
		const struct session_metric *sm = &app->mode.metrics[m];
		if (strcmp(sm->unit, "/s") ==
		    0) /* counts per sample are small: 2 events is noise */
			snprintf(text, sizeof(text), JITTER_DEFAULT_RATE_RULE, sm->name,
				 2e9 / (double)app_tick_ns(app));
		else
			snprintf(text, sizeof(text), JITTER_DEFAULT_RULE, sm->name);
		alert_set_add(&j->rules, text, err,
			      sizeof(err)); /* odd names stay without a rule */
	}
}

int jitter_add_rule(struct app_ctx *app, const char *text, char *err, size_t errlen)
{
	struct jitter *j = J(app);
	struct alert_set probe;
	alert_set_init(&probe, 1);
	int rc = alert_set_add(&probe, text, err, errlen);
	alert_set_free(&probe);
	if (rc < 0)
		return -1;
	if (!j->user_rules) {
		alert_set_free(&j->rules);
		alert_set_init(&j->rules, max_cpu(app));
	}
	rules_changed(j);
	if (alert_set_add(&j->rules, text, err, errlen) < 0) {
		if (!j->user_rules)
			default_rules(app);
		return -1;
	}
	j->user_rules = true;
	warn_rule(app, &j->rules.rules[j->rules.n - 1]);
	return 0;
}

/* --- flight --------------------------------------------------------------------------------- */

/* A recording's header, marked as a flight recording at the sample cadence. */
static void rec_header_of(struct app_ctx *app, struct rec_header *h, struct rec_cpu_info *cpus)
{
	recorder_fill_header(app, h, cpus);
	snprintf(h->source, sizeof(h->source), "flight");
	h->interval_ms = (unsigned)app_tick_ms(app);
}

/* Removes the oldest recordings this run wrote while there are more than max_files of them or
 * more than max_bytes (the newest always stays), and says so. */
static void flight_rotate(struct app_ctx *app)
{
	struct jitter *j = J(app);
	unsigned long long total = 0;
	for (int i = 0; i < j->nwritten; i++)
		total += j->written[i].bytes;
	while (j->nwritten > 1 && (j->nwritten > j->max_files || total > j->max_bytes)) {
		struct jitter_flight_file *w = &j->written[0];
		if (unlink(w->path) < 0 && errno != ENOENT)
			app_log(app, MSG_WARN, "flight recording: cannot remove %s: %s", w->path,
				strerror(errno));
		else
			app_log(
			    app, MSG_INFO,
			    "flight recording %s removed: at most %d files and %llu bytes are kept "
			    "(:set flight-files, :set flight-bytes)",
			    w->path, j->max_files, j->max_bytes);
		total -= w->bytes;
		free(w->path);
		memmove(w, w + 1, (size_t)(j->nwritten - 1) * sizeof(*w));
		j->nwritten--;
	}
}

int jitter_set_flight_bounds(struct app_ctx *app, int max_files, unsigned long long max_bytes)
{
	struct jitter *j = J(app);
	if (!j)
		return -1;
	if (max_files > 0)
		j->max_files = max_files;
	if (max_bytes > 0)
		j->max_bytes = max_bytes;
	flight_rotate(app);
	return 0;
}

static void flight_dump(struct app_ctx *app)
{
	struct jitter *j = J(app);
	j->flight_pending = false;
	if (!j->flight)
		return;
	char path[1024];
	struct rec_header h;
	struct rec_cpu_info *cpus = calloc((size_t)app->ncpus + 1, sizeof(*cpus));
	struct rec_event *ev = calloc((size_t)app->mode.nevents + 1, sizeof(*ev));
	if (!cpus || !ev) {
		free(cpus);
		free(ev);
		app_log(app, MSG_ERROR, "flight recording: out of memory");
		return;
	}
	rec_header_of(app, &h, cpus);
	/* the ring's rows: the CPUs counted when its samples were taken (the run's set may have
	 * changed since, a CPU that came online opens a new ring only at its first tick) */
	struct rec_cpu_info *ring = calloc((size_t)j->flight->nrows + 1, sizeof(*ring));
	if (ring && !(h.ncpus && h.cpus[0].key[0])) {
		for (int i = 0; i < j->flight->nrows; i++) {
			ring[i].cpu = j->flight->cpus[i];
			for (int k = 0; k < h.ncpus; k++)
				if (h.cpus[k].cpu == ring[i].cpu)
					ring[i] = h.cpus[k];
		}
		h.ncpus = j->flight->nrows;
		h.cpus = ring;
	}
	struct rec_mode mode = {.t = 0, .nevents = app->mode.nevents, .events = ev};
	snprintf(mode.name, sizeof(mode.name), "%s", app->mode_name);
	const struct backend *b = session_backend(app->session);
	for (int e = 0; e < app->mode.nevents; e++) {
		snprintf(ev[e].name, sizeof(ev[e].name), "%s", app->mode.events[e].name);
		snprintf(ev[e].spec, sizeof(ev[e].spec), "%s", app->mode.events[e].spec);
		if (b->status && b->nevents == app->mode.nevents)
			ev[e].quantum_ns = b->status[e].quantum_ns;
	}
	double after = JITTER_FLIGHT_AFTER_S < app->opt.flight_s / 3 ? JITTER_FLIGHT_AFTER_S
								     : app->opt.flight_s / 3;
	double t = j->flight_mark.t;
	char err[512];
	int n = -1;
	/* PREFIX-N.jsonl is created new (O_EXCL|O_NOFOLLOW): a name that exists, a planted link
	 * included, is skipped for the next N */
	for (int k = j->flight_files + 1, tries = 0; tries < JITTER_FLIGHT_NAME_TRIES;
	     k++, tries++) {
		snprintf(path, sizeof(path), "%s-%d.jsonl", app->opt.flight_out, k);
		errno = 0;
		n = flight_write(j->flight, path, &h, &mode, t - app->opt.flight_s + after,
				 t + after, &j->flight_mark, err, sizeof(err));
		if (n >= 0 || errno != EEXIST) {
			j->flight_files = k;
			break;
		}
	}
	free(cpus);
	free(ring);
	free(ev);
	if (n < 0) {
		app_log(app, MSG_ERROR, "flight recording: %s", err);
		char msg[600];
		snprintf(msg, sizeof(msg), "flight recording: %s", err);
		safe_output_failed(SAFE_OUT_FLIGHT, msg);
		return;
	}
	safe_output_ok(SAFE_OUT_FLIGHT);
	snprintf(j->flight_path, sizeof(j->flight_path), "%s", path);
	app_log(app, MSG_INFO, "flight recording %s: %d samples around %.3f s (%s)", path, n, t,
		j->flight_mark.text);
	struct stat st;
	struct jitter_flight_file *w = realloc(j->written, (size_t)(j->nwritten + 1) * sizeof(*w));
	char *copy = strdup(path);
	if (!w || !copy) {
		free(copy);
		if (w)
			j->written = w;
		app_log(app, MSG_ERROR, "flight recording: out of memory (%s is not rotated)",
			path);
		return;
	}
	j->written = w;
	w[j->nwritten++] = (struct jitter_flight_file){
	    copy, stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0};
	flight_rotate(app);
}

int jitter_trigger(struct app_ctx *app, double t_s, const char *why, char *err, size_t errlen)
{
	struct jitter *j = J(app);
	if (!j->flight) {
		snprintf(err, errlen, "the flight recorder is off (--flight SECONDS)");
		return -1;
	}
	if (j->flight_pending) {
		snprintf(err, errlen,
			 "a flight recording is already being collected (trigger at %.3f s)",
			 j->flight_mark.t);
		return -1;
	}
	double after = JITTER_FLIGHT_AFTER_S < app->opt.flight_s / 3 ? JITTER_FLIGHT_AFTER_S
								     : app->opt.flight_s / 3;
	j->flight_pending = true;
	j->flight_due_s = t_s + after;
	j->flight_mark.t = t_s;
	snprintf(j->flight_mark.text, sizeof(j->flight_mark.text), "%s", why);
	if (!app->opt.batch && !j->freeze_held_off)
		j->freeze_pending = true;
	return 0;
}

int jitter_unfreeze(struct app_ctx *app)
{
	struct jitter *j = J(app);
	bool was = j->frozen || j->freeze_pending;
	j->frozen = j->freeze_pending = false;
	j->freeze_held_off = true; /* until :freeze (on) again */
	return was;
}

/* --- the hook ------------------------------------------------------------------------------- */

/* Samples from rings: the cadence is the kernel's; a tick's lateness is its sample time past
 * the period after the last sample, and periods without a sample (lost, or a timer that did
 * not fire) are missed ticks. The loop's own wake-ups are not samples. */
static void ring_cadence(struct jitter *j, const struct snapshot *snap)
{
	int64_t period = (int64_t)app_tick_ns(j->app);
	int64_t t = (int64_t)llround(snap->time_s * 1e9);
	if (!j->cad_ready || j->cad.period_ns != period || j->ring_last_ns == 0 ||
	    t <= j->ring_last_ns) {
		struct cadence_self self;
		cadence_self_save(&j->cad, &self);
		cadence_init(&j->cad, t - period, period);
		cadence_self_restore(&j->cad, &self);
		j->cad_loop_t0 = 0;
		j->cad_ready = true;
	}
	/* periods since the last sample: 1, more when samples were lost or the timer skipped;
	 * the sample is due a period after the last one (the kernel's timer goes on from when it
	 * fired, so lateness does not add up) */
	int64_t dt = j->ring_last_ns ? t - j->ring_last_ns : period;
	uint64_t exp = dt > period ? (uint64_t)((dt + period / 2) / period) : 1;
	if (!exp)
		exp = 1;
	int64_t due = j->ring_last_ns ? j->ring_last_ns + period * (int64_t)exp : t;
	cadence_tick_at(&j->cad, t, due, exp);
	j->ring_last_ns = t;
}

/* Flight marks of what the ring's counts @cur did since the last sample: samples lost, then the
 * kernel's throttling, per row. */
static void ring_notes(struct jitter *j, const struct snapshot *snap, const uint64_t *cur[])
{
	struct jitter_ring_count *lost = &j->rc[RING_LOST], *ns = &j->rc[RING_THROTTLED_NS],
				 *n = &j->rc[RING_THROTTLES];
	char note[REC_TEXT_MAX];
	for (int r = 0; r < j->nrows; r++)
		if (cur[RING_LOST][r] != lost->tick[r]) {
			snprintf(note, sizeof(note), "sampling ring lost %llu samples on cpu %d",
				 (unsigned long long)count_since(lost->tick[r], cur[RING_LOST][r]),
				 snap->cpus[r]);
			flight_note(j->flight, snap->time_s, note);
		}
	for (int r = 0; r < j->nrows; r++)
		if (cur[RING_THROTTLED_NS][r] != ns->tick[r] ||
		    cur[RING_THROTTLES][r] != n->tick[r]) {
			snprintf(
			    note, sizeof(note),
			    "sampling ring throttled by the kernel %.3f ms on cpu %d (%llu "
			    "episodes begun)",
			    (double)count_since(ns->tick[r], cur[RING_THROTTLED_NS][r]) / 1e6,
			    snap->cpus[r],
			    (unsigned long long)count_since(n->tick[r], cur[RING_THROTTLES][r]));
			flight_note(j->flight, snap->time_s, note);
		}
	for (int k = 0; k < RING_NCOUNTS; k++)
		memcpy(j->rc[k].tick, cur[k], (size_t)j->nrows * sizeof(uint64_t));
}

/* Counts the tick @snap into the open window; whether it closes it. On the sampling ring path a
 * window closes at the first tick at or after its end time (half a sample period early counts:
 * the timers jitter), so samples the kernel did not write (a throttled CPU, a timer that fired
 * late) shorten the window's sample count, never stretch its interval; elsewhere after k ticks.
 * Window ends follow a grid of refresh intervals; a tick a whole interval past the end (a gap)
 * closes one window and starts the grid again from it. */
static bool window_full(struct jitter *j, const struct snapshot *snap)
{
	j->nwin++;
	if (j->k <= 1 || !ring_counts(j, NULL))
		return j->nwin >= j->k;
	double iv = (double)j->app->interval_ms / 1e3, half = (double)app_tick_ns(j->app) / 2e9;
	if (j->win_end_s <= 0) {
		j->win_end_s = snap->time_s - snap->interval_s + iv;
		session_set_due(j->app->session, j->win_end_s);
	}
	if (snap->time_s < j->win_end_s - half && j->nwin < JITTER_WINDOW_MAX)
		return false;
	if (snap->time_s >= j->win_end_s + iv) /* a gap (pmutop stopped): the grid starts again */
		j->win_end_s = snap->time_s + iv;
	else
		while (j->win_end_s - half <= snap->time_s)
			j->win_end_s += iv;
	/* the backend ticks at the end even while the kernel throttles every CPU (source.h) */
	session_set_due(j->app->session, j->win_end_s);
	return true;
}

static void on_snapshot(struct app_ctx *app, const struct snapshot *snap, void *arg)
{
	struct jitter *j = arg;
	if (unlikely(!j->acc || snap->nrows != j->nrows || snap->nevents != j->nevents ||
		     snap->nmetrics != j->nmetrics || window_samples(app) != j->k)) {
		if (layout(j, snap) < 0)
			return;
	}
	if (j->attrib_on && !j->attrib_ready && counts_this_machine(app))
		start_attrib(j, snap);
	if (j->attrib_ready)
		attrib_sample(&j->attrib, loop_now_ns());
	struct jitter_agg *a = j->acc;
	int n = j->nevents, nm = j->nmetrics;
	if (stats_wanted(j) && (j->nwin == 0 || a->pushed)) {
		/* a window of one sample: its statistics are those of the snapshot that closes it
		 * (window_stats()), which a ring of one would only copy: no ring is pushed (nor
		 * cleared), a row of ring headers and values a tick */
		for (int r = 0; j->k > 1 && r < j->nrows; r++) {
			for (int m = 0; m < nm; m++)
				series_ring_push(series_set_ring(&j->win, r, m),
						 snap->values[r * nm + m]);
			if (!j->attrib_ready)
				continue; /* window_stats() marks the columns n/a */
			const double *av = attrib_values(&j->attrib, r);
			for (int c = 0; c < ATTRIB_NCOLS; c++)
				series_ring_push(series_set_ring(&j->win, r, nm + c),
						 av ? av[c] : NAN);
		}
		a->pushed = true;
	}
	for (int r = 0; r < j->nrows; r++)
		a->offline[r] = snap->offline[r];
	for (int i = 0; i < j->nrows * n; i++) {
		const struct count *c = &snap->counts[i];
		a->last[i] = c->state;
		if (c->state == COUNT_OK || c->state == COUNT_SCALED) {
			a->value[i] += c->value;
			a->run_s[i] += c->running * snap->interval_s;
			a->counted[i]++;
			a->scaled[i] |= c->state == COUNT_SCALED;
		}
	}
	a->interval_s += snap->interval_s;
	a->time_s = snap->time_s;
	/* rules */
	unsigned long long before = j->log.total;
	struct lookup_ctx l = {j, snap, 0};
	for (int r = 0; r < j->nrows && (j->user_rules || default_spikes_shown(app)); r++) {
		if (snap->offline[r])
			continue;
		l.row = r;
		alert_set_eval(&j->rules, snap->time_s, snap->cpus[r], rule_lookup, &l, &j->log);
	}
	if (j->flight) {
		struct session_raw raw;
		session_raw(app->session, &raw);
		const uint64_t *ring[RING_NCOUNTS];
		flight_push(j->flight, snap, &raw, ring_counts(j, ring) ? ring : NULL);
	}
	if (unlikely(j->log.total > before)) {
		const struct spike_event *ev = spike_log_get(&j->log, j->log.len - 1);
		/* user rules trigger the flight recorder; the default rules only log */
		if (ev && j->user_rules && j->flight && !j->flight_pending) {
			char why[REC_TEXT_MAX], err[256];
			snprintf(why, sizeof(why), "spike cpu %d %s=%.6g baseline %.6g (%s)",
				 ev->cpu, ev->metric, ev->value, ev->baseline, ev->rule);
			if (jitter_trigger(app, ev->time_s, why, err, sizeof(err)) == 0)
				app_log(app, MSG_WARN, "%s", why);
		}
	}
	if (j->flight_pending && snap->time_s >= j->flight_due_s)
		flight_dump(app);
	const uint64_t *cur[RING_NCOUNTS];
	if (ring_counts(j, cur)) {
		ring_cadence(j, snap);
		ring_notes(j, snap, cur);
	}
	if (window_full(j, snap))
		close_window(j, snap);
}

static void on_mode(struct app_ctx *app, void *arg)
{
	struct jitter *j = arg;
	if (j->flight_pending)
		flight_dump(app); /* the ring holds the old mode's samples */
	layout_free(j);
	j->frozen = j->freeze_pending = false;
	if (!j->user_rules)
		default_rules(app);
	else {
		alert_set_reset(&j->rules);
		for (size_t i = 0; i < j->rules.n; i++)
			warn_rule(app, &j->rules.rules[i]);
	}
	flight_at_setup(j);
}

static void on_close(struct app_ctx *app, void *arg)
{
	struct jitter *j = arg;
	if (j->flight_pending)
		flight_dump(app);
	layout_free(j);
	alert_set_free(&j->rules);
	spike_log_free(&j->log);
	for (int i = 0; i < j->nwritten; i++)
		free(j->written[i].path);
	free(j->written);
	free(j);
}

/* --- rules --------------------------------------------------------------------------------- */

void jitter_clear_rules(struct app_ctx *app)
{
	J(app)->user_rules = false;
	default_rules(app);
}

/* --- set-up --------------------------------------------------------------------------------- */

/* --- the observer -------------------------------------------------------------------------- */

static void obs_tick(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	on_snapshot(app, snap, o->state);
}

static void obs_mode(struct observer *o, struct app_ctx *app) { on_mode(app, o->state); }

static void obs_close(struct observer *o, struct app_ctx *app) { on_close(app, o->state); }

static void obs_timer(struct observer *o, struct app_ctx *app, const struct loop_event *ev)
{
	(void)o;
	jitter_loop_tick(app, ev);
}

/* The frame follows the windows: their sums (the session's snapshot for a window of one). */
static const struct snapshot *obs_window(struct observer *o, uint64_t *closed)
{
	const struct jitter *j = o->state;
	*closed = j->windows;
	return jitter_snapshot(j->app);
}

/* The frame's window columns (the chosen statistic, attribution), its cadence line and its
 * batch lines, copied into the frame. */
static void obs_fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
			   struct frame_store *fs)
{
	const struct jitter *j = o->state;
	const struct snapshot *snap = f->snap;
	bool ring =
	    j->ring && j->have_agg && j->nrows == snap->nrows && j->ring_mem && !f->row_keys;
	f->ring_lost = ring ? j->rc[RING_LOST].win : NULL;
	f->ring_throttled_ns = ring ? j->rc[RING_THROTTLED_NS].win : NULL;
	f->ring_throttles = ring ? j->rc[RING_THROTTLES].win : NULL;
	if (app->frame_wants_self) { /* a cadence report per frame: only for a reader */
		jitter_status_line(app, f->self, sizeof(f->self));
		f->show_self = app->sample_ms || j->frozen || j->attrib_on;
	}
	if (!j->have_agg || j->nrows != snap->nrows || j->nmetrics != snap->nmetrics ||
	    f->row_keys) /* the window's per-CPU columns do not fit summed rows */
		return;
	jitter_frame_extras(j, f);
	struct frame_cols c;
	frame_store_cols(fs, &c);
	if (j->stat != JITTER_VALUE) {
		f->stat = jitter_stat_name(j->stat);
		memcpy(c.stat_values, j->shown,
		       (size_t)snap->nrows * snap->nmetrics * sizeof(double));
		f->stat_values = c.stat_values;
	}
	if (!j->attrib_on || !j->attrib_ready)
		return;
	f->nattrib = ATTRIB_NCOLS;
	f->attrib_names = attrib_col_names;
	f->attrib = c.attrib;
	f->task = c.task_ptr;
	for (int r = 0; r < j->nrows; r++) {
		for (int a = 0; a < ATTRIB_NCOLS; a++) {
			double v = jitter_cell_stat(jitter_cell(j, r, j->nmetrics + a), j->stat);
			c.attrib[r * ATTRIB_NCOLS + a] = v;
		}
		const struct tasktop_cpu *t = attrib_task(&j->attrib, r);
		if (t)
			snprintf(c.tasks[r], sizeof(c.tasks[r]), "%.30s %.0f%%", t->comm,
				 t->cpu_pct);
		c.task_ptr[r] = t ? c.tasks[r] : NULL;
	}
}

int jitter_attach(struct app_ctx *app, char *err, size_t errlen)
{
	struct jitter *j = calloc(1, sizeof(*j));
	if (!j || spike_log_init(&j->log, JITTER_SPIKE_LOG, err, errlen) < 0) {
		free(j);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->app = app;
	struct observer o = {.name = "jitter",
			     .state = j,
			     .on_tick = obs_tick,
			     .on_mode = obs_mode,
			     .window = obs_window,
			     .fill_frame = obs_fill_frame,
			     .on_timer = obs_timer,
			     .close = obs_close};
	if (!app_observe(app, &o)) {
		spike_log_free(&j->log);
		free(j);
		snprintf(err, errlen, "too many observers");
		return -1;
	}
	j->max_files = JITTER_FLIGHT_FILES;
	j->max_bytes = JITTER_FLIGHT_BYTES;
	/* the baseline of pmutop's own CPU use: the first window's figure runs from here */
	cadence_init(&j->cad, 0, 0);
	int64_t cpu_ns, wall_ns;
	int cpu;
	if (cadence_self_read(&cpu_ns, &wall_ns, &cpu) == 0)
		cadence_self_sample(&j->cad, cpu_ns, wall_ns, cpu);
	alert_set_init(&j->rules, max_cpu(app));
	default_rules(app);
	for (int i = 0; i < app->opt.nalerts; i++)
		if (jitter_add_rule(app, app->opt.alerts[i], err, errlen) < 0) {
			char why[256];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "--alert \"%s\": %s", app->opt.alerts[i], why);
			app_unobserve(app, "jitter");
			on_close(app, j);
			return -1;
		}
	j->attrib_on = app->opt.attrib;
	if (app->opt.pin_cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(app->opt.pin_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			app_log(app, MSG_WARN, "--pin %d: %s", app->opt.pin_cpu, strerror(errno));
		else
			app_log(app, MSG_INFO, "pmutop pinned to CPU %d", app->opt.pin_cpu);
	}
	flight_at_setup(j);
	return 0;
}

struct jitter *jitter_get(const struct app_ctx *app) { return app ? J(app) : NULL; }

void jitter_freeze_view(struct app_ctx *app)
{
	struct jitter *j = J(app);
	if (j)
		j->freeze_pending = !app->opt.batch;
}

void jitter_set_stat(struct app_ctx *app, enum jitter_stat stat)
{
	struct jitter *j = J(app);
	if (j)
		j->stat = stat;
}

void jitter_loop_tick(struct app_ctx *app, const struct loop_event *ev)
{
	struct jitter *j = J(app);
	if (!j || ev->kind != LOOP_TICK)
		return;
	if (ring_counts(j, NULL))
		return; /* the samples' own times make the cadence (ring_cadence) */
	int64_t period = (int64_t)app->loop.period_ns;
	if (!j->cad_ready || j->cad.period_ns != period || j->cad_loop_t0 != app->loop.t0_ns) {
		/* a new schedule restarts the lateness figures; the own-CPU figure keeps its
		 * baseline (taken when the run started), so the first window measures a window */
		struct cadence_self self;
		cadence_self_save(&j->cad, &self);
		cadence_init(&j->cad, (int64_t)app->loop.t0_ns - period, period);
		cadence_self_restore(&j->cad, &self);
		j->cad_loop_t0 = app->loop.t0_ns;
		j->cad_ready = true;
	}
	cadence_tick(&j->cad, (int64_t)ev->deadline_ns + ev->lateness_ns, ev->overruns + 1);
}

uint64_t jitter_windows(const struct app_ctx *app)
{
	const struct jitter *j = J(app);
	return j ? j->windows : 0;
}

const struct snapshot *jitter_snapshot(const struct app_ctx *app)
{
	const struct jitter *j = J(app);
	if (!j || !j->have_agg)
		return NULL;
	if (j->k == 1 && !j->frozen)
		return session_snapshot(app->session);
	return &j->agg;
}

const struct jitter_cell *jitter_cell(const struct jitter *j, int row, int col)
{
	if (!j || !j->have_agg || !j->acc || !j->acc->stats_ready || row < 0 || row >= j->nrows ||
	    col < 0 || col >= j->ncols)
		return NULL;
	return &j->cells[row * j->ncols + col];
}

int jitter_export_spikes(struct app_ctx *app, const char *path, char *err, size_t errlen)
{
	struct jitter *j = J(app);
	size_t n = strlen(path);
	bool jsonl = (n > 6 && strcmp(path + n - 6, ".jsonl") == 0) ||
		     (n > 5 && strcmp(path + n - 5, ".json") == 0);
	FILE *f = safe_fopen(path, app->opt.force ? SAFE_CREATE_FORCE : SAFE_CREATE_NAMED);
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, safe_create_reason(path, errno));
		safe_output_failed(SAFE_OUT_EXPORT, err);
		return -1;
	}
	int rc = jsonl ? spike_log_write_jsonl(&j->log, f, err, errlen)
		       : spike_log_write_csv(&j->log, f, err, errlen);
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		safe_output_failed(SAFE_OUT_EXPORT, err);
	else
		safe_output_ok(SAFE_OUT_EXPORT);
	return rc;
}

int jitter_set_attrib(struct app_ctx *app, bool on, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	struct jitter *j = J(app);
	j->attrib_on = on;
	if (!on && j->attrib_ready) {
		attrib_free(&j->attrib);
		j->attrib_ready = false;
		/* open_window() clears only the columns pushed while attribution is off */
		for (int r = 0; j->acc && r < j->nrows; r++)
			for (int c = j->nmetrics; c < j->ncols; c++)
				series_ring_clear(series_set_ring(&j->win, r, c));
	}
	return 0;
}

/* Heap bytes held (statistics, rules, spike log, flight ring, attribution). */
static size_t jitter_bytes(const struct jitter *j)
{
	if (!j)
		return 0;
	size_t b = sizeof(*j) + series_set_bytes(&j->win) + alert_set_bytes(&j->rules) +
		   spike_log_bytes(&j->log) + flight_bytes(j->flight) +
		   (j->attrib_ready ? attrib_bytes(&j->attrib) : 0);
	size_t cells = (size_t)j->nrows * (size_t)j->nevents,
	       mcells = (size_t)j->nrows * (size_t)j->nmetrics;
	if (j->acc)
		b += cells * (3 * sizeof(double) + sizeof(int) + 1 + sizeof(enum count_state) +
			      sizeof(struct count)) +
		     mcells * (3 * sizeof(double) + sizeof(enum metric_class)) +
		     (size_t)j->nrows * (size_t)j->ncols * sizeof(struct jitter_cell);
	return b;
}

/* A string cut as snprintf cuts it: @used bytes of @b (at most len - 1), NUL-terminated. */
struct status_buf {
	char *b;
	size_t len, used;
};

static struct status_buf status_buf(char *b, size_t len)
{
	if (len)
		b[0] = '\0';
	return (struct status_buf){b, len, 0};
}

static void status_put(struct status_buf *s, const char *p, size_t n)
{
	s->used = text_append(s->b, s->len, s->used, p, n);
}

static void status_str(struct status_buf *s, const char *p) { status_put(s, p, strlen(p)); }

static void status_fixed(struct status_buf *s, double v, int decimals)
{
	char t[NUMFMT_MAX];
	status_put(s, t, numfmt_fixed(t, v, decimals));
}

static void status_u64(struct status_buf *s, unsigned long long v)
{
	char t[NUMFMT_MAX];
	status_put(s, t, numfmt_u64(t, v));
}

void jitter_status_format(const struct jitter_status *st, char *buf, size_t len)
{
	char mem[32], late[96], self[48], flight[96], t[NUMFMT_MAX];
	struct status_buf m = status_buf(mem, sizeof(mem));
	if (st->mem_bytes >= (1u << 20)) {
		status_fixed(&m, (double)st->mem_bytes / (1 << 20), 1);
		status_str(&m, " MiB");
	} else {
		status_fixed(&m, (double)st->mem_bytes / 1024, 0);
		status_str(&m, " KiB");
	}
	struct status_buf l = status_buf(late, sizeof(late));
	if (st->late == JITTER_LATE_NA) {
		status_str(&l, "late n/a");
	} else { /* the ring's samples (lost ones are missed) or the ticks */
		status_str(&l, st->late == JITTER_LATE_RING ? "ring late p99 " : "late p99 ");
		status_fixed(&l, st->p99_ms, 2);
		status_str(&l, " max ");
		status_fixed(&l, st->max_ms, 2);
		if (st->late == JITTER_LATE_RING) {
			status_str(&l, " ms, throttled ");
			status_fixed(&l, st->throttled_ms, 1);
			status_str(&l, " ms, lost ");
		} else {
			status_str(&l, st->try_realtime ? " ms (try --realtime), missed "
							: " ms, missed ");
		}
		status_u64(&l, st->lost);
	}
	struct status_buf o = status_buf(self, sizeof(self));
	if (st->self) {
		status_str(&o, "self ");
		status_fixed(&o, st->self_pct, 1);
		status_str(&o, "% CPU on cpu");
		status_put(&o, t, numfmt_i64(t, st->self_cpu));
	} else {
		status_str(&o, "self n/a");
	}
	struct status_buf fl = status_buf(flight, sizeof(flight));
	if (st->flight) {
		status_str(&fl, "flight ");
		status_fixed(&fl, st->flight_s, 0);
		status_str(&fl, " s");
	} else {
		status_str(&fl, "flight off");
	}
	/* FROZEN first: the line is cut at the screen's width (80 columns) */
	struct status_buf b = status_buf(buf, len);
	status_str(&b, st->frozen ? "FROZEN (:freeze off) | sample " : "sample ");
	status_put(&b, t, numfmt_g(t, st->sample_ms, 6));
	status_str(&b, " ms (measured ");
	status_fixed(&b, st->measured_ms, 2);
	status_str(&b, ") | ");
	status_put(&b, late, l.used);
	status_str(&b, " | ");
	status_put(&b, self, o.used);
	status_str(&b, " | ");
	status_put(&b, flight, fl.used);
	status_str(&b, ", mem ");
	status_put(&b, mem, m.used);
	status_str(&b, " | spikes ");
	status_u64(&b, st->spikes);
}

void jitter_status_line(const struct app_ctx *app, char *buf, size_t len)
{
	const struct jitter *j = J(app);
	if (!j) {
		if (len)
			buf[0] = '\0';
		return;
	}
	struct cadence_report cr;
	cadence_report((struct cadence *)&j->cad, &cr);
	struct jitter_status st = {
	    .frozen = j->frozen,
	    .sample_ms = (double)app_tick_ns(app) / 1e6,
	    .measured_ms = j->window_interval_ms,
	    .late = !cr.available ? JITTER_LATE_NA
		    : j->ring	  ? JITTER_LATE_RING
				  : JITTER_LATE_TICK,
	    .p99_ms = cr.p99_ns / 1e6,
	    .max_ms = (double)cr.max_all_ns / 1e6,
	    .self = !isnan(cr.self_pct) && j->cad.self_samples > 1,
	    .self_pct = cr.self_pct,
	    .self_cpu = cr.self_cpu,
	    .flight = j->flight != NULL,
	    .mem_bytes = jitter_bytes(j),
	    .spikes = j->log.total,
	};
	if (st.late == JITTER_LATE_RING) {
		st.throttled_ms = (double)j->rc[RING_THROTTLED_NS].total / 1e6;
		st.lost = j->rc[RING_LOST].total;
	} else if (st.late == JITTER_LATE_TICK) { /* late ticks wait for the scheduler */
		st.try_realtime = cadence_late(&cr) && !cadence_realtime();
		st.lost = cr.missed;
	}
	if (j->flight)
		st.flight_s = (double)j->flight->cap * (double)app_tick_ns(app) / 1e9;
	jitter_status_format(&st, buf, len);
}

void jitter_spike_lines(const struct app_ctx *app,
			void (*add)(void *ctx, bool title, const char *line), void *ctx)
{
	const struct jitter *j = J(app);
	char line[640];
	if (!j)
		return;
	snprintf(line, sizeof(line),
		 "Spikes (%llu, %llu dropped; newest last; :export spikes FILE)", j->log.total,
		 spike_log_dropped(&j->log));
	add(ctx, true, line);
	for (size_t i = 0; i < j->rules.n; i++) {
		snprintf(line, sizeof(line), "  rule: %s%s", j->rules.rules[i].text,
			 j->user_rules ? "" : " (default)");
		add(ctx, false, line);
	}
	if (j->flight_path[0]) {
		snprintf(line, sizeof(line), "  last flight recording: %.240s (pmutop -R %.240s)",
			 j->flight_path, j->flight_path);
		add(ctx, false, line);
	}
	snprintf(line, sizeof(line), "%10s %5s %-14s %12s %12s %9s  %s", "time s", "cpu", "metric",
		 "value", "baseline", "score", "rule");
	add(ctx, true, line);
	for (size_t i = 0; i < j->log.len; i++) {
		const struct spike_event *e = spike_log_get(&j->log, i);
		snprintf(line, sizeof(line), "%10.3f %5d %-14.14s %12.6g %12.6g %9.3g  %s%s",
			 e->time_s, e->cpu, e->metric, e->value, e->baseline, e->score, e->rule,
			 j->flight_mark.t == e->time_s && j->frozen ? "  <- frozen" : "");
		add(ctx, false, line);
	}
}

/* --- batch output --------------------------------------------------------------------------- */

/* Bytes a cell's statistics object may take: its keys (57) and seven numbers, each formatted
 * where NUMFMT_MAX bytes are free. */
#define CELL_JSON_ROOM (64 + 7 * NUMFMT_MAX)

/* Bytes the "self" object may take: its keys (about 260) and 17 numbers, each formatted where
 * NUMFMT_MAX bytes are free. */
#define SELF_JSON_ROOM (320 + 17 * NUMFMT_MAX)

/* The last real a cell's object holds: its bits and its text. */
struct real_text {
	uint64_t bits;
	const char *at; /* NULL: none yet */
	size_t n;
};

/*
 * Writes @v at @p as output_json_real() does and returns the end; a value with the bits of the
 * one before it is copied instead of formatted again (a window of one sample, or a flat one,
 * has min = median = p99 = max: these come sorted, so equal ones are neighbours).
 */
static char *cell_real(char *p, double v, struct real_text *last)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (last->at && bits == last->bits) {
		/* a few bytes, and a key lies between: no overlap. Up to 16 in two fixed moves
		 * (no call): the bytes read past the text lie in the room the object reserved
		 * (both loads come before the stores), and those written past it are written over
		 * next */
		if (last->n <= 16) {
			uint64_t a, b;
			memcpy(&a, last->at, 8);
			memcpy(&b, last->at + 8, 8);
			memcpy(p, &a, 8);
			memcpy(p + 8, &b, 8);
		} else {
			memcpy(p, last->at, last->n);
		}
	} else {
		last->n = numfmt_json_real(p, v, 6);
		last->bits = bits;
	}
	last->at = p;
	return p + last->n;
}

/* Appends the literal key @s (no NUL) at @p: a copy of known size. */
#define PUT_KEY(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/*
 * One cell's statistics: {"min":..,"median":..,"p99":..,"max":..,"dev":..,"dev_delta":..,"n":..}
 * with the bytes output_json_object/real/int/end would write (reals of 6 digits, null when not
 * finite), written as one piece: fixed keys, equal reals formatted once.
 */
/* The ring's count @k as JSON: "lost" and "throttles" as counts, "throttled_ms" in ms. */
static void ring_json(struct output_json *w, enum ring_count k, uint64_t v)
{
	static const char *const key[RING_NCOUNTS] = {"lost", "throttled_ms", "throttles"};
	if (k == RING_THROTTLED_NS)
		output_json_real(w, key[k], (double)v / 1e6);
	else
		output_json_int(w, key[k], (long long)v);
}

/* @m: the metric's index (its key made once; a window of one sample has the value the row's
 * "metrics" just gave, whose text is copied), -1 for another column. */
static void cell_json(struct output_json *w, int m, const char *key, const struct jitter_cell *c,
		      bool ready)
{
	if (!ready || !c->st.available) {
		output_json_null(w, key);
		return;
	}
	char *p0 = m >= 0 ? output_json_raw_metric(w, m, key, CELL_JSON_ROOM)
			  : output_json_raw(w, key, CELL_JSON_ROOM);
	if (!p0)
		return;
	struct real_text last = {0, NULL, 0};
	char *p = PUT_KEY(p0, "{\"min\":");
	p = cell_real(p, c->st.min, &last);
	p = PUT_KEY(p, ",\"median\":");
	p = cell_real(p, c->st.median, &last);
	p = PUT_KEY(p, ",\"p99\":");
	p = cell_real(p, c->st.p99, &last);
	p = PUT_KEY(p, ",\"max\":");
	p = cell_real(p, c->st.max, &last);
	p = PUT_KEY(p, ",\"dev\":");
	p = cell_real(p, c->dev.available ? c->dev.mad_units : NAN, &last);
	p = PUT_KEY(p, ",\"dev_delta\":");
	p = cell_real(p, c->dev.available ? c->dev.delta : NAN, &last);
	p = PUT_KEY(p, ",\"n\":");
	p += numfmt_i64(p, (int64_t)c->st.n);
	*p++ = '}';
	output_json_raw_done(w, (size_t)(p - p0));
}

/* The first spike the log holds of the last closed window (log.len when none): the log's
 * oldest is the (total - len)-th ever pushed, the window's first the spikes_before-th. */
static size_t window_spikes_first(const struct jitter *j)
{
	unsigned long long oldest = j->log.total - j->log.len;
	if (j->spikes_before <= oldest)
		return 0;
	unsigned long long skip = j->spikes_before - oldest;
	return skip < j->log.len ? (size_t)skip : j->log.len;
}

static void json_extra(void *ctx, void *recp, void *rowp, int r)
{
	const struct frame *f = ctx;
	const struct jitter *j = f->extra_state;
	if (!j || !j->have_agg)
		return;
	bool ready = j->acc && j->acc->stats_ready;
	if (rowp) {
		struct output_json *w = rowp;
		if (r >= j->nrows)
			return;
		if (j->attrib_ready) {
			output_json_object(w, "attrib");
			for (int c = 0; c < ATTRIB_NCOLS; c++)
				cell_json(w, -1, attrib_col_names[c],
					  &j->cells[r * j->ncols + j->nmetrics + c], ready);
			const struct tasktop_cpu *t = attrib_task(&j->attrib, r);
			if (t && output_json_text_ok(t->comm)) { /* jansson refuses other names */
				output_json_object(w, "task");
				output_json_string(w, "comm", t->comm);
				output_json_int(w, "pid", t->pid);
				output_json_real(w, "cpu_pct", t->cpu_pct);
				output_json_end(w);
			}
			output_json_end(w);
		}
		output_json_object(w, "stats");
		for (int m = 0; m < j->nmetrics; m++)
			cell_json(w, m, j->agg.metrics[m].name, &j->cells[r * j->ncols + m], ready);
		output_json_end(w);
		/* samples the ring lost in the window (gaps in the statistics) and the kernel's
		 * throttling of the group (it counted nothing for so long) */
		for (int k = 0; j->ring && k < RING_NCOUNTS; k++)
			ring_json(w, k, j->rc[k].win[r]);
		return;
	}
	struct output_json *w = recp;
	output_json_int(w, "samples", (long long)j->k);
	output_json_array(w, "spikes");
	for (size_t i = window_spikes_first(j); i < j->log.len; i++) {
		const struct spike_event *e = spike_log_get(&j->log, i);
		if (!output_json_text_ok(e->metric) || !output_json_text_ok(e->rule))
			continue;
		output_json_object(w, NULL);
		output_json_real(w, "time", e->time_s);
		output_json_int(w, "cpu", e->cpu);
		output_json_string(w, "metric", e->metric);
		output_json_real(w, "value", e->value);
		output_json_real(w, "baseline", e->baseline);
		output_json_real(w, "score", e->score);
		output_json_string(w, "rule", e->rule);
		output_json_end(w);
	}
	output_json_end(w);
	struct cadence_report cr;
	cadence_report((struct cadence *)&j->cad, &cr);
	/* "self": fixed keys and numbers, written as one piece with the bytes the member
	 * functions would write (reals of 6 digits, null when not finite) */
	char *p0 = output_json_raw(w, "self", SELF_JSON_ROOM), *p = p0;
	if (p0) {
		p = PUT_KEY(p, "{\"sample_ms\":");
		if (f->tick_ms == 1 && j->app->sample_us > 0) /* below 1 ms: its fraction */
			p += numfmt_json_real(p, (double)j->app->sample_us / 1000.0, 6);
		else
			p += numfmt_i64(p, (int)f->tick_ms);
		p = PUT_KEY(p, ",\"measured_ms\":");
		p += numfmt_json_real(p, j->window_interval_ms, 6);
		p = PUT_KEY(p, ",\"lateness_p50_ms\":");
		p += numfmt_json_real(p, cr.available ? cr.p50_ns / 1e6 : NAN, 6);
		p = PUT_KEY(p, ",\"lateness_p99_ms\":");
		p += numfmt_json_real(p, cr.available ? cr.p99_ns / 1e6 : NAN, 6);
		p = PUT_KEY(p, ",\"lateness_max_ms\":");
		p += numfmt_json_real(p, cr.available ? (double)cr.max_all_ns / 1e6 : NAN, 6);
		p = PUT_KEY(p, ",\"drift_ms\":");
		p += numfmt_json_real(p, cr.available ? (double)cr.drift_ns / 1e6 : NAN, 6);
		p = PUT_KEY(p, ",\"missed\":");
		p += numfmt_i64(p, (int64_t)cr.missed);
		p = PUT_KEY(p, ",\"long_intervals\":");
		p += numfmt_i64(p, (int64_t)cr.long_intervals);
		p = PUT_KEY(p, ",\"cpu_pct\":");
		p += numfmt_json_real(p, j->cad.self_samples > 1 ? cr.self_pct : NAN, 6);
		p = PUT_KEY(p, ",\"mem_bytes\":");
		p += numfmt_i64(p, (int64_t)jitter_bytes(j));
		p = PUT_KEY(p, ",\"cpu\":");
		p += numfmt_i64(p, cr.self_cpu);
		p = PUT_KEY(p, ",\"ticks\":");
		p += numfmt_i64(p, (int64_t)cr.ticks);
		p = j->ring ? PUT_KEY(p, ",\"path\":\"ring\"") : PUT_KEY(p, ",\"path\":\"read\"");
		if (j->ring) { /* ring_json()'s members */
			p = PUT_KEY(p, ",\"lost\":");
			p += numfmt_i64(p, (int64_t)j->rc[RING_LOST].total);
			p = PUT_KEY(p, ",\"throttled_ms\":");
			p += numfmt_json_real(p, (double)j->rc[RING_THROTTLED_NS].total / 1e6, 6);
			p = PUT_KEY(p, ",\"throttles\":");
			p += numfmt_i64(p, (int64_t)j->rc[RING_THROTTLES].total);
		}
		*p++ = '}';
		output_json_raw_done(w, (size_t)(p - p0));
	}
	if (j->flight_path[0])
		output_json_string(w, "flight", j->flight_path);
}

static void text_extra(void *ctx, FILE *out)
{
	const struct frame *f = ctx;
	const struct jitter *j = f->extra_state;
	if (!j || !j->have_agg)
		return;
	text_fprintf(out, "%s\n", f->self);
	for (size_t i = window_spikes_first(j); i < j->log.len; i++) {
		const struct spike_event *e = spike_log_get(&j->log, i);
		text_fprintf(out, "spike %.3f s cpu %d %s %.6g (baseline %.6g) %s\n", e->time_s,
			     e->cpu, e->metric, e->value, e->baseline, e->rule);
	}
}

void jitter_frame_extras(const struct jitter *j, struct frame *f)
{
	f->json_extra = json_extra;
	f->text_extra = text_extra;
	f->extra_state = j;
}

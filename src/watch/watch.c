/* SPDX-License-Identifier: GPL-2.0-or-later */
/* watch.c: the observer that runs the validity guard per tick and keeps the ownership map fresh,
 * and what they add to each frame (marks, the capability line's facts). */
#include "watch.h"
#include "app.h"
#include "guard.h"
#include "owners.h"
#include "recorder.h"
#include "textutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct watch {
	struct guard *guard;
	struct guard_procstat ps;
	double *busy; /* [row] */
	int nbusy;
	double *stat_busy; /* [row]: /proc/stat's figures of the last window */
	int nstat;
	uint64_t stat_ns; /* when /proc/stat was last read (monotonic) */
	struct owners owners;
	bool owners_read;     /* the map was read at least once */
	bool owners_fixture;  /* from --owners-from: read once */
	uint64_t owners_ns;   /* when it was last read (monotonic) */
	char owners_err[200]; /* why the map could not be read */
	double self_running;  /* pmutop's least running fraction in the last tick, NAN unknown */
	bool want_owners;     /* a reader keeps the map fresh (the counters view) */
	char recorded[1024];  /* the holders last written into the recording as marks */
	bool owners_env;      /* PMUTOP_OWNERS_FIXTURE was set at start */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct watch *W(const struct app_ctx *app)
{
	return app ? app_observer_state(app, "watch") : NULL;
}

/* The busy fraction of each row: the mode's proc/busy/ and proc/idle/ events when it has them
 * (a recording carries them), else this machine's /proc/stat. */
static void fill_busy(struct app_ctx *app, struct watch *w, const struct snapshot *s)
{
	if (w->nbusy < s->nrows) {
		double *b = realloc(w->busy, sizeof(double) * (size_t)s->nrows);
		if (!b)
			return;
		w->busy = b;
		w->nbusy = s->nrows;
	}
	int eb = -1, ei = -1; /* a few names: found every tick, never stale */
	for (int e = 0; e < s->nevents; e++) {
		const char *name = s->event_names[e]; /* the first letter first: no call for most */
		if (name[0] == 'b' && text_eq(name, "busy"))
			eb = e;
		else if (name[0] == 'i' && text_eq(name, "idle"))
			ei = e;
	}
	for (int r = 0; r < s->nrows; r++)
		w->busy[r] = NAN;
	if (eb >= 0 && ei >= 0) {
		for (int r = 0; r < s->nrows; r++) {
			const struct count *b = &s->counts[r * s->nevents + eb];
			const struct count *i = &s->counts[r * s->nevents + ei];
			if (b->state == COUNT_OK && i->state == COUNT_OK && b->value + i->value > 0)
				w->busy[r] = b->value / (b->value + i->value);
		}
		return;
	}
	if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE) || s->row_cpus)
		return;
	/* /proc/stat at most every GUARD_BUSY_TICK_S (its "intr" line is long on big machines):
	 * the figures of the last such window stand for the ticks inside the next one */
	uint64_t t = now_ns();
	if (w->nstat < s->nrows) {
		double *b = realloc(w->stat_busy, sizeof(double) * (size_t)s->nrows);
		if (!b)
			return;
		for (int r = w->nstat; r < s->nrows; r++)
			b[r] = NAN;
		w->stat_busy = b;
		w->nstat = s->nrows;
	}
	if (t - w->stat_ns >= (uint64_t)(GUARD_BUSY_TICK_S * 1e9)) {
		w->stat_ns = t;
		guard_procstat_read(&w->ps, app->pf.root, s->cpus, s->nrows, w->stat_busy);
	}
	memcpy(w->busy, w->stat_busy, sizeof(double) * (size_t)s->nrows);
}

static double least_running(const struct snapshot *s)
{
	double least = NAN;
	for (int i = 0; i < s->nrows * s->nevents; i++) {
		const struct count *c = &s->counts[i];
		if ((c->state == COUNT_OK || c->state == COUNT_SCALED) &&
		    (isnan(least) || c->running < least))
			least = c->running;
	}
	return least;
}

static void read_owners(struct app_ctx *app, struct watch *w)
{
	uint64_t t = now_ns();
	if (w->owners_fixture || (w->owners_read && t - w->owners_ns < WATCH_OWNERS_NS))
		return;
	bool live = source_has(&app->source, SOURCE_CAP_THIS_MACHINE);
	if (!live && !app->opt.owners_from && !getenv("PMUTOP_OWNERS_FIXTURE"))
		return; /* a recording or the sim: the map is the recorded machine's, unknown */
	char err[200];
	w->owners_ns = t;
	if (owners_read(&w->owners, app->opt.owners_from, app->pf.root, app->pf.core_pmu_count > 0,
			err, sizeof(err)) < 0) {
		if (strcmp(err, w->owners_err) != 0)
			app_log(app, MSG_WARN, "ownership map: %s", err);
		snprintf(w->owners_err, sizeof(w->owners_err), "%s", err);
		return;
	}
	w->owners_err[0] = 0;
	if (!w->owners_read)
		app_log(app, MSG_INFO, "ownership map from %s (%s)",
			owners_source_name(w->owners.source), w->owners.note);
	w->owners_read = true;
	w->owners_fixture = w->owners.source == OWNERS_FIXTURE;
	/* a recording (and so the agent's stream) carries the holders as marks when they change:
	 * the map of the recorded machine is not known anywhere else */
	char lines[sizeof(w->recorded)];
	owners_summary(&w->owners, NULL, NAN, lines, sizeof(lines));
	if (recorder_active(app) && strcmp(lines, w->recorded) != 0) {
		snprintf(w->recorded, sizeof(w->recorded), "%s", lines);
		for (const char *l = lines; *l;) {
			size_t n = strcspn(l, "\n");
			char text[300];
			snprintf(text, sizeof(text), "owner: %.*s", (int)(n < 280 ? n : 280), l);
			if (recorder_mark(app, text, err, sizeof(err)) < 0)
				break;
			l += n + (l[n] == '\n');
		}
	}
}

static void on_tick(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	struct watch *w = o->state;
	fill_busy(app, w, snap);
	guard_rows_are_tasks(w->guard, app->target.kind != TARGET_CPUS);
	int raised = guard_check(w->guard, snap, w->busy);
	if (raised) {
		const struct guard_flag *f;
		int n = guard_flags(w->guard, &f);
		uint64_t tick = 0;
		for (int i = 0; i < n; i++)
			tick = f[i].since > tick ? f[i].since : tick;
		for (int i = 0; i < n; i++)
			if (f[i].since == tick)
				app_log(app, MSG_WARN, "invalid %s: %s", f[i].name, f[i].text);
	}
	w->self_running = least_running(snap);
	/* the map is read when something asks for it: the counters view, a dump, or a
	 * shortfall in pmutop's own running time that someone else may cause (never on every
	 * tick: reading it takes milliseconds) */
	if (w->want_owners || app->opt.owners_from || w->owners_env ||
	    (!isnan(w->self_running) && w->self_running < 0.995))
		read_owners(app, w);
}

static void on_mode(struct observer *o, struct app_ctx *app)
{
	(void)app;
	struct watch *w = o->state;
	guard_reset(w->guard);
}

static void on_close(struct observer *o, struct app_ctx *app)
{
	(void)app;
	struct watch *w = o->state;
	guard_free(w->guard);
	guard_procstat_free(&w->ps);
	owners_free(&w->owners);
	free(w->busy);
	free(w->stat_busy);
	free(w);
	o->state = NULL;
}

/* The frame being built: the guard marks the invalid counts in the frame's own snapshot copy,
 * and the lines become the frame's. */
static void fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
		       struct frame_store *fs)
{
	struct watch *w = o->state;
	const struct guard_flag *flags;
	if (f->snap && w->guard && guard_flags(w->guard, &flags) > 0) /* the frame's own copy */
		guard_mark(w->guard, frame_snapshot_own(f, fs));
	guard_line(w->guard, f->guard_line, sizeof(f->guard_line));
	f->owners_lines[0] = 0;
	/* a map nobody keeps fresh any more is not shown (its holders may be gone) */
	bool fresh =
	    w->owners_read && (w->owners_fixture || now_ns() - w->owners_ns < 3 * WATCH_OWNERS_NS);
	if (fresh)
		owners_summary(&w->owners, app->mode_name, w->self_running, f->owners_lines,
			       sizeof(f->owners_lines));
	f->guard = w->guard;
	f->owners = fresh ? &w->owners : NULL;
}

/* The highest core clock of this machine (Hz): cpufreq's, else /proc/cpuinfo's; 0 unknown. */
static double machine_max_hz(const struct app_ctx *app)
{
	double hz = 0;
	for (int i = 0; i < app->pf.npmus; i++)
		if (app->pf.pmus[i].is_core && app->pf.pmus[i].max_khz * 1e3 > hz)
			hz = app->pf.pmus[i].max_khz * 1e3;
	if (hz > 0)
		return hz;
	char path[4200];
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", app->pf.root);
	FILE *f = fopen(path, "r");
	char line[256];
	double mhz;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz * 1e6 > hz)
			hz = mhz * 1e6;
	if (f)
		fclose(f);
	return hz;
}

int watch_attach(struct app_ctx *app, char *err, size_t errlen)
{
	struct watch *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct guard_limits lim;
	bool live = source_has(&app->source, SOURCE_CAP_THIS_MACHINE);
	const char *family = app->machine.family[0] ? app->machine.family
			     : app->family	    ? app->family->key
						    : "";
	guard_limits_for(&lim, family, app->machine.pmu, live ? machine_max_hz(app) : 0);
	w->guard = guard_new(&lim);
	w->self_running = NAN;
	w->owners_env = getenv("PMUTOP_OWNERS_FIXTURE") != NULL;
	struct observer obs = {.name = "watch",
			       .state = w,
			       .on_tick = on_tick,
			       .on_mode = on_mode,
			       .fill_frame = fill_frame,
			       .close = on_close};
	if (!w->guard || !app_observe(app, &obs)) {
		snprintf(err, errlen, w->guard ? "too many observers" : "out of memory");
		guard_free(w->guard);
		free(w);
		return -1;
	}
	return 0;
}

const struct owners *watch_owners(const struct app_ctx *app)
{
	struct watch *w = W(app);
	return w && w->owners_read ? &w->owners : NULL;
}

void watch_refresh_owners(struct app_ctx *app)
{
	struct watch *w = W(app);
	if (w)
		read_owners(app, w);
}

const struct guard *watch_guard(const struct app_ctx *app)
{
	struct watch *w = W(app);
	return w ? w->guard : NULL;
}

void watch_want_owners(struct app_ctx *app, bool want)
{
	struct watch *w = W(app);
	if (w)
		w->want_owners = want;
}

uint64_t watch_raised(const struct app_ctx *app)
{
	struct watch *w = W(app);
	return w ? guard_raised(w->guard) : 0;
}

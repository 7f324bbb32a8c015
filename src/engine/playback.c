/* SPDX-License-Identifier: GPL-2.0-or-later */
/* playback.c: drives a recorded source: follows its mode switches, steps, seeks, rate, marks. */
#include "playback.h"
#include "app.h"
#include "cpuset.h"
#include "duration.h"
#include "expr.h"
#include "family.h"
#include "linereader.h"
#include "mode.h"
#include "replay.h"
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R(app) ((app)->replay)

/* Runs recorded mode @k as a mode of its own: its events, no metrics. */
/* The recorded mode with the formulas the run computed (a -M, perf: or define'd mode this
 * machine does not know): 0, or -1 when the record has none or one does not parse. */
static int recorded_metrics(const struct rec_mode *rm, struct session_mode *sm)
{
	if (rm->nmetrics <= 0 || rm->nmetrics > SESSION_MAX_METRICS)
		return -1;
	for (int e = 0; e < rm->nevents && e < SESSION_MAX_EVENTS; e++) {
		rec_escape(rm->events[e].name, sm->events[e].name, sizeof(sm->events[e].name));
		snprintf(sm->events[e].spec, sizeof(sm->events[e].spec), "%s", rm->events[e].name);
		sm->nevents++;
	}
	for (int i = 0; i < rm->nmetrics; i++) {
		struct session_metric *m = &sm->metrics[sm->nmetrics++];
		char why[256];
		struct expr *x = expr_parse(rm->metrics[i].formula, why, sizeof(why));
		if (!x)
			return -1;
		rec_escape(rm->metrics[i].name, m->name, sizeof(m->name));
		rec_escape(rm->metrics[i].unit, m->unit, sizeof(m->unit));
		snprintf(m->formula, sizeof(m->formula), "%s", rm->metrics[i].formula);
		m->good = m->warn = m->bad = NAN;
		const char *const *vars;
		int nv = expr_vars(x, &vars);
		for (int v = 0; v < nv; v++) { /* every name an event of the record or a builtin */
			int found = -1;
			for (int e = 0; e < rm->nevents && found < 0; e++)
				if (strcmp(rm->events[e].name, vars[v]) == 0)
					found = e;
			bool builtin = false;
			for (int b = 0; mode_builtin_vars[b] && !builtin; b++)
				builtin = strcmp(mode_builtin_vars[b], vars[v]) == 0;
			if (found < 0 && !builtin) {
				expr_free(x);
				return -1; /* not the formulas of these events */
			}
			if (found >= 0 &&
			    m->ninputs < (int)(sizeof(m->inputs) / sizeof(m->inputs[0])))
				m->inputs[m->ninputs++] = found;
		}
		expr_free(x);
	}
	return 0;
}

static int run_recorded(struct app_ctx *app, int k, char *err, size_t errlen)
{
	const struct rec_mode *rm = &R(app)->f.modes[k];
	struct session_mode sm;
	memset(&sm, 0, sizeof(sm));
	rec_escape(rm->name, sm.name, sizeof(sm.name));
	snprintf(sm.title, sizeof(sm.title), "recorded metrics");
	if (recorded_metrics(rm, &sm) == 0)
		return app_run_mode(app, &sm, err, errlen);
	memset(&sm, 0, sizeof(sm));
	rec_escape(rm->name, sm.name, sizeof(sm.name));
	snprintf(sm.title, sizeof(sm.title), "recorded events");
	/* formula names from the recorded names ("cpu-clock" -> cpu_clock); each event is a
	 * column of its rate per second (with its running percentage when multiplexed) */
	for (int e = 0; e < rm->nevents && e < SESSION_MAX_EVENTS; e++) {
		char esc[sizeof(sm.events[e].name)];
		rec_escape(rm->events[e].name, esc, sizeof(esc));
		app_event_alias(esc, sm.events[e].name, sizeof(sm.events[e].name));
		for (int k = 0; k < e; k++) /* two names that sanitize alike stay apart */
			if (strcmp(sm.events[k].name, sm.events[e].name) == 0) {
				size_t u = strlen(sm.events[e].name);
				snprintf(sm.events[e].name + (u > 40 ? 40 : u),
					 sizeof(sm.events[e].name) - (u > 40 ? 40 : u), "_%d", e);
			}
		snprintf(sm.events[e].spec, sizeof(sm.events[e].spec), "%s", rm->events[e].name);
		sm.nevents++;
		app_add_rate_metric(&sm, e);
	}
	return app_run_mode(app, &sm, err, errlen);
}

static int recorded_mode(const struct replay *r, const char *name)
{
	char esc[REC_NAME_MAX * 4];
	for (int k = r->f.nmodes - 1; k >= 0; k--) {
		rec_escape(r->f.modes[k].name, esc, sizeof(esc));
		if (strcmp(r->f.modes[k].name, name) == 0 || strcmp(esc, name) == 0)
			return k;
	}
	return -1;
}

/* 0 when every required event of @m was recorded, else -1 with the names missing. */
static int check_mode(struct app_ctx *app, const struct mode *m, char *err, size_t errlen)
{
	struct mode_resolution res;
	if (mode_resolve(m, app->family, &res) < 0 || !res.events) {
		snprintf(err, errlen, "mode %s: %s", m->name, res.reason);
		return -1;
	}
	char missing[512] = "";
	int n = 0;
	for (int e = 0; e < res.events->nevents; e++) {
		const struct mode_event *ev = &res.events->events[e];
		struct backend_event be = {0};
		snprintf(be.name, sizeof(be.name), "%s", ev->alias);
		snprintf(be.spec, sizeof(be.spec), "%s", ev->spec);
		if (ev->optional || replay_recorded(R(app), &be))
			continue;
		size_t u = strlen(missing);
		snprintf(missing + u, sizeof(missing) - u, "%s%s", n++ ? ", " : "", ev->alias);
	}
	if (n) {
		snprintf(err, errlen, "mode %s needs event%s %s that the recording lacks", m->name,
			 n > 1 ? "s" : "", missing);
		return -1;
	}
	return 0;
}

/* Sends @line to where a forwarding source's numbers come from (its observer). */
static int forward(struct app_ctx *app, const char *line, char *err, size_t errlen)
{
	for (int i = 0; i < app->nobservers; i++)
		if (app->observers[i]->forward)
			return app->observers[i]->forward(app->observers[i], app, line, err,
							  errlen);
	snprintf(err, errlen, "nothing forwards \"%s\"", line);
	return -1;
}

int playback_sample(struct app_ctx *app, long sample_ms, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (!app->replay || !source_has(&app->source, SOURCE_CAP_FORWARD) || r->following ||
	    !app->mode.nevents)
		return 0;
	long tick = sample_ms > 0 && sample_ms < app->interval_ms ? sample_ms : app->interval_ms;
	if (tick < DURATION_REFRESH_MIN_MS) { /* refused before the agent refuses it */
		snprintf(err, errlen, "sample below %d ms: %s", DURATION_REFRESH_MIN_MS,
			 DURATION_REMOTE_SAMPLE_WHY);
		return -1;
	}
	char line[64];
	snprintf(line, sizeof(line), "interval %ld", tick);
	return forward(app, line, err, errlen);
}

int playback_filter(struct app_ctx *app, const char *what, const char *arg, char *err,
		    size_t errlen)
{
	struct replay *r = R(app);
	if (source_has(&app->source, SOURCE_CAP_FORWARD) && !r->following && app->mode.nevents) {
		char line[512];
		snprintf(line, sizeof(line), "%s %s", what, arg);
		long iv = strcmp(what, "interval") == 0 ? strtol(arg, NULL, 10) : 0;
		if (iv > 0 && app->sample_ms > 0 && app->sample_ms < iv) /* the agent samples */
			snprintf(line, sizeof(line), "interval %ld", app->sample_ms);
		if (forward(app, line, err, errlen) < 0)
			return -1;
		if (strcmp(what, "mode") == 0) {
			app_log(app, MSG_INFO, "asked the agent for mode %s", arg);
			return 0; /* the mode line in the stream switches the display */
		}
		return 1;
	}
	if (strcmp(what, "interval") == 0) {
		snprintf(err, errlen,
			 "a replay keeps the recorded interval (%ld ms); :rate changes the pace",
			 app->interval_ms);
		return -1;
	}
	if (strcmp(what, "mode") != 0)
		return 1;
	const struct mode *m = mode_find(app->modes, arg);
	int k = recorded_mode(r, arg);
	if (m && check_mode(app, m, err, errlen) == 0)
		return 1;
	if (k >= 0)
		return run_recorded(app, k, err, errlen);
	return m ? -1 : 1;
}

/* A mode switch by the user re-reads the tick shown, so no recorded tick is lost to priming. */
static void on_mode(struct observer *o, struct app_ctx *app)
{
	(void)o;
	struct replay *r = R(app);
	if (r->following || r->served < 0 || r->pos >= r->f.nticks)
		return;
	if (r->f.ticks[r->served].mode == r->f.ticks[r->pos].mode)
		r->pos = r->served;
}

/* Waits for a streamed recording's header and first mode: a FIFO up to LR_WAIT_MS in batch
 * (stdin as long as it takes), on the screen until they come or the user gives up. Returns 0,
 * 2 or APP_INIT_QUIT. */
static int wait_start(struct app_ctx *app, char *err, size_t errlen)
{
	struct replay *r = R(app);
	uint64_t deadline = loop_now_ns() + (uint64_t)LR_WAIT_MS * 1000000ULL;
	char what[400];
	snprintf(what, sizeof(what), "waiting for a recording on %s", r->source);
	int rc = 0;
	while (!replay_stream_started(r)) {
		if (replay_stream_read(r, err, errlen) < 0) {
			if (!err[0])
				snprintf(err, errlen, "%s: the stream ended before its first mode",
					 r->source);
			rc = 2;
			break;
		}
		if (replay_stream_started(r))
			break;
		struct pollfd p = {.fd = replay_stream_fd(r), .events = POLLIN};
		poll(&p, 1, 200);
		/* stdin's writer is part of the user's pipeline: it gets all the time it needs */
		bool bounded = strcmp(app->opt.replay, "-") != 0;
		if (app->stream_wait ? app->stream_wait(app, what)
				     : bounded && loop_now_ns() >= deadline) {
			if (!app->stream_wait)
				snprintf(err, errlen,
					 "%s: no data within %d s (a FIFO without a writer?)",
					 r->source, LR_WAIT_MS / 1000);
			rc = app->stream_wait ? APP_INIT_QUIT : 2;
			break;
		}
	}
	if (app->stream_wait)
		app->stream_wait(app, NULL);
	return rc;
}

int playback_open(struct app_ctx *app, char *err, size_t errlen)
{
	if (!app->replay) {
		struct replay *r = calloc(1, sizeof(*r));
		if (!r) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
		int rc = replay_open_input(r, app->opt.replay, err, errlen);
		if (rc < 0) {
			free(r);
			return 2;
		}
		app->replay = r;
		if (rc == 1 && (rc = wait_start(app, err, errlen)) != 0)
			return rc;
		for (; r->warned < r->f.nwarnings; r->warned++)
			app_log(app, MSG_WARN, "%s", r->f.warnings[r->warned]);
		if (!r->lr)
			r->live = false; /* the stream ended already: a recording like a file */
	}
	struct replay *r = R(app);
	const struct rec_header *h = &r->f.header;
	r->applied_mode = r->f.nticks ? r->f.ticks[0].mode : 0;
	app->family = family_find(h->family);
	if (!app->family)
		app->family = family_find("generic");
	app->source = (struct source){.ops = app->opt.remote ? &source_remote_ops
					     : r->lr	     ? &source_stream_ops
							     : &source_replay_ops,
				      .inst = r};
	/* a recording's times count from its start; a perf stat import has no wall clock */
	app->start_unix_s = h->start_time > 0 ? (double)h->start_time : NAN;
	/* the recorded cadence; a remote run that samples asked the agent for its samples */
	bool sampled = app->opt.remote && app->opt.sample_ms > 0 &&
		       app->opt.sample_ms < app->interval_ms &&
		       h->interval_ms == app->opt.sample_ms;
	if (h->interval_ms >= 10 && h->interval_ms <= 3600000 && !sampled)
		app->interval_ms = h->interval_ms;
	if (!app_observe(app, &(struct observer){.name = "replay", .on_mode = on_mode})) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	return 0;
}

int playback_stream_fd(const struct app_ctx *app)
{
	return app->replay && !app->opt.remote ? replay_stream_fd(app->replay) : -1;
}

int playback_input(struct app_ctx *app)
{
	struct replay *r = R(app);
	char err[512];
	int n = replay_stream_read(r, err, sizeof(err));
	for (; r->warned < r->f.nwarnings; r->warned++)
		app_log(app, MSG_WARN, "%s", r->f.warnings[r->warned]);
	if (n >= 0)
		return n;
	if (err[0]) {
		app_log(app, MSG_ERROR, "%s", err);
		return -2;
	}
	app_log(app, MSG_INFO, "end of the stream %s (%d ticks)", r->source,
		r->dropped + r->f.nticks);
	return -1;
}

const char *playback_default_mode(struct app_ctx *app)
{
	struct replay *r = R(app);
	return r->f.nmodes ? r->f.modes[r->applied_mode].name : "sw";
}

int playback_pending(const struct app_ctx *app)
{
	const struct replay *r = R(app);
	return r->f.nticks - r->pos;
}

/* Before reading tick pos: switch the display when the recording switched modes. */
static void follow(struct app_ctx *app)
{
	struct replay *r = R(app);
	int k = r->f.ticks[r->pos].mode;
	if (k == r->applied_mode)
		return;
	char err[512], name[REC_NAME_MAX * 4];
	rec_escape(r->f.modes[k].name, name, sizeof(name));
	r->following = true;
	/* a CPU set change comes before the mode that reopens: rows for the new CPUs from here */
	if (app_follow_source_cpus(app, err, sizeof(err)) < 0)
		app_log(app, MSG_ERROR, "%s", err);
	if (app_set_mode(app, r->f.modes[k].name, err, sizeof(err)) < 0 &&
	    run_recorded(app, k, err, sizeof(err)) < 0)
		app_log(app, MSG_ERROR, "recorded mode %s: %s", name, err);
	else if (!app->opt.remote || r->f.nmodes > 1)
		app_log(app, MSG_INFO, "%s switched to mode %s",
			app->opt.remote ? "the agent" : "the recording", name);
	r->following = false;
	r->applied_mode = k;
}

static void log_marks(struct app_ctx *app, double from, double to)
{
	const struct replay *r = R(app);
	for (int i = 0; i < r->f.nmarks; i++)
		if (r->f.marks[i].t > from && r->f.marks[i].t <= to) {
			char t[REC_TEXT_MAX * 4];
			rec_escape(r->f.marks[i].text, t, sizeof(t));
			app_log(app, MSG_INFO, "mark at %.1f s: %s", r->f.marks[i].t, t);
			for (int k = 0; k < app->nobservers; k++) /* a recording keeps it */
				if (app->observers[k]->on_mark)
					app->observers[k]->on_mark(app->observers[k], app,
								   r->f.marks[i].t,
								   r->f.marks[i].text);
		}
}

int playback_tick(struct app_ctx *app, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (r->pos >= r->f.nticks) {
		if (!r->live && !r->end_told) {
			r->end_told = true;
			app_log(app, MSG_INFO,
				"end of the recording (%d ticks); :jump start replays it",
				r->f.nticks);
		}
		return 0;
	}
	r->end_told = false;
	follow(app);
	double from = r->served >= 0 ? r->f.ticks[r->served].t : -1;
	int rc = app_tick(app, err, errlen);
	if (rc >= 0 && r->served >= 0)
		log_marks(app, from, r->f.ticks[r->served].t);
	return rc;
}

int playback_seek(struct app_ctx *app, int index, char *err, size_t errlen)
{
	struct replay *r = R(app);
	int n = r->f.nticks;
	if (n < 2) {
		snprintf(err, errlen, "nothing to seek in");
		return -1;
	}
	if (index < 1)
		index = 1;
	if (index >= n)
		index = n - 1;
	/* a tick that starts a mode has no tick before it to compare with: show the next */
	while (index < n - 1 && r->f.ticks[index - 1].mode != r->f.ticks[index].mode)
		index++;
	if (r->f.ticks[index - 1].mode != r->f.ticks[index].mode) {
		snprintf(err, errlen, "no tick to show there");
		return -1;
	}
	r->pos = index - 1;
	r->following = true;
	int rc = 0;
	if (r->f.ticks[r->pos].mode != r->applied_mode) {
		r->following = false;
		follow(app);
	} else {
		struct session_mode sm = app->mode;
		rc = app_run_mode(app, &sm, err, errlen);
	}
	r->following = false;
	r->pos = index - 1;
	r->end_told = false;
	if (rc == 0 && (rc = app_tick(app, err, errlen)) >= 0)
		rc = app_tick(app, err, errlen);
	return rc < 0 ? -1 : 0;
}

int playback_step(struct app_ctx *app, int n, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (n == 0)
		return 0;
	if (n < 0 || r->served < 0)
		return playback_seek(app, (r->served < 0 ? 0 : r->served) + n, err, errlen);
	for (int i = 0; i < n; i++) {
		if (r->pos >= r->f.nticks) {
			snprintf(err, errlen, "end of the recording");
			return -1;
		}
		if (playback_tick(app, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static int first_tick_at(const struct replay *r, double t)
{
	for (int i = 0; i < r->f.nticks; i++)
		if (r->f.ticks[i].t >= t - 1e-9)
			return i;
	return r->f.nticks - 1;
}

int playback_seek_arg(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	struct replay *r = R(app);
	const char *a = argv[1];
	double now = r->served >= 0 ? r->f.ticks[r->served].t : 0;
	if (strcmp(a, "start") == 0)
		return playback_seek(app, 0, err, errlen);
	if (strcmp(a, "end") == 0)
		return playback_seek(app, r->f.nticks - 1, err, errlen);
	if (strcmp(a, "mark") == 0) {
		/* the next mark (containing TEXT) after the tick shown, else the first one */
		char want[REC_TEXT_MAX] = "";
		for (int i = 2; i < argc; i++) {
			size_t u = strlen(want);
			snprintf(want + u, sizeof(want) - u, "%s%s", i > 2 ? " " : "", argv[i]);
		}
		int found = -1;
		for (int pass = 0; pass < 2 && found < 0; pass++)
			for (int i = 0; i < r->f.nmarks && found < 0; i++)
				if ((pass || r->f.marks[i].t > now + 1e-9) &&
				    (!want[0] || strstr(r->f.marks[i].text, want)))
					found = i;
		if (found < 0) {
			char w[REC_TEXT_MAX * 4];
			rec_escape(want, w, sizeof(w));
			snprintf(err, errlen,
				 r->f.nmarks ? "no mark contains \"%s\""
					     : "the recording has no marks%.0s",
				 w);
			return -1;
		}
		char t[REC_TEXT_MAX * 4];
		rec_escape(r->f.marks[found].text, t, sizeof(t));
		app_log(app, MSG_INFO, "mark at %.1f s: %s", r->f.marks[found].t, t);
		return playback_seek(app, first_tick_at(r, r->f.marks[found].t), err, errlen);
	}
	char *end;
	double v = strtod(a, &end);
	if (end == a || *end || !isfinite(v)) {
		snprintf(err, errlen,
			 "jump: \"%s\" is not a time in seconds, +S, -S, start, end or mark", a);
		return -1;
	}
	double t = (a[0] == '+' || a[0] == '-') ? now + v : v;
	return playback_seek(app, first_tick_at(r, t), err, errlen);
}

void playback_banner(const struct app_ctx *app, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", app->opt.remote ? "REMOTE" : "REPLAY", R(app)->source);
}

void playback_status(const struct app_ctx *app, char *buf, size_t len)
{
	const struct replay *r = R(app);
	double now = r->served >= 0 ? r->f.ticks[r->served].t : 0;
	double last = r->f.nticks ? r->f.ticks[r->f.nticks - 1].t : 0;
	if (r->live)
		snprintf(buf, len, "tick %d  t %.1f s", r->dropped + r->served + 1, now);
	else
		snprintf(buf, len, "tick %d/%d  t %.1f of %.1f s  x%g%s  %d mark%s (:jump mark)",
			 r->served + 1, r->f.nticks, now, last, app->speed,
			 r->pos >= r->f.nticks ? "  END" : "", r->f.nmarks,
			 r->f.nmarks == 1 ? "" : "s");
}

void playback_free(struct app_ctx *app)
{
	struct replay *r = R(app);
	if (!r)
		return;
	replay_free(r);
	free(r);
	app->replay = NULL;
}

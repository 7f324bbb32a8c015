/* replay.c: the replay backend (recorded ticks as counter reads) and the app's replay driver. */
#include "replay.h"
#include "app.h"
#include "cpuset.h"
#include "family.h"
#include "mode.h"
#include "perfstat.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_KEEP 4096 /* live streams keep at least this many ticks (step back, seek) */

/* ---- the source ---------------------------------------------------------------------------- */

static int grow(void **arr, int n, int *cap, size_t size)
{
	if (n < *cap)
		return 0;
	int nc = *cap > n ? *cap : (n ? n * 2 : 64);
	void *a = realloc(*arr, (size_t)nc * size);
	if (!a)
		return -1;
	*arr = a;
	*cap = nc;
	return 0;
}

int replay_append_tick(struct replay *r, struct rec_tick *t)
{
	if (grow((void **)&r->f.ticks, r->f.nticks, &r->cap_ticks, sizeof(*t)) < 0)
		return -1;
	r->f.ticks[r->f.nticks++] = *t;
	memset(t, 0, sizeof(*t));
	/* a long live session: keep memory bounded, forget the oldest half (not what is shown) */
	if (r->live && r->f.nticks > 2 * LIVE_KEEP && r->served > LIVE_KEEP) {
		int drop = r->f.nticks - LIVE_KEEP;
		if (drop > r->served - 1)
			drop = r->served - 1;
		for (int i = 0; i < drop; i++)
			rec_tick_free(&r->f.ticks[i]);
		memmove(r->f.ticks, r->f.ticks + drop, (size_t)(r->f.nticks - drop) * sizeof(*t));
		r->f.nticks -= drop;
		r->pos -= drop;
		r->served -= drop;
		r->dropped += drop;
	}
	return 0;
}

int replay_append_mode(struct replay *r, struct rec_mode *m)
{
	if (grow((void **)&r->f.modes, r->f.nmodes, &r->cap_modes, sizeof(*m)) < 0)
		return -1;
	r->f.modes[r->f.nmodes++] = *m;
	memset(m, 0, sizeof(*m));
	return 0;
}

int replay_append_mark(struct replay *r, const struct rec_mark *m)
{
	if (grow((void **)&r->f.marks, r->f.nmarks, &r->cap_marks, sizeof(*m)) < 0)
		return -1;
	r->f.marks[r->f.nmarks++] = *m;
	return 0;
}

static void base_init(struct replay *r)
{
	memset(r, 0, sizeof(*r));
	r->served = -1;
	r->speed = 1;
}

void replay_init_live(struct replay *r, const char *name)
{
	base_init(r);
	r->live = true;
	rec_escape(name, r->source, sizeof(r->source));
	snprintf(r->origin, sizeof(r->origin), "%s", name);
}

int replay_load(struct replay *r, const char *path, char *err, size_t errlen)
{
	base_init(r);
	enum perfstat_format fmt = perfstat_detect(path);
	int rc = fmt == PERFSTAT_CSV || fmt == PERFSTAT_JSON
			 ? perfstat_load(path, fmt, &r->f, err, errlen)
			 : rec_load(path, &r->f, err, errlen);
	if (rc < 0)
		return -1;
	r->cap_ticks = r->f.nticks;
	r->cap_modes = r->f.nmodes;
	r->cap_marks = r->f.nmarks;
	rec_escape(path, r->source, sizeof(r->source));
	snprintf(r->origin, sizeof(r->origin), "%s", path);
	if (r->f.nticks == 0 || r->f.nmodes == 0) {
		snprintf(err, errlen, "%s: no ticks to replay", r->source);
		replay_free(r);
		return -1;
	}
	if (r->f.header.source[0]) {
		/* imported per-interval values count from zero: a zero read before the first
		 * interval makes it the first shown tick */
		struct rec_tick z;
		const struct rec_tick *t0 = &r->f.ticks[0];
		if (rec_tick_copy(&z, t0) < 0 || grow((void **)&r->f.ticks, r->f.nticks, &r->cap_ticks, sizeof(z)) < 0) {
			snprintf(err, errlen, "out of memory");
			replay_free(r);
			return -1;
		}
		for (int c = 0; c < z.ncpus; c++)
			for (int e = 0; e < z.nevents; e++)
				z.cpus[c].c[e].raw = (struct raw_count){0};
		z.t = 0;
		memmove(r->f.ticks + 1, r->f.ticks, (size_t)r->f.nticks * sizeof(z));
		r->f.ticks[0] = z;
		r->f.nticks++;
	}
	return 0;
}

void replay_free(struct replay *r)
{
	rec_file_free(&r->f);
	r->cap_ticks = r->cap_modes = r->cap_marks = 0;
}

bool replay_has_event(const struct replay *r, const char *name)
{
	for (int m = 0; m < r->f.nmodes; m++)
		for (int e = 0; e < r->f.modes[m].nevents; e++)
			if (strcmp(r->f.modes[m].events[e].name, name) == 0)
				return true;
	return false;
}

/* ---- the backend --------------------------------------------------------------------------- */

static struct replay *bound;

void replay_bind(struct replay *r) { bound = r; }

struct replay_priv {
	int nrows, nevents;
	int *cpus;
	struct backend_event *ev;
};

/* Column of requested event @e in recorded mode @m: by name, else by spec (recorded names). */
static int column(const struct rec_mode *m, const struct backend_event *e)
{
	for (int k = 0; k < m->nevents; k++)
		if (strcmp(m->events[k].name, e->name) == 0)
			return k;
	for (int k = 0; k < m->nevents; k++)
		if (strcmp(m->events[k].name, e->spec) == 0)
			return k;
	return -1;
}

static bool recorded(const struct replay *r, const struct backend_event *e)
{
	for (int m = 0; m < r->f.nmodes; m++)
		if (column(&r->f.modes[m], e) >= 0)
			return true;
	return false;
}

static int replay_open(struct backend *b, const struct backend_req *req, char *err, size_t errlen)
{
	if (!bound) {
		snprintf(err, errlen, "the replay backend needs a recording (-R FILE)");
		return -1;
	}
	struct replay_priv *p = calloc(1, sizeof(*p));
	size_t cells = (size_t)req->ncpus * (size_t)req->nevents + 1;
	b->priv = p;
	b->status = calloc(cells, sizeof(*b->status));
	if (!p || !b->status || !(p->cpus = calloc((size_t)req->ncpus + 1, sizeof(int))) ||
	    !(p->ev = calloc((size_t)req->nevents + 1, sizeof(*p->ev)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->nrows = req->ncpus;
	p->nevents = req->nevents;
	memcpy(p->cpus, req->cpus, (size_t)req->ncpus * sizeof(int));
	memcpy(p->ev, req->events, (size_t)req->nevents * sizeof(*p->ev));
	b->nrows = req->ncpus;
	b->nevents = req->nevents;
	b->counter_bits = bound->f.header.counter_bits ? bound->f.header.counter_bits : 64;
	b->simulated = bound->f.header.simulated;
	snprintf(b->description, sizeof(b->description), "REPLAY %.100s", bound->source);
	int usable = 0;
	for (int e = 0; e < req->nevents; e++) {
		bool ok = recorded(bound, &req->events[e]);
		usable += ok;
		for (int r = 0; r < req->ncpus; r++) {
			struct backend_status *st = &b->status[r * req->nevents + e];
			st->supported = ok;
			snprintf(st->encoding, sizeof(st->encoding), "recorded");
			if (!ok)
				snprintf(st->reason, sizeof(st->reason), "not in the recording");
		}
	}
	if (!usable) {
		snprintf(err, errlen, "none of the events is in the recording");
		return -1;
	}
	return 0;
}

static int replay_read(struct backend *b, struct raw_count *out, bool *present, bool *offline,
		       uint64_t *t_ns, char *err, size_t errlen)
{
	struct replay_priv *p = b->priv;
	struct replay *r = bound;
	if (!r || r->pos >= r->f.nticks) {
		snprintf(err, errlen, "end of the recording");
		return -1;
	}
	const struct rec_tick *t = &r->f.ticks[r->pos];
	const struct rec_mode *m = &r->f.modes[t->mode];
	int col[p->nevents + 1];
	for (int e = 0; e < p->nevents; e++)
		col[e] = t->nevents == m->nevents ? column(m, &p->ev[e]) : -1;
	for (int row = 0; row < p->nrows; row++) {
		const struct rec_cpu *c = NULL;
		for (int k = 0; k < t->ncpus && !c; k++)
			if (t->cpus[k].cpu == p->cpus[row])
				c = &t->cpus[k];
		offline[row] = c && c->offline;
		for (int e = 0; e < p->nevents; e++) {
			size_t i = (size_t)row * (size_t)p->nevents + (size_t)e;
			const struct rec_counter *k = c && col[e] >= 0 ? &c->c[col[e]] : NULL;
			present[i] = k && k->present && !offline[row];
			out[i] = present[i] ? k->raw : (struct raw_count){0};
		}
	}
	double ns = t->t * 1e9;
	*t_ns = isfinite(ns) && ns > 0 ? (uint64_t)llround(ns) : 0;
	r->served = r->pos++;
	return 0;
}

/* The recorded triples already show which set counted; the session's rotation only needs to
 * advance as it did live. */
static void replay_select_set(struct backend *b, int set)
{
	(void)b, (void)set;
}

static void replay_close(struct backend *b)
{
	struct replay_priv *p = b->priv;
	if (!p)
		return;
	free(p->cpus);
	free(p->ev);
	free(p);
	b->priv = NULL;
}

const struct backend_ops backend_replay_ops = {
	.name = "replay",
	.open = replay_open,
	.read = replay_read,
	.select_set = replay_select_set,
	.close = replay_close,
};

/* ---- the app driver ------------------------------------------------------------------------ */

#define R(app) ((struct replay *)(app)->replay)

/* Runs recorded mode @k as a mode of its own: its events, no metrics. */
static int run_recorded(struct app_ctx *app, int k, char *err, size_t errlen)
{
	const struct rec_mode *rm = &R(app)->f.modes[k];
	struct session_mode sm;
	memset(&sm, 0, sizeof(sm));
	rec_escape(rm->name, sm.name, sizeof(sm.name));
	snprintf(sm.title, sizeof(sm.title), "recorded events");
	for (int e = 0; e < rm->nevents && e < SESSION_MAX_EVENTS; e++) {
		rec_escape(rm->events[e].name, sm.events[e].name, sizeof(sm.events[e].name));
		snprintf(sm.events[e].spec, sizeof(sm.events[e].spec), "%s", rm->events[e].name);
		sm.nevents++;
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
		if (ev->optional || recorded(R(app), &be))
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

/* app->intercept: mode and interval changes go through the recording (or to the agent). */
static int intercept(struct app_ctx *app, const char *what, const char *arg, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (r->live && !r->following && r->send && app->mode.nevents) {
		char line[512];
		snprintf(line, sizeof(line), "%s %s", what, arg);
		if (r->send(app, line, err, errlen) < 0)
			return -1;
		if (strcmp(what, "mode") == 0) {
			app_log(app, MSG_INFO, "asked the agent for mode %s", arg);
			return 0; /* the mode line in the stream switches the display */
		}
		return 1;
	}
	if (strcmp(what, "interval") == 0) {
		snprintf(err, errlen, "a replay keeps the recorded interval (%ld ms); :rate changes the pace",
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
static void on_mode(struct app_ctx *app, void *arg)
{
	(void)arg;
	struct replay *r = R(app);
	if (r->following || r->served < 0 || r->pos >= r->f.nticks)
		return;
	if (r->f.ticks[r->served].mode == r->f.ticks[r->pos].mode)
		r->pos = r->served;
}

int replay_app_open(struct app_ctx *app, char *err, size_t errlen)
{
	if (!app->replay) {
		struct replay *r = calloc(1, sizeof(*r));
		if (!r) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
		if (replay_load(r, app->opt.replay, err, errlen) < 0) {
			free(r);
			return 2;
		}
		app->replay = r;
		for (int i = 0; i < r->f.nwarnings; i++)
			app_log(app, MSG_WARN, "%s", r->f.warnings[i]);
	}
	struct replay *r = R(app);
	const struct rec_header *h = &r->f.header;
	r->speed = app->opt.speed > 0 ? app->opt.speed : 1;
	r->applied_mode = r->f.nticks ? r->f.ticks[0].mode : 0;
	app->family = family_find(h->family);
	if (!app->family)
		app->family = family_find("generic");
	app->opt.backend = "replay";
	if (h->interval_ms >= 10 && h->interval_ms <= 3600000)
		app->interval_ms = h->interval_ms;
	rec_escape(h->host[0] ? h->host : "?", app->pf.hostname, sizeof(app->pf.hostname));
	rec_escape(h->kernel[0] ? h->kernel : "?", app->pf.kernel, sizeof(app->pf.kernel));
	app->intercept = intercept;
	app_add_hook(app, &(struct app_hook){.name = "replay", .on_mode = on_mode});
	replay_bind(r);
	return 0;
}

void replay_app_cpus(const struct app_ctx *app, struct cpuset *out)
{
	const struct replay *r = R(app);
	cpuset_clear(out);
	for (int i = 0; i < r->f.header.ncpus; i++)
		cpuset_add(out, r->f.header.cpus[i].cpu);
}

const char *replay_app_default_mode(struct app_ctx *app)
{
	struct replay *r = R(app);
	return r->f.nmodes ? r->f.modes[r->applied_mode].name : "sw";
}

int replay_app_pending(const struct app_ctx *app)
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
	if (app_set_mode(app, r->f.modes[k].name, err, sizeof(err)) < 0 &&
	    run_recorded(app, k, err, sizeof(err)) < 0)
		app_log(app, MSG_ERROR, "recorded mode %s: %s", name, err);
	else if (!r->live || r->f.nmodes > 1)
		app_log(app, MSG_INFO, "%s switched to mode %s", r->live ? "the agent" : "the recording", name);
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
		}
}

int replay_app_tick(struct app_ctx *app, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (r->poll)
		r->poll(app);
	if (r->pos >= r->f.nticks) {
		if (!r->live && !r->end_told) {
			r->end_told = true;
			app_log(app, MSG_INFO, "end of the recording (%d ticks); :jump start replays it",
				r->f.nticks);
			if (!app->opt.batch)
				app->paused = true;
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

int replay_app_seek(struct app_ctx *app, int index, char *err, size_t errlen)
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

int replay_app_step(struct app_ctx *app, int n, char *err, size_t errlen)
{
	struct replay *r = R(app);
	if (n == 0)
		return 0;
	if (n < 0 || r->served < 0)
		return replay_app_seek(app, (r->served < 0 ? 0 : r->served) + n, err, errlen);
	for (int i = 0; i < n; i++) {
		if (r->pos >= r->f.nticks) {
			snprintf(err, errlen, "end of the recording");
			return -1;
		}
		if (replay_app_tick(app, err, errlen) < 0)
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

int replay_app_seek_arg(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen)
{
	struct replay *r = R(app);
	const char *a = argv[1];
	double now = r->served >= 0 ? r->f.ticks[r->served].t : 0;
	if (strcmp(a, "start") == 0)
		return replay_app_seek(app, 0, err, errlen);
	if (strcmp(a, "end") == 0)
		return replay_app_seek(app, r->f.nticks - 1, err, errlen);
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
			snprintf(err, errlen, r->f.nmarks ? "no mark contains \"%s\"" : "the recording has no marks%.0s", w);
			return -1;
		}
		char t[REC_TEXT_MAX * 4];
		rec_escape(r->f.marks[found].text, t, sizeof(t));
		app_log(app, MSG_INFO, "mark at %.1f s: %s", r->f.marks[found].t, t);
		return replay_app_seek(app, first_tick_at(r, r->f.marks[found].t), err, errlen);
	}
	char *end;
	double v = strtod(a, &end);
	if (end == a || *end || !isfinite(v)) {
		snprintf(err, errlen, "jump: \"%s\" is not a time in seconds, +S, -S, start, end or mark", a);
		return -1;
	}
	double t = (a[0] == '+' || a[0] == '-') ? now + v : v;
	return replay_app_seek(app, first_tick_at(r, t), err, errlen);
}

int replay_app_speed(struct app_ctx *app, const char *arg, char *err, size_t errlen)
{
	struct replay *r = R(app);
	static const double steps[] = {0.5, 1, 2, 4, 8, 16};
	double v = r->speed;
	if (strcmp(arg, "+") == 0 || strcmp(arg, "-") == 0) {
		for (int i = 0; i < 6; i++)
			if (arg[0] == '+' ? steps[i] > v + 1e-9 : steps[5 - i] < v - 1e-9) {
				v = arg[0] == '+' ? steps[i] : steps[5 - i];
				break;
			}
	} else {
		char *end;
		v = strtod(arg[0] == 'x' ? arg + 1 : arg, &end);
		if (end == arg || *end || !(v >= 0.5 && v <= 16)) {
			snprintf(err, errlen, "rate: \"%s\" is not from 0.5 to 16", arg);
			return -1;
		}
	}
	r->speed = v;
	if (app->loop_ready)
		loop_set_period(&app->loop, (uint64_t)((double)app->interval_ms * 1e6 / v));
	app_log(app, MSG_INFO, "replay speed x%g", v);
	return 0;
}

void replay_app_banner(const struct app_ctx *app, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", R(app)->live ? "REMOTE" : "REPLAY", R(app)->source);
}

void replay_app_status(const struct app_ctx *app, char *buf, size_t len)
{
	const struct replay *r = R(app);
	double now = r->served >= 0 ? r->f.ticks[r->served].t : 0;
	double last = r->f.nticks ? r->f.ticks[r->f.nticks - 1].t : 0;
	if (r->live)
		snprintf(buf, len, "tick %d  t %.1f s", r->dropped + r->served + 1, now);
	else
		snprintf(buf, len, "tick %d/%d  t %.1f of %.1f s  x%g%s  %d mark%s (:jump mark)",
			 r->served + 1, r->f.nticks, now, last, r->speed,
			 r->pos >= r->f.nticks ? "  END" : "", r->f.nmarks, r->f.nmarks == 1 ? "" : "s");
}

void replay_app_free(struct app_ctx *app)
{
	struct replay *r = R(app);
	if (!r)
		return;
	if (bound == r)
		bound = NULL;
	replay_free(r);
	free(r);
	app->replay = NULL;
}

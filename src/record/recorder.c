/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder.c: an app hook that writes every tick's raw cumulative triples to a recording. */
#include "recorder.h"
#include "cpuset.h"
#include "frame.h"
#include "observer.h"
#include "recfile.h"
#include "replay.h"
#include "rows.h"
#include "run_options.h"
#include "safefile.h"
#include "session.h"
#include "textutil.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOOK_NAME "recorder"

struct recorder {
	struct rec_writer *w;
	char path[1024];
	bool need_prev; /* the next tick also writes the read before it (new mode) */
	bool have_base;
	uint64_t base_ns; /* backend time of t = 0 */
	double last_t;	  /* s, last tick written */
	double offset;	  /* s added after a session restart (CPU set change) */
	uint64_t last_ns;
	bool failed;
	struct cpuset cpus; /* the CPUs the recording's header or last cpus record names */
	/* a task or cgroup run: the row numbers given out, each a (key, CPU) (a cgroup counted on
	 * more or fewer CPUs keeps its rows' numbers), and the live rows' numbers */
	struct row_id {
		char key[48];
		int cpu;
	} * ids;
	int nids;
	int *row_id; /* [nrow_id] */
	int nrow_id;
};

static void recorder_free(struct recorder *r)
{
	free(r->ids);
	free(r->row_id);
	free(r);
}

/* Numbers the live rows of a task or cgroup run: a (key, CPU) seen before (the nth of its kind)
 * keeps its number, a new one gets the next; the first numbering is the rows' order, as the
 * header has them. Returns 1 when the rows' numbers changed, 0 not, -1 out of memory. */
static int number_rows(struct recorder *r, const struct run_facts *rf)
{
	int n = rf->ncpus, *ids = malloc(sizeof(int) * (size_t)(n + 1));
	struct row_id *grown = realloc(r->ids, sizeof(*grown) * (size_t)(r->nids + n + 1));
	if (!ids || !grown) {
		free(ids);
		return -1;
	}
	r->ids = grown;
	bool first = r->nids == 0;
	for (int i = 0; i < n; i++) {
		const char *key = rf->keys[rf->row_key[i]].label;
		int id = -1;
		if (!first) {
			int nth = 0, seen = 0;
			for (int j = 0; j < i; j++)
				nth +=
				    rf->row_key[j] == rf->row_key[i] && rf->cpus[j] == rf->cpus[i];
			for (int k = 0; k < r->nids && id < 0; k++)
				if (r->ids[k].cpu == rf->cpus[i] &&
				    strcmp(r->ids[k].key, key) == 0 && seen++ == nth)
					id = k;
		}
		if (id < 0) {
			id = r->nids++;
			snprintf(r->ids[id].key, sizeof(r->ids[id].key), "%s", key);
			r->ids[id].cpu = rf->cpus[i];
		}
		ids[i] = id;
	}
	bool changed = n != r->nrow_id || (n && memcmp(ids, r->row_id, sizeof(int) * (size_t)n));
	free(r->row_id);
	r->row_id = ids;
	r->nrow_id = n;
	return changed;
}

#define REC(app) ((struct recorder *)app_observer_state((app), HOOK_NAME))

/* The run as the engine has it now (observer.h). */
static struct run_facts facts(const struct app_ctx *app)
{
	struct run_facts f;
	app_facts(app, &f);
	return f;
}

static void fail(struct app_ctx *app, const char *msg)
{
	struct recorder *r = REC(app);
	if (r->failed)
		return;
	r->failed = true;
	app_log(app, MSG_ERROR, "%s", msg);
	safe_output_failed(SAFE_OUT_RECORD, msg);
	/* the agent exists to feed its stdout: when the reader is gone, so is its purpose */
	if (strcmp(r->path, "-") == 0 && facts(app).opt->batch)
		app_quit(app);
}

/* A CPU's place as the header keeps it (none when @c is NULL or not known). */
static void rec_cpu_topology(struct rec_cpu_info *ci, const struct topo_cpu *c)
{
	ci->has_topology = c && c->known;
	if (!ci->has_topology)
		return;
	ci->socket = c->socket, ci->die = c->die, ci->cluster = c->cluster;
	ci->core = c->core, ci->cache_level = c->cache_level, ci->cache = c->cache;
}

void recorder_fill_header(struct app_ctx *app, struct rec_header *hp, struct rec_cpu_info *cpus)
{
	const struct run_facts rf = facts(app);
	const struct backend *b = session_backend(rf.session);
	struct rec_header h = {.version = REC_FORMAT_VERSION};
	snprintf(h.pmutop, sizeof(h.pmutop), "%s", PMUTOP_VERSION);
	/* the machine the numbers come from: this one, or the recorded one when re-recording */
	const struct source_machine *m = rf.machine;
	snprintf(h.host, sizeof(h.host), "%s", m->host);
	snprintf(h.kernel, sizeof(h.kernel), "%s", m->kernel);
	snprintf(h.pmu, sizeof(h.pmu), "%s", m->pmu);
	snprintf(h.family, sizeof(h.family), "%s", rf.family_key[0] ? rf.family_key : m->family);
	snprintf(h.model, sizeof(h.model), "%s", m->model);
	snprintf(h.backend, sizeof(h.backend), "%s", rf.source_name);
	h.simulated = b->simulated;
	h.interval_ms = (unsigned)rf.interval_ms;
	h.counter_bits = b->counter_bits;
	h.slots = m->slots;
	h.start_time = (int64_t)time(NULL);
	h.ncpus = rf.ncpus;
	h.aggregated_cpus = m->aggregated_cpus;
	const struct topology *topo = app_rows_topology(app);
	for (int i = 0; i < rf.ncpus; i++) {
		memset(&cpus[i], 0, sizeof(cpus[i]));
		if (rf.row_key) { /* a task or cgroup run: rows by number, each with its key */
			cpus[i].cpu = i;
			snprintf(cpus[i].key, sizeof(cpus[i].key), "%s",
				 rf.keys[rf.row_key[i]].label);
			cpus[i].key_cpus = rf.keys[rf.row_key[i]].ncpus;
			continue;
		}
		cpus[i].cpu = rf.cpus[i];
		snprintf(cpus[i].core_type, sizeof(cpus[i].core_type), "%s",
			 app_core_type(app, rf.cpus[i]));
		rec_cpu_topology(&cpus[i], topology_cpu(topo, rf.cpus[i]));
	}
	if (rf.rows_unit != ROWS_CPU)
		snprintf(h.rows, sizeof(h.rows), "%s", rows_unit_name((enum row_unit)rf.rows_unit));
	h.cpus = cpus;
	*hp = h;
}

static int write_header(struct app_ctx *app, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	struct rec_header h;
	int ncpus = facts(app).ncpus;
	struct rec_cpu_info cpus[ncpus > 0 ? ncpus : 1];
	recorder_fill_header(app, &h, cpus);
	return rec_writer_write_header(r->w, &h, err, errlen);
}

/* "cpu/0x3c/ (type 4 config 0x3c)" style encodings are what backends report; the recording
 * keeps the event and its spec, and the encoding where the perf backend gave numbers. */
static int write_mode(struct app_ctx *app, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	const struct run_facts rf = facts(app);
	const struct session_mode *sm = rf.mode;
	struct rec_event ev[SESSION_MAX_EVENTS];
	memset(ev, 0, sizeof(ev));
	for (int e = 0; e < sm->nevents; e++) {
		snprintf(ev[e].name, sizeof(ev[e].name), "%s", sm->events[e].name);
		snprintf(ev[e].spec, sizeof(ev[e].spec), "%s", sm->events[e].spec);
		const struct backend *b = session_backend(rf.session);
		if (b->status && b->nevents == sm->nevents)
			ev[e].quantum_ns = b->status[e].quantum_ns;
		if (b->status && b->nevents == sm->nevents && (rf.caps & SOURCE_CAP_THIS_MACHINE)) {
			/* "type=4 config=0x1b7 config1=0x10001 exclude=guest" (encode_format) */
			const char *enc = b->status[e].encoding;
			unsigned long long type, c0, c1;
			char ex[64] = "";
			if (sscanf(enc, "type=%llu config=%llx config1=%llx exclude=%63s", &type,
				   &c0, &c1, ex) >= 3) {
				static const char *const bits[] = {"user", "kernel", "hv",
								   "idle", "host",   "guest"};
				ev[e].has_encoding = true;
				ev[e].type = (uint32_t)type;
				ev[e].config = c0;
				ev[e].config1 = c1;
				for (int k = 0; k < 6; k++)
					if (strstr(ex, bits[k]))
						ev[e].exclude |= 1u << k;
			}
		}
	}
	/* the run's formulas, so that a replay without this mode's definition computes them */
	struct rec_metric *mets = calloc(SESSION_MAX_METRICS, sizeof(*mets));
	int nm = 0;
	for (int i = 0; mets && i < sm->nmetrics && i < SESSION_MAX_METRICS; i++) {
		if (!sm->metrics[i].formula[0])
			continue;
		snprintf(mets[nm].name, sizeof(mets[nm].name), "%s", sm->metrics[i].name);
		snprintf(mets[nm].unit, sizeof(mets[nm].unit), "%s", sm->metrics[i].unit);
		snprintf(mets[nm].formula, sizeof(mets[nm].formula), "%s", sm->metrics[i].formula);
		nm++;
	}
	struct rec_mode m = {.t = r->have_base ? r->last_t : 0,
			     .nevents = sm->nevents,
			     .events = ev,
			     .nmetrics = nm,
			     .metrics = mets};
	snprintf(m.name, sizeof(m.name), "%s", sm->name);
	int rc = rec_writer_write_mode(r->w, &m, err, errlen);
	free(mets);
	return rc;
}

static double tick_time(struct recorder *r, uint64_t t_ns)
{
	if (!r->have_base) {
		r->have_base = true;
		r->base_ns = t_ns;
	}
	if (t_ns < r->last_ns || t_ns < r->base_ns) {
		/* a new session restarted the backend clock: continue after the last tick */
		r->offset = r->last_t;
		r->base_ns = t_ns;
	}
	r->last_ns = t_ns;
	double t = r->offset + (double)(t_ns - r->base_ns) / 1e9;
	r->last_t = t;
	return t;
}

static int write_tick(struct app_ctx *app, const struct session_raw *raw, bool prev,
		      double interval_ms, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	struct rec_tick t;
	if (rec_tick_alloc(&t, raw->nrows, raw->nevents) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t.t = tick_time(r, prev ? raw->prev_t : raw->cur_t);
	t.interval_ms = interval_ms;
	const struct raw_count *v = prev ? raw->prev : raw->cur;
	const bool *present = prev ? raw->prev_present : raw->cur_present;
	bool keyed = facts(app).row_key != NULL; /* rows by number, as the header has them */
	/* the sampling ring's kernel counts through this tick (not known for the read before) */
	const struct backend *b = session_backend(facts(app).session);
	const uint64_t *ring[RING_NCOUNTS];
	bool has_ring = !prev && b->nrows == raw->nrows;
	for (int k = 0; k < RING_NCOUNTS; k++)
		has_ring = has_ring && (ring[k] = backend_ring_count(b, k)) != NULL;
	for (int row = 0; row < raw->nrows; row++) {
		struct rec_cpu *c = &t.cpus[row];
		c->cpu = !keyed ? raw->cpus[row] : row < r->nrow_id ? r->row_id[row] : row;
		c->offline = !prev && raw->offline[row];
		c->has_ring = has_ring;
		for (int k = 0; has_ring && k < RING_NCOUNTS; k++)
			c->ring[k] = ring[k][row];
		for (int e = 0; e < raw->nevents; e++) {
			size_t i = (size_t)row * (size_t)raw->nevents + (size_t)e;
			c->c[e].present = !c->offline && present[i];
			c->c[e].raw = v[i];
		}
	}
	int rc = rec_writer_write_tick(r->w, &t, err, errlen);
	rec_tick_free(&t);
	return rc;
}

static void on_snapshot(struct app_ctx *app, const struct snapshot *snap, void *arg)
{
	(void)arg;
	struct recorder *r = REC(app);
	if (!r || r->failed)
		return;
	struct session_raw raw;
	session_raw(facts(app).session, &raw);
	char err[512];
	int rc = 0;
	if (r->need_prev) {
		rc = write_tick(app, &raw, true, (double)facts(app).interval_ms, err, sizeof(err));
		r->need_prev = false;
	}
	if (rc == 0)
		rc = write_tick(app, &raw, false, snap->interval_s * 1000.0, err, sizeof(err));
	if (rc < 0)
		fail(app, err);
}

/* The CPU set changed (a CPU came online, :cpus): a cpus record before the mode that reopens. */
static int write_cpus_if_changed(struct app_ctx *app, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	const struct run_facts rf = facts(app);
	if (rf.row_key) { /* a task or cgroup run: its rows by number, each with its key */
		int changed = number_rows(r, &rf);
		if (changed <= 0) {
			if (changed < 0)
				snprintf(err, errlen, "recording: out of memory");
			return changed;
		}
		struct rec_cpu_info rows[rf.ncpus > 0 ? rf.ncpus : 1];
		memset(rows, 0, sizeof(rows));
		for (int i = 0; i < rf.ncpus; i++) {
			rows[i].cpu = r->row_id[i];
			snprintf(rows[i].key, sizeof(rows[i].key), "%s",
				 rf.keys[rf.row_key[i]].label);
		}
		struct rec_cpus c = {
		    .t = r->have_base ? r->last_t : 0, .ncpus = rf.ncpus, .cpus = rows};
		return rec_writer_write_cpus(r->w, &c, err, errlen);
	}
	struct cpuset now;
	cpuset_clear(&now);
	for (int i = 0; i < rf.ncpus; i++)
		cpuset_add(&now, rf.cpus[i]);
	if (cpuset_equal(&now, &r->cpus))
		return 0;
	struct rec_cpu_info cpus[rf.ncpus > 0 ? rf.ncpus : 1];
	memset(cpus, 0, sizeof(cpus));
	const struct topology *topo = app_rows_topology(app);
	for (int i = 0; i < rf.ncpus; i++) {
		cpus[i].cpu = rf.cpus[i];
		snprintf(cpus[i].core_type, sizeof(cpus[i].core_type), "%s",
			 app_core_type(app, rf.cpus[i]));
		/* its place, as the header gives the others': rows by core, socket, ... */
		rec_cpu_topology(&cpus[i], topology_cpu(topo, rf.cpus[i]));
	}
	struct rec_cpus c = {.t = r->have_base ? r->last_t : 0, .ncpus = rf.ncpus, .cpus = cpus};
	r->cpus = now;
	return rec_writer_write_cpus(r->w, &c, err, errlen);
}

static void on_mode(struct app_ctx *app, void *arg)
{
	(void)arg;
	struct recorder *r = REC(app);
	if (!r || r->failed)
		return;
	char err[512];
	if (write_cpus_if_changed(app, err, sizeof(err)) < 0 ||
	    write_mode(app, err, sizeof(err)) < 0)
		fail(app, err);
	r->need_prev = true;
}

static void obs_tick(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	on_snapshot(app, snap, o->state);
}

static void obs_mode(struct observer *o, struct app_ctx *app) { on_mode(app, o->state); }

/* A mark the source passed (a remote link's gap, a replayed :mark): into the recording at its
 * own time (a recorded source's clock is the ticks' clock), so a replay shows it where the run
 * did. */
static void obs_mark(struct observer *o, struct app_ctx *app, double t_s, const char *text)
{
	struct recorder *r = o->state;
	if (r->failed)
		return;
	struct rec_mark m = {.t = r->last_t};
	double ns = t_s * 1e9;
	if (r->have_base && isfinite(ns) && ns >= (double)r->base_ns)
		m.t = r->offset + (ns - (double)r->base_ns) / 1e9;
	snprintf(m.text, sizeof(m.text), "%s", text);
	char err[512];
	if (rec_writer_write_mark(r->w, &m, err, sizeof(err)) < 0)
		fail(app, err);
}

/* The header's recorder state. */
static void obs_fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
			   struct frame_store *fs)
{
	(void)o, (void)fs;
	recorder_status(app, f->recorder, sizeof(f->recorder));
}

static void obs_close(struct observer *o, struct app_ctx *app)
{
	(void)o;
	char err[512];
	if (REC(app) && recorder_stop(app, err, sizeof(err)) < 0 && !facts(app).opt->batch)
		text_fprintf(stderr, "pmutop: %s\n", err);
}

int recorder_start(struct app_ctx *app, const char *path, char *err, size_t errlen)
{
	if (REC(app)) {
		char ep[256];
		rec_escape(REC(app)->path, ep, sizeof(ep));
		snprintf(err, errlen, "already recording to %s (:stop first)", ep);
		return -1;
	}
	if (!facts(app).session || !facts(app).mode->nevents) {
		snprintf(err, errlen, "nothing to record yet");
		return -1;
	}
	struct recorder *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct rec_writer_opts wo = {.max_bytes = facts(app).opt->record_max,
				     .keep = facts(app).opt->record_keep,
				     .create = facts(app).opt->force ? SAFE_CREATE_FORCE
								     : SAFE_CREATE_NAMED};
	r->w = rec_writer_open(path, &wo, err, errlen);
	if (!r->w) {
		free(r);
		return -1;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->need_prev = true;
	cpuset_clear(&r->cpus);
	const struct run_facts rf = facts(app);
	for (int i = 0; i < rf.ncpus; i++)
		cpuset_add(&r->cpus, rf.cpus[i]);
	struct observer o = {.name = HOOK_NAME,
			     .state = r,
			     .on_tick = obs_tick,
			     .on_mode = obs_mode,
			     .on_mark = obs_mark,
			     .fill_frame = obs_fill_frame,
			     .close = obs_close};
	if (!app_observe(app, &o)) {
		char e2[64];
		rec_writer_close(r->w, e2, sizeof(e2));
		free(r);
		snprintf(err, errlen, "too many observers");
		return -1;
	}
	bool numbered = !rf.row_key || number_rows(r, &rf) >= 0;
	if (!numbered)
		snprintf(err, errlen, "out of memory");
	if (!numbered || write_header(app, err, errlen) < 0 || write_mode(app, err, errlen) < 0) {
		char e2[64];
		app_unobserve(app, HOOK_NAME);
		rec_writer_close(r->w, e2, sizeof(e2));
		recorder_free(r);
		return -1;
	}
	safe_output_ok(SAFE_OUT_RECORD);
	return 0;
}

int recorder_stop(struct app_ctx *app, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	if (!r) {
		snprintf(err, errlen, "not recording");
		return -1;
	}
	app_unobserve(app, HOOK_NAME);
	bool failed = r->failed;
	int rc = rec_writer_close(r->w, err, errlen);
	recorder_free(r);
	return failed ? 0 : rc; /* a failed recording was reported when it failed */
}

int recorder_mark(struct app_ctx *app, const char *text, char *err, size_t errlen)
{
	struct recorder *r = REC(app);
	if (!r) {
		snprintf(err, errlen, "not recording (:record FILE starts)");
		return -1;
	}
	if (r->failed) {
		snprintf(err, errlen, "the recording has stopped");
		return -1;
	}
	struct rec_mark m = {.t = r->last_t};
	snprintf(m.text, sizeof(m.text), "%s", text);
	if (rec_writer_write_mark(r->w, &m, err, errlen) < 0) {
		fail(app, err);
		return -1;
	}
	return 0;
}

bool recorder_active(const struct app_ctx *app) { return REC(app) && !REC(app)->failed; }

void recorder_status(const struct app_ctx *app, char *buf, size_t len)
{
	const struct recorder *r = REC(app);
	if (!r) {
		snprintf(buf, len, "%s", "");
		return;
	}
	char ep[128];
	rec_escape(r->path, ep, sizeof(ep));
	snprintf(buf, len, "%s %s %llu ticks", r->failed ? "REC STOPPED" : "REC", ep,
		 (unsigned long long)rec_writer_ticks(r->w));
}

int recorder_parse_size(const char *text, uint64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || !(v >= 0))
		return -1;
	double mul = 1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mul = 1024.0;
		end++;
		break;
	case 'M':
		mul = 1024.0 * 1024;
		end++;
		break;
	case 'G':
		mul = 1024.0 * 1024 * 1024;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v * mul > 1e18)
		return -1;
	*out = (uint64_t)(v * mul);
	return 0;
}

char *recorder_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "GMK";
	for (int i = 0; i < 3; i++) {
		uint64_t per = 1ULL << (10 * (3 - i));
		if (bytes >= per && bytes % per == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / per), units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

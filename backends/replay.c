/* replay.c: the replay and remote sources: recorded ticks served as counter reads. */
#include "replay.h"
#include "cpuset.h"
#include "encode.h"
#include "perfstat.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_KEEP 4096 /* live streams keep at least this many ticks (step back, seek) */

/* ---- the recording: ticks, modes and marks, loaded or appended --------------------------- */

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
	if (fmt == PERFSTAT_CSV || fmt == PERFSTAT_JSON) {
		/* imported per-interval values count from zero: a zero read before the first
		 * interval makes it the first shown tick */
		struct rec_tick z;
		const struct rec_tick *t0 = &r->f.ticks[0];
		if (rec_tick_copy(&z, t0) < 0 ||
		    grow((void **)&r->f.ticks, r->f.nticks, &r->cap_ticks, sizeof(z)) < 0) {
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

/* ---- the source ---------------------------------------------------------------------------- */

struct replay_priv {
	struct replay *r;
	int nrows, nevents;
	int *cpus;
	struct backend_event *ev;
};

/* Do @a and @b encode to the same counter (type and config words; privilege filters aside)?
 * perf's "context-switches" is pmutop's perf::CONTEXT-SWITCHES. */
static bool same_encoding(const char *a, const char *b)
{
	struct encode_ctx ctx = {
	    .sysfs_root = "/", .core_pmu_type = PERF_TYPE_RAW, .filters_priv = true};
	struct event_encoding ea, eb;
	char err[256];
	if (!a[0] || !b[0] || event_encode(a, &ctx, &ea, err, sizeof(err)) < 0 ||
	    event_encode(b, &ctx, &eb, err, sizeof(err)) < 0 || ea.procfs || eb.procfs)
		return false;
	return ea.attr.type == eb.attr.type && ea.attr.config == eb.attr.config &&
	       ea.attr.config1 == eb.attr.config1 && ea.attr.config2 == eb.attr.config2;
}

/* Column of requested event @e in recorded mode @m: by name, else by spec (recorded names),
 * else by encoding (a recording made with other names for the same events). */
static int column(const struct rec_mode *m, const struct backend_event *e)
{
	for (int k = 0; k < m->nevents; k++)
		if (strcmp(m->events[k].name, e->name) == 0)
			return k;
	for (int k = 0; k < m->nevents; k++)
		if (strcmp(m->events[k].name, e->spec) == 0)
			return k;
	for (int k = 0; k < m->nevents; k++)
		if (same_encoding(m->events[k].spec[0] ? m->events[k].spec : m->events[k].name,
				  e->spec))
			return k;
	return -1;
}

bool replay_recorded(const struct replay *r, const struct backend_event *e)
{
	for (int m = 0; m < r->f.nmodes; m++)
		if (column(&r->f.modes[m], e) >= 0)
			return true;
	return false;
}

static int replay_open(struct backend *b, const struct backend_req *req, char *err, size_t errlen)
{
	struct replay *bound = req->inst;
	if (!bound) {
		snprintf(err, errlen, "the replay source needs a recording (-R FILE)");
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
	p->r = bound;
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
		bool ok = replay_recorded(bound, &req->events[e]);
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

static int replay_read(struct backend *b, uint64_t nominal_ns, struct raw_count *out, bool *present,
		       bool *offline, uint64_t *t_ns, char *err, size_t errlen)
{
	(void)nominal_ns; /* replay time is the recorded time */
	struct replay_priv *p = b->priv;
	struct replay *r = p->r;
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
static void replay_select_set(struct backend *b, int set) { (void)b, (void)set; }

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

/* The recorded machine, from the recording's header. */
static void replay_describe(const void *inst, struct source_machine *out)
{
	const struct replay *r = inst;
	const struct rec_header *h = &r->f.header;
	memset(out, 0, sizeof(*out));
	rec_escape(h->host, out->host, sizeof(out->host));
	rec_escape(h->kernel, out->kernel, sizeof(out->kernel));
	rec_escape(h->pmu, out->pmu, sizeof(out->pmu));
	rec_escape(h->family, out->family, sizeof(out->family));
	rec_escape(h->model, out->model, sizeof(out->model));
	if (strcmp(h->source, "flight") == 0)
		snprintf(out->capability, sizeof(out->capability), "flight recording");
	else if (h->source[0])
		snprintf(out->capability, sizeof(out->capability), "imported from %.150s",
			 h->source);
	out->counter_bits = h->counter_bits ? h->counter_bits : 64;
	out->ncpus = h->ncpus;
}

static void replay_cpus(const void *inst, struct cpuset *out)
{
	const struct replay *r = inst;
	cpuset_clear(out);
	for (int i = 0; i < r->f.header.ncpus; i++)
		cpuset_add(out, r->f.header.cpus[i].cpu);
}

const struct source_ops source_replay_ops = {
    .name = "replay",
    .kind = SOURCE_REPLAY,
    .caps = SOURCE_CAP_RECORDED | SOURCE_CAP_SEEK,
    .open = replay_open,
    .read = replay_read,
    .select_set = replay_select_set,
    .close = replay_close,
    .describe = replay_describe,
    .cpus = replay_cpus,
};

/* A remote agent's stream: the same reads, from a recording that grows while it runs. */
const struct source_ops source_remote_ops = {
    .name = "remote",
    .kind = SOURCE_REMOTE,
    .caps = SOURCE_CAP_RECORDED | SOURCE_CAP_FORWARD | SOURCE_CAP_STREAM,
    .open = replay_open,
    .read = replay_read,
    .select_set = replay_select_set,
    .close = replay_close,
    .describe = replay_describe,
    .cpus = replay_cpus,
};

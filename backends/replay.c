/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c: the replay and remote sources: recorded ticks served as counter reads. */
#include "replay.h"
#include "cpuset.h"
#include "encode.h"
#include "linereader.h"
#include "perfstat.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
		rec_file_drop_ticks(&r->f, drop);
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

/* Imports get a zero tick first: their per-interval values count from zero. */
static int finish_load(struct replay *r, bool imported, char *err, size_t errlen)
{
	r->cap_ticks = r->f.nticks;
	r->cap_modes = r->f.nmodes;
	r->cap_marks = r->f.nmarks;
	if (r->f.nticks == 0 || r->f.nmodes == 0) {
		int skipped = 0;
		for (int i = 0; i < r->f.nwarnings; i++)
			skipped += strstr(r->f.warnings[i], "skipped") != NULL;
		if (skipped)
			snprintf(err, errlen,
				 "%s: no ticks to replay (%d line%s skipped; first: %.300s)",
				 r->source, skipped, skipped == 1 ? "" : "s", r->f.warnings[0]);
		else
			snprintf(err, errlen, "%s: no ticks to replay", r->source);
		replay_free(r);
		return -1;
	}
	if (imported) {
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

/* Loads all of @lr: a recording, or perf stat CSV/JSON (detected from its first line). */
static int load_all(struct replay *r, struct linereader *lr, char *err, size_t errlen)
{
	enum perfstat_format fmt = perfstat_detect_lr(lr);
	bool imported = fmt != PERFSTAT_UNKNOWN && fmt != PERFSTAT_RECORDING; /* or refused */
	int rc = imported ? perfstat_load_lr(lr, fmt, &r->f, err, errlen)
			  : rec_load_lr(lr, &r->f, err, errlen);
	if (rc < 0)
		return -1;
	return finish_load(r, imported, err, errlen);
}

static void name_source(struct replay *r, const char *path)
{
	rec_escape(path, r->source, sizeof(r->source));
	snprintf(r->origin, sizeof(r->origin), "%s", path);
}

/* Loads @path: a pmutop recording, or perf stat CSV/JSON (detected). Imports get a zero tick
 * first so their first interval shows. Returns 0, or -1 with "path:line: message". */
static int replay_load(struct replay *r, const char *path, char *err, size_t errlen)
{
	base_init(r);
	name_source(r, path);
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, 0, err, errlen);
	if (!lr)
		return -1;
	int rc = load_all(r, lr, err, errlen);
	lr_close(lr);
	return rc;
}

/* ---- a recording that arrives through a pipe or FIFO ---------------------------------------- */

int replay_open_input(struct replay *r, const char *path, char *err, size_t errlen)
{
	base_init(r);
	name_source(r, path);
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, LR_NONBLOCK, err, errlen);
	if (!lr)
		return -1;
	struct stat st;
	if (fstat(lr_fd(lr), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		r->lr = lr;
		r->live = true;
		return 1;
	}
	/* a file (or a device such as /dev/zero): read whole, as fast as it comes */
	lr_close(lr);
	return replay_load(r, path, err, errlen);
}

int replay_stream_fd(const struct replay *r) { return r->lr ? lr_fd(r->lr) : -1; }

bool replay_stream_started(const struct replay *r) { return r->f.nmodes > 0; }

/* The stream ended or failed: no more reads. */
static int stream_end(struct replay *r, char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "%s", why);
	rec_reader_close(r->rd);
	r->rd = NULL;
	lr_close(r->lr);
	r->lr = NULL;
	return -1;
}

int replay_stream_read(struct replay *r, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!r->lr)
		return -1;
	if (!r->rd) {
		/* the first line tells the format; perf stat output is imported whole */
		const char *line;
		size_t n;
		char why[512];
		int lrc;
		while ((lrc = lr_next(r->lr, &line, &n, why, sizeof(why))) == LR_LINE &&
		       strspn(line, " \t\r") == n)
			; /* blank lines before the first record */
		if (lrc == LR_AGAIN)
			return 0;
		if (lrc == LR_ERROR)
			return stream_end(r, err, errlen, why);
		if (lrc == LR_EOF) {
			snprintf(why, sizeof(why), "%s: empty file, not a pmutop recording",
				 r->source);
			return stream_end(r, err, errlen, why);
		}
		lr_unread(r->lr);
		const char *s = line + strspn(line, " \t\r");
		if (*s != '{' || !strstr(s, "\"pmutop-recording\"")) {
			int rc;
			int fl = fcntl(lr_fd(r->lr), F_GETFL);
			fcntl(lr_fd(r->lr), F_SETFL, fl & ~O_NONBLOCK);
			r->live = false;
			rc = load_all(r, r->lr, why, sizeof(why));
			lr_close(r->lr);
			r->lr = NULL;
			if (rc < 0) {
				snprintf(err, errlen, "%s", why);
				return -1;
			}
			return r->f.nticks;
		}
		if (!(r->rd = rec_reader_from(r->lr, why, sizeof(why))))
			return stream_end(r, err, errlen, why);
	}
	int ticks = 0;
	for (;;) {
		struct rec_record rec;
		char why[512];
		int nwarn = rec_reader_nwarnings(r->rd);
		enum rec_kind k = rec_reader_next(r->rd, &rec, why, sizeof(why));
		for (int i = nwarn; i < rec_reader_nwarnings(r->rd); i++)
			if (r->f.nwarnings < 1000)
				rec_file_warn(&r->f, "%s", rec_reader_warning(r->rd, i));
		if (k == REC_AGAIN)
			return ticks;
		if ((k == REC_ERROR || k == REC_EOF) && ticks)
			return ticks; /* the reader says it again on the next call */
		if (k == REC_ERROR)
			return stream_end(r, err, errlen, why);
		if (k == REC_EOF)
			return stream_end(r, err, errlen, "");
		int rc = 0;
		switch (k) {
		case REC_HEADER:
			r->f.header = rec.u.header;
			rec.kind = REC_EOF;
			break;
		case REC_MODE:
			rc = replay_append_mode(r, &rec.u.mode);
			break;
		case REC_TICK:
			if ((rc = replay_append_tick(r, &rec.u.tick)) == 0)
				ticks++;
			break;
		case REC_MARK:
			rc = replay_append_mark(r, &rec.u.mark);
			break;
		case REC_CPUS: /* the CPU set grows from the next tick on */
			rc = rec_file_add_cpus(&r->f, &rec.u.cpus);
			break;
		default:
			break;
		}
		rec_record_free(&rec);
		if (rc < 0)
			return stream_end(r, err, errlen, "out of memory");
	}
}

void replay_free(struct replay *r)
{
	rec_reader_close(r->rd);
	r->rd = NULL;
	lr_close(r->lr);
	r->lr = NULL;
	rec_file_free(&r->f);
	r->cap_ticks = r->cap_modes = r->cap_marks = 0;
}

/* ---- the source ---------------------------------------------------------------------------- */

struct replay_priv {
	struct replay *r;
	int nrows, nevents;
	int *cpus;
	struct backend_event *ev;
	uint64_t *ring; /* [k * nrows + row]: the recorded ring counts (enum ring_count) served */
};

/* Does tick @i carry the sampling ring's counts? */
static bool tick_has_ring(const struct rec_file *f, int i)
{
	for (int c = 0; i >= 0 && i < f->nticks && c < f->ticks[i].ncpus; c++)
		if (f->ticks[i].cpus[c].has_ring)
			return true;
	return false;
}

/* A recording of a sampling ring run hands its ring counts to the jitter windows as the ring
 * did live: lost samples and throttling per row, through the tick served (kept for rows the
 * tick does not hold). A recording without them leaves the backend's counts NULL. */
static void serve_ring(struct backend *b, struct replay_priv *p, const struct rec_tick *t)
{
	bool any = false;
	for (int row = 0; row < p->nrows; row++)
		for (int k = 0; k < t->ncpus; k++)
			if (t->cpus[k].cpu == p->cpus[row] && t->cpus[k].has_ring) {
				for (int n = 0; n < RING_NCOUNTS; n++)
					p->ring[n * p->nrows + row] = t->cpus[k].ring[n];
				any = true;
			}
	if (any) {
		b->lost = p->ring + RING_LOST * p->nrows;
		b->throttled_ns = p->ring + RING_THROTTLED_NS * p->nrows;
		b->throttles = p->ring + RING_THROTTLES * p->nrows;
	}
}

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

/* The recorded step of event @e's value (quantum_ns of its first recorded mode), 0 = exact. */
static uint64_t recorded_quantum(const struct replay *r, const struct backend_event *e)
{
	for (int m = 0; m < r->f.nmodes; m++) {
		int k = column(&r->f.modes[m], e);
		if (k >= 0)
			return r->f.modes[m].events[k].quantum_ns;
	}
	return 0;
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
	    !(p->ev = calloc((size_t)req->nevents + 1, sizeof(*p->ev))) ||
	    !(p->ring = calloc((size_t)req->ncpus * RING_NCOUNTS + 1, sizeof(uint64_t)))) {
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
	/* the ring's counts start at zero with the mode, as live; known from the first ticks (the
	 * read before a mode's first tick has none) */
	int pos = bound->pos;
	if (tick_has_ring(&bound->f, pos) ||
	    (pos + 1 < bound->f.nticks &&
	     bound->f.ticks[pos + 1].mode == bound->f.ticks[pos].mode &&
	     tick_has_ring(&bound->f, pos + 1))) {
		b->lost = p->ring + RING_LOST * req->ncpus;
		b->throttled_ns = p->ring + RING_THROTTLED_NS * req->ncpus;
		b->throttles = p->ring + RING_THROTTLES * req->ncpus;
	}
	snprintf(b->description, sizeof(b->description), "REPLAY %.100s", bound->source);
	int usable = 0;
	for (int e = 0; e < req->nevents; e++) {
		bool ok = replay_recorded(bound, &req->events[e]);
		uint64_t quantum = ok ? recorded_quantum(bound, &req->events[e]) : 0;
		usable += ok;
		for (int r = 0; r < req->ncpus; r++) {
			struct backend_status *st = &b->status[r * req->nevents + e];
			st->supported = ok;
			st->quantum_ns = quantum;
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
	serve_ring(b, p, t);
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
	free(p->ring);
	free(p);
	b->priv = NULL;
	b->lost = b->throttled_ns = b->throttles = NULL;
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
	out->slots = h->slots;
	out->ncpus = h->ncpus;
	out->aggregated_cpus = h->aggregated_cpus;
}

/* The CPUs counted at the next tick: the header's, and those of the cpus records before it (a
 * CPU that came online has its row from there on, as it had live). */
static void replay_cpus(const void *inst, struct cpuset *out)
{
	const struct replay *r = inst;
	cpuset_clear(out);
	int n = rec_file_ncpus_at(&r->f, r->pos);
	for (int i = 0; i < n && i < r->f.header.ncpus; i++)
		cpuset_add(out, r->f.header.cpus[i].cpu);
}

const struct source_ops source_replay_ops = {
    .name = "replay",
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
    .caps = SOURCE_CAP_RECORDED | SOURCE_CAP_FORWARD | SOURCE_CAP_STREAM,
    .open = replay_open,
    .read = replay_read,
    .select_set = replay_select_set,
    .close = replay_close,
    .describe = replay_describe,
    .cpus = replay_cpus,
};

/* A recording followed through a pipe or FIFO: ticks are served as they arrive. */
const struct source_ops source_stream_ops = {
    .name = "replay",
    .caps = SOURCE_CAP_RECORDED | SOURCE_CAP_STREAM,
    .open = replay_open,
    .read = replay_read,
    .select_set = replay_select_set,
    .close = replay_close,
    .describe = replay_describe,
    .cpus = replay_cpus,
};

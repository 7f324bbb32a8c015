/* SPDX-License-Identifier: GPL-2.0-or-later */
/* openmetrics.c: the OpenMetrics exposition of a frame and the cumulative counters behind it. */
#include "openmetrics.h"
#include "app.h"
#include "endpoint.h"
#include "frame.h"
#include "numfmt.h"
#include "output.h"
#include "textutil.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct om_series {
	char mode[SESSION_MODE_NAME];
	char event[48];
	int cpu; /* the CPU, -1 all; in a task or cgroup run the task's or cgroup's index */
	char core_type[32];
	enum row_unit unit;	 /* ROWS_CPU, or ROWS_TASK / ROWS_CGROUP: label below */
	char key[ROW_LABEL_MAX]; /* "comm[pid]", a cgroup's path */
	double total;		 /* scaled events */
	double enabled_s;	 /* seconds the counter was open */
	double running_s;	 /* seconds it really counted */
	bool opened; /* the counter opened at least once (an unsupported event never shows) */
	/* its labels as write_counters() writes them, "{" up to the event's, for the host
	 * om_counters.labels_host; nlabels 0: write them from the fields */
	uint16_t nlabels;
	char labels[256]; /* (most are under 120 bytes) */
};

struct om_counters {
	struct om_series *v;
	size_t n, cap;
	int32_t *slot; /* open-addressing hash of series indices, -1 empty; nslots a power of 2 */
	size_t nslots;
	bool full_reported;
	/* the current snapshot layout -> series: [row * nevents + e] */
	int32_t *map;
	int map_rows, map_events;
	const char (*map_names)[48];
	char map_mode[SESSION_MODE_NAME];
	struct app_ctx *app;
	struct endpoint *ep; /* --listen: serves the newest frame, or NULL */
	char labels_host[sizeof(((struct source_machine *)0)->host)]; /* of om_series.labels */
};

static void series_labels(struct om_counters *c, struct om_series *s);

static uint64_t hash_series(const char *mode, const char *event, int cpu)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const char *p = mode; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = event; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return (h ^ (uint64_t)(unsigned)cpu) * 1099511628211ull;
}

static int rehash(struct om_counters *c, size_t nslots)
{
	int32_t *slot = malloc(nslots * sizeof(*slot));
	if (!slot)
		return -1;
	memset(slot, 0xff, nslots * sizeof(*slot));
	for (size_t i = 0; i < c->n; i++) {
		size_t h = (size_t)hash_series(c->v[i].mode, c->v[i].event, c->v[i].cpu);
		while (slot[h & (nslots - 1)] >= 0)
			h++;
		slot[h & (nslots - 1)] = (int32_t)i;
	}
	free(c->slot);
	c->slot = slot;
	c->nslots = nslots;
	return 0;
}

/* The series of (mode, event, cpu), added when new; -1 when the table is full. */
static int32_t series_find(struct om_counters *c, const char *mode, const char *event, int cpu)
{
	if (c->nslots) {
		size_t h = (size_t)hash_series(mode, event, cpu);
		for (int32_t i; (i = c->slot[h & (c->nslots - 1)]) >= 0; h++) {
			const struct om_series *s = &c->v[i];
			if (s->cpu == cpu && strcmp(s->event, event) == 0 &&
			    strcmp(s->mode, mode) == 0)
				return i;
		}
	}
	if (c->n >= OM_MAX_SERIES)
		return -1;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct om_series *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	struct om_series *s = &c->v[c->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	snprintf(s->event, sizeof(s->event), "%s", event);
	snprintf(s->core_type, sizeof(s->core_type), "%s", app_core_type(c->app, cpu));
	s->cpu = cpu;
	int32_t idx = (int32_t)(c->n - 1);
	if (c->n * 2 > c->nslots) /* grow: rehash places every series, this one too */
		return rehash(c, c->nslots ? c->nslots * 2 : 128) < 0 ? (c->n--, -1) : idx;
	size_t h = (size_t)hash_series(mode, event, cpu);
	while (c->slot[h & (c->nslots - 1)] >= 0)
		h++;
	c->slot[h & (c->nslots - 1)] = idx;
	return idx;
}

static int remap(struct om_counters *c, const struct snapshot *snap, const char *mode)
{
	size_t cells = (size_t)snap->nrows * (size_t)snap->nevents;
	int32_t *map = realloc(c->map, (cells ? cells : 1) * sizeof(*map));
	if (!map)
		return -1;
	c->map = map;
	for (int r = 0; r < snap->nrows; r++)
		for (int e = 0; e < snap->nevents; e++) {
			/* cpu -1: the rows are sums over several CPUs (labelled "all") */
			/* a task's threads, a cgroup's CPUs: one series per task or cgroup */
			const struct target *t = &c->app->target;
			bool keyed = t->kind != TARGET_CPUS && r < t->nrows;
			int32_t i = series_find(c, mode, snap->event_names[e],
						keyed		 ? t->row_key[r]
						: snap->row_cpus ? -1
								 : snap->cpus[r]);
			if (i >= 0 && keyed) {
				const struct row_key *k = &t->keys[t->row_key[r]];
				c->v[i].unit = k->kind;
				c->v[i].core_type[0] = '\0';
				snprintf(c->v[i].key, sizeof(c->v[i].key), "%s", k->label);
			}
			if (i >= 0)
				series_labels(c, &c->v[i]);
			map[(size_t)r * (size_t)snap->nevents + (size_t)e] = i;
			if (i < 0 && !c->full_reported) {
				app_log(c->app, MSG_WARN,
					"openmetrics: more than %d series; new ones are left out",
					OM_MAX_SERIES);
				c->full_reported = true;
			}
		}
	c->map_rows = snap->nrows;
	c->map_events = snap->nevents;
	c->map_names = snap->event_names;
	snprintf(c->map_mode, sizeof(c->map_mode), "%s", mode);
	return 0;
}

static void on_snapshot(struct app_ctx *app, const struct snapshot *snap, void *arg)
{
	struct om_counters *c = arg;
	const char *mode = app->mode.name;
	if (!c->map || c->map_rows != snap->nrows || c->map_events != snap->nevents ||
	    c->map_names != snap->event_names || strcmp(c->map_mode, mode) != 0)
		if (remap(c, snap, mode) < 0)
			return;
	for (int r = 0; r < snap->nrows; r++)
		for (int e = 0; e < snap->nevents; e++) {
			size_t cell = (size_t)r * (size_t)snap->nevents + (size_t)e;
			int32_t i = c->map[cell];
			const struct count *k = &snap->counts[cell];
			if (i < 0)
				continue;
			struct om_series *s = &c->v[i];
			switch (k->state) {
			case COUNT_OK:
			case COUNT_SCALED:
				s->total += k->value;
				/* fall through */
			case COUNT_NOT_COUNTED:
				s->opened = true;
				s->enabled_s += snap->interval_s;
				s->running_s += k->running * snap->interval_s;
				break;
			default:
				break;
			}
		}
}

static void on_mode(struct app_ctx *app, void *arg)
{
	(void)app;
	((struct om_counters *)arg)->map_rows = -1; /* the layout changes */
}

static void om_counters_free(struct om_counters *c)
{
	if (!c)
		return;
	endpoint_close(c->ep);
	free(c->v);
	free(c->slot);
	free(c->map);
	free(c);
}

/* --- the observer: counters fed every tick, the endpoint served every frame ------------------ */

static void obs_tick(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	on_snapshot(app, snap, o->state);
}

static void obs_mode(struct observer *o, struct app_ctx *app) { on_mode(app, o->state); }

static void obs_fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
			   struct frame_store *fs)
{
	(void)app, (void)fs;
	f->counters = o->state;
}

/* The endpoint serves the newest frame, in both text formats. */
static void obs_frame(struct observer *o, struct app_ctx *app, const struct frame *f)
{
	struct om_counters *c = o->state;
	char *text[2] = {NULL, NULL};
	size_t len[2] = {0, 0};
	int rc = 0;
	if (!c->ep)
		return;
	for (int fl = 0; fl < 2; fl++) {
		FILE *mem = open_memstream(&text[fl], &len[fl]);
		if (!mem) {
			rc = -1;
			break;
		}
		rc |= om_write(mem, f, (enum om_flavour)fl);
		rc |= fclose(mem);
	}
	if (rc == 0 && endpoint_publish(c->ep, text[OM_OPENMETRICS], len[OM_OPENMETRICS],
					text[OM_PROMETHEUS], len[OM_PROMETHEUS]) < 0)
		rc = -1;
	if (rc != 0)
		app_log(app, MSG_WARN, "--listen: out of memory; the endpoint keeps the last page");
	free(text[0]);
	free(text[1]);
}

static int obs_attach(struct observer *o, struct app_ctx *app, struct loop *loop)
{
	struct om_counters *c = o->state;
	if (c->ep && endpoint_attach(c->ep, loop) < 0) {
		app_log(app, MSG_ERROR, "--listen: too many inputs to watch");
		return -1;
	}
	return 0;
}

static int obs_input(struct observer *o, struct app_ctx *app, int fd)
{
	(void)app;
	struct om_counters *c = o->state;
	return c->ep && endpoint_input(c->ep, fd, loop_now_ns()) ? 1 : 0;
}

static void obs_timer(struct observer *o, struct app_ctx *app, const struct loop_event *ev)
{
	(void)app, (void)ev;
	struct om_counters *c = o->state;
	if (c->ep)
		endpoint_poll(c->ep, loop_now_ns());
}

static void obs_close(struct observer *o, struct app_ctx *app)
{
	(void)app;
	om_counters_free(o->state);
}

int om_start(struct app_ctx *app, const char *listen, char *err, size_t errlen)
{
	struct om_counters *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "openmetrics: out of memory");
		return -1;
	}
	c->app = app;
	c->map_rows = -1;
	if (listen && !(c->ep = endpoint_open(listen, err, errlen))) {
		free(c);
		return -1;
	}
	struct observer o = {.name = "openmetrics",
			     .state = c,
			     .paced = c->ep != NULL,
			     .on_tick = obs_tick,
			     .on_mode = obs_mode,
			     .fill_frame = obs_fill_frame,
			     .on_frame = obs_frame,
			     .attach = obs_attach,
			     .on_input = obs_input,
			     .on_timer = obs_timer,
			     .close = obs_close};
	if (!app_observe(app, &o)) {
		om_counters_free(c);
		snprintf(err, errlen, "openmetrics: too many observers");
		return -1;
	}
	if (c->ep)
		app_log(app, MSG_INFO, "serving OpenMetrics on http://%s/metrics",
			endpoint_address(c->ep));
	return 0;
}

/* --- the exposition ------------------------------------------------------------------------ */

/* The exposition is built in this chunk and handed to the stream a chunk at a time: no stdio
 * call per label, number or line (a 2-CPU frame is about 8 KiB and 150 lines). */
struct om_out {
	FILE *f; /* NULL: a text that must fit the chunk (spilled: it did not) */
	bool spilled;
	int err; /* errno of the first write that failed, 0: none */
	size_t n;
	/* the last value put_value() wrote, " %.10g\n" of the double with these bits, kept when
	 * it fits (last_n 0: none): equal values on one page (a CPU's enabled and running
	 * seconds, the same for each of its events) are copied, not formatted again */
	uint64_t last_bits;
	size_t last_n;
	char last[32];
	char buf[4096];
};

/* @n bytes to the stream (output_write(): no copy through stdio); the first failure is kept. */
static void out_send(struct om_out *o, const char *s, size_t n)
{
	if (!o->err && output_write(o->f, s, n) < 0)
		o->err = errno ? errno : EIO;
}

static void out_flush(struct om_out *o)
{
	if (o->n && o->f)
		out_send(o, o->buf, o->n);
	else if (o->n)
		o->spilled = true;
	o->n = 0;
}

/* An empty chunk that writes to @f (NULL: a text that must fit). Only the counters are set:
 * the 4 KiB buffer is written before it is read. */
static void out_init(struct om_out *o, FILE *f)
{
	o->f = f;
	o->spilled = false;
	o->err = 0;
	o->n = 0;
	o->last_n = 0;
}

__attribute__((cold)) static void out_put_slow(struct om_out *o, const char *s, size_t n)
{
	out_flush(o);
	if (n > sizeof(o->buf)) {
		if (o->f)
			out_send(o, s, n);
		o->spilled = !o->f;
		return;
	}
	memcpy(o->buf, s, n);
	o->n = n;
}

static inline void out_put(struct om_out *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->buf)) {
		out_put_slow(o, s, n);
		return;
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/* Where the next @need bytes (at most the chunk's size) go, written by the caller, who then
 * adds what it wrote to o->n. */
static inline char *out_room(struct om_out *o, size_t need)
{
	if (o->n + need > sizeof(o->buf))
		out_flush(o);
	return o->buf + o->n;
}

static inline void out_str(struct om_out *o, const char *s) { out_put(o, s, strlen(s)); }

static inline void out_ch(struct om_out *o, char c)
{
	if (o->n == sizeof(o->buf))
		out_flush(o);
	o->buf[o->n++] = c;
}

/* @s (safe on a terminal, as text_escape() makes it) with a backslash before each of @esc. */
static void out_escaped(struct om_out *o, const char *s, const char *esc)
{
	while (*s) {
		size_t run = strcspn(s, esc);
		out_put(o, s, run);
		s += run;
		if (*s) {
			out_ch(o, '\\');
			out_ch(o, *s++);
		}
	}
}

/* @s safe on a terminal: itself when it is (most are: no escape pass), else text_escape() of
 * it in @buf (@len bytes). */
static const char *safe_text(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);
	if (n < len && text_is_safe(s, n, 0))
		return s;
	text_escape(s, TEXT_NUL_TERMINATED, buf, len);
	return buf;
}

/* A label value: safe on a terminal first (text_escape), then OpenMetrics' escapes. */
static void put_label(struct om_out *o, const char *name, const char *value, bool comma)
{
	char safe[256];
	if (comma)
		out_ch(o, ',');
	out_str(o, name);
	out_put(o, "=\"", 2);
	out_escaped(o, safe_text(value ? value : "", safe, sizeof(safe)), "\\\"");
	out_ch(o, '"');
}

static void put_help(struct om_out *o, const char *s)
{
	char safe[256];
	out_escaped(o, safe_text(s, safe, sizeof(safe)), "\\");
}

/* Prometheus's naming conventions: base units (seconds, hertz, bytes), rates per second, no
 * abbreviated unit in a name. A metric whose unit is here gets the family NAME_UNIT with a name
 * ending that abbreviates the unit dropped (tsc_ghz -> tsc_hertz, cs_per_s -> cs_per_second,
 * llc_ref_ms in M/s -> llc_ref_per_second) and its value times scale; any other unit (cyc,
 * miss/inst, /1k) leaves a unit-free name with the unit in HELP. The first matching row wins. */
static const struct {
	const char *unit;    /* the mode's unit */
	const char *abbrev;  /* a name ending ("_" + abbrev) or whole name that stands for it */
	const char *suffix;  /* what the family name ends in */
	const char *om_unit; /* OpenMetrics UNIT, or NULL */
	const char *bare;    /* the name when nothing else is left */
	double scale;	     /* the mode's unit -> the family's */
} om_units[] = {
    {"%", "pct", "percent", "percent", "share", 1},
    {"%", "percent", "percent", "percent", "share", 1},
    {"s", "s", "seconds", "seconds", "time", 1},
    {"ms", "ms", "seconds", "seconds", "time", 1e-3},
    {"us", "us", "seconds", "seconds", "time", 1e-6},
    {"ns", "ns", "seconds", "seconds", "time", 1e-9},
    {"GHz", "ghz", "hertz", "hertz", "clock", 1e9},
    {"MHz", "mhz", "hertz", "hertz", "clock", 1e6},
    {"B", "b", "bytes", "bytes", "size", 1},
    {"/s", "per_s", "per_second", NULL, "events", 1},
    {"k/s", "per_s", "per_second", NULL, "kevents", 1}, /* the name says k (kinst_per_s) */
    {"k/s", "ks", "per_second", NULL, "events", 1e3},
    {"M/s", "per_s", "per_second", NULL, "mevents", 1},
    {"M/s", "ms", "per_second", NULL, "events", 1e6}, /* llc_ref_ms: millions per second */
};

/* The family (without prefix) of a metric called @name in @unit, its scale and UNIT. */
static void family_of(const char *name, const char *unit, char *out, size_t len, double *scale,
		      const char **om_unit)
{
	char base[64];
	size_t n = 0;
	for (const char *s = name; *s && n + 1 < sizeof(base); s++) /* [a-zA-Z0-9_] only */
		base[n++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					   (*s >= '0' && *s <= '9')
				       ? *s
				       : '_');
	base[n] = '\0';
	*scale = 1;
	*om_unit = NULL;
	size_t nu = sizeof(om_units) / sizeof(om_units[0]), match = nu;
	for (size_t i = 0; i < nu && match == nu; i++) {
		if (om_units[i].unit[0] != unit[0] || strcmp(om_units[i].unit, unit) != 0)
			continue;
		size_t la = strlen(om_units[i].abbrev);
		if (strcasecmp(base, om_units[i].abbrev) == 0)
			match = i, base[0] = '\0';
		else if (n > la && base[n - la - 1] == '_' &&
			 strcasecmp(base + n - la, om_units[i].abbrev) == 0)
			match = i, base[n - la - 1] = '\0';
	}
	for (size_t i = 0; i < nu && match == nu; i++) /* the unit, but no ending naming it */
		if (om_units[i].unit[0] == unit[0] && strcmp(om_units[i].unit, unit) == 0)
			match = i;
	if (match == nu) {
		text_cat(out, len, 0, base);
		return;
	}
	*scale = om_units[match].scale;
	*om_unit = om_units[match].om_unit;
	size_t used = text_cat(out, len, 0, base[0] ? base : om_units[match].bare);
	text_cat(out, len, text_cat(out, len, used, "_"), om_units[match].suffix);
}

struct om_labels {
	const char *host, *mode;
	enum om_flavour flavour;
	/* "{" and the host and mode labels as put_row_labels() writes them for @mode, built once
	 * an exposition (every line starts with them); nhead 0: not built */
	char head[1024];
	size_t nhead;
	bool head_any; /* head holds a label */
};

/* The metadata of a family: OpenMetrics names the family and has units; the Prometheus text
 * format names a counter by its sample name (..._total) and has no units. */
static void put_meta(struct om_out *o, const struct om_labels *l, const char *family,
		     const char *type, const char *unit)
{
	const char *suffix =
	    l->flavour == OM_PROMETHEUS && strcmp(type, "counter") == 0 ? "_total" : "";
	size_t fl = strlen(family), sl = strlen(suffix), tl = strlen(type);
	size_t ul = l->flavour == OM_OPENMETRICS && unit ? strlen(unit) : 0;
	if (3 * fl + ul + tl > 1024) { /* not a family pmutop makes: piece by piece */
		out_str(o, "# TYPE ");
		out_put(o, family, fl);
		out_put(o, suffix, sl);
		out_ch(o, ' ');
		out_put(o, type, tl);
		out_ch(o, '\n');
		if (ul) {
			out_str(o, "# UNIT ");
			out_put(o, family, fl);
			out_ch(o, ' ');
			out_put(o, unit, ul);
			out_ch(o, '\n');
		}
		out_str(o, "# HELP ");
		out_put(o, family, fl);
		out_put(o, suffix, sl);
		out_ch(o, ' ');
		return;
	}
	/* the same bytes written in place */
	char *start = out_room(o, 3 * fl + ul + tl + 2 * sl + 48), *p = start;
	memcpy(p, "# TYPE ", 7);
	memcpy(p += 7, family, fl);
	memcpy(p += fl, suffix, sl);
	*(p += sl) = ' ';
	memcpy(++p, type, tl);
	*(p += tl) = '\n';
	p++;
	if (ul) {
		memcpy(p, "# UNIT ", 7);
		memcpy(p += 7, family, fl);
		*(p += fl) = ' ';
		memcpy(++p, unit, ul);
		*(p += ul) = '\n';
		p++;
	}
	memcpy(p, "# HELP ", 7);
	memcpy(p += 7, family, fl);
	memcpy(p += fl, suffix, sl);
	*(p += sl) = ' ';
	o->n += (size_t)(p + 1 - start);
}

/* The labels of a row: @key is "cpu", or the unit rows are summed by ("core" = "S0-D0-C1"); an
 * empty one (no host name, no core type) is left out, and so is the row's for the families of
 * all CPUs (@row NULL). Returns whether a label was written. */
static bool put_labels(struct om_out *o, const char *const names[], const char *const values[],
		       size_t n, bool any)
{
	for (size_t i = 0; i < n; i++)
		if (values[i] && values[i][0]) {
			put_label(o, names[i], values[i], any);
			any = true;
		}
	return any;
}

/* The labels of a row of @mode (l->mode: the frame's): @key is "cpu", or the unit rows are
 * summed by ("core" = "S0-D0-C1"); an empty one (no host name, no core type) is left out, and
 * so is the row's for the families of all CPUs (@row NULL). Returns whether a label was
 * written. */
static bool put_row_labels(struct om_out *o, const struct om_labels *l, const char *mode,
			   const char *key, const char *row, const char *core_type)
{
	const char *const head[] = {"host", "mode"}, *const head_values[] = {l->host, mode};
	const char *const names[] = {key, "core_type"}, *const values[] = {row, core_type};
	bool any;
	if (l->nhead && (mode == l->mode || strcmp(mode, l->mode) == 0)) {
		out_put(o, l->head, l->nhead);
		any = l->head_any;
	} else {
		out_ch(o, '{');
		any = put_labels(o, head, head_values, 2, false);
	}
	return put_labels(o, names, values, 2, any);
}

/* Builds l->head (left unbuilt when it does not fit). */
static void labels_head(struct om_labels *l)
{
	const char *const head[] = {"host", "mode"}, *const head_values[] = {l->host, l->mode};
	struct om_out t;
	out_init(&t, NULL);
	out_ch(&t, '{');
	l->head_any = put_labels(&t, head, head_values, 2, false);
	l->nhead = 0;
	if (!t.spilled && t.n <= sizeof(l->head)) {
		memcpy(l->head, t.buf, t.n);
		l->nhead = t.n;
	}
}

/* A counter's labels, "{" up to the event's: its rows' (a CPU's, a task's, a cgroup's; no row
 * label for the sums over all CPUs) and its event. */
static void put_series_labels(struct om_out *o, const struct om_labels *l,
			      const struct om_series *s)
{
	char cpu[NUMFMT_MAX];
	numfmt_i64(cpu, s->cpu);
	bool comma =
	    s->unit != ROWS_CPU
		? put_row_labels(o, l, s->mode, rows_unit_name(s->unit), s->key, "")
		: put_row_labels(o, l, s->mode, "cpu", s->cpu < 0 ? NULL : cpu, s->core_type);
	put_label(o, "event", s->event, comma);
}

/* The labels of series @s as write_counters() writes them, on the app's host: built when the
 * series is mapped, not every exposition (left unbuilt when they do not fit). */
static void series_labels(struct om_counters *c, struct om_series *s)
{
	const char *host = c->app->machine.host;
	struct om_labels l = {.host = host, .mode = s->mode};
	struct om_out t;
	out_init(&t, NULL);
	if (strcmp(c->labels_host, host) != 0) {
		for (size_t i = 0; i < c->n; i++)
			c->v[i].nlabels = 0; /* built for another host */
		snprintf(c->labels_host, sizeof(c->labels_host), "%s", host);
	}
	put_series_labels(&t, &l, s);
	s->nlabels = 0;
	if (!t.spilled && t.n <= sizeof(s->labels)) {
		memcpy(s->labels, t.buf, t.n);
		s->nlabels = (uint16_t)t.n;
	}
}

static void put_value(struct om_out *o, double v) /* " %.10g\n", written in the chunk */
{
	char *p = out_room(o, NUMFMT_MAX + 2);
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (o->last_n && bits == o->last_bits) { /* a fixed-size copy: the room is larger */
		memcpy(p, o->last, sizeof(o->last));
		o->n += o->last_n;
		return;
	}
	p[0] = ' ';
	size_t n = 1 + numfmt_g(p + 1, v, 10);
	p[n++] = '\n';
	o->n += n;
	o->last_n = n <= sizeof(o->last) ? n : 0;
	o->last_bits = bits;
	memcpy(o->last, p, sizeof(o->last));
}

/* The families of sums over all CPUs (no cpu label) start with this. */
#define OM_ALL_PREFIX "pmutop_all_cpus_"

static void write_counters(struct om_out *o, const struct om_counters *c, const struct om_labels *l)
{
	static const struct {
		const char *family, *unit, *help;
		size_t offset;
	} kinds[] = {
	    {"pmutop_event", NULL,
	     "Events counted per CPU since pmutop started (scaled when multiplexed)",
	     offsetof(struct om_series, total)},
	    {"pmutop_event_enabled_seconds", "seconds",
	     "Seconds the event's counter was enabled on the CPU",
	     offsetof(struct om_series, enabled_s)},
	    {"pmutop_event_running_seconds", "seconds",
	     "Seconds the event's counter really counted on the CPU (less when multiplexed)",
	     offsetof(struct om_series, running_s)},
	};
	/* the series' labels were made for this host (compared once a page, not once a line) */
	bool host_kept = c && strcmp(l->host, c->labels_host) == 0;
	/* per CPU, then (an aggregated capture's rows) the sums over all CPUs as families of their
	 * own, so that sum() over a family never counts an event twice */
	for (int all = 0; all < 2; all++) {
		bool any = false;
		for (size_t i = 0; c && i < c->n; i++)
			any |= c->v[i].opened && (c->v[i].cpu < 0) == all;
		if (all && !any)
			break;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			char family[96];
			text_cat(
			    family, sizeof(family),
			    text_cat(family, sizeof(family), 0, all ? OM_ALL_PREFIX : "pmutop_"),
			    kinds[k].family + strlen("pmutop_"));
			put_meta(o, l, family, "counter", kinds[k].unit);
			out_str(o, kinds[k].help);
			out_str(o, all ? " (all CPUs).\n" : ".\n");
			char name[104]; /* the samples' name: the family's and "_total" */
			size_t nn = text_cat(name, sizeof(name),
					     text_cat(name, sizeof(name), 0, family), "_total");
			for (size_t i = 0; c && i < c->n; i++) {
				const struct om_series *s = &c->v[i];
				if (!s->opened || (s->cpu < 0) != all)
					continue; /* never opened: left out, never 0 */
				if (s->nlabels &&
				    host_kept) { /* name, labels and "}" in one piece */
					char *p = out_room(o, nn + s->nlabels + 1);
					memcpy(p, name, nn);
					memcpy(p + nn, s->labels, s->nlabels);
					p[nn + s->nlabels] = '}';
					o->n += nn + s->nlabels + 1;
					put_value(o, *(const double *)((const char *)s +
								       kinds[k].offset));
					continue;
				}
				out_put(o, name, nn);
				put_series_labels(o, l, s);
				out_ch(o, '}');
				put_value(o, *(const double *)((const char *)s + kinds[k].offset));
			}
		}
	}
}

/* The labels of a gauge's sample of row @r (r == nrows: the family of all CPUs), "{" to "}". */
static void put_gauge_labels(struct om_out *o, const struct frame *f, const struct om_labels *l,
			     int r, bool all)
{
	const struct snapshot *snap = f->snap;
	char num[NUMFMT_MAX];
	const char *cpu = num;
	if (r < snap->nrows && f->row_keys)
		cpu = f->row_keys[r].label;
	else
		numfmt_i64(num, r < snap->nrows ? snap->cpus[r] : -1);
	put_row_labels(o, l, l->mode, f->row_keys ? rows_unit_name(f->rows) : "cpu",
		       all ? NULL : cpu, !all && f->core_type ? f->core_type[r] : "");
	out_ch(o, '}');
}

/* The gauges' row labels depend on the row only: each row's are made once a page, for up to
 * this many rows and bytes (the rest are made line by line). */
#define OM_ROWS_MADE 256
#define OM_ROWS_BYTES 8192

struct om_row_labels {
	uint16_t off[OM_ROWS_MADE + 2], len[OM_ROWS_MADE + 2]; /* len 0: not made */
	char buf[OM_ROWS_BYTES];
};

/* Makes the labels of rows 0 .. OM_ROWS_MADE - 1 (index: the row) and of the families of all
 * CPUs (index OM_ROWS_MADE + 1). */
static void make_row_labels(struct om_row_labels *rl, const struct frame *f,
			    const struct om_labels *l)
{
	const struct snapshot *snap = f->snap;
	size_t used = 0;
	memset(rl->len, 0, sizeof(rl->len));
	int rows = snap->nrows < OM_ROWS_MADE ? snap->nrows : OM_ROWS_MADE;
	for (int k = 0; k <= rows; k++) {
		bool all = k == rows;
		int i = all ? OM_ROWS_MADE + 1 : k;
		struct om_out t;
		out_init(&t, NULL);
		put_gauge_labels(&t, f, l, all ? snap->nrows : i, all);
		if (t.spilled || t.n > sizeof(rl->buf) - used)
			continue;
		memcpy(rl->buf + used, t.buf, t.n);
		rl->off[i] = (uint16_t)used;
		rl->len[i] = (uint16_t)t.n;
		used += t.n;
	}
}

/*
 * A gauge's two families (per CPU, all CPUs) and their metadata lines ("# TYPE" to the end of
 * "# HELP"), made from the metric's name, unit and description and the flavour. They are kept
 * per flavour and metric index with copies of those four inputs, which every page compares (a
 * few short strcmp) and makes them again from when one differs: the same bytes as making them
 * every page, without family_of(), put_meta() and the HELP text's escape pass per metric.
 */
#define OM_META_MAX 1024
#define OM_FAMILY_MAX 112
/* The inputs, families and metadata of one metric lie one after the other in its text (inputs
 * first: the check each page reads, then what it copies), so a page reads a few cache lines per
 * metric, not a fixed-size field for each. */
#define OM_GAUGE_TEXT                                                                              \
	(sizeof(((struct session_metric *)0)->name) + sizeof(((struct session_metric *)0)->unit) + \
	 sizeof(((struct session_metric *)0)->desc) + 2 * OM_FAMILY_MAX + 2 * OM_META_MAX)
struct om_gauge_meta {
	bool made;
	double scale;
	uint16_t unit, desc; /* offsets of the unit and description copies (the name's is 0) */
	uint16_t family[2], flen[2]; /* the families (NUL-terminated): offsets, lengths */
	uint16_t meta[2], mlen[2];   /* the metadata: offsets, lengths (0: did not fit) */
	char text[OM_GAUGE_TEXT];
};
_Static_assert(OM_GAUGE_TEXT <= UINT16_MAX, "a gauge text's offsets fit 16 bits");
static struct om_gauge_meta gauge_meta[2][SESSION_MAX_METRICS]; /* [flavour][metric] */

/* Writes the metadata of @sm's family (@all: of all CPUs) named @family, with @unit. */
static void put_gauge_meta(struct om_out *o, const struct om_labels *l,
			   const struct session_metric *sm, const char *family, const char *unit,
			   bool all)
{
	put_meta(o, l, family, "gauge", unit);
	put_help(o, sm->desc[0] ? sm->desc : sm->name);
	if (all)
		out_str(o, " (all CPUs)");
	if (sm->unit[0] && !unit) {
		out_str(o, " [");
		put_help(o, sm->unit);
		out_ch(o, ']');
	}
	out_ch(o, '\n');
}

/* The families and metadata of metric @sm (index @m), made when its inputs changed (in @spare,
 * every page, past the kept ones). */
static const struct om_gauge_meta *gauge_meta_of(const struct om_labels *l, int m,
						 const struct session_metric *sm,
						 struct om_gauge_meta *spare)
{
	struct om_gauge_meta *g =
	    m < SESSION_MAX_METRICS ? &gauge_meta[l->flavour == OM_PROMETHEUS][m] : spare;
	if (g != spare && g->made && strcmp(g->text, sm->name) == 0 &&
	    strcmp(g->text + g->unit, sm->unit) == 0 && strcmp(g->text + g->desc, sm->desc) == 0)
		return g;
	char name[80];
	const char *unit;
	family_of(sm->name, sm->unit, name, sizeof(name), &g->scale, &unit);
	size_t off = 0;
	const char *in[3] = {sm->name, sm->unit, sm->desc};
	uint16_t at[3];
	for (int i = 0; i < 3; i++) { /* each fits its field in struct session_metric */
		size_t n = strnlen(in[i], i == 0   ? sizeof(sm->name) - 1
					  : i == 1 ? sizeof(sm->unit) - 1
						   : sizeof(sm->desc) - 1);
		at[i] = (uint16_t)off;
		memcpy(g->text + off, in[i], n);
		g->text[off + n] = '\0';
		off += n + 1;
	}
	g->unit = at[1];
	g->desc = at[2];
	for (int all = 0; all < 2; all++) {
		char family[OM_FAMILY_MAX];
		size_t fn = text_cat(family, sizeof(family), 0, all ? OM_ALL_PREFIX : "pmutop_");
		size_t flen = text_cat(family, sizeof(family),
				       text_cat(family, sizeof(family), fn, "metric_"), name);
		g->family[all] = (uint16_t)off;
		g->flen[all] = (uint16_t)flen;
		memcpy(g->text + off, family, flen + 1);
		off += flen + 1;
	}
	for (int all = 0; all < 2; all++) {
		struct om_out t;
		out_init(&t, NULL);
		put_gauge_meta(&t, l, sm, g->text + g->family[all], unit, all);
		g->meta[all] = (uint16_t)off;
		g->mlen[all] = 0;
		if (!t.spilled && t.n <= OM_META_MAX) {
			memcpy(g->text + off, t.buf, t.n);
			g->mlen[all] = (uint16_t)t.n;
			off += t.n;
		}
	}
	g->made = g != spare && strcmp(g->text, sm->name) == 0 &&
		  strcmp(g->text + g->unit, sm->unit) == 0 &&
		  strcmp(g->text + g->desc, sm->desc) == 0;
	return g;
}

static void write_gauges(struct om_out *o, const struct frame *f, const struct om_labels *l)
{
	const struct snapshot *snap = f->snap;
	struct om_row_labels rl;
	if (snap->nmetrics > 0)
		make_row_labels(&rl, f, l);
	struct om_gauge_meta spare; /* written before it is read */
	for (int m = 0; m < snap->nmetrics; m++) {
		const struct session_metric *sm = &snap->metrics[m];
		const struct om_gauge_meta *g = gauge_meta_of(l, m, sm, &spare);
		/* per CPU (where the rows are CPUs), then all CPUs as a family of its own */
		for (int all = snapshot_cpu_rows(snap) ? 0 : 1; all < 2; all++) {
			const char *family = g->text + g->family[all];
			size_t fn = g->flen[all];
			if (g->mlen[all]) {
				out_put(o, g->text + g->meta[all], g->mlen[all]);
			} else {
				char name[80];
				const char *unit;
				double scale;
				family_of(sm->name, sm->unit, name, sizeof(name), &scale, &unit);
				put_gauge_meta(o, l, sm, family, unit, all);
			}
			for (int r = all ? snap->nrows : 0; r <= snap->nrows - !all; r++) {
				double v = r < snap->nrows ? snap->values[r * snap->nmetrics + m]
							   : snap->total_values[m];
				if (!isfinite(v))
					continue; /* n/a: left out, never 0 */
				int i = all		   ? OM_ROWS_MADE + 1
					: r < OM_ROWS_MADE ? r
							   : OM_ROWS_MADE;
				if (rl.len[i]) { /* the name and the row's labels in one piece */
					char *p = out_room(o, fn + rl.len[i]);
					memcpy(p, family, fn);
					memcpy(p + fn, rl.buf + rl.off[i], rl.len[i]);
					o->n += fn + rl.len[i];
				} else {
					out_put(o, family, fn);
					put_gauge_labels(o, f, l, r, all);
				}
				put_value(o, v * g->scale);
			}
		}
	}
}

/* With error bars (frame.h err): one sibling gauge of every metric's 95 % half-width, the metric
 * named by a label. */
static void write_errors(struct om_out *o, const struct frame *f, const struct om_labels *l)
{
	const struct snapshot *snap = f->snap;
	if (!f->err)
		return;
	put_meta(o, l, "pmutop_metric_err", "gauge", NULL);
	out_str(o, "Half-width of the 95 % interval of the metric's value (value +- this) from "
		   "multiplexing and rotation; 0 when its events counted the whole interval\n");
	for (int m = 0; m < snap->nmetrics; m++)
		for (int r = snapshot_cpu_rows(snap) ? 0 : snap->nrows; r <= snap->nrows; r++) {
			double v = r < snap->nrows ? snap->values[r * snap->nmetrics + m]
						   : snap->total_values[m];
			double e = f->err[r * snap->nmetrics + m];
			if (!isfinite(v) || !isfinite(e))
				continue;
			char num[NUMFMT_MAX];
			const char *cpu = num;
			if (r < snap->nrows && f->row_keys)
				cpu = f->row_keys[r].label;
			else if (r < snap->nrows)
				numfmt_i64(num, snap->cpus[r]);
			else
				cpu = "all";
			out_str(o, "pmutop_metric_err");
			put_row_labels(o, l, l->mode,
				       f->row_keys && r < snap->nrows ? rows_unit_name(f->rows)
								      : "cpu",
				       cpu, r < snap->nrows && f->core_type ? f->core_type[r] : "");
			put_label(o, "metric", snap->metrics[m].name, true);
			out_ch(o, '}');
			put_value(o, e);
		}
}

int om_write(FILE *out, const struct frame *f, enum om_flavour flavour)
{
	struct om_out o;
	out_init(&o, out);
	struct om_labels l = {.host = f->machine && f->machine->host[0] ? f->machine->host : "",
			      .mode = f->mode,
			      .flavour = flavour};
	labels_head(&l);
	write_counters(&o, f->counters, &l);
	write_gauges(&o, f, &l);
	write_errors(&o, f, &l);
	if (flavour == OM_OPENMETRICS)
		out_str(&o, "# EOF\n");
	out_flush(&o);
	if (o.err) { /* every chunk went through output_write(): nothing is left in stdio */
		errno = o.err;
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* openmetrics.c: the OpenMetrics exposition of a frame and the cumulative counters behind it. */
#include "openmetrics.h"
#include "app.h"
#include "endpoint.h"
#include "frame.h"
#include "numfmt.h"
#include "textutil.h"
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct om_series {
	char mode[SESSION_MODE_NAME];
	char event[48];
	int cpu;
	char core_type[32];
	double total;	  /* scaled events */
	double enabled_s; /* seconds the counter was open */
	double running_s; /* seconds it really counted */
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
};

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
			int32_t i = series_find(c, mode, snap->event_names[e],
						snap->row_cpus ? -1 : snap->cpus[r]);
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

/* A label value: safe on a terminal first (text_escape), then OpenMetrics' escapes. */
static void put_label(FILE *out, const char *name, const char *value, bool comma)
{
	char safe[256], line[2 * sizeof(safe) + 72];
	const char *v = value ? value : "";
	size_t vl = strlen(v), nl = strlen(name), n = 0;
	if (vl < sizeof(safe) && text_is_safe(v, vl, 0)) /* most are: no escape pass */
		memcpy(safe, v, vl + 1);
	else
		text_escape(v, TEXT_NUL_TERMINATED, safe, sizeof(safe));
	if (comma)
		line[n++] = ',';
	if (nl <= 64) { /* built in one buffer, written once (no printf per label) */
		memcpy(line + n, name, nl);
		n += nl;
	} else {
		fwrite(line, 1, n, out);
		fputs(name, out);
		n = 0;
	}
	line[n++] = '=';
	line[n++] = '"';
	for (const char *p = safe; *p; p++) {
		if (*p == '\\' || *p == '"')
			line[n++] = '\\';
		line[n++] = *p;
	}
	line[n++] = '"';
	fwrite(line, 1, n, out);
}

/* A metric-name part: [a-zA-Z0-9_], anything else becomes '_'. */
static void put_name(FILE *out, const char *s)
{
	char part[128];
	size_t n = 0;
	for (; *s; s++) {
		part[n++] =
		    (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
			? *s
			: '_';
		if (n == sizeof(part)) {
			fwrite(part, 1, n, out);
			n = 0;
		}
	}
	fwrite(part, 1, n, out);
}

static void put_help(FILE *out, const char *s)
{
	char safe[256], line[2 * sizeof(safe)];
	text_escape(s, TEXT_NUL_TERMINATED, safe, sizeof(safe));
	size_t n = 0;
	for (const char *p = safe; *p; p++) {
		if (*p == '\\')
			line[n++] = '\\';
		line[n++] = *p;
	}
	fwrite(line, 1, n, out);
}

/* Units OpenMetrics can name (the family name then ends in _UNIT). */
static const struct {
	const char *unit, *name;
} om_units[] = {
    {"%", "percent"},	   {"s", "seconds"},	 {"ms", "milliseconds"}, {"us", "microseconds"},
    {"ns", "nanoseconds"}, {"GHz", "gigahertz"}, {"MHz", "megahertz"},	 {"B", "bytes"},
};

static const char *unit_name(const char *unit)
{
	for (size_t i = 0; i < sizeof(om_units) / sizeof(om_units[0]); i++)
		if (strcmp(om_units[i].unit, unit) == 0)
			return om_units[i].name;
	return NULL;
}

struct om_labels {
	const char *host, *mode;
	enum om_flavour flavour;
};

/* The metadata of a family: OpenMetrics names the family and has units; the Prometheus text
 * format names a counter by its sample name (..._total) and has no units. */
static void put_meta(FILE *out, const struct om_labels *l, const char *family, const char *type,
		     const char *unit)
{
	const char *suffix =
	    l->flavour == OM_PROMETHEUS && strcmp(type, "counter") == 0 ? "_total" : "";
	if (l->flavour == OM_OPENMETRICS) {
		fprintf(out, "# TYPE %s %s\n", family, type);
		if (unit)
			fprintf(out, "# UNIT %s %s\n", family, unit);
		fprintf(out, "# HELP %s ", family);
	} else {
		fprintf(out, "# TYPE %s%s %s\n", family, suffix, type);
		fprintf(out, "# HELP %s%s ", family, suffix);
	}
}

/* The labels of a row: @key is "cpu", or the unit rows are summed by ("core" = "S0-D0-C1"). */
static void put_row_labels(FILE *out, const struct om_labels *l, const char *key, const char *cpu,
			   const char *core_type)
{
	fputc('{', out);
	put_label(out, "host", l->host, false);
	put_label(out, "mode", l->mode, true);
	put_label(out, key, cpu, true);
	put_label(out, "core_type", core_type, true);
}

static void put_value(FILE *out, double v) /* " %.10g\n" */
{
	char num[NUMFMT_MAX + 2];
	num[0] = ' ';
	size_t n = 1 + numfmt_g(num + 1, v, 10);
	num[n++] = '\n';
	fwrite(num, 1, n, out);
}

static void write_counters(FILE *out, const struct om_counters *c, const struct om_labels *l)
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
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		put_meta(out, l, kinds[k].family, "counter", kinds[k].unit);
		fprintf(out, "%s.\n", kinds[k].help);
		for (size_t i = 0; c && i < c->n; i++) {
			const struct om_series *s = &c->v[i];
			char cpu[16];
			if (s->cpu < 0)
				snprintf(cpu, sizeof(cpu), "all");
			else
				snprintf(cpu, sizeof(cpu), "%d", s->cpu);
			struct om_labels sl = {l->host, s->mode, l->flavour};
			fprintf(out, "%s_total", kinds[k].family);
			put_row_labels(out, &sl, "cpu", cpu, s->core_type);
			put_label(out, "event", s->event, true);
			fputc('}', out);
			put_value(out, *(const double *)((const char *)s + kinds[k].offset));
		}
	}
}

static void write_gauges(FILE *out, const struct frame *f, const struct om_labels *l)
{
	const struct snapshot *snap = f->snap;
	for (int m = 0; m < snap->nmetrics; m++) {
		const struct session_metric *sm = &snap->metrics[m];
		const char *unit = unit_name(sm->unit);
		if (unit && strcasecmp(sm->name, sm->unit) == 0)
			unit = NULL; /* "ghz" in GHz: the name says it already */
		char family[96];
		snprintf(family, sizeof(family), "pmutop_metric_");
		FILE *mem = fmemopen(family + strlen(family), sizeof(family) - strlen(family), "w");
		if (!mem)
			continue;
		put_name(mem, sm->name);
		if (unit)
			fprintf(mem, "_%s", unit);
		fclose(mem);
		put_meta(out, l, family, "gauge", unit);
		put_help(out, sm->desc[0] ? sm->desc : sm->name);
		if (sm->unit[0] && !unit) {
			fputs(" [", out);
			put_help(out, sm->unit);
			fputc(']', out);
		}
		fputc('\n', out);
		for (int r = snapshot_cpu_rows(snap) ? 0 : snap->nrows; r <= snap->nrows; r++) {
			double v = r < snap->nrows ? snap->values[r * snap->nmetrics + m]
						   : snap->total_values[m];
			if (!isfinite(v))
				continue; /* n/a: left out, never 0 */
			char cpu[ROW_LABEL_MAX];
			if (r < snap->nrows && f->row_keys)
				snprintf(cpu, sizeof(cpu), "%s", f->row_keys[r].label);
			else if (r < snap->nrows)
				snprintf(cpu, sizeof(cpu), "%d", snap->cpus[r]);
			else
				snprintf(cpu, sizeof(cpu), "all");
			fputs(family, out);
			/* the all row keeps its cpu="all" label under any unit */
			put_row_labels(out, l,
				       f->row_keys && r < snap->nrows ? rows_unit_name(f->rows)
								      : "cpu",
				       cpu, r < snap->nrows && f->core_type ? f->core_type[r] : "");
			fputc('}', out);
			put_value(out, v);
		}
	}
}

int om_write(FILE *out, const struct frame *f, enum om_flavour flavour)
{
	struct om_labels l = {.host = f->machine && f->machine->host[0] ? f->machine->host : "",
			      .mode = f->mode,
			      .flavour = flavour};
	write_counters(out, f->counters, &l);
	write_gauges(out, f, &l);
	if (flavour == OM_OPENMETRICS)
		fputs("# EOF\n", out);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

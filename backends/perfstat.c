/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfstat.c: parses perf stat interval CSV/JSON and synthesizes cumulative counter ticks. */
#include "perfstat.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "jsonbound.h"
#include "linereader.h"

enum entry_kind { E_VALUE, E_NOT_COUNTED, E_NOT_SUPPORTED };

/* One usable line: one counter of one CPU (or one unit: a core, a socket, ...) in one interval. */
struct entry {
	int interval;
	int cpu; /* the CPU; in a per-unit capture the unit's index in first-seen order */
	int ev;
	enum entry_kind kind;
	double value; /* as printed (scaled), in ns for msec */
	double pct;   /* running percentage 0..100 */
	double run;   /* the counter's run time, ns (0 when not printed) */
};

#define AGGREGATED_CPU 0 /* the one row of a capture without -A */

struct import {
	const char *path; /* escaped */
	struct rec_file *out;
	struct entry *e;
	int n, cap;
	char (*names)[REC_NAME_MAX];
	bool *frac_warned;
	int nev;
	double *times; /* interval timestamps, s */
	int nint, capint;
	struct cpuset cpus;
	int line;
	char sep[16];	 /* the -x separator, "," by default */
	int layout;	 /* 0 = not yet seen, else LAYOUT_PER_CPU or LAYOUT_AGGREGATED */
	bool untimed;	 /* no -I: one interval, its length from the run times */
	int nsummary;	 /* perf's trailing "summary" lines skipped */
	double duration; /* duration_time of an untimed capture, ns (0 = none) */
	double elapsed;	 /* untimed: the wall-clock time from cpu-clock/task-clock and their
			  * "CPUs utilized", ns (0 = none) */
	char fatal[400]; /* the first line that is not perf stat output: "path:line: why" */
	/* a per-unit capture (--per-core, --per-socket, ...): its shape and units */
	const struct unit_shape *shape;
	struct unit_row {
		char label[48]; /* as perf printed it: "S0-D0-C1" */
		int cpus;	/* perf's "cpus" column (JSON "aggregate-number"), the largest */
	} * units;
	int nunits;
	/* [cpu][event]: 1 + the last interval that counter was in (a repeat is refused in constant
	 * time, not by a scan of the interval); a row's array is allocated when it is first seen */
	int **seen;
	int *unit_hash; /* [UNIT_HASH]: 1 + a unit's index, 0 empty (open addressing by label) */
};

#define UNIT_HASH (2 * REC_MAX_CPU) /* at most REC_MAX_CPU units: half full at worst */

enum { LAYOUT_PER_CPU = 1, LAYOUT_AGGREGATED, LAYOUT_PER_UNIT };

/* perf stat's aggregation shapes other than per CPU (-A) and the total: the unit column it
 * prints (S0-D0-C1, S0, N0, ...), the option that makes it, and the rows it becomes (the
 * row unit names of rows.h). perf 6.1 writes core, die, socket and node; later perf adds cache
 * and cluster in the same layout. */
struct unit_shape {
	const char *pattern; /* S: "S<n>", D: "-D<n>", ... in this order */
	const char *option, *noun;
	const char *json_key; /* the JSON member holding the unit */
};
static const struct unit_shape unit_shapes[] = {
    {"S-D-C", "--per-core", "core", "core"},
    {"S-D-L-ID", "--per-cache", "cache", "cache"},
    {"S-D-CLS", "--per-cluster", "cluster", "cluster"},
    {"S-D", "--per-die", "die", "die"},
    {"S", "--per-socket", "socket", "socket"},
    {"N", "--per-node", "node", "node"},
};

static const char *const format_names[] = {
    [PERFSTAT_UNKNOWN] = "unknown", [PERFSTAT_CSV] = "csv",
    [PERFSTAT_JSON] = "json",	    [PERFSTAT_RECORDING] = "recording",
    [PERFSTAT_HUMAN] = "human",	    [PERFSTAT_METRIC_ONLY] = "metric-only",
};

const char *perfstat_format_name(enum perfstat_format fmt)
{
	return (unsigned)fmt < sizeof(format_names) / sizeof(format_names[0]) ? format_names[fmt]
									      : "unknown";
}

static void warn(struct import *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct import *im, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (im->out->nwarnings < 1000)
		rec_file_warn(im->out, "%s:%d: %s", im->path, im->line, msg);
}

/* A line that is not what perf stat writes: the import fails with it (the first one). */
static void bad(struct import *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct import *im, const char *fmt, ...)
{
	if (im->fatal[0])
		return;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(im->fatal, sizeof(im->fatal), "%s:%d: %s", im->path, im->line, msg);
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Whole-string number (leading/trailing blanks allowed). */
static bool parse_double(const char *s, double *v)
{
	char *end;
	s = skip_ws(s);
	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	end = (char *)skip_ws(end);
	return !*end && errno == 0 && isfinite(*v);
}

static bool is_digits(const char *s)
{
	s = skip_ws(s);
	return *s && strspn(s, "0123456789") == strlen(s);
}

static int event_index(struct import *im, const char *name)
{
	for (int i = 0; i < im->nev; i++)
		if (strcmp(im->names[i], name) == 0)
			return i;
	if (im->nev >= REC_MAX_EVENTS) {
		bad(im, "more than %d events", REC_MAX_EVENTS);
		return -1;
	}
	void *n = realloc(im->names, (size_t)(im->nev + 1) * sizeof(*im->names));
	if (!n)
		return -1;
	im->names = n;
	bool *f = realloc(im->frac_warned, (size_t)(im->nev + 1) * sizeof(*f));
	if (!f)
		return -1;
	im->frac_warned = f;
	f[im->nev] = false;
	snprintf(im->names[im->nev], REC_NAME_MAX, "%s", name);
	return im->nev++;
}

/* The CPUs an aggregated capture sums: perf prints each counter's running time and running
 * share summed over the CPUs, so enabled time / interval is the number of CPUs. The largest
 * over the counters and intervals (a CPU offline for part of the run lowers its count), or -1
 * when the capture has no run times or no interval lengths (perf stat without -I and without
 * duration_time). */
static int aggregated_cpus(const struct import *im)
{
	double most = 0;
	if (im->untimed && !(im->duration > 0) && !(im->elapsed > 0))
		return -1;
	for (int i = 0; i < im->n; i++) {
		const struct entry *en = &im->e[i];
		int iv = en->interval;
		double dt = (im->times[iv] - (iv ? im->times[iv - 1] : 0)) * 1e9; /* ns */
		if (en->kind != E_VALUE || !(en->run > 0) || !(en->pct > 0) || !(dt > 0))
			continue;
		double n = en->run * 100 / en->pct / dt;
		if (n > most)
			most = n;
	}
	return most >= 0.5 && most < REC_MAX_CPU ? (int)lround(most) : -1;
}

/* Adds one parsed line; all fields as text from either format. @t is NAN for a capture without
 * -I; @cpustr is NULL for an aggregated capture (no -A); @unit_row is the unit's index
 * (unit_index) in a per-unit capture, else -1. */
static void add_entry(struct import *im, double t, const char *cpustr, int unit_row,
		      const char *value, const char *unit, const char *event, double run,
		      double pct, const char *metric, const char *metric_unit)
{
	char ebuf[160];
	long cpu = AGGREGATED_CPU;
	int layout = unit_row >= 0 ? LAYOUT_PER_UNIT : cpustr ? LAYOUT_PER_CPU : LAYOUT_AGGREGATED;
	if (unit_row >= 0) {
		cpu = unit_row;
	} else if (cpustr) {
		cpustr = skip_ws(cpustr);
		if (strncmp(cpustr, "CPU", 3) == 0)
			cpustr += 3;
		if (!is_digits(cpustr)) {
			bad(im, "bad CPU column");
			return;
		}
		cpu = strtol(cpustr, NULL, 10);
		if (cpu < 0 || cpu >= REC_MAX_CPU) {
			bad(im, "CPU %ld out of range", cpu);
			return;
		}
	}
	if (im->layout && im->layout != layout) {
		bad(im, "%s line in a%s capture", cpustr ? "a per-CPU" : "an aggregated",
		    im->layout == LAYOUT_PER_CPU    ? " per-CPU (-A)"
		    : im->layout == LAYOUT_PER_UNIT ? " per-unit (--per-core, ...)"
						    : "n aggregated (no -A)");
		return;
	}
	if (!*event) {
		bad(im, "no event name");
		return;
	}
	if (strlen(event) >= REC_NAME_MAX) {
		rec_escape(event, ebuf, sizeof(ebuf));
		bad(im, "event name '%s' longer than %d bytes", ebuf, REC_NAME_MAX - 1);
		return;
	}
	bool untimed = isnan(t);
	if (untimed && im->nint > 0 && !im->untimed) { /* after the intervals: perf's totals */
		im->nsummary++;
		warn(im, "perf's summary line (no interval timestamp after the intervals) skipped");
		return;
	}
	if ((im->nint > 0 && untimed != im->untimed) || (!untimed && (!isfinite(t) || t <= 0))) {
		bad(im, untimed ? "no interval timestamp in an interval (-I) capture"
				: "bad interval timestamp, line skipped");
		return;
	}
	if (!isfinite(pct) || pct < 0 || !isfinite(run) || run < 0) {
		bad(im, "bad running time or percentage");
		return;
	}
	struct entry en = {.cpu = (int)cpu, .pct = pct > 100 ? 100 : pct, .run = run};
	value = skip_ws(value);
	if (strcmp(value, "<not counted>") == 0) {
		en.kind = E_NOT_COUNTED;
	} else if (strcmp(value, "<not supported>") == 0) {
		en.kind = E_NOT_SUPPORTED;
	} else if (!parse_double(value, &en.value) || en.value < 0) {
		rec_escape(value, ebuf, 64);
		bad(im, "bad counter value '%s'", ebuf);
		return;
	}
	if (untimed)
		t = 1; /* one interval; its length is set when the file is read */
	/* Interval: a new timestamp starts a new one; time must not go back. */
	if (im->nint == 0 || t > im->times[im->nint - 1]) {
		if (im->nint == im->capint) {
			int nc = im->capint ? im->capint * 2 : 64;
			double *tt = realloc(im->times, (size_t)nc * sizeof(*tt));
			if (!tt)
				return;
			im->times = tt;
			im->capint = nc;
		}
		im->times[im->nint++] = t;
	} else if (t < im->times[im->nint - 1]) {
		bad(im, "timestamp %.9g goes back in time", t);
		return;
	}
	im->untimed = untimed;
	im->layout = layout;
	en.interval = im->nint - 1;
	if (untimed && strcmp(event, "duration_time") == 0 && en.kind == E_VALUE)
		im->duration = en.value; /* ns: the wall-clock length of the run */
	double used;
	if (untimed && en.kind == E_VALUE && metric && metric_unit &&
	    strcmp(skip_ws(metric_unit), "CPUs utilized") == 0 && parse_double(metric, &used) &&
	    used > 0 && strcmp(skip_ws(unit), "msec") == 0 &&
	    (strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0) &&
	    en.value * 1e6 / used > im->elapsed)
		im->elapsed = en.value * 1e6 / used; /* msec of CPU time / CPUs = ns elapsed */
	int ev = event_index(im, event);
	if (ev < 0)
		return;
	en.ev = ev;
	if ((!im->seen && !(im->seen = calloc(REC_MAX_CPU, sizeof(*im->seen)))) ||
	    (!im->seen[en.cpu] && !(im->seen[en.cpu] = calloc(REC_MAX_EVENTS, sizeof(int))))) {
		bad(im, "out of memory");
		return;
	}
	if (im->seen[en.cpu][en.ev] == en.interval + 1) {
		char who[64];
		rec_escape(event, ebuf, sizeof(ebuf));
		if (layout == LAYOUT_PER_UNIT)
			rec_escape(im->units[en.cpu].label, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "CPU %d", en.cpu);
		bad(im, "%s event '%s' repeated in one interval", who, ebuf);
		return;
	}
	if (en.kind == E_VALUE) {
		if (strcmp(skip_ws(unit), "msec") == 0) {
			en.value *= 1e6; /* ns, as the kernel counts cpu-clock/task-clock */
		} else if (en.value != floor(en.value) && !im->frac_warned[ev]) {
			im->frac_warned[ev] = true;
			rec_escape(event, ebuf, sizeof(ebuf));
			warn(im, "event '%s' has fractional values; they are rounded to integers",
			     ebuf);
		}
	}
	if (im->n == im->cap) {
		int nc = im->cap ? im->cap * 2 : 256;
		struct entry *ne = realloc(im->e, (size_t)nc * sizeof(*ne));
		if (!ne)
			return;
		im->e = ne;
		im->cap = nc;
	}
	im->e[im->n++] = en;
	im->seen[en.cpu][en.ev] = en.interval + 1;
	cpuset_add(&im->cpus, en.cpu);
}

#define MAX_FIELDS 64

/* The shape whose unit column @s is ("S0-D0-C1": --per-core), or NULL. */
static const struct unit_shape *unit_shape_of(const char *s)
{
	s = skip_ws(s);
	for (size_t i = 0; i < sizeof(unit_shapes) / sizeof(unit_shapes[0]); i++) {
		const char *p = s, *q = unit_shapes[i].pattern;
		bool ok = true;
		while (*q && ok) {
			size_t n = strcspn(q, "-");
			if (strncmp(p, q, n) != 0 || !isdigit((unsigned char)p[n])) {
				ok = false;
				break;
			}
			p += n;
			while (isdigit((unsigned char)*p))
				p++;
			q += n;
			if (*q == '-') {
				if (*p != '-')
					ok = false;
				q++, p++;
			}
		}
		if (ok && !*skip_ws(p))
			return &unit_shapes[i];
	}
	return NULL;
}

/* The row of unit @label (perf's "cpus" @nr) of shape @sh: its index, or -1 (bad() said why). */
static int unit_index(struct import *im, const struct unit_shape *sh, const char *label,
		      const char *nr)
{
	char u[48];
	rec_escape(skip_ws(label), u, sizeof(u));
	if (im->shape && im->shape != sh) {
		bad(im, "a perf stat %s line (%s) in a %s capture", sh->option, u,
		    im->shape->option);
		return -1;
	}
	if (im->layout && im->layout != LAYOUT_PER_UNIT) {
		bad(im, "a perf stat %s line (%s) in a%s capture", sh->option, u,
		    im->layout == LAYOUT_PER_CPU ? " per-CPU (-A)" : "n aggregated");
		return -1;
	}
	double cpus;
	if (!nr || !is_digits(nr) || !parse_double(nr, &cpus) || cpus < 1 || cpus >= REC_MAX_CPU) {
		bad(im, "%s %s: bad CPU count '%.20s' after the unit", sh->noun, u, nr ? nr : "");
		return -1;
	}
	label = skip_ws(label);
	size_t len = strlen(label);
	while (len && (label[len - 1] == ' ' || label[len - 1] == '\t'))
		len--;
	if (!im->unit_hash && !(im->unit_hash = calloc(UNIT_HASH, sizeof(int)))) {
		bad(im, "out of memory");
		return -1;
	}
	uint32_t hash = 2166136261u; /* FNV-1a of the label */
	for (size_t k = 0; k < len; k++)
		hash = (hash ^ (unsigned char)label[k]) * 16777619u;
	size_t slot = hash % UNIT_HASH;
	int i;
	while ((i = im->unit_hash[slot] - 1) >= 0 &&
	       !(strlen(im->units[i].label) == len && strncmp(im->units[i].label, label, len) == 0))
		slot = (slot + 1) % UNIT_HASH;
	if (i < 0) {
		i = im->nunits;
		if (len >= sizeof(im->units[0].label) || im->nunits >= REC_MAX_CPU) {
			bad(im, "%s %s: too long or too many units", sh->noun, u);
			return -1;
		}
		struct unit_row *n = realloc(im->units, (size_t)(im->nunits + 1) * sizeof(*n));
		if (!n) {
			bad(im, "out of memory");
			return -1;
		}
		im->units = n;
		memcpy(n[i].label, label, len);
		n[i].label[len] = '\0';
		n[i].cpus = 0;
		im->nunits++;
		im->unit_hash[slot] = i + 1;
	}
	if ((int)cpus > im->units[i].cpus)
		im->units[i].cpus = (int)cpus;
	im->shape = sh;
	return i;
}

/* "0.85%": the variance column of perf stat -r N */
static bool is_variance(const char *s)
{
	char buf[40];
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n < 2 || n >= sizeof(buf) || s[n - 1] != '%')
		return false;
	memcpy(buf, s, n - 1);
	buf[n - 1] = '\0';
	double v;
	return parse_double(buf, &v) && v >= 0;
}

static bool is_count(const char *s)
{
	double v;
	s = skip_ws(s);
	return parse_double(s, &v) || strcmp(s, "<not counted>") == 0 ||
	       strcmp(s, "<not supported>") == 0;
}

/* One -x line: [time SEP][CPUn SEP]value SEP unit SEP event SEP run_ns SEP pct[SEP metric SEP
 * metric_unit]. The event may hold the separator (cpu/event=0x3c,umask=0/ with -x,). */
static void parse_csv_line(struct import *im, char *line)
{
	char *f[MAX_FIELDS];
	int n = 0;
	size_t seplen = strlen(im->sep);
	for (char *s = line;;) {
		if (n == MAX_FIELDS) {
			bad(im, "too many fields");
			return;
		}
		f[n++] = s;
		char *c = strstr(s, im->sep);
		if (!c)
			break;
		*c = '\0';
		s = c + seplen;
	}
	if (n >= 2 && strcmp(skip_ws(f[0]), "summary") == 0) {
		im->nsummary++;
		warn(im, "perf's summary line (perf stat --summary) skipped");
		return;
	}
	/* which leading columns there are: a timestamp (-I) and a CPU (-A) or a unit and its CPU
	 * count (per core, socket, ...: "[time,]S0-D0-C1,CPUS,value,...") */
	double t = NAN, pct;
	int base, unit_row = -1;
	const char *cpu = NULL;
	const struct unit_shape *sh;
	if ((sh = unit_shape_of(f[0])) != NULL) {
		base = 2;
		if ((unit_row = unit_index(im, sh, f[0], n >= 2 ? f[1] : NULL)) < 0)
			return;
	} else if (n >= 2 && (sh = unit_shape_of(f[1])) != NULL) {
		base = 3;
		if (!parse_double(f[0], &t)) {
			bad(im, "bad interval timestamp");
			return;
		}
		if ((unit_row = unit_index(im, sh, f[1], n >= 3 ? f[2] : NULL)) < 0)
			return;
	} else if (n >= 2 && strncmp(skip_ws(f[1]), "CPU", 3) == 0) {
		base = 2, cpu = f[1];
		if (!parse_double(f[0], &t)) {
			bad(im, "bad interval timestamp");
			return;
		}
	} else if (strncmp(skip_ws(f[0]), "CPU", 3) == 0) {
		base = 1, cpu = f[0];
	} else if (n >= 2 && is_count(f[1]) && parse_double(f[0], &t)) {
		base = 1;
	} else {
		base = 0;
	}
	if (n < base + 5) {
		bad(im, "not a perf stat -x line (%d fields)", n);
		return;
	}
	/* The event ends where "run_ns SEP pct" is followed by the end of the line or by exactly
	 * the two metric fields. */
	for (int k = base + 2; k + 2 < n; k++) {
		double run;
		if (!(n == k + 3 || n == k + 5) || !is_digits(f[k + 1]) ||
		    !parse_double(f[k + 1], &run) || !parse_double(f[k + 2], &pct))
			continue;
		/* perf stat -r N: the run-to-run variance "0.85%" follows the event */
		int last = k;
		if (k > base + 2 && is_variance(f[k]))
			last = k - 1;
		for (int j = base + 3; j <= last; j++)
			memcpy(f[j] - seplen, im->sep, seplen); /* rejoin the event's fields */
		add_entry(im, t, cpu, unit_row, f[base], f[base + 1], f[base + 2], run, pct,
			  n == k + 5 ? f[k + 3] : NULL, n == k + 5 ? f[k + 4] : NULL);
		return;
	}
	bad(im, "not a perf stat -x line (no run time and percentage)");
}

/* A JSON member as text: strings as they are, numbers printed. */
static const char *jtext(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	if (json_is_real(v)) {
		snprintf(buf, len, "%.17g", json_real_value(v));
		return buf;
	}
	return NULL;
}

static void parse_json_line(struct import *im, const char *line)
{
	json_error_t jerr;
	char jwhy[160];
	json_t *o =
	    jsonb_loadb(line, strlen(line), 0, JSONB_LINE_FACTOR, &jerr, jwhy, sizeof(jwhy));
	char b1[40], b2[40], b3[40], b4[40], b5[40], b6[40];
	if (!o || !json_is_object(o)) {
		bad(im, "not a perf stat JSON line (%s)", o ? "not an object" : jwhy);
		json_decref(o);
		return;
	}
	const char *interval = jtext(o, "interval", b1, sizeof(b1));
	const char *cpu = jtext(o, "cpu", b2, sizeof(b2));
	const char *value = jtext(o, "counter-value", b3, sizeof(b3));
	const char *pcts = jtext(o, "pcnt-running", b4, sizeof(b4));
	const char *unit = jtext(o, "unit", b5, sizeof(b5));
	const char *runs = jtext(o, "event-runtime", b6, sizeof(b6));
	json_t *ev = json_object_get(o, "event");
	double t = NAN, pct = 100, run = 0;
	/* per core, socket, ...: "core" : "S0-D0-C1", "aggregate-number" : CPUS (perf 6.1; later
	 * perf names the count "counters") */
	int unit_row = -1;
	for (size_t k = 0; k < sizeof(unit_shapes) / sizeof(unit_shapes[0]) && unit_row < 0; k++) {
		const struct unit_shape *sh = &unit_shapes[k];
		json_t *u = json_object_get(o, sh->json_key);
		if (!u)
			continue;
		char b9[40], ub[48];
		const char *nr = jtext(o, "aggregate-number", b9, sizeof(b9));
		if (!nr)
			nr = jtext(o, "counters", b9, sizeof(b9));
		const char *label = json_is_string(u) ? json_string_value(u) : "";
		if (unit_shape_of(label) != sh) {
			rec_escape(label, ub, sizeof(ub));
			bad(im, "bad \"%s\" unit '%s' (perf prints %s)", sh->json_key, ub,
			    sh->pattern);
		} else {
			unit_row = unit_index(im, sh, label, nr);
		}
		if (unit_row < 0) {
			json_decref(o);
			return;
		}
	}
	char b7[40], b8[40];
	const char *metric = jtext(o, "metric-value", b7, sizeof(b7));
	const char *metric_unit = jtext(o, "metric-unit", b8, sizeof(b8));
	if (interval && strcmp(interval, "summary") == 0) {
		im->nsummary++;
		warn(im, "perf's summary line (perf stat --summary) skipped");
	} else if (!json_is_string(ev) || !value)
		bad(im, "not a perf stat counter line (no event or counter-value)");
	else if (interval && !parse_double(interval, &t))
		bad(im, "bad interval timestamp");
	else if (pcts && !parse_double(pcts, &pct))
		bad(im, "bad running percentage");
	else if (runs && !parse_double(runs, &run))
		bad(im, "bad event-runtime");
	else
		add_entry(im, t, unit_row >= 0 ? NULL : cpu, unit_row, value, unit ? unit : "",
			  json_string_value(ev), run, pct, metric, metric_unit);
	json_decref(o);
}

/* The -x separator of a data line: the first of these that splits it into 5 or more fields. */
static const char *detect_sep(const char *line)
{
	static const char *const seps[] = {",", ";", "\t", "|", ":"};
	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		int n = 1;
		for (const char *p = strstr(line, seps[i]); p; p = strstr(p + 1, seps[i]))
			n++;
		if (n >= 5)
			return seps[i];
	}
	return NULL;
}

/* perf stat's human-readable output: its banner, the "#  time  counts unit events" header of
 * -I, or a count followed by a "# metric" comment in space-aligned columns. */
static bool looks_human(const char *s)
{
	if (strstr(s, "Performance counter stats for") || strstr(s, "seconds time elapsed"))
		return true;
	if (*s == '#')
		return strstr(s, " time ") && strstr(s, " counts ") && strstr(s, " events");
	const char *hash = strstr(s, "   # ");
	return hash && !strchr(s, '{') && !detect_sep(s);
}

/* perf stat --metric-only -x: a header of metric names after "time" (with -I), then numbers */
static bool looks_metric_only(const char *s)
{
	size_t n = strcspn(s, ",;\t|:");
	return n == 4 && strncmp(s, "time", 4) == 0 && s[n];
}

enum perfstat_format perfstat_detect_lr(struct linereader *lr)
{
	const char *line;
	size_t n;
	char err[8];
	enum perfstat_format fmt = PERFSTAT_UNKNOWN;
	int rc;
	/* waits for a stream's first line (the caller bounds that with lr_wait) */
	while ((rc = lr_next(lr, &line, &n, err, sizeof(err))) == LR_LINE || rc == LR_AGAIN) {
		if (rc == LR_AGAIN) {
			lr_wait(lr, -1);
			continue;
		}
		const char *s = line + strspn(line, " \t\r\n");
		if (looks_human(s)) {
			fmt = PERFSTAT_HUMAN;
			lr_unread(lr);
			break;
		}
		/* blank (all n bytes, so a NUL byte is not the end of a blank line) or a comment */
		if (s == line + n || *s == '#')
			continue;
		if (looks_metric_only(s))
			fmt = PERFSTAT_METRIC_ONLY;
		else if (*s == '{')
			fmt =
			    strstr(s, "\"pmutop-recording\"") ? PERFSTAT_RECORDING : PERFSTAT_JSON;
		else if (detect_sep(s))
			fmt = PERFSTAT_CSV;
		lr_unread(lr);
		break;
	}
	return fmt;
}

enum perfstat_format perfstat_detect(const char *path)
{
	char err[256];
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, 0, err, sizeof(err));
	if (!lr)
		return PERFSTAT_UNKNOWN;
	enum perfstat_format fmt = perfstat_detect_lr(lr);
	lr_close(lr);
	return fmt;
}

/* The raw deltas (value, enabled, running) of one printed count, such that count_delta()
 * gives back exactly the count perf printed (its own scaled estimate) and, as near as an integer
 * value allows, its running share: value * enabled / running = count, running / enabled = the
 * share rounded to a multiple of 1/count. A share of 100 % is time: enabled = running = @dt_ns.
 */
static void synth_delta(const struct entry *en, uint64_t dt_ns, uint64_t d[3])
{
	uint64_t dt = dt_ns ? dt_ns : 1;
	if (en->kind != E_VALUE) { /* <not counted>: enabled, never running */
		d[0] = d[2] = 0, d[1] = dt;
		return;
	}
	uint64_t count = (uint64_t)llround(en->value);
	if (en->pct >= 100) {
		d[0] = count, d[1] = d[2] = dt;
	} else if (count == 0) {
		d[0] = 0, d[1] = dt;
		d[2] = (uint64_t)llround((double)dt * en->pct / 100);
		if (d[2] == 0)
			d[2] = 1;
	} else {
		uint64_t v = (uint64_t)llround((double)count * en->pct / 100);
		v = v < 1 ? 1 : v > count ? count : v;
		d[0] = v, d[1] = count, d[2] = v;
	}
}

static int build(struct import *im, enum perfstat_format fmt, char *err, size_t errlen)
{
	struct rec_file *out = im->out;
	struct rec_header *h = &out->header;
	int ncpus = cpuset_count(&im->cpus);
	h->version = REC_FORMAT_VERSION;
	snprintf(h->pmutop, sizeof(h->pmutop), "%s", PMUTOP_VERSION);
	snprintf(h->backend, sizeof(h->backend), "replay");
	snprintf(h->source, sizeof(h->source), "%s",
		 fmt == PERFSTAT_CSV ? "perf-stat-csv" : "perf-stat-json");
	if (im->untimed) { /* no -I: one interval, as long as the run */
		double longest = 0;
		for (int i = 0; i < im->n; i++) {
			const struct entry *en = &im->e[i];
			/* a unit's run time is the sum over its CPUs (perf's "cpus" of them) */
			double per = im->layout == LAYOUT_PER_UNIT ? im->units[en->cpu].cpus : 1;
			if (en->pct > 0 && en->run * 100 / en->pct / per > longest)
				longest = en->run * 100 / en->pct / per;
		}
		/* the elapsed time: duration_time, else (per CPU or per unit) the longest enabled
		 * time of a CPU, else cpu-clock or task-clock over its "CPUs utilized"; an
		 * aggregated capture's run times are sums over an unknown number of CPUs */
		bool percpu =
		    (im->layout == LAYOUT_PER_CPU || im->layout == LAYOUT_PER_UNIT) && longest > 0;
		double ns = im->duration > 0  ? im->duration
			    : percpu	      ? longest
			    : im->elapsed > 0 ? im->elapsed
					      : 0;
		if (!(ns > 0)) {
			snprintf(
			    err, errlen,
			    "%s: no interval timestamps (-I) and nothing that gives the "
			    "elapsed time (perf sums the run times over the CPUs): record with "
			    "-I MS, or add -e duration_time",
			    im->path);
			return -1;
		}
		im->times[0] = ns / 1e9;
		rec_file_warn(out,
			      "%s: no interval timestamps (perf stat without -I): one interval of "
			      "%.3f s, from %s",
			      im->path, im->times[0],
			      im->duration > 0 ? "duration_time"
			      : percpu	       ? "the longest run time of a CPU"
					       : "cpu-clock or task-clock over its CPUs utilized");
	}
	if (im->layout == LAYOUT_AGGREGATED) {
		h->aggregated_cpus = aggregated_cpus(im);
		if (h->aggregated_cpus > 0)
			rec_file_warn(
			    out,
			    "%s: aggregated capture (perf stat without -A): the counts "
			    "are sums over %d CPUs (from the counters' enabled time), shown "
			    "as the all row",
			    im->path, h->aggregated_cpus);
		else
			rec_file_warn(out,
				      "%s: aggregated capture (perf stat without -A): the counts "
				      "are sums over an unknown number of CPUs, shown as the all "
				      "row; per-CPU averages (ncpus) are n/a",
				      im->path);
	}
	if (im->nsummary)
		rec_file_warn(out, "%s: %d summary line%s skipped (listed above)", im->path,
			      im->nsummary, im->nsummary > 1 ? "s" : "");
	if (!(im->times[0] >= 0 && im->times[0] < 4e6)) {
		snprintf(err, errlen, "%s: first interval time %g s is out of range", im->path,
			 im->times[0]);
		return -1;
	}
	h->interval_ms = (unsigned)llround(im->times[0] * 1e3);
	h->cpus = calloc((size_t)ncpus, sizeof(*h->cpus));
	out->modes = calloc(1, sizeof(*out->modes));
	out->ticks = calloc((size_t)im->nint, sizeof(*out->ticks));
	int *slot = calloc(REC_MAX_CPU, sizeof(int));
	/* cumulative accumulators per (cpu slot, event): value, enabled, running */
	uint64_t *acc = calloc((size_t)ncpus * (size_t)im->nev * 3, sizeof(uint64_t));
	int rc = -1;
	if (!h->cpus || !out->modes || !out->ticks || !slot || !acc)
		goto nomem;
	int cpu, k = 0;
	cpuset_for_each(cpu, &im->cpus)
	{
		slot[cpu] = k;
		h->cpus[k++].cpu = cpu;
	}
	h->ncpus = ncpus;
	if (im->layout == LAYOUT_PER_UNIT) { /* row numbers keyed by the units perf printed */
		snprintf(h->rows, sizeof(h->rows), "%s", im->shape->noun);
		for (int r = 0; r < ncpus; r++) {
			int u = h->cpus[r].cpu;
			snprintf(h->cpus[r].key, sizeof(h->cpus[r].key), "%s", im->units[u].label);
			h->cpus[r].key_cpus = im->units[u].cpus;
		}
		rec_file_warn(out,
			      "%s: perf stat %s capture: %d %s row%s as perf summed them (no "
			      "per-CPU rows)",
			      im->path, im->shape->option, ncpus, im->shape->noun,
			      ncpus == 1 ? "" : "s");
	}

	struct rec_mode *m = &out->modes[0];
	snprintf(m->name, sizeof(m->name), "perf-stat");
	m->events = calloc((size_t)im->nev, sizeof(*m->events));
	if (!m->events)
		goto nomem;
	m->nevents = im->nev;
	out->nmodes = 1;
	for (int i = 0; i < im->nev; i++) {
		snprintf(m->events[i].name, REC_NAME_MAX, "%s", im->names[i]);
		snprintf(m->events[i].spec, REC_SPEC_MAX, "%s", im->names[i]);
	}

	int ei = 0;
	for (int iv = 0; iv < im->nint; iv++) {
		struct rec_tick *t = &out->ticks[iv];
		if (rec_tick_alloc(t, ncpus, im->nev) < 0)
			goto nomem;
		out->nticks++;
		double dt = (im->times[iv] - (iv ? im->times[iv - 1] : 0)) * 1e9; /* ns */
		t->t = im->times[iv];
		t->interval_ms = dt / 1e6;
		for (int c = 0; c < ncpus; c++)
			t->cpus[c].cpu = h->cpus[c].cpu;
		for (; ei < im->n && im->e[ei].interval == iv; ei++) {
			const struct entry *en = &im->e[ei];
			int s = slot[en->cpu];
			uint64_t *a = &acc[((size_t)s * (size_t)im->nev + (size_t)en->ev) * 3];
			struct rec_counter *rc_ = &t->cpus[s].c[en->ev];
			if (en->kind == E_NOT_SUPPORTED)
				continue;
			uint64_t d[3];
			if (!(en->value < 9e18 && dt >= 0 && dt < 9e18)) {
				snprintf(err, errlen,
					 "%s: counts or times too large to represent (interval %d)",
					 im->path, iv + 1);
				goto out;
			}
			synth_delta(en, (uint64_t)llround(dt), d);
			if (a[0] > UINT64_MAX / 2 - d[0] || a[1] > UINT64_MAX / 2 - d[1]) {
				snprintf(err, errlen,
					 "%s: counts or times too large to represent (interval %d)",
					 im->path, iv + 1);
				goto out;
			}
			for (int k = 0; k < 3; k++)
				a[k] += d[k];
			rc_->present = true;
			rc_->raw.value = a[0];
			rc_->raw.enabled = a[1];
			rc_->raw.running = a[2];
		}
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", im->path);
out:
	free(slot);
	free(acc);
	return rc;
}

int perfstat_load_lr(struct linereader *lr, enum perfstat_format fmt, struct rec_file *out,
		     char *err, size_t errlen)
{
	struct import im = {.path = lr_name(lr), .out = out};
	memset(out, 0, sizeof(*out));
	if (fmt == PERFSTAT_RECORDING) {
		snprintf(err, errlen, "%s: this is a pmutop recording, not perf stat output",
			 im.path);
		return -1;
	}
	if (fmt == PERFSTAT_HUMAN) {
		snprintf(err, errlen,
			 "%s: perf stat's human output: re-run with -x, or -j (and -I MS -A -a "
			 "for intervals per CPU)",
			 im.path);
		return -1;
	}
	if (fmt == PERFSTAT_METRIC_ONLY) {
		snprintf(err, errlen,
			 "%s: perf stat --metric-only output holds metrics without the counts "
			 "they come from: re-run without --metric-only (pmutop computes the "
			 "metrics of its modes)",
			 im.path);
		return -1;
	}
	if (fmt != PERFSTAT_CSV && fmt != PERFSTAT_JSON) {
		snprintf(err, errlen, "%s: not perf stat -x, or -j output", im.path);
		return -1;
	}
	lr_set_limit(lr, LR_TEXT_LINE_MAX);
	const char *text;
	size_t n;
	int lrc, rc = 0;
	char line[LR_TEXT_LINE_MAX + 1];
	while ((lrc = lr_next(lr, &text, &n, err, errlen)) == LR_LINE || lrc == LR_AGAIN) {
		if (lrc == LR_AGAIN) {
			lr_wait(lr, -1);
			continue;
		}
		im.line = (int)lr_lineno(lr);
		if (memchr(text, '\0', n)) {
			snprintf(err, errlen, "%s:%d: NUL byte (not a text file)", im.path,
				 im.line);
			rc = -1;
			break;
		}
		if (n > LR_TEXT_LINE_MAX) { /* the first line, read before the format was known */
			snprintf(err, errlen, "%s:%d: line longer than %u bytes", im.path, im.line,
				 LR_TEXT_LINE_MAX);
			rc = -1;
			break;
		}
		memcpy(line, text, n + 1);
		const char *s = line + strspn(line, " \t");
		if (!*s || *s == '#')
			continue;
		if (fmt == PERFSTAT_CSV && !im.sep[0]) {
			const char *sep = detect_sep(s);
			snprintf(im.sep, sizeof(im.sep), "%s", sep ? sep : ",");
		}
		if (fmt == PERFSTAT_CSV)
			parse_csv_line(&im, line);
		else
			parse_json_line(&im, line);
		if (im.fatal[0]) {
			snprintf(err, errlen, "%s", im.fatal);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && lrc == LR_ERROR)
		rc = -1;
	else if (rc == 0 && im.n == 0) {
		snprintf(err, errlen,
			 "%s: no perf stat counter lines (record with perf stat -x, or -j, "
			 "optionally -I MS and -A -a)",
			 im.path);
		rc = -1;
	} else if (rc == 0) {
		rc = build(&im, fmt, err, errlen);
	}
	free(im.e);
	free(im.names);
	free(im.frac_warned);
	free(im.times);
	free(im.units);
	for (int c = 0; im.seen && c < REC_MAX_CPU; c++)
		free(im.seen[c]);
	free(im.seen);
	free(im.unit_hash);
	if (rc < 0)
		rec_file_free(out);
	return rc;
}

int perfstat_load(const char *path, enum perfstat_format fmt, struct rec_file *out, char *err,
		  size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct linereader *lr = lr_open(path, REC_HEAD_LINE_MAX, 0, err, errlen);
	if (!lr)
		return -1;
	if (fmt == PERFSTAT_UNKNOWN)
		fmt = perfstat_detect_lr(lr);
	int rc = perfstat_load_lr(lr, fmt, out, err, errlen);
	lr_close(lr);
	return rc;
}

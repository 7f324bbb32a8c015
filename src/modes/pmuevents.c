/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmuevents.c: perf's pmu-events JSON (mapfile.csv, event and metric files) as pmutop modes. */
#include "pmuevents.h"
#include "dirlist.h"
#include "expr.h"
#include "jsonbound.h"
#include "linereader.h"
#include "mode.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 256		       /* JSON files in one model directory */
#define MAX_REF_DEPTH 32	       /* metric references nested in one another */
#define LINE_MAX_JSON (PMUEV_FILE_MAX) /* a JSON file may be one line */

/* One event of the model's files (or of the arm64 common files). */
struct pmuev_event {
	char *name;   /* EventName */
	char *spec;   /* encoder spec, or NULL when unsupported */
	char *reason; /* why unsupported (uncore unit, no EventCode), or NULL */
	char *pmu;    /* the core type it belongs to (Unit cpu_core, cpu_atom), or NULL */
	/* x86 fields, for terms applied in a metric ("cpu@EV\,cmask\=1@") */
	unsigned long long code, umask, cmask, edge, inv, any, msr;
	bool x86;
};

struct pmuev_metric {
	char *name, *desc, *groups, *unit, *file, *threshold_text;
	double scale; /* ScaleUnit's number, 1 if none */
	struct expr *expr;
	struct expr *threshold;
	char *why; /* not evaluable here: the reason, or NULL */
	char *pmu; /* the core type it is for (Unit cpu_core, cpu_atom), or NULL: any */
};

struct pmuev_lib {
	char model[64];
	char archdir[4096];
	struct pmuev_machine mach;
	struct pmuev_event *ev;
	int nev;
	struct pmuev_event *std; /* arm64 ArchStdEvent table */
	int nstd;
	struct pmuev_metric *mt;
	int nmt;
	char **groups;
	int ngroups;
	int files;
	int evaluable;
	/* a hybrid model: the core types its metrics are for (Unit), distinct, in file order */
	char units[4][16];
	int nunits;
	bool per_type; /* the machine has those core PMUs: a mode per group and core type */
	char only[16]; /* one core PMU: the core type whose metrics apply, "" = every metric */
};

/* ---- small helpers ---------------------------------------------------------------------- */

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

/* A copy of @s with control bytes replaced by '?': file text never drives a terminal. */
static char *clean_dup(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return d;
}

static void *grow(void *p, int n, size_t size) { return realloc(p, (size_t)(n + 1) * size); }

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- mapfile.csv ------------------------------------------------------------------------ */

/* perf's x86 rule: a mapfile entry without a stepping matches the CPUID without one. */
static bool x86_match(const char *pattern, const char *cpuid)
{
	char id[64];
	int dashes = 0;
	for (const char *p = pattern; *p; p++)
		dashes += *p == '-';
	snprintf(id, sizeof(id), "%s", cpuid);
	if (dashes != 3) {
		char *last = strrchr(id, '-');
		if (last)
			*last = '\0';
	}
	regex_t re;
	regmatch_t m[1];
	if (regcomp(&re, pattern, REG_EXTENDED) != 0)
		return false;
	bool ok =
	    regexec(&re, id, 1, m, 0) == 0 && m[0].rm_so == 0 && (size_t)m[0].rm_eo == strlen(id);
	regfree(&re);
	return ok;
}

/* arm64: the MIDR without variant [23:20] and revision [3:0]; a regex entry as older kernels. */
static bool arm_match(const char *pattern, const char *cpuid)
{
	char *end;
	unsigned long long want = strtoull(pattern, &end, 16);
	if (*end == '\0' && end != pattern) {
		unsigned long long mask = ~(0xfULL << 20 | 0xfULL);
		return (want & mask) == (strtoull(cpuid, NULL, 16) & mask);
	}
	return x86_match(pattern, cpuid);
}

/* The model directory for @m from @archdir/mapfile.csv, or -1 with the reason. */
static int pick_model(const char *archdir, const struct pmuev_machine *m, char *model, size_t mlen,
		      char *err, size_t errlen)
{
	char path[4200], lerr[256];
	snprintf(path, sizeof(path), "%s/mapfile.csv", archdir);
	struct linereader *lr = lr_open(path, 4096, LR_TEXT, lerr, sizeof(lerr));
	if (!lr) {
		snprintf(err, errlen, "%s", lerr);
		return -1;
	}
	const char *text;
	size_t len;
	int entries = 0, rc;
	bool found = false;
	while (!found && (rc = lr_next(lr, &text, &len, lerr, sizeof(lerr))) == LR_LINE) {
		char line[4096], *f[4] = {0};
		snprintf(line, sizeof(line), "%s", text);
		if (line[0] == '#' || strncmp(line, "Family-model", 12) == 0 || !line[0])
			continue;
		int nf = 0;
		for (char *s = line, *tok; nf < 4 && (tok = strsep(&s, ","));)
			f[nf++] = tok;
		if (nf < 4)
			continue;
		for (int i = 0; i < 4; i++) {
			size_t n = strlen(f[i]);
			while (n && isspace((unsigned char)f[i][n - 1]))
				f[i][--n] = '\0';
		}
		if (strcmp(f[3], "core") != 0)
			continue;
		entries++;
		if (strcmp(m->arch, "arm64") == 0 ? arm_match(f[0], m->cpuid)
						  : x86_match(f[0], m->cpuid)) {
			if (strstr(f[2], "..") || f[2][0] == '/' || !f[2][0]) {
				snprintf(err, errlen, "%s: model directory \"%.60s\" leaves %s",
					 path, f[2], archdir);
				lr_close(lr);
				return -1;
			}
			snprintf(model, mlen, "%s", f[2]);
			found = true;
		}
	}
	if (!found && rc == LR_ERROR) {
		snprintf(err, errlen, "%s", lerr);
		lr_close(lr);
		return -1;
	}
	lr_close(lr);
	if (!found) {
		char id[80];
		text_escape(m->cpuid, strlen(m->cpuid), id, sizeof(id));
		snprintf(err, errlen, "%s: no model for this CPU (%s %s) among %d core entries",
			 path, strcmp(m->arch, "arm64") == 0 ? "MIDR" : "CPUID", id, entries);
		return -1;
	}
	return 0;
}

/* ---- JSON files ------------------------------------------------------------------------- */

/* A string member, or NULL. */
static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number member written as "0x1b7", "0x1b7,0x1bb" (the first counts), "3" or 3. */
static unsigned long long jnum(json_t *o, const char *key, bool *present)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v)) {
		*present = true;
		return (unsigned long long)json_integer_value(v);
	}
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	if (!s || !*s)
		return 0;
	*present = true;
	return strtoull(s, NULL, 0);
}

/* Parses a JSON file into an array; NULL with "path: reason" in @err. */
static json_t *load_json(const char *path, char *err, size_t errlen)
{
	size_t len;
	char *buf = lr_slurp(path, LINE_MAX_JSON, PMUEV_FILE_MAX, LR_TEXT, &len, err, errlen);
	if (!buf)
		return NULL;
	json_error_t jerr;
	char reason[200];
	json_t *root = jsonb_loadb(buf, len, JSON_REJECT_DUPLICATES, JSONB_FILE_FACTOR, &jerr,
				   reason, sizeof(reason));
	free(buf);
	if (!root) {
		char why[200];
		text_escape(reason, strlen(reason), why, sizeof(why));
		if (jerr.line > 0)
			snprintf(err, errlen, "%s:%d: %s", path, jerr.line, why);
		else /* no line: out of memory, or over the bound */
			snprintf(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	if (!json_is_array(root)) {
		snprintf(err, errlen, "%s: not a JSON array of events and metrics", path);
		json_decref(root);
		return NULL;
	}
	return root;
}

static bool core_unit(const char *unit)
{
	return !unit || !*unit || strcmp(unit, "cpu") == 0 || strcmp(unit, "cpu_core") == 0 ||
	       strcmp(unit, "cpu_atom") == 0 || strcasecmp(unit, "core") == 0;
}

/* A hybrid part's core type named by a JSON "Unit" or a metric's "PMU@", else NULL. */
static const char *hybrid_unit(const char *unit)
{
	return unit && (strcmp(unit, "cpu_core") == 0 || strcmp(unit, "cpu_atom") == 0) ? unit
											: NULL;
}

/* True when an entry of core type @pmu (NULL: any) serves core type @unit ("": any). */
static bool unit_fits(const char *pmu, const char *unit)
{
	return !pmu || !unit || !*unit || strcmp(pmu, unit) == 0;
}

/* The x86 PERFEVTSEL layout: event 0-7 (AMD: 32-35 for bits 8-11), umask 8-15, edge 18, any 21,
 * inv 23, cmask 24-31; offcore response in config1. */
static void x86_spec(struct pmuev_event *e)
{
	char buf[96];
	unsigned long long cfg = (e->code & 0xff) | ((e->code >> 8) & 0xf) << 32 |
				 (e->umask & 0xff) << 8 | (e->edge ? 1ULL << 18 : 0) |
				 (e->any ? 1ULL << 21 : 0) | (e->inv ? 1ULL << 23 : 0) |
				 (e->cmask & 0xff) << 24;
	/* the fixed-counter pseudo events: instructions, cycles, reference cycles */
	static const char *const fixed[] = {NULL, "perf::INSTRUCTIONS", "perf::CYCLES",
					    "perf::REF-CYCLES"};
	if (e->code == 0 && e->umask >= 1 && e->umask <= 3 && !e->cmask && !e->edge && !e->inv &&
	    !e->any && !e->msr)
		snprintf(buf, sizeof(buf), "%s", fixed[e->umask]);
	else if (e->msr)
		snprintf(buf, sizeof(buf), "r%llx:config1=%#llx", cfg, e->msr);
	else
		snprintf(buf, sizeof(buf), "r%llx", cfg);
	free(e->spec);
	e->spec = xstrdup(buf);
}

static const struct pmuev_event *find_in(const struct pmuev_event *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

/* The event @name of core type @unit ("": any): its own entry, else one of no core type. */
static const struct pmuev_event *find_event(const struct pmuev_lib *lib, const char *name,
					    const char *unit)
{
	const struct pmuev_event *any = NULL;
	for (int i = 0; i < lib->nev; i++)
		if (strcasecmp(lib->ev[i].name, name) == 0 && unit_fits(lib->ev[i].pmu, unit)) {
			if (lib->ev[i].pmu || !unit || !*unit)
				return &lib->ev[i];
			any = any ? any : &lib->ev[i];
		}
	return any;
}

static int add_event(struct pmuev_lib *lib, struct pmuev_event **v, int *n, json_t *o, bool is_std)
{
	const char *std = jstr(o, "ArchStdEvent");
	const char *name = jstr(o, "EventName");
	if (!name || !*name)
		name = std; /* arm64: {"ArchStdEvent": "L1D_CACHE"} is named after it */
	if (!name || !*name)
		return 0;
	struct pmuev_event e = {.name = clean_dup(name)};
	bool has_code = false, p = false;
	if (std && !is_std) {
		const struct pmuev_event *base = find_in(lib->std, lib->nstd, std);
		if (!base) {
			char c[64];
			text_escape(std, strlen(std), c, sizeof(c));
			char why[128];
			snprintf(why, sizeof(why), "ArchStdEvent %s is not in the common files", c);
			e.reason = xstrdup(why);
		} else {
			e.code = base->code;
			has_code = true;
		}
	}
	e.x86 = strcmp(lib->mach.arch, "x86") == 0;
	bool listed = false;
	unsigned long long code = jnum(o, "EventCode", &listed);
	if (listed || e.x86) /* x86: no EventCode is code 0 (the fixed counters' events) */
		e.code = code, has_code = true;
	e.umask = jnum(o, "UMask", &p);
	e.cmask = jnum(o, "CounterMask", &p);
	e.edge = jnum(o, "EdgeDetect", &p);
	e.inv = jnum(o, "Invert", &p);
	e.any = jnum(o, "AnyThread", &p);
	bool has_msr = false;
	e.msr = jnum(o, "MSRValue", &has_msr);
	const char *unit = jstr(o, "Unit");
	e.pmu = xstrdup(hybrid_unit(unit));
	if (!core_unit(unit)) {
		char u[48], why[128];
		text_escape(unit, strlen(unit), u, sizeof(u));
		snprintf(why, sizeof(why), "uncore event (unit %s)", u);
		free(e.reason);
		e.reason = xstrdup(why);
	} else if (!e.reason && !has_code) {
		e.reason = xstrdup("no EventCode");
	} else if (!e.reason) {
		if (e.x86) {
			x86_spec(&e);
		} else {
			char buf[32];
			snprintf(buf, sizeof(buf), "r%llx", e.code);
			e.spec = xstrdup(buf);
		}
	}
	struct pmuev_event *nv = grow(*v, *n, sizeof(*nv));
	if (!nv || !e.name) {
		free(e.name), free(e.spec), free(e.reason), free(e.pmu);
		return -1;
	}
	*v = nv;
	nv[(*n)++] = e;
	return 0;
}

static int add_metric(struct pmuev_lib *lib, json_t *o, const char *file)
{
	const char *name = jstr(o, "MetricName"), *expr = jstr(o, "MetricExpr");
	if (!name || !expr)
		return 0;
	struct pmuev_metric m = {.name = clean_dup(name),
				 .desc = clean_dup(jstr(o, "BriefDescription")),
				 .groups = clean_dup(jstr(o, "MetricGroup")),
				 .file = xstrdup(file),
				 .threshold_text = xstrdup(jstr(o, "MetricThreshold")),
				 .pmu = xstrdup(hybrid_unit(jstr(o, "Unit"))),
				 .scale = 1};
	const char *su = jstr(o, "ScaleUnit");
	if (su && *su) {
		char *end;
		double v = strtod(su, &end);
		if (end != su && isfinite(v)) {
			m.scale = v;
			while (*end == ' ')
				end++;
			m.unit = clean_dup(end);
		} else {
			m.unit = clean_dup(su);
		}
	}
	char perr[256];
	m.expr = expr_parse_flags(expr, EXPR_PERF, perr, sizeof(perr));
	if (!m.expr) {
		char why[320];
		snprintf(why, sizeof(why), "MetricExpr: %s", perr);
		m.why = xstrdup(why);
	}
	if (m.threshold_text) {
		m.threshold = expr_parse_flags(m.threshold_text, EXPR_PERF, perr, sizeof(perr));
		if (!m.threshold) {
			free(m.threshold_text);
			m.threshold_text = NULL; /* a broken threshold only loses the colour */
		}
	}
	struct pmuev_metric *nv = grow(lib->mt, lib->nmt, sizeof(*nv));
	if (!nv || !m.name) {
		free(m.name), free(m.desc), free(m.groups), free(m.file), free(m.unit);
		free(m.threshold_text), free(m.why), free(m.pmu);
		expr_free(m.expr), expr_free(m.threshold);
		return -1;
	}
	lib->mt = nv;
	nv[lib->nmt++] = m;
	return 0;
}

/* Reads one file's events (pass 0) or metrics (pass 1). */
static int read_file(struct pmuev_lib *lib, const char *path, int pass, bool is_std, char *err,
		     size_t errlen)
{
	json_t *root = load_json(path, err, errlen);
	if (!root)
		return -1;
	size_t i;
	json_t *o;
	json_array_foreach(root, i, o)
	{
		if (!json_is_object(o))
			continue;
		int rc = 0;
		if (pass == 0 && (jstr(o, "EventName") || jstr(o, "ArchStdEvent")))
			rc = is_std ? add_event(lib, &lib->std, &lib->nstd, o, true)
				    : add_event(lib, &lib->ev, &lib->nev, o, false);
		else if (pass == 1 && jstr(o, "MetricName"))
			rc = add_metric(lib, o, path);
		if (rc < 0) {
			snprintf(err, errlen, "%s: out of memory", path);
			json_decref(root);
			return -1;
		}
	}
	json_decref(root);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pmuevents_free(struct pmuev_lib *lib)
{
	if (!lib)
		return;
	for (int i = 0; i < lib->nev; i++)
		free(lib->ev[i].name), free(lib->ev[i].spec), free(lib->ev[i].reason),
		    free(lib->ev[i].pmu);
	for (int i = 0; i < lib->nstd; i++)
		free(lib->std[i].name), free(lib->std[i].spec), free(lib->std[i].reason),
		    free(lib->std[i].pmu);
	for (int i = 0; i < lib->nmt; i++) {
		struct pmuev_metric *m = &lib->mt[i];
		free(m->name), free(m->desc), free(m->groups), free(m->file), free(m->unit);
		free(m->threshold_text), free(m->why), free(m->pmu);
		expr_free(m->expr), expr_free(m->threshold);
	}
	for (int i = 0; i < lib->ngroups; i++)
		free(lib->groups[i]);
	free(lib->groups);
	free(lib->ev), free(lib->std), free(lib->mt);
	free(lib);
}

/* The metric @name for core type @unit ("": any): of that core type, else of none. perf keys a
 * hybrid model's metrics by (Unit, MetricName): cpu_core and cpu_atom both define SLOTS. */
static const struct pmuev_metric *find_metric(const struct pmuev_lib *lib, const char *name,
					      const char *unit)
{
	const struct pmuev_metric *any = NULL;
	for (int i = 0; i < lib->nmt; i++)
		if (strcasecmp(lib->mt[i].name, name) == 0 && unit_fits(lib->mt[i].pmu, unit)) {
			if (lib->mt[i].pmu || !unit || !*unit)
				return &lib->mt[i];
			any = any ? any : &lib->mt[i];
		}
	return any;
}

static bool in_groups(const char *groups, const char *g)
{
	size_t n = strlen(g);
	for (const char *p = groups; p && *p;) {
		size_t k = strcspn(p, ";,");
		if (k == n && strncmp(p, g, n) == 0)
			return true;
		p += k;
		while (*p == ';' || *p == ',' || *p == ' ')
			p++;
	}
	return false;
}

static void collect_groups(struct pmuev_lib *lib)
{
	for (int i = 0; i < lib->nmt; i++)
		for (const char *p = lib->mt[i].groups; p && *p;) {
			size_t k = strcspn(p, ";,");
			char g[64];
			if (k && k < sizeof(g)) {
				memcpy(g, p, k);
				g[k] = '\0';
				bool seen = false;
				for (int j = 0; j < lib->ngroups && !seen; j++)
					seen = strcmp(lib->groups[j], g) == 0;
				char **v =
				    seen ? NULL : grow(lib->groups, lib->ngroups, sizeof(*v));
				if (v && (v[lib->ngroups] = xstrdup(g))) {
					lib->groups = v;
					lib->ngroups++;
				} else if (v) {
					lib->groups = v;
				}
			}
			p += k;
			while (*p == ';' || *p == ',' || *p == ' ')
				p++;
		}
	if (lib->ngroups)
		qsort(lib->groups, (size_t)lib->ngroups, sizeof(*lib->groups), cmp_str);
}

/* ---- translating a metric into pmutop's formula ----------------------------------------- */

/* The events one translation collects (a mode's event list being built). */
struct tr_events {
	char alias[MODE_MAX_EVENTS][48];
	char spec[MODE_MAX_EVENTS][160];
	int n;
};

struct translator {
	const struct pmuev_lib *lib;
	const char *unit; /* the core type translated for ("": any) */
	const char *pmu;  /* the sysfs core PMU its kernel events are of ("cpu", "cpu_atom") */
	struct tr_events *ev;
	const char *stack[MAX_REF_DEPTH];
	int depth;
};

/* A formula name for a perf event: letters, digits, '_' and '.', at most 40 bytes, unique. */
static void make_alias(const struct tr_events *ev, const char *perf, char *out, size_t len)
{
	char base[41];
	size_t n = 0;
	for (const char *p = perf; *p && n < sizeof(base) - 1; p++) {
		char c = *p;
		if (!isalnum((unsigned char)c) && c != '_' && c != '.')
			c = '_';
		if (c == '_' && n && base[n - 1] == '_')
			continue;
		base[n++] = c;
	}
	while (n && base[n - 1] == '_')
		n--;
	base[n] = '\0';
	if (!n || isdigit((unsigned char)base[0]) || base[0] == '.')
		snprintf(out, len, "e_%s", base);
	else
		snprintf(out, len, "%s", base);
	for (int k = 2;; k++) {
		bool clash = false;
		for (int i = 0; i < ev->n && !clash; i++)
			clash = strcmp(ev->alias[i], out) == 0;
		for (int i = 0; mode_builtin_vars[i] && !clash; i++)
			clash = strcmp(mode_builtin_vars[i], out) == 0;
		if (!clash)
			return;
		snprintf(out, len, "%.36s_%d", base, k);
	}
}

/* perf's generic event names a metric may use. */
static const struct {
	const char *perf, *spec;
} generic_events[] = {
    {"cycles", "perf::CYCLES"},
    {"cpu-cycles", "perf::CYCLES"},
    {"instructions", "perf::INSTRUCTIONS"},
    {"ref-cycles", "perf::REF-CYCLES"},
    {"branches", "perf::BRANCHES"},
    {"branch-instructions", "perf::BRANCHES"},
    {"branch-misses", "perf::BRANCH-MISSES"},
    {"cache-references", "perf::CACHE-REFERENCES"},
    {"cache-misses", "perf::CACHE-MISSES"},
    {"task-clock", "perf::TASK-CLOCK"},
    {"cpu-clock", "perf::CPU-CLOCK"},
    {"context-switches", "perf::CONTEXT-SWITCHES"},
    {"cs", "perf::CONTEXT-SWITCHES"},
    {"page-faults", "perf::PAGE-FAULTS"},
};

/* Applies "cmask=1", "inv", "edge", "umask=0x80", "any" from a metric's @...@ to a copy of @e. */
static int apply_terms(struct pmuev_event *e, char *terms, char *why, size_t wl)
{
	for (char *s = terms, *t; (t = strsep(&s, ","));) {
		if (!*t)
			continue;
		char *eq = strchr(t, '=');
		unsigned long long v = 1;
		if (eq) {
			*eq = '\0';
			v = strtoull(eq + 1, NULL, 0);
		}
		if (strcmp(t, "cmask") == 0)
			e->cmask = v;
		else if (strcmp(t, "inv") == 0)
			e->inv = v;
		else if (strcmp(t, "edge") == 0)
			e->edge = v;
		else if (strcmp(t, "umask") == 0)
			e->umask = v;
		else if (strcmp(t, "any") == 0)
			e->any = v;
		else if (strcmp(t, "event") == 0)
			e->code = v;
		else {
			char c[40];
			text_escape(t, strlen(t), c, sizeof(c));
			snprintf(why, wl, "term %s is not supported", c);
			return -1;
		}
	}
	if (!e->x86) {
		snprintf(why, wl, "event terms are only supported on x86");
		return -1;
	}
	x86_spec(e);
	return 0;
}

/* The encoder spec for a perf event reference ("INST_RETIRED.ANY", "cpu@EV,cmask=1@",
 * "msr@tsc@", "topdown-fe-bound", "cycles:k"), or -1 with the reason. */
static int event_spec(const struct translator *tr, const char *ref, char *spec, size_t sl,
		      char *why, size_t wl)
{
	const struct pmuev_lib *lib = tr->lib;
	char buf[512], pmu[64] = "", *name = buf, *terms = NULL, *mods = NULL;
	snprintf(buf, sizeof(buf), "%s", ref);
	char *at = strchr(buf, '@');
	if (at) {
		char *close = strchr(at + 1, '@');
		*at = '\0';
		snprintf(pmu, sizeof(pmu), "%.63s", buf);
		name = at + 1;
		if (close) {
			*close = '\0';
			if (close[1])
				mods = close + 1;
		}
		char *comma = strchr(name, ',');
		if (comma) {
			*comma = '\0';
			terms = comma + 1;
		}
	} else {
		char *colon = strchr(buf, ':');
		if (colon) {
			*colon = '\0';
			mods = colon + 1;
		}
	}
	char c[80];
	text_escape(ref, strlen(ref), c, sizeof(c));
	if (strcmp(pmu, "msr") == 0) {
		snprintf(spec, sl, "msr/%.100s/", name);
		return 0;
	}
	if (*pmu && strcmp(pmu, "cpu") != 0 && strcmp(pmu, "cpu_core") != 0 &&
	    strcmp(pmu, "cpu_atom") != 0) {
		char p[64];
		text_escape(pmu, strlen(pmu), p, sizeof(p));
		snprintf(why, wl, "event %s: PMU %s is not a core PMU", c, p);
		return -1;
	}
	if (hybrid_unit(pmu) && *tr->unit && strcmp(pmu, tr->unit) != 0) {
		snprintf(why, wl, "event %s is of core type %s, not %s", c, pmu, tr->unit);
		return -1;
	}
	if (mods && *mods && strspn(mods, "ukhGHIp") != strlen(mods)) {
		snprintf(why, wl, "event %s: unknown modifier", c);
		return -1;
	}
	const struct pmuev_event *e = find_event(lib, name, tr->unit);
	if (e) {
		if (!e->spec) {
			snprintf(why, wl, "event %s: %s", c, e->reason ? e->reason : "unsupported");
			return -1;
		}
		struct pmuev_event copy = *e;
		copy.spec = NULL;
		if (terms && apply_terms(&copy, terms, why, wl) < 0) {
			free(copy.spec);
			return -1;
		}
		const char *s = copy.spec ? copy.spec : e->spec;
		if (mods && *mods && strchr(s, ':'))
			snprintf(why, wl, "event %s: modifiers and config1 together", c);
		else
			snprintf(spec, sl, "%s%s%s", s, mods && *mods ? ":" : "",
				 mods && *mods ? mods : "");
		bool bad = mods && *mods && strchr(s, ':');
		free(copy.spec);
		return bad ? -1 : 0;
	}
	for (size_t i = 0; i < sizeof(generic_events) / sizeof(generic_events[0]); i++)
		if (strcasecmp(generic_events[i].perf, name) == 0 && !terms) {
			snprintf(spec, sl, "%s%s%s", generic_events[i].spec, mods ? ":" : "",
				 mods ? mods : "");
			return 0;
		}
	if (strchr(name, '-') && !terms && strcmp(lib->mach.arch, "x86") == 0) {
		/* a kernel sysfs event of the core PMU: topdown-fe-bound, slots, ... */
		snprintf(spec, sl, "%s/%.100s/%.8s", tr->pmu, name, mods ? mods : "");
		return 0;
	}
	snprintf(why, wl, "event %s is not in the model's event files", c);
	return -1;
}

static int literal(const struct pmuev_lib *lib, const char *name, double *v)
{
	const struct pmuev_machine *m = &lib->mach;
	if (strcasecmp(name, "#smt_on") == 0 && m->smt_on >= 0)
		return *v = m->smt_on, 0;
	if (strcmp(name, "#num_cpus") == 0 && m->num_cpus > 0)
		return *v = m->num_cpus, 0;
	if (strcmp(name, "#num_cpus_online") == 0 && m->num_online > 0)
		return *v = m->num_online, 0;
	if (strcmp(name, "#num_cores") == 0 && m->num_cores > 0)
		return *v = m->num_cores, 0;
	if (strcmp(name, "#num_packages") == 0 && m->num_packages > 0)
		return *v = m->num_packages, 0;
	if (strcmp(name, "#num_dies") == 0 && m->num_dies > 0)
		return *v = m->num_dies, 0;
	if (strcmp(name, "#slots") == 0 && m->slots > 0)
		return *v = m->slots, 0;
	/* pmutop counts every CPU system-wide, so a core's threads are all counted */
	if (strcmp(name, "#core_wide") == 0)
		return *v = 1, 0;
	if (strcmp(name, "#system_tsc_freq") == 0 && m->tsc_ghz > 0)
		return *v = m->tsc_ghz * 1e9, 0;
	if (strcasecmp(name, "#SYSTEM_TSC_FREQ") == 0 && m->tsc_ghz > 0)
		return *v = m->tsc_ghz * 1e9, 0;
	return -1;
}

static int translate(struct translator *tr, const struct pmuev_metric *m, char *out, size_t len,
		     char *why, size_t wl);

static void put_number(double v, char *out, size_t len)
{
	snprintf(out, len, v < 0 ? "(%.17g)" : "%.17g", v);
}

static int rename_var(void *ctx, const char *name, char *out, size_t len, char *why, size_t wl)
{
	struct translator *tr = ctx;
	const struct pmuev_lib *lib = tr->lib;
	char c[80];
	text_escape(name, strlen(name), c, sizeof(c));
	if (name[0] == '#') {
		double v;
		if (literal(lib, name, &v) < 0) {
			snprintf(why, wl, "literal %s is not known here", c);
			return -1;
		}
		put_number(v, out, len);
		return 0;
	}
	if (strcmp(name, "duration_time") == 0) {
		snprintf(out, len, "interval"); /* perf's duration_time reads in seconds */
		return 0;
	}
	if (strncmp(name, "has_event(", 10) == 0 || strncmp(name, "source_count(", 13) == 0) {
		char inner[256], spec[160], w[200];
		const char *open = strchr(name, '(');
		snprintf(inner, sizeof(inner), "%.*s", (int)(strlen(open + 1) - 1), open + 1);
		int ok = event_spec(tr, inner, spec, sizeof(spec), w, sizeof(w)) == 0;
		if (name[0] == 's' && !ok) {
			snprintf(why, wl, "%s: %s", c, w);
			return -1;
		}
		snprintf(out, len, "%d", ok);
		return 0;
	}
	if (strncmp(name, "strcmp_cpuid_str(", 17) == 0) {
		char inner[256];
		snprintf(inner, sizeof(inner), "%.*s", (int)(strlen(name) - 18), name + 17);
		bool match = strcmp(lib->mach.arch, "arm64") == 0
				 ? arm_match(inner, lib->mach.cpuid)
				 : x86_match(inner, lib->mach.cpuid);
		snprintf(out, len, "%d", match);
		return 0;
	}
	const struct pmuev_metric *ref = find_metric(lib, name, tr->unit);
	if (ref) {
		for (int i = 0; i < tr->depth; i++)
			if (strcasecmp(tr->stack[i], ref->name) == 0) {
				char msg[400] = "";
				for (int k = i; k < tr->depth; k++)
					snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
						 "%s -> ", tr->stack[k]);
				snprintf(why, wl, "metric references form a cycle: %s%s", msg,
					 ref->name);
				return -1;
			}
		char *inner = malloc(PMUEV_FORMULA_MAX);
		if (!inner) {
			snprintf(why, wl, "out of memory");
			return -1;
		}
		int rc = translate(tr, ref, inner, PMUEV_FORMULA_MAX, why, wl);
		if (rc == 0)
			snprintf(out, len, "(%s)", inner);
		free(inner);
		if (rc == 0 && strlen(out) + 1 >= len) {
			snprintf(why, wl, "formula longer than %zu bytes", len - 1);
			return -1;
		}
		return rc;
	}
	char spec[160];
	if (event_spec(tr, name, spec, sizeof(spec), why, wl) < 0)
		return -1;
	struct tr_events *ev = tr->ev;
	for (int i = 0; i < ev->n; i++)
		if (strcmp(ev->spec[i], spec) == 0) {
			snprintf(out, len, "%s", ev->alias[i]);
			return 0;
		}
	if (ev->n >= MODE_MAX_EVENTS) {
		snprintf(why, wl, "more than %d events with the other metrics", MODE_MAX_EVENTS);
		return -1;
	}
	make_alias(ev, name, ev->alias[ev->n], sizeof(ev->alias[ev->n]));
	snprintf(ev->spec[ev->n], sizeof(ev->spec[ev->n]), "%s", spec);
	snprintf(out, len, "%s", ev->alias[ev->n]);
	ev->n++;
	return 0;
}

static int translate_expr(struct translator *tr, const char *owner, const struct expr *e, char *out,
			  size_t len, char *why, size_t wl)
{
	if (tr->depth >= MAX_REF_DEPTH) {
		snprintf(why, wl, "metric references nested deeper than %d", MAX_REF_DEPTH);
		return -1;
	}
	tr->stack[tr->depth++] = owner;
	int rc = expr_format(e, rename_var, tr, out, len, why, wl);
	tr->depth--;
	return rc < 0 ? -1 : 0;
}

static int translate(struct translator *tr, const struct pmuev_metric *m, char *out, size_t len,
		     char *why, size_t wl)
{
	if (!m->expr) {
		snprintf(why, wl, "%s: %s", m->name, m->why ? m->why : "no formula");
		return -1;
	}
	return translate_expr(tr, m->name, m->expr, out, len, why, wl);
}

/* ---- modes ------------------------------------------------------------------------------ */

static int mode_add_metric(struct mode *md, const struct pmuev_metric *m, const char *formula,
			   const char *threshold)
{
	struct mode_metric *v = grow(md->metrics, md->nmetrics, sizeof(*v));
	if (!v)
		return -1;
	md->metrics = v;
	char perr[256];
	struct mode_metric *mm = &v[md->nmetrics];
	*mm = (struct mode_metric){.name = xstrdup(m->name),
				   .desc = xstrdup(m->desc ? m->desc : ""),
				   .unit = xstrdup(m->unit ? m->unit : ""),
				   .good = NAN,
				   .warn = NAN,
				   .bad = NAN,
				   .threshold = threshold ? xstrdup(threshold) : NULL};
	mm->expr = expr_parse(formula, perr, sizeof(perr));
	if (!mm->expr || !mm->name) {
		expr_free(mm->expr);
		free(mm->name), free(mm->desc), free(mm->unit), free(mm->threshold);
		return -1;
	}
	md->nmetrics++;
	return 0;
}

/* The sysfs core PMU whose kernel events (topdown-fe-bound, slots) core type @unit uses. */
static const char *kernel_pmu(const struct pmuev_lib *lib, const char *unit)
{
	if (lib->per_type && *unit)
		return unit;
	return lib->mach.ncore_pmus > 0 ? lib->mach.core_pmus[0] : "cpu";
}

/* A mode over the metrics @want[] (indices into lib->mt) of core type @unit ("": any), named
 * @name. A metric named twice (a reference also in the group) is shown once. */
static struct mode *build_mode(struct pmuev_lib *lib, const char *name, const char *what,
			       const int *want, int nwant, const char *unit)
{
	struct mode *md = calloc(1, sizeof(*md));
	struct tr_events *ev = calloc(1, sizeof(*ev));
	char *formula = malloc(PMUEV_FORMULA_MAX), *thr = malloc(PMUEV_FORMULA_MAX);
	char *help = calloc(1, 8192);
	if (!md || !ev || !formula || !thr || !help) {
		free(md), free(ev), free(formula), free(thr), free(help);
		return NULL;
	}
	md->name = xstrdup(name);
	md->kind = MODE_KIND_COUNTERS;
	const char *file = NULL;
	int skipped = 0;
	size_t hl = 0;
	for (int k = 0; k < nwant; k++) {
		const struct pmuev_metric *m = &lib->mt[want[k]];
		bool seen = false;
		for (int i = 0; i < md->nmetrics && !seen; i++)
			seen = strcasecmp(md->metrics[i].name, m->name) == 0;
		if (seen)
			continue; /* the batch outputs key values by name: each once */
		struct tr_events save = *ev;
		struct translator tr = {
		    .lib = lib, .unit = unit, .pmu = kernel_pmu(lib, unit), .ev = ev};
		char why[512] = "";
		int rc = translate(&tr, m, formula, PMUEV_FORMULA_MAX, why, sizeof(why));
		if (rc == 0 && md->nmetrics >= MODE_RUN_MAX_METRICS)
			snprintf(why, sizeof(why), "more than %d metrics in one mode",
				 MODE_RUN_MAX_METRICS),
			    rc = -1;
		if (rc == 0 && m->scale != 1) {
			char *scaled = malloc(PMUEV_FORMULA_MAX);
			if (scaled && (size_t)snprintf(scaled, PMUEV_FORMULA_MAX, "%.17g * (%s)",
						       m->scale, formula) < PMUEV_FORMULA_MAX)
				snprintf(formula, PMUEV_FORMULA_MAX, "%s", scaled);
			else
				snprintf(why, sizeof(why), "formula too long"), rc = -1;
			free(scaled);
		}
		const char *threshold = NULL;
		if (rc == 0 && m->threshold) {
			char tw[256];
			struct tr_events tsave = *ev;
			/* the threshold names the metric itself: no cycle */
			if (translate_expr(&tr, "", m->threshold, thr, PMUEV_FORMULA_MAX, tw,
					   sizeof(tw)) == 0)
				threshold = thr;
			else
				*ev = tsave; /* the metric runs, only without its colour */
		}
		if (rc == 0 && mode_add_metric(md, m, formula, threshold) < 0)
			snprintf(why, sizeof(why), "out of memory"), rc = -1;
		if (rc < 0) {
			*ev = save;
			skipped++;
			if (hl < 8000)
				hl += (size_t)snprintf(help + hl, 8192 - hl,
						       "%snot evaluated: %s: %s", hl ? "\n" : "",
						       m->name, why);
			continue;
		}
		if (!file)
			file = m->file;
	}
	if (md->nmetrics == 0) {
		free(formula), free(thr), free(ev), free(help);
		mode_free(md);
		return NULL;
	}
	/* one events section for every family: the model was chosen for this CPU */
	md->sets = calloc(1, sizeof(*md->sets));
	md->nsets = 1;
	struct mode_events *s = md->sets;
	s->families = calloc(1, sizeof(char *));
	s->events = calloc((size_t)ev->n + 1, sizeof(*s->events));
	if (s->families && (s->families[0] = xstrdup("*")))
		s->nfamilies = 1;
	for (int i = 0; s->events && i < ev->n; i++) {
		s->events[i].alias = xstrdup(ev->alias[i]);
		s->events[i].spec = xstrdup(ev->spec[i]);
		s->nevents++;
	}
	char title[256], typ[40] = "";
	if (*unit)
		snprintf(typ, sizeof(typ), ", Unit %s", unit);
	snprintf(title, sizeof(title), "perf %s (%s%s): %d metric%s%s", what, lib->model, typ,
		 md->nmetrics, md->nmetrics == 1 ? "" : "s", skipped ? ", some not evaluable" : "");
	md->title = xstrdup(title);
	md->help = help;
	if (lib->per_type && *unit)
		md->pmu = xstrdup(unit); /* counted on that core type's CPUs alone */
	char src[4400];
	snprintf(src, sizeof(src), "%s (perf-events model %s%s)", file ? file : lib->archdir,
		 lib->model, typ);
	md->source = xstrdup(src);
	free(formula), free(thr), free(ev);
	return md;
}

static bool group_name_ok(const char *g)
{
	char name[MODE_NAME_MAX + 1];
	if (strlen(g) + 5 > MODE_NAME_MAX)
		return false;
	snprintf(name, sizeof(name), "perf:%.*s", MODE_NAME_MAX - 5, g);
	return mode_name_valid(name);
}

/* Drops the perf: modes of an earlier library (a running session owns its own copy). */
static void unregister_old(struct mode_registry *r)
{
	int k = 0;
	for (int i = 0; i < r->n; i++) {
		if (strncmp(r->modes[i]->name, "perf:", 5) == 0)
			mode_free(r->modes[i]);
		else
			r->modes[k++] = r->modes[i];
	}
	r->n = k;
}

/* The metrics of group @g for core type @unit ("": any) into @want; none when the group has
 * no metric of that very core type (its metrics of no core type go with each one that has). */
static int group_metrics(const struct pmuev_lib *lib, const char *g, const char *unit, int *want)
{
	int n = 0;
	bool own = !*unit;
	for (int i = 0; i < lib->nmt; i++)
		if (in_groups(lib->mt[i].groups, g) && unit_fits(lib->mt[i].pmu, unit)) {
			want[n++] = i;
			own |= lib->mt[i].pmu != NULL;
		}
	return own ? n : 0;
}

int pmuevents_register(struct pmuev_lib *lib, struct mode_registry *r, char *summary, size_t len)
{
	int modes = 0;
	unregister_old(r);
	int *want = calloc((size_t)lib->nmt + 1, sizeof(int));
	if (!want)
		return 0;
	for (int g = 0; g < lib->ngroups; g++)
		for (int u = 0; u < (lib->per_type ? lib->nunits : 1); u++) {
			const char *unit = lib->per_type ? lib->units[u] : lib->only;
			char what[80], name[96];
			snprintf(what, sizeof(what), "%s%s%s", lib->per_type ? unit : "",
				 lib->per_type ? "." : "", lib->groups[g]);
			if (!group_name_ok(what))
				continue;
			int n = group_metrics(lib, lib->groups[g], unit, want);
			snprintf(name, sizeof(name), "perf:%s", what);
			struct mode *md = n ? build_mode(lib, name, what, want, n, unit) : NULL;
			if (md) {
				mode_register(r, md);
				modes++;
			}
		}
	free(want);
	if (summary)
		snprintf(summary, len, "model %s (%s): %d modes, %d metrics, %d evaluable",
			 lib->model, lib->mach.cpuid, modes, lib->nmt, lib->evaluable);
	return modes;
}

/* Why metric @name cannot be evaluated here, or NULL when it can (or is unknown). */
static const char *pmuevents_why(const struct pmuev_lib *lib, const char *name, const char *unit)
{
	const struct pmuev_metric *m = find_metric(lib, name, unit);
	return m ? m->why : NULL;
}

const struct mode *pmuevents_mode(struct pmuev_lib *lib, struct mode_registry *r, const char *name,
				  char *err, size_t errlen)
{
	if (strncmp(name, "perf:", 5) == 0)
		name += 5;
	char c[80], full[80];
	size_t len = strlen(name);
	text_escape(name, len, c, sizeof(c));
	size_t keep = len < sizeof(full) - 6 ? len : sizeof(full) - 6; /* as snprintf truncates */
	memcpy(full, "perf:", 5);
	memcpy(full + 5, name, keep);
	full[5 + keep] = '\0';
	if (!group_name_ok(name)) {
		snprintf(err, errlen, "perf:%s is not a mode name (%s)", c, MODE_NAME_RULE);
		return NULL;
	}
	/* a model with metrics per core type: "cpu_atom.TopdownL1" */
	const char *unit = lib->only;
	for (int u = 0; lib->per_type && u < lib->nunits && unit == lib->only; u++) {
		size_t k = strlen(lib->units[u]);
		if (strncmp(name, lib->units[u], k) == 0 && name[k] == '.')
			unit = lib->units[u], name += k + 1;
	}
	if (lib->per_type && unit == lib->only) {
		snprintf(err, errlen,
			 "perf:%s: perf-events model %s has metrics per core type: perf:%s.%s or "
			 "perf:%s.%s (each counts on its core type's CPUs)",
			 c, lib->model, lib->units[0], c, lib->units[1], c);
		return NULL;
	}
	int *want = calloc((size_t)lib->nmt + 1, sizeof(int)), n = 0;
	if (!want) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	bool group = false;
	for (int g = 0; g < lib->ngroups && !group; g++)
		group = strcmp(lib->groups[g], name) == 0;
	if (group)
		n = group_metrics(lib, name, unit, want);
	const struct pmuev_metric *m = group ? NULL : find_metric(lib, name, unit);
	if (!group && m) {
		want[n++] = (int)(m - lib->mt);
		/* and the metrics it refers to, each shown too */
		const char *const *vars;
		int nv = m->expr ? expr_vars(m->expr, &vars) : 0;
		for (int k = 0; k < nv; k++) {
			const struct pmuev_metric *ref = find_metric(lib, vars[k], unit);
			if (ref && ref != m)
				want[n++] = (int)(ref - lib->mt);
		}
	}
	if (!n) {
		free(want);
		snprintf(err, errlen,
			 "no metric group or metric \"%s\" in perf-events model %s%s%s", c,
			 lib->model, *unit ? " for " : "", unit);
		return NULL;
	}
	struct mode *md = build_mode(lib, full, full + 5, want, n, unit);
	free(want);
	if (!md) {
		const char *why = pmuevents_why(lib, name, unit);
		snprintf(err, errlen, "%s: no metric can be evaluated here%s%s", full,
			 why ? ": " : "", why ? why : "");
		return NULL;
	}
	mode_register(r, md);
	return mode_find(r, full);
}

/* Adds metric index @i to @want once. */
static void want_add(int *want, int *n, int i)
{
	for (int k = 0; k < *n; k++)
		if (want[k] == i)
			return;
	want[(*n)++] = i;
}

const struct mode *pmuevents_metrics(struct pmuev_lib *lib, struct mode_registry *r,
				     const char *list, char *err, size_t errlen)
{
	/* a model with metrics per core type: "cpu_atom.TopdownL1[,...]" */
	const char *unit = lib->only, *names = list;
	for (int u = 0; lib->per_type && u < lib->nunits && unit == lib->only; u++) {
		size_t k = strlen(lib->units[u]);
		if (strncmp(list, lib->units[u], k) == 0 && list[k] == '.')
			unit = lib->units[u], names = list + k + 1;
	}
	if (lib->per_type && unit == lib->only) {
		char c[80];
		text_escape(list, strlen(list), c, sizeof(c));
		snprintf(err, errlen,
			 "-M %s: perf-events model %s has metrics per core type: perf:%s.%s or "
			 "perf:%s.%s (-M TYPE.NAME; each counts on its core type's CPUs)",
			 c, lib->model, lib->units[0], c, lib->units[1], c);
		return NULL;
	}
	int *want = calloc((size_t)lib->nmt + 1, sizeof(int)), n = 0;
	char *copy = strdup(names), *save = NULL, joined[256] = "";
	if (!want || !copy) {
		free(want), free(copy);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	int items = 0;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char c[80];
		if (unit && *unit && strncmp(item, unit, strlen(unit)) == 0 &&
		    item[strlen(unit)] == '.')
			item += strlen(unit) + 1; /* the list's core type named again */
		text_escape(item, strlen(item), c, sizeof(c));
		/* a metric first: tma_frontend_bound is the metric, not tma_frontend_bound_group */
		const struct pmuev_metric *m = find_metric(lib, item, unit);
		const char *group = NULL;
		for (int g = 0; !m && !group && g < lib->ngroups; g++)
			if (strcasecmp(lib->groups[g], item) == 0)
				group = lib->groups[g];
		if (m) {
			want_add(want, &n, (int)(m - lib->mt));
			const char *const *vars;
			int nv = m->expr ? expr_vars(m->expr, &vars) : 0;
			for (int k = 0; k < nv; k++) { /* the metrics it refers to, shown too */
				const struct pmuev_metric *ref = find_metric(lib, vars[k], unit);
				if (ref && ref != m)
					want_add(want, &n, (int)(ref - lib->mt));
			}
		} else if (group) {
			for (int i = 0; i < lib->nmt; i++)
				if (in_groups(lib->mt[i].groups, group) &&
				    unit_fits(lib->mt[i].pmu, unit))
					want_add(want, &n, i);
		} else {
			snprintf(
			    err, errlen,
			    "-M %s: no metric or metric group of that name in perf-events model "
			    "%s (whole names, any case; --list-modes lists the groups)",
			    c, lib->model);
			free(want), free(copy);
			return NULL;
		}
		size_t u = strlen(joined);
		snprintf(joined + u, sizeof(joined) - u, "%s%s", items++ ? "+" : "",
			 m ? m->name : group);
	}
	free(copy);
	if (!items) {
		free(want);
		snprintf(err, errlen, "-M: empty list");
		return NULL;
	}
	/* the mode's name: perf:NAME[+NAME...], cut to fit (a long metric name is still chosen) */
	char full[MODE_NAME_MAX + 1];
	const char *dot = lib->per_type ? "." : "", *type = lib->per_type ? unit : "";
	size_t pre = 5 + strlen(type) + strlen(dot);
	snprintf(full, sizeof(full), "perf:%s%s%s", type, dot, joined);
	if (strlen(joined) + pre > MODE_NAME_MAX)
		snprintf(full, sizeof(full), "perf:%s%s%.*s..", type, dot,
			 (int)(MODE_NAME_MAX - pre - 2), joined);
	for (char *q = full + pre; *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr("_-+.", *q))
			*q = '_';
	struct mode *md = build_mode(lib, full, joined, want, n, unit);
	free(want);
	if (!md) {
		const char *why = items == 1 ? pmuevents_why(lib, joined, unit) : NULL;
		snprintf(err, errlen, "-M %s: no metric can be evaluated here%s%s", list,
			 why ? ": " : "", why ? why : "");
		return NULL;
	}
	mode_register(r, md);
	return mode_find(r, full);
}

/* ---- opening ---------------------------------------------------------------------------- */

/* A hybrid model (metrics of Unit cpu_core and cpu_atom): a mode per core type where the
 * machine has both core PMUs, else the metrics of its one core's type. */
static void choose_units(struct pmuev_lib *lib)
{
	for (int i = 0; i < lib->nmt; i++) {
		const char *u = lib->mt[i].pmu;
		bool seen = !u;
		for (int k = 0; k < lib->nunits && !seen; k++)
			seen = strcmp(lib->units[k], u) == 0;
		if (!seen && lib->nunits < 4)
			snprintf(lib->units[lib->nunits++], sizeof(lib->units[0]), "%s", u);
	}
	if (lib->nunits < 2)
		return;
	int have = 0;
	for (int k = 0; k < lib->nunits; k++)
		for (int p = 0; p < lib->mach.ncore_pmus; p++)
			have += strcmp(lib->units[k], lib->mach.core_pmus[p]) == 0;
	lib->per_type = have == lib->nunits;
	if (!lib->per_type)
		snprintf(lib->only, sizeof(lib->only), "%s",
			 lib->mach.atom ? "cpu_atom" : "cpu_core");
}

/* Every *.json of @dir, sorted. */
static int list_json(const char *dir, char ***out, char *err, size_t errlen)
{
	int n = dir_list(dir, ".json", MAX_FILES, out);
	if (n == -2)
		snprintf(err, errlen, "%s: more than %d JSON files", dir, MAX_FILES);
	else if (n < 0)
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
	return n < 0 ? -1 : n;
}

struct pmuev_lib *pmuevents_open(const char *dir, const struct pmuev_machine *m, char *err,
				 size_t errlen)
{
	struct pmuev_lib *lib = calloc(1, sizeof(*lib));
	if (!lib) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	lib->mach = *m;
	/* DIR, DIR/arch/<arch> or DIR/<arch>: where mapfile.csv is */
	static const char *const layouts[] = {"%s/arch/%s", "%s/%s", "%s"};
	char probe[4200];
	bool found = false;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]) && !found; i++) {
		snprintf(lib->archdir, sizeof(lib->archdir), layouts[i], dir, m->arch);
		snprintf(probe, sizeof(probe), "%s/mapfile.csv", lib->archdir);
		found = is_file(probe);
	}
	if (!found) {
		char d[200];
		text_escape(dir, strlen(dir), d, sizeof(d));
		snprintf(err, errlen,
			 "%s: no mapfile.csv in %s/arch/%s, %s/%s or %s (a perf pmu-events "
			 "directory: tools/perf/pmu-events/arch)",
			 d, d, m->arch, d, m->arch, d);
		pmuevents_free(lib);
		return NULL;
	}
	if (pick_model(lib->archdir, m, lib->model, sizeof(lib->model), err, errlen) < 0) {
		pmuevents_free(lib);
		return NULL;
	}
	/* arm64: the architecture's common events, which ArchStdEvent names */
	static const char *const std_files[] = {"common-and-microarch.json",
						"armv8-common-and-microarch.json",
						"recommended.json", "armv8-recommended.json"};
	for (size_t i = 0; strcmp(m->arch, "arm64") == 0 && i < 4; i++) {
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", lib->archdir, std_files[i]);
		if (is_file(path) && read_file(lib, path, 0, true, err, errlen) < 0) {
			pmuevents_free(lib);
			return NULL;
		}
	}
	char mdir[4400];
	snprintf(mdir, sizeof(mdir), "%s/%s", lib->archdir, lib->model);
	char **names = NULL;
	int n = list_json(mdir, &names, err, errlen);
	if (n < 0) {
		pmuevents_free(lib);
		return NULL;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			char path[4800];
			snprintf(path, sizeof(path), "%s/%s", mdir, names[i]);
			if (read_file(lib, path, pass, false, err, errlen) < 0) {
				dir_list_free(names, n);
				pmuevents_free(lib);
				return NULL;
			}
		}
	lib->files = n;
	dir_list_free(names, n);
	if (lib->nev == 0 && lib->nmt == 0) {
		snprintf(err, errlen, "%s: no events or metrics in the model's JSON files", mdir);
		pmuevents_free(lib);
		return NULL;
	}
	collect_groups(lib);
	choose_units(lib);
	/* which metrics translate (alone) into a formula over core events */
	for (int i = 0; i < lib->nmt; i++) {
		struct pmuev_metric *mt = &lib->mt[i];
		if (mt->why)
			continue;
		struct tr_events *ev = calloc(1, sizeof(*ev));
		char *formula = malloc(PMUEV_FORMULA_MAX), why[512] = "";
		const char *unit = mt->pmu ? mt->pmu : lib->only;
		struct translator tr = {
		    .lib = lib, .unit = unit, .pmu = kernel_pmu(lib, unit), .ev = ev};
		if (ev && formula &&
		    translate(&tr, mt, formula, PMUEV_FORMULA_MAX, why, sizeof(why)) == 0)
			lib->evaluable++;
		else
			mt->why = xstrdup(why[0] ? why : "out of memory");
		free(ev);
		free(formula);
	}
	return lib;
}

void pmuevents_stats(const struct pmuev_lib *lib, struct pmuev_stats *st)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->model, sizeof(st->model), "%s", lib->model);
	st->events = lib->nev;
	st->metrics = lib->nmt;
	for (int i = 0; i < lib->nmt; i++)
		st->parsed += lib->mt[i].expr != NULL;
	st->evaluable = lib->evaluable;
	st->groups = lib->ngroups;
	st->files = lib->files;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.c: mode files (parse, validate), per-family resolution, counter needs and set planning. */
#include "mode.h"
#include "dirlist.h"
#include "embedded.h"
#include "evlist.h"
#include "expr.h"
#include "family.h"
#include "linereader.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const mode_builtin_vars[] = {"interval", "interval_ns", "ncpus", "slots", NULL};

/* ---- small helpers ---------------------------------------------------------------------- */

/* strdup that passes NULL through (optional fields). */
static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

/* Copies @s for an error message with control characters replaced, at most 60 bytes. */
/* An escaped copy of @s for a message, cut at 60 bytes. */
static const char *clean(const char *s, char *buf, size_t len)
{
	text_escape(s, s ? 60 : 0, buf, len);
	return buf;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool valid_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

bool mode_name_valid(const char *s)
{
	size_t len = strlen(s);
	const char *colon = strchr(s, ':');
	if (len == 0 || len > MODE_NAME_MAX)
		return false;
	if (colon && (colon == s || !colon[1] || strchr(colon + 1, ':')))
		return false; /* "library:name": one namespace, both parts non-empty */
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-+.:", *s))
			return false;
	return true;
}

static bool is_builtin_var(const char *name)
{
	for (int i = 0; mode_builtin_vars[i]; i++)
		if (strcmp(mode_builtin_vars[i], name) == 0)
			return true;
	return false;
}

static void *grow(void *p, int n, size_t size) { return realloc(p, (size_t)(n + 1) * size); }

/* ---- freeing ----------------------------------------------------------------------------- */

static void free_events(struct mode_events *s)
{
	for (int i = 0; i < s->nfamilies; i++)
		free(s->families[i]);
	free(s->families);
	for (int i = 0; i < s->nevents; i++) {
		free(s->events[i].alias);
		free(s->events[i].spec);
	}
	free(s->events);
	free(s->note);
}

static void free_metric(struct mode_metric *m)
{
	free(m->name);
	free(m->desc);
	free(m->unit);
	free(m->threshold);
	expr_free(m->expr);
}

void mode_free(struct mode *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->title);
	free(m->help);
	free(m->source);
	for (int i = 0; i < m->nsets; i++)
		free_events(&m->sets[i]);
	free(m->sets);
	for (int i = 0; i < m->nunavail; i++) {
		free(m->unavail[i].family);
		free(m->unavail[i].reason);
	}
	free(m->unavail);
	for (int i = 0; i < m->nmetrics; i++)
		free_metric(&m->metrics[i]);
	free(m->metrics);
	for (int i = 0; i < m->nstack; i++)
		free(m->stack[i]);
	free(m->stack);
	free(m->drill);
	free(m->pmu);
	free(m);
}

/* ---- building blocks shared by the file parser and define -------------------------------- */

struct builder {
	struct mode *m;
	const char *label; /* for messages; NULL = no "label:line: " prefix */
	char *err;
	size_t errlen;
	int stack_line; /* line of "stack =", for messages */
};

static int bfail(struct builder *b, int line, const char *fmt, ...)
{
	int n = 0;
	if (b->label)
		n = line > 0 ? snprintf(b->err, b->errlen, "%s:%d: ", b->label, line)
			     : snprintf(b->err, b->errlen, "%s: ", b->label);
	if (n < 0 || (size_t)n >= b->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static struct mode_metric *metric_find(struct mode *m, const char *name)
{
	for (int i = 0; i < m->nmetrics; i++)
		if (strcmp(m->metrics[i].name, name) == 0)
			return &m->metrics[i];
	return NULL;
}

static int add_metric(struct builder *b, const char *name, int line)
{
	char c[64];
	struct mode *m = b->m;
	if (!valid_ident(name))
		return bfail(b, line, "bad metric name \"%s\" (letters, digits, _)",
			     clean(name, c, sizeof(c)));
	if (metric_find(m, name))
		return bfail(b, line, "metric \"%s\" defined twice", name);
	if (m->nmetrics >= MODE_MAX_METRICS)
		return bfail(b, line, "too many metrics (at most %d)", MODE_MAX_METRICS);
	struct mode_metric *v = grow(m->metrics, m->nmetrics, sizeof(*v));
	if (!v)
		return bfail(b, line, "out of memory");
	m->metrics = v;
	v[m->nmetrics] = (struct mode_metric){.name = xstrdup(name),
					      .unit = xstrdup(""),
					      .desc = xstrdup(""),
					      .good = NAN,
					      .warn = NAN,
					      .bad = NAN,
					      .line = line};
	m->nmetrics++;
	return 0;
}

static int set_metric_expr(struct builder *b, struct mode_metric *mt, const char *text, int line)
{
	char perr[160];
	struct expr *e = expr_parse(text, perr, sizeof(perr));
	if (!e)
		return bfail(b, line, "metric %s: %s", mt->name, perr);
	expr_free(mt->expr);
	mt->expr = e;
	mt->line = line;
	return 0;
}

/* "group = a, b, c": events of @s (defined above) that are always counted together. */
static int add_group(struct builder *b, struct mode_events *s, const char *list, int line)
{
	char copy[512], c[64];
	snprintf(copy, sizeof(copy), "%s", list);
	int g = 1, n = 0;
	for (int i = 0; i < s->nevents; i++)
		if (s->events[i].group >= g)
			g = s->events[i].group + 1;
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		int e = mode_event_index(s, t);
		if (e < 0)
			return bfail(b, line, "group: no event \"%s\" above in this section",
				     clean(t, c, sizeof(c)));
		if (s->events[e].group)
			return bfail(b, line, "group: event %s is in another group", t);
		s->events[e].group = g;
		n++;
	}
	return n >= 2 ? 0 : bfail(b, line, "group: name at least two events");
}

/* "alias = spec" / "alias? = spec" into @s. */
static int add_event(struct builder *b, struct mode_events *s, char *alias, const char *spec,
		     int line)
{
	char c[64];
	bool optional = false;
	size_t n = strlen(alias);
	if (strcmp(alias, "note") == 0) { /* a label for the section, not an event */
		if (s->note)
			return bfail(b, line, "note given twice in this section");
		if (!*spec)
			return bfail(b, line, "note: give the label after '='");
		for (const char *p = spec; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return bfail(b, line, "note: control characters in the label");
		s->note = xstrdup(spec);
		return s->note ? 0 : bfail(b, line, "out of memory");
	}
	if (strcmp(alias, "group") == 0) /* "group = a, b": scheduled together */
		return add_group(b, s, spec, line);
	if (n > 0 && alias[n - 1] == '?') {
		optional = true;
		alias[--n] = '\0';
		alias = trim(alias);
	}
	if (!valid_ident(alias))
		return bfail(b, line, "bad event alias \"%s\" (letters, digits, _)",
			     clean(alias, c, sizeof(c)));
	if (is_builtin_var(alias))
		return bfail(b, line, "event alias \"%s\" is a builtin variable", alias);
	if (!*spec)
		return bfail(b, line, "event %s: empty event spec", alias);
	bool blank = !text_is_safe(spec, strlen(spec), TEXT_ESC_KEEP_BACKSLASH);
	for (const char *p = spec; *p; p++)
		blank |= isspace((unsigned char)*p) != 0;
	if (blank)
		return bfail(b, line, "event %s: spaces or control characters in \"%s\"", alias,
			     clean(spec, c, sizeof(c)));
	if (mode_event_index(s, alias) >= 0)
		return bfail(b, line, "event alias \"%s\" defined twice in this section", alias);
	if (s->nevents >= MODE_MAX_EVENTS)
		return bfail(b, line, "too many events in one section (at most %d)",
			     MODE_MAX_EVENTS);
	struct mode_event *v = grow(s->events, s->nevents, sizeof(*v));
	if (!v)
		return bfail(b, line, "out of memory");
	s->events = v;
	v[s->nevents++] = (struct mode_event){
	    .alias = xstrdup(alias), .spec = xstrdup(spec), .optional = optional};
	return 0;
}

static struct mode_events *add_section(struct builder *b, int line)
{
	struct mode *m = b->m;
	struct mode_events *v = grow(m->sets, m->nsets, sizeof(*v));
	if (!v) {
		bfail(b, line, "out of memory");
		return NULL;
	}
	m->sets = v;
	v[m->nsets] = (struct mode_events){.line = line};
	return &v[m->nsets++];
}

static bool section_has(const struct mode_events *s, const char *key)
{
	for (int i = 0; i < s->nfamilies; i++)
		if (strcmp(s->families[i], key) == 0)
			return true;
	return false;
}

/* Whole-mode checks once everything is read. */
static int validate(struct builder *b, int last_line)
{
	struct mode *m = b->m;
	char c[64];
	if (!m->name)
		return bfail(b, last_line, "mode has no name (name = ... in [mode])");
	if (!m->title)
		m->title = xstrdup(m->name);
	if (!m->help)
		m->help = xstrdup("");
	if (m->nsets == 0)
		return bfail(b, last_line, "mode %s has no [events ...] section", m->name);
	if (m->nmetrics == 0)
		return bfail(b, last_line, "mode %s has no metrics", m->name);
	for (int i = 0; i < m->nsets; i++)
		if (m->sets[i].nevents == 0)
			return bfail(b, m->sets[i].line, "events section has no events");
	for (int i = 0; i < m->nunavail; i++)
		for (int j = 0; j < m->nsets; j++)
			if (section_has(&m->sets[j], m->unavail[i].family))
				return bfail(
				    b, m->unavail[i].line,
				    "family %s is both unavailable and has events (line %d)",
				    m->unavail[i].family, m->sets[j].line);
	for (int i = 0; i < m->nmetrics; i++) {
		struct mode_metric *mt = &m->metrics[i];
		if (!mt->expr)
			return bfail(b, mt->line, "metric %s has no expr", mt->name);
		const char *const *names;
		int n = expr_vars(mt->expr, &names);
		for (int k = 0; k < n; k++) {
			if (is_builtin_var(names[k]))
				continue;
			bool found = false;
			for (int j = 0; j < m->nsets && !found; j++)
				found = mode_event_index(&m->sets[j], names[k]) >= 0;
			if (!found)
				return bfail(b, mt->line,
					     "metric %s: unknown name \"%s\" (not an event alias "
					     "or builtin variable)",
					     mt->name, clean(names[k], c, sizeof(c)));
		}
		/* Direction from the thresholds: bad beyond warn, or warn beyond good. */
		double hi = !isnan(mt->bad) ? mt->bad : mt->warn;
		double lo = !isnan(mt->bad) && !isnan(mt->warn) ? mt->warn : mt->good;
		if (mt->better == 0 && !isnan(hi) && !isnan(lo) && hi != lo)
			mt->better = hi > lo ? -1 : +1;
		else if (mt->better == 0 && (!isnan(mt->warn) || !isnan(mt->bad)))
			mt->better = -1; /* a lone threshold: higher is worse */
		if (!isnan(mt->warn) && !isnan(mt->bad) && (mt->bad - mt->warn) * -mt->better < 0)
			return bfail(b, mt->line,
				     "metric %s: warn and bad point opposite ways to 'better'",
				     mt->name);
	}
	for (int i = 0; i < m->nstack; i++) {
		bool found = false;
		for (int j = 0; j < m->nmetrics && !found; j++)
			found = strcmp(m->metrics[j].name, m->stack[i]) == 0;
		if (!found)
			return bfail(b, b->stack_line, "stack: \"%s\" is not a metric of mode %s",
				     clean(m->stack[i], c, sizeof(c)), m->name);
	}
	return 0;
}

/* ---- mode files ------------------------------------------------------------------------- */

enum section { S_NONE, S_MODE, S_EVENTS, S_METRIC, S_UNAVAIL };

static int parse_number(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *trim(end) || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* "skl skx", "skl,skx" -> @s->families, checking each key. */
static int parse_family_list(struct builder *b, struct mode_events *s, char *list, int line)
{
	char c[64];
	char *save = NULL;
	for (char *t = strtok_r(list, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		if (strcmp(t, "*") != 0 && !family_find(t))
			return bfail(b, line, "unknown family \"%s\"", clean(t, c, sizeof(c)));
		int before = 0;
		for (int i = 0; i < b->m->nsets; i++)
			if (&b->m->sets[i] != s && section_has(&b->m->sets[i], t)) {
				if (!s->fallback)
					return bfail(b, line,
						     "family %s has two events sections (line %d)",
						     t, b->m->sets[i].line);
				before++;
			}
		if (s->fallback && !before)
			return bfail(
			    b, line,
			    "[else events %s]: no earlier [events] section for %s to stand in "
			    "for",
			    clean(t, c, sizeof(c)), c);
		char **v = grow(s->families, s->nfamilies, sizeof(*v));
		if (!v)
			return bfail(b, line, "out of memory");
		s->families = v;
		v[s->nfamilies++] = xstrdup(t);
	}
	if (s->nfamilies == 0)
		return bfail(b, line,
			     "events section names no family ([events skl skx] or [events *])");
	return 0;
}

/* Section header "[...]" (without brackets). */
static int parse_header(struct builder *b, char *h, int line, enum section *sec,
			struct mode_events **cur_ev, struct mode_metric **cur_metric)
{
	char c[64];
	h = trim(h);
	*cur_ev = NULL;
	*cur_metric = NULL;
	if (strcmp(h, "mode") == 0) {
		*sec = S_MODE;
		return 0;
	}
	if (strcmp(h, "unavailable") == 0) {
		*sec = S_UNAVAIL;
		return 0;
	}
	bool fallback = strncmp(h, "else", 4) == 0 && isspace((unsigned char)h[4]);
	if (fallback) {
		h = trim(h + 5);
		if (strncmp(h, "events", 6) != 0)
			return bfail(b, line,
				     "[else ...] must be followed by events ([else events F])");
	}
	if (strncmp(h, "events", 6) == 0 &&
	    (!h[6] || h[6] == '.' || isspace((unsigned char)h[6]))) {
		struct mode_events *s = add_section(b, line);
		if (!s)
			return -1;
		s->fallback = fallback;
		*sec = S_EVENTS;
		*cur_ev = s;
		return parse_family_list(b, s, h + 6 + (h[6] != '\0'), line);
	}
	if (strncmp(h, "metric", 6) == 0 &&
	    (!h[6] || h[6] == '.' || isspace((unsigned char)h[6]))) {
		char *name = trim(h + 6 + (h[6] != '\0'));
		if (add_metric(b, name, line) < 0)
			return -1;
		*sec = S_METRIC;
		*cur_metric = &b->m->metrics[b->m->nmetrics - 1];
		return 0;
	}
	return bfail(b, line,
		     "unknown section [%s] (expected [mode], [events FAMILY...], [metric NAME] or "
		     "[unavailable])",
		     clean(h, c, sizeof(c)));
}

static int append_text(char **dst, const char *text)
{
	if (!*dst) {
		*dst = xstrdup(text);
		return *dst ? 0 : -1;
	}
	size_t a = strlen(*dst), n = strlen(text);
	char *v = realloc(*dst, a + n + 2);
	if (!v)
		return -1;
	v[a] = '\n';
	memcpy(v + a + 1, text, n + 1);
	*dst = v;
	return 0;
}

/* "stack = a, b, c": metric names separated by commas or blanks, checked in validate(). */
static int parse_stack(struct builder *b, const char *val, int line)
{
	struct mode *m = b->m;
	char *copy = xstrdup(val), *save = NULL;
	if (!copy)
		return bfail(b, line, "out of memory");
	for (int i = 0; i < m->nstack; i++)
		free(m->stack[i]);
	m->nstack = 0;
	for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		if (m->nstack == MODE_MAX_STACK) {
			free(copy);
			return bfail(b, line, "stack: more than %d metrics", MODE_MAX_STACK);
		}
		char **v = grow(m->stack, m->nstack, sizeof(*v));
		if (!v) {
			free(copy);
			return bfail(b, line, "out of memory");
		}
		m->stack = v;
		m->stack[m->nstack++] = xstrdup(t);
	}
	free(copy);
	if (m->nstack < 2)
		return bfail(b, line, "stack needs at least two metric names");
	b->stack_line = line;
	return 0;
}

static int parse_mode_key(struct builder *b, const char *key, const char *val, int line)
{
	char c[64];
	struct mode *m = b->m;
	if (strcmp(key, "name") == 0) {
		if (!mode_name_valid(val))
			return bfail(b, line, "bad mode name \"%s\" (" MODE_NAME_RULE ")",
				     clean(val, c, sizeof(c)));
		free(m->name);
		m->name = xstrdup(val);
	} else if (strcmp(key, "title") == 0) {
		free(m->title);
		m->title = xstrdup(val);
	} else if (strcmp(key, "help") == 0 || strcmp(key, "description") == 0) {
		if (append_text(&m->help, val) < 0)
			return bfail(b, line, "out of memory");
	} else if (strcmp(key, "kind") == 0) {
		if (strcmp(val, "counters") == 0)
			m->kind = MODE_KIND_COUNTERS;
		else if (strcmp(val, "offcore") == 0)
			m->kind = MODE_KIND_OFFCORE;
		else
			return bfail(b, line, "unknown kind \"%s\" (counters or offcore)",
				     clean(val, c, sizeof(c)));
	} else if (strcmp(key, "stack") == 0) {
		return parse_stack(b, val, line);
	} else if (strcmp(key, "drill") == 0) {
		if (!mode_name_valid(val))
			return bfail(b, line,
				     "bad drill-down mode name \"%s\" (" MODE_NAME_RULE ")",
				     clean(val, c, sizeof(c)));
		free(m->drill);
		m->drill = xstrdup(val);
	} else {
		return bfail(b, line,
			     "unknown key \"%s\" in [mode] (name, title, help, kind, stack, drill)",
			     clean(key, c, sizeof(c)));
	}
	return 0;
}

static int parse_metric_key(struct builder *b, struct mode_metric *mt, const char *key,
			    const char *val, int line)
{
	char c[64];
	double *th = strcmp(key, "good") == 0	? &mt->good
		     : strcmp(key, "warn") == 0 ? &mt->warn
		     : strcmp(key, "bad") == 0	? &mt->bad
						: NULL;
	if (th) {
		if (parse_number(val, th) < 0)
			return bfail(b, line, "metric %s: %s = \"%s\" is not a number", mt->name,
				     key, clean(val, c, sizeof(c)));
	} else if (strcmp(key, "expr") == 0) {
		return set_metric_expr(b, mt, val, line);
	} else if (strcmp(key, "unit") == 0) {
		free(mt->unit);
		mt->unit = xstrdup(val);
	} else if (strcmp(key, "desc") == 0 || strcmp(key, "description") == 0) {
		if (!*mt->desc) {
			free(mt->desc);
			mt->desc = NULL;
		}
		if (append_text(&mt->desc, val) < 0)
			return bfail(b, line, "out of memory");
	} else if (strcmp(key, "better") == 0) {
		if (strcmp(val, "higher") == 0)
			mt->better = +1;
		else if (strcmp(val, "lower") == 0)
			mt->better = -1;
		else
			return bfail(b, line, "metric %s: better = higher or lower", mt->name);
	} else {
		return bfail(
		    b, line,
		    "unknown key \"%s\" in [metric %s] (expr, unit, desc, good, warn, bad, better)",
		    clean(key, c, sizeof(c)), mt->name);
	}
	return 0;
}

static int parse_unavail(struct builder *b, char *keys, const char *reason, int line)
{
	char c[64];
	struct mode *m = b->m;
	char *save = NULL;
	if (!*reason)
		return bfail(b, line, "unavailable: give a reason after '='");
	for (char *t = strtok_r(keys, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		if (!family_find(t))
			return bfail(b, line, "unknown family \"%s\"", clean(t, c, sizeof(c)));
		struct mode_unavailable *v = grow(m->unavail, m->nunavail, sizeof(*v));
		if (!v)
			return bfail(b, line, "out of memory");
		m->unavail = v;
		v[m->nunavail++] = (struct mode_unavailable){
		    .family = xstrdup(t), .reason = xstrdup(reason), .line = line};
	}
	return 0;
}

struct mode *mode_parse(const char *label, const char *text, char *err, size_t errlen)
{
	struct mode *m = calloc(1, sizeof(*m));
	char *copy = xstrdup(text ? text : "");
	struct builder b = {
	    .m = m, .label = label ? label : "(mode)", .err = err, .errlen = errlen};
	if (!m || !copy) {
		free(copy);
		free(m);
		snprintf(err, errlen, "%s: out of memory", b.label);
		return NULL;
	}
	m->source = xstrdup(b.label);
	enum section sec = S_NONE;
	struct mode_events *cur_ev = NULL;
	struct mode_metric *cur_metric = NULL;
	int line = 0, rc = 0;
	char c[64];
	for (char *p = copy; p && *p && rc == 0;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		for (char *h = strchr(p, '#'); h; h = strchr(h + 1, '#'))
			if (h > p && isspace((unsigned char)h[-1])) { /* "value  # comment" */
				*h = '\0';
				break;
			}
		char *s = trim(p);
		p = nl ? nl + 1 : NULL;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			if (!close || *trim(close + 1)) {
				rc = bfail(&b, line, "malformed section header (expected [name])");
				break;
			}
			*close = '\0';
			rc = parse_header(&b, s + 1, line, &sec, &cur_ev, &cur_metric);
			/* cur_metric may move when metrics grow: refetch by index below */
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = bfail(&b, line, "expected key = value, got \"%s\"",
				   clean(s, c, sizeof(c)));
			break;
		}
		*eq = '\0';
		char *key = trim(s), *val = trim(eq + 1);
		if (!*key) {
			rc = bfail(&b, line, "missing key before '='");
			break;
		}
		switch (sec) {
		case S_NONE:
			rc = bfail(&b, line, "\"%s\" outside a section (start with [mode])",
				   clean(key, c, sizeof(c)));
			break;
		case S_MODE:
			rc = parse_mode_key(&b, key, val, line);
			break;
		case S_EVENTS:
			rc = add_event(&b, cur_ev, key, val, line);
			break;
		case S_METRIC:
			rc = parse_metric_key(&b, &m->metrics[m->nmetrics - 1], key, val, line);
			break;
		case S_UNAVAIL:
			rc = parse_unavail(&b, key, val, line);
			break;
		}
	}
	(void)cur_metric;
	free(copy);
	if (rc == 0)
		rc = validate(&b, line);
	if (rc < 0) {
		mode_free(m);
		return NULL;
	}
	return m;
}

/* ---- define NAME EVENTS METRICS ---------------------------------------------------------- */

struct mode *mode_define(const char *name, const char *events, const char *metrics, char *err,
			 size_t errlen)
{
	char c[64];
	struct mode *m = calloc(1, sizeof(*m));
	struct builder b = {.m = m, .label = NULL, .err = err, .errlen = errlen};
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	char *ev = xstrdup(events ? events : ""), *mt = xstrdup(metrics ? metrics : "");
	int rc = 0;
	m->source = xstrdup("define");
	m->kind = MODE_KIND_COUNTERS;
	if (!name || !mode_name_valid(name)) {
		rc = bfail(&b, 0, "define: bad mode name \"%s\" (" MODE_NAME_RULE ")",
			   clean(name ? name : "", c, sizeof(c)));
		goto out;
	}
	m->name = xstrdup(name);
	m->title = xstrdup(name);
	m->help = xstrdup("defined with the define command");
	struct mode_events *s = add_section(&b, 0);
	if (!s || !(s->families = malloc(sizeof(char *))) || !(s->families[0] = xstrdup("*"))) {
		rc = bfail(&b, 0, "out of memory");
		goto out;
	}
	s->nfamilies = 1;
	/* events: one perf-style list (names optional, {groups}, PMU/terms/) */
	static struct evlist_item items[EVLIST_MAX_ITEMS];
	char why[256];
	int nitems = evlist_parse(ev, items, EVLIST_MAX_ITEMS, NULL, why, sizeof(why));
	if (nitems < 0)
		rc = bfail(&b, 0, "define: events: %s", why);
	for (int i = 0; rc == 0 && i < nitems; i++) {
		struct evlist_item *it = &items[i];
		char alias[EVLIST_NAME_MAX + 1];
		if (!it->name[0])
			evlist_alias(it->spec, it->name, sizeof(it->name));
		snprintf(alias, sizeof(alias), "%.47s%s", it->name, it->optional ? "?" : "");
		/* "note" and "group" are a mode file's section keys, never an event here */
		if (strcmp(it->name, "note") == 0 || strcmp(it->name, "group") == 0) {
			rc = bfail(&b, 0,
				   "define: event %d: \"%s\" is reserved (a mode file's section "
				   "key); give the event another name, e.g. ev=%s",
				   i + 1, it->name, it->spec);
			break;
		}
		rc = add_event(&b, s, alias, it->spec, 0);
		if (rc < 0) {
			char buf[256];
			snprintf(buf, sizeof(buf), "define: event %d: %s", i + 1, err);
			snprintf(err, errlen, "%s", buf);
		} else {
			s->events[s->nevents - 1].group = it->group;
		}
	}
	if (rc == 0 && s->nevents == 0)
		rc = bfail(&b, 0, "define: no events (expected alias=spec,alias=spec)");
	int idx = 0;
	char *save = NULL;
	for (char *item = strtok_r(mt, ";", &save); item && rc == 0;
	     item = strtok_r(NULL, ";", &save)) {
		item = trim(item);
		idx++;
		if (!*item)
			continue;
		char *eq = strchr(item, '=');
		if (!eq) {
			rc = bfail(&b, 0, "define: metric %d \"%s\": expected name=formula", idx,
				   clean(item, c, sizeof(c)));
			break;
		}
		*eq = '\0';
		char *mname = trim(item), *unit = NULL, *br = strchr(mname, '[');
		if (br) {
			char *close = strchr(br, ']');
			if (!close || close[1]) {
				rc = bfail(&b, 0,
					   "define: metric %d: unit must be written name[unit]",
					   idx);
				break;
			}
			*br = *close = '\0';
			unit = br + 1;
			mname = trim(mname);
		}
		char buf[256];
		rc = add_metric(&b, mname, 0);
		if (rc == 0) {
			struct mode_metric *x = &m->metrics[m->nmetrics - 1];
			if (unit) {
				free(x->unit);
				x->unit = xstrdup(unit);
			}
			rc = set_metric_expr(&b, x, trim(eq + 1), 0);
		}
		if (rc < 0) {
			snprintf(buf, sizeof(buf), "define: metric %d: %s", idx, err);
			snprintf(err, errlen, "%s", buf);
		}
	}
	if (rc == 0 && m->nmetrics == 0)
		rc = bfail(&b, 0, "define: no metrics (expected name=formula;name=formula)");
	if (rc == 0 && validate(&b, 0) < 0) {
		char buf[256];
		snprintf(buf, sizeof(buf), "define: %s", err);
		snprintf(err, errlen, "%s", buf);
		rc = -1;
	}
out:
	free(ev);
	free(mt);
	if (rc < 0) {
		mode_free(m);
		return NULL;
	}
	return m;
}

/* ---- resolution and counters ------------------------------------------------------------- */

int mode_event_index(const struct mode_events *ev, const char *alias)
{
	for (int i = 0; ev && i < ev->nevents; i++)
		if (strcmp(ev->events[i].alias, alias) == 0)
			return i;
	return -1;
}

static long raw_code(const char *spec);
static bool event_missing(const struct pmu_family *fam, const struct mode_event_support *sup,
			  unsigned code, char *why, size_t len);

/* Whether every required raw event of @s counts on @fam / @sup. */
static bool section_counts(const struct mode_events *s, const struct pmu_family *fam,
			   const struct mode_event_support *sup)
{
	char why[8];
	for (int i = 0; fam && i < s->nevents; i++) {
		long code = raw_code(s->events[i].spec);
		if (code >= 0 && !s->events[i].optional &&
		    event_missing(fam, sup, (unsigned)code, why, sizeof(why)))
			return false;
	}
	return true;
}

int mode_resolve(const struct mode *m, const struct pmu_family *fam, struct mode_resolution *r)
{
	return mode_resolve_on(m, fam, NULL, r);
}

int mode_resolve_on(const struct mode *m, const struct pmu_family *fam,
		    const struct mode_event_support *sup, struct mode_resolution *r)
{
	memset(r, 0, sizeof(*r));
	char chain[128] = "";
	for (const struct pmu_family *f = fam; f; f = family_find(f->parent)) {
		for (int i = 0; i < m->nunavail; i++)
			if (strcmp(m->unavail[i].family, f->key) == 0) {
				r->matched = m->unavail[i].family;
				snprintf(r->reason, sizeof(r->reason), "%s", m->unavail[i].reason);
				return -1;
			}
		for (int i = 0; i < m->nsets; i++)
			if (section_has(&m->sets[i], f->key)) {
				/* an [else events] section stands in while this one cannot count */
				for (int j = i + 1;
				     j < m->nsets && !section_counts(&m->sets[i], fam, sup); j++)
					if (m->sets[j].fallback && section_has(&m->sets[j], f->key))
						i = j;
				r->events = &m->sets[i];
				r->matched = f->key;
				return 0;
			}
		size_t u = strlen(chain);
		snprintf(chain + u, sizeof(chain) - u, "%s%s", u ? ", " : "", f->key);
	}
	for (int i = 0; i < m->nsets; i++)
		if (section_has(&m->sets[i], "*")) {
			r->events = &m->sets[i];
			r->matched = "*";
			return 0;
		}
	if (fam && strcmp(fam->key, "sw") == 0)
		snprintf(r->reason, sizeof(r->reason),
			 "needs a hardware PMU; only software events are available");
	else
		snprintf(r->reason, sizeof(r->reason), "mode %s has no events for %s", m->name,
			 chain[0] ? chain : "an unknown PMU");
	return -1;
}

/* "perf::CYCLES" -> generic "CYCLES"; "@::X", "skl::X" -> model "X"; "cycles" -> generic. */
static const char *strip_model(const char *spec, bool *generic)
{
	const char *sep = strstr(spec, "::");
	if (!sep) {
		*generic = true;
		return spec;
	}
	*generic = strncmp(spec, "perf::", 6) == 0;
	return sep + 2;
}

static const struct {
	const char *name; /* case-insensitive */
	bool model;	  /* a libpfm4 model event (else a perf generic name) */
	int fixed_id;
} intel_fixed[] = {
    {"INSTRUCTIONS", false, 0},
    {"PERF_COUNT_HW_INSTRUCTIONS", false, 0},
    {"CYCLES", false, 1},
    {"CPU-CYCLES", false, 1},
    {"PERF_COUNT_HW_CPU_CYCLES", false, 1},
    {"REF-CYCLES", false, 2},
    {"PERF_COUNT_HW_REF_CPU_CYCLES", false, 2},
    {"INST_RETIRED:ANY", true, 0},
    {"INSTRUCTION_RETIRED", true, 0},
    {"INSTRUCTIONS_RETIRED", true, 0},
    {"CPU_CLK_UNHALTED:THREAD", true, 1},
    /* THREAD_ANY: the kernel's fixed-counter constraint ignores the AnyThread bit */
    {"CPU_CLK_UNHALTED:THREAD_P:t=1", true, 1},
    {"CPU_CLK_UNHALTED:CORE", true, 1},
    {"UNHALTED_CORE_CYCLES", true, 1},
    {"CPU_CLK_UNHALTED:REF_TSC", true, 2},
    {"UNHALTED_REFERENCE_CYCLES", true, 2},
};

static const char *const software_events[] = {
    "CPU-CLOCK",
    "TASK-CLOCK",
    "PAGE-FAULTS",
    "FAULTS",
    "CONTEXT-SWITCHES",
    "CS",
    "CPU-MIGRATIONS",
    "MIGRATIONS",
    "MINOR-FAULTS",
    "MAJOR-FAULTS",
    "CGROUP-SWITCHES",
    "ALIGNMENT-FAULTS",
    "EMULATION-FAULTS",
    "DUMMY",
    "PERF_COUNT_SW_CPU_CLOCK",
    "PERF_COUNT_SW_TASK_CLOCK",
    "PERF_COUNT_SW_PAGE_FAULTS",
    "PERF_COUNT_SW_CONTEXT_SWITCHES",
    "PERF_COUNT_SW_CPU_MIGRATIONS",
    "PERF_COUNT_SW_PAGE_FAULTS_MIN",
    "PERF_COUNT_SW_PAGE_FAULTS_MAJ",
};

enum event_slot mode_event_slot(const char *spec, const struct pmu_family *fam, int *fixed_id)
{
	int dummy;
	if (!fixed_id)
		fixed_id = &dummy;
	*fixed_id = -1;
	const char *slash = strchr(spec, '/');
	if (slash) { /* sysfs syntax: only core PMUs use core counters */
		bool core = strncmp(spec, "cpu/", 4) == 0 || strncmp(spec, "cpu_", 4) == 0 ||
			    strncmp(spec, "arm", 3) == 0;
		if (!core)
			return EVENT_SLOT_NONE;
		/* Intel's slots event is fixed counter 3; the topdown-* metric events read the
		 * PERF_METRICS register (arch/x86/events/intel/core.c), no counter at all */
		const char *term = slash + 1;
		size_t len = strcspn(term, "/,");
		if (len == 5 && strncmp(term, "slots", 5) == 0) {
			*fixed_id = 3;
			return EVENT_SLOT_FIXED;
		}
		if (len > 8 && strncmp(term, "topdown-", 8) == 0)
			return EVENT_SLOT_NONE;
		return EVENT_SLOT_COUNTER;
	}
	bool generic;
	const char *name = strip_model(spec, &generic);
	if (generic)
		for (size_t i = 0; i < sizeof(software_events) / sizeof(software_events[0]); i++)
			if (strcasecmp(name, software_events[i]) == 0)
				return EVENT_SLOT_NONE;
	if (!fam)
		return EVENT_SLOT_COUNTER;
	if (family_is_a(fam, "intel")) {
		for (size_t i = 0; i < sizeof(intel_fixed) / sizeof(intel_fixed[0]); i++)
			if (intel_fixed[i].model == !generic &&
			    strcasecmp(name, intel_fixed[i].name) == 0) {
				*fixed_id = intel_fixed[i].fixed_id;
				return EVENT_SLOT_FIXED;
			}
		return EVENT_SLOT_COUNTER;
	}
	/* ARM cycle counter and ARMv6/XScale CCNT: cycles only. */
	unsigned cycle_code = family_cycle_code(fam);
	if (!cycle_code)
		return EVENT_SLOT_COUNTER;
	bool cycles =
	    generic && (strcasecmp(name, "CYCLES") == 0 || strcasecmp(name, "CPU-CYCLES") == 0 ||
			strcasecmp(name, "PERF_COUNT_HW_CPU_CYCLES") == 0);
	if (spec[0] == 'r' && isxdigit((unsigned char)spec[1])) {
		char *end;
		unsigned long code = strtoul(spec + 1, &end, 16);
		cycles = !*end && code == cycle_code;
	}
	if (cycles) {
		*fixed_id = 1;
		return EVENT_SLOT_FIXED;
	}
	return EVENT_SLOT_COUNTER;
}

/* Slots of each event of @ev on @fam; a second event for a taken fixed counter needs a
 * programmable one. */
static void classify_events(const struct mode_events *ev, const struct pmu_family *fam,
			    enum event_slot *slot)
{
	bool taken[8] = {false};
	int nfixed = fam ? fam->fixed : 0;
	for (int i = 0; i < ev->nevents; i++) {
		int id;
		slot[i] = mode_event_slot(ev->events[i].spec, fam, &id);
		if (slot[i] == EVENT_SLOT_FIXED) {
			if (id < 0 || id >= 8 || (nfixed && id >= nfixed && id != 1) || taken[id])
				slot[i] = EVENT_SLOT_COUNTER;
			else
				taken[id] = true;
		}
	}
}

/* The code of a plain raw spec "rNN" (hex), or -1. */
static long raw_code(const char *spec)
{
	if (spec[0] != 'r' || !isxdigit((unsigned char)spec[1]))
		return -1;
	char *end;
	unsigned long code = strtoul(spec + 1, &end, 16);
	return *end || code > 0xffff ? -1 : (long)code;
}

static bool listed(const struct mode_event_support *sup, unsigned code)
{
	for (int i = 0; i < sup->nlisted; i++)
		if (sup->listed[i] == code)
			return true;
	return false;
}

/* Why @code cannot count on @fam / @sup, in @why; false if it can (as far as anyone says). */
static bool event_missing(const struct pmu_family *fam, const struct mode_event_support *sup,
			  unsigned code, char *why, size_t len)
{
	const char *name = family_event_name(fam, code);
	char ev[96];
	if (name)
		snprintf(ev, sizeof(ev), "%s (0x%02x)", name, code);
	else
		snprintf(ev, sizeof(ev), "event 0x%02x", code);
	if (sup && sup->listed && family_events_from_pmceid(fam) && family_is_common_event(code) &&
	    !listed(sup, code)) {
		snprintf(why, len,
			 "needs %s, which %s does not implement (not in its sysfs events/, "
			 "which lists what the core's PMCEID registers report)",
			 ev, sup->pmu && sup->pmu[0] ? sup->pmu : fam->desc);
		return true;
	}
	if (family_implements(fam, code) == 0) {
		const struct pmu_family *f = fam;
		while (f && !f->implemented)
			f = family_find(f->parent);
		snprintf(why, len, "needs %s, which %s does not implement (%s)", ev,
			 f ? f->desc : fam->desc, f && f->manual ? f->manual : "its manual");
		return true;
	}
	return false;
}

int mode_availability(const struct mode *m, const struct pmu_family *fam, struct mode_avail *a)
{
	return mode_availability_on(m, fam, NULL, a);
}

int mode_availability_on(const struct mode *m, const struct pmu_family *fam,
			 const struct mode_event_support *sup, struct mode_avail *a)
{
	memset(a, 0, sizeof(*a));
	struct mode_resolution r;
	a->counters = sup && sup->counters > 0 ? sup->counters : fam ? fam->counters : 0;
	if (mode_resolve_on(m, fam, sup, &r) < 0) {
		snprintf(a->reason, sizeof(a->reason), "%s", r.reason);
		a->matched = r.matched;
		return -1;
	}
	a->matched = r.matched;
	a->note = r.events->note;
	a->events = r.events;
	for (int i = 0; fam && i < r.events->nevents; i++) {
		long code = raw_code(r.events->events[i].spec);
		if (code >= 0 && !r.events->events[i].optional &&
		    event_missing(fam, sup, (unsigned)code, a->reason, sizeof(a->reason)))
			return -1;
	}
	a->available = true;
	enum event_slot slot[MODE_MAX_EVENTS];
	classify_events(r.events, fam, slot);
	for (int i = 0; i < r.events->nevents; i++) {
		if (slot[i] == EVENT_SLOT_COUNTER)
			a->needed++;
		else if (slot[i] == EVENT_SLOT_FIXED)
			a->fixed++;
		else
			a->other++;
	}
	a->multiplex = a->counters > 0 && a->needed > a->counters;
	return 0;
}

int mode_counters_needed(const struct mode *m, const struct pmu_family *fam)
{
	struct mode_avail a;
	return mode_availability(m, fam, &a) < 0 ? -1 : a.needed;
}

/* ---- event-set planning ------------------------------------------------------------------ */

/* The sets being built: which programmable events each holds. */
struct plan_sets {
	int n;
	int used[MODE_MAX_SETS];		  /* programmable events in the set */
	bool has[MODE_MAX_SETS][MODE_MAX_EVENTS]; /* [set][event] */
};

/* The programmable inputs of metric @k, each once; returns how many. */
static int metric_counters(const struct mode *m, int k, const struct mode_events *ev,
			   const enum event_slot *slot, int *in)
{
	const char *const *names;
	int nv = expr_vars(m->metrics[k].expr, &names), n = 0;
	for (int j = 0; j < nv; j++) {
		int e = mode_event_index(ev, names[j]);
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= in[i] == e;
		if (e >= 0 && slot[e] == EVENT_SLOT_COUNTER && !seen)
			in[n++] = e;
	}
	return n;
}

/* A new empty set; -1 when there are MODE_MAX_SETS already. */
static int new_set(struct plan_sets *ps)
{
	if (ps->n >= MODE_MAX_SETS)
		return -1;
	ps->used[ps->n] = 0;
	memset(ps->has[ps->n], 0, sizeof(ps->has[ps->n]));
	return ps->n++;
}

static void put_event(struct plan_sets *ps, int set, int e)
{
	if (!ps->has[set][e]) {
		ps->has[set][e] = true;
		ps->used[set]++;
	}
}

int mode_plan_sets(const struct mode *m, const struct pmu_family *fam, int max_counters,
		   struct mode_plan *plan, char *err, size_t errlen)
{
	return mode_plan_sets_on(m, fam, NULL, max_counters, plan, err, errlen);
}

int mode_plan_sets_on(const struct mode *m, const struct pmu_family *fam,
		      const struct mode_event_support *sup, int max_counters,
		      struct mode_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	struct mode_resolution r;
	if (mode_resolve_on(m, fam, sup, &r) < 0) {
		snprintf(err, errlen, "mode %s: %s", m->name, r.reason);
		return -1;
	}
	if (max_counters < 1) {
		snprintf(err, errlen, "no programmable counters to plan for");
		return -1;
	}
	const struct mode_events *ev = r.events;
	plan->events = ev;
	enum event_slot slot[MODE_MAX_EVENTS];
	classify_events(ev, fam, slot);
	struct plan_sets ps = {.n = 0};
	bool placed[MODE_MAX_EVENTS] = {false};
	/* 0. Groups ({a,b} in an event list, "group = a, b" in a mode file): all programmable
	 *    members of one group in one set, before anything else; a group larger than the
	 *    counters is an error. */
	for (int g = 1;; g++) {
		int members = 0;
		bool any = false;
		for (int i = 0; i < ev->nevents; i++) {
			any |= ev->events[i].group >= g;
			members += ev->events[i].group == g && slot[i] == EVENT_SLOT_COUNTER;
		}
		if (!any)
			break;
		if (members > max_counters) {
			snprintf(err, errlen,
				 "mode %s: group %d needs %d counters at once, the PMU has %d",
				 m->name, g, members, max_counters);
			memset(plan, 0, sizeof(*plan));
			return -1;
		}
		if (!members)
			continue;
		int s = 0;
		while (s < ps.n && ps.used[s] + members > max_counters)
			s++;
		if (s == ps.n && new_set(&ps) < 0)
			goto too_many;
		for (int i = 0; i < ev->nevents; i++)
			if (ev->events[i].group == g && slot[i] == EVENT_SLOT_COUNTER) {
				put_event(&ps, s, i);
				placed[i] = true;
			}
	}
	/* 1. Each metric in file order: its programmable inputs go together into the set that
	 *    needs the fewest additions and still has room (an input already in another set is
	 *    repeated there), else into a new set. A metric with more inputs than counters cannot
	 *    be kept together: its inputs are placed one by one in step 2. */
	for (int k = 0; k < m->nmetrics; k++) {
		int in[MODE_MAX_EVENTS], nin = metric_counters(m, k, ev, slot, in);
		if (nin == 0 || nin > max_counters)
			continue;
		int best = -1, best_add = max_counters + 1;
		for (int s = 0; s < ps.n; s++) {
			int add = 0;
			for (int j = 0; j < nin; j++)
				add += !ps.has[s][in[j]];
			if (ps.used[s] + add <= max_counters && add < best_add)
				best = s, best_add = add;
		}
		if (best < 0 && (best = new_set(&ps)) < 0)
			goto too_many;
		for (int j = 0; j < nin; j++) {
			put_event(&ps, best, in[j]);
			placed[in[j]] = true;
		}
	}
	/* 2. Programmable events not placed yet (no metric reads them, or their metric is too
	 *    big for the counters): first fit, one by one. */
	for (int e = 0; e < ev->nevents; e++) {
		if (slot[e] != EVENT_SLOT_COUNTER || placed[e])
			continue;
		int s = 0;
		while (s < ps.n && ps.used[s] >= max_counters)
			s++;
		if (s == ps.n && new_set(&ps) < 0)
			goto too_many;
		put_event(&ps, s, e);
	}
	/* 3. Fixed-counter and software events count in every set. */
	plan->nsets = ps.n ? ps.n : 1;
	for (int s = 0; s < plan->nsets; s++)
		for (int e = 0; e < ev->nevents; e++)
			if (slot[e] != EVENT_SLOT_COUNTER || (s < ps.n && ps.has[s][e]))
				plan->set[s].ev[plan->set[s].n++] = e;
	/* 4. A metric whose inputs share no set is a ratio from different runs. */
	for (int k = 0; k < m->nmetrics && k < MODE_MAX_METRICS; k++) {
		int in[MODE_MAX_EVENTS], nin = metric_counters(m, k, ev, slot, in);
		bool together = nin == 0 || ps.n <= 1;
		for (int s = 0; s < ps.n && !together; s++) {
			int j = 0;
			while (j < nin && ps.has[s][in[j]])
				j++;
			together = j == nin;
		}
		plan->split[k] = !together;
	}
	return plan->nsets;
too_many:
	snprintf(err, errlen, "mode %s needs more than %d event sets", m->name, MODE_MAX_SETS);
	memset(plan, 0, sizeof(*plan));
	return -1;
}

/* ---- merging modes ----------------------------------------------------------------------- */

struct mode *mode_merge(const struct mode *const *modes, int n, const struct pmu_family *fam,
			char *err, size_t errlen)
{
	struct mode *m = calloc(1, sizeof(*m));
	struct builder b = {.m = m, .label = NULL, .err = err, .errlen = errlen};
	char name[128] = "", help[512] = "";
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct mode_events *s = add_section(&b, 0);
	if (!s || !(s->families = malloc(sizeof(char *))) ||
	    !(s->families[0] = xstrdup(fam ? fam->key : "*")))
		goto oom;
	s->nfamilies = 1;
	int group_base = 0;
	for (int i = 0; i < n; i++) {
		const struct mode *x = modes[i];
		struct mode_resolution r;
		if (mode_resolve(x, fam, &r) < 0) {
			snprintf(err, errlen, "mode %s: %s", x->name, r.reason);
			goto fail;
		}
		const char *p0 = modes[0]->pmu ? modes[0]->pmu : "";
		if (strcmp(x->pmu ? x->pmu : "", p0) != 0) {
			snprintf(err, errlen, "mode %s counts on %s CPUs, %s on %s CPUs", x->name,
				 x->pmu ? x->pmu : "all", modes[0]->name, *p0 ? p0 : "all");
			goto fail;
		}
		if (i == 0 && x->pmu && !(m->pmu = xstrdup(x->pmu)))
			goto oom;
		size_t u = strlen(name);
		snprintf(name + u, sizeof(name) - u, "%s%s", u ? "+" : "", x->name);
		u = strlen(help);
		snprintf(help + u, sizeof(help) - u, "%s%s", u ? "; " : "", x->title);
		if (x->kind == MODE_KIND_OFFCORE)
			m->kind = MODE_KIND_OFFCORE;
		if (r.events->note && !s->note)
			s->note = xstrdup(r.events->note);
		for (int e = 0; e < r.events->nevents; e++) {
			const struct mode_event *me = &r.events->events[e];
			int j = mode_event_index(s, me->alias);
			if (j >= 0) {
				if (strcmp(s->events[j].spec, me->spec) != 0) {
					snprintf(err, errlen,
						 "event alias %s is %s in one mode and %s in %s",
						 me->alias, s->events[j].spec, me->spec, x->name);
					goto fail;
				}
				s->events[j].optional &= me->optional;
				continue;
			}
			char alias[64];
			snprintf(alias, sizeof(alias), "%s%s", me->alias, me->optional ? "?" : "");
			if (add_event(&b, s, alias, me->spec, 0) < 0)
				goto fail;
			if (me->group) /* groups stay groups, numbered after the earlier modes' */
				s->events[s->nevents - 1].group = group_base + me->group;
		}
		for (int e = 0; e < s->nevents; e++)
			if (s->events[e].group > group_base)
				group_base = s->events[e].group;
		for (int k = 0; k < x->nmetrics; k++) {
			const struct mode_metric *mt = &x->metrics[k];
			char mname[96];
			snprintf(mname, sizeof(mname), "%s", mt->name);
			if (metric_find(m, mname))
				snprintf(mname, sizeof(mname), "%s.%s", x->name, mt->name);
			if (metric_find(m, mname) || m->nmetrics >= MODE_MAX_METRICS) {
				snprintf(err, errlen, "metric %s appears twice or too many metrics",
					 mname);
				goto fail;
			}
			struct mode_metric *v = grow(m->metrics, m->nmetrics, sizeof(*v));
			if (!v)
				goto oom;
			m->metrics = v;
			char perr[160];
			struct mode_metric *d = &v[m->nmetrics];
			*d = *mt;
			d->name = xstrdup(mname);
			d->desc = xstrdup(mt->desc);
			d->unit = xstrdup(mt->unit);
			d->threshold = xstrdup(mt->threshold);
			d->expr = expr_parse(expr_text(mt->expr), perr, sizeof(perr));
			m->nmetrics++;
			if (!d->name || !d->desc || !d->unit || !d->expr)
				goto oom;
		}
	}
	m->name = xstrdup(name);
	m->title = xstrdup(name);
	m->help = xstrdup(help);
	m->source = xstrdup("merge");
	return m;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	mode_free(m);
	return NULL;
}

/* ---- thresholds -------------------------------------------------------------------------- */

enum metric_class metric_classify(const struct mode_metric *m, double v)
{
	if (isnan(v))
		return METRIC_NA;
	if (m->better == 0)
		return METRIC_NONE;
	double d = m->better < 0 ? 1 : -1; /* orient so that larger is worse */
	if (!isnan(m->bad) && v * d >= m->bad * d)
		return METRIC_BAD;
	if (!isnan(m->warn) && v * d >= m->warn * d)
		return METRIC_WARN;
	if (!isnan(m->good))
		return v * d <= m->good * d ? METRIC_GOOD : METRIC_NONE;
	return !isnan(m->warn) || !isnan(m->bad) ? METRIC_GOOD : METRIC_NONE;
}

/* ---- registry ---------------------------------------------------------------------------- */

void mode_registry_init(struct mode_registry *r) { memset(r, 0, sizeof(*r)); }

void mode_registry_free(struct mode_registry *r)
{
	for (int i = 0; i < r->n; i++)
		mode_free(r->modes[i]);
	free(r->modes);
	for (int i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	memset(r, 0, sizeof(*r));
}

static void add_warning(struct mode_registry *r, const char *msg)
{
	char **v = grow(r->warnings, r->nwarnings, sizeof(*v));
	if (!v)
		return;
	r->warnings = v;
	if ((v[r->nwarnings] = xstrdup(msg)))
		r->nwarnings++;
}

void mode_register(struct mode_registry *r, struct mode *m)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->modes[i]->name, m->name) == 0) {
			mode_free(r->modes[i]);
			r->modes[i] = m;
			return;
		}
	struct mode **v = grow(r->modes, r->n, sizeof(*v));
	if (!v) {
		add_warning(r, "out of memory registering a mode");
		mode_free(m);
		return;
	}
	r->modes = v;
	v[r->n++] = m;
}

/* Parses @text and registers it; on error adds a warning and returns -1. */
static int mode_load_text(struct mode_registry *r, const char *label, const char *text)
{
	char err[512];
	struct mode *m = mode_parse(label, text, err, sizeof(err));
	if (!m) {
		add_warning(r, err);
		return -1;
	}
	mode_register(r, m);
	return 0;
}

int mode_read_file(struct mode_registry *r, const char *path, char *err, size_t errlen)
{
	/* mode files are small text: bounded lines and size, no NUL bytes, no hang on a FIFO */
	char *buf = lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, err, errlen);
	if (!buf)
		return -2;
	int rc = mode_load_text(r, path, buf);
	free(buf);
	return rc;
}

int mode_load_file(struct mode_registry *r, const char *path)
{
	char msg[512];
	int rc = mode_read_file(r, path, msg, sizeof(msg));
	if (rc == -2) {
		add_warning(r, msg);
		rc = -1;
	}
	return rc;
}

#define MODE_DIR_MAX_FILES 4096 /* *.mode files read from one directory */

int mode_load_dir(struct mode_registry *r, const char *dir)
{
	char msg[512];
	char **names;
	int n = dir_list(dir, ".mode", MODE_DIR_MAX_FILES, &names), loaded = 0;
	if (n == -1 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (n < 0) {
		if (n == -2)
			snprintf(msg, sizeof(msg), "%s: more than %d mode files", dir,
				 MODE_DIR_MAX_FILES);
		else
			snprintf(msg, sizeof(msg), "%s: %s", dir, strerror(errno));
		add_warning(r, msg);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		loaded += mode_load_file(r, path) == 0;
	}
	dir_list_free(names, n);
	return loaded;
}

int mode_load_builtin(struct mode_registry *r)
{
	int loaded = 0;
	for (const struct embedded_file *f = embedded_files; f->path; f++) {
		size_t len = strlen(f->path);
		if (strncmp(f->path, "modes/", 6) != 0 || len < 5 ||
		    strcmp(f->path + len - 5, ".mode") != 0)
			continue;
		loaded += mode_load_text(r, f->path, f->text) == 0;
	}
	return loaded;
}

const struct mode *mode_find(const struct mode_registry *r, const char *name)
{
	const struct mode *hit = NULL;
	size_t len = strlen(name);
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->modes[i]->name, name) == 0)
			return r->modes[i];
	for (int i = 0; i < r->n; i++) {
		if (len && strncmp(r->modes[i]->name, name, len) == 0) {
			if (hit)
				return NULL; /* ambiguous */
			hit = r->modes[i];
		}
	}
	return hit;
}

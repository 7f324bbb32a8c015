/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alert.c: spike rules ("cpi > 2.5 on 2-3", "mad ipc 5"), their evaluation and a bounded spike log.
 */
#include "alert.h"
#include "textutil.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
    [ALERT_GT] = ">",
    [ALERT_GE] = ">=",
    [ALERT_LT] = "<",
    [ALERT_LE] = "<=",
};

const char *alert_op_name(enum alert_op op)
{
	return (unsigned)op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : "?";
}

/* A cursor over the rule text. */
struct lex {
	const char *s;
	size_t pos;
};

static void skip_blank(struct lex *l)
{
	while (l->s[l->pos] == ' ' || l->s[l->pos] == '\t')
		l->pos++;
}

static int col(const struct lex *l) { return (int)l->pos + 1; }

static bool at_end(struct lex *l)
{
	skip_blank(l);
	return l->s[l->pos] == 0 || l->s[l->pos] == '\n';
}

/* Length of the word at the cursor (up to a blank or the end). */
static size_t word_len(const struct lex *l)
{
	size_t n = 0;
	while (l->s[l->pos + n] && !isspace((unsigned char)l->s[l->pos + n]))
		n++;
	return n;
}

/* Reads a name into @out; returns its length, 0 when the cursor is not on a name. */
static size_t read_name(struct lex *l, char *out, size_t outlen)
{
	const char *p = l->s + l->pos;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	size_t n = 1;
	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
		n++;
	if (n >= outlen)
		return (size_t)-1;
	memcpy(out, p, n);
	out[n] = 0;
	l->pos += n;
	return n;
}

/* Reads a finite decimal number ("2.5", "-1e3", ".5"); returns -1 when there is none. */
static int read_number(struct lex *l, double *out)
{
	const char *p = l->s + l->pos;
	size_t i = 0;
	if (p[i] == '+' || p[i] == '-')
		i++;
	if (!isdigit((unsigned char)p[i]) && !(p[i] == '.' && isdigit((unsigned char)p[i + 1])))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
		return -1;
	/* A number must end at a blank, the end, or '%' (checked by the caller). */
	if (*end && !isspace((unsigned char)*end) && *end != '%')
		return -1;
	l->pos += (size_t)(end - p);
	*out = v;
	return 0;
}

static int read_op(struct lex *l, enum alert_op *op)
{
	const char *p = l->s + l->pos;
	if (p[0] == '>' || p[0] == '<') {
		bool eq = p[1] == '=';
		*op = p[0] == '>' ? (eq ? ALERT_GE : ALERT_GT) : (eq ? ALERT_LE : ALERT_LT);
		l->pos += eq ? 2 : 1;
		return 0;
	}
	return -1;
}

static bool word_is(const struct lex *l, const char *w)
{
	size_t n = strlen(w);
	return strncmp(l->s + l->pos, w, n) == 0 &&
	       (l->s[l->pos + n] == 0 || isspace((unsigned char)l->s[l->pos + n]));
}

/* Shortest "%g" form that reads back as the same double. */
static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

static int format_rule(struct alert_rule *r)
{
	char num[40], num2[40], list[256] = "";
	int n;
	if (!r->all_cpus)
		cpuset_format(&r->cpus, list, sizeof(list));
	if (r->kind == ALERT_THRESHOLD) {
		fmt_num(num, sizeof(num), r->threshold);
		n = snprintf(r->text, sizeof(r->text), "%s %s %s", r->metric, alert_op_name(r->op),
			     num);
	} else {
		fmt_num(num, sizeof(num), r->k);
		n = snprintf(r->text, sizeof(r->text), "mad %s %s", r->metric, num);
		if (n >= 0 && (size_t)n < sizeof(r->text) && r->window != ALERT_MAD_WINDOW)
			n += snprintf(r->text + n, sizeof(r->text) - (size_t)n, " window %u",
				      r->window);
		if (n >= 0 && (size_t)n < sizeof(r->text) && r->floor_rel != ALERT_MAD_FLOOR_REL) {
			if (r->floor_rel > 0)
				fmt_num(num2, sizeof(num2), r->floor_rel * 100);
			else
				fmt_num(num2, sizeof(num2), r->floor_abs);
			n += snprintf(r->text + n, sizeof(r->text) - (size_t)n, " floor %s%s", num2,
				      r->floor_rel > 0 ? "%" : "");
		}
	}
	if (n >= 0 && (size_t)n < sizeof(r->text) && !r->all_cpus)
		n += snprintf(r->text + n, sizeof(r->text) - (size_t)n, " on %s", list);
	return n >= 0 && (size_t)n < sizeof(r->text) ? 0 : -1;
}

/* Parses "on CPULIST" at the cursor (the word "on" already seen). */
static int parse_on(struct lex *l, struct alert_rule *r, char *err, size_t errlen)
{
	l->pos += 2;
	skip_blank(l);
	if (at_end(l)) {
		text_errorf(err, errlen, "col %d: expected a CPU list after 'on'", col(l));
		return -1;
	}
	size_t n = word_len(l);
	char buf[256], cerr[128] = "";
	if (n >= sizeof(buf)) {
		text_errorf(err, errlen, "col %d: CPU list too long", col(l));
		return -1;
	}
	memcpy(buf, l->s + l->pos, n);
	buf[n] = 0;
	if (cpuset_parse(&r->cpus, buf, cerr, sizeof(cerr)) < 0) {
		text_errorf(err, errlen, "col %d: bad CPU list '%s': %s", col(l), buf, cerr);
		return -1;
	}
	if (cpuset_count(&r->cpus) == 0) {
		text_errorf(err, errlen, "col %d: empty CPU list", col(l));
		return -1;
	}
	r->all_cpus = false;
	l->pos += n;
	return 0;
}

static int parse_mad(struct lex *l, struct alert_rule *r, char *err, size_t errlen)
{
	r->kind = ALERT_MAD;
	r->window = ALERT_MAD_WINDOW;
	r->floor_abs = ALERT_MAD_FLOOR_ABS;
	r->floor_rel = ALERT_MAD_FLOOR_REL;
	skip_blank(l);
	size_t n = read_name(l, r->metric, sizeof(r->metric));
	if (n == (size_t)-1) {
		text_errorf(err, errlen, "col %d: metric name longer than %d bytes", col(l),
			    ALERT_METRIC_MAX - 1);
		return -1;
	}
	if (n == 0) {
		text_errorf(err, errlen, "col %d: expected a metric name after 'mad'", col(l));
		return -1;
	}
	skip_blank(l);
	int kcol = col(l);
	if (read_number(l, &r->k) < 0 || l->s[l->pos] == '%') {
		text_errorf(err, errlen, "col %d: expected a number K after 'mad %s'", kcol,
			    r->metric);
		return -1;
	}
	if (r->k <= 0) {
		text_errorf(err, errlen, "col %d: K must be greater than 0", kcol);
		return -1;
	}
	bool seen_window = false, seen_floor = false, seen_on = false;
	while (!at_end(l)) {
		int wcol = col(l);
		if (word_is(l, "window") && !seen_window) {
			double w;
			l->pos += 6;
			skip_blank(l);
			int ncol = col(l);
			if (read_number(l, &w) < 0 || l->s[l->pos] == '%') {
				text_errorf(err, errlen,
					    "col %d: expected a number of samples after 'window'",
					    ncol);
				return -1;
			}
			if (w != floor(w) || w < ALERT_MAD_WINDOW_MIN || w > ALERT_MAD_WINDOW_MAX) {
				text_errorf(err, errlen,
					    "col %d: window must be a whole number from %d to %d",
					    ncol, ALERT_MAD_WINDOW_MIN, ALERT_MAD_WINDOW_MAX);
				return -1;
			}
			r->window = (unsigned)w;
			seen_window = true;
		} else if (word_is(l, "floor") && !seen_floor) {
			double f;
			l->pos += 5;
			skip_blank(l);
			int ncol = col(l);
			if (read_number(l, &f) < 0) {
				text_errorf(err, errlen, "col %d: expected a number after 'floor'",
					    ncol);
				return -1;
			}
			if (f < 0) {
				text_errorf(err, errlen, "col %d: floor must not be negative",
					    ncol);
				return -1;
			}
			if (l->s[l->pos] == '%') {
				l->pos++;
				r->floor_rel = f / 100;
			} else {
				r->floor_rel = 0;
				r->floor_abs = f > ALERT_MAD_FLOOR_ABS ? f : ALERT_MAD_FLOOR_ABS;
			}
			seen_floor = true;
		} else if (word_is(l, "on") && !seen_on) {
			if (parse_on(l, r, err, errlen) < 0)
				return -1;
			seen_on = true;
		} else {
			text_errorf(
			    err, errlen,
			    "col %d: expected 'window', 'floor', 'on' or the end of the rule",
			    wcol);
			return -1;
		}
	}
	return 0;
}

static int parse_threshold(struct lex *l, struct alert_rule *r, char *err, size_t errlen)
{
	r->kind = ALERT_THRESHOLD;
	skip_blank(l);
	int ocol = col(l);
	if (at_end(l) || read_op(l, &r->op) < 0) {
		if (l->s[l->pos] == '=' || l->s[l->pos] == '!')
			text_errorf(err, errlen, "col %d: operator must be >, >=, < or <=", ocol);
		else
			text_errorf(err, errlen, "col %d: expected >, >=, < or <= after '%s'", ocol,
				    r->metric);
		return -1;
	}
	const char *opn = alert_op_name(r->op);
	skip_blank(l);
	int ncol = col(l);
	if (read_number(l, &r->threshold) < 0 || l->s[l->pos] == '%') {
		text_errorf(err, errlen, "col %d: expected a number after '%s'", ncol, opn);
		return -1;
	}
	if (!at_end(l)) {
		if (!word_is(l, "on")) {
			text_errorf(err, errlen, "col %d: expected 'on' or the end of the rule",
				    col(l));
			return -1;
		}
		if (parse_on(l, r, err, errlen) < 0)
			return -1;
		if (!at_end(l)) {
			text_errorf(err, errlen, "col %d: unexpected text after the CPU list",
				    col(l));
			return -1;
		}
	}
	return 0;
}

int alert_rule_parse(const char *text, struct alert_rule *out, char *err, size_t errlen)
{
	struct alert_rule r;
	struct lex l = {text ? text : "", 0};
	memset(&r, 0, sizeof(r));
	r.all_cpus = true;
	if (at_end(&l)) {
		text_errorf(err, errlen, "col %d: empty rule", col(&l));
		return -1;
	}
	for (size_t i = 0; l.s[i]; i++) {
		if (l.s[i] == '\n' && l.s[i + 1]) {
			text_errorf(err, errlen, "col %zu: a rule is one line", i + 1);
			return -1;
		}
	}
	size_t n = read_name(&l, r.metric, sizeof(r.metric));
	if (n == (size_t)-1) {
		text_errorf(err, errlen, "col %d: metric name longer than %d bytes", col(&l),
			    ALERT_METRIC_MAX - 1);
		return -1;
	}
	if (n == 0) {
		text_errorf(err, errlen, "col %d: expected a metric name or 'mad'", col(&l));
		return -1;
	}
	int rc;
	struct lex save = l;
	skip_blank(&l);
	bool op_next =
	    l.s[l.pos] == '>' || l.s[l.pos] == '<' || l.s[l.pos] == '=' || l.s[l.pos] == '!';
	l = save;
	if (strcmp(r.metric, "mad") == 0 && !op_next)
		rc = parse_mad(&l, &r, err, errlen);
	else
		rc = parse_threshold(&l, &r, err, errlen);
	if (rc < 0)
		return -1;
	if (format_rule(&r) < 0) {
		text_errorf(err, errlen, "col 1: rule longer than %d bytes", ALERT_TEXT_MAX - 1);
		return -1;
	}
	*out = r;
	return 0;
}

bool alert_rule_covers(const struct alert_rule *rule, int cpu)
{
	if (cpu < 0)
		return false;
	return rule->all_cpus || (cpu < CPUSET_MAX && cpuset_has(&rule->cpus, cpu));
}

/* ---- spike log ---- */

int spike_log_init(struct spike_log *log, size_t cap, char *err, size_t errlen)
{
	memset(log, 0, sizeof(*log));
	if (cap == 0) {
		text_errorf(err, errlen, "spike log: capacity must be positive");
		return -1;
	}
	log->ev = calloc(cap, sizeof(*log->ev));
	if (!log->ev) {
		text_errorf(err, errlen, "spike log: out of memory");
		return -1;
	}
	log->cap = cap;
	return 0;
}

void spike_log_free(struct spike_log *log)
{
	free(log->ev);
	memset(log, 0, sizeof(*log));
}

void spike_log_clear(struct spike_log *log)
{
	log->head = 0;
	log->len = 0;
	log->total = 0;
}

void spike_log_push(struct spike_log *log, const struct spike_event *ev)
{
	if (!log->cap)
		return;
	log->ev[log->head] = *ev;
	log->head = (log->head + 1) % log->cap;
	if (log->len < log->cap)
		log->len++;
	log->total++;
}

const struct spike_event *spike_log_get(const struct spike_log *log, size_t i)
{
	if (i >= log->len)
		return NULL;
	return &log->ev[(log->head + log->cap - log->len + i) % log->cap];
}

unsigned long long spike_log_dropped(const struct spike_log *log) { return log->total - log->len; }

size_t spike_log_bytes(const struct spike_log *log) { return log->cap * sizeof(*log->ev); }

/* Writes one CSV field, quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s)
{
	char buf[2 * ALERT_TEXT_MAX + 3];
	text_csv_field(s, buf, sizeof(buf));
	text_fputs(buf, f);
}

static void csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.9g", v);
}

int spike_log_write_csv(const struct spike_log *log, FILE *f, char *err, size_t errlen)
{
	fputs("time_s,cpu,metric,value,baseline,score,rule\n", f);
	for (size_t i = 0; i < log->len; i++) {
		const struct spike_event *e = spike_log_get(log, i);
		fprintf(f, "%.6f,%d,", e->time_s, e->cpu);
		csv_field(f, e->metric);
		csv_num(f, e->value);
		csv_num(f, e->baseline);
		csv_num(f, e->score);
		fputc(',', f);
		csv_field(f, e->rule);
		fputc('\n', f);
	}
	if (fflush(f) != 0 || ferror(f)) {
		text_errorf(err, errlen, "spike log: write failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static json_t *json_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

int spike_log_write_jsonl(const struct spike_log *log, FILE *f, char *err, size_t errlen)
{
	for (size_t i = 0; i < log->len; i++) {
		const struct spike_event *e = spike_log_get(log, i);
		json_t *o = json_object();
		if (!o) {
			text_errorf(err, errlen, "spike log: out of memory");
			return -1;
		}
		json_object_set_new(o, "time_s", json_num(e->time_s));
		json_object_set_new(o, "cpu", json_integer(e->cpu));
		json_object_set_new(o, "metric", json_string(e->metric));
		json_object_set_new(o, "value", json_num(e->value));
		json_object_set_new(o, "baseline", json_num(e->baseline));
		json_object_set_new(o, "score", json_num(e->score));
		json_object_set_new(o, "rule", json_string(e->rule));
		int rc = json_dumpf(o, f,
				    JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9) |
					JSON_ENSURE_ASCII);
		json_decref(o);
		if (rc < 0 || fputc('\n', f) == EOF) {
			text_errorf(err, errlen, "spike log: write failed: %s", strerror(errno));
			return -1;
		}
	}
	if (fflush(f) != 0 || ferror(f)) {
		text_errorf(err, errlen, "spike log: write failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- rule sets ---- */

/* Clears all but rules[]: a slot is written when a rule is added and read only below n, so
 * the slots never used (most of the set's 45 KiB) stay unwritten, unmapped in a fresh block. */
void alert_set_init(struct alert_set *s, int ncpu)
{
	s->ncpu = ncpu > 0 ? ncpu : 0;
	s->n = 0;
	memset(s->hist, 0, sizeof(s->hist));
	memset(s->rings, 0, sizeof(s->rings));
	s->scratch = NULL;
	s->scratch_cap = 0;
}

void alert_set_free(struct alert_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->hist[i]);
		free(s->rings[i]);
	}
	free(s->scratch);
	alert_set_init(s, 0);
}

int alert_set_add(struct alert_set *s, const char *text, char *err, size_t errlen)
{
	struct alert_rule r;
	if (alert_rule_parse(text, &r, err, errlen) < 0)
		return -1;
	if (s->n >= ALERT_RULES_MAX) {
		text_errorf(err, errlen, "too many rules (at most %d)", ALERT_RULES_MAX);
		return -1;
	}
	double *hist = NULL, *scratch = NULL;
	struct series_ring *rings = NULL;
	if (r.kind == ALERT_MAD && s->ncpu > 0) {
		size_t w = r.window;
		if ((size_t)s->ncpu > SIZE_MAX / sizeof(double) / 2 / w) {
			text_errorf(err, errlen, "rule history too large");
			return -1;
		}
		/* per CPU: the ring's w values, then the same window sorted (w) */
		hist = malloc((size_t)s->ncpu * 2 * w * sizeof(double));
		rings = calloc((size_t)s->ncpu, sizeof(*rings));
		if (3 * w > s->scratch_cap)
			scratch = malloc(3 * w * sizeof(double));
		if (!hist || !rings || (3 * w > s->scratch_cap && !scratch)) {
			free(hist);
			free(rings);
			free(scratch);
			text_errorf(err, errlen, "rule history: out of memory");
			return -1;
		}
		for (int c = 0; c < s->ncpu; c++)
			series_ring_init(&rings[c], hist + (size_t)c * 2 * w, w);
		if (scratch) {
			free(s->scratch);
			s->scratch = scratch;
			s->scratch_cap = 3 * w;
		}
	}
	s->rules[s->n] = r;
	s->hist[s->n] = hist;
	s->rings[s->n] = rings;
	s->n++;
	return 0;
}

int alert_set_remove(struct alert_set *s, size_t i)
{
	if (i >= s->n)
		return -1;
	free(s->hist[i]);
	free(s->rings[i]);
	for (size_t j = i + 1; j < s->n; j++) {
		s->rules[j - 1] = s->rules[j];
		s->hist[j - 1] = s->hist[j];
		s->rings[j - 1] = s->rings[j];
	}
	s->n--;
	s->hist[s->n] = NULL;
	s->rings[s->n] = NULL;
	return 0;
}

void alert_set_reset(struct alert_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rings[i])
			for (int c = 0; c < s->ncpu; c++)
				series_ring_clear(&s->rings[i][c]);
}

size_t alert_set_bytes(const struct alert_set *s)
{
	size_t b = s->scratch_cap * sizeof(double);
	for (size_t i = 0; i < s->n; i++)
		if (s->hist[i])
			b += (size_t)s->ncpu *
			     (2 * s->rules[i].window * sizeof(double) + sizeof(struct series_ring));
	return b;
}

static bool compare(enum alert_op op, double v, double t)
{
	switch (op) {
	case ALERT_GT:
		return v > t;
	case ALERT_GE:
		return v >= t;
	case ALERT_LT:
		return v < t;
	case ALERT_LE:
		return v <= t;
	}
	return false;
}

static void emit(struct spike_log *log, const struct alert_rule *r, double time_s, int cpu,
		 double value, double baseline, double score)
{
	if (!log)
		return;
	struct spike_event e;
	memset(&e, 0, sizeof(e));
	e.time_s = time_s;
	e.cpu = cpu;
	memcpy(e.metric, r->metric, sizeof(e.metric));
	e.value = value;
	e.baseline = baseline;
	e.score = score;
	memcpy(e.rule, r->text, sizeof(e.rule));
	spike_log_push(log, &e);
}

int alert_set_eval(struct alert_set *s, double time_s, int cpu, alert_lookup_fn lookup, void *ctx,
		   struct spike_log *log)
{
	int spikes = 0;
	/* The next CPU's windows (its call usually comes next): each is read once a sample, so it
	 * is out of the cache by then; fetching it now overlaps the wait with this CPU's work. */
	for (size_t i = 0; i < s->n && cpu + 1 < s->ncpu; i++)
		if (s->rings[i]) {
			const struct series_ring *nx = &s->rings[i][cpu + 1];
			const char *p = (const char *)nx->buf;
			for (size_t b = 0; b < 2 * nx->cap * sizeof(double); b += 64)
				__builtin_prefetch(p + b);
		}
	for (size_t i = 0; i < s->n; i++) {
		const struct alert_rule *r = &s->rules[i];
		double v;
		if (!alert_rule_covers(r, cpu))
			continue;
		if (lookup(ctx, cpu, r->metric, &v) < 0 || !isfinite(v))
			continue;
		if (r->kind == ALERT_THRESHOLD) {
			if (compare(r->op, v, r->threshold)) {
				emit(log, r, time_s, cpu, v, r->threshold, v - r->threshold);
				spikes++;
			}
			continue;
		}
		if (!s->rings[i] || cpu >= s->ncpu)
			continue;
		struct series_ring *ring = &s->rings[i][cpu];
		double *sorted = ring->buf + ring->cap; /* the window sorted as it slides */
		if (ring->len > 0 && ring->len * 2 >= r->window) {
			/* the scale is max(MAD, floor) >= floor, and rounding keeps k * scale >=
			 * k * floor: a value within k floors of the median cannot be a spike, so
			 * the MAD (a search of the window) is only found for one further out */
			double median = stats_percentile_sorted(sorted, ring->len, 0.5);
			double fl = r->floor_rel * fabs(median);
			if (fl < r->floor_abs)
				fl = r->floor_abs;
			double dev = v - median;
			double mad = 0;
			if (fabs(dev) > r->k * fl)
				stats_sorted_median_mad(sorted, ring->len, s->scratch, &median,
							&mad);
			double scale = mad > fl ? mad : fl;
			if (fabs(dev) > r->k * scale) {
				emit(log, r, time_s, cpu, v, median, dev / scale);
				spikes++;
			}
		}
		bool full = ring->len == ring->cap;
		double old = full ? series_ring_get(ring, ring->cap - 1) : 0;
		stats_sorted_slide(sorted, ring->len, full, old, v);
		series_ring_push(ring, v);
	}
	return spikes;
}

/* output.c: one record per tick in text, CSV or JSON Lines (a stable interface for scripts). */
#include "output.h"
#include "frame.h"
#include "jitter.h"
#include "numfmt.h"
#include "openmetrics.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void output_format_value(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 1e15) /* beyond 15 digits: SI prefix ("1.23P"), never "1e+15" */
		output_format_si(v, buf, len);
	else if (v == floor(v) || fabs(v) >= 1e7) /* counts in full: 1000000000, not 1e+09 */
		snprintf(buf, len, "%.0f", v);
	else if (v != 0 && fabs(v) < 1e-3)
		snprintf(buf, len, "%.3g", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

void output_format_si(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMGTPE";
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	int k = 0;
	double a = fabs(v);
	while (a >= 999.5 && k < 6) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, a >= 100 ? "%.0f" : "%.3g", v);
	else
		snprintf(buf, len, a >= 100 ? "%.0f%c" : "%.3g%c", v, suffix[k]);
}

/* --- a growing byte buffer ---------------------------------------------------------------- */

static bool buf_reserve(struct output_json *w, size_t more)
{
	if (w->oom)
		return false;
	if (w->len + more <= w->cap)
		return true;
	size_t cap = w->cap ? w->cap : 4096;
	while (cap < w->len + more)
		cap *= 2;
	char *b = realloc(w->buf, cap);
	if (!b) {
		w->oom = true;
		return false;
	}
	w->buf = b;
	w->cap = cap;
	return true;
}

/* The end of the buffer with room for @more bytes; NULL when out of memory. */
static char *room(struct output_json *w, size_t more)
{
	if (w->len + more <= w->cap && !w->oom)
		return w->buf + w->len;
	return buf_reserve(w, more) ? w->buf + w->len : NULL;
}

static void put(struct output_json *w, const char *s, size_t n)
{
	if (!buf_reserve(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void put_c(struct output_json *w, char c)
{
	if (buf_reserve(w, 1))
		w->buf[w->len++] = c;
}

static void put_s(struct output_json *w, const char *s) { put(w, s, strlen(s)); }

/* --- JSON ------------------------------------------------------------------------------------ */

/* Length of the UTF-8 sequence at @s (1-4), or 0 when it is not valid UTF-8 (overlong forms,
 * surrogates and code points past U+10FFFF included), as jansson's utf8_check_string(). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c < 0xC2)
		return 0;
	if (c < 0xE0) {
		n = 2;
		cp = c & 0x1F;
	} else if (c < 0xF0) {
		n = 3;
		cp = c & 0x0F;
	} else if (c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

bool output_json_text_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p < 0x80) /* names and keys are ASCII */
		p++;
	while (*p) {
		size_t n = utf8_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Length of @s, and whether it is printable ASCII without '"' or '\\' (written as it is). */
static size_t plain_len(const char *s, bool *plain)
{
	size_t n = 0;
	bool ok = true;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		ok &= c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
	}
	*plain = ok;
	return n;
}

/* A quoted JSON string; @s is valid UTF-8. Escapes what jansson escapes, nothing more. */
static void put_string(struct output_json *w, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	bool plain;
	size_t len = plain_len(s, &plain);
	if (plain) {
		char *p = room(w, len + 2);
		if (!p)
			return;
		*p++ = '"';
		memcpy(p, s, len);
		p[len] = '"';
		w->len += len + 2;
		return;
	}
	put_c(w, '"');
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(w, run, (size_t)(s - run));
		run = s + 1;
		char esc[6] = {'\\', 0};
		size_t n = 2;
		switch (c) {
		case '"':
			esc[1] = '"';
			break;
		case '\\':
			esc[1] = '\\';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		put(w, esc, n);
	}
	put(w, run, (size_t)(s - run));
	put_c(w, '"');
}

/* Bytes a scalar value may take after member(): numbers, true, false, null. */
#define VALUE_ROOM (NUMFMT_MAX + 8)

/*
 * Starts a member (or an array element when @key is NULL): false when it is left out. When it
 * returns true, VALUE_ROOM bytes are free at w->buf + w->len for the value.
 */
static bool member(struct output_json *w, const char *key)
{
	if (w->skip)
		return false;
	bool plain = true;
	size_t klen = key ? plain_len(key, &plain) : 0;
	if (!plain && !output_json_text_ok(key))
		return false;
	char *p = room(w, klen + 4 + VALUE_ROOM); /* ,"key": */
	if (!p)
		return false;
	if (w->depth > 0) {
		if (w->more[w->depth - 1])
			*p++ = ',';
		w->more[w->depth - 1] = true;
	}
	if (key && plain) {
		*p++ = '"';
		memcpy(p, key, klen);
		p += klen;
		*p++ = '"';
		*p++ = ':';
	}
	w->len = (size_t)(p - w->buf);
	if (key && !plain) {
		put_string(w, key);
		put_c(w, ':');
		return room(w, VALUE_ROOM) != NULL;
	}
	return true;
}

static void open_nested(struct output_json *w, const char *key, char open, char close)
{
	if (w->depth >=
	    OUTPUT_JSON_DEPTH) { /* deeper than any record: refuse, keep the bytes valid */
		w->oom = true;
		w->skip++;
		return;
	}
	if (!member(w, key)) {
		w->skip++;
		return;
	}
	put_c(w, open);
	w->close[w->depth] = close;
	w->more[w->depth] = false;
	w->depth++;
}

void output_json_object(struct output_json *w, const char *key) { open_nested(w, key, '{', '}'); }
void output_json_array(struct output_json *w, const char *key) { open_nested(w, key, '[', ']'); }

void output_json_end(struct output_json *w)
{
	if (w->skip) {
		w->skip--;
		return;
	}
	if (w->depth > 0)
		put_c(w, w->close[--w->depth]);
}

void output_json_real(struct output_json *w, const char *key, double v)
{
	if (member(w, key))
		w->len += numfmt_json_real(w->buf + w->len, v, 6);
}

void output_json_int(struct output_json *w, const char *key, long long v)
{
	if (member(w, key))
		w->len += numfmt_i64(w->buf + w->len, v);
}

void output_json_bool(struct output_json *w, const char *key, bool v)
{
	if (member(w, key)) {
		memcpy(w->buf + w->len, v ? "true" : "false", v ? 4 : 5);
		w->len += v ? 4 : 5;
	}
}

void output_json_null(struct output_json *w, const char *key)
{
	if (member(w, key)) {
		memcpy(w->buf + w->len, "null", 4);
		w->len += 4;
	}
}

void output_json_string(struct output_json *w, const char *key, const char *s)
{
	if (!s || !output_json_text_ok(s))
		return;
	if (member(w, key))
		put_string(w, s);
}

/* Counts print exactly: integers as integers, scaled estimates as reals of 10 digits. */
static void json_count(struct output_json *w, const char *key, double v)
{
	if (!member(w, key))
		return;
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		w->len += numfmt_i64(w->buf + w->len, (int64_t)v);
	else
		w->len += numfmt_json_real(w->buf + w->len, v, 10);
}

static void events_json(struct output_json *w, const struct snapshot *snap,
			const struct count *counts)
{
	output_json_object(w, "events");
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		output_json_object(w, snap->event_names[e]);
		if (has)
			json_count(w, "value", c->value);
		else
			output_json_null(w, "value");
		output_json_real(w, "running", c->running);
		output_json_string(w, "state", count_state_name(c->state));
		output_json_end(w);
	}
	output_json_end(w);
}

static void metrics_json(struct output_json *w, const struct snapshot *snap, const double *values)
{
	output_json_object(w, "metrics");
	for (int m = 0; m < snap->nmetrics; m++)
		output_json_real(w, snap->metrics[m].name, values[m]);
	output_json_end(w);
}

/* The record being written (JSON or CSV); its buffer is kept for the next one. */
static struct output_json rec;

static int output_json(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	struct output_json *w = &rec;
	w->len = 0;
	w->oom = false;
	w->depth = w->skip = 0;
	output_json_object(w, NULL);
	output_json_real(w, "time", snap->time_s);
	output_json_real(w, "interval_ms", snap->interval_s * 1000.0);
	output_json_string(w, "backend", meta->backend);
	output_json_string(w, "mode", meta->mode);
	output_json_bool(w, "simulated", meta->simulated);
	output_json_int(w, "seq", (long long)snap->seq);
	if (meta->replay && meta->source)
		output_json_string(w, "replay", meta->source);
	if (meta->machine) { /* the machine a recorded source's numbers come from */
		output_json_object(w, "machine");
		output_json_string(w, "host", meta->machine->host);
		output_json_string(w, "kernel", meta->machine->kernel);
		output_json_string(w, "pmu", meta->machine->pmu);
		output_json_string(w, "family", meta->machine->family);
		output_json_end(w);
	}
	bool split = false;
	for (int m = 0; m < snap->nmetrics; m++)
		if (snap->metrics[m].split) {
			if (!split) /* ratios whose events were counted in different rotated sets */
				output_json_array(w, "split_metrics");
			split = true;
			output_json_string(w, NULL, snap->metrics[m].name);
		}
	if (split)
		output_json_end(w);
	output_json_array(w, "cpus");
	for (int r = 0; r < snap->nrows; r++) {
		output_json_object(w, NULL);
		output_json_int(w, "cpu", snap->cpus[r]);
		if (snap->offline[r])
			output_json_bool(w, "offline", true);
		events_json(w, snap, &snap->counts[r * snap->nevents]);
		metrics_json(w, snap, &snap->values[r * snap->nmetrics]);
		if (meta->json_extra)
			meta->json_extra(meta->extra_ctx, NULL, w, r);
		output_json_end(w);
	}
	output_json_end(w);
	output_json_object(w, "total");
	events_json(w, snap, snap->total_counts);
	metrics_json(w, snap, snap->total_values);
	output_json_end(w);
	if (meta->json_extra)
		meta->json_extra(meta->extra_ctx, w, NULL, -1);
	output_json_end(w);
	put_c(w, '\n');
	if (w->oom || w->depth != 0)
		return -1;
	return fwrite(w->buf, 1, w->len, out) == w->len ? 0 : -1;
}

/* --- CSV ------------------------------------------------------------------------------------- */

static char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* The lines of one row. @prefix is "time_s,interval_ms,@cpu," (the same on every line). */
static void csv_row(struct output_json *b, const struct snapshot *snap, const char *prefix,
		    size_t plen, const struct count *counts, const double *values)
{
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		const char *name = snap->event_names[e], *state = count_state_name(c->state);
		size_t nlen = strlen(name), slen = strlen(state);
		char *p = room(b, plen + nlen + slen + 2 * NUMFMT_MAX + 16);
		if (!p)
			return;
		p = put_mem(p, prefix, plen);
		p = put_mem(p, "event,", 6);
		p = put_mem(p, name, nlen);
		*p++ = ',';
		if (has && c->value == floor(c->value) && fabs(c->value) < 9007199254740992.0)
			p += c->value == 0 && signbit(c->value) ? numfmt_fixed(p, c->value, 0)
								: numfmt_i64(p, (int64_t)c->value);
		else if (has)
			p += numfmt_g(p, c->value, 17);
		*p++ = ',';
		p += numfmt_fixed(p, c->running, 4);
		*p++ = ',';
		p = put_mem(p, state, slen);
		*p++ = '\n';
		b->len = (size_t)(p - b->buf);
	}
	for (int m = 0; m < snap->nmetrics; m++) {
		const char *name = snap->metrics[m].name;
		size_t nlen = strlen(name);
		char *p = room(b, plen + nlen + NUMFMT_MAX + 24);
		if (!p)
			return;
		p = put_mem(p, prefix, plen);
		p = put_mem(p, "metric,", 7);
		p = put_mem(p, name, nlen);
		*p++ = ',';
		if (isnan(values[m])) {
			p = put_mem(p, ",,n/a\n", 6);
		} else {
			p += numfmt_g(p, values[m], 6);
			p = put_mem(p, ",,ok\n", 5);
		}
		b->len = (size_t)(p - b->buf);
	}
}

static int output_csv(FILE *out, const struct snapshot *snap)
{
	struct output_json *b = &rec;
	b->len = 0;
	b->oom = false;
	if (snap->seq == 1)
		put_s(b, "time_s,interval_ms,cpu,kind,name,value,running,state\n");
	/* "time_s,interval_ms,cpu," is the same on every line of a row */
	char prefix[2 * NUMFMT_MAX + 32];
	size_t n = numfmt_fixed(prefix, snap->time_s, 6);
	prefix[n++] = ',';
	n += numfmt_fixed(prefix + n, snap->interval_s * 1000, 3);
	prefix[n++] = ',';
	for (int r = 0; r <= snap->nrows; r++) {
		bool total = r == snap->nrows;
		size_t plen = n;
		if (total) {
			memcpy(prefix + plen, "all", 3);
			plen += 3;
		} else {
			plen += numfmt_i64(prefix + plen, snap->cpus[r]);
		}
		prefix[plen++] = ',';
		csv_row(b, snap, prefix, plen,
			total ? snap->total_counts : &snap->counts[r * snap->nevents],
			total ? snap->total_values : &snap->values[r * snap->nmetrics]);
	}
	if (b->oom)
		return -1;
	return fwrite(b->buf, 1, b->len, out) == b->len ? 0 : -1;
}

/* --- text ------------------------------------------------------------------------------------ */

static void text_cell_count(FILE *out, const struct count *c)
{
	char buf[32];
	if (c->state == COUNT_OK || c->state == COUNT_SCALED)
		output_format_value(c->value, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%s", count_state_mark(c->state));
	if (c->state == COUNT_SCALED) {
		char pct[40];
		snprintf(pct, sizeof(pct), "%s(%.0f%%)", buf, c->running * 100);
		fprintf(out, " %14s", pct);
	} else {
		fprintf(out, " %14s", buf);
	}
}

static void output_text(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	fprintf(out, "time %.3f s  interval %.1f ms  mode %s  backend %s%s\n", snap->time_s,
		snap->interval_s * 1000, meta->mode, meta->backend,
		meta->simulated ? "  SIMULATED"
		: meta->replay	? "  REPLAY"
				: "");
	fprintf(out, "%5s", "CPU");
	for (int m = 0; m < snap->nmetrics; m++) {
		char h[64];
		snprintf(h, sizeof(h), "%s%s%s%s%s", snap->metrics[m].split ? "*" : "",
			 snap->metrics[m].name, snap->metrics[m].unit[0] ? "[" : "",
			 snap->metrics[m].unit, snap->metrics[m].unit[0] ? "]" : "");
		fprintf(out, " %14.14s", h);
	}
	for (int e = 0; e < snap->nevents; e++)
		fprintf(out, " %14.14s", snap->event_names[e]);
	fputc('\n', out);
	for (int r = 0; r <= snap->nrows; r++) {
		bool total = r == snap->nrows;
		if (total)
			fprintf(out, "%5s", "all");
		else
			fprintf(out, "%5d", snap->cpus[r]);
		for (int m = 0; m < snap->nmetrics; m++) {
			char buf[32];
			output_format_value(total ? snap->total_values[m]
						  : snap->values[r * snap->nmetrics + m],
					    buf, sizeof(buf));
			fprintf(out, " %14s", buf);
		}
		const struct count *counts =
		    total ? snap->total_counts : &snap->counts[r * snap->nevents];
		for (int e = 0; e < snap->nevents; e++)
			text_cell_count(out, &counts[e]);
		fputc('\n', out);
	}
	for (int m = 0; m < snap->nmetrics; m++)
		if (snap->metrics[m].split) {
			fprintf(out, "* ratio of events counted in different rotated sets (never "
				     "together)\n");
			break;
		}
	if (meta->text_extra)
		meta->text_extra(meta->extra_ctx, out);
	fputc('\n', out);
}

static int write_text(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	output_text(out, meta, snap);
	return 0;
}

static int write_csv(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	(void)meta;
	return output_csv(out, snap);
}

static int write_openmetrics(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	(void)snap;
	return meta->frame ? om_write(out, meta->frame, OM_OPENMETRICS)
			   : -1; /* it needs the frame's counters */
}

/* The formats: adding one is a writer and a row here. */
static const struct {
	const char *name;
	int (*write)(FILE *out, const struct output_meta *meta, const struct snapshot *snap);
} formats[] = {
    [OUTPUT_TEXT] = {"text", write_text},
    [OUTPUT_CSV] = {"csv", write_csv},
    [OUTPUT_JSON] = {"json", output_json},
    [OUTPUT_OPENMETRICS] = {"openmetrics", write_openmetrics},
};

int output_format_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return (int)i;
	return -1;
}

int output_snapshot(FILE *out, enum output_format fmt, const struct output_meta *meta,
		    const struct snapshot *snap)
{
	if ((size_t)fmt >= sizeof(formats) / sizeof(formats[0]))
		return -1;
	int rc = formats[fmt].write(out, meta, snap);
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	return rc;
}

int output_frame(FILE *out, enum output_format fmt, const struct frame *f)
{
	struct output_meta meta = {.backend = f->source_name,
				   .mode = f->mode,
				   .simulated = f->simulated,
				   .replay = (f->caps & SOURCE_CAP_RECORDED) != 0,
				   .source = f->origin,
				   /* a recorded source names the machine its numbers come from */
				   .machine = (f->caps & SOURCE_CAP_RECORDED) ? f->machine : NULL,
				   .frame = f};
	jitter_output_meta(f, &meta);
	return output_snapshot(out, fmt, &meta, f->snap);
}

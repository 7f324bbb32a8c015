/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.c: one record per tick in text, CSV or JSON Lines (a stable interface for scripts). */
#include "output.h"
#include "frame.h"
#include "numfmt.h"
#include "openmetrics.h"
#include "textutil.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Decimals a value of step @resolution has: the decimal place nearest the step (0 for a step
 * of about 1 or more), at most 3; -1 for an exact value (resolution 0). */
static int output_decimals(double resolution)
{
	if (!(resolution > 0))
		return -1;
	/* the decimal place nearest the step: a step of 0.99 % (101 ticks) shows whole
	 * numbers, 0.25 % one decimal. That is floor(-log10(step) + 0.5) cut to 0..3, so d
	 * decimals or more for a step up to 10^(0.5 - d): found by comparing with those bounds,
	 * and with log10 only within a millionth of one (where its rounding decides). */
	static const double bound[3] = {0.31622776601683794, 0.031622776601683794,
					0.0031622776601683794}; /* 10^-0.5, 10^-1.5, 10^-2.5 */
	int d = 0;
	for (int k = 0; k < 3; k++) {
		if (fabs(resolution - bound[k]) < 1e-6 * bound[k]) {
			d = (int)floor(-log10(resolution) + 0.5);
			return d < 0 ? 0 : d > 3 ? 3 : d;
		}
		d += resolution < bound[k];
	}
	return d;
}

/* numfmt writes printf's bytes: the "%.*f" / output_format_value choices without printf */
void output_format_metric(double v, double resolution, char *buf, size_t len)
{
	int d = output_decimals(resolution);
	double a = fabs(v);
	char tmp[NUMFMT_MAX];
	size_t n;
	if (isnan(v) || (d < 0 && !(a < 1e15))) { /* n/a, SI prefixes */
		output_format_value(v, buf, len);
		return;
	}
	if (d >= 0)
		n = numfmt_fixed(tmp, v, d);
	else if (v == floor(v) || a >= 1000) /* counts in full (output_format_value) */
		n = numfmt_fixed(tmp, v, 0);
	else if (v != 0 && a < 1e-3)
		n = numfmt_g(tmp, v, 3);
	else
		n = numfmt_fixed(tmp, v, 3);
	text_append(buf, len, 0, tmp, n);
}

void output_append_err(char *buf, size_t len, double err)
{
	size_t n = strlen(buf);
	if (n + 1 >= len)
		return;
	if (isnan(err))
		snprintf(buf + n, len - n,
			 "\xc2\xb1"
			 "?");
	else if (err == 0)
		snprintf(buf + n, len - n,
			 "\xc2\xb1"
			 "0");
	else if (err >= 1000)
		snprintf(buf + n, len - n,
			 "\xc2\xb1"
			 "%.0f",
			 err);
	else
		snprintf(buf + n, len - n,
			 "\xc2\xb1"
			 "%.2g",
			 err);
}

/* Whether metric @m is coarse on any row or in the total, and its largest step. */
static bool metric_coarse(const struct snapshot *snap, int m, double *step)
{
	bool coarse = false;
	*step = 0;
	for (int r = 0; snap->detail && r <= snap->nrows; r++) {
		const struct metric_detail *d = &snap->detail[r * snap->nmetrics + m];
		coarse |= d->coarse;
		if (d->coarse && d->resolution > *step)
			*step = d->resolution;
	}
	return coarse;
}

void output_coarse_legend(const struct snapshot *snap, char *buf, size_t len)
{
	size_t used = 0;
	char t[NUMFMT_MAX];
	if (!len)
		return;
	buf[0] = '\0';
	/* each piece cut as snprintf cuts it: the same bytes, without printf */
#define LEGEND_PUT(s, n) (used = text_append(buf, len, used, (s), (n)))
	for (int m = 0; m < snap->nmetrics && used + 1 < len; m++) {
		double step;
		if (!metric_coarse(snap, m, &step))
			continue;
		const char *lead = used ? ", " : OUTPUT_COARSE_MARK " coarse: ";
		LEGEND_PUT(lead, strlen(lead));
		LEGEND_PUT(snap->metrics[m].name, strlen(snap->metrics[m].name));
		LEGEND_PUT(" (steps of ", 11);
		size_t n = numfmt_g(t, step, 3);
		LEGEND_PUT(t, n);
		LEGEND_PUT(snap->metrics[m].unit, strlen(snap->metrics[m].unit));
		LEGEND_PUT(")", 1);
	}
	if (used && used + 1 < len) {
		static const char tail1[] = "; the tick is shorter than ",
				  tail2[] = " steps of its source (/proc/stat ticks): "
					    "sample longer for a finer value";
		LEGEND_PUT(tail1, sizeof(tail1) - 1);
		LEGEND_PUT(t, numfmt_i64(t, SESSION_COARSE_STEPS));
		LEGEND_PUT(tail2, sizeof(tail2) - 1);
	}
#undef LEGEND_PUT
}

const char *const output_marks[3] = {"*", OUTPUT_COARSE_MARK, "~"};

const char *output_value_mark(const struct snapshot *snap, int m, double running,
			      const struct metric_detail *d)
{
	if (m >= 0 && m < SESSION_MAX_METRICS && snap->split[m])
		return "*";
	if (d && d->coarse)
		return OUTPUT_COARSE_MARK;
	return running < 0.9999 ? "~" : NULL;
}

void output_stack_row(const struct snapshot *snap, const int *stack, int nstack, const double *vals,
		      const double *running, const struct metric_detail *detail,
		      struct output_stack *st)
{
	int strongest = 3;
	memset(st, 0, sizeof(*st));
	st->n = !stack ? 0 : nstack < SESSION_MAX_STACK ? nstack : SESSION_MAX_STACK;
	st->top = -1;
	for (int i = 0; i < st->n; i++) {
		int m = stack[i];
		double v = m >= 0 && m < snap->nmetrics ? vals[m] : NAN;
		st->share[i] = v;
		if (isnan(v)) {
			st->na = true;
			continue;
		}
		st->sum += v;
		if (st->top < 0 || v > st->share[st->top])
			st->top = i;
		const char *mark =
		    output_value_mark(snap, m, running[m], detail ? &detail[m] : NULL);
		for (int k = 0; mark && k < strongest; k++)
			if (strcmp(mark, output_marks[k]) == 0)
				strongest = k;
	}
	if (st->na)
		st->top = -1;
	st->past_100 = !st->na && st->sum > 100 + OUTPUT_STACK_SLACK;
	st->mark = strongest < 3 ? output_marks[strongest] : NULL;
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

int output_write(FILE *out, const char *buf, size_t n)
{
	int fd = fileno(out);
	if (fd < 0) /* a stream in memory */
		return fwrite(buf, 1, n, out) == n && fflush(out) == 0 ? 0 : -1;
	if (__fpending(out) && fflush(out) != 0) /* what stdio holds goes first */
		return -1;
	while (n) {
		ssize_t k = write(fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		buf += k; /* a partial write: the rest next */
		n -= (size_t)k;
	}
	return 0;
}

/* @n bytes of @s at @p; a record's short pieces (4 to 32 bytes: a key, the prefix, a name, a
 * line's end) as two overlapping fixed-size moves instead of a call. */
static inline char *put_mem(char *p, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		char a[16], b[16];
		memcpy(a, s, 16);
		memcpy(b, s + n - 16, 16);
		memcpy(p, a, 16);
		memcpy(p + n - 16, b, 16);
	} else if (n >= 8 && n < 16) {
		uint64_t a, b;
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(p, &a, 4);
		memcpy(p + n - 4, &b, 4);
	} else {
		memcpy(p, s, n);
	}
	return p + n;
}

/* --- a growing byte buffer ---------------------------------------------------------------- */

/* buf_reserve()'s growth (the buffer keeps its size after the first ticks): out of line. */
__attribute__((noinline, cold)) static bool buf_grow(struct output_json *w, size_t more)
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

/* Room for @more bytes more in @w; false when out of memory. */
static bool buf_reserve(struct output_json *w, size_t more)
{
	if (w->len + more <= w->cap && !w->oom)
		return true;
	return buf_grow(w, more);
}

/* The end of the buffer with room for @more bytes; NULL when out of memory. */
static char *room(struct output_json *w, size_t more)
{
	if (w->len + more <= w->cap && !w->oom)
		return w->buf + w->len;
	return buf_grow(w, more) ? w->buf + w->len : NULL;
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

/* Length of the UTF-8 sequence at NUL-terminated @s (1-4), or 0 when it is not valid UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF included), as jansson's
 * utf8_check_string(); the code point in *cp. */
static size_t utf8_len(const unsigned char *s, uint32_t *cp)
{
	return text_utf8_decode((const char *)s, 4, cp);
}

bool output_json_text_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p < 0x80) /* names and keys are ASCII */
		p++;
	while (*p) {
		uint32_t cp;
		size_t n = utf8_len(p, &cp);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* Length of @s, and whether it is printable ASCII without '"' or '\\' (written as it is). */
static size_t plain_len(const char *s, bool *plain)
{
	size_t n = strlen(s), i = 0;
	for (; i + 8 <= n; i += 8) { /* 8 bytes at a time, then byte by byte from the first hit */
		uint64_t x;
		memcpy(&x, s + i, 8);
		if (text_word_special(x, '"'))
			break;
	}
	bool ok = true;
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		ok &= c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
	}
	*plain = ok;
	return n;
}

/* "\\u00XX" style escape of @cp into @esc (6 bytes); returns 6. */
static size_t json_u_escape(uint32_t cp, char *esc)
{
	static const char hex[] = "0123456789ABCDEF";
	memcpy(esc, "\\u", 2);
	for (int i = 0; i < 4; i++)
		esc[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
	return 6;
}

/*
 * A quoted JSON string. Escapes what jansson escapes, and what a terminal would obey: DEL, the
 * C1 controls and the bidirectional controls as \uXXXX. Bytes that are not UTF-8 are written
 * as text_escape() shows them ("\\xNN"), so the string is never lost.
 */
static void put_string(struct output_json *w, const char *s)
{
	bool plain;
	size_t len = plain_len(s, &plain);
	if (plain) {
		char *p = room(w, len + 2);
		if (!p)
			return;
		*p++ = '"';
		*put_mem(p, s, len) = '"';
		w->len += len + 2;
		return;
	}
	put_c(w, '"');
	const char *run = s;
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t seq = 1; /* bytes of this character */
		uint32_t cp = c;
		if (c >= 0x80) {
			seq = utf8_len((const unsigned char *)s, &cp);
			if (seq && text_is_safe(s, seq, 0)) {
				s += seq;
				continue;
			}
		} else if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\') {
			s++;
			continue;
		}
		put(w, run, (size_t)(s - run));
		char esc[8] = {'\\', 0};
		size_t n = 2;
		if (c >= 0x80 && seq) { /* a C1 or a bidirectional control */
			n = json_u_escape(cp, esc);
		} else if (c >= 0x80) { /* not UTF-8: "\xNN", the backslash escaped for JSON */
			n = (size_t)snprintf(esc, sizeof(esc), "\\\\x%02x", c);
			seq = 1;
		} else {
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
				n = json_u_escape(c, esc);
			}
		}
		put(w, esc, n);
		s += seq;
		run = s;
	}
	put(w, run, (size_t)(s - run));
	put_c(w, '"');
}

/* Bytes a scalar value may take after member(): numbers, true, false, null. */
#define VALUE_ROOM (NUMFMT_MAX + 8)

/*
 * Starts a member whose key is already written as @frag ("\"key\":", escaped; empty for an
 * array element): false when it is left out. When it returns true, VALUE_ROOM bytes are free at
 * w->buf + w->len for the value.
 */
static bool member_frag(struct output_json *w, const char *frag, size_t flen)
{
	if (w->skip)
		return false;
	char *p = room(w, flen + 1 + VALUE_ROOM);
	if (!p)
		return false;
	if (w->depth > 0) {
		if (w->more[w->depth - 1])
			*p++ = ',';
		w->more[w->depth - 1] = true;
	}
	w->len = (size_t)(put_mem(p, frag, flen) - w->buf);
	return true;
}

#define KEY_INLINE 64 /* bytes of a key member() copies while it checks them */

/* The bytes a key holds as they are: printable ASCII but '"' and '\\' (plain_len()). */
static const unsigned char key_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x80 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x90 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xa0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xb0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xc0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xd0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xe0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xf0 */
};

/* A key written as it is: "\"key\":" and its length, for member_frag(). */
#define KEY(s) "\"" s "\":", sizeof(s) + 2

/*
 * Starts a member (or an array element when @key is NULL): false when it is left out. When it
 * returns true, VALUE_ROOM bytes are free at w->buf + w->len for the value.
 */
static bool member(struct output_json *w, const char *key)
{
	if (!key)
		return member_frag(w, "", 0);
	if (w->skip)
		return false;
	char *p = room(w, KEY_INLINE + 4 + VALUE_ROOM); /* ,"key": */
	if (!p)
		return false;
	if (w->depth > 0) {
		if (w->more[w->depth - 1])
			*p++ = ',';
		w->more[w->depth - 1] = true;
	}
	size_t at = (size_t)(p - w->buf); /* where the key starts */
	*p++ = '"';
	/* printable ASCII without '"' or '\\' is copied as it is, in the same pass that checks it
	 * (a byte loop that stops early: keys are a few bytes, no strlen or memcpy call); a table
	 * says which bytes those are, one load a byte instead of four comparisons */
	size_t i = 0;
	for (; i < KEY_INLINE && key_plain[(unsigned char)key[i]]; i++) /* the NUL stops it */
		p[i] = key[i];
	if (key[i] != '\0') { /* to be escaped, or long */
		w->len = at;
		put_string(w, key);
		put_c(w, ':');
		return room(w, VALUE_ROOM) != NULL;
	}
	p += i;
	*p++ = '"';
	*p++ = ':';
	w->len = (size_t)(p - w->buf);
	return true;
}

static void open_nested(struct output_json *w, const char *key, const char *frag, size_t flen,
			char open, char close)
{
	if (w->depth >=
	    OUTPUT_JSON_DEPTH) { /* deeper than any record: refuse, keep the bytes valid */
		w->oom = true;
		w->skip++;
		return;
	}
	if (!(frag ? member_frag(w, frag, flen) : member(w, key))) {
		w->skip++;
		return;
	}
	w->buf[w->len++] = open; /* member() left VALUE_ROOM bytes */
	w->close[w->depth] = close;
	w->more[w->depth] = false;
	w->depth++;
}

void output_json_object(struct output_json *w, const char *key)
{
	open_nested(w, key, NULL, 0, '{', '}');
}
void output_json_array(struct output_json *w, const char *key)
{
	open_nested(w, key, NULL, 0, '[', ']');
}
static void object_frag(struct output_json *w, const char *frag, size_t flen)
{
	open_nested(w, NULL, frag, flen, '{', '}');
}

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

static void real_frag(struct output_json *w, const char *frag, size_t flen, double v)
{
	if (member_frag(w, frag, flen))
		w->len += numfmt_json_real(w->buf + w->len, v, 6);
}

static void null_frag(struct output_json *w, const char *frag, size_t flen)
{
	if (member_frag(w, frag, flen)) {
		memcpy(w->buf + w->len, "null", 4);
		w->len += 4;
	}
}

static void int_frag(struct output_json *w, const char *frag, size_t flen, long long v)
{
	if (member_frag(w, frag, flen))
		w->len += numfmt_i64(w->buf + w->len, v);
}

/* As output_json_string() (nothing for NULL). */
static void string_frag(struct output_json *w, const char *frag, size_t flen, const char *s)
{
	if (s && member_frag(w, frag, flen))
		put_string(w, s);
}

/* @v with @decimals digits after the point ("1764632123.297"); null when not finite. */
static void output_json_fixed(struct output_json *w, const char *key, double v, int decimals)
{
	if (!member(w, key))
		return;
	if (isfinite(v))
		w->len += numfmt_fixed(w->buf + w->len, v, decimals);
	else {
		memcpy(w->buf + w->len, "null", 4);
		w->len += 4;
	}
}

void output_json_int(struct output_json *w, const char *key, long long v)
{
	if (member(w, key))
		w->len += numfmt_i64(w->buf + w->len, v);
}

static void output_json_bool(struct output_json *w, const char *key, bool v)
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
	if (!s)
		return;
	if (member(w, key))
		put_string(w, s);
}

char *output_json_raw(struct output_json *w, const char *key, size_t n)
{
	return member(w, key) ? room(w, n) : NULL;
}

void output_json_raw_done(struct output_json *w, size_t n) { w->len += n; }

/* Counts print exactly: integers as integers, scaled estimates as reals of 10 digits. */
static void json_count(struct output_json *w, const char *frag, size_t flen, double v)
{
	if (!member_frag(w, frag, flen))
		return;
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		w->len += numfmt_i64(w->buf + w->len, (int64_t)v);
	else
		w->len += numfmt_json_real(w->buf + w->len, v, 10);
}

/* An error bar (frame.h: err), or null when not known yet. */
static void json_err(struct output_json *w, const char *frag, size_t flen, double v)
{
	if (isfinite(v))
		real_frag(w, frag, flen, v);
	else
		null_frag(w, frag, flen);
}

/*
 * The keys of the events and metrics written once, escaped as put_string() does: "\"name\":".
 * They are made again only when the names change (a mode switch, :events), not per row or tick;
 * each tick compares the names with the copies they were made from. The names and fragments lie
 * packed in one pool (names first, each with its NUL, then the fragments), so a tick's check and
 * copies read a few cache lines, not a fixed-size slot per name. The metrics' keys also keep the
 * compiled metrics they were last found the same as (a reference held, so that program stays
 * and no other takes its address): a snapshot of that program has those names, which are then
 * not compared (each metric's name is on a page of its own, in a 5 KiB definition).
 */
#define KEY_FRAG_MAX (6 * SESSION_METRIC_NAME_MAX + 4) /* every byte escaped as \u00XX */
#define KEY_POOL_MAX (SESSION_MAX_EVENTS * (SESSION_METRIC_NAME_MAX + KEY_FRAG_MAX))
struct key_frags {
	int n;
	bool safe; /* every name prints unchanged (text_is_safe), found when they were made */
	const struct metric_program *program; /* metrics' keys: names of this program (held) */
	const struct session_metric *metrics; /* its metrics, whose names they are */
	struct {
		uint16_t name, frag, len; /* offsets in the pool; the fragment's length */
	} at[SESSION_MAX_EVENTS];
	char pool[KEY_POOL_MAX];
};
_Static_assert(KEY_POOL_MAX <= UINT16_MAX, "a key pool's offsets fit 16 bits");
static struct key_frags event_keys, metric_keys, csv_event_keys, csv_metric_keys;
static struct output_json key_tmp; /* a key written when its names have no fragments */

/* Name @i of @n: an event's or a metric's. */
static const char *frag_name(const struct snapshot *snap, bool events, int i)
{
	return events ? snap->event_names[i] : snap->metrics[i].name;
}

/* What a fragment holds: a JSON key, or the start of a CSV line's kind and name. */
enum frag_kind { FRAG_JSON, FRAG_CSV_EVENT, FRAG_CSV_METRIC };

/* Whether the names @k was made of are @snap's (the pool's names, in order, with their NULs). */
static bool key_frags_same(const struct key_frags *k, const struct snapshot *snap, bool events,
			   int n)
{
	if (k->n != n)
		return false;
	if (!events && k->program && k->program == snap->program && k->metrics == snap->metrics)
		return true; /* the names of the program they were found the same as */
	for (int i = 0; i < n; i++)
		if (!text_eq(k->pool + k->at[i].name, frag_name(snap, events, i)))
			return false;
	return true;
}

/* The metrics' keys are those of @snap's program (NULL: none): it is held while they are. */
__attribute__((noinline, cold)) static void key_frags_hold(struct key_frags *k,
							   const struct metric_program *p)
{
	if (p)
		metric_program_hold(p);
	if (k->program)
		metric_program_free(k->program);
	k->program = p;
	k->metrics = p ? metric_program_metrics(p) : NULL;
}

/* @k made again from @snap's names (the names changed): false when one does not fit. */
__attribute__((noinline, cold)) static bool key_frags_make(struct key_frags *k,
							   const struct snapshot *snap, bool events,
							   enum frag_kind kind, int n)
{
	k->n = 0;
	k->safe = true;
	size_t names = 0;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(frag_name(snap, events, i));
		if (len >= SESSION_METRIC_NAME_MAX)
			return false;
		names += len + 1;
	}
	struct output_json tmp = {0};
	size_t used = names;
	bool ok = true;
	for (int i = 0; ok && i < n; i++) {
		const char *name = frag_name(snap, events, i);
		tmp.len = 0;
		if (kind == FRAG_JSON) {
			put_string(&tmp, name);
			put_c(&tmp, ':');
		} else if (kind == FRAG_CSV_EVENT) { /* "event,NAME," (cpu/event=0x3c/ quoted) */
			char field[2 * SESSION_METRIC_NAME_MAX + 3];
			put_s(&tmp, "event,");
			put(&tmp, field, text_csv_field(name, field, sizeof(field)));
			put_c(&tmp, ',');
		} else { /* "metric,NAME," */
			put_s(&tmp, "metric,");
			put_s(&tmp, name);
			put_c(&tmp, ',');
		}
		ok = !tmp.oom && tmp.len <= KEY_FRAG_MAX && used + tmp.len <= sizeof(k->pool);
		if (ok) {
			memcpy(k->pool + used, tmp.buf, tmp.len);
			k->at[i].frag = (uint16_t)used;
			k->at[i].len = (uint16_t)tmp.len;
			used += tmp.len;
			k->safe = k->safe && text_is_safe(name, strlen(name), TEXT_ESC_OUTPUT);
		}
	}
	free(tmp.buf);
	if (!ok)
		return false;
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		const char *name = frag_name(snap, events, i);
		size_t len = strlen(name) + 1;
		memcpy(k->pool + off, name, len);
		k->at[i].name = (uint16_t)off;
		off += len;
	}
	k->n = n;
	return true;
}

/* @k made current for @snap's events (or metrics); false when one does not fit (the caller
 * writes the keys one by one then). */
static bool key_frags_update(struct key_frags *k, const struct snapshot *snap, bool events,
			     enum frag_kind kind)
{
	int n = events ? snap->nevents : snap->nmetrics;
	if (n > SESSION_MAX_EVENTS)
		return false;
	bool ok = key_frags_same(k, snap, events, n) || key_frags_make(k, snap, events, kind, n);
	if (!events && k->program != (ok ? snap->program : NULL))
		key_frags_hold(k, ok ? snap->program : NULL);
	return ok;
}

/* The key of name @i: its fragment, or written now into @one when the fragments are not made. */
static const char *key_of(const struct key_frags *k, const struct snapshot *snap, bool events,
			  int i, struct output_json *one, size_t *flen)
{
	if (k->n) {
		*flen = k->at[i].len;
		return k->pool + k->at[i].frag;
	}
	one->len = 0;
	put_string(one, frag_name(snap, events, i));
	put_c(one, ':');
	*flen = one->oom ? 0 : one->len;
	return one->oom ? "" : one->buf;
}

/* The end of an event's object for each state: ",\"state\":\"ok\"}" (state names are plain
 * ASCII: written as put_string() writes them), made on first use. */
#define STATE_FRAG_MAX 40
static char state_frag[COUNT_INVALID + 1][STATE_FRAG_MAX];
static size_t state_frag_len[COUNT_INVALID + 1];

static size_t state_frag_of(enum count_state st, const char **frag)
{
	if ((unsigned)st > COUNT_INVALID)
		return 0;
	if (!state_frag_len[st]) {
		const char *name = count_state_name(st);
		bool plain;
		size_t n = plain_len(name, &plain);
		if (!plain || n + 12 > STATE_FRAG_MAX)
			return 0;
		memcpy(state_frag[st], ",\"state\":\"", 10);
		memcpy(state_frag[st] + 10, name, n);
		memcpy(state_frag[st] + 10 + n, "\"}", 2);
		state_frag_len[st] = n + 12;
	}
	*frag = state_frag[st];
	return state_frag_len[st];
}

/*
 * One event's object without error bar or true figure, as the member functions below would
 * write it, in one piece: its key made once ("\"name\":"), the value, the running fraction
 * ("1.0" for a whole interval: a copy), the state's end made once. False when it cannot be
 * (the caller writes it member by member then).
 */
static bool event_json_fast(struct output_json *w, const char *frag, size_t flen,
			    const struct count *c)
{
	const char *sfrag;
	size_t slen = state_frag_of(c->state, &sfrag);
	if (!slen || w->skip || w->depth <= 0 || w->depth >= OUTPUT_JSON_DEPTH)
		return false;
	char *p0 = room(w, flen + 32 + 2 * VALUE_ROOM + slen), *p = p0;
	if (!p)
		return false;
	if (w->more[w->depth - 1])
		*p++ = ',';
	w->more[w->depth - 1] = true;
	p = put_mem(p, frag, flen);
	memcpy(p, "{\"value\":", 9);
	p += 9;
	if (c->state == COUNT_OK || c->state == COUNT_SCALED) {
		double v = c->value; /* json_count(): exact integers as integers */
		if (v == floor(v) && fabs(v) < 9007199254740992.0)
			p += numfmt_i64(p, (int64_t)v);
		else
			p += numfmt_json_real(p, v, 10);
	} else {
		memcpy(p, "null", 4);
		p += 4;
	}
	if (c->running == 1.0) {
		memcpy(p, ",\"running\":1.0", 14);
		p += 14;
	} else {
		memcpy(p, ",\"running\":", 11);
		p += 11;
		p += numfmt_json_real(p, c->running, 6);
	}
	p = put_mem(p, sfrag, slen);
	w->len += (size_t)(p - p0);
	return true;
}

/* @err, @truth: the row's error bars and true figures (frame.h), or NULL. */
static void events_json(struct output_json *w, const struct snapshot *snap,
			const struct count *counts, const double *err, const double *truth)
{
	object_frag(w, KEY("events"));
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		size_t flen;
		const char *frag = key_of(&event_keys, snap, true, e, &key_tmp, &flen);
		if (!err && !truth && event_json_fast(w, frag, flen, c))
			continue;
		object_frag(w, frag, flen);
		if (has)
			json_count(w, KEY("value"), c->value);
		else
			null_frag(w, KEY("value"));
		real_frag(w, KEY("running"), c->running);
		if (member_frag(w, KEY("state")))
			put_string(w, count_state_name(c->state));
		if (err && has)
			json_err(w, KEY("err"), err[e]);
		if (truth && has && isfinite(truth[e]))
			json_count(w, KEY("truth"), truth[e]);
		output_json_end(w);
	}
	output_json_end(w);
}

char *output_json_raw_metric(struct output_json *w, int m, const char *name, size_t n)
{
	if (m < 0 || m >= metric_keys.n ||
	    strcmp(metric_keys.pool + metric_keys.at[m].name, name) != 0)
		return output_json_raw(w, name, n);
	return member_frag(w, metric_keys.pool + metric_keys.at[m].frag, metric_keys.at[m].len)
		   ? room(w, n)
		   : NULL;
}

/* "metrics", and "resolution" for the values computed from quantised inputs (the step one
 * source tick makes, in the metric's unit). */
static void metrics_json(struct output_json *w, const struct snapshot *snap, const double *values,
			 const struct metric_detail *detail, const double *err, const double *truth)
{
	size_t flen;
	const char *frag;
	object_frag(w, KEY("metrics"));
	for (int m = 0; m < snap->nmetrics; m++) {
		frag = key_of(&metric_keys, snap, false, m, &key_tmp, &flen);
		if (member_frag(w, frag, flen))
			w->len += numfmt_json_real(w->buf + w->len, values[m], 6);
	}
	output_json_end(w);
	/* "metrics_err": each value's 95 % half-width (null: n/a or not known yet) */
	const double *extra[] = {err, truth};
	const char *key[] = {"metrics_err", "metrics_truth"};
	for (int k = 0; k < 2; k++) {
		if (!extra[k])
			continue;
		output_json_object(w, key[k]);
		for (int m = 0; m < snap->nmetrics; m++) {
			frag = key_of(&metric_keys, snap, false, m, &key_tmp, &flen);
			json_err(w, frag, flen, isnan(values[m]) ? NAN : extra[k][m]);
		}
		output_json_end(w);
	}
	bool any = false;
	for (int m = 0; detail && m < snap->nmetrics; m++)
		if (detail[m].resolution > 0) {
			if (!any)
				output_json_object(w, "resolution");
			any = true;
			frag = key_of(&metric_keys, snap, false, m, &key_tmp, &flen);
			real_frag(w, frag, flen, detail[m].resolution);
		}
	if (any)
		output_json_end(w);
}

/* Against a baseline (frame.h base_*): per metric its change [%] from the reference's mean, the
 * 95 % half-width of that change [%], Welch's p-value, Holm's adjusted one (frame.h base_p_adj)
 * and whether that is significant. */
static void baseline_json(struct output_json *w, const struct snapshot *snap, const struct frame *f,
			  int r)
{
	if (!f || !f->base_change)
		return;
	output_json_object(w, "baseline");
	for (int m = 0; m < snap->nmetrics; m++) {
		int i = r * snap->nmetrics + m;
		output_json_object(w, snap->metrics[m].name);
		json_err(w, KEY("change"), f->base_change[i]);
		json_err(w, KEY("err"), f->base_err[i]);
		json_err(w, KEY("p"), f->base_p[i]);
		json_err(w, KEY("p_adj"), f->base_p_adj[i]);
		output_json_bool(w, "significant", f->base_p_adj[i] < BASELINE_ALPHA);
		output_json_end(w);
	}
	output_json_end(w);
}

/* Row @r's offcore breakdown: per bit {rate [req/s], share [%], age [ticks]}, null = none. */
static void offcore_json(struct output_json *w, const struct output_meta *meta, int r)
{
	if (meta->offcore_nbits <= 0)
		return;
	output_json_object(w, "offcore");
	for (int b = 0; b < meta->offcore_nbits; b++) {
		int i = r * meta->offcore_nbits + b;
		output_json_object(w, meta->offcore_names[b]);
		output_json_real(w, "rate", meta->offcore_rate[i]);
		output_json_real(w, "share", meta->offcore_share[i] * 100);
		if (meta->offcore_age[i] >= 0)
			output_json_int(w, "age", meta->offcore_age[i]);
		else
			output_json_null(w, "age");
		output_json_end(w);
	}
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
	key_frags_update(&event_keys, snap, true, FRAG_JSON);
	key_frags_update(&metric_keys, snap, false, FRAG_JSON);
	output_json_object(w, NULL);
	/* the fixed keys as fragments (KEY): no key is checked byte by byte */
	real_frag(w, KEY("time"), snap->time_s);
	real_frag(w, KEY("interval_ms"), snap->interval_s * 1000.0);
	string_frag(w, KEY("backend"), meta->backend);
	string_frag(w, KEY("mode"), meta->mode);
	if (member_frag(w, KEY("simulated"))) {
		memcpy(w->buf + w->len, meta->simulated ? "true" : "false",
		       meta->simulated ? 4 : 5);
		w->len += meta->simulated ? 4 : 5;
	}
	int_frag(w, KEY("seq"), (long long)snap->seq);
	if (meta->frame) { /* where and when, for a fleet's collector */
		const struct frame *f = meta->frame;
		string_frag(w, KEY("host"), f->machine ? f->machine->host : "");
		output_json_fixed(w, "timestamp", f->timestamp, 3); /* unix seconds, to the ms */
	}
	if (meta->replay && meta->source)
		output_json_string(w, "replay", meta->source);
	if (unlikely(meta->machine)) { /* the machine a recorded source's numbers come from */
		output_json_object(w, "machine");
		output_json_string(w, "host", meta->machine->host);
		output_json_string(w, "kernel", meta->machine->kernel);
		output_json_string(w, "pmu", meta->machine->pmu);
		output_json_string(w, "family", meta->machine->family);
		output_json_end(w);
	}
	if (meta->util_source && meta->util_source[0])
		output_json_string(w, "util_source", meta->util_source);
	bool split = false;
	for (int m = 0; m < snap->nmetrics; m++)
		if (unlikely(snap->split[m])) {
			if (!split) /* values combining events measured in different ticks */
				output_json_array(w, "split_metrics");
			split = true;
			output_json_string(w, NULL, snap->metrics[m].name);
		}
	if (split)
		output_json_end(w);
	bool coarse = false;
	for (int m = 0; m < snap->nmetrics; m++) {
		double step;
		if (!metric_coarse(snap, m, &step))
			continue;
		if (!coarse) /* values moving in steps of the source's tick (session.h) */
			output_json_array(w, "coarse_metrics");
		coarse = true;
		output_json_string(w, NULL, snap->metrics[m].name);
	}
	if (coarse)
		output_json_end(w);
	if (snap->row_cpus) /* the rows are sums over several CPUs: "total" alone */
		output_json_int(w, "aggregated_cpus", snap->row_cpus);
	if (meta->row_keys) /* rows summed by a unit: each row names its key */
		output_json_string(w, "rows", meta->row_unit);
	const struct frame *f = meta->frame; /* error bars, true figures */
	output_json_array(w, "cpus");
	for (int r = 0; r < snapshot_cpu_rows(snap); r++) {
		output_json_object(w, NULL);
		if (meta->row_keys) {
			output_json_string(w, meta->row_unit, meta->row_keys[r].label);
			output_json_int(w, "ncpus", meta->row_keys[r].ncpus);
		} else {
			int_frag(w, KEY("cpu"), snap->cpus[r]);
		}
		if (snap->offline[r])
			output_json_bool(w, "offline", true);
		events_json(w, snap, &snap->counts[r * snap->nevents],
			    f && f->err_counts ? &f->err_counts[r * snap->nevents] : NULL,
			    f && f->truth_counts ? &f->truth_counts[r * snap->nevents] : NULL);
		metrics_json(w, snap, &snap->values[r * snap->nmetrics],
			     snap->detail ? &snap->detail[r * snap->nmetrics] : NULL,
			     f && f->err ? &f->err[r * snap->nmetrics] : NULL,
			     f && f->truth ? &f->truth[r * snap->nmetrics] : NULL);
		baseline_json(w, snap, f, r);
		offcore_json(w, meta, r);
		if (meta->json_extra && !meta->row_keys) /* per-CPU window columns */
			meta->json_extra(meta->extra_ctx, NULL, w, r);
		output_json_end(w);
	}
	output_json_end(w);
	output_json_object(w, "total");
	events_json(w, snap, snap->total_counts,
		    f && f->err_counts ? &f->err_counts[snap->nrows * snap->nevents] : NULL,
		    f && f->truth_counts ? &f->truth_counts[snap->nrows * snap->nevents] : NULL);
	metrics_json(w, snap, snap->total_values,
		     snap->detail ? &snap->detail[snap->nrows * snap->nmetrics] : NULL,
		     f && f->err ? &f->err[snap->nrows * snap->nmetrics] : NULL,
		     f && f->truth ? &f->truth[snap->nrows * snap->nmetrics] : NULL);
	baseline_json(w, snap, f, snap->nrows);
	offcore_json(w, meta, snap->nrows);
	output_json_end(w);
	if (meta->json_extra)
		meta->json_extra(meta->extra_ctx, w, NULL, -1);
	output_watch_json(w, meta->frame); /* invalid counts, the ownership map */
	output_json_end(w);
	put_c(w, '\n');
	if (w->oom || w->depth != 0)
		return -1;
	/* every string went through put_string() (plain keys as they are): the record holds
	 * printable ASCII, escapes and safe UTF-8 only, what text_fwrite() would write unchanged */
	return output_write(out, w->buf, w->len);
}

/* --- CSV ------------------------------------------------------------------------------------- */

/* The ends of a record's lines, made once a record where it uses them: an event's
 * "STATE,host,timestamp\n" per count state, a metric's ",,ok,host,timestamp\n", ",,coarse,..." and
 * ",,n/a,...", packed one after the other (a few cache lines). */
#define CSV_END_MAX (16 + 1024)
enum { CSV_END_OK = COUNT_INVALID + 1, CSV_END_COARSE, CSV_END_NA, CSV_NENDS };
struct csv_ends {
	unsigned made;				 /* bit k: end k is made in this record */
	size_t used;				 /* bytes of text made */
	const char *suffix;			 /* the record's ",host,timestamp\n" */
	size_t slen;				 /* its bytes */
	uint16_t off[CSV_NENDS], len[CSV_NENDS]; /* in text; bytes */
	char text[CSV_NENDS * CSV_END_MAX];
};
_Static_assert(CSV_NENDS *CSV_END_MAX <= UINT16_MAX, "a line end's offset fits 16 bits");

/* End @k of the record made (on its first use in the record). */
__attribute__((noinline)) static void csv_end_make(struct csv_ends *ends, int k)
{
	const char *head = k == CSV_END_OK	 ? ",,ok"
			   : k == CSV_END_COARSE ? ",,coarse"
			   : k == CSV_END_NA	 ? ",,n/a"
						 : count_state_name((enum count_state)k);
	size_t hlen = strlen(head), off = ends->used;
	memcpy(ends->text + off, head, hlen);
	memcpy(ends->text + off + hlen, ends->suffix, ends->slen);
	ends->off[k] = (uint16_t)off;
	ends->len[k] = (uint16_t)(hlen + ends->slen);
	ends->used = off + hlen + ends->slen;
	ends->made |= 1u << k;
}

/* End @k of the record, made on its first use in the record (@ends->made: those made). */
static inline const char *csv_end(struct csv_ends *ends, int k)
{
	if (!(ends->made & (1u << k)))
		csv_end_make(ends, k);
	return ends->text + ends->off[k];
}

/* "1.0000" and "0.0000": a running fraction as numfmt_fixed(v, 4) writes the usual ones. */
static size_t csv_running(char *p, double running)
{
	if (running == 1 || (running == 0 && !signbit(running))) {
		memcpy(p, running == 1 ? "1.0000" : "0.0000", 6);
		return 6;
	}
	return numfmt_fixed(p, running, 4);
}

/* "event,NAME," with the name as a CSV field (cpu/event=0x3c,umask=0/ quoted), where its
 * fragment is not made: at @p, @room bytes for the field. */
__attribute__((noinline, cold)) static char *csv_event_name(char *p, const char *name, size_t room)
{
	p = put_mem(p, "event,", 6);
	p += text_csv_field(name, p, room);
	*p++ = ',';
	return p;
}

/* "metric,NAME," where its fragment is not made. */
__attribute__((noinline, cold)) static char *csv_metric_name(char *p, const char *name, size_t n)
{
	p = put_mem(p, "metric,", 7);
	p = put_mem(p, name, n);
	*p++ = ',';
	return p;
}

/* The lines of one row. @prefix is "time_s,interval_ms,@cpu,"; @ends end every line (the
 * host and timestamp, the same on every line). */
static void csv_row(struct output_json *b, const struct snapshot *snap, const char *prefix,
		    size_t plen, struct csv_ends *ends, const struct count *counts,
		    const double *values, const struct metric_detail *detail)
{
	bool ev_frags = csv_event_keys.n == snap->nevents && snap->nevents > 0;
	bool m_frags = csv_metric_keys.n == snap->nmetrics && snap->nmetrics > 0;
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &counts[e];
		bool has = c->state == COUNT_OK || c->state == COUNT_SCALED;
		const char *name = snap->event_names[e];
		size_t nlen = ev_frags ? csv_event_keys.at[e].len : 2 * strlen(name) + 3 + 7;
		const char *etext = csv_end(ends, c->state);
		size_t elen = ends->len[c->state];
		char *p = room(b, plen + nlen + elen + 2 * NUMFMT_MAX + 16);
		if (!p)
			return;
		p = put_mem(p, prefix, plen);
		if (ev_frags) { /* "event,NAME," made once for these names */
			p = put_mem(p, csv_event_keys.pool + csv_event_keys.at[e].frag, nlen);
		} else {
			p = csv_event_name(p, name, nlen - 7);
		}
		/* an integer below 2^53 (NAN and infinities are not) as its digits */
		if (has && fabs(c->value) < 9007199254740992.0 &&
		    (double)(int64_t)c->value == c->value)
			p += c->value == 0 && signbit(c->value) ? numfmt_fixed(p, c->value, 0)
								: numfmt_i64(p, (int64_t)c->value);
		else if (has)
			p += numfmt_g(p, c->value, 17);
		*p++ = ',';
		p += csv_running(p, c->running);
		*p++ = ',';
		p = put_mem(p, etext, elen);
		b->len = (size_t)(p - b->buf);
	}
	for (int m = 0; m < snap->nmetrics; m++) {
		const char *name = snap->metrics[m].name;
		size_t nlen = m_frags ? csv_metric_keys.at[m].len : strlen(name) + 8;
		char *p = room(b, plen + nlen + CSV_END_MAX + NUMFMT_MAX + 8);
		if (!p)
			return;
		p = put_mem(p, prefix, plen);
		if (m_frags) { /* "metric,NAME," */
			p = put_mem(p, csv_metric_keys.pool + csv_metric_keys.at[m].frag, nlen);
		} else {
			p = csv_metric_name(p, name, nlen - 8);
		}
		int decimals = detail ? output_decimals(detail[m].resolution) : -1;
		int end = CSV_END_NA;
		if (!isnan(values[m])) {
			/* a value from quantised inputs has the decimals of its step; a coarse one
			 * says so in the state column */
			p += decimals >= 0 ? numfmt_fixed(p, values[m], decimals)
					   : numfmt_g(p, values[m], 6);
			end = detail && detail[m].coarse ? CSV_END_COARSE : CSV_END_OK;
		}
		const char *etext = csv_end(ends, end);
		p = put_mem(p, etext, ends->len[end]);
		b->len = (size_t)(p - b->buf);
	}
}

/* ",host,timestamp\n" of every line: the host (escaped where it came from) as a CSV field, the
 * time to the ms. *@safe: the suffix prints unchanged (text_is_safe()). */
static size_t csv_suffix(char *buf, size_t len, const struct output_meta *meta, bool *safe)
{
	const struct frame *f = meta->frame;
	size_t n = 0;
	buf[n++] = ',';
	n += text_csv_field(f && f->machine ? f->machine->host : "", buf + n, len - n - NUMFMT_MAX);
	buf[n++] = ',';
	if (f && isfinite(f->timestamp)) /* room was left for it */
		n += numfmt_fixed(buf + n, f->timestamp, 3);
	buf[n++] = '\n';
	buf[n] = '\0';
	*safe = text_is_safe(buf, n, TEXT_ESC_OUTPUT);
	return n;
}

/* The offcore lines of row @r: kinds offcore_rate [req/s], offcore_share [%] and offcore_age
 * [ticks] per bit; an empty value with state n/a where there is none. */
static void csv_offcore(struct output_json *b, const struct output_meta *meta, const char *prefix,
			size_t plen, const char *suffix, size_t slen, int r)
{
	static const char *const kinds[] = {"offcore_rate,", "offcore_share,", "offcore_age,"};
	for (int bit = 0; bit < meta->offcore_nbits; bit++) {
		int i = r * meta->offcore_nbits + bit;
		const char *name = meta->offcore_names[bit];
		size_t nlen = strlen(name);
		double v[3] = {meta->offcore_rate[i], meta->offcore_share[i] * 100,
			       meta->offcore_age[i] >= 0 ? meta->offcore_age[i] : NAN};
		for (int k = 0; k < 3; k++) {
			char *p = room(b, plen + nlen + slen + NUMFMT_MAX + 32);
			if (!p)
				return;
			p = put_mem(p, prefix, plen);
			p = put_mem(p, kinds[k], strlen(kinds[k]));
			p = put_mem(p, name, nlen);
			*p++ = ',';
			if (isnan(v[k])) {
				p = put_mem(p, ",,n/a", 5);
			} else {
				p += numfmt_g(p, v[k], 6);
				p = put_mem(p, ",,ok", 4);
			}
			p = put_mem(p, suffix, slen);
			b->len = (size_t)(p - b->buf);
		}
	}
}

/* With error bars: a line per value of kind event_err and metric_err whose value is its 95 %
 * half-width (empty with state n/a when not known). */
static void csv_err(struct output_json *b, const struct output_meta *meta,
		    const struct snapshot *snap, const char *prefix, size_t plen,
		    const char *suffix, size_t slen, int r)
{
	const struct frame *f = meta->frame;
	if (!f || !f->err || !f->err_counts)
		return;
	const struct count *counts =
	    r == snap->nrows ? snap->total_counts : &snap->counts[r * snap->nevents];
	const double *values =
	    r == snap->nrows ? snap->total_values : &snap->values[r * snap->nmetrics];
	for (int k = 0; k < snap->nevents + snap->nmetrics; k++) {
		bool ev = k < snap->nevents;
		int i = ev ? k : k - snap->nevents;
		if (ev ? counts[i].state != COUNT_OK && counts[i].state != COUNT_SCALED
		       : isnan(values[i]))
			continue;
		const char *name = ev ? snap->event_names[i] : snap->metrics[i].name;
		double v =
		    ev ? f->err_counts[r * snap->nevents + i] : f->err[r * snap->nmetrics + i];
		size_t nlen = 2 * strlen(name) + 3;
		char *p = room(b, plen + nlen + slen + NUMFMT_MAX + 32);
		if (!p)
			return;
		p = put_mem(p, prefix, plen);
		p = put_mem(p, ev ? "event_err," : "metric_err,", ev ? 10 : 11);
		p += text_csv_field(name, p, nlen);
		*p++ = ',';
		if (isfinite(v)) {
			p += numfmt_g(p, v, 6);
			p = put_mem(p, ",,ok", 4);
		} else {
			p = put_mem(p, ",,n/a", 5);
		}
		p = put_mem(p, suffix, slen);
		b->len = (size_t)(p - b->buf);
	}
}

/* Against a baseline: per metric a line of kind baseline_change (the change [%], state
 * "significant" or "ok") and one of kind baseline_err (its 95 % half-width [%]); n/a without one.
 */
static void csv_baseline(struct output_json *b, const struct output_meta *meta,
			 const struct snapshot *snap, const char *prefix, size_t plen,
			 const char *suffix, size_t slen, int r)
{
	const struct frame *f = meta->frame;
	if (!f || !f->base_change)
		return;
	for (int m = 0; m < snap->nmetrics; m++) {
		int i = r * snap->nmetrics + m;
		const char *name = snap->metrics[m].name;
		for (int k = 0; k < 2; k++) {
			double v = k ? f->base_err[i] : f->base_change[i];
			const char *kind = k ? "baseline_err," : "baseline_change,";
			const char *state = !isfinite(v) ? ",,n/a"
					    : !k && f->base_p_adj[i] < BASELINE_ALPHA
						? ",,significant"
						: ",,ok";
			char *p = room(b, plen + strlen(name) + slen + NUMFMT_MAX + 48);
			if (!p)
				return;
			p = put_mem(p, prefix, plen);
			p = put_mem(p, kind, strlen(kind));
			p = put_mem(p, name, strlen(name));
			*p++ = ',';
			if (isfinite(v))
				p += numfmt_g(p, v, 6);
			p = put_mem(p, state, strlen(state));
			p = put_mem(p, suffix, slen);
			b->len = (size_t)(p - b->buf);
		}
	}
}

/* Samples the sampling ring lost in the window on row @r: a line of kind samples_lost, name
 * ring (frame.h ring_lost; none on the total row or without the ring path), then the time the
 * kernel throttled it, a line of kind throttled_ms. */
static void csv_lost(struct output_json *b, const struct output_meta *meta,
		     const struct snapshot *snap, const char *prefix, size_t plen,
		     const char *suffix, size_t slen, int r)
{
	const struct frame *f = meta->frame;
	if (!f || !f->ring_lost || r >= snap->nrows)
		return;
	char *p = room(b, plen + slen + NUMFMT_MAX + 32);
	if (!p)
		return;
	p = put_mem(p, prefix, plen);
	p = put_mem(p, "samples_lost,ring,", 18);
	p += numfmt_i64(p, (int64_t)f->ring_lost[r]);
	p = put_mem(p, ",,ok", 4);
	p = put_mem(p, suffix, slen);
	b->len = (size_t)(p - b->buf);
	if (!f->ring_throttled_ns)
		return;
	/* the time the kernel throttled the ring's group in the window: a line of kind
	 * throttled_ms, name ring (ms, 3 decimals) */
	p = room(b, plen + slen + NUMFMT_MAX + 32);
	if (!p)
		return;
	p = put_mem(p, prefix, plen);
	p = put_mem(p, "throttled_ms,ring,", 18);
	p += numfmt_fixed(p, (double)f->ring_throttled_ns[r] / 1e6, 3);
	p = put_mem(p, ",,ok", 4);
	p = put_mem(p, suffix, slen);
	b->len = (size_t)(p - b->buf);
}

/* Whether text_fputs() would write @s unchanged. */
static bool text_fputs_safe(const char *s) { return text_is_safe(s, strlen(s), TEXT_ESC_OUTPUT); }

/* Whether a row has lines beyond its events and metrics (offcore, error bars, a baseline, the
 * sampling ring's losses). */
static bool csv_has_extra(const struct output_meta *meta)
{
	const struct frame *f = meta->frame;
	return meta->offcore_nbits > 0 ||
	       (f && ((f->err && f->err_counts) || f->base_change || f->ring_lost));
}

/* Those lines of row @r (apart from the usual lines: kept out of the common path). */
__attribute__((noinline, cold)) static void
csv_extra(struct output_json *b, const struct output_meta *meta, const struct snapshot *snap,
	  const char *prefix, size_t plen, const char *suffix, size_t slen, int r)
{
	csv_offcore(b, meta, prefix, plen, suffix, slen, r);
	csv_err(b, meta, snap, prefix, plen, suffix, slen, r);
	csv_baseline(b, meta, snap, prefix, plen, suffix, slen, r);
	csv_lost(b, meta, snap, prefix, plen, suffix, slen, r);
}

/* The header line, before the first record. */
__attribute__((noinline, cold)) static void csv_header(struct output_json *b,
						       const struct output_meta *meta)
{
	/* the third column is the row's key: cpu, or the unit ("core") */
	put_s(b, "time_s,interval_ms,");
	put_s(b, meta->row_keys ? meta->row_unit : "cpu");
	put_s(b, ",kind,name,value,running,state,host,timestamp\n");
}

/* Whether the names a record holds print unchanged, where their fragments do not say it (the
 * header's unit, names without fragments, offcore bits, row keys). */
static bool csv_names_clean(const struct output_meta *meta, const struct snapshot *snap)
{
	bool clean = snap->seq != 1 || !meta->row_keys || text_fputs_safe(meta->row_unit);
	for (int e = 0; clean && csv_event_keys.n != snap->nevents && e < snap->nevents; e++)
		clean = text_fputs_safe(snap->event_names[e]);
	for (int m = 0; clean && csv_metric_keys.n != snap->nmetrics && m < snap->nmetrics; m++)
		clean = text_fputs_safe(snap->metrics[m].name);
	for (int bit = 0; clean && bit < meta->offcore_nbits; bit++)
		clean = text_fputs_safe(meta->offcore_names[bit]);
	for (int r = 0; clean && meta->row_keys && r < snap->nrows; r++)
		clean = text_fputs_safe(meta->row_keys[r].label);
	return clean;
}

static int output_csv(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	struct output_json *b = &rec;
	b->len = 0;
	b->oom = false;
	key_frags_update(&csv_event_keys, snap, true, FRAG_CSV_EVENT);
	key_frags_update(&csv_metric_keys, snap, false, FRAG_CSV_METRIC);
	if (snap->seq == 1)
		csv_header(b, meta);
	char suffix[1024]; /* the host (at most 2 * 128 + 3 bytes as a field) and the time */
	bool suffix_safe;
	size_t slen = csv_suffix(suffix, sizeof(suffix), meta, &suffix_safe);
	static struct csv_ends ends;
	ends.made = 0;
	ends.used = 0;
	ends.suffix = suffix;
	ends.slen = slen;
	/* "time_s,interval_ms,cpu," is the same on every line of a row */
	char prefix[2 * NUMFMT_MAX + 32 + 2 * ROW_LABEL_MAX + 3];
	size_t n = numfmt_fixed(prefix, snap->time_s, 6);
	prefix[n++] = ',';
	n += numfmt_fixed(prefix + n, snap->interval_s * 1000, 3);
	prefix[n++] = ',';
	bool extra = csv_has_extra(meta);
	for (int r = snapshot_cpu_rows(snap) ? 0 : snap->nrows; r <= snap->nrows; r++) {
		bool total = r == snap->nrows;
		size_t plen = n;
		if (total) {
			memcpy(prefix + plen, "all", 3);
			plen += 3;
		} else if (meta->row_keys) { /* a core type's name may need quoting */
			plen += text_csv_field(meta->row_keys[r].label, prefix + plen,
					       2 * ROW_LABEL_MAX + 3);
		} else {
			plen += numfmt_i64(prefix + plen, snap->cpus[r]);
		}
		prefix[plen++] = ',';
		csv_row(b, snap, prefix, plen, &ends,
			total ? snap->total_counts : &snap->counts[r * snap->nevents],
			total ? snap->total_values : &snap->values[r * snap->nmetrics],
			snap->detail ? &snap->detail[r * snap->nmetrics] : NULL);
		if (extra)
			csv_extra(b, meta, snap, prefix, plen, suffix, slen, r);
	}
	if (b->oom)
		return -1;
	/* The record is numbers, fixed words and these texts: when each of them is safe to
	 * print, so is the record, and it is written without a second pass over every byte. */
	bool ev_made = csv_event_keys.n == snap->nevents && snap->nevents > 0;
	bool m_made = csv_metric_keys.n == snap->nmetrics && snap->nmetrics > 0;
	bool clean = suffix_safe;
	/* the names' answer comes with their fragments, made when the names change */
	clean = clean && (!ev_made || csv_event_keys.safe) && (!m_made || csv_metric_keys.safe) &&
		csv_names_clean(meta, snap);
	if (clean)
		return output_write(out, b->buf, b->len);
	int rc = text_fwrite(b->buf, b->len, out);
	return fflush(out) != 0 || ferror(out) ? -1 : rc;
}

/* --- text ------------------------------------------------------------------------------------ */

static void text_cell_count(FILE *out, const struct count *c, int w)
{
	char buf[32];
	if (c->state == COUNT_OK || c->state == COUNT_SCALED)
		output_format_value(c->value, buf, sizeof(buf));
	else /* a count that cannot be true (the guard, or a counter going back) says so */
		snprintf(buf, sizeof(buf), "%s",
			 c->state == COUNT_INVALID ? "invalid" : count_state_mark(c->state));
	if (c->state == COUNT_SCALED) {
		char pct[40];
		snprintf(pct, sizeof(pct), "%s(%.0f%%)", buf, c->running * 100);
		text_fprintf(out, " %*s", w, pct);
	} else {
		text_fprintf(out, " %*s", w, buf);
	}
}

#define TEXT_STACK_W 20 /* characters of a batch text stacked bar: 5 % each */
static const char text_stack_chars[SESSION_MAX_STACK + 1] = "#=+-:o%@"; /* as the screen's ASCII */

/* The stacked bar's column header: "stack(#fe =be +ret)". */
static void text_stack_header(FILE *out, const struct frame *f, const struct snapshot *snap)
{
	text_fprintf(out, "  stack(");
	for (int i = 0; i < f->nstack && i < SESSION_MAX_STACK; i++) {
		int m = f->stack[i];
		text_fprintf(out, "%s%c%s", i ? " " : "", text_stack_chars[i],
			     m >= 0 && m < snap->nmetrics ? snap->metrics[m].name : "?");
	}
	text_fprintf(out, ")");
}

/* One row's bar, 100 % wide as on the screen: "[####====++++........]~ >ret", "+" after it when
 * the shares add past 100 %, then the mark of its values and the largest share; "[n/a]". */
static void text_stack_cell(FILE *out, const struct frame *f, const struct snapshot *snap, int r)
{
	bool total = r == snap->nrows;
	int nm = snap->nmetrics;
	struct output_stack st;
	output_stack_row(snap, f->stack, f->nstack,
			 total ? snap->total_values : &snap->values[r * nm],
			 total ? snap->total_running : &snap->running[r * nm],
			 snap->detail ? &snap->detail[r * nm] : NULL, &st);
	if (st.na) {
		text_fprintf(out, "  [n/a]");
		return;
	}
	char bar[TEXT_STACK_W + 1];
	memset(bar, '.', TEXT_STACK_W);
	bar[TEXT_STACK_W] = '\0';
	double cum = 0;
	int prev = 0;
	for (int i = 0; i < st.n; i++) { /* the rounding of canvas_stacked_bar */
		cum += st.share[i] > 0 ? st.share[i] / 100 : 0;
		int end = (int)lround((cum > 1 ? 1 : cum) * TEXT_STACK_W);
		for (int k = prev; k < end; k++)
			bar[k] = text_stack_chars[i];
		prev = end > prev ? end : prev;
	}
	int m = st.top >= 0 ? f->stack[st.top] : -1;
	text_fprintf(out, "  [%s]%s%s%s%s", bar, st.past_100 ? "+" : "", st.mark ? st.mark : "",
		     m >= 0 ? " >" : "", m >= 0 ? snap->metrics[m].name : "");
}

/* A row label as the text table prints it: one line, no control byte ("a\nb" is "a\x0ab"), so a
 * task or cgroup name cannot forge a row. */
#define TEXT_LABEL_MAX (4 * ROW_LABEL_MAX + 1)
static const char *text_label(const char *label, char out[TEXT_LABEL_MAX])
{
	text_escape(label, strnlen(label, ROW_LABEL_MAX), out, TEXT_LABEL_MAX);
	return out;
}

static void output_text(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	const struct frame *f = meta->frame && meta->frame->nstack > 0 ? meta->frame : NULL;
	text_fprintf(out, "time %.3f s  interval %.1f ms  mode %s  backend %s%s%s%s\n",
		     snap->time_s, snap->interval_s * 1000, meta->mode, meta->backend,
		     meta->simulated ? "  SIMULATED"
		     : meta->replay  ? "  REPLAY"
				     : "",
		     meta->util_source && meta->util_source[0] ? "  util from " : "",
		     meta->util_source ? meta->util_source : "");
	/* the key column: CPU numbers, or the unit's labels ("S0-D0-C1") */
	char unit[16] = "CPU";
	int kw = 5;
	char lb[TEXT_LABEL_MAX];
	for (int r = 0; meta->row_keys && r < snap->nrows; r++) {
		int l = (int)strlen(text_label(meta->row_keys[r].label, lb));
		kw = l > kw ? l : kw;
	}
	for (int i = 0; meta->row_keys && meta->row_unit[i] && i < 15; i++)
		unit[i] = (char)toupper((unsigned char)meta->row_unit[i]), unit[i + 1] = '\0';
	/* a column is 14 characters, or its header's width: a header is never cut (two events
	 * named context_switch... stay two names) */
	int wm[snap->nmetrics > 0 ? snap->nmetrics : 1], we[snap->nevents > 0 ? snap->nevents : 1];
	text_fprintf(out, "%*s", kw, unit);
	for (int m = 0; m < snap->nmetrics; m++) {
		char h[SESSION_METRIC_NAME_MAX + 24];
		snprintf(h, sizeof(h), "%s%s%s%s%s", snap->split[m] ? "*" : "",
			 snap->metrics[m].name, snap->metrics[m].unit[0] ? "[" : "",
			 snap->metrics[m].unit, snap->metrics[m].unit[0] ? "]" : "");
		wm[m] = (int)strlen(h) > 14 ? (int)strlen(h) : 14;
		text_fprintf(out, " %*s", wm[m], h);
	}
	for (int e = 0; e < snap->nevents; e++) {
		we[e] =
		    (int)strlen(snap->event_names[e]) > 14 ? (int)strlen(snap->event_names[e]) : 14;
		text_fprintf(out, " %*s", we[e], snap->event_names[e]);
	}
	if (f)
		text_stack_header(out, f, snap);
	fputc('\n', out);
	if (snap->row_cpus)
		text_fprintf(out, "all: %s\n",
			     snap->row_cpus > 0
				 ? "aggregated capture, the counts of all CPUs summed"
				 : "aggregated capture, summed over unknown CPUs");
	for (int r = snapshot_cpu_rows(snap) ? 0 : snap->nrows; r <= snap->nrows; r++) {
		bool total = r == snap->nrows;
		if (total)
			text_fprintf(out, "%*s", kw, "all");
		else if (meta->row_keys)
			text_fprintf(out, "%*s", kw, text_label(meta->row_keys[r].label, lb));
		else
			text_fprintf(out, "%*d", kw, snap->cpus[r]);
		for (int m = 0; m < snap->nmetrics; m++) {
			char buf[32];
			const struct metric_detail *d =
			    snap->detail ? &snap->detail[r * snap->nmetrics + m] : NULL;
			output_format_metric(total ? snap->total_values[m]
						   : snap->values[r * snap->nmetrics + m],
					     d ? d->resolution : 0, buf, sizeof(buf));
			if (meta->frame && meta->frame->err && strcmp(buf, "n/a") != 0)
				output_append_err(buf, sizeof(buf),
						  meta->frame->err[r * snap->nmetrics + m]);
			if (d && d->coarse)
				strncat(buf, OUTPUT_COARSE_MARK, sizeof(buf) - strlen(buf) - 1);
			for (int k = 0; k < snap->metrics[m].ninputs && strcmp(buf, "n/a") == 0;
			     k++)
				if ((total
					 ? snap->total_counts
					 : &snap->counts[r *
							 snap->nevents])[snap->metrics[m].inputs[k]]
					.state == COUNT_INVALID)
					snprintf(buf, sizeof(buf), "invalid");
			text_fprintf(out, " %*s", wm[m], buf);
		}
		const struct count *counts =
		    total ? snap->total_counts : &snap->counts[r * snap->nevents];
		for (int e = 0; e < snap->nevents; e++)
			text_cell_count(out, &counts[e], we[e]);
		if (f && (total || !snap->offline[r]))
			text_stack_cell(out, f, snap, r);
		fputc('\n', out);
	}
	/* the offcore breakdown of all CPUs, as the screen's offcore view shows it */
	for (int b = 0; b < meta->offcore_nbits; b++) {
		int i = snap->nrows * meta->offcore_nbits + b;
		char num[32], rate[40] = "n/a", share[40] = "-", age[16] = "-";
		if (!isnan(meta->offcore_rate[i])) {
			output_format_value(meta->offcore_rate[i], num, sizeof(num));
			snprintf(rate, sizeof(rate), "%s/s", num);
		}
		if (!isnan(meta->offcore_share[i])) {
			output_format_value(meta->offcore_share[i] * 100, num, sizeof(num));
			snprintf(share, sizeof(share), "%s%%", num);
		}
		if (meta->offcore_age[i] >= 0)
			snprintf(age, sizeof(age), "%d", meta->offcore_age[i]);
		fprintf(out, "offcore %-16s rate %14s  share %9s  age %s\n", meta->offcore_names[b],
			rate, share, age);
	}
	for (int m = 0; m < snap->nmetrics; m++)
		if (snap->split[m]) {
			text_fprintf(
			    out, "* combines events measured in different ticks (rotated sets)\n");
			break;
		}
	/* against a baseline: the significant changes (Welch's test, baseline.h) */
	const struct frame *bf = meta->frame && meta->frame->base_change ? meta->frame : NULL;
	for (int r = snapshot_cpu_rows(snap) ? 0 : snap->nrows; bf && r <= snap->nrows; r++)
		for (int m = 0; m < snap->nmetrics; m++) {
			int i = r * snap->nmetrics + m;
			if (!(bf->base_p_adj[i] < BASELINE_ALPHA))
				continue;
			char row[TEXT_LABEL_MAX + 8];
			if (r == snap->nrows)
				snprintf(row, sizeof(row), "all");
			else if (meta->row_keys)
				text_label(meta->row_keys[r].label, row);
			else
				snprintf(row, sizeof(row), "cpu %d", snap->cpus[r]);
			text_fprintf(
			    out, "baseline: %s %s %+.1f %% (\xc2\xb1%.1f %%, p %.2g, Holm %.2g)\n",
			    row, snap->metrics[m].name, bf->base_change[i], bf->base_err[i],
			    bf->base_p[i], bf->base_p_adj[i]);
		}
	char legend[512];
	output_coarse_legend(snap, legend, sizeof(legend));
	if (legend[0])
		fprintf(out, "%s\n", legend);
	if (meta->text_extra)
		meta->text_extra(meta->extra_ctx, out);
	output_watch_text(out, meta->frame);
	fputc('\n', out);
}

static int write_text(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	output_text(out, meta, snap);
	return 0;
}

static int write_csv(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	return output_csv(out, meta, snap);
}

static int write_openmetrics(FILE *out, const struct output_meta *meta, const struct snapshot *snap)
{
	(void)snap;
	return meta->frame ? om_write(out, meta->frame, OM_OPENMETRICS)
			   : -1; /* it needs the frame's counters */
}

/* The formats: adding one is a writer and a row here (the first row is the default). */
static const struct {
	const char *name;
	int (*write)(FILE *out, const struct output_meta *meta, const struct snapshot *snap);
	unsigned reads; /* OUTPUT_READS_* */
	bool stdio;	/* it writes through stdio (flushed after each record) */
} formats[] = {
    {"text", write_text, OUTPUT_READS_SPIKES | OUTPUT_READS_CADENCE, true},
    {"csv", write_csv, 0, false},
    {"json", output_json, OUTPUT_READS_STATS | OUTPUT_READS_SPIKES, false},
    {"openmetrics", write_openmetrics, OUTPUT_READS_SPIKES | OUTPUT_READS_COUNTERS, false},
};

unsigned output_format_reads(int fmt)
{
	return fmt >= 0 && (size_t)fmt < sizeof(formats) / sizeof(formats[0]) ? formats[fmt].reads
									      : 0;
}

const char *output_format_name(size_t i)
{
	return i < sizeof(formats) / sizeof(formats[0]) ? formats[i].name : NULL;
}

int output_format_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Writes one record for @snap. Returns 0, or -1 when the stream failed (EPIPE, ENOSPC). */
static int output_snapshot(FILE *out, int fmt, const struct output_meta *meta,
			   const struct snapshot *snap)
{
	if (fmt < 0 || (size_t)fmt >= sizeof(formats) / sizeof(formats[0]))
		return -1;
	int rc = formats[fmt].write(out, meta, snap);
	/* the others wrote their record with output_write() and know its fate */
	if (formats[fmt].stdio && (fflush(out) != 0 || ferror(out)))
		rc = -1;
	return rc;
}

int output_frame(FILE *out, int fmt, const struct frame *f)
{
	struct output_meta meta = {.backend = f->source_name,
				   .mode = f->mode,
				   .simulated = f->simulated,
				   .replay = (f->caps & SOURCE_CAP_RECORDED) != 0,
				   .source = f->origin,
				   /* a recorded source names the machine its numbers come from */
				   .machine = (f->caps & SOURCE_CAP_RECORDED) ? f->machine : NULL,
				   .frame = f,
				   .util_source = f->util_source};

	if (f->nbits > 0) {
		meta.offcore_nbits = f->nbits;
		meta.offcore_names = f->bit_names;
		meta.offcore_rate = f->row_bit_rate;
		meta.offcore_share = f->row_bit_share;
		meta.offcore_age = f->row_bit_age;
	}
	if (f->row_keys) {
		meta.row_unit = rows_unit_name(f->rows);
		meta.row_keys = f->row_keys;
	}
	meta.json_extra = f->json_extra; /* an observer's lines (window statistics, spikes) */
	meta.text_extra = f->text_extra;
	meta.extra_ctx = (void *)f;
	return output_snapshot(out, fmt, &meta, f->snap);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* textutil.c: the one escaping for terminals (strings and output streams), error-message formatting
 * and edit distance. */
#include "textutil.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t text_utf8_decode(const char *in, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)in;
	unsigned c = n ? s[0] : 0;
	uint32_t v;
	size_t len;
	if (!n)
		return 0;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) { /* stops at a NUL: it is no continuation byte */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10ffff ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* Bidirectional controls: they reorder the text around them on a terminal (and in an editor
 * or a review tool), so a name could show as something it is not. */
static const uint32_t bidi_controls[][2] = {
    {0x061c, 0x061c}, /* ARABIC LETTER MARK */
    {0x200e, 0x200f}, /* LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK */
    {0x202a, 0x202e}, /* LRE, RLE, PDF, LRO, RLO */
    {0x2066, 0x2069}, /* LRI, RLI, FSI, PDI */
};

static bool is_bidi_control(uint32_t cp)
{
	for (size_t i = 0; i < sizeof(bidi_controls) / sizeof(bidi_controls[0]); i++)
		if (cp >= bidi_controls[i][0] && cp <= bidi_controls[i][1])
			return true;
	return false;
}

/*
 * One unit of @s (at @i, @n bytes in all): sets *used to the bytes it takes and returns the
 * length of its replacement in @tmp, or 0 when the unit is written as it is.
 */
static size_t escape_unit(const unsigned char *s, size_t i, size_t n, unsigned flags, char tmp[8],
			  size_t *used)
{
	unsigned char c = s[i];
	*used = 1;
	if (c >= 0x80) {
		uint32_t cp;
		size_t u = text_utf8_decode((const char *)s + i,
					    n == TEXT_NUL_TERMINATED ? 4 : n - i, &cp);
		/* C1 controls (U+0080..U+009F) act as escape sequences on some terminals */
		if (u && cp >= 0xa0) {
			*used = u;
			return is_bidi_control(cp)
				   ? (size_t)snprintf(tmp, 8, "\\u%04x", (unsigned)cp)
				   : 0;
		}
		return (size_t)snprintf(tmp, 8, "\\x%02x", c);
	}
	if ((flags & TEXT_ESC_KEEP_LINES) && (c == '\n' || c == '\t'))
		return 0;
	if (c < 0x20 || c == 0x7f)
		return (size_t)snprintf(tmp, 8, "\\x%02x", c);
	if (c == '\\' && !(flags & TEXT_ESC_KEEP_BACKSLASH)) {
		memcpy(tmp, "\\\\", 2);
		return 2;
	}
	return 0;
}

size_t text_escape_flags(const char *in, size_t n, char *out, size_t outlen, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, total = 0;
	bool full = outlen == 0;
	for (size_t i = 0; s && i < n && s[i];) {
		char tmp[8];
		size_t used, k = escape_unit(s, i, n, flags, tmp, &used);
		const char *piece = k ? tmp : (const char *)s + i;
		if (!k)
			k = used;
		i += used;
		total += k;
		if (full || o + k >= outlen) {
			full = true;
			continue;
		}
		memcpy(out + o, piece, k);
		o += k;
	}
	if (outlen)
		out[o] = '\0';
	return total;
}

void text_escape(const char *in, size_t n, char *out, size_t outlen)
{
	text_escape_flags(in, n, out, outlen, 0);
}

int text_is_safe(const char *s, size_t n, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint64_t w;
		if (n - i >= 8 &&
		    (memcpy(&w, u + i, 8), !text_word_special(w, '\\'))) { /* 8 plain bytes */
			i += 8;
			continue;
		}
		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\') { /* the common case */
			i++;
			continue;
		}
		char tmp[8];
		size_t used;
		if (u[i] == 0 || escape_unit(u, i, n, flags, tmp, &used))
			return 0;
		i += used;
	}
	return 1;
}

int text_fwrite(const char *s, size_t n, FILE *f)
{
	const unsigned char *u = (const unsigned char *)s;
	if (text_is_safe(s, n, TEXT_ESC_OUTPUT))
		return fwrite(s, 1, n, f) == n ? 0 : -1;
	size_t run = 0, i = 0;
	while (i < n) {
		char tmp[8];
		size_t used, k = 0;
		if (u[i] == 0) { /* a NUL inside a buffer: shown like any control byte */
			k = (size_t)snprintf(tmp, sizeof(tmp), "\\x00");
			used = 1;
		} else if (u[i] < 0x20 || u[i] >= 0x7f) {
			k = escape_unit(u, i, n, TEXT_ESC_OUTPUT, tmp, &used);
		} else {
			used = 1;
		}
		if (k) {
			if (fwrite(s + run, 1, i - run, f) != i - run || fwrite(tmp, 1, k, f) != k)
				return -1;
			run = i + used;
		}
		i += used;
	}
	return fwrite(s + run, 1, n - run, f) == n - run ? 0 : -1;
}

int text_fputs(const char *s, FILE *f) { return text_fwrite(s, strlen(s), f); }

static int text_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	char buf[1024], *p = buf;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(buf)) {
		p = malloc((size_t)n + 1);
		if (!p)
			return -1;
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	}
	int rc = text_fwrite(p, (size_t)n, f);
	if (p != buf)
		free(p);
	return rc;
}

int text_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = text_vfprintf(f, fmt, ap);
	va_end(ap);
	return rc;
}

size_t text_csv_field(const char *s, char *out, size_t outlen)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;
	size_t n = quote ? 2 : 0;
	for (const char *p = s; *p; p++)
		n += quote && *p == '"' ? 2 : 1;
	if (n >= outlen) {
		if (outlen)
			out[0] = '\0';
		return n;
	}
	char *o = out;
	if (quote)
		*o++ = '"';
	for (const char *p = s; *p; p++) {
		if (quote && *p == '"')
			*o++ = '"';
		*o++ = *p;
	}
	if (quote)
		*o++ = '"';
	*o = '\0';
	return n;
}

size_t text_append(char *buf, size_t len, size_t used, const char *s, size_t n)
{
	if (used >= len)
		return used;
	if (n > len - 1 - used)
		n = len - 1 - used;
	memcpy(buf + used, s, n);
	buf[used + n] = '\0';
	return used + n;
}

void text_errorf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int text_distance(const char *a, const char *b, int nocase)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
			if (nocase) {
				ca = tolower(ca);
				cb = tolower(cb);
			}
			int m = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < m)
				m = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + (ca != cb) < m)
				m = d[i - 1][j - 1] + (ca != cb);
			d[i][j] = m;
		}
	return d[la][lb];
}

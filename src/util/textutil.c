/* textutil.c: escaping for terminals, error-message formatting and edit distance. */
#include "textutil.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t text_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t len;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* C1 controls (U+0080..U+009F) act as escape sequences on some terminals */
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void text_escape(const char *in, size_t n, char *out, size_t outlen)
{
	if (!outlen)
		return;
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	for (size_t i = 0; s && i < n && s[i];) {
		char tmp[8];
		size_t k;
		size_t u =
		    s[i] >= 0x80 ? text_utf8_len(s + i, n == TEXT_NUL_TERMINATED ? 4 : n - i) : 0;
		if (u) {
			memcpy(tmp, s + i, u);
			k = u;
			i += u;
		} else if (s[i] < 0x20 || s[i] >= 0x7f) {
			k = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);
			i++;
		} else if (s[i] == '\\') {
			memcpy(tmp, "\\\\", 2);
			k = 2;
			i++;
		} else {
			tmp[0] = (char)s[i++];
			k = 1;
		}
		if (o + k >= outlen)
			break;
		memcpy(out + o, tmp, k);
		o += k;
	}
	out[o] = '\0';
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

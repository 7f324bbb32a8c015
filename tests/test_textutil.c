/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_textutil.c: the one escaping function, the output streams through it, CSV fields and
 * JSON strings (no control, C1 or bidirectional character ever comes out raw). */
#include "harness.h"
#include "output.h"
#include "textutil.h"
#include <jansson.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Every terminal escape a hostile file could carry. */
#define OSC52 "\x1b]52;c;cHduZWQ=\x07"
#define RLO "\xe2\x80\xae" /* U+202E RIGHT-TO-LEFT OVERRIDE */
#define C1_CSI "\xc2\x9b"  /* U+009B as UTF-8 */

static const struct {
	int line;
	const char *in;
	unsigned flags;
	const char *out;
} escape_cases[] = {
    {__LINE__, "plain text", 0, "plain text"},
    {__LINE__, OSC52, 0, "\\x1b]52;c;cHduZWQ=\\x07"},
    {__LINE__, "\x1b]0;title\x07", 0, "\\x1b]0;title\\x07"},
    {__LINE__, "\x1b[31mred", 0, "\\x1b[31mred"},
    {__LINE__,
     "\x9b"
     "2J",
     0, "\\x9b2J"},				/* C1 CSI as a raw byte */
    {__LINE__, C1_CSI "6n", 0, "\\xc2\\x9b6n"}, /* C1 CSI as UTF-8 */
    {__LINE__, "\xc2\x85", 0, "\\xc2\\x85"},	/* NEL */
    {__LINE__,
     "a\x7f"
     "b",
     0, "a\\x7fb"},			     /* DEL */
    {__LINE__, "x" RLO "y", 0, "x\\u202ey"}, /* bidirectional controls */
    {__LINE__, "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0,
     "\\u202a\\u202b\\u202c\\u202d"},
    {__LINE__, "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 0,
     "\\u2066\\u2067\\u2068\\u2069"},
    {__LINE__, "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0, "\\u200e\\u200f\\u061c"},
    {__LINE__, "\xe2\x80\x8d", 0, "\xe2\x80\x8d"}, /* ZWJ is not a bidi control */
    {__LINE__, "caf\xc3\xa9 \xe2\x82\xac", 0, "caf\xc3\xa9 \xe2\x82\xac"}, /* UTF-8 kept */
    {__LINE__, "\xff\xc0\xaf\xed\xa0\x80", 0, "\\xff\\xc0\\xaf\\xed\\xa0\\x80"},
    {__LINE__, "a\\b", 0, "a\\\\b"},
    {__LINE__, "a\\b", TEXT_ESC_KEEP_BACKSLASH, "a\\b"},
    {__LINE__, "a\nb\tc\r", 0, "a\\x0ab\\x09c\\x0d"},
    {__LINE__, "a\nb\tc\r", TEXT_ESC_OUTPUT, "a\nb\tc\\x0d"},
    {__LINE__, "a\nb", TEXT_ESC_KEEP_BACKSLASH, "a\\x0ab"},
};

static void check_escape(void)
{
	for (size_t i = 0; i < sizeof(escape_cases) / sizeof(escape_cases[0]); i++) {
		char out[128];
		const char *in = escape_cases[i].in;
		size_t n = text_escape_flags(in, TEXT_NUL_TERMINATED, out, sizeof(out),
					     escape_cases[i].flags);
		CHECK(strcmp(out, escape_cases[i].out) == 0, "line %d: got \"%s\"",
		      escape_cases[i].line, out);
		CHECK(n == strlen(escape_cases[i].out), "line %d: length %zu", escape_cases[i].line,
		      n);
		CHECK(text_is_safe(in, strlen(in), escape_cases[i].flags) ==
			  (strcmp(in, escape_cases[i].out) == 0),
		      "line %d: text_is_safe", escape_cases[i].line);
	}
	/* a small buffer: escapes and characters whole, the length still the full one */
	char small[7];
	CHECK_INT(text_escape_flags("ab" RLO, TEXT_NUL_TERMINATED, small, sizeof(small), 0), 8);
	CHECK_STR(small, "ab");
	CHECK_INT(text_escape_flags("\x1b", TEXT_NUL_TERMINATED, NULL, 0, 0), 4);
	/* @n bytes: a NUL ends the text, a cut sequence is escaped */
	char out[32];
	text_escape("\xe2\x80\xae", 2, out, sizeof(out));
	CHECK_STR(out, "\\xe2\\x80");
}

/* What text_fwrite/text_fprintf wrote for @fn. */
static void check_stream(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL, "open_memstream");
	if (!f)
		return;
	CHECK(text_fprintf(f, "mode %s: %s\n", "x", "T" OSC52 RLO C1_CSI "\x9b") == 0, "fprintf");
	CHECK(text_fputs("already escaped \\x1b stays\n", f) == 0, "fputs");
	CHECK(text_fwrite("nul\0byte", 8, f) == 0, "fwrite");
	char big[3000];
	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\x1b';
	big[sizeof(big) - 1] = '\0';
	CHECK(text_fprintf(f, "%s", big) == 0, "a long line");
	fclose(f);
	const char *want = "mode x: T\\x1b]52;c;cHduZWQ=\\x07\\u202e\\xc2\\x9b\\x9b\n"
			   "already escaped \\x1b stays\n"
			   "nul\\x00byte";
	CHECK(strncmp(buf, want, strlen(want)) == 0, "stream: \"%s\"", buf);
	CHECK(len == strlen(want) + sizeof(big) - 2 + 4, "stream length %zu", len);
	CHECK(strcmp(buf + len - 5, "a\\x1b") == 0, "long line end: \"%s\"", buf + len - 5);
	free(buf);
}

static const struct {
	int line;
	const char *in, *out;
} csv_cases[] = {
    {__LINE__, "cycles", "cycles"},
    {__LINE__, "cpu/event=0x3c,umask=0/", "\"cpu/event=0x3c,umask=0/\""},
    {__LINE__, "a\"b", "\"a\"\"b\""},
    {__LINE__, "two\nlines", "\"two\nlines\""},
    {__LINE__, "", ""},
};

static void check_csv(void)
{
	for (size_t i = 0; i < sizeof(csv_cases) / sizeof(csv_cases[0]); i++) {
		char out[64];
		size_t n = text_csv_field(csv_cases[i].in, out, sizeof(out));
		CHECK(strcmp(out, csv_cases[i].out) == 0 && n == strlen(out), "line %d: \"%s\"",
		      csv_cases[i].line, out);
	}
	char small[4];
	CHECK_INT(text_csv_field("a,b", small, sizeof(small)), 5);
	CHECK_STR(small, ""); /* the whole field or nothing */
}

/* text_eq() answers as strcmp() == 0 does, prefixes and empty strings included. */
static void check_eq(void)
{
	static const char *const words[] = {"",	    "u",    "util",   "utilx",
					    "busy", "idle", "jitter", "util\xff"};
	size_t n = sizeof(words) / sizeof(words[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			CHECK(text_eq(words[i], words[j]) == (strcmp(words[i], words[j]) == 0),
			      "text_eq(\"%s\", \"%s\")", words[i], words[j]);
}

static const struct {
	int line;
	const char *in, *out;
} json_cases[] = {
    {__LINE__, "plain", "\"plain\""},
    {__LINE__, "q\"b\\", "\"q\\\"b\\\\\""},
    {__LINE__, "\x1b]0;t\x07", "\"\\u001B]0;t\\u0007\""},
    {__LINE__, "d\x7f", "\"d\\u007F\""},
    {__LINE__, C1_CSI "6n", "\"\\u009B6n\""},
    {__LINE__, "x" RLO "\xe2\x81\xa6", "\"x\\u202E\\u2066\""},
    {__LINE__, "caf\xc3\xa9", "\"caf\xc3\xa9\""},
    {__LINE__, "raw\x9b", "\"raw\\\\x9b\""}, /* not UTF-8: shown as text_escape does */
};

static void check_json(void)
{
	for (size_t i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		struct output_json w = {0};
		output_json_string(&w, NULL, json_cases[i].in);
		char got[128];
		snprintf(got, sizeof(got), "%.*s", (int)w.len, w.buf ? w.buf : "");
		CHECK(strcmp(got, json_cases[i].out) == 0, "line %d: %s", json_cases[i].line, got);
		free(w.buf);
	}
	/* a hostile key is escaped, not dropped */
	struct output_json w = {0};
	output_json_object(&w, NULL);
	output_json_int(&w, "k" RLO, 1);
	output_json_end(&w);
	char got[64];
	snprintf(got, sizeof(got), "%.*s", (int)w.len, w.buf ? w.buf : "");
	CHECK_STR(got, "{\"k\\u202E\":1}");
	free(w.buf);
}

/* The one UTF-8 decoder against glibc's (mbrtowc in C.UTF-8): every lead byte with a spread of
 * continuation bytes, cut sequences included. */
static void check_utf8(void)
{
	static const unsigned char conts[] = {0x00, 0x41, 0x7f, 0x80, 0x8f,
					      0x90, 0x9f, 0xa0, 0xbf, 0xc0};
	const size_t nc = sizeof(conts);
	int compared = 0, differ = 0;

	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		printf("SKIP utf8: no C.UTF-8 locale to compare with\n");
		return;
	}
	for (unsigned lead = 0x01; lead <= 0xff; lead++)
		for (size_t a = 0; a < nc; a++)
			for (size_t b = 0; b < nc; b++)
				for (size_t c = 0; c < nc; c++)
					for (size_t n = 1; n <= 4; n++) {
						unsigned char s[4] = {(unsigned char)lead, conts[a],
								      conts[b], conts[c]};
						mbstate_t st;
						wchar_t wc = 0;
						uint32_t cp = 0;
						memset(&st, 0, sizeof(st));
						size_t g = mbrtowc(&wc, (const char *)s, n, &st);
						size_t m =
						    text_utf8_decode((const char *)s, n, &cp);
						/* glibc: >0 a character of g bytes, (size_t)-1/-2
						 * none; it decodes past U+10FFFF, which RFC 3629
						 * ends at */
						bool gok = g != (size_t)-1 && g != (size_t)-2 &&
							   g > 0 && (uint32_t)wc <= 0x10ffff;
						compared++;
						if (gok != (m > 0) ||
						    (gok && (g != m || (uint32_t)wc != cp))) {
							if (differ++ < 5)
								CHECK(
								    0,
								    "%02x %02x %02x %02x (n %zu): "
								    "glibc %zd U+%x, ours %zu U+%x",
								    s[0], s[1], s[2], s[3], n,
								    (ssize_t)g, (unsigned)wc, m,
								    (unsigned)cp);
						}
					}
	CHECK(differ == 0, "%d of %d sequences decode unlike glibc", differ, compared);
	setlocale(LC_CTYPE, "C");
}

/* text_is_safe() reads 8 bytes at a time: every byte value at every position of buffers of 1 to
 * 24 bytes (the rest 'a') against what text_escape_flags() makes of them (an escape changes the
 * text or its length). */
static void check_safe_words(void)
{
	int bad = 0;
	for (size_t n = 1; n <= 24 && !bad; n++)
		for (size_t at = 0; at < n && !bad; at++)
			for (int b = 1; b < 256 && !bad; b++) {
				char buf[32], out[256];
				memset(buf, 'a', n);
				buf[n] = 0;
				buf[at] = (char)b;
				unsigned flags[] = {0, TEXT_ESC_OUTPUT};
				for (int f = 0; f < 2; f++) {
					size_t k =
					    text_escape_flags(buf, n, out, sizeof(out), flags[f]);
					int want = k == n && memcmp(out, buf, n) == 0;
					if (text_is_safe(buf, n, flags[f]) != want) {
						CHECK(
						    0,
						    "byte 0x%02x at %zu of %zu, flags %u: safe %d",
						    b, at, n, flags[f], !want);
						bad = 1;
					}
				}
			}
}

/* text_append against snprintf (libc's cut): every buffer length and starting length over
 * pieces of every length, the buffer past the text left untouched */
static void check_append(void)
{
	static const char piece[] = "abcdefghij";
	for (size_t len = 0; len <= 12; len++)
		for (size_t used = 0; used <= len; used++)
			for (size_t n = 0; n <= 10; n++) {
				char got[16], want[16];
				memset(got, '#', sizeof(got));
				memset(want, '#', sizeof(want));
				/* the text so far: @used bytes (when they fit) */
				size_t have = used < len ? used : (len ? len - 1 : 0);
				memset(got, 'x', have), memset(want, 'x', have);
				if (len)
					got[have] = want[have] = '\0';
				int w = len > have ? snprintf(want + have, len - have, "%.*s",
							      (int)n, piece)
						   : 0;
				size_t expect =
				    have + (len > have && (size_t)w >= len - have ? len - have - 1
										  : (size_t)w);
				size_t r = text_append(got, len, have, piece, n);
				CHECK(r == expect && memcmp(got, want, sizeof(got)) == 0,
				      "text_append len %zu used %zu n %zu: %zu, want %zu", len,
				      have, n, r, expect);
			}
	char b[8] = "";
	CHECK_INT(text_cat(b, sizeof(b), text_cat(b, sizeof(b), 0, "pmu"), "top!!"), 7);
	CHECK_STR(b, "pmutop!");
}

/* output_json_string() against jansson's dump (the JSON writer it stands in for) on strings of
 * ASCII 0x01..0x7e of every length up to 40 with a '"', '\\' or control byte at each place (the
 * 8-byte scan for plain text must find it in any lane) and random ones; DEL, which pmutop
 * escapes beyond jansson, stays out. */
static void check_json_random(void)
{
	uint64_t r = 0x2545f4914f6cdd1dULL;
	int bad = 0;
	for (int i = 0; i < 6000; i++) {
		char in[48];
		int len = i < 41 * 4 ? i / 4 : (int)(r % 41);
		for (int k = 0; k < len; k++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			in[k] = (char)(r % 8 ? 0x20 + r / 8 % 0x5f : 1 + r / 8 % 0x7e);
		}
		in[len] = '\0';
		if (i < 41 * 4 && len > 0) /* one special byte at every place */
			in[(i * 7) % len] = "\"\\\x01\x1f"[i % 4];
		struct output_json w = {0};
		output_json_string(&w, NULL, in);
		json_t *j = json_string(in);
		char *want = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		if (!want || w.len != strlen(want) || memcmp(w.buf, want, w.len) != 0)
			if (bad++ < 5)
				CHECK(0, "\"%s\": got %.*s, jansson %s", in, (int)w.len,
				      w.buf ? w.buf : "", want ? want : "(none)");
		free(want);
		json_decref(j);
		free(w.buf);
	}
	CHECK(bad == 0, "%d strings differ from jansson's", bad);
}

int main(void)
{
	check_append();
	check_safe_words();
	check_utf8();
	check_escape();
	check_stream();
	check_csv();
	check_eq();
	check_json();
	check_json_random();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* textutil.h: small text helpers shared by the parsers: escaping, error messages, edit distance. */
#ifndef PMUTOP_TEXTUTIL_H
#define PMUTOP_TEXTUTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TEXT_NUL_TERMINATED SIZE_MAX

/* A branch a steady tick never takes (errors, first use, a changed mode): the compiler moves
 * its code out of the function's hot part (into .text.unlikely), so a tick's code lies on
 * fewer cache lines. */
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The one UTF-8 decoder: the code point at @s (at most @n bytes) in *cp and its length 1..4,
 * or 0 when it is not one (overlong, surrogate, cut, out of range, or @n is 0). */
size_t text_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Flags of text_escape_flags(). */
enum text_escape_flag {
	/* a backslash stays single: the text may hold escaped strings already */
	TEXT_ESC_KEEP_BACKSLASH = 1 << 0,
	/* '\n' and '\t' pass: whole lines and messages */
	TEXT_ESC_KEEP_LINES = 1 << 1,
	/* for output that is ours (a line, a message) with strings from anywhere in it */
	TEXT_ESC_OUTPUT = TEXT_ESC_KEEP_BACKSLASH | TEXT_ESC_KEEP_LINES,
};

/*
 * The one escaping function: copies @in (@n bytes, or up to its NUL with
 * TEXT_NUL_TERMINATED) into @out (@outlen bytes, always NUL-terminated when @outlen > 0) so
 * that it is safe on a terminal: control bytes (ESC included), DEL, C1 controls (raw or as
 * UTF-8) and invalid UTF-8 become "\xNN" (lower-case hex); the bidirectional controls
 * (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) become "\uNNNN"; a backslash
 * becomes "\\" unless TEXT_ESC_KEEP_BACKSLASH. Other valid UTF-8 is kept. An escape or a character
 * is never split when @out is too small. Returns the length of the whole escaped text (as
 * snprintf does), so a caller can size a buffer.
 */
size_t text_escape_flags(const char *in, size_t n, char *out, size_t outlen, unsigned flags);
/* text_escape_flags() without flags: for a string put into a message or a line. */
void text_escape(const char *in, size_t n, char *out, size_t outlen);
/* Whether one of the 8 bytes of @x (a word read with memcpy) is below 0x20, at or above 0x7f,
 * a backslash or @also: exact for "none" (a word it passes holds printable ASCII but those). */
static inline bool text_word_special(uint64_t x, unsigned char also)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t bs = x ^ (ones * '\\'), al = x ^ (ones * also);
	uint64_t low = (x - ones * 0x20) & ~x;			  /* a byte < 0x20 */
	uint64_t top = (x + ones) | x;				  /* a byte >= 0x7f */
	uint64_t hit = ((bs - ones) & ~bs) | ((al - ones) & ~al); /* a backslash or @also */
	return ((low | top | hit) & high) != 0;
}
/* True when @s (@n bytes) holds nothing text_escape_flags(@flags) would change. */
int text_is_safe(const char *s, size_t n, unsigned flags);

/* Output that may reach a terminal: writes @s (@n bytes) to @f through
 * text_escape_flags(TEXT_ESC_OUTPUT). Returns 0, or -1 when writing failed. */
int text_fwrite(const char *s, size_t n, FILE *f);
int text_fputs(const char *s, FILE *f);
/* fprintf through the escaping: every byte of the formatted text goes through
 * text_escape_flags(TEXT_ESC_OUTPUT). Returns 0, or -1. */
int text_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A CSV field (RFC 4180): @s as it is, or in double quotes with each '"' doubled when it holds
 * a comma, a quote or a line break. Writes the whole field or nothing into @out (@outlen
 * bytes, NUL-terminated when @outlen > 0); returns its length. */
size_t text_csv_field(const char *s, char *out, size_t outlen);

/* Appends @n bytes of @s to the text of @used bytes in @buf (@len bytes), cut as
 * snprintf(buf + used, len - used, "%s", s) cuts it, NUL-terminated; returns the text's new
 * length (@used when there is no room). For lines built piece by piece without printf. */
size_t text_append(char *buf, size_t len, size_t used, const char *s, size_t n);
/* Whether strings @a and @b are equal: strcmp(a, b) == 0 inline, for the few short names a
 * tick compares (no call into the C library, whose strcmp lies on lines of its own). */
static inline bool text_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* text_append() of the string @s. */
static inline size_t text_cat(char *buf, size_t len, size_t used, const char *s)
{
	return text_append(buf, len, used, s, __builtin_strlen(s));
}

/* snprintf into @err when it is not NULL and @errlen is not 0. */
void text_errorf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

/* Levenshtein distance between @a and @b (bytes; ASCII case ignored when @nocase); strings
 * longer than 63 bytes give a large distance. */
int text_distance(const char *a, const char *b, int nocase);

#endif

/* textutil.h: small text helpers shared by the parsers: escaping, error messages, edit distance. */
#ifndef PMUTOP_TEXTUTIL_H
#define PMUTOP_TEXTUTIL_H
#include <stddef.h>
#include <stdint.h>

#define TEXT_NUL_TERMINATED SIZE_MAX

/* Length of the valid UTF-8 sequence at @s (at most @n bytes): 2..4, or 0 when it is not one
 * (overlong, surrogate, cut, C1 control, out of range). */
size_t text_utf8_len(const unsigned char *s, size_t n);

/* Copies @in (@n bytes, or up to its NUL with TEXT_NUL_TERMINATED) into @out (@outlen bytes,
 * always NUL-terminated) so that it is safe on a terminal: control bytes, DEL, C1 controls and
 * invalid UTF-8 become "\xNN" (lower-case hex), a backslash becomes "\\"; valid UTF-8 is kept.
 * An escape or a character is never split when @out is too small. */
void text_escape(const char *in, size_t n, char *out, size_t outlen);

/* snprintf into @err when it is not NULL and @errlen is not 0. */
void text_errorf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Levenshtein distance between @a and @b (bytes; ASCII case ignored when @nocase); strings
 * longer than 63 bytes give a large distance. */
int text_distance(const char *a, const char *b, int nocase);

#endif

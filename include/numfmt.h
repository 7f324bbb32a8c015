/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numfmt.h: exact number formatting, the bytes printf and jansson print, without printf. */
#ifndef PMUTOP_NUMFMT_H
#define PMUTOP_NUMFMT_H
#include <stddef.h>
#include <stdint.h>

/* Room for any result of the functions below (the "%f" of DBL_MAX is 316 bytes). */
#define NUMFMT_MAX 352

/*
 * Each function writes a NUL-terminated string into @buf (NUMFMT_MAX bytes) and returns its
 * length. The common cases are done with exact integer arithmetic (the double's value is
 * m * 2^e; decimal rounding is to nearest, ties to even, on that exact value, as glibc does);
 * the rest (NaN, infinities, magnitudes the 128-bit arithmetic cannot hold, platforms without
 * a 128-bit integer type) fall back to snprintf, so the result is always the same bytes.
 */

/* Decimal integers. */
size_t numfmt_u64(char *buf, uint64_t v);
size_t numfmt_i64(char *buf, int64_t v);
/* snprintf(buf, NUMFMT_MAX, "%.*g", prec, v), 1 <= prec <= 17. */
size_t numfmt_g(char *buf, double v, int prec);
/* snprintf(buf, NUMFMT_MAX, "%.*f", decimals, v), 0 <= decimals <= 17. */
size_t numfmt_fixed(char *buf, double v, int decimals);
/*
 * A JSON real as jansson 2.14 dumps json_real(x) with JSON_REAL_PRECISION(10), where x is @v
 * rounded to @sig significant digits (1 <= sig <= 10; sig 6 is the "%.6g" then strtod() that
 * output.c and jitter.c apply): "%.10g" of x, ".0" appended when that has neither '.' nor 'e',
 * the exponent without '+' and leading zeros ("1e-5", "2.5e20"). Finite @v only: NaN and
 * infinities give "null" (jansson has no real for them).
 */
size_t numfmt_json_real(char *buf, double v, int sig);

#endif

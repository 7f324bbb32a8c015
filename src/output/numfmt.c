/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numfmt.c: exact number formatting, the bytes printf and jansson print, without printf. */
#include "numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
static const uint64_t pow10_u64[20] = { /* 10^0 .. 10^19 */
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL,
};
/* clang-format on */

/* The small steps of a number, inlined into each formatter: a call per step costs more than the
 * step (a 6-digit real is about 60 instructions of work). */
#if defined(__GNUC__)
#define NUMFMT_INLINE static inline __attribute__((always_inline))
#else
#define NUMFMT_INLINE static inline
#endif

static const char digit_pairs[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

/* The decimal digits of @v in place: their count first (from the bit length: bits * 1233 / 4096
 * is floor(log10 2^bits) or one less), then the digits from the last, two at a time. */
NUMFMT_INLINE size_t u64_digits(char *buf, uint64_t v)
{
	int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* 0 .. 19 */
	size_t len = (size_t)t + ((v | 1) >= pow10_u64[t]);
	char *p = buf + len;
	*p = '\0';
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		*--p = digit_pairs[2 * d + 1];
		*--p = digit_pairs[2 * d];
	}
	if (v >= 10) {
		*--p = digit_pairs[2 * v + 1];
		*--p = digit_pairs[2 * v];
	} else {
		*--p = (char)('0' + v);
	}
	return len;
}

size_t numfmt_u64(char *buf, uint64_t v) { return u64_digits(buf, v); }

size_t numfmt_i64(char *buf, int64_t v)
{
	buf[0] = '-';
	size_t neg = v < 0;
	return neg + u64_digits(buf + neg, neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* Writes exactly @n decimal digits of @v (zero-padded on the left), two at a time. */
NUMFMT_INLINE void put_digits(char *out, uint64_t v, int n)
{
	int i = n;
	while (i >= 2 && v > UINT32_MAX) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		out[--i] = digit_pairs[2 * d + 1];
		out[--i] = digit_pairs[2 * d];
	}
	uint32_t w = (uint32_t)v; /* the rest in 32-bit arithmetic (cheaper divisions) */
	while (i >= 2) {
		unsigned d = w % 100;
		w /= 100;
		out[--i] = digit_pairs[2 * d + 1];
		out[--i] = digit_pairs[2 * d];
	}
	if (i) /* (v still wide: a caller's v of more than n digits, whose last one is kept) */
		out[0] = (char)('0' + (v > UINT32_MAX ? v % 10 : w % 10));
}

/* a = m * 2^e exactly, for finite a >= 0 (m < 2^53; m == 0 for a == 0). */
NUMFMT_INLINE void decompose(double a, uint64_t *m, int *e)
{
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	int be = (int)((bits >> 52) & 0x7ff);
	uint64_t frac = bits & ((1ULL << 52) - 1);
	if (be == 0) { /* zero and subnormals */
		*m = frac;
		*e = -1074;
	} else {
		*m = frac | (1ULL << 52);
		*e = be - 1075;
	}
}

/* The exponent frexp() would give: 2^(ex-1) <= a < 2^ex, for finite a > 0. */
NUMFMT_INLINE int binary_exponent(double a)
{
	uint64_t m;
	int e;
	decompose(a, &m, &e);
	return e + 64 - __builtin_clzll(m);
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static int bits128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
	if (hi)
		return 128 - __builtin_clzll(hi);
	return lo ? 64 - __builtin_clzll(lo) : 0;
}

static u128 pow10_128(int n) /* 0 <= n <= 38 */
{
	u128 p = 1;
	while (n >= 19) {
		p *= pow10_u64[19];
		n -= 19;
	}
	return p * pow10_u64[n];
}

/*
 * floor(a * 10^s) for finite a >= 0, and where the rest lies against one half: -1 below (or no
 * rest), 0 exactly one half, +1 above. Exact: a = m * 2^e with m < 2^53. Returns -1 when the
 * floor does not fit 64 bits or the arithmetic would not fit 128 bits.
 */
static int scale_exact(double a, int s, uint64_t *floor_out, int *half)
{
	uint64_t m;
	int e;
	decompose(a, &m, &e);
	u128 q, rem, den;
	if (m == 0) {
		*floor_out = 0;
		*half = -1;
		return 0;
	}
	if (s >= 0) {
		if (s > 22)
			return -1;
		u128 n = (u128)m * pow10_128(s); /* < 2^53 * 2^74 */
		if (e >= 0) {
			if (bits128(n) + e > 64)
				return -1;
			*floor_out = (uint64_t)(n << e);
			*half = -1;
			return 0;
		}
		int sh = -e;
		if (sh > 126)
			return -1;
		q = n >> sh;
		rem = n - (q << sh);
		den = (u128)1 << sh;
	} else {
		int t = -s;
		if (t > 27)
			return -1;
		u128 p = pow10_128(t); /* < 2^90 */
		if (e >= 0) {
			if (53 + e > 127)
				return -1;
			u128 n = (u128)m << e;
			q = n / p;
			rem = n - q * p;
			den = p;
		} else {
			int sh = -e;
			if (bits128(p) + sh > 126)
				return -1;
			den = p << sh;
			q = (u128)m / den;
			rem = (u128)m - q * den;
		}
	}
	if (q >> 64)
		return -1;
	*floor_out = (uint64_t)q;
	u128 twice = rem << 1; /* rem < den < 2^127 */
	*half = twice < den ? -1 : twice == den ? 0 : 1;
	return 0;
}
#else
static int scale_exact(double a, int s, uint64_t *floor_out, int *half)
{
	(void)a, (void)s, (void)floor_out, (void)half;
	return -1; /* no 128-bit integers (32-bit targets): snprintf does it */
}
#endif

/* round(a * 10^s), ties to even; -1 when scale_exact() cannot. */
static int round_scaled(double a, int s, uint64_t *out)
{
	uint64_t fl;
	int half;
	if (scale_exact(a, s, &fl, &half) < 0)
		return -1;
	if (half > 0 || (half == 0 && (fl & 1))) {
		if (fl == UINT64_MAX)
			return -1;
		fl++;
	}
	*out = fl;
	return 0;
}

/* 10^0 .. 10^22: every one is a double exactly */
static const double pow10_dbl[23] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,
				     1e8,  1e9,	 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* floor(log10 a), or one less or more: 2^(ex-1) <= a < 2^ex, so it is about (ex - 1) * log10(2)
 * (78913 / 2^18 = 0.3010299...) */
NUMFMT_INLINE int decimal_exponent_estimate(double a)
{
	int ex = binary_exponent(a) - 1;
	return ex >= 0 ? (ex * 78913) >> 18 : -((-ex * 78913 + (1 << 18) - 1) >> 18);
}

/*
 * round_scaled() with one double multiplication, for @a * 10^@s below 2^52 (@s <= 22): the
 * product is one correctly rounded operation on an exact power of ten, within t * 2^-53 of the
 * exact one, so rounding t gives the exact product's rounding unless t's fraction lies within
 * that error of one half; such near-ties return -1 for the exact path.
 */
NUMFMT_INLINE int round_scaled_fast(double a, int s, uint64_t *out)
{
	if (s > 22)
		return -1;
	double t = a * pow10_dbl[s];
	if (!(t < 0x1p52))
		return -1;
	uint64_t fl = (uint64_t)t;
	double frac = t - (double)fl; /* exact: t < 2^52 */
	if (fabs(frac - 0.5) <= t * 0x1p-50)
		return -1;
	*out = fl + (frac > 0.5);
	return 0;
}

/*
 * round_sig() with one double multiplication or division instead of 128-bit arithmetic, for
 * @prec <= 12: t = a * 10^s is one correctly rounded operation on an exact power of ten, so it is
 * within t * 2^-53 of the exact product (t < 10^prec, under 2^-13 for prec 12). Rounding t to an
 * integer gives the exact product's rounding unless t's fraction lies within that error of one
 * half; such near-ties (and scales past 10^22) return -1 for the exact path. Near a power of ten
 * the few units of error cannot change the result: the rounded digits carry into the next power
 * either way, or the exponent is tried again.
 */
NUMFMT_INLINE int round_sig_fast(double a, int prec, uint64_t *d, int *x)
{
	const double lim = pow10_dbl[prec], low = pow10_dbl[prec - 1];
	const double eps = lim * 0x1p-50; /* 8 times the largest error of t */
	int x0 = decimal_exponent_estimate(a);
	for (int tries = 0; tries < 3; tries++) {
		int s = prec - 1 - x0;
		if (s > 22 || s < -22)
			return -1;
		double t = s >= 0 ? a * pow10_dbl[s] : a / pow10_dbl[-s];
		if (t >= lim) {
			x0++;
			continue;
		}
		if (t < low) {
			x0--;
			continue;
		}
		int64_t fl = (int64_t)t;      /* floor: 0 < t < 10^12 */
		double frac = t - (double)fl; /* exact: t < 2^53 */
		if (fabs(frac - 0.5) <= eps)
			return -1;
		uint64_t q = (uint64_t)fl + (frac > 0.5);
		if (q == pow10_u64[prec]) {
			q = pow10_u64[prec - 1];
			x0++;
		}
		*d = q;
		*x = x0;
		return 0;
	}
	return -1;
}

/*
 * @a > 0 rounded to @prec significant digits: digits @d with 10^(prec-1) <= d < 10^prec and the
 * decimal exponent @x of the rounded value (a ~ d * 10^(x - prec + 1)), as printf's "%e" rounds.
 */
static int round_sig_exact(double a, int prec, uint64_t *d, int *x)
{
	/* the loop below corrects the estimate by one either way */
	int x0 = decimal_exponent_estimate(a);
	for (int tries = 0; tries < 4; tries++) {
		uint64_t fl;
		int half;
		if (scale_exact(a, prec - 1 - x0, &fl, &half) < 0)
			return -1;
		if (fl >= pow10_u64[prec]) {
			x0++;
			continue;
		}
		if (fl < pow10_u64[prec - 1]) {
			x0--;
			continue;
		}
		if (half > 0 || (half == 0 && (fl & 1)))
			fl++;
		if (fl == pow10_u64[prec]) {
			fl = pow10_u64[prec - 1];
			x0++;
		}
		*d = fl;
		*x = x0;
		return 0;
	}
	return -1;
}

/* round_sig_fast(), else round_sig_exact(). */
NUMFMT_INLINE int round_sig(double a, int prec, uint64_t *d, int *x)
{
	if (prec <= 12 && round_sig_fast(a, prec, d, x) == 0)
		return 0;
	return round_sig_exact(a, prec, d, x);
}

/* Appends the exponent as printf does ("e+05", "e-123") or as jansson leaves it ("e5"). */
static size_t put_exp(char *out, int x, bool json)
{
	size_t n = 0;
	out[n++] = 'e';
	if (x < 0) {
		out[n++] = '-';
		x = -x;
	} else if (!json) {
		out[n++] = '+';
	}
	if (!json && x < 10)
		out[n++] = '0';
	n += u64_digits(out + n, (uint64_t)x);
	return n;
}

/*
 * The "%.{prec}g" layout of digits @d (exactly @prec of them) times 10^(x - prec + 1), choosing
 * between fixed and exponent form as "%.{style}g" would (fixed when -4 <= x < style); trailing
 * zeros are dropped. @json: jansson's exponent and ".0". The digits are written once, into a
 * string, and moved where they go in fixed-size pieces (no call): bytes past the result's end
 * (at most 48 from @buf) may be written, inside the NUMFMT_MAX bytes of @buf.
 */
NUMFMT_INLINE size_t layout_g(char *buf, bool neg, uint64_t d, int prec, int x, int style,
			      bool json)
{
	/* prec <= 17 digits, then zeros; room for the fixed-size reads below (the fraction's 16
	 * bytes from its start, at most 17 digits on) */
	char dig[40];
	memset(dig + 16, '0', sizeof(dig) - 16);
	put_digits(dig, d, prec);
	int nd = prec; /* digits left once trailing zeros are dropped */
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	char *p = buf;
	*p = '-';
	p += neg;
	if (x >= -4 && x < style) {
		if (x < 0) { /* 0.000ddd: "0." and -x - 1 <= 3 zeros, then the digits */
			memcpy(p, "0.000", 5);
			p += 1 - x;
			memcpy(p, dig, 16);
			if (nd > 16)
				p[16] = dig[16];
			p += nd;
		} else if (nd <= x + 1) { /* a whole number: its digits, zeros, ".0" in JSON */
			/* x < style <= 17: dig holds the zeros after the digits */
			memset(dig + nd, '0', (size_t)(24 - nd));
			memcpy(p, dig, 24);
			p += x + 1;
			memcpy(p, ".0", 2);
			p += json ? 2 : 0;
		} else { /* iii.fff: the digits, then the fraction moved one place on */
			memcpy(p, dig, 24);
			p += x + 1;
			memcpy(p + 1, dig + x + 1, 16);
			*p = '.';
			p += nd - x;
		}
		*p = '\0';
		return (size_t)(p - buf);
	}
	*p++ = dig[0];
	if (nd > 1) {
		*p++ = '.';
		memcpy(p, dig + 1, 16);
		p += nd - 1;
	}
	p += put_exp(p, x, json);
	*p = '\0';
	return (size_t)(p - buf);
}

size_t numfmt_g(char *buf, double v, int prec)
{
	if (prec < 1)
		prec = 1;
	uint64_t d;
	int x;
	if (prec <= 17 && isfinite(v)) {
		if (v == 0) {
			size_t n = 0;
			if (signbit(v))
				buf[n++] = '-';
			buf[n++] = '0';
			buf[n] = '\0';
			return n;
		}
		double a = fabs(v);
		if (a < pow10_dbl[prec] && a == (double)(int64_t)a) {
			/* an integer of at most prec digits prints as itself */
			size_t n = 0;
			if (v < 0)
				buf[n++] = '-';
			return n + u64_digits(buf + n, (uint64_t)a);
		}
		if (round_sig(a, prec, &d, &x) == 0)
			return layout_g(buf, signbit(v), d, prec, x, prec, false);
	}
	int n = snprintf(buf, NUMFMT_MAX, "%.*g", prec, v);
	return n < 0 ? 0 : (size_t)n;
}

size_t numfmt_fixed(char *buf, double v, int decimals)
{
	uint64_t q;
	double a = fabs(v);
	if (decimals >= 0 && decimals <= 17 && a < 9007199254740992.0 && a == (double)(uint64_t)a) {
		/* an integer: its digits, then decimals zeros */
		size_t n = 0;
		if (signbit(v))
			buf[n++] = '-';
		n += u64_digits(buf + n, (uint64_t)a);
		if (decimals > 0) {
			buf[n++] = '.';
			memset(buf + n, '0', (size_t)decimals);
			n += (size_t)decimals;
		}
		buf[n] = '\0';
		return n;
	}
	if (decimals >= 0 && decimals <= 17 && isfinite(v) &&
	    (round_scaled_fast(a, decimals, &q) == 0 || round_scaled(a, decimals, &q) == 0)) {
		size_t n = 0;
		if (signbit(v))
			buf[n++] = '-';
		uint64_t ip = q / pow10_u64[decimals], fp = q % pow10_u64[decimals];
		n += u64_digits(buf + n, ip);
		if (decimals > 0) {
			buf[n++] = '.';
			put_digits(buf + n, fp, decimals);
			n += (size_t)decimals;
		}
		buf[n] = '\0';
		return n;
	}
	int n = snprintf(buf, NUMFMT_MAX, "%.*f", decimals, v);
	return n < 0 ? 0 : (size_t)n;
}

/* What output.c did before: "%.{sig}g", strtod, "%.10g", then jansson's touch-ups. Kept out
 * of line: its buffer would give every call of numfmt_json_real() a stack frame to guard. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t
json_real_slow(char *buf, double v, int sig)
{
	char tmp[64];
	if (sig < 10) {
		snprintf(tmp, sizeof(tmp), "%.*g", sig, v);
		v = strtod(tmp, NULL);
	}
	int len = snprintf(buf, NUMFMT_MAX, "%.10g", v);
	if (len < 0)
		return 0;
	size_t n = (size_t)len;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		buf[n++] = '.';
		buf[n++] = '0';
		buf[n] = '\0';
	}
	char *e = strchr(buf, 'e');
	if (e) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, n - (size_t)(end - buf) + 1);
			n -= (size_t)(end - start);
		}
	}
	return n;
}

size_t numfmt_json_real(char *buf, double v, int sig)
{
	if (!isfinite(v)) {
		memcpy(buf, "null", 5);
		return 4;
	}
	if (sig < 1)
		sig = 1;
	if (sig > 10)
		sig = 10;
	if (v == 0) {
		size_t n = 0;
		if (signbit(v))
			buf[n++] = '-';
		memcpy(buf + n, "0.0", 4);
		return n + 3;
	}
	uint64_t d;
	int x;
	double a = fabs(v);
	if (a < pow10_dbl[sig] && a == (double)(int64_t)a) {
		/* an integer of at most sig digits: itself and ".0" ("%.10g" keeps it whole) */
		size_t n = 0;
		if (v < 0)
			buf[n++] = '-';
		n += u64_digits(buf + n, (uint64_t)a);
		memcpy(buf + n, ".0", 3);
		return n + 2;
	}
	/* normal doubles well inside the range: the rounded value is a normal double too */
	if (a > 1e-290 && a < 1e290 && round_sig(a, sig, &d, &x) == 0)
		return layout_g(buf, signbit(v), d, sig, x, 10, true);
	return json_real_slow(buf, v, sig);
}

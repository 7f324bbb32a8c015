/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_numfmt.c: the hand-written formatters against snprintf, jansson and strtod (round trips). */
#include "harness.h"
#include "numfmt.h"

#include <float.h>
#include <jansson.h>
#include <stdint.h>

/* The reference for numfmt_json_real: what output.c did before (tidy, then jansson). */
static void json_reference(double v, int sig, char *out, size_t len)
{
	if (sig < 10 && v != 0) {
		char tmp[64];
		snprintf(tmp, sizeof(tmp), "%.*g", sig, v);
		v = strtod(tmp, NULL);
	}
	json_t *j = json_real(v);
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10)) : NULL;
	snprintf(out, len, "%s", s ? s : "null");
	free(s);
	json_decref(j);
}

static int mismatches;

/* Compares every formatter with its reference for one value. */
static void check_value(double v)
{
	static const int precs[] = {1, 2, 3, 6, 10, 12, 15, 17};
	static const int decs[] = {0, 1, 2, 3, 4, 6, 9, 17};
	char got[NUMFMT_MAX], want[NUMFMT_MAX];
	for (size_t i = 0; i < sizeof(precs) / sizeof(precs[0]); i++) {
		size_t n = numfmt_g(got, v, precs[i]);
		snprintf(want, sizeof(want), "%.*g", precs[i], v);
		if (strcmp(got, want) != 0 || n != strlen(want)) {
			if (mismatches++ < 20)
				CHECK(0, "%%.%dg of %a: got \"%s\", want \"%s\"", precs[i], v, got,
				      want);
			else
				harness_failed++;
		} else {
			harness_passed++;
		}
	}
	for (size_t i = 0; i < sizeof(decs) / sizeof(decs[0]); i++) {
		if (fabs(v) > 1e30)
			continue; /* long snprintf fallbacks, checked once below */
		size_t n = numfmt_fixed(got, v, decs[i]);
		snprintf(want, sizeof(want), "%.*f", decs[i], v);
		if (strcmp(got, want) != 0 || n != strlen(want)) {
			if (mismatches++ < 20)
				CHECK(0, "%%.%df of %a: got \"%s\", want \"%s\"", decs[i], v, got,
				      want);
			else
				harness_failed++;
		} else {
			harness_passed++;
		}
	}
	if (isfinite(v)) {
		for (int sig = 6; sig <= 10; sig += 4) {
			size_t n = numfmt_json_real(got, v, sig);
			json_reference(v, sig, want, sizeof(want));
			if (strcmp(got, want) != 0 || n != strlen(want)) {
				if (mismatches++ < 20)
					CHECK(0, "json sig %d of %a: got \"%s\", want \"%s\"", sig,
					      v, got, want);
				else
					harness_failed++;
			} else {
				harness_passed++;
			}
		}
		/* 17 significant digits read back as the same double */
		numfmt_g(got, v, 17);
		double back = strtod(got, NULL);
		if (memcmp(&back, &v, sizeof(v)) != 0) {
			if (mismatches++ < 20)
				CHECK(0, "round trip of %a: \"%s\" reads back as %a", v, got, back);
			else
				harness_failed++;
		} else {
			harness_passed++;
		}
	}
}

/* Hand-picked values: ties, carries into the next power of ten, both notations, signs. */
static void check_table(void)
{
	static const double cases[] = {
	    0.0,
	    -0.0,
	    1,
	    -1,
	    0.5,
	    1.5,
	    2.5,
	    0.125,
	    0.375,
	    -0.125,
	    1e-5,
	    1e-4,
	    9.9999e-5,
	    0.0001,
	    0.00099999995,
	    1234565,
	    1234575,
	    12345.25,
	    123456.5,
	    999999.5,
	    999999.4,
	    9.9999995,
	    99999.95,
	    1e6,
	    1e7,
	    1e9,
	    1e10,
	    9999999999.5,
	    12345678901.0,
	    1e15,
	    1e16,
	    1e17,
	    1e21,
	    1e22,
	    1e23,
	    9007199254740992.0,
	    9007199254740993.0,
	    18446744073709551615.0,
	    0.1,
	    0.2,
	    0.3,
	    1.0 / 3,
	    2.0 / 3,
	    37.0283,
	    34.8789,
	    2.6,
	    100,
	    300,
	    0.831151,
	    1.20315,
	    3.14159265358979,
	    6.02214076e23,
	    1.602176634e-19,
	    DBL_MAX,
	    -DBL_MAX,
	    DBL_MIN,
	    DBL_TRUE_MIN,
	    5e-324,
	    1e-300,
	    1e300,
	    1e-290,
	    1e290,
	    123.456,
	    -123.456,
	    0.0005,
	    0.00049999,
	    0.0015,
	    0.0025,
	    1.0005,
	    1.00005,
	    2.675,
	    1e-7,
	    4.35e-6,
	    65536,
	    4294967296.0,
	    4294967295.5,
	    1.7976931348623157e308,
	    NAN,
	    -NAN,
	    INFINITY,
	    -INFINITY,
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_value(cases[i]);
	/* the same outputs as printf for very long fixed forms */
	char got[NUMFMT_MAX], want[NUMFMT_MAX];
	numfmt_fixed(got, DBL_MAX, 6);
	snprintf(want, sizeof(want), "%.6f", DBL_MAX);
	CHECK_STR(got, want);
	numfmt_fixed(got, -1e300, 3);
	snprintf(want, sizeof(want), "%.3f", -1e300);
	CHECK_STR(got, want);
}

static void check_integers(void)
{
	static const struct {
		int line;
		int64_t v;
		const char *want;
	} cases[] = {
	    {__LINE__, 0, "0"},
	    {__LINE__, 7, "7"},
	    {__LINE__, 10, "10"},
	    {__LINE__, 99, "99"},
	    {__LINE__, 100, "100"},
	    {__LINE__, -1, "-1"},
	    {__LINE__, 1234567890123LL, "1234567890123"},
	    {__LINE__, INT64_MAX, "9223372036854775807"},
	    {__LINE__, INT64_MIN, "-9223372036854775808"},
	};
	char buf[NUMFMT_MAX];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = numfmt_i64(buf, cases[i].v);
		CHECK(strcmp(buf, cases[i].want) == 0 && n == strlen(cases[i].want),
		      "line %d: \"%s\"", cases[i].line, buf);
	}
	numfmt_u64(buf, UINT64_MAX);
	CHECK_STR(buf, "18446744073709551615");
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random bit patterns, decimal-looking values, exact binary ties and neighbours of powers of
 * ten; a fixed seed, so a failure repeats. */
static void check_random(void)
{
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = next();
		double v;
		memcpy(&v, &bits, sizeof(v));
		check_value(v);
	}
	for (int i = 0; i < 20000; i++) {
		double k = (double)(next() % 100000000);
		int j = (int)(next() % 25) - 12;
		double v = j >= 0 ? k * pow(10, j) : k / pow(10, -j);
		check_value(next() & 1 ? -v : v);
	}
	for (int i = 0; i < 20000; i++) {
		/* n + f / 2^k: exact dyadic values, many of them halfway at some precision */
		double n = (double)(next() % 10000000);
		int k = (int)(next() % 12);
		double v =
		    n + (double)(next() % 4096) / (double)(1 << k) / 4096.0 * (double)(1 << k);
		v = ldexp(floor(ldexp(v, k)), -k);
		check_value(v);
		check_value(v + 0.5);
		check_value(v * 1000 + 5);
	}
	for (int p = -20; p <= 25; p++) {
		double t = pow(10, p);
		check_value(t);
		check_value(nextafter(t, 0));
		check_value(nextafter(t, INFINITY));
		for (int d = 1; d <= 17; d++) {
			/* just below 10^p by half a unit in the d-th digit: rounds up or not */
			double h = t - 0.5 * pow(10, p - d);
			check_value(h);
			check_value(nextafter(h, 0));
			check_value(nextafter(h, INFINITY));
		}
	}
}

/* The doubles nearest to decimal ties ("1234565e-9": halfway at 6 digits) and their neighbours,
 * in every decade a count or a ratio takes and beyond: where a shortcut through double
 * arithmetic would round the wrong way if it missed the tie. */
static void check_decimal_ties(void)
{
	static const int digits[] = {1, 2, 3, 6, 10, 12};
	for (size_t i = 0; i < sizeof(digits) / sizeof(digits[0]); i++) {
		uint64_t lo = 1;
		for (int k = 1; k < digits[i]; k++)
			lo *= 10;
		for (int p = -40; p <= 40; p++) {
			for (int j = 0; j < 60; j++) {
				char text[64];
				uint64_t k = lo + next() % (9 * lo);
				snprintf(text, sizeof(text), "%llu5e%d", (unsigned long long)k,
					 p - digits[i]);
				double v = strtod(text, NULL);
				check_value(v);
				check_value(-nextafter(v, 0));
				check_value(nextafter(v, INFINITY));
				/* and a value well inside the decade */
				check_value(v * (1 + (double)(next() % 1000) / 1000));
			}
		}
	}
	/* the carries: 9.999995 rounds up into the next power of ten at 6 digits */
	char text[64];
	for (int p = -30; p <= 30; p++)
		for (int n9 = 1; n9 <= 12; n9++) {
			memset(text, '9', (size_t)n9);
			snprintf(text + n9, sizeof(text) - (size_t)n9, "5e%d", p);
			double v = strtod(text, NULL);
			check_value(v);
			check_value(nextafter(v, 0));
			check_value(nextafter(v, INFINITY));
		}
}

/* Integers against snprintf: each power of ten and its neighbours (where the digit count found
 * from the bit length changes), each bit length's ends, and random values of every length. */
static void check_integer_lengths(void)
{
	char got[NUMFMT_MAX], want[NUMFMT_MAX];
	uint64_t vals[200];
	size_t n = 0;
	for (uint64_t p = 1;; p *= 10) {
		vals[n++] = p - 1;
		vals[n++] = p;
		vals[n++] = p + 1;
		if (p > UINT64_MAX / 10)
			break;
	}
	for (int b = 1; b < 64; b++) {
		vals[n++] = (1ULL << b) - 1;
		vals[n++] = 1ULL << b;
	}
	vals[n++] = UINT64_MAX;
	int bad = 0;
	for (int i = 0; i < (int)n + 64 * 400; i++) {
		uint64_t v = i < (int)n ? vals[i] : next() >> (i % 64);
		size_t len = numfmt_u64(got, v);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		if ((strcmp(got, want) != 0 || len != strlen(want)) && bad++ < 10)
			CHECK(0, "numfmt_u64(%llu): \"%s\"", (unsigned long long)v, got);
		int64_t s = (int64_t)v;
		len = numfmt_i64(got, s);
		snprintf(want, sizeof(want), "%lld", (long long)s);
		if ((strcmp(got, want) != 0 || len != strlen(want)) && bad++ < 10)
			CHECK(0, "numfmt_i64(%lld): \"%s\"", (long long)s, got);
	}
	CHECK(bad == 0, "%d integers differ from snprintf", bad);
}

int main(void)
{
	check_integers();
	check_integer_lengths();
	check_table();
	check_random();
	check_decimal_ties();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_stats.c: window statistics, selection vs a sorted reference, NaN, rings, series tables,
 * peers. */
#include "harness.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>

#define N_ NAN
#define I_ INFINITY

static const struct {
	int line;
	double v[8];
	size_t n;
	int available;
	size_t used, skipped;
	double min, median, p99, max, mean, mad;
} cases[] = {
    {__LINE__, {1, 2, 3, 4, 5}, 5, 1, 5, 0, 1, 3, 4.96, 5, 3, 1},
    {__LINE__, {4, 1, 3, 2}, 4, 1, 4, 0, 1, 2.5, 3.97, 4, 2.5, 1},
    {__LINE__, {7}, 1, 1, 1, 0, 7, 7, 7, 7, 7, 0},
    {__LINE__, {N_, 1, N_, 3}, 4, 1, 2, 2, 1, 2, 2.98, 3, 2, 1},
    {__LINE__, {N_, N_, N_}, 3, 0, 0, 3, 0, 0, 0, 0, 0, 0},
    {__LINE__, {0}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {__LINE__, {1, 1, 1, 1, 100}, 5, 1, 5, 0, 1, 1, 96.04, 100, 20.8, 0},
    {__LINE__, {-5, 0, 5, I_}, 4, 1, 3, 1, -5, 0, 4.9, 5, 0, 5},
    {__LINE__, {3, -I_, N_, 3}, 4, 1, 2, 2, 3, 3, 3, 3, 3, 0},
    {__LINE__, {0.5, 0.25}, 2, 1, 2, 0, 0.25, 0.375, 0.4975, 0.5, 0.375, 0.125},
};

static void check_table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stats st;
		double scratch[16];
		int line = cases[i].line;
		CHECK(stats_compute(cases[i].v, cases[i].n, scratch, &st) == 0, "line %d", line);
		CHECK(st.available == (bool)cases[i].available, "line %d: available", line);
		CHECK(st.n == cases[i].used, "line %d: n=%zu", line, st.n);
		CHECK(st.n_nan == cases[i].skipped, "line %d: n_nan=%zu", line, st.n_nan);
		CHECK(fabs(st.min - cases[i].min) < 1e-12, "line %d: min %g", line, st.min);
		CHECK(fabs(st.median - cases[i].median) < 1e-12, "line %d: median %g", line,
		      st.median);
		CHECK(fabs(st.p99 - cases[i].p99) < 1e-9, "line %d: p99 %.12g", line, st.p99);
		CHECK(fabs(st.max - cases[i].max) < 1e-12, "line %d: max %g", line, st.max);
		CHECK(fabs(st.mean - cases[i].mean) < 1e-12, "line %d: mean %g", line, st.mean);
		CHECK(fabs(st.mad - cases[i].mad) < 1e-12, "line %d: mad %g", line, st.mad);
		/* The allocating path gives the same answer. */
		struct stats st2;
		CHECK(stats_compute(cases[i].v, cases[i].n, NULL, &st2) == 0, "line %d", line);
		CHECK(st2.available == st.available && (!st.available || st2.p99 == st.p99),
		      "line %d: NULL scratch differs", line);
	}
}

static void check_hundred(void)
{
	double v[100], scratch[200];
	struct stats st;
	for (int i = 0; i < 100; i++)
		v[99 - i] = i + 1; /* descending input: sorting is exercised */
	stats_compute(v, 100, scratch, &st);
	CHECK_NEAR(st.median, 50.5, 1e-12);
	CHECK_NEAR(st.p99, 99.01, 1e-9);
	CHECK_NEAR(st.mad, 25, 1e-12);
	CHECK_NEAR(st.mean, 50.5, 1e-12);
	double sorted[] = {10, 20, 30};
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 0.0), 10, 0);
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 0.25), 15, 1e-12);
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 1.0), 30, 0);
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 2.0), 30, 0);
	CHECK(isnan(stats_percentile_sorted(sorted, 0, 0.5)), "empty percentile is NaN");
}

/* Stable insertion sort: the reference order (equal values, -0.0 and 0.0 too, oldest first). */
static void stable_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* The window sorted as it slides (spike rules) against a stable sort of the window and the
 * median and MAD computed from sorted copies by the documented formula, bit for bit: windows of
 * 1..70 over values with many ties, signed zeros and large spikes. */
static void check_sorted_slide(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int bad = 0;
	for (size_t w = 1; w <= 70 && !bad; w += (w < 8 ? 1 : 7)) {
		double ring[70], sorted[70], ref[70], dev[70], scratch[70];
		size_t len = 0, head = 0;
		for (int step = 0; step < 600 && !bad; step++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned r = (unsigned)(seed >> 33);
			double v = r % 5 == 0	? ((r >> 8) & 1 ? -0.0 : 0.0)
				   : r % 7 == 0 ? 1e6 * (double)(r % 13)
						: (double)(r % 9) * 0.25 - 1.0;
			bool full = len == w;
			double old = full ? ring[head] : 0;
			size_t n = stats_sorted_slide(sorted, len, full, old, v);
			ring[head] = v;
			head = (head + 1) % w;
			len = full ? len : len + 1;
			CHECK_INT(n, len);
			/* the window oldest first, stably sorted */
			for (size_t i = 0; i < len; i++)
				ref[i] = ring[(head + w - len + i) % w];
			stable_sort(ref, len);
			if (memcmp(ref, sorted, len * sizeof(double)) != 0) {
				CHECK(0, "window %zu step %d: sorted window differs", w, step);
				bad = 1;
				break;
			}
			double med = stats_percentile_sorted(ref, len, 0.5);
			for (size_t i = 0; i < len; i++)
				dev[i] = fabs(ref[i] - med);
			stable_sort(dev, len);
			double mad = stats_percentile_sorted(dev, len, 0.5), m2, d2;
			stats_sorted_median_mad(sorted, len, scratch, &m2, &d2);
			if (memcmp(&med, &m2, sizeof(med)) != 0 ||
			    memcmp(&mad, &d2, sizeof(mad)) != 0) {
				CHECK(0, "window %zu step %d: median %g/%g mad %g/%g", w, step, med,
				      m2, mad, d2);
				bad = 1;
			}
			struct stats st; /* and what stats_compute() says of the same window */
			double win[70], sc[140];
			for (size_t i = 0; i < len; i++)
				win[i] = ring[(head + w - len + i) % w];
			stats_compute(win, len, sc, &st);
			if (memcmp(&st.median, &m2, sizeof(m2)) != 0 ||
			    memcmp(&st.mad, &d2, sizeof(d2))) {
				CHECK(0,
				      "window %zu step %d: stats_compute median %g mad %g, slide "
				      "%g %g",
				      w, step, st.median, st.mad, m2, d2);
				bad = 1;
			}
		}
	}
	/* distinct values (no ties), windows of 1..300: median and MAD as stats_compute() says */
	for (size_t n = 1; n <= 300 && !bad; n += (n < 20 ? 1 : 37)) {
		double v[300], sorted[300], sc[600];
		size_t len = 0;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			v[i] = (double)(int64_t)(seed >> 11) / 9007199254740992.0 - 0.3;
			len = stats_sorted_slide(sorted, len, false, 0, v[i]);
		}
		struct stats st;
		double m2, d2;
		stats_compute(v, n, sc, &st);
		stats_sorted_median_mad(sorted, n, sc, &m2, &d2);
		if (memcmp(&st.median, &m2, sizeof(m2)) != 0 || memcmp(&st.mad, &d2, sizeof(d2))) {
			CHECK(0, "%zu distinct values: median %g/%g mad %g/%g", n, st.median, m2,
			      st.mad, d2);
			bad = 1;
		}
	}
	CHECK(!bad, "distinct values: sorted median and MAD as stats_compute");
	double e1, e2;
	stats_sorted_median_mad(NULL, 0, NULL, &e1, &e2);
	CHECK(isnan(e1) && isnan(e2), "empty window: NaN");
}

static void check_ring(void)
{
	double store[4], scratch[12], out[4];
	struct series_ring r;
	struct stats st;
	series_ring_init(&r, store, 4);
	CHECK(isnan(series_ring_get(&r, 0)), "empty ring get is NaN");
	series_ring_stats(&r, 0, scratch, &st);
	CHECK(!st.available, "empty ring stats unavailable");
	for (int i = 1; i <= 6; i++)
		series_ring_push(&r, i);
	CHECK_INT(r.len, 4);
	CHECK_INT(r.pushed, 6);
	CHECK_NEAR(series_ring_get(&r, 0), 6, 0);
	CHECK_NEAR(series_ring_get(&r, 3), 3, 0);
	CHECK(isnan(series_ring_get(&r, 4)), "age past len is NaN");
	CHECK_INT(series_ring_last(&r, 2, out), 2);
	CHECK_NEAR(out[0], 5, 0);
	CHECK_NEAR(out[1], 6, 0);
	CHECK_INT(series_ring_last(&r, 10, out), 4);
	CHECK_NEAR(out[0], 3, 0);
	CHECK_NEAR(out[3], 6, 0);
	series_ring_stats(&r, 0, scratch, &st);
	CHECK_NEAR(st.median, 4.5, 1e-12);
	CHECK_NEAR(st.min, 3, 0);
	series_ring_stats(&r, 3, scratch, &st);
	CHECK_NEAR(st.median, 5, 1e-12);
	CHECK_NEAR(st.min, 4, 0);
	/* Wrap many times; the window always holds the last four. */
	for (int i = 7; i <= 1003; i++)
		series_ring_push(&r, i);
	series_ring_stats(&r, 0, scratch, &st);
	CHECK_NEAR(st.min, 1000, 0);
	CHECK_NEAR(st.max, 1003, 0);
	series_ring_push(&r, NAN);
	series_ring_stats(&r, 0, scratch, &st);
	CHECK_INT(st.n, 3);
	CHECK_INT(st.n_nan, 1);
	CHECK_NEAR(st.max, 1003, 0);
	series_ring_clear(&r);
	CHECK_INT(r.len, 0);
	/* a window of one sample (its own path): stats_compute() of that value, bit for bit */
	const double one[] = {2.5,	-3.75, 0.0,	 -0.0,	    1e308, -1e-310,
			      4.9e-324, NAN,   INFINITY, -INFINITY, 0.1,   -1e6};
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		for (int at = 0; at < 5; at++) { /* every head position, the wrap included */
			series_ring_clear(&r);
			for (int j = 0; j < at; j++)
				series_ring_push(&r, 7.0 + j);
			series_ring_push(&r, one[i]);
			struct stats a, b;
			double sc[2];
			series_ring_stats(&r, 1, scratch, &a);
			stats_compute(&one[i], 1, sc, &b);
			CHECK(a.available == b.available && a.n == b.n && a.n_nan == b.n_nan &&
				  memcmp(&a.min, &b.min, 6 * sizeof(double)) == 0,
			      "one-sample window of %g (head %zu): as stats_compute", one[i],
			      r.head);
		}
	series_ring_clear(&r);
	/* the last k values, oldest first, at every head position */
	double st5[5], got[8];
	struct series_ring r5;
	series_ring_init(&r5, st5, 5);
	for (int pushed = 0; pushed <= 12; pushed++) {
		for (size_t k = 0; k <= 7; k++) {
			size_t n = series_ring_last(&r5, k, got);
			CHECK_INT(n, k < r5.len ? k : r5.len);
			for (size_t i = 0; i < n; i++)
				CHECK(got[i] == series_ring_get(&r5, n - 1 - i),
				      "pushed %d k %zu i %zu", pushed, k, i);
		}
		series_ring_push(&r5, pushed);
	}
}

static void check_set(void)
{
	struct series_set s;
	char err[128] = "";
	CHECK(series_set_init(&s, 0, 3, 8, err, sizeof(err)) == -1, "0 cpus refused");
	CHECK(err[0] != 0, "error text set");
	CHECK(series_set_init(&s, 2, 3, 0, err, sizeof(err)) == -1, "0 capacity refused");
	CHECK(series_set_init(&s, 2, 3, 8, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(series_set_bytes(&s), 6 * sizeof(struct series_ring) + 48 * 8 + 24 * 8);
	CHECK(series_set_ring(&s, 2, 0) == NULL, "cpu out of range");
	CHECK(series_set_ring(&s, 0, 3) == NULL, "metric out of range");
	CHECK(series_set_ring(&s, -1, 0) == NULL, "negative cpu");
	struct series_ring *r = series_set_ring(&s, 1, 2);
	for (int i = 0; i < 20; i++)
		series_ring_push(r, i % 2 ? 10 : 20);
	struct stats st;
	series_set_stats(&s, 1, 2, 0, &st);
	CHECK_INT(st.n, 8);
	CHECK_NEAR(st.median, 15, 1e-12);
	CHECK_NEAR(st.mad, 5, 1e-12);
	series_set_stats(&s, 0, 0, 0, &st);
	CHECK(!st.available, "untouched ring is empty");
	CHECK_INT(series_set_ring(&s, 1, 1)->len, 0);
	series_set_stats(&s, 5, 0, 0, &st);
	CHECK(!st.available, "out-of-range stats unavailable");
	series_set_free(&s);
	CHECK_INT(series_set_bytes(&s), 0);
}

static void check_peers(void)
{
	double v[] = {1.0, 1.1, 0.9, 1.0, 3.0, NAN};
	struct peer_dev d[6];
	CHECK(stats_peer_deviation(v, 6, 1e-3, NULL, d) == 0, "peer deviation");
	CHECK(d[4].available, "cpu 4 available");
	CHECK_NEAR(d[4].delta, 2.0, 1e-12);
	CHECK_NEAR(d[4].mad_units, 20, 1e-9);
	CHECK_NEAR(d[1].mad_units, 1, 1e-9);
	CHECK_NEAR(d[0].delta, 0, 1e-12);
	CHECK(!d[5].available && isnan(d[5].mad_units), "NaN cpu is n/a");
	stats_peer_deviation(v, 6, 0.5, NULL, d);
	CHECK_NEAR(d[4].mad_units, 4, 1e-9);
	double same[] = {2, 2, 2, 2.001};
	stats_peer_deviation(same, 4, 0.01, NULL, d);
	CHECK_NEAR(d[3].mad_units, 0.1, 1e-9);
	CHECK_NEAR(d[0].mad_units, 0, 0);
	double none[] = {NAN, NAN};
	stats_peer_deviation(none, 2, 0.01, NULL, d);
	CHECK(!d[0].available && !d[1].available, "all-NaN peers unavailable");
}

/* --- selection against a sorted reference ---------------------------------------------------- */

/* Stable insertion sort (equal values, -0.0 and 0.0 included, stay in input order). */
static void ref_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* stats_compute as it was: sort the finite values, read the ranks, sort the deviations. */
static void ref_compute(const double *v, size_t n, struct stats *out)
{
	static double sorted[4096], dev[4096];
	memset(out, 0, sizeof(*out));
	size_t m = 0;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i])) {
			out->n_nan++;
			continue;
		}
		sorted[m++] = v[i];
		sum += v[i];
	}
	if (!m)
		return;
	ref_sort(sorted, m);
	out->available = true;
	out->n = m;
	out->min = sorted[0];
	out->max = sorted[m - 1];
	out->mean = sum / (double)m;
	out->median = stats_percentile_sorted(sorted, m, 0.5);
	out->p99 = stats_percentile_sorted(sorted, m, 0.99);
	for (size_t i = 0; i < m; i++)
		dev[i] = fabs(sorted[i] - out->median);
	ref_sort(dev, m);
	out->mad = stats_percentile_sorted(dev, m, 0.5);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof(a)) == 0; }

static bool same_stats(const struct stats *a, const struct stats *b)
{
	return a->available == b->available && a->n == b->n && a->n_nan == b->n_nan &&
	       same_bits(a->min, b->min) && same_bits(a->median, b->median) &&
	       same_bits(a->p99, b->p99) && same_bits(a->max, b->max) &&
	       same_bits(a->mean, b->mean) && same_bits(a->mad, b->mad);
}

/* stats_select's contract for every k, and stats_percentile_select against the sorted values. */
static void check_select_one(int line, const double *v, size_t n)
{
	double sorted[4096], w[4096];
	memcpy(sorted, v, n * sizeof(double));
	ref_sort(sorted, n);
	for (size_t k = 0; k < n; k++) {
		memcpy(w, v, n * sizeof(double));
		stats_select(w, n, k);
		bool ok = w[k] == sorted[k];
		for (size_t i = 0; i < k && ok; i++)
			ok = w[i] <= w[k];
		for (size_t i = k + 1; i < n && ok; i++)
			ok = w[i] >= w[k];
		ref_sort(w, n); /* the same values, only moved */
		for (size_t i = 0; i < n && ok; i++)
			ok = w[i] == sorted[i];
		CHECK(ok, "line %d: n %zu k %zu", line, n, k);
	}
	static const double ps[] = {0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1, -1, 2};
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		memcpy(w, v, n * sizeof(double));
		double got = stats_percentile_select(w, n, ps[i]);
		double want = stats_percentile_sorted(sorted, n, ps[i]);
		CHECK(got == want || (isnan(got) && isnan(want)),
		      "line %d: n %zu p %g: %.17g, want %.17g", line, n, ps[i], got, want);
	}
}

static void check_select_table(void)
{
	static const struct {
		int line;
		double v[12];
		size_t n;
	} cases[] = {
	    {__LINE__, {0}, 0},
	    {__LINE__, {5}, 1},
	    {__LINE__, {2, 1}, 2},
	    {__LINE__, {1, 1}, 2},
	    {__LINE__, {3, 1, 2}, 3},
	    {__LINE__, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 12},
	    {__LINE__, {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 12},
	    {__LINE__, {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 12},
	    {__LINE__, {1, 3, 5, 7, 9, 11, 12, 10, 8, 6, 4, 2}, 12},
	    {__LINE__, {-1, 5, -3, 0, 2, -0.0, 4, 4, -1, 8, 1e300, -1e300}, 12},
	    {__LINE__, {0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2}, 12},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_select_one(cases[i].line, cases[i].v, cases[i].n);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Larger and adversarial inputs: runs of duplicates, sorted and reversed runs, organ pipes,
 * and stats_compute bit for bit against the sort-based reference, NaN, inf and signed zeros
 * included. A fixed seed, so a failure repeats. */
static void check_select_random(void)
{
	static double v[4096], scratch[8192];
	for (int round = 0; round < 400; round++) {
		size_t n = 1 + (size_t)(next() % (round < 300 ? 80 : 2000));
		int shape = (int)(next() % 6);
		for (size_t i = 0; i < n; i++) {
			switch (shape) {
			case 0:
				v[i] = (double)(int64_t)(next() % 2001) - 1000;
				break;
			case 1:
				v[i] = (double)(next() % 4);
				break; /* many duplicates */
			case 2:
				v[i] = (double)i;
				break;
			case 3:
				v[i] = (double)(n - i);
				break;
			case 4:
				v[i] = (double)(i < n / 2 ? i : n - i);
				break;
			default:
				v[i] = (double)(next() >> 11) * 0x1p-53 * 100 - 50;
				break;
			}
		}
		if (n <= 300)
			check_select_one(__LINE__, v, n);
		/* sprinkle what stats_compute must skip or keep exactly */
		for (size_t i = 0; i < n; i++) {
			uint64_t r = next() % 16;
			if (r == 0)
				v[i] = NAN;
			else if (r == 1)
				v[i] = next() & 1 ? INFINITY : -INFINITY;
			else if (r == 2)
				v[i] = next() & 1 ? 0.0 : -0.0;
		}
		struct stats got, want;
		stats_compute(v, n, scratch, &got);
		ref_compute(v, n, &want);
		CHECK(same_stats(&got, &want),
		      "round %d n %zu shape %d: median %.17g/%.17g p99 %.17g/%.17g mad %.17g/%.17g "
		      "min %g/%g "
		      "max %g/%g",
		      round, n, shape, got.median, want.median, got.p99, want.p99, got.mad,
		      want.mad, got.min, want.min, got.max, want.max);
	}
	/* a median-of-three killer permutation still selects correctly */
	size_t n = 2048;
	for (size_t i = 0; i < n; i++)
		v[i] = (double)i;
	for (size_t i = 0; i < n / 2; i++) {
		double t = v[i * 2 % n];
		v[i * 2 % n] = v[n / 2 + i];
		v[n / 2 + i] = t;
	}
	double w[4096];
	memcpy(w, v, n * sizeof(double));
	stats_select(w, n, n / 2);
	CHECK(w[n / 2] == (double)(n / 2), "killer: %g", w[n / 2]);
	/* flat series (the shortcut without selection), -0.0 and one-value windows included */
	static const double flats[] = {0.0, -0.0, 100.0, -2.5, 1e-300, 3.0};
	for (size_t f = 0; f < sizeof(flats) / sizeof(flats[0]); f++)
		for (size_t len = 1; len <= 70; len += 23) {
			for (size_t i = 0; i < len; i++)
				v[i] = flats[f];
			v[len] = NAN;
			struct stats a, b;
			stats_compute(v, len + 1, scratch, &a);
			ref_compute(v, len + 1, &b);
			CHECK(same_stats(&a, &b), "flat %g x %zu: median %g p99 %g mad %g",
			      flats[f], len, a.median, a.p99, a.mad);
		}
	/* zeros of both signs: the sorted (input-order) zero is reported */
	double z[] = {0.0, -0.0, 0.0, -0.0, 0.0};
	struct stats got, want;
	stats_compute(z, 5, scratch, &got);
	ref_compute(z, 5, &want);
	CHECK(same_stats(&got, &want), "signed zeros: median %g (%d) want %g (%d)", got.median,
	      signbit(got.median) != 0, want.median, signbit(want.median) != 0);
}

/* Peer deviation from the median and MAD only (no mean, no p99): each CPU's delta and MAD units
 * bit for bit what stats_compute's and the sort-based reference's median and MAD give, over
 * random series of 1..3000 values with ties, NaN, infinities and zeros of both signs, flat
 * series and the p99-by-selection sizes (above 1,500 values) included. */
static void peer_want(const double *v, size_t n, double floor, const struct stats *st,
		      struct peer_dev *out)
{
	double scale = st->mad > floor ? st->mad : floor;
	for (size_t i = 0; i < n; i++) {
		out[i].value = v[i];
		out[i].available = st->available && isfinite(v[i]);
		out[i].delta = out[i].available ? v[i] - st->median : NAN;
		out[i].mad_units = !out[i].available ? NAN : scale > 0 ? out[i].delta / scale : 0;
	}
}

static bool same_peers(const struct peer_dev *a, const struct peer_dev *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].available != b[i].available || !same_bits(a[i].value, b[i].value) ||
		    !same_bits(a[i].delta, b[i].delta) ||
		    !same_bits(a[i].mad_units, b[i].mad_units))
			return false;
	return true;
}

static void check_peers_random(void)
{
	static double v[3000], scratch[6000];
	static struct peer_dev got[3000], want[3000], want_ref[3000];
	for (int round = 0; round < 600; round++) {
		size_t n = 1 + (size_t)(next() % (round < 400 ? 40 : round < 550 ? 600 : 3000));
		int shape = (int)(next() % 5);
		double flat = (double)(int64_t)(next() % 7) - 3;
		for (size_t i = 0; i < n; i++) {
			if (shape == 0)
				v[i] = (double)(next() % 3); /* ties */
			else if (shape == 1)
				v[i] = flat;
			else if (shape == 2)
				v[i] = (double)(int64_t)(next() % 2001) - 1000;
			else
				v[i] = (double)(next() >> 11) * 0x1p-53 * 100 - 50;
			uint64_t r = next() % (shape == 4 ? 3 : 12);
			if (r == 0)
				v[i] = NAN;
			else if (r == 1 && shape != 1)
				v[i] = next() & 1 ? INFINITY : -INFINITY;
			else if (r == 2 && shape != 1)
				v[i] = next() & 1 ? 0.0 : -0.0;
		}
		double floor = round % 3 == 0 ? 1e-3 : round % 3 == 1 ? 0.5 : 1e9;
		struct stats st, ref;
		stats_compute(v, n, NULL, &st);
		ref_compute(v, n, &ref);
		peer_want(v, n, floor, &st, want);
		peer_want(v, n, floor, &ref, want_ref);
		CHECK(stats_peer_deviation(v, n, floor, round & 1 ? scratch : NULL, got) == 0,
		      "peers round %d", round);
		CHECK(same_peers(got, want, n) && same_peers(got, want_ref, n),
		      "peers round %d n %zu shape %d: median %.17g mad %.17g", round, n, shape,
		      st.median, st.mad);
	}
	/* a median among zeros of both signs: the delta of a -0.0 follows the median's sign, which
	 * a selection must take from the stable order */
	for (int round = 0; round < 200; round++) {
		size_t n = 5 + (size_t)(next() % 800);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = next() % 10;
			v[i] = r == 0 ? 1 : r == 1 ? -1 : r == 2 ? NAN : next() & 1 ? 0.0 : -0.0;
		}
		struct stats st;
		stats_compute(v, n, NULL, &st);
		peer_want(v, n, 0.1, &st, want);
		stats_peer_deviation(v, n, 0.1, NULL, got);
		CHECK(same_peers(got, want, n), "peers of signed zeros, round %d n %zu", round, n);
	}
}

int main(void)
{
	check_select_table();
	check_select_random();
	check_table();
	check_hundred();
	check_ring();
	check_sorted_slide();
	check_set();
	check_peers();
	check_peers_random();
	return harness_done();
}

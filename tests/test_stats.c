/* test_stats.c: window statistics, NaN handling, ring wrap-around, series tables and peer
 * deviation. */
#include "harness.h"
#include "stats.h"

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
	CHECK_NEAR(stats_percentile_sorted(scratch, 100, 0.0), 1, 0);
	double sorted[] = {10, 20, 30};
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 0.25), 15, 1e-12);
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 1.0), 30, 0);
	CHECK_NEAR(stats_percentile_sorted(sorted, 3, 2.0), 30, 0);
	CHECK(isnan(stats_percentile_sorted(sorted, 0, 0.5)), "empty percentile is NaN");
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

int main(void)
{
	check_table();
	check_hundred();
	check_ring();
	check_set();
	check_peers();
	return harness_done();
}

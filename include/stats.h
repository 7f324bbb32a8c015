/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h: robust statistics over windows of doubles, per-(cpu, metric) rings and peer deviation.
 */
#ifndef PMUTOP_STATS_H
#define PMUTOP_STATS_H
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* MAD times this constant estimates the standard deviation of normally distributed data. */
#define STATS_MAD_TO_SIGMA 1.4826

/*
 * Summary of a window. NaN means "n/a" and is skipped; infinities are skipped too.
 * When no finite value is left, available is false and every field but n_nan is 0.
 *
 * Percentiles use linear interpolation between closest ranks (Hyndman & Fan type 7, the
 * default of R, NumPy and spreadsheets): sort the n finite values x[0..n-1], let
 * h = (n - 1) * p; the result is x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
 * So the median of an even count is the mean of the two middle values, p0 is the minimum and
 * p100 the maximum. MAD is the raw median absolute deviation, median(|x - median|), not scaled.
 */
struct stats {
	bool available;
	size_t n;     /* finite values used */
	size_t n_nan; /* values skipped (NaN or infinite) */
	double min, median, p99, max, mean, mad;
};

/* Summarises @n values. @scratch needs room for 2 * @n doubles; NULL allocates (and may fail).
 * Returns 0, or -1 when @scratch was NULL and allocation failed (out is then unavailable).
 * Expected O(n): quantiles by selection, not a sort; the results are those of the sorted values
 * bit for bit (a zero keeps the sign a stable sort would give it). */
int stats_compute(const double *v, size_t n, double *scratch, struct stats *out);
/* Percentile @p (0..1) of @n ascending finite values, by the interpolation above; NaN if n == 0. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);
/* Rearranges @n finite values so that v[k] is the one a sort would put there, with
 * v[0..k) <= v[k] <= v(k..n) (nth_element); expected O(n), O(n log n) at worst. */
void stats_select(double *v, size_t n, size_t k);
/* stats_percentile_sorted() of @n finite values in any order, by selection; reorders @v. When
 * both -0.0 and 0.0 are present, a zero result may carry either sign. NaN if n == 0. */
double stats_percentile_select(double *v, size_t n, double p);

/* A window kept sorted as it slides (spike rules: median and MAD per sample in O(n), no
 * selection): @sorted holds @len finite values ascending, equal ones oldest first (the order a
 * stable sort of the window gives). Removes @old (when @evict: the value leaving the window)
 * and inserts @v after the values <= it. Returns the new length. */
size_t stats_sorted_slide(double *sorted, size_t len, bool evict, double old, double v);
/* Median and MAD (as stats_compute()) of @n ascending finite values; @scratch: n doubles.
 * Bit for bit stats_compute()'s. NaN when n == 0. */
void stats_sorted_median_mad(const double *sorted, size_t n, double *scratch, double *median,
			     double *mad);

/* A fixed-capacity ring of one series; push is O(1), the oldest value is overwritten. */
struct series_ring {
	double *buf;
	size_t cap;		   /* values */
	size_t head;		   /* index of the next write */
	size_t len;		   /* values held, <= cap */
	unsigned long long pushed; /* values ever pushed */
};

/* Uses caller-owned storage of @cap doubles (cap >= 1). */
void series_ring_init(struct series_ring *r, double *storage, size_t cap);
void series_ring_clear(struct series_ring *r);
void series_ring_push(struct series_ring *r, double v);
/* Value @age pushes ago (0 = newest); NaN when age >= len. */
double series_ring_get(const struct series_ring *r, size_t age);
/* Copies the last min(k, len) values, oldest first, into @out; returns how many. */
size_t series_ring_last(const struct series_ring *r, size_t k, double *out);
/* The statistics of a window of one sample @v: stats_compute()'s result, without its passes. */
static inline void stats_of_one(double v, struct stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!isfinite(v)) {
		out->n_nan = 1;
		return;
	}
	out->available = true;
	out->n = 1;
	out->min = out->max = out->median = out->p99 = v;
	out->mean = 0.0 + v; /* as stats_compute() sums from 0: 0 + -0.0 is 0.0; mad stays 0 */
}
/* Statistics over the last @k values (k == 0 or k > len: all). @scratch: 3 * cap doubles. */
void series_ring_stats(const struct series_ring *r, size_t k, double *scratch, struct stats *out);

/* All rings of an ncpu x nmetric table in one allocation: bounded and reportable memory. */
struct series_set {
	int ncpu, nmetric;
	size_t cap;		   /* values per ring */
	struct series_ring *rings; /* [cpu * nmetric + metric] */
	double *data;
	double *scratch; /* 3 * cap doubles for series_set_stats() */
};

int series_set_init(struct series_set *s, int ncpu, int nmetric, size_t cap, char *err,
		    size_t errlen);
void series_set_free(struct series_set *s);
/* NULL when cpu or metric is out of range. */
struct series_ring *series_set_ring(struct series_set *s, int cpu, int metric);
/* Statistics of one ring over its last @k values; unavailable when out of range. */
void series_set_stats(struct series_set *s, int cpu, int metric, size_t k, struct stats *out);
/* Heap bytes held by the set. */
size_t series_set_bytes(const struct series_set *s);

/* How one CPU compares with its peers at one instant. */
struct peer_dev {
	bool available; /* false when the CPU's value is NaN (or infinite) */
	double value;
	double delta;	  /* value - median over all CPUs with a value */
	double mad_units; /* delta / max(MAD over all CPUs, mad_floor) */
};

/*
 * Deviation of each of @n values from the median of all available (non-NaN) values, also in
 * MAD units. @mad_floor (> 0) keeps identical peers (MAD 0) from turning tiny differences into
 * huge scores. @scratch: 2 * n doubles or NULL (allocates). Returns 0 or -1 on allocation failure.
 */
int stats_peer_deviation(const double *values, size_t n, double mad_floor, double *scratch,
			 struct peer_dev *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c: robust statistics over windows of doubles, per-(cpu, metric) rings and peer deviation.
 */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts @n doubles ascending in place (finite values only). */
static void stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	if (p <= 0)
		return sorted[0];
	if (p >= 1)
		return sorted[n - 1];
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);
	double frac = h - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* The first index of @n ascending values whose value is not below @v (@upper: above @v; n when
 * none); the halving is a conditional move, not a branch the data decides. */
static size_t bound(const double *sorted, size_t n, double v, bool upper)
{
	if (n == 0)
		return 0;
	size_t base = 0;
	while (n > 1) {
		size_t half = n / 2;
		double x = sorted[base + half];
		base = (upper ? x <= v : x < v) ? base + half : base;
		n -= half;
	}
	return base + (upper ? sorted[base] <= v : sorted[base] < v);
}

static size_t lower_bound(const double *sorted, size_t n, double v)
{
	return bound(sorted, n, v, false);
}

static size_t upper_bound(const double *sorted, size_t n, double v)
{
	return bound(sorted, n, v, true);
}

size_t stats_sorted_slide(double *sorted, size_t len, bool evict, double old, double v)
{
	if (evict) { /* the first equal one is the oldest of its equals (-0.0 equals 0.0) */
		size_t i = lower_bound(sorted, len, old);
		if (i < len && sorted[i] == old) {
			/* one move of the values between the two places, not two to the end: v's
			 * place after every value <= v, counted with old still in (at > i: old
			 * is one of those values, so v goes one place earlier once it is out) */
			size_t at = upper_bound(sorted, len, v);
			if (at > i) {
				memmove(sorted + i, sorted + i + 1, (at - 1 - i) * sizeof(double));
				sorted[at - 1] = v;
			} else {
				memmove(sorted + at + 1, sorted + at, (i - at) * sizeof(double));
				sorted[at] = v;
			}
			return len;
		}
	}
	size_t at = upper_bound(sorted, len, v); /* after every value <= v */
	memmove(sorted + at + 1, sorted + at, (len - at) * sizeof(double));
	sorted[at] = v;
	return len + 1;
}

/*
 * The distances |x - med| of @n ascending values, split at @s (the ones before it are below
 * @med), form two ascending runs: A[i] = |sorted[s - 1 - i] - med| and B[j] = |sorted[s + j] -
 * med|. Their merge's values of rank @q and q + 1 (INFINITY past the end), found by halving
 * how many of the first q + 1 come from A (the k-th of two sorted arrays) instead of merging.
 */
static void distance_ranks(const double *sorted, size_t n, size_t s, double med, size_t q,
			   double *x0, double *x1)
{
	size_t na = s, nb = n - s;
	size_t lo = q + 1 > nb ? q + 1 - nb : 0, hi = q + 1 < na ? q + 1 : na;
	while (lo < hi) { /* the fewest i with B[q - i] <= A[i] */
		size_t i = lo + (hi - lo) / 2, j = q + 1 - i;
		if (fabs(sorted[s + j - 1] - med) > fabs(sorted[s - 1 - i] - med))
			lo = i + 1;
		else
			hi = i;
	}
	size_t i = lo, j = q + 1 - lo;
	double a = i > 0 ? fabs(sorted[s - i] - med) : -INFINITY; /* A[i - 1] */
	double b = j > 0 ? fabs(sorted[s + j - 1] - med) : -INFINITY;
	*x0 = a > b ? a : b;
	double an = i < na ? fabs(sorted[s - 1 - i] - med) : INFINITY;
	double bn = j < nb ? fabs(sorted[s + j] - med) : INFINITY;
	*x1 = an < bn ? an : bn;
}

void stats_sorted_median_mad(const double *sorted, size_t n, double *scratch, double *median,
			     double *mad)
{
	if (n == 0) {
		*median = *mad = NAN;
		return;
	}
	double med = stats_percentile_sorted(sorted, n, 0.5);
	/* the median of the distances reads ranks (n - 1) / 2 and the one after it */
	size_t q = (n - 1) / 2;
	double x0, x1;
	distance_ranks(sorted, n, lower_bound(sorted, n, med), med, q, &x0, &x1);
	scratch[q] = x0;
	if (q + 1 < n)
		scratch[q + 1] = x1;
	*median = med;
	*mad = stats_percentile_sorted(scratch, n, 0.5); /* the same arithmetic as a full merge */
}

static void swap_d(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

static void insertion_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

void stats_select(double *v, size_t n, size_t k)
{
	if (n < 2 || k >= n)
		return;
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;
	/* Hoare partitions around a median of three; past 2 log2(n) + 8 rounds (an adversarial
	 * order) the rest is sorted, so the worst case stays O(n log n). */
	int budget = 8;
	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (hi > lo) {
		if (hi - lo < 16) {
			insertion_sort(v + lo, (size_t)(hi - lo + 1));
			return;
		}
		if (budget-- == 0) {
			stats_sort(v + lo, (size_t)(hi - lo + 1));
			return;
		}
		ptrdiff_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			swap_d(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap_d(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap_d(&v[hi], &v[mid]);
		double pivot = v[mid];
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap_d(&v[i], &v[j]);
				i++;
				j--;
			}
		}
		/* v[lo..j] <= pivot <= v[i..hi], and anything between i and j equals the pivot */
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return;
	}
}

static double min_of(const double *v, size_t n)
{
	double m = v[0];
	for (size_t i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* The rank's and the next rank's values of a percentile 0 < p < 1 (type 7, see stats.h). */
struct rank_pair {
	size_t lo;
	double frac, x0, x1;
	bool single; /* lo is the last rank: the percentile is x0 */
};

/*
 * Fills @rp for percentile @p of the @n values v[0..n) by selection. Only v[0..limit) is searched:
 * callers pass a prefix that already holds the limit smallest values (from an earlier selection)
 * and @above, the smallest value past it, or limit == n.
 */
static void rank_pair_in(double *v, size_t n, size_t limit, double above, double p,
			 struct rank_pair *rp)
{
	double h = (double)(n - 1) * p;
	rp->lo = (size_t)floor(h);
	rp->frac = h - (double)rp->lo;
	rp->single = rp->lo + 1 >= n;
	if (rp->single)
		rp->lo = n - 1;
	stats_select(v, limit, rp->lo);
	rp->x0 = v[rp->lo];
	if (rp->single)
		rp->x1 = rp->x0;
	else
		rp->x1 = rp->lo + 1 < limit ? min_of(v + rp->lo + 1, limit - rp->lo - 1) : above;
}

#define STATS_TOP_MAX 16 /* ranks from the top found by a scan rather than a selection */

/* The values at ranks rp->lo and rp->lo + 1 when they are among the n - lo <= STATS_TOP_MAX
 * largest: one pass keeping the largest in a small buffer, largest first. */
static void top_pair(const double *v, size_t n, size_t lo, struct rank_pair *rp)
{
	double top[STATS_TOP_MAX];
	size_t t = n - lo, have = 0;
	for (size_t i = 0; i < n; i++) {
		double x = v[i];
		if (have == t && !(x > top[t - 1]))
			continue;
		size_t j = have < t ? have++ : t - 1;
		for (; j > 0 && top[j - 1] < x; j--)
			top[j] = top[j - 1];
		top[j] = x;
	}
	rp->x0 = top[t - 1];
	rp->x1 = t >= 2 ? top[t - 2] : top[t - 1];
}

/* The same for @n copies of one value. */
static void rank_pair_const(size_t n, double p, double value, struct rank_pair *rp)
{
	double h = (double)(n - 1) * p;
	rp->lo = (size_t)floor(h);
	rp->frac = h - (double)rp->lo;
	rp->single = rp->lo + 1 >= n;
	rp->x0 = rp->x1 = value;
}

static double rank_pair_value(const struct rank_pair *rp)
{
	return rp->single ? rp->x0 : rp->x0 + rp->frac * (rp->x1 - rp->x0);
}

double stats_percentile_select(double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	if (p <= 0)
		return min_of(v, n);
	if (p >= 1) {
		double m = v[0];
		for (size_t i = 1; i < n; i++)
			if (v[i] > m)
				m = v[i];
		return m;
	}
	struct rank_pair rp;
	rank_pair_const(n, p, 0, &rp);
	if (!rp.single && n - rp.lo <= STATS_TOP_MAX)
		top_pair(v, n, rp.lo, &rp); /* a rank near the top: one pass */
	else
		rank_pair_in(v, n, n, NAN, p, &rp);
	return rank_pair_value(&rp);
}

/*
 * A sort puts equal values in input order (qsort here is glibc's stable merge sort), and -0.0
 * equals 0.0: the zero at @rank of the sorted finite values of @v is the (rank - negatives)-th
 * zero of the input. Selection may have picked the other sign; this puts the sorted one back.
 */
static double zero_at_rank(const double *v, size_t n, size_t rank)
{
	size_t neg = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] < 0)
			neg++;
	size_t want = rank - neg, seen = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] == 0 && seen++ == want)
			return v[i];
	return 0.0;
}

static void fix_zero_signs(const double *v, size_t n, struct rank_pair *rp)
{
	if (rp->x0 == 0)
		rp->x0 = zero_at_rank(v, n, rp->lo);
	if (rp->x1 == 0 && !rp->single)
		rp->x1 = zero_at_rank(v, n, rp->lo + 1);
}

/* The finite values of a series, as stats_compute() and median_mad() read them. */
struct finite_scan {
	size_t m;	 /* how many (copied to the front of the scratch) */
	double lo, hi;	 /* the first of equal minima, the last of equal maxima: where a stable
			  * sort puts them */
	double sum;	 /* of the finite values */
	bool negz, posz; /* -0.0 and 0.0 seen */
};

static void scan_finite(const double *v, size_t n, double *x, struct finite_scan *f)
{
	*f = (struct finite_scan){0};
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (f->m == 0 || v[i] < f->lo)
			f->lo = v[i];
		if (f->m == 0 || v[i] >= f->hi)
			f->hi = v[i];
		if (v[i] == 0) {
			if (signbit(v[i]))
				f->negz = true;
			else
				f->posz = true;
		}
		x[f->m++] = v[i];
		f->sum += v[i];
	}
}

int stats_compute(const double *v, size_t n, double *scratch, struct stats *out)
{
	double *own = NULL;
	memset(out, 0, sizeof(*out));
	if (!scratch && n > 0) {
		own = malloc(2 * n * sizeof(double));
		if (!own) {
			out->n_nan = n;
			return -1;
		}
		scratch = own;
	}
	double *x = scratch, *dev = scratch + n;
	struct finite_scan f;
	scan_finite(v, n, x, &f);
	size_t m = f.m;
	double sum = f.sum, lo = f.lo, hi = f.hi;
	bool negz = f.negz, posz = f.posz;
	out->n_nan = n - m;
	if (m > 0) {
		out->available = true;
		out->n = m;
		out->min = lo;
		out->max = hi;
		out->mean = sum / (double)m;
		struct rank_pair p99, p50, pmad;
		if (lo == hi && !(negz && posz)) {
			/* one value m times (a flat series): no selection to do */
			rank_pair_const(m, 0.99, lo, &p99);
			rank_pair_const(m, 0.5, lo, &p50);
			out->p99 = rank_pair_value(&p99);
			out->median = rank_pair_value(&p50);
			rank_pair_const(m, 0.5, fabs(lo - out->median), &pmad);
			out->mad = rank_pair_value(&pmad);
		} else {
			rank_pair_const(m, 0.99, 0, &p99);
			if (m - p99.lo <= STATS_TOP_MAX) {
				/* p99's ranks are among the few largest: one pass finds them */
				top_pair(x, m, p99.lo, &p99);
				rank_pair_in(x, m, m, NAN, 0.5, &p50);
			} else {
				/* its selection leaves the median's ranks in the prefix before it
				 */
				rank_pair_in(x, m, m, NAN, 0.99, &p99);
				rank_pair_in(x, m, p99.lo + 1, p99.x1, 0.5, &p50);
			}
			if (negz && posz) {
				fix_zero_signs(v, n, &p99);
				fix_zero_signs(v, n, &p50);
			}
			out->p99 = rank_pair_value(&p99);
			out->median = rank_pair_value(&p50);
			for (size_t i = 0; i < m; i++)
				dev[i] = fabs(x[i] - out->median);
			out->mad = stats_percentile_select(dev, m, 0.5);
		}
	}
	free(own);
	return 0;
}

void series_ring_init(struct series_ring *r, double *storage, size_t cap)
{
	r->buf = storage;
	r->cap = cap;
	series_ring_clear(r);
}

void series_ring_clear(struct series_ring *r)
{
	r->head = 0;
	r->len = 0;
	r->pushed = 0;
}

void series_ring_push(struct series_ring *r, double v)
{
	if (r->cap == 0)
		return;
	r->buf[r->head] = v;
	r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
	if (r->len < r->cap)
		r->len++;
	r->pushed++;
}

double series_ring_get(const struct series_ring *r, size_t age)
{
	if (age >= r->len)
		return NAN;
	size_t i = r->head + r->cap - 1 - age;
	return r->buf[i % r->cap];
}

size_t series_ring_last(const struct series_ring *r, size_t k, double *out)
{
	if (k > r->len)
		k = r->len;
	if (k == 0)
		return 0; /* an empty ring may have no buffer yet */
	/* the k newest end just before head: at most two runs of the buffer */
	size_t start = r->head >= k ? r->head - k : r->head + r->cap - k;
	size_t first = start + k <= r->cap ? k : r->cap - start;
	memcpy(out, r->buf + start, first * sizeof(double));
	if (k > first)
		memcpy(out + first, r->buf, (k - first) * sizeof(double));
	return k;
}

void series_ring_stats(const struct series_ring *r, size_t k, double *scratch, struct stats *out)
{
	if (k == 0 || k > r->len)
		k = r->len;
	if (k == 1) { /* a window of one sample */
		stats_of_one(r->buf[r->head ? r->head - 1 : r->cap - 1], out);
		return;
	}
	size_t m = series_ring_last(r, k, scratch);
	stats_compute(scratch, m, scratch + r->cap, out);
}

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

int series_set_init(struct series_set *s, int ncpu, int nmetric, size_t cap, char *err,
		    size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (ncpu <= 0 || nmetric <= 0 || cap == 0) {
		set_err(err, errlen, "series: cpus, metrics and capacity must be positive");
		return -1;
	}
	size_t nring = (size_t)ncpu * (size_t)nmetric;
	if (nring > SIZE_MAX / sizeof(double) / cap / 2) {
		set_err(err, errlen, "series: table too large");
		return -1;
	}
	s->rings = calloc(nring, sizeof(*s->rings));
	s->data = malloc(nring * cap * sizeof(double));
	s->scratch = malloc(3 * cap * sizeof(double));
	if (!s->rings || !s->data || !s->scratch) {
		series_set_free(s);
		set_err(err, errlen, "series: out of memory");
		return -1;
	}
	s->ncpu = ncpu;
	s->nmetric = nmetric;
	s->cap = cap;
	for (size_t i = 0; i < nring; i++)
		series_ring_init(&s->rings[i], s->data + i * cap, cap);
	return 0;
}

void series_set_free(struct series_set *s)
{
	free(s->rings);
	free(s->data);
	free(s->scratch);
	memset(s, 0, sizeof(*s));
}

struct series_ring *series_set_ring(struct series_set *s, int cpu, int metric)
{
	if (!s->rings || cpu < 0 || cpu >= s->ncpu || metric < 0 || metric >= s->nmetric)
		return NULL;
	return &s->rings[(size_t)cpu * (size_t)s->nmetric + (size_t)metric];
}

void series_set_stats(struct series_set *s, int cpu, int metric, size_t k, struct stats *out)
{
	struct series_ring *r = series_set_ring(s, cpu, metric);
	if (!r) {
		memset(out, 0, sizeof(*out));
		return;
	}
	series_ring_stats(r, k, s->scratch, out);
}

size_t series_set_bytes(const struct series_set *s)
{
	if (!s->rings)
		return 0;
	size_t nring = (size_t)s->ncpu * (size_t)s->nmetric;
	return nring * sizeof(struct series_ring) + nring * s->cap * sizeof(double) +
	       3 * s->cap * sizeof(double);
}

/*
 * stats_compute()'s median and MAD of @n values, without its mean and p99 (the peers use only
 * these two): the same selections on the same copy, so the same results bit for bit. @scratch:
 * 2 * @n doubles. *@available is false when no value is finite.
 */
static void median_mad(const double *v, size_t n, double *scratch, bool *available, double *median,
		       double *mad)
{
	double *x = scratch, *dev = scratch + n;
	struct finite_scan f;
	scan_finite(v, n, x, &f);
	size_t m = f.m;
	double lo = f.lo, hi = f.hi;
	bool negz = f.negz, posz = f.posz;
	*available = m > 0;
	*median = *mad = 0;
	if (m == 0)
		return;
	struct rank_pair p50, pmad;
	if (lo == hi && !(negz && posz)) { /* a flat series */
		rank_pair_const(m, 0.5, lo, &p50);
		*median = rank_pair_value(&p50);
		rank_pair_const(m, 0.5, fabs(lo - *median), &pmad);
		*mad = rank_pair_value(&pmad);
		return;
	}
	rank_pair_in(x, m, m, NAN, 0.5, &p50);
	if (negz && posz)
		fix_zero_signs(v, n, &p50);
	*median = rank_pair_value(&p50);
	for (size_t i = 0; i < m; i++)
		dev[i] = fabs(x[i] - *median);
	*mad = stats_percentile_select(dev, m, 0.5);
}

int stats_peer_deviation(const double *values, size_t n, double mad_floor, double *scratch,
			 struct peer_dev *out)
{
	double *own = NULL;
	if (!scratch && n > 0) {
		own = malloc(2 * n * sizeof(double));
		if (!own) {
			memset(out, 0, n * sizeof(*out));
			return -1;
		}
		scratch = own;
	}
	bool available = false;
	double median = 0, mad = 0;
	median_mad(values, n, scratch, &available, &median, &mad);
	free(own);
	double scale = mad > mad_floor ? mad : mad_floor;
	for (size_t i = 0; i < n; i++) {
		out[i].value = values[i];
		if (!available || !isfinite(values[i])) {
			out[i].available = false;
			out[i].delta = NAN;
			out[i].mad_units = NAN;
			continue;
		}
		out[i].available = true;
		out[i].delta = values[i] - median;
		out[i].mad_units = scale > 0 ? out[i].delta / scale : 0;
	}
	return 0;
}

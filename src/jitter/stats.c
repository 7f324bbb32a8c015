/* stats.c: robust statistics over windows of doubles, per-(cpu, metric) rings and peer deviation.
 */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void stats_sort(double *v, size_t n)
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
	double *sorted = scratch, *dev = scratch + n;
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
	if (m > 0) {
		stats_sort(sorted, m);
		out->available = true;
		out->n = m;
		out->min = sorted[0];
		out->max = sorted[m - 1];
		out->mean = sum / (double)m;
		out->median = stats_percentile_sorted(sorted, m, 0.5);
		out->p99 = stats_percentile_sorted(sorted, m, 0.99);
		for (size_t i = 0; i < m; i++)
			dev[i] = fabs(sorted[i] - out->median);
		stats_sort(dev, m);
		out->mad = stats_percentile_sorted(dev, m, 0.5);
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
	for (size_t i = 0; i < k; i++)
		out[i] = series_ring_get(r, k - 1 - i);
	return k;
}

void series_ring_stats(const struct series_ring *r, size_t k, double *scratch, struct stats *out)
{
	if (k == 0 || k > r->len)
		k = r->len;
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

int stats_peer_deviation(const double *values, size_t n, double mad_floor, double *scratch,
			 struct peer_dev *out)
{
	struct stats st;
	if (stats_compute(values, n, scratch, &st) < 0) {
		memset(out, 0, n * sizeof(*out));
		return -1;
	}
	double scale = st.mad > mad_floor ? st.mad : mad_floor;
	for (size_t i = 0; i < n; i++) {
		out[i].value = values[i];
		if (!st.available || !isfinite(values[i])) {
			out[i].available = false;
			out[i].delta = NAN;
			out[i].mad_units = NAN;
			continue;
		}
		out[i].available = true;
		out[i].delta = values[i] - st.median;
		out[i].mad_units = scale > 0 ? out[i].delta / scale : 0;
	}
	return 0;
}

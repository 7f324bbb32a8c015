/* probe_detect.c: pure analysis for the cache probe: latency steps, line size, seed AMAT formula,
 * sizes. */
#include "probe.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLAT_MIN 1.12	  /* two-step ratio under which a point counts as flat */
#define SPAN_MAX 1.25	  /* max/min ratio inside one plateau run */
#define JUMP_MIN 1.30	  /* smallest plateau ratio that makes a step */
#define MIN_RUN 3	  /* points in a plateau */
#define NOISE_FLOOR 0.005 /* relative */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of @n values (copies them). */
static double median(const double *v, int n)
{
	double tmp[256];
	double *buf = n <= 256 ? tmp : malloc(sizeof(double) * (size_t)n);
	double m;

	if (n <= 0 || !buf)
		return 0;
	memcpy(buf, v, sizeof(double) * (size_t)n);
	qsort(buf, (size_t)n, sizeof(double), cmp_double);
	m = n % 2 ? buf[n / 2] : (buf[n / 2 - 1] + buf[n / 2]) / 2;
	if (buf != tmp)
		free(buf);
	return m;
}

struct run {
	int start, end; /* inclusive */
	int npts;	/* flat points in it */
	double level;	/* log latency */
};

static double run_level(const double *y, const bool *flat, int start, int end)
{
	double v[256];
	int k = 0;

	for (int i = start; i <= end && k < 256; i++)
		if (flat[i])
			v[k++] = y[i];
	return median(v, k);
}

int probe_detect_levels(const double *sizes, const double *latency_ns, int n, double noise,
			struct probe_detect *out)
{
	double y[256], d[256];
	bool flat[256];
	struct run runs[128];
	int nruns = 0;

	memset(out, 0, sizeof(*out));
	out->open_from = -1;
	if (!sizes || !latency_ns || n < 2 * MIN_RUN || n > 256)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!(sizes[i] > 0) || !(latency_ns[i] > 0) || !isfinite(latency_ns[i]))
			return -1;
		if (i && !(sizes[i] > sizes[i - 1]))
			return -1;
		y[i] = log(latency_ns[i]);
	}
	if (noise <= 0) {
		/* Robust sigma of one point from first differences: most lie on plateaus. */
		for (int i = 0; i + 1 < n; i++)
			d[i] = fabs(y[i + 1] - y[i]);
		noise = 1.4826 * median(d, n - 1) / sqrt(2.0);
	}
	if (noise < NOISE_FLOOR)
		noise = NOISE_FLOOR;
	out->noise = noise;
	double flat_tol = fmax(log(FLAT_MIN), 4 * noise);
	double span_tol = fmax(log(SPAN_MAX), 5 * noise);
	double jump = fmax(log(JUMP_MIN), 6 * noise);
	out->jump_min = exp(jump);

	for (int i = 0; i < n; i++) {
		int a = i ? i - 1 : 0, b = i + 1 < n ? i + 1 : n - 1;
		flat[i] = fabs(y[b] - y[a]) <= flat_tol;
	}
	/* Runs of flat points whose spread stays within span_tol. */
	for (int i = 0; i < n;) {
		if (!flat[i]) {
			i++;
			continue;
		}
		double lo = y[i], hi = y[i];
		int j = i;
		while (j + 1 < n && flat[j + 1] &&
		       fmax(hi, y[j + 1]) - fmin(lo, y[j + 1]) <= span_tol) {
			j++;
			lo = fmin(lo, y[j]);
			hi = fmax(hi, y[j]);
		}
		if (j - i + 1 >= MIN_RUN && nruns < 128) {
			runs[nruns] = (struct run){i, j, j - i + 1, 0};
			runs[nruns].level = run_level(y, flat, i, j);
			nruns++;
		}
		i = j + 1;
	}
	/* Extend each run over neighbours that sit on its level (the points next to a sharp step).
	 */
	double ext_tol = fmax(log(1.05), 3 * noise);
	for (int k = 0; k < nruns; k++) {
		int lim_lo = k ? runs[k - 1].end + 1 : 0,
		    lim_hi = k + 1 < nruns ? runs[k + 1].start - 1 : n - 1;
		while (runs[k].end < lim_hi && fabs(y[runs[k].end + 1] - runs[k].level) <= ext_tol)
			runs[k].end++;
		while (runs[k].start > lim_lo &&
		       fabs(y[runs[k].start - 1] - runs[k].level) <= ext_tol)
			runs[k].start--;
	}
	/* Merge neighbouring runs at the same level (a bump or a slow drift inside one plateau). */
	int m = 0;
	for (int k = 0; k < nruns; k++) {
		if (m && fabs(runs[k].level - runs[m - 1].level) < jump) {
			runs[m - 1].end = runs[k].end;
			runs[m - 1].npts += runs[k].npts;
			runs[m - 1].level = run_level(y, flat, runs[m - 1].start, runs[m - 1].end);
			continue;
		}
		runs[m++] = runs[k];
	}
	nruns = m;
	if (!nruns)
		return 0;
	out->first_ns = exp(runs[0].level);
	out->last_ns = exp(runs[nruns - 1].level);
	out->tail_flat = runs[nruns - 1].end >= n - 2;
	out->open_from = -1;
	if (!out->tail_flat && y[n - 1] - runs[nruns - 1].level >= jump) {
		out->open_from = runs[nruns - 1].end;
		out->open_ratio = exp(y[n - 1] - runs[nruns - 1].level);
	}

	/* A step between each pair of plateaus that rises by at least the jump. */
	int ref = 0;
	for (int k = 1; k < nruns; k++) {
		struct run *p = &runs[ref], *q = &runs[k];
		double rise = q->level - p->level;

		if (rise < jump) {
			if (rise < 0)
				ref = k; /* latency fell: start again from the lower plateau */
			continue;
		}
		if (out->nbounds >= PROBE_MAX_BOUNDS)
			break;
		double lo_ns = exp(p->level), hi_ns = exp(q->level), mid = (lo_ns + hi_ns) / 2;
		double x = NAN;
		for (int i = p->end; i < q->start; i++) {
			if (latency_ns[i] < mid && latency_ns[i + 1] >= mid) {
				double x0 = log2(sizes[i]), x1 = log2(sizes[i + 1]);
				x = x0 + (mid - latency_ns[i]) /
					     (latency_ns[i + 1] - latency_ns[i]) * (x1 - x0);
				break;
			}
		}
		if (isnan(x))
			x = (log2(sizes[p->end]) + log2(sizes[q->start])) / 2;
		double z = rise / noise;
		double c_height = fmin(1.0, fmax(0.0, (z - 6) / 10));
		double c_support = fmin(1.0, (p->npts + q->npts) / 6.0);
		out->b[out->nbounds++] = (struct probe_bound){
		    .size = exp2(x),
		    .below_ns = lo_ns,
		    .above_ns = hi_ns,
		    .confidence = c_height * c_support,
		    .lo = p->end,
		    .hi = q->start,
		};
		ref = k;
	}
	return out->nbounds;
}

int probe_detect_line(const int *strides, const double *ns, int n, double *confidence)
{
	static const int cand[] = {16, 32, 64, 128, 256, 512};
	double best = INFINITY, second = INFINITY;
	int best_l = 0;

	if (confidence)
		*confidence = 0;
	if (n < 3)
		return 0;
	double tmin = ns[0], tmax = ns[0];
	for (int i = 0; i < n; i++) {
		if (!(ns[i] > 0))
			return 0;
		tmin = fmin(tmin, ns[i]);
		tmax = fmax(tmax, ns[i]);
	}
	if (tmax / tmin < JUMP_MIN)
		return 0; /* no miss cost visible: the buffer fit in L1 or prefetch hid it */
	for (size_t c = 0; c < sizeof(cand) / sizeof(cand[0]); c++) {
		int L = cand[c];
		if (L > strides[n - 1] / 2 || L < strides[0])
			continue; /* need at least two strides at or above L, and one below */
		/* Least squares for t = h*(1-r) + m*r, weights 1/t^2 (relative error). */
		double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
		for (int i = 0; i < n; i++) {
			double r = fmin(1.0, (double)strides[i] / L), w = 1 / (ns[i] * ns[i]);
			a11 += w * (1 - r) * (1 - r);
			a12 += w * (1 - r) * r;
			a22 += w * r * r;
			b1 += w * (1 - r) * ns[i];
			b2 += w * r * ns[i];
		}
		double det = a11 * a22 - a12 * a12;
		if (fabs(det) < 1e-300)
			continue;
		double h = (b1 * a22 - b2 * a12) / det, mm = (a11 * b2 - a12 * b1) / det;
		double sse = 0;
		for (int i = 0; i < n; i++) {
			double r = fmin(1.0, (double)strides[i] / L);
			double e = (h * (1 - r) + mm * r - ns[i]) / ns[i];
			sse += e * e;
		}
		if (!(mm > h * JUMP_MIN))
			sse = INFINITY; /* the fit must have a miss cost */
		if (sse < best) {
			second = best;
			best = sse;
			best_l = L;
		} else if (sse < second) {
			second = sse;
		}
	}
	if (!best_l || !isfinite(best))
		return 0;
	if (confidence) {
		/* How much better the best fit is than the runner-up (1 = unambiguous). */
		double rms = sqrt(best / n);
		double sep = isfinite(second) ? 1 - best / fmax(second, 1e-30) : 1;
		*confidence = fmax(0, fmin(1, 1.25 * sep)) * (rms < 0.10   ? 1
							      : rms < 0.20 ? 0.6
									   : 0.2);
	}
	return best_l;
}

double probe_seed_miss_rate(int stride_bytes, int line_bytes)
{
	if (stride_bytes <= 0 || line_bytes <= 0)
		return NAN;
	return stride_bytes >= line_bytes ? 1.0 : (double)stride_bytes / line_bytes;
}

double probe_seed_miss_time(double access_ns, double hit_ns, double miss_rate)
{
	if (!(miss_rate > 0))
		return NAN;
	return (access_ns - (1 - miss_rate) * hit_ns) / miss_rate;
}

int probe_parse_size(const char *text, size_t *bytes, char *err, size_t errlen)
{
	char *end;
	double v;

	if (!text || !*text || !(isdigit((unsigned char)*text) || *text == '.'))
		goto bad;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || !(v > 0))
		goto bad;
	double mult = 1;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		mult = 1024.0;
		end++;
		break;
	case 'M':
		mult = 1024.0 * 1024;
		end++;
		break;
	case 'G':
		mult = 1024.0 * 1024 * 1024;
		end++;
		break;
	case 'T':
		mult = 1024.0 * 1024 * 1024 * 1024;
		end++;
		break;
	default:
		break;
	}
	if (mult > 1 && (*end == 'i' || *end == 'I') && toupper((unsigned char)end[1]) == 'B')
		end += 2;
	else if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end)
		goto bad;
	v *= mult;
	if (v < 1 || v > 1e18 || v != floor(v))
		goto bad;
	*bytes = (size_t)v;
	return 0;
bad:
	snprintf(err, errlen, "bad size '%.40s' (examples: 4096, 512K, 64M, 1G)", text ? text : "");
	return -1;
}

char *probe_format_size(double bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGT";
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0fB", bytes);
	else if (bytes >= 100 || fabs(bytes - round(bytes)) < 0.05)
		snprintf(buf, len, "%.0f%c", bytes, units[u]);
	else
		snprintf(buf, len, "%.1f%c", bytes, units[u]);
	return buf;
}

int probe_assign_levels(const struct probe_detect *d, int *bound_of, int max)
{
	int n = 0;
	for (int k = 0; k < d->nbounds && n < max; k++) {
		if (k > 0 && d->b[k].below_ns > 1.5 * d->b[k - 1].above_ns && n + 1 < max)
			bound_of[n++] = -1;
		bound_of[n++] = k;
	}
	return n;
}

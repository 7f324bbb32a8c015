/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_detect.c: pure analysis for the cache probe: latency steps, line size, seed AMAT formula,
 * sizes. */
#include "probe.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- the working-set sweep: segmented fit ---- */

#define FIT_MIN_RUN 3	     /* points in a plateau */
#define FIT_SPAN 1.20	     /* max/min ratio inside one plateau piece */
#define FIT_JUMP 1.50	     /* smallest plateau ratio that makes a cache step */
#define FIT_NOISE_FLOOR 0.01 /* relative noise per point assumed at least */
#define FIT_LEVEL_RATIO 2.5  /* ... unless this far above the one before and below the next */
#define FIT_MIN_OCTAVES 1.0  /* span of a plateau between two others (log2 of end/start size) */

/* Where @ns (NAN = not measured, skipped) crosses @mid_ns upwards between grid indices @from and
 * @to (inclusive): the split with the fewest points on the wrong side, interpolated in log size
 * between the points beside it; NAN when no split separates them. @wrong (may be NULL) gets how
 * many points lie on the wrong side of that split (noise in the transition). */
static double probe_crossing(const double *sizes, const double *ns, int from, int to, double mid_ns,
			     int *wrong)
{
	int idx[256], m = 0;

	if (wrong)
		*wrong = 0;

	if (from < 0)
		from = 0;
	for (int i = from; i <= to && m < 256; i++)
		if (ns[i] > 0)
			idx[m++] = i;
	/* the split that leaves the fewest points on the wrong side of @mid_ns (so that one spike
	 * or dip does not move it), then interpolation between the two points beside it */
	int best = -1, best_err = m + 1;
	for (int s = 1; s < m; s++) {
		int err = 0;
		for (int j = 0; j < m; j++)
			err += j < s ? ns[idx[j]] >= mid_ns : ns[idx[j]] < mid_ns;
		if (err < best_err) {
			best_err = err;
			best = s;
		}
	}
	if (best < 0)
		return NAN;
	if (wrong)
		*wrong = best_err;
	int i0 = idx[best - 1], i1 = idx[best];
	double x0 = log2(sizes[i0]), x1 = log2(sizes[i1]);
	if (!(ns[i0] < mid_ns && ns[i1] >= mid_ns)) {
		/* a split that no point pair straddles: all on one side, or noise at the split */
		if (best_err * 2 >= m)
			return NAN;
		return exp2((x0 + x1) / 2);
	}
	return exp2(x0 + (mid_ns - ns[i0]) / (ns[i1] - ns[i0]) * (x1 - x0));
}

/* Spread of @y[start..end] between its 10th and 90th percentile (log units). */
static double robust_span(const double *y, int start, int end)
{
	double v[256];
	int m = end - start + 1;
	if (m <= 0 || m > 256)
		return 0;
	memcpy(v, &y[start], sizeof(double) * (size_t)m);
	qsort(v, (size_t)m, sizeof(double), cmp_double);
	int lo = (int)floor(0.1 * (m - 1) + 0.5), hi = (int)floor(0.9 * (m - 1) + 0.5);
	return v[hi] - v[lo];
}

struct piece {
	int start, end; /* inclusive */
	double level;	/* median log latency of its plateau points */
};

/* The working-set sweep's detector: a penalised segmentation of log latency into constant
 * pieces (optimal partitioning), pieces of at least 3 points and a small spread are plateaus,
 * neighbouring plateaus less than max(1.5x, exp(6*noise)) apart merge (a slope or a bump inside
 * one level); a plateau between two others shorter than an octave is a shelf of a transition
 * (a cache shared with a busy neighbour), not a level, unless it lies 2.5x above the one before
 * and 2.5x below the next; each rise between plateaus is a step placed
 * where the curve crosses the midpoint of the two plateau latencies in log latency (their geometric
 * mean). Same output as probe_detect_levels, with below_from/above_to set; below_ns/above_ns are
 * the medians of the two plateaus' own points. Returns the number of steps, or -1 (bad input). */
static int probe_fit_levels(const double *sizes, const double *latency_ns, int n,
			    struct probe_detect *out)
{
	double y[256], s1[257], s2[257], best[257], d[256];
	int from[257];
	bool member[256];
	struct piece pc[256];
	int npc = 0;

	memset(out, 0, sizeof(*out));
	out->open_from = -1;
	if (!sizes || !latency_ns || n < 2 * FIT_MIN_RUN || n > 256)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!(sizes[i] > 0) || !(latency_ns[i] > 0) || !isfinite(latency_ns[i]))
			return -1;
		if (i && !(sizes[i] > sizes[i - 1]))
			return -1;
		y[i] = log(latency_ns[i]);
	}
	for (int i = 0; i + 1 < n; i++)
		d[i] = fabs(y[i + 1] - y[i]);
	double noise = fmax(1.4826 * median(d, n - 1) / sqrt(2.0), FIT_NOISE_FLOOR);
	out->noise = noise;
	double jump = fmax(log(FIT_JUMP), 6 * noise);
	double span = fmax(log(FIT_SPAN), 4 * noise);
	out->jump_min = exp(jump);

	/* Optimal partitioning: minimise sum of squared residuals + penalty per piece. */
	double penalty = 2 * noise * noise * log((double)n) * 2;
	s1[0] = s2[0] = 0;
	for (int i = 0; i < n; i++) {
		s1[i + 1] = s1[i] + y[i];
		s2[i + 1] = s2[i] + y[i] * y[i];
	}
	best[0] = 0;
	for (int j = 1; j <= n; j++) {
		best[j] = INFINITY;
		for (int i = 0; i < j; i++) {
			double m = j - i, sum = s1[j] - s1[i];
			double cost = best[i] + (s2[j] - s2[i] - sum * sum / m) + penalty;
			if (cost < best[j]) {
				best[j] = cost;
				from[j] = i;
			}
		}
	}
	/* Pieces in order; neighbours whose points stay within the span join (the partition splits
	 * a noisy stretch finely); groups long enough are plateau candidates. The span is taken
	 * between the 10th and 90th percentile, so that a lone spike does not break a plateau. */
	int bounds[257], nb = 0, gstart[257], gend[257], ng = 0;
	for (int j = n; j > 0; j = from[j])
		bounds[nb++] = j;
	for (int k = nb - 1; k >= 0; k--) {
		int start = k + 1 < nb ? bounds[k + 1] : 0, end = bounds[k] - 1;
		if (ng && robust_span(y, gstart[ng - 1], end) <= span) {
			gend[ng - 1] = end;
			continue;
		}
		gstart[ng] = start;
		gend[ng++] = end;
	}
	memset(member, 0, sizeof(member));
	for (int g = 0; g < ng; g++) {
		int start = gstart[g], end = gend[g];
		/* a plateau ends on points at its level: trim the spikes the percentiles let in */
		double med = median(&y[start], end - start + 1);
		while (end > start && fabs(y[end] - med) > span * 0.75)
			end--;
		while (start < end && fabs(y[start] - med) > span * 0.75)
			start++;
		if (end - start + 1 < FIT_MIN_RUN || robust_span(y, start, end) > span)
			continue;
		/* merge into the previous plateau when within the jump of its first piece (so that
		 * a slow rise cannot creep from one level to the next) */
		if (npc && fabs(median(&y[start], end - start + 1) - pc[npc - 1].level) < jump) {
			pc[npc - 1].end = end;
			for (int i = start; i <= end; i++)
				member[i] = true;
			continue;
		}
		for (int i = start; i <= end; i++)
			member[i] = true;
		pc[npc++] = (struct piece){start, end, median(&y[start], end - start + 1)};
	}
	/* A cache level spans at least an octave of working sets: a shorter plateau between two
	 * others is a shelf of a transition (a cache shared with a busy neighbour), not a level. */
	int m = 0;
	for (int k = 0; k < npc; k++) {
		bool inner = k > 0 && k + 1 < npc;
		double oct = log2(sizes[pc[k].end] / sizes[pc[k].start]);
		/* unless it stands well apart from both neighbours, as cache levels do */
		bool apart = inner && m && pc[k].level - pc[m - 1].level >= log(FIT_LEVEL_RATIO) &&
			     pc[k + 1].level - pc[k].level >= log(FIT_LEVEL_RATIO);
		if (inner && oct < FIT_MIN_OCTAVES && !apart) {
			for (int i = pc[k].start; i <= pc[k].end; i++)
				member[i] = false;
			continue;
		}
		if (m && fabs(pc[k].level - pc[m - 1].level) < jump) {
			pc[m - 1].end = pc[k].end;
			continue;
		}
		pc[m++] = pc[k];
	}
	npc = m;
	if (!npc)
		return 0;
	/* Each plateau's latency: the median of its own points. */
	double lvl[256];
	int npts[256];
	for (int k = 0; k < npc; k++) {
		double v[256];
		int m = 0;
		for (int i = pc[k].start; i <= pc[k].end; i++)
			if (member[i])
				v[m++] = latency_ns[i];
		lvl[k] = median(v, m);
		npts[k] = m;
	}
	out->first_ns = lvl[0];
	out->last_ns = lvl[npc - 1];
	out->tail_flat = pc[npc - 1].end >= n - 2;
	if (!out->tail_flat && y[n - 1] - log(lvl[npc - 1]) >= jump) {
		out->open_from = pc[npc - 1].end;
		out->open_ratio = latency_ns[n - 1] / lvl[npc - 1];
	}
	int ref = 0;
	for (int k = 1; k < npc && out->nbounds < PROBE_MAX_BOUNDS; k++) {
		double rise = log(lvl[k] / lvl[ref]);
		if (rise < jump) {
			if (rise < 0)
				ref = k; /* latency fell: measure the next step from the lower
					    plateau */
			continue;
		}
		double mid = sqrt(lvl[ref] * lvl[k]); /* the midpoint in log latency */
		double x = probe_crossing(sizes, latency_ns, pc[ref].end, pc[k].start, mid, NULL);
		if (isnan(x))
			x = exp2((log2(sizes[pc[ref].end]) + log2(sizes[pc[k].start])) / 2);
		double z = rise / noise;
		out->b[out->nbounds++] = (struct probe_bound){
		    .size = x,
		    .below_ns = lvl[ref],
		    .above_ns = lvl[k],
		    .confidence =
			fmin(1.0, fmax(0.0, (z - 6) / 10)) * fmin(1.0, (npts[ref] + npts[k]) / 8.0),
		    .lo = pc[ref].end,
		    .hi = pc[k].start,
		    .below_from = pc[ref].start,
		    .above_to = pc[k].end,
		};
		ref = k;
	}
	return out->nbounds;
}

/* ---- line size from the pair test ---- */

/* Best step over log @t[0..n): the first high index (>= 1), or 0 when none; @sep gets the
 * high/low ratio of the medians and @clean whether every high point lies above every low one. */
static int line_step(const double *t, int n, double *sep, bool *clean)
{
	double bsse = INFINITY;
	int bj = 0;

	*sep = 1;
	*clean = false;
	for (int j = 1; j < n; j++) {
		double lo = median(t, j), hi = median(t + j, n - j), sse = 0;
		for (int i = 0; i < n; i++) {
			double e = log(t[i]) - log(i < j ? lo : hi);
			sse += e * e;
		}
		if (hi > lo && sse < bsse) {
			bsse = sse;
			bj = j;
			*sep = hi / lo;
		}
	}
	if (!bj)
		return 0;
	double maxlo = 0, minhi = INFINITY;
	for (int i = 0; i < n; i++) {
		if (i < bj)
			maxlo = fmax(maxlo, t[i]);
		else
			minhi = fmin(minhi, t[i]);
	}
	*clean = maxlo < minhi;
	return bj;
}

int probe_decide_line(const int *offsets, const double *samp, int n, int rounds, double *ns_out,
		      double *confidence, int *agree, bool *unstable)
{
	double t[PROBE_NLINE * 4], half[2][PROBE_NLINE * 4];
	double sep;
	bool clean;

	*confidence = 0;
	*agree = 0;
	*unstable = true;
	if (n < 3 || n > (int)(sizeof(t) / sizeof(t[0])) || rounds < 1)
		return 0;
	for (int i = 0; i < n; i++) {
		double m = INFINITY;
		for (int q = 0; q < rounds; q++)
			if (samp[q * n + i] > 0)
				m = fmin(m, samp[q * n + i]);
		if (!isfinite(m))
			return 0;
		t[i] = ns_out[i] = m;
	}
	int j = line_step(t, n, &sep, &clean);
	if (!j || sep < 1.12)
		return 0;
	int line = offsets[j];
	/* the minimum curves of the even and of the odd rounds must each give the same size */
	bool halves_agree = rounds >= 2;
	for (int h = 0; h < 2 && rounds >= 2; h++) {
		for (int i = 0; i < n; i++) {
			half[h][i] = INFINITY;
			for (int q = h; q < rounds; q += 2)
				if (samp[q * n + i] > 0)
					half[h][i] = fmin(half[h][i], samp[q * n + i]);
			if (!isfinite(half[h][i]))
				half[h][i] = NAN;
		}
		double sh;
		bool ch;
		bool ok = true;
		for (int i = 0; i < n; i++)
			ok = ok && half[h][i] > 0;
		if (!ok || line_step(half[h], n, &sh, &ch) != j || sh < 1.12)
			halves_agree = false;
	}
	*unstable = !halves_agree;
	for (int q = 0; q < rounds; q++) {
		double tr[PROBE_NLINE * 4], sr;
		bool cr;
		bool ok = true;
		for (int i = 0; i < n; i++)
			ok = ok && (tr[i] = samp[q * n + i]) > 0;
		if (ok && line_step(tr, n, &sr, &cr) == j && sr >= 1.12)
			(*agree)++;
	}
	*confidence = fmin(1, (sep - 1) / 0.25) * (clean ? 1 : 0.5) * (halves_agree ? 1 : 0.5);
	return line;
}

/* ---- limits ---- */

uint64_t probe_max_working_set(uint64_t ram_bytes, uint64_t size_max)
{
	uint64_t cap = (uint64_t)4 << 30;
	if (ram_bytes && ram_bytes / 4 < cap)
		cap = ram_bytes / 4;
	if (size_max / 4 < cap)
		cap = size_max / 4;
	return cap & ~(((uint64_t)1 << 20) - 1);
}

size_t probe_max_working_set_here(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
	return (size_t)probe_max_working_set(ram, (uint64_t)SIZE_MAX);
}

/* ---- levels against sysfs ---- */

double probe_level_tolerance(int level) { return level <= 1 ? 0.15 : 0.30; }

/* The same with "agrees" meaning within @tol (0.15 = 15%) instead of 25%. */
static enum probe_agree probe_compare_tol(double measured, double sysfs, double max_size,
					  double tol)
{
	if (!(sysfs > 0))
		return PROBE_AGREE_NONE;
	if (!(measured > 0))
		return sysfs > max_size / 2 ? PROBE_AGREE_BEYOND : PROBE_AGREE_NOTFOUND;
	double x = fabs(log2(measured / sysfs));
	return x <= log2(1 + tol) + 1e-9 ? PROBE_AGREE_OK
	       : x <= 1 + 1e-9		 ? PROBE_AGREE_NEAR
					 : PROBE_AGREE_MISMATCH;
}

enum probe_agree probe_compare(double measured, double sysfs, double max_size)
{
	return probe_compare_tol(measured, sysfs, max_size, 0.25);
}

/* ---- the sweep's decision ---- */

double probe_sysfs_size(const struct probe_result *r, int level)
{
	for (int i = 0; i < r->nsysfs; i++)
		if (r->sysfs[i].level == level)
			return r->sysfs[i].size;
	return 0;
}

/* Rounds at the step @b (within its window lo..hi): how many cross within 15% of @b->size on
 * their own, and where the minimum curves of the even and of the odd rounds cross (two
 * independent halves). The level is unstable when the halves lie more than 15% apart. */
static void round_agreement(const struct probe_result *r, const double *samp, int rounds,
			    const struct probe_bound *b, int lo, int hi, struct probe_level *lv)
{
	int n = r->npoints;
	double sz[256], half[2][256], mid = sqrt(b->below_ns * b->above_ns);

	for (int k = 0; k < n; k++) {
		sz[k] = r->points[k].size;
		half[0][k] = half[1][k] = NAN;
	}
	for (int q = 0; q < rounds; q++) {
		const double *row = &samp[q * n];
		int have = 0;
		for (int k = lo; k <= hi; k++)
			if (row[k] > 0) {
				have++;
				double *h = &half[q % 2][k];
				*h = *h > 0 ? fmin(*h, row[k]) : row[k];
			}
		if (have < 3)
			continue;
		lv->rounds_used++;
		double c = probe_crossing(sz, row, lo, hi, mid, NULL);
		if (!isnan(c) && fabs(log(c / b->size)) <= log(1.15))
			lv->rounds_agree++;
	}
	double c0 = probe_crossing(sz, half[0], lo, hi, mid, NULL);
	double c1 = probe_crossing(sz, half[1], lo, hi, mid, NULL);
	double all[256];
	int wrong;
	for (int k = 0; k < n; k++)
		all[k] = r->points[k].ns;
	probe_crossing(sz, all, lo, hi, mid, &wrong);
	lv->noisy_points = wrong;
	lv->round_min = isnan(c0) || isnan(c1) ? 0 : fmin(c0, c1);
	lv->round_max = isnan(c0) || isnan(c1) ? 0 : fmax(c0, c1);
	lv->unstable = rounds >= 2 && (!(lv->round_min > 0) || wrong > 0 ||
				       fabs(log(lv->round_max / lv->round_min)) > log(1.15));
}

int probe_decide_sizes(struct probe_result *r, const double *samp, int rounds, int *win_lo,
		       int *win_hi)
{
	int n = r->npoints, nunstable = 0;
	double lat[256], sz[256], col[PROBE_MAX_ROUNDS], spread[256];
	char a[32], b[32], c[32], e[32];

	r->nlevels = 0;
	r->mem_ns = 0;
	r->warning[0] = 0;
	memset(&r->detect, 0, sizeof(r->detect));
	r->detect.open_from = -1;
	if (n > 256 || rounds > PROBE_MAX_ROUNDS)
		return 0;
	for (int k = 0; k < n; k++) {
		int m = 0;
		double lo = INFINITY;
		for (int q = 0; q < rounds; q++)
			if (samp[q * n + k] > 0) {
				col[m++] = samp[q * n + k];
				lo = fmin(lo, samp[q * n + k]);
			}
		double med = median(col, m);
		for (int q = 0; q < m; q++)
			col[q] = fabs(log(col[q] / med));
		spread[k] = m ? median(col, m) : 0;
		r->points[k].ns = m ? lo : NAN;
		r->points[k].spread = spread[k];
		lat[k] = r->points[k].ns;
		sz[k] = r->points[k].size;
	}
	if (probe_fit_levels(sz, lat, n, &r->detect) < 0)
		return 0;

	const struct probe_detect *d = &r->detect;
	double largest_sysfs = 0;
	for (int i = 0; i < r->nsysfs; i++)
		largest_sysfs = fmax(largest_sysfs, r->sysfs[i].size);
	bool covers = largest_sysfs > 0 ? r->max_size >= 2 * largest_sysfs
					: r->max_size >= 64.0 * 1024 * 1024;
	bool memory = d->nbounds > 0 && d->tail_flat && covers;
	int bound_of[PROBE_MAX_LEVELS];
	int nmapped = probe_assign_levels(d, bound_of, PROBE_MAX_LEVELS);
	int nl = nmapped;
	for (int i = 0; i < r->nsysfs; i++)
		if (r->sysfs[i].level > nl)
			nl = r->sysfs[i].level;
	if (!memory && d->nbounds > 0 && r->nsysfs == 0 && nl < nmapped + 1)
		nl = nmapped + 1; /* without sysfs, the plateau after the last step is a level */
	if (nl > PROBE_MAX_LEVELS)
		nl = PROBE_MAX_LEVELS;
	r->nlevels = nl;
	for (int L = 1; L <= nl; L++) {
		struct probe_level *lv = &r->levels[L - 1];
		memset(lv, 0, sizeof(*lv));
		lv->level = L;
		lv->plateau_from = lv->plateau_to = -1;
		lv->sysfs_size = probe_sysfs_size(r, L);
		for (int i = 0; i < r->nsysfs; i++)
			if (r->sysfs[i].level == L)
				lv->sysfs_line = r->sysfs[i].line;
		int k = L <= nmapped ? bound_of[L - 1] : -2;
		if (k >= 0) {
			const struct probe_bound *bd = &d->b[k];
			lv->hit_ns = bd->below_ns;
			lv->plateau_from = bd->below_from;
			lv->plateau_to = bd->lo;
			lv->confidence = bd->confidence;
			if (lv->confidence >= 0.5)
				lv->size = bd->size;
			/* the step and up to an octave of each plateau */
			int lo = bd->lo - 8 > bd->below_from ? bd->lo - 8 : bd->below_from;
			int hi = bd->hi + 8 < bd->above_to ? bd->hi + 8 : bd->above_to;
			round_agreement(r, samp, rounds, bd, lo, hi, lv);
			if (lv->unstable) {
				if (win_lo)
					win_lo[nunstable] = lo;
				if (win_hi)
					win_hi[nunstable] = hi;
				nunstable++;
			}
		} else if (k == -2 && L == nmapped + 1 && d->nbounds > 0 && !memory) {
			const struct probe_bound *bd = &d->b[d->nbounds - 1];
			lv->hit_ns = bd->above_ns;
			lv->plateau_from = bd->hi;
			lv->plateau_to = bd->above_to;
		}
		double tol = probe_level_tolerance(L);
		lv->agree = probe_compare_tol(lv->size, lv->sysfs_size, r->max_size, tol);
		if (lv->agree == PROBE_AGREE_NEAR || lv->agree == PROBE_AGREE_MISMATCH) {
			const struct probe_bound *bd = &d->b[k];
			snprintf(lv->evidence, sizeof(lv->evidence),
				 "disagrees with sysfs %s by more than %.0f%% (evidence: plateau "
				 "%.2f ns from %s to %s, step to %.2f ns at %s; %d/%d rounds "
				 "within 15%%)",
				 probe_format_size(lv->sysfs_size, a, sizeof(a)), tol * 100,
				 bd->below_ns, probe_format_size(sz[bd->below_from], b, sizeof(b)),
				 probe_format_size(sz[bd->lo], c, sizeof(c)), bd->above_ns,
				 probe_format_size(bd->size, e, sizeof(e)), lv->rounds_agree,
				 lv->rounds_used);
		} else if (lv->agree == PROBE_AGREE_NOTFOUND) {
			if (k >= 0)
				snprintf(lv->evidence, sizeof(lv->evidence),
					 "not found (evidence: step at %s has confidence %.2f)",
					 probe_format_size(d->b[k].size, a, sizeof(a)),
					 lv->confidence);
			else
				snprintf(lv->evidence, sizeof(lv->evidence),
					 "not found (evidence: %d step(s) of at least %.1fx in "
					 "%s..%s)",
					 d->nbounds, d->jump_min,
					 probe_format_size(sz[0], a, sizeof(a)),
					 probe_format_size(sz[n - 1], b, sizeof(b)));
		}
	}
	if (memory) {
		r->mem_ns = d->last_ns;
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "last plateau, beyond every cache level");
	} else if (d->open_from >= 0) {
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "not found: latency still rising at the end (from %s, x%.1f)",
			 probe_format_size(sz[d->open_from], a, sizeof(a)), d->open_ratio);
	} else if (!covers) {
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "not found: range ends below 2x the largest cache");
	} else {
		snprintf(r->mem_note, sizeof(r->mem_note),
			 "not found: the curve does not end on a plateau");
	}
	/* Estimated L1 misses per load from the seed formula, between the L1 and L2 plateaus. */
	int nb = d->nbounds;
	double h1 = nb >= 1 ? d->b[0].below_ns : 0, h2 = nb >= 1 ? d->b[0].above_ns : 0;
	for (int k = 0; k < n; k++) {
		struct probe_point *pt = &r->points[k];
		if (!(h2 > h1))
			pt->miss_est = NAN;
		else if (nb >= 2 && pt->size > d->b[1].size)
			pt->miss_est = 1;
		else
			pt->miss_est = fmin(1, fmax(0, (pt->ns - h1) / (h2 - h1)));
	}
	int w = 0;
	for (int L = 1; L <= nl; L++) {
		const struct probe_level *lv = &r->levels[L - 1];
		if (lv->unstable && w < (int)sizeof(r->warning) - 60)
			w += snprintf(
			    r->warning + w, sizeof(r->warning) - (size_t)w,
			    "%sL%d unstable (halves of the rounds cross at %s and %s)",
			    w ? "; " : "", L,
			    lv->round_min > 0 ? probe_format_size(lv->round_min, a, sizeof(a))
					      : "-",
			    lv->round_max > 0 ? probe_format_size(lv->round_max, b, sizeof(b))
					      : "-");
	}
	return nunstable;
}

/* ---- cycle rate cross-check ---- */

double probe_clock_check(double chain_ghz, const struct probe_clock_ref *ref, char *why, size_t len)
{
	double hi = 0; /* the highest clock the system reports, GHz */
	const char *src = "";
	if (ref && ref->max_mhz > 0)
		hi = ref->max_mhz / 1e3, src = "cpufreq cpuinfo_max_freq";
	if (ref && ref->cur_mhz / 1e3 > hi)
		hi = ref->cur_mhz / 1e3, src = "cpufreq scaling_cur_freq";
	if (ref && ref->cpuinfo_mhz / 1e3 > hi)
		hi = ref->cpuinfo_mhz / 1e3, src = "/proc/cpuinfo cpu MHz";
	if (!(chain_ghz > 0) || !isfinite(chain_ghz)) {
		snprintf(why, len, "not measured");
		return 0;
	}
	if (hi <= 0) {
		if (chain_ghz < 0.02 || chain_ghz > 7) {
			snprintf(why, len, "timing chain gave %.2f GHz, no core runs at that",
				 chain_ghz);
			return 0;
		}
		snprintf(why, len, "dependent-add chain, no cpufreq or cpu MHz to check it");
		return chain_ghz;
	}
	if (chain_ghz > hi * 1.15 || chain_ghz < hi / 5) {
		snprintf(why, len, "timing chain gave %.2f GHz, %s says %.2f GHz: not trusted",
			 chain_ghz, src, hi);
		return 0;
	}
	snprintf(why, len, "dependent-add chain, within %s %.2f GHz", src, hi);
	return chain_ghz;
}

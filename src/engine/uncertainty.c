/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uncertainty.c: error bars from one run: each extrapolated count's standard error and its first
 * order propagation through the mode's formulas, per refresh window. */
#include "uncertainty.h"
#include "frame.h"
#include "observer.h"
#include "rows.h"
#include "run_options.h"
#include "session.h"
#include "source.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The model (docs/uncertainty.md). Each sample tick i of a CPU has two parts: the part its
 * counters ran (a fraction f of the tick) and the rest. Each part has a rate per event, drawn
 * afresh per tick with the same covariance S between events (events/s squared). A count that ran
 * the whole tick is exact. A kernel-multiplexed count is scaled from the first part: its error is
 * (1 - f) dt (a_i - b_i). A rotated count carries the rate of the tick j it was last measured in:
 * its error is dt (a_j - f a_i - (1 - f) b_i). A window's value is the sum over its ticks, so its
 * error is a linear combination of the parts' rates: we keep the coefficients, and the variance
 * of a count is S_ee times their sum of squares; the covariance of two counts is S_ab times their
 * dot product. S is estimated from the measured ticks (exponentially weighted, about the last 32),
 * a pair's S_ab only from ticks both were measured in; a pair never measured together gets 0
 * (independent, no cancelling), and two kernel-multiplexed counts that ran for different times
 * get the worst case (their errors may have opposite signs). A metric's variance is g' C g, g the
 * formula's numerical derivative (central differences) at the window's counts: first order.
 */

#define UNC_MIN_N 8	  /* measured ticks before a rate's variance is trusted */
#define UNC_MEMORY 32.0	  /* ticks: the weight of the variance estimate's window */
#define UNC_POSITIONS 257 /* slot 0 (a source before the window) + 256 ticks, then folded */

struct unc {
	bool on, truth_on;
	int nrows, nevents, nmetrics, npairs;
	int *pair_of;	 /* [a * nevents + b]: pair index, -1 none */
	int (*pairs)[2]; /* [p]: its events, a < b */
	/* rate statistics per (row, event) and (row, pair) */
	double *mu, *var, *cov;
	double *pvar; /* [(row * npairs + p) * 2 + k]: pair p's k-th event's variance over the
		       * ticks both were measured in (its covariance's own ticks) */
	int *n, *npn;
	/* the open window */
	int pos;
	double *coef_a; /* [(row * nevents + e) * UNC_POSITIONS + pos] */
	double *dot_a, *dot_b, *dot_ap, *dot_bp;
	bool *split; /* [row * npairs + p] */
	int *src;    /* [row * nevents + e]: position of the tick its carried rate is from, -1 */
	long long ticks;     /* ticks seen */
	long long *src_tick; /* [row * nevents + e]: the tick its carried rate is from, -1 */
	long long *tick0;    /* ... and the tick of its slot 0 (a rate carried into the window):
			      * two events' slot 0 are the same rate only if they are equal */
	double *truth;
	bool have_truth;
	/* scratch for a frame: [(row) * n...], the total row last */
	double *var_e, *cov_p, *tc;
	bool *seen;	 /* [row * nevents + e]: counted in a tick of the window (an online row) */
	double *ov, *oc; /* the frame's rows (summed by core...), the all row last: variances [e],
			  * covariances [p] */
	bool *os;	 /* ... pairs that ran for different times [p] */
	int *oncpus;	 /* [row]: the CPUs of each of the frame's rows */
	struct count *tcounts;
};

__attribute__((cold)) static void unc_free_layout(struct unc *u)
{
	free(u->pair_of);
	free(u->pairs);
	free(u->mu);
	free(u->var);
	free(u->cov);
	free(u->pvar);
	free(u->n);
	free(u->npn);
	free(u->coef_a);
	free(u->dot_a);
	free(u->dot_b);
	free(u->dot_ap);
	free(u->dot_bp);
	free(u->split);
	free(u->src);
	free(u->src_tick);
	free(u->tick0);
	free(u->truth);
	free(u->var_e);
	free(u->cov_p);
	free(u->tc);
	free(u->seen);
	free(u->ov);
	free(u->oc);
	free(u->os);
	free(u->oncpus);
	free(u->tcounts);
	bool on = u->on, truth = u->truth_on;
	*u = (struct unc){.on = on, .truth_on = truth};
}

/* A rate carried into a new window (or past a fold) is from before it: slot 0, which keeps the
 * tick it is from. */
static void carry_in(struct unc *u)
{
	for (size_t i = 0; i < (size_t)u->nrows * u->nevents; i++)
		if (u->src[i] >= 0) {
			u->src[i] = 0;
			u->tick0[i] = u->src_tick[i];
		}
	u->pos = 0;
}

__attribute__((cold)) static void window_reset(struct unc *u)
{
	size_t cells = (size_t)u->nrows * u->nevents, pc = (size_t)u->nrows * u->npairs;
	memset(u->coef_a, 0, cells * UNC_POSITIONS * sizeof(double));
	memset(u->dot_a, 0, cells * sizeof(double));
	memset(u->dot_b, 0, cells * sizeof(double));
	memset(u->dot_ap, 0, pc * sizeof(double));
	memset(u->dot_bp, 0, pc * sizeof(double));
	memset(u->split, 0, pc * sizeof(bool));
	memset(u->truth, 0, cells * sizeof(double));
	memset(u->seen, 0, cells * sizeof(bool));
	u->have_truth = false;
	carry_in(u);
}

static int unc_layout(struct unc *u, const struct snapshot *s)
{
	unc_free_layout(u);
	int ne = s->nevents, nr = s->nrows;
	u->nrows = nr, u->nevents = ne, u->nmetrics = s->nmetrics;
	u->pair_of = malloc(((size_t)ne * ne + 1) * sizeof(int));
	u->pairs = malloc(((size_t)ne * ne + 1) * sizeof(*u->pairs));
	if (!u->pair_of || !u->pairs)
		return -1;
	for (int i = 0; i < ne * ne; i++)
		u->pair_of[i] = -1;
	/* the pairs that are inputs of one metric: their covariance is needed */
	for (int m = 0; m < s->nmetrics; m++) {
		const struct session_metric *sm = &s->metrics[m];
		for (int k = 0; k < sm->ninputs; k++)
			for (int l = k + 1; l < sm->ninputs; l++) {
				int a = sm->inputs[k], b = sm->inputs[l];
				if (a == b || a < 0 || b < 0 || a >= ne || b >= ne)
					continue;
				if (a > b) {
					int t = a;
					a = b, b = t;
				}
				if (u->pair_of[a * ne + b] >= 0)
					continue;
				u->pair_of[a * ne + b] = u->pair_of[b * ne + a] = u->npairs;
				u->pairs[u->npairs][0] = a, u->pairs[u->npairs][1] = b;
				u->npairs++;
			}
	}
	size_t cells = (size_t)nr * ne + 1, pc = (size_t)nr * u->npairs + 1;
	size_t tcells = ((size_t)nr + 1) * ne + 1, tpc = ((size_t)nr + 1) * u->npairs + 1;
	u->mu = calloc(cells, sizeof(double));
	u->var = calloc(cells, sizeof(double));
	u->n = calloc(cells, sizeof(int));
	u->cov = calloc(pc, sizeof(double));
	u->npn = calloc(pc, sizeof(int));
	u->pvar = calloc(pc * 2, sizeof(double));
	u->coef_a = calloc(cells * UNC_POSITIONS, sizeof(double));
	u->dot_a = calloc(cells, sizeof(double));
	u->dot_b = calloc(cells, sizeof(double));
	u->dot_ap = calloc(pc, sizeof(double));
	u->dot_bp = calloc(pc, sizeof(double));
	u->split = calloc(pc, sizeof(bool));
	u->src = malloc(cells * sizeof(int));
	u->src_tick = malloc(cells * sizeof(long long));
	u->tick0 = malloc(cells * sizeof(long long));
	u->truth = calloc(cells, sizeof(double));
	u->var_e = calloc(tcells, sizeof(double));
	u->cov_p = calloc(tpc, sizeof(double));
	u->tc = calloc(tcells, sizeof(double));
	u->seen = calloc(tcells, sizeof(bool));
	u->ov = calloc(tcells, sizeof(double));
	u->oc = calloc(tpc, sizeof(double));
	u->os = calloc(tpc, sizeof(bool));
	u->oncpus = calloc((size_t)nr + 1, sizeof(int));
	u->tcounts = calloc(tcells, sizeof(struct count));
	if (!u->mu || !u->var || !u->n || !u->cov || !u->npn || !u->coef_a || !u->dot_a ||
	    !u->dot_b || !u->dot_ap || !u->dot_bp || !u->split || !u->src || !u->truth ||
	    !u->var_e || !u->cov_p || !u->tc || !u->tcounts || !u->pvar || !u->seen || !u->ov ||
	    !u->oc || !u->os || !u->oncpus || !u->src_tick || !u->tick0) {
		unc_free_layout(u);
		return -1;
	}
	for (size_t i = 0; i < cells; i++) {
		u->src[i] = -1;
		u->src_tick[i] = u->tick0[i] = -1;
	}
	return 0;
}

/* The window's coefficients on the counted parts so far go into the dot products (at the end of
 * a window, or when a long window fills the positions: a rate carried across the fold then counts
 * as a new one, a slight underestimate). */
static void flush_a(struct unc *u)
{
	int ne = u->nevents;
	for (int r = 0; r < u->nrows; r++) {
		for (int e = 0; e < ne; e++) {
			const double *c = &u->coef_a[((size_t)r * ne + e) * UNC_POSITIONS];
			double d = 0;
			for (int k = 0; k <= u->pos; k++)
				d += c[k] * c[k];
			u->dot_a[r * ne + e] += d;
		}
		for (int p = 0; p < u->npairs; p++) {
			const double *ca =
			    &u->coef_a[((size_t)r * ne + u->pairs[p][0]) * UNC_POSITIONS];
			const double *cb =
			    &u->coef_a[((size_t)r * ne + u->pairs[p][1]) * UNC_POSITIONS];
			/* slot 0: the same rate only if both were carried in from the same tick */
			long long ta = u->tick0[(size_t)r * ne + u->pairs[p][0]],
				  tb = u->tick0[(size_t)r * ne + u->pairs[p][1]];
			double d = 0;
			for (int k = ta >= 0 && ta == tb ? 0 : 1; k <= u->pos; k++)
				d += ca[k] * cb[k];
			u->dot_ap[r * u->npairs + p] += d;
		}
	}
	memset(u->coef_a, 0, (size_t)u->nrows * ne * UNC_POSITIONS * sizeof(double));
	carry_in(u);
}

static double weight(int n) { return n < UNC_MEMORY ? 1.0 / (n + 1) : 1.0 / UNC_MEMORY; }

static bool counted(enum count_state st) { return st == COUNT_OK || st == COUNT_SCALED; }

static void on_tick(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	struct unc *u = o->state;
	if (!u->on && !u->truth_on)
		return;
	struct run_facts facts;
	app_facts(app, &facts);
	if (!facts.session)
		return;
	if (!u->mu || snap->nrows != u->nrows || snap->nevents != u->nevents ||
	    snap->nmetrics != u->nmetrics) {
		if (unc_layout(u, snap) < 0) {
			app_log(app, MSG_ERROR, "error bars: out of memory");
			u->on = u->truth_on = false;
			return;
		}
	}
	struct session_raw raw;
	session_raw(facts.session, &raw);
	if (raw.nrows != u->nrows || raw.nevents != u->nevents)
		return;
	const double *truth = NULL;
	if (u->truth_on && sim_truth(session_backend(facts.session), &truth) == 0)
		u->have_truth = true;
	if (u->pos + 1 >= UNC_POSITIONS)
		flush_a(u);
	int pos = ++u->pos, ne = u->nevents;
	long long now = u->ticks++;
	double dt = snap->interval_s;
	double fe[ne > 0 ? ne : 1], bc[ne > 0 ? ne : 1], rate[ne > 0 ? ne : 1];
	uint64_t run[ne > 0 ? ne : 1];
	bool meas[ne > 0 ? ne : 1], ok[ne > 0 ? ne : 1];
	for (int r = 0; r < u->nrows; r++) {
		if (snap->offline[r])
			continue;
		double fr = 0;
		bool any = false;
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			const struct count *c = &snap->counts[i];
			ok[e] = counted(c->state);
			u->seen[i] |= ok[e];
			double age = snap->event_age ? snap->event_age[i] : 0;
			uint64_t den = raw.cur[i].enabled >= raw.prev[i].enabled
					   ? raw.cur[i].enabled - raw.prev[i].enabled
					   : 0;
			run[e] = raw.cur[i].running >= raw.prev[i].running
				     ? raw.cur[i].running - raw.prev[i].running
				     : 0;
			meas[e] = ok[e] && age == 0 && run[e] > 0 && den > 0;
			fe[e] = meas[e] ? fmin(1.0, (double)run[e] / (double)den) : 0;
			rate[e] = ok[e] && dt > 0 ? c->value / dt : 0;
			if (meas[e]) {
				fr = fmax(fr, fe[e]);
				any = true;
			}
			if (truth)
				u->truth[i] += truth[i];
		}
		if (!any)
			fr = 1;
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			double *ca = &u->coef_a[i * UNC_POSITIONS];
			bc[e] = 0;
			if (!ok[e])
				continue;
			if (meas[e]) {
				ca[pos] += (1 - fe[e]) * dt;
				bc[e] = -(1 - fe[e]) * dt;
				u->src[i] = pos;
				u->src_tick[i] = now;
			} else {
				if (u->src[i] < 0)
					u->src[i] =
					    0; /* carried from before these statistics began */
				ca[u->src[i]] += dt;
				ca[pos] -= fr * dt;
				bc[e] = -(1 - fr) * dt;
			}
			u->dot_b[i] += bc[e] * bc[e];
		}
		/* pairs first: their deviations are from the means before this tick */
		for (int p = 0; p < u->npairs; p++) {
			int a = u->pairs[p][0], b = u->pairs[p][1];
			size_t pi = (size_t)r * u->npairs + p;
			u->dot_bp[pi] += bc[a] * bc[b];
			if (meas[a] && meas[b] && (fe[a] < 1 || fe[b] < 1) && run[a] != run[b])
				u->split[pi] = true;
			if (meas[a] && meas[b]) {
				double w = weight(u->npn[pi]);
				double da = rate[a] - u->mu[r * ne + a],
				       db = rate[b] - u->mu[r * ne + b];
				u->cov[pi] = (1 - w) * (u->cov[pi] + w * da * db);
				u->pvar[pi * 2] = (1 - w) * (u->pvar[pi * 2] + w * da * da);
				u->pvar[pi * 2 + 1] = (1 - w) * (u->pvar[pi * 2 + 1] + w * db * db);
				u->npn[pi]++;
			}
		}
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			if (!meas[e])
				continue;
			double w = weight(u->n[i]), d = rate[e] - u->mu[i];
			if (u->n[i] == 0) {
				u->mu[i] = rate[e];
				u->var[i] = 0;
			} else {
				u->mu[i] += w * d;
				u->var[i] = (1 - w) * (u->var[i] + w * d * d);
			}
			u->n[i]++;
		}
	}
}

/* d value / d count of event @e of row @r at the window's counts (central differences). */
static double derivative(const struct snapshot *s, const struct metric_program *prog, int r, int m,
			 int e, double x)
{
	double h = fmax(fabs(x) * 1e-6, 1e-3);
	double hi = snapshot_metric_with(s, prog, r, m, e, h);
	double lo = x - h >= 0 ? snapshot_metric_with(s, prog, r, m, e, -h) : NAN;
	if (isfinite(hi) && isfinite(lo))
		return (hi - lo) / (2 * h);
	double v = snapshot_metric_with(s, prog, r, m, -1, 0);
	if (isfinite(hi) && isfinite(v))
		return (hi - v) / h;
	if (isfinite(lo) && isfinite(v))
		return (v - lo) / h;
	return NAN;
}

/* The variance of metric @m of row @r from its inputs' (co)variances. */
/* @var: the row's counts' variances [e], @cov: its pairs' covariances [p], @split: pairs that ran
 * for different times [p]. */
static double metric_variance(struct unc *u, const struct snapshot *s,
			      const struct metric_program *prog, int r, int m,
			      const double *var_row, const double *cov, const bool *split)
{
	const struct session_metric *sm = &s->metrics[m];
	const struct count *counts = r == s->nrows ? s->total_counts : &s->counts[r * s->nevents];
	int ne = u->nevents;
	double g[8], v[8];
	int ev[8], k = 0;
	for (int j = 0; j < sm->ninputs && j < 8; j++) {
		int e = sm->inputs[j];
		if (e < 0 || e >= ne || !counted(counts[e].state))
			continue;
		double var = var_row[e];
		if (var == 0)
			continue; /* exact: no term */
		double d = derivative(s, prog, r, m, e, counts[e].value);
		if (d == 0)
			continue;
		if (!isfinite(d) || !isfinite(var))
			return NAN;
		g[k] = d, v[k] = var, ev[k] = e;
		k++;
	}
	double total = 0;
	for (int a = 0; a < k; a++) {
		total += g[a] * g[a] * v[a];
		for (int b = a + 1; b < k; b++) {
			int p = u->pair_of[ev[a] * ne + ev[b]];
			if (p < 0)
				continue;
			if (split[p])
				total += 2 * fabs(g[a] * g[b]) * sqrt(v[a] * v[b]);
			else
				total += 2 * g[a] * g[b] * cov[p];
		}
	}
	return total > 0 ? total : 0;
}

static void fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
		       struct frame_store *fs)
{
	struct unc *u = o->state;
	if ((!u->on && !u->truth_on) || !u->mu)
		return;
	struct run_facts facts;
	app_facts(app, &facts);
	if (!f->snap || f->snap->nrows > u->nrows) {
		window_reset(u);
		return;
	}
	/* the frame's snapshot with its rows' CPUs (the frame keeps them in row_keys): what a
	 * metric per CPU (ghz) divides by */
	struct snapshot sv = *f->snap;
	const struct snapshot *s = &sv;
	if (f->row_keys) {
		for (int r = 0; r < sv.nrows; r++)
			u->oncpus[r] = f->row_keys[r].kind == ROWS_TASK ? 1 : f->row_keys[r].ncpus;
		sv.row_ncpus = u->oncpus;
	}
	/* rows summed by core, socket, task, cgroup: the per-CPU rows each went into */
	const int *group = f->row_keys ? app_rows_group_of(app) : NULL;
	int nr = u->nrows, ne = u->nevents, nm = u->nmetrics, np = u->npairs;
	int ng = s ? s->nrows : 0; /* the frame's rows, its all row at ng */
	if (!s || !facts.session || (f->row_keys && !group) || (!group && ng != nr) || ng > nr ||
	    s->nevents != ne || s->nmetrics != nm) {
		window_reset(u); /* not the rows these statistics are kept for */
		return;
	}
	for (int r = 0; group && r < nr; r++)
		if (group[r] < 0 || group[r] >= ng) {
			window_reset(u);
			return;
		}
	const struct metric_program *prog = session_snapshot(facts.session)->program;
	flush_a(u);
	for (int r = 0; r < nr; r++) {
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			double dot = u->dot_a[i] + u->dot_b[i];
			u->var_e[i] = dot == 0 ? 0 : u->n[i] >= UNC_MIN_N ? u->var[i] * dot : NAN;
		}
		for (int p = 0; p < np; p++) {
			size_t pi = (size_t)r * np + p;
			int a = u->pairs[p][0], b = u->pairs[p][1];
			double dot = u->dot_ap[pi] + u->dot_bp[pi];
			/* each event's own variance: from all the ticks it was measured in */
			double sa = sqrt(u->var[(size_t)r * ne + a]),
			       sb = sqrt(u->var[(size_t)r * ne + b]);
			double pa = u->pvar[pi * 2], pb = u->pvar[pi * 2 + 1];
			u->cov_p[pi] = 0;
			/* the correlation from the ticks both were measured in, scaled to the
			 * events' own variances: C stays positive semi-definite however few ticks
			 * the pair shares. Never measured together: independent. */
			if (u->npn[pi] >= UNC_MIN_N && pa > 0 && pb > 0)
				u->cov_p[pi] = u->cov[pi] / sqrt(pa * pb) * sa * sb * dot;
		}
	}
	/* the frame's rows (and the all row) add their CPUs' counts: the CPUs' errors are
	 * independent, so their variances and covariances add */
	double *ov = u->ov, *oc = u->oc;
	bool *os = u->os;
	memset(ov, 0, (size_t)(ng + 1) * ne * sizeof(double));
	memset(oc, 0, (size_t)(ng + 1) * np * sizeof(double));
	memset(os, 0, (size_t)(ng + 1) * np * sizeof(bool));
	for (int r = 0; r < nr; r++) {
		int g = group ? group[r] : r;
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			if (!u->seen[i])
				continue;
			ov[(size_t)g * ne + e] += u->var_e[i];
			ov[(size_t)ng * ne + e] += u->var_e[i];
		}
		for (int p = 0; p < np; p++) {
			size_t pi = (size_t)r * np + p;
			if (!u->seen[(size_t)r * ne + u->pairs[p][0]] ||
			    !u->seen[(size_t)r * ne + u->pairs[p][1]])
				continue;
			oc[(size_t)g * np + p] += u->cov_p[pi];
			oc[(size_t)ng * np + p] += u->cov_p[pi];
			os[(size_t)g * np + p] |= u->split[pi];
			os[(size_t)ng * np + p] |= u->split[pi];
		}
	}
	struct frame_cols cols;
	frame_store_cols(fs, &cols);
	for (int r = 0; r <= ng; r++) {
		const struct count *counts = r == ng ? s->total_counts : &s->counts[r * ne];
		for (int e = 0; e < ne; e++) {
			double var = ov[(size_t)r * ne + e];
			cols.err_counts[(size_t)r * ne + e] =
			    counted(counts[e].state) ? UNCERTAINTY_Z * sqrt(var) : NAN;
		}
		const double *values = r == ng ? s->total_values : &s->values[r * nm];
		for (int m = 0; m < nm; m++) {
			double v = isfinite(values[m])
				       ? metric_variance(u, s, prog, r, m, &ov[(size_t)r * ne],
							 &oc[(size_t)r * np], &os[(size_t)r * np])
				       : NAN;
			cols.err[(size_t)r * nm + m] = UNCERTAINTY_Z * sqrt(v);
		}
	}
	if (u->on) {
		f->err = cols.err;
		f->err_counts = cols.err_counts;
	}
	if (u->truth_on && u->have_truth) {
		/* the true counts summed as the window's and the rows', and the metrics over them
		 */
		struct snapshot t = *s;
		struct count *tcounts = u->tcounts, *ttotal = &u->tcounts[(size_t)ng * ne];
		for (int i = 0; i < (ng + 1) * ne; i++) {
			bool total = i >= ng * ne;
			const struct count *c =
			    total ? &s->total_counts[i - ng * ne] : &s->counts[i];
			tcounts[i] = *c;
			tcounts[i].value = 0;
		}
		for (int r = 0; r < nr; r++)
			for (int e = 0; e < ne; e++) {
				size_t i = (size_t)r * ne + e;
				if (!u->seen[i])
					continue;
				tcounts[(size_t)(group ? group[r] : r) * ne + e].value +=
				    u->truth[i];
				ttotal[e].value += u->truth[i];
			}
		for (int i = 0; i < (ng + 1) * ne; i++)
			cols.truth_counts[i] = counted(tcounts[i].state) ? tcounts[i].value : NAN;
		t.counts = tcounts;
		t.total_counts = ttotal;
		for (int r = 0; r <= ng; r++)
			for (int m = 0; m < nm; m++)
				cols.truth[(size_t)r * nm + m] =
				    snapshot_metric_with(&t, prog, r, m, -1, 0);
		f->truth = cols.truth;
		f->truth_counts = cols.truth_counts;
	}
	window_reset(u);
}

static void on_mode(struct observer *o, struct app_ctx *app)
{
	(void)app;
	unc_free_layout(o->state);
}

static void on_close(struct observer *o, struct app_ctx *app)
{
	(void)app;
	unc_free_layout(o->state);
	free(o->state);
	o->state = NULL;
}

int uncertainty_attach(struct app_ctx *app, bool on, char *err, size_t errlen)
{
	struct unc *u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct run_facts facts;
	app_facts(app, &facts);
	u->on = on;
	u->truth_on = facts.opt && facts.opt->sim.truth && facts.caps & SOURCE_CAP_SIMULATED;
	struct observer o = {.name = "uncertainty",
			     .state = u,
			     .on_tick = on_tick,
			     .on_mode = on_mode,
			     .fill_frame = fill_frame,
			     .close = on_close};
	if (!app_observe(app, &o)) {
		free(u);
		snprintf(err, errlen, "error bars: cannot register the observer");
		return -1;
	}
	return 0;
}

int uncertainty_set(struct app_ctx *app, bool on, char *err, size_t errlen)
{
	struct unc *u = app_observer_state(app, "uncertainty");
	if (!u) {
		snprintf(err, errlen, "error bars are not available in this run");
		return -1;
	}
	u->on = on;
	return 0;
}

bool uncertainty_on(const struct app_ctx *app)
{
	const struct unc *u = app_observer_state(app, "uncertainty");
	return u && u->on;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uncertainty.c: error bars from one run: each extrapolated count's standard error and its first
 * order propagation through the mode's formulas, per refresh window. */
#include "uncertainty.h"
#include "frame.h"
#include "observer.h"
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
	int *n, *npn;
	/* the open window */
	int pos;
	double *coef_a; /* [(row * nevents + e) * UNC_POSITIONS + pos] */
	double *dot_a, *dot_b, *dot_ap, *dot_bp;
	bool *split; /* [row * npairs + p] */
	int *src;    /* [row * nevents + e]: position of the tick its carried rate is from, -1 */
	double *truth;
	bool have_truth;
	/* scratch for a frame: [(row) * n...], the total row last */
	double *var_e, *cov_p, *tc;
	struct count *tcounts;
};

static void unc_free_layout(struct unc *u)
{
	free(u->pair_of);
	free(u->pairs);
	free(u->mu);
	free(u->var);
	free(u->cov);
	free(u->n);
	free(u->npn);
	free(u->coef_a);
	free(u->dot_a);
	free(u->dot_b);
	free(u->dot_ap);
	free(u->dot_bp);
	free(u->split);
	free(u->src);
	free(u->truth);
	free(u->var_e);
	free(u->cov_p);
	free(u->tc);
	free(u->tcounts);
	bool on = u->on, truth = u->truth_on;
	*u = (struct unc){.on = on, .truth_on = truth};
}

static void window_reset(struct unc *u)
{
	size_t cells = (size_t)u->nrows * u->nevents, pc = (size_t)u->nrows * u->npairs;
	memset(u->coef_a, 0, cells * UNC_POSITIONS * sizeof(double));
	memset(u->dot_a, 0, cells * sizeof(double));
	memset(u->dot_b, 0, cells * sizeof(double));
	memset(u->dot_ap, 0, pc * sizeof(double));
	memset(u->dot_bp, 0, pc * sizeof(double));
	memset(u->split, 0, pc * sizeof(bool));
	memset(u->truth, 0, cells * sizeof(double));
	u->have_truth = false;
	/* a rate carried into the new window is from before it: slot 0 */
	for (size_t i = 0; i < cells; i++)
		if (u->src[i] >= 0)
			u->src[i] = 0;
	u->pos = 0;
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
	u->coef_a = calloc(cells * UNC_POSITIONS, sizeof(double));
	u->dot_a = calloc(cells, sizeof(double));
	u->dot_b = calloc(cells, sizeof(double));
	u->dot_ap = calloc(pc, sizeof(double));
	u->dot_bp = calloc(pc, sizeof(double));
	u->split = calloc(pc, sizeof(bool));
	u->src = malloc(cells * sizeof(int));
	u->truth = calloc(cells, sizeof(double));
	u->var_e = calloc(tcells, sizeof(double));
	u->cov_p = calloc(tpc, sizeof(double));
	u->tc = calloc(tcells, sizeof(double));
	u->tcounts = calloc(tcells, sizeof(struct count));
	if (!u->mu || !u->var || !u->n || !u->cov || !u->npn || !u->coef_a || !u->dot_a ||
	    !u->dot_b || !u->dot_ap || !u->dot_bp || !u->split || !u->src || !u->truth ||
	    !u->var_e || !u->cov_p || !u->tc || !u->tcounts) {
		unc_free_layout(u);
		return -1;
	}
	for (size_t i = 0; i < cells; i++)
		u->src[i] = -1;
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
			double d = 0;
			for (int k = 0; k <= u->pos; k++)
				d += ca[k] * cb[k];
			u->dot_ap[r * u->npairs + p] += d;
		}
	}
	memset(u->coef_a, 0, (size_t)u->nrows * ne * UNC_POSITIONS * sizeof(double));
	for (size_t i = 0; i < (size_t)u->nrows * ne; i++)
		if (u->src[i] >= 0)
			u->src[i] = 0;
	u->pos = 0;
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
static double metric_variance(struct unc *u, const struct snapshot *s,
			      const struct metric_program *prog, int r, int m, const bool *split)
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
		double var = u->var_e[(size_t)r * ne + e];
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
				total += 2 * g[a] * g[b] * u->cov_p[(size_t)r * u->npairs + p];
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
	const struct snapshot *s = f->snap;
	struct run_facts facts;
	app_facts(app, &facts);
	if (!s || !facts.session || f->row_keys || s->nrows != u->nrows ||
	    s->nevents != u->nevents || s->nmetrics != u->nmetrics) {
		window_reset(u); /* rows summed by core, socket...: not covered */
		return;
	}
	const struct metric_program *prog = session_snapshot(facts.session)->program;
	flush_a(u);
	int nr = u->nrows, ne = u->nevents, nm = u->nmetrics, np = u->npairs;
	bool tsplit[np > 0 ? np : 1];
	memset(tsplit, 0, sizeof(tsplit));
	double *tv = &u->var_e[(size_t)nr * ne], *tcov = &u->cov_p[(size_t)nr * np];
	memset(tv, 0, (size_t)ne * sizeof(double));
	memset(tcov, 0, (size_t)(np > 0 ? np : 0) * sizeof(double));
	for (int r = 0; r < nr; r++) {
		for (int e = 0; e < ne; e++) {
			size_t i = (size_t)r * ne + e;
			double dot = u->dot_a[i] + u->dot_b[i];
			double var = dot == 0 ? 0 : u->n[i] >= UNC_MIN_N ? u->var[i] * dot : NAN;
			u->var_e[i] = var;
			if (!s->offline[r] && counted(s->counts[i].state))
				tv[e] += var; /* the rows' errors are independent */
		}
		for (int p = 0; p < np; p++) {
			size_t pi = (size_t)r * np + p;
			double sab = u->npn[pi] >= UNC_MIN_N ? u->cov[pi] : 0;
			u->cov_p[pi] = sab * (u->dot_ap[pi] + u->dot_bp[pi]);
			tcov[p] += s->offline[r] ? 0 : u->cov_p[pi];
			tsplit[p] |= u->split[pi];
		}
	}
	struct frame_cols cols;
	frame_store_cols(fs, &cols);
	for (int r = 0; r <= nr; r++) {
		const struct count *counts = r == nr ? s->total_counts : &s->counts[r * ne];
		for (int e = 0; e < ne; e++) {
			double var = u->var_e[(size_t)r * ne + e];
			cols.err_counts[(size_t)r * ne + e] =
			    counted(counts[e].state) ? UNCERTAINTY_Z * sqrt(var) : NAN;
		}
		const bool *split = r == nr ? tsplit : &u->split[(size_t)r * np];
		const double *values = r == nr ? s->total_values : &s->values[r * nm];
		for (int m = 0; m < nm; m++) {
			double v =
			    isfinite(values[m]) ? metric_variance(u, s, prog, r, m, split) : NAN;
			cols.err[(size_t)r * nm + m] = UNCERTAINTY_Z * sqrt(v);
		}
	}
	if (u->on) {
		f->err = cols.err;
		f->err_counts = cols.err_counts;
	}
	if (u->truth_on && u->have_truth) {
		/* the true counts summed as the window's, and the metrics over them */
		struct snapshot t = *s;
		struct count *tcounts = u->tcounts, *ttotal = &u->tcounts[(size_t)nr * ne];
		for (int e = 0; e < ne; e++)
			ttotal[e] = (struct count){.value = 0, .running = 1, .state = COUNT_OK};
		for (int r = 0; r < nr; r++)
			for (int e = 0; e < ne; e++) {
				size_t i = (size_t)r * ne + e;
				tcounts[i] = s->counts[i];
				tcounts[i].value = u->truth[i];
				cols.truth_counts[i] =
				    counted(s->counts[i].state) ? u->truth[i] : NAN;
				if (!s->offline[r] && counted(s->counts[i].state))
					ttotal[e].value += u->truth[i];
			}
		for (int e = 0; e < ne; e++) {
			ttotal[e].state = s->total_counts[e].state;
			cols.truth_counts[(size_t)nr * ne + e] =
			    counted(ttotal[e].state) ? ttotal[e].value : NAN;
		}
		t.counts = tcounts;
		t.total_counts = ttotal;
		for (int r = 0; r <= nr; r++)
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline.c: a reference distribution per (row, metric) from a recording or the last seconds of
 * this run, and each cell's change against it with Welch's t-test over the windows, with
 * effective sample sizes from their lag-1 autocorrelation. */
#include "baseline.h"
#include "duration.h"
#include "family.h"
#include "frame.h"
#include "observer.h"
#include "prefault.h"
#include "replay.h"
#include "rows.h"
#include "session.h"
#include "source.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- Student's t ------------------------------------------------------------------------------ */

/* The continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

double baseline_t_p(double t, double df)
{
	if (!isfinite(t))
		return isnan(t) ? NAN : 0;
	if (!(df > 0))
		return NAN;
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

/* The t with two-sided p-value @p (bisection). */
static double t_quantile(double p, double df)
{
	double lo = 0, hi = 1000;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;
		if (baseline_t_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void baseline_welch(double n1, double m1, double v1, double n2, double m2, double v2, double *p,
		    double *half_width)
{
	*p = *half_width = NAN;
	if (!(n1 >= 2 && n2 >= 2))
		return;
	/* a mean or variance that overflowed (values near DBL_MAX): no test, never "significant" */
	if (!isfinite(m1) || !isfinite(m2) || !isfinite(v1) || !isfinite(v2) || v1 < 0 || v2 < 0)
		return;
	double a = v1 / n1, b = v2 / n2, se2 = a + b, diff = m1 - m2;
	if (!(se2 > 0)) { /* both constant */
		*p = diff == 0 ? 1 : 0;
		*half_width = 0;
		return;
	}
	/* Welch-Satterthwaite degrees of freedom */
	double df = se2 * se2 / (a * a / (n1 - 1) + b * b / (n2 - 1));
	*p = baseline_t_p(diff / sqrt(se2), df);
	*half_width = t_quantile(0.05, df) * sqrt(se2);
}

static int holm_cmp(const void *a, const void *b)
{
	const struct holm_item *x = a, *y = b;
	return x->p < y->p ? -1 : x->p > y->p ? 1 : x->k - y->k;
}

void baseline_holm(const double *p, double *adj, int n, int stride, struct holm_item *scratch)
{
	int m = 0;
	for (int k = 0; k < n; k++)
		m += isfinite(p[(size_t)k * stride]);
	struct holm_item small[64];
	struct holm_item *it = scratch	 ? scratch
			       : m <= 64 ? small
					 : malloc((size_t)m * sizeof(*it));
	if (!it) { /* out of memory: Bonferroni, which flags a subset of Holm's */
		for (int k = 0; k < n; k++) {
			double v = p[(size_t)k * stride];
			adj[(size_t)k * stride] = isfinite(v) ? fmin(1, m * v) : NAN;
		}
		return;
	}
	int j = 0;
	for (int k = 0; k < n; k++) {
		double v = p[(size_t)k * stride];
		if (isfinite(v))
			it[j++] = (struct holm_item){v, k};
		else
			adj[(size_t)k * stride] = NAN;
	}
	qsort(it, (size_t)m, sizeof(*it), holm_cmp);
	double run = 0; /* the running maximum keeps the adjusted p-values in the p-values' order */
	for (j = 0; j < m; j++) {
		run = fmax(run, fmin(1, (m - j) * it[j].p));
		adj[(size_t)it[j].k * stride] = run;
	}
	if (it != small && it != scratch)
		free(it);
}

/* --- the observer ---------------------------------------------------------------------------- */

struct stat1 {
	double n, mean, m2; /* Welford */
	/* lag-1 products of neighbouring finite values, shifted by the first value y = x - x0
	 * against cancellation: sum y_t y_(t-1), sum y_t, sum y_(t-1), pairs */
	double x0, prev, s11, sa, sb, np;
	bool have_prev;
};

/* @v, the next value in time order; a non-finite one is skipped and breaks the pairs. */
static void stat_add(struct stat1 *s, double v)
{
	if (!isfinite(v)) {
		s->have_prev = false;
		return;
	}
	if (s->n == 0)
		s->x0 = v;
	s->n++;
	double d = v - s->mean;
	s->mean += d / s->n;
	s->m2 += d * (v - s->mean);
	double y = v - s->x0;
	if (s->have_prev) {
		s->s11 += y * s->prev;
		s->sa += y;
		s->sb += s->prev;
		s->np++;
	}
	s->prev = y;
	s->have_prev = true;
}

static double stat_var(const struct stat1 *s) { return s->n > 1 ? s->m2 / (s->n - 1) : 0; }

double baseline_n_eff(double n, double r1)
{
	if (!(r1 > 0))
		r1 = 0; /* no credit for alternating windows: never more than n */
	if (r1 > 0.9)
		r1 = 0.9;
	double e = n * (1 - r1) / (1 + r1);
	return n >= 2 && e < 2 ? 2 : e;
}

/* The lag-1 autocovariance sum of the sample about its mean (@num) and its sum of squares
 * (@ss): r1 = num / ss; both 0 with fewer than 3 pairs. */
static void stat_ac_parts(const struct stat1 *s, double *num, double *ss)
{
	double m = s->mean - s->x0;
	*num = *ss = 0;
	if (s->np < 3)
		return;
	*num = s->s11 - m * (s->sa + s->sb) + s->np * m * m;
	*ss = s->m2;
}

struct base {
	char path[1024];     /* --baseline FILE or :baseline FILE: (re)loaded per mode */
	char name[1100];     /* "old.jsonl", "last 30 s" */
	bool active;	     /* a reference is loaded */
	bool pending;	     /* load the file when the mode runs */
	int nrows, nmetrics; /* the layout: cells = (nrows + 1) * nmetrics */
	struct stat1 *ref;   /* [cell] */
	/* the rings are window-major, so that a window's cells are written side by side */
	double *recent;		/* [k * cells + cell] */
	struct holm_item *holm; /* [nrows]: Holm's scratch, so a refresh allocates nothing */
	int nrecent, recent_pos;
	double *history; /* [k * cells + cell] */
	int hist, nhist, hist_pos;
	long last; /* :baseline last DURATION asked before so many windows were kept: their count */
	/* summed rows (a core, a socket, a task, a cgroup): each row's label, which a recording's
	 * rows are matched by; NULL for a row per CPU (matched by CPU number) */
	char (*labels)[ROW_LABEL_MAX];
};

__attribute__((cold)) static void base_layout_free(struct base *b)
{
	free(b->ref);
	free(b->recent);
	free(b->history);
	free(b->labels);
	free(b->holm);
	b->holm = NULL;
	b->labels = NULL;
	b->ref = NULL;
	b->recent = b->history = NULL;
	b->nrows = b->nmetrics = 0;
	b->nrecent = b->recent_pos = b->nhist = b->hist_pos = b->hist = 0;
	b->active = false;
	b->last = 0;
}

/* The history's size: a row of (rows + the all row) x metrics cells, plus one, per window. */
static size_t history_bytes(const struct base *b)
{
	size_t cells = ((size_t)b->nrows + 1) * (size_t)b->nmetrics;
	return (cells + 1) * (size_t)b->hist * sizeof(double);
}

/* @interval_ms: a window's length (0 unknown). */
static int base_layout(struct base *b, int nrows, int nmetrics, const struct row_key *keys,
		       long interval_ms)
{
	base_layout_free(b);
	if (keys) {
		b->labels = calloc((size_t)nrows + 1, sizeof(*b->labels));
		if (!b->labels)
			return -1;
		for (int r = 0; r < nrows; r++)
			snprintf(b->labels[r], sizeof(b->labels[r]), "%s", keys[r].label);
	}
	size_t cells = ((size_t)nrows + 1) * (size_t)nmetrics;
	b->nrows = nrows, b->nmetrics = nmetrics;
	b->hist = BASELINE_HISTORY;
	while (b->hist > BASELINE_RECENT && cells * (size_t)b->hist > (size_t)1 << 20)
		b->hist /= 2; /* at most 8 MB of history */
	b->ref = calloc(cells + 1, sizeof(*b->ref));
	b->recent = calloc((cells + 1) * BASELINE_RECENT, sizeof(double));
	b->history = calloc(1, history_bytes(b));
	b->holm = calloc((size_t)nrows + 1, sizeof(*b->holm));
	if (!b->ref || !b->recent || !b->history || !b->holm) {
		base_layout_free(b);
		return -1;
	}
	/* each window writes a row of the history, so the first pass over it takes a page fault
	 * every 4096 / (cells * 8) windows (every 28th at 10 ms on 2 CPUs): mapped in now by the
	 * rings' rule (prefault.h) when it fills within a minute (hist windows: 600, a 100 ms
	 * window or shorter, on up to ~1700 cells); at 1 s (10 minutes to fill, a fault every half
	 * minute on 2 CPUs) it stays lazy. The interval is the one at layout time: a later
	 * :refresh to a shorter one keeps the layout and its lazy pages. */
	mem_prefault_ring(b->history, history_bytes(b),
			  interval_ms > 0 ? (double)b->hist * (double)interval_ms / 1000.0 : NAN);
	return 0;
}

/* Whether the frame's rows are the layout's: a row per CPU for both, or the same labels. */
static bool same_rows(const struct base *b, const struct row_key *keys)
{
	if (!keys || !b->labels)
		return !keys && !b->labels;
	for (int r = 0; r < b->nrows; r++)
		if (strcmp(keys[r].label, b->labels[r]) != 0)
			return false;
	return true;
}

/* The length of a task label's name ("sh" of "sh[123]"), or 0 when it is not one. */
static size_t task_name_len(const char *label)
{
	const char *br = strrchr(label, '[');
	size_t n = strlen(label);
	return br && br > label && n > 0 && label[n - 1] == ']' ? (size_t)(br - label) : 0;
}

/* This run's row for a recording's row labelled @label: the same label (a core, a socket, a
 * cgroup path, the same task), else the one task of the same name ("sh[12]" for "sh[34]": the
 * same program in another run, when the recording too has one of that name); -1 none. */
static int live_row_of(const struct base *b, const char *label)
{
	for (int r = 0; r < b->nrows; r++)
		if (strcmp(b->labels[r], label) == 0)
			return r;
	size_t n = task_name_len(label);
	int found = -1;
	for (int r = 0; n && r < b->nrows; r++)
		if (task_name_len(b->labels[r]) == n && strncmp(b->labels[r], label, n) == 0) {
			if (found >= 0)
				return -1; /* two of that name: which one is not known */
			found = r;
		}
	return found;
}

/* Why @path cannot be a baseline (it cannot be opened, is no regular file: a FIFO, a tty or
 * another device would block or never end; is empty), or NULL. */
static const char *file_refusal(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	const char *why = fd < 0		 ? strerror(errno)
			  : fstat(fd, &st) < 0	 ? strerror(errno)
			  : !S_ISREG(st.st_mode) ? "not a regular file (a recording)"
			  : st.st_size == 0	 ? "empty"
						 : NULL;
	if (fd >= 0)
		close(fd);
	return why;
}

/* The reference of every cell from the recording @path: its ticks of the running mode, on this
 * run's rows (by CPU number), computed as the run computes its own. */
static int load_file(struct base *b, struct app_ctx *app, const char *path, char *err,
		     size_t errlen)
{
	struct run_facts f;
	app_facts(app, &f);
	if (!f.mode || !f.session) {
		snprintf(err, errlen, "baseline: no mode runs yet");
		return -1;
	}
	const char *bad = file_refusal(path);
	if (bad) {
		snprintf(err, errlen, "baseline %s: %s", path, bad);
		return -1;
	}
	struct replay *rp = calloc(1, sizeof(*rp));
	if (!rp) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char why[512];
	int rc = replay_open_input(rp, path, why, sizeof(why));
	if (rc != 0) {
		if (rc > 0)
			snprintf(err, errlen, "baseline %s: a stream cannot be a baseline", path);
		else
			snprintf(err, errlen, "baseline: %s", why);
		replay_free(rp);
		free(rp);
		return -1;
	}
	/* a task or cgroup run: the recording's own rows (its "row_keys"), summed by key */
	const struct rec_header *h = &rp->f.header;
	bool keyed = f.keys != NULL;
	int ncpus = f.ncpus, nkeys = 0;
	const int *cpus = f.cpus;
	int *rcpus = NULL, *row_key = NULL;
	struct row_key *keys = NULL;
	if (keyed && (h->ncpus <= 0 || !h->cpus[0].key[0])) {
		snprintf(err, errlen, "baseline %s: not a recording of tasks or cgroups", path);
		replay_free(rp);
		free(rp);
		return -1;
	}
	/* the recording's rows are this run's kind: its row numbers are CPUs for a run of CPUs
	 * (summed here by this machine's topology), else keys of the same kind */
	char rows[sizeof(h->rows) * 4];
	rec_escape(h->rows[0] ? h->rows : "task or cgroup", rows, sizeof(rows));
	const char *other =
	    !keyed && h->ncpus > 0 && h->cpus[0].key[0] ? "cpu"
	    : keyed && h->rows[0] && strcmp(h->rows, rows_unit_name(f.keys[0].kind)) != 0
		? rows_unit_name(f.keys[0].kind)
		: NULL;
	if (other) {
		snprintf(err, errlen,
			 "baseline %s: a recording of %s rows, not of this run's %s rows", path,
			 rows, other);
		replay_free(rp);
		free(rp);
		return -1;
	}
	/* this run's CPUs the recording lacks: their rows stay n/a; a sum over them (the all row, a
	 * core or a socket) would not be the same sum */
	int missing = -1, nmissing = 0;
	for (int i = 0; !keyed && i < f.ncpus; i++) {
		int k = 0;
		while (k < h->ncpus && h->cpus[k].cpu != f.cpus[i])
			k++;
		if (k == h->ncpus && nmissing++ == 0)
			missing = f.cpus[i];
	}
	if (nmissing && f.rows_unit != ROWS_CPU) {
		snprintf(err, errlen,
			 "baseline %s: the recording lacks CPU %d%s of this run: its %s rows would "
			 "sum other CPUs",
			 path, missing, nmissing > 1 ? " and more" : "",
			 rows_unit_name((enum row_unit)f.rows_unit));
		replay_free(rp);
		free(rp);
		return -1;
	}
	if (keyed) {
		rcpus = calloc((size_t)h->ncpus, sizeof(int));
		row_key = calloc((size_t)h->ncpus, sizeof(int));
		keys = calloc((size_t)h->ncpus, sizeof(*keys));
		for (int k = 0; rcpus && row_key && keys && k < h->ncpus; k++) {
			int key = 0;
			while (key < nkeys && strcmp(keys[key].label, h->cpus[k].key) != 0)
				key++;
			if (key == nkeys) {
				keys[key].kind = f.keys[0].kind;
				keys[key].id = key;
				keys[key].tuple[0] = key;
				snprintf(keys[key].label, sizeof(keys[key].label), "%.*s",
					 (int)sizeof(keys[key].label) - 1, h->cpus[k].key);
				nkeys++;
			}
			rcpus[k] = h->cpus[k].cpu;
			row_key[k] = key;
		}
		ncpus = h->ncpus;
		cpus = rcpus;
	}
	struct source src = {.ops = &source_replay_ops, .inst = rp};
	struct session_config cfg = {
	    .source = &src,
	    .sysfs_root = "/",
	    .family = family_find(f.family_key),
	    .ncpus = ncpus,
	    .cpus = cpus,
	    .row_cpus = f.machine ? f.machine->aggregated_cpus : 0,
	    .slots = f.machine ? f.machine->slots : 0,
	};
	struct session *s = NULL;
	if (keyed && (!rcpus || !row_key || !keys))
		snprintf(why, sizeof(why), "out of memory");
	else
		s = session_new(&cfg, why, sizeof(why));
	if (!s || session_set_mode(s, f.mode, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "baseline %s: %s", path, why);
		session_free(s);
		replay_free(rp);
		free(rp);
		free(rcpus);
		free(row_key);
		free(keys);
		return -1;
	}
	const struct snapshot *snap = session_snapshot(s);
	const struct topology *topo =
	    !keyed && f.rows_unit != ROWS_CPU ? app_rows_topology(app) : NULL;
	struct rows_agg *agg = NULL;
	int *map = NULL, nmap = -1; /* the recording's row -> this run's, -1 none */
	int n = 0;
	for (;;) {
		int r = session_tick(s, 0, why, sizeof(why));
		if (r < 0)
			break; /* the end of the recording */
		if (r == 0)
			continue;
		/* the rows this run shows: summed as the run sums its own */
		const struct row_key *okeys = NULL;
		const struct snapshot *rs = snap;
		if (keyed)
			rs = rows_aggregate_keys(&agg, snap, keys, nkeys, row_key, &okeys);
		else if (topo)
			rs = rows_aggregate(&agg, snap, (enum row_unit)f.rows_unit, topo, &okeys);
		if (!rs || rs->nmetrics != b->nmetrics || (!b->labels && rs->nrows != b->nrows) ||
		    (b->labels && !okeys))
			break;
		if (rs->nrows != nmap) { /* the first tick, or rows that came or went */
			free(map);
			nmap = rs->nrows;
			map = malloc(((size_t)nmap + 1) * sizeof(int));
			if (!map)
				break;
			for (int k = 0; k < nmap; k++)
				map[k] = b->labels ? live_row_of(b, okeys[k].label) : k;
			int *claims = b->labels ? calloc((size_t)b->nrows + 1, sizeof(int)) : NULL;
			for (int k = 0; claims && k < nmap; k++)
				claims[map[k] >= 0 ? map[k] : b->nrows]++;
			for (int k = 0; claims && k < nmap; k++) /* tasks of one name: none */
				if (map[k] >= 0 && claims[map[k]] > 1)
					map[k] = -1;
			free(claims);
		}
		for (int k = 0; k <= nmap; k++) {
			int row = k < nmap ? map[k] : b->nrows; /* the all row last */
			for (int m = 0; row >= 0 && m < b->nmetrics; m++)
				stat_add(&b->ref[row * b->nmetrics + m],
					 k < nmap ? rs->values[k * b->nmetrics + m]
						  : rs->total_values[m]);
		}
		n++;
	}
	free(map);
	rows_agg_free(agg);
	session_free(s);
	replay_free(rp);
	free(rp);
	free(rcpus);
	free(row_key);
	free(keys);
	if (n < 2) {
		snprintf(err, errlen, "baseline %s: fewer than 2 ticks of mode %s on these %s",
			 path, f.mode_name, keyed ? "rows" : "CPUs");
		return -1;
	}
	if (nmissing) {
		memset(&b->ref[(size_t)b->nrows * (size_t)b->nmetrics], 0,
		       (size_t)b->nmetrics * sizeof(*b->ref));
		app_log(app, MSG_WARN,
			"baseline %s: the recording lacks CPU %d%s of this run: the all row is "
			"not compared",
			path, missing, nmissing > 1 ? " and more" : "");
	}
	return 0;
}

/* The reference of every cell from the last @n windows of this run. */
static void take_last(struct base *b, long n)
{
	int cells = (b->nrows + 1) * b->nmetrics;
	for (int c = 0; c < cells; c++) {
		struct stat1 s = {0};
		for (long k = 1; k <= n; k++)
			stat_add(&s, b->history[(size_t)((b->hist_pos - k + b->hist) % b->hist) *
						    (size_t)cells +
						(size_t)c]);
		b->ref[c] = s;
	}
	b->active = true;
	b->last = 0;
}

/* The layout for the running mode at set-up (when attached, when a mode opens): a row per CPU
 * and the mode's metrics, known before the first frame, so that frame neither allocates the
 * history nor maps it in. Rows summed by a unit or of tasks, and a shape the frame does not have
 * after all, are laid out by the first frame (fill_frame). */
__attribute__((cold)) static void base_at_setup(struct base *b, struct app_ctx *app)
{
	struct run_facts f;
	app_facts(app, &f);
	if (!f.session || !f.mode || f.keys || f.rows_unit != ROWS_CPU || f.ncpus < 1 ||
	    f.mode->nmetrics < 1)
		return;
	if (base_layout(b, f.ncpus, f.mode->nmetrics, NULL, f.interval_ms) < 0)
		base_layout_free(b); /* out of memory: the first frame tries again */
}

static void on_mode(struct observer *o, struct app_ctx *app)
{
	(void)app;
	struct base *b = o->state;
	bool had = b->active || b->pending;
	base_layout_free(b);
	/* a recording is read again for the new mode; the last seconds of the old one are gone */
	b->pending = had && b->path[0];
	if (!b->pending)
		b->name[0] = '\0';
	base_at_setup(b, app);
}

static void fill_frame(struct observer *o, struct app_ctx *app, struct frame *f,
		       struct frame_store *fs)
{
	struct base *b = o->state;
	const struct snapshot *s = f->snap;
	if (!s)
		return;
	if (!b->ref || s->nrows != b->nrows || s->nmetrics != b->nmetrics ||
	    !same_rows(b, f->row_keys)) {
		bool was = b->active || b->pending;
		long last = b->last;
		struct run_facts facts;
		app_facts(app, &facts);
		if (base_layout(b, s->nrows, s->nmetrics, f->row_keys, facts.interval_ms) < 0)
			return;
		b->pending = was && b->path[0];
		b->last = last;
	}
	if (b->pending) {
		char err[1300];
		b->pending = false;
		if (load_file(b, app, b->path, err, sizeof(err)) < 0) {
			app_log(app, MSG_ERROR, "%s", err);
			b->path[0] = b->name[0] = '\0';
		} else {
			b->active = true;
		}
	}
	int nm = b->nmetrics, cells = (b->nrows + 1) * nm;
	/* this window into the recent and history rings: cell c = r * nm + m (the total last) */
	size_t rows = (size_t)b->nrows * (size_t)nm, bytes = rows * sizeof(double);
	double *recent = b->recent + (size_t)b->recent_pos * (size_t)cells;
	double *hist = b->history + (size_t)b->hist_pos * (size_t)cells;
	memcpy(recent, s->values, bytes);
	memcpy(recent + rows, s->total_values, (size_t)nm * sizeof(double));
	memcpy(hist, recent, (size_t)cells * sizeof(double));
	b->recent_pos = (b->recent_pos + 1) % BASELINE_RECENT;
	b->nrecent += b->nrecent < BASELINE_RECENT;
	b->hist_pos = (b->hist_pos + 1) % b->hist;
	b->nhist += b->nhist < b->hist;
	if (b->last > 0 && b->nhist >= b->last)
		take_last(b, b->last); /* the windows asked for are there now */
	if (!b->active)
		return;
	struct frame_cols cols;
	frame_store_cols(fs, &cols);
	for (int c = 0; c < cells; c++) {
		struct stat1 now = {0};
		int first = b->nrecent < BASELINE_RECENT ? 0 : b->recent_pos;
		for (int k = 0; k < b->nrecent; k++) /* oldest first */
			stat_add(&now,
				 b->recent[(size_t)((first + k) % BASELINE_RECENT) * (size_t)cells +
					   (size_t)c]);
		const struct stat1 *ref = &b->ref[c];
		double p, hw;
		/* one lag-1 autocorrelation for the cell, pooled over both samples (each about
		 * its own mean): 30 windows alone would give a noisy one */
		double n1, s1, n2, s2;
		stat_ac_parts(&now, &n1, &s1);
		stat_ac_parts(ref, &n2, &s2);
		double r1 = s1 + s2 > 0 ? (n1 + n2) / (s1 + s2) : 0;
		baseline_welch(baseline_n_eff(now.n, r1), now.mean, stat_var(&now),
			       baseline_n_eff(ref->n, r1), ref->mean, stat_var(ref), &p, &hw);
		if (now.n < BASELINE_MIN_RECENT)
			p = hw = NAN; /* a t-test of a handful of skewed values is too eager */
		bool scale = ref->n > 0 && ref->mean != 0 && now.n > 0;
		cols.base_change[c] = scale ? (now.mean - ref->mean) / fabs(ref->mean) * 100 : NAN;
		cols.base_err[c] = scale ? hw / fabs(ref->mean) * 100 : NAN;
		cols.base_p[c] = p;
	}
	/* per metric, the rows of this refresh are one family (Holm); the all row one of its own */
	for (int m = 0; m < nm; m++) {
		baseline_holm(cols.base_p + m, cols.base_p_adj + m, b->nrows, nm, b->holm);
		baseline_holm(cols.base_p + b->nrows * nm + m, cols.base_p_adj + b->nrows * nm + m,
			      1, nm, b->holm);
	}
	f->base_change = cols.base_change;
	f->base_err = cols.base_err;
	f->base_p = cols.base_p;
	f->base_p_adj = cols.base_p_adj;
	snprintf(f->baseline, sizeof(f->baseline), "%.*s", (int)sizeof(f->baseline) - 1, b->name);
}

static void on_close(struct observer *o, struct app_ctx *app)
{
	(void)app;
	base_layout_free(o->state);
	free(o->state);
	o->state = NULL;
}

int baseline_attach(struct app_ctx *app, const char *path, char *err, size_t errlen)
{
	struct base *b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (path) { /* named on the command line: a file that cannot be read is bad usage now */
		if (strlen(path) >= sizeof(b->path)) { /* never a cut path: another file */
			free(b);
			snprintf(err, errlen, "--baseline: path longer than %zu bytes",
				 sizeof(b->path) - 1);
			return -1;
		}
		const char *why = file_refusal(path);
		if (why) {
			free(b);
			snprintf(err, errlen, "--baseline %s: %s", path, why);
			return -1;
		}
		snprintf(b->path, sizeof(b->path), "%s", path);
		snprintf(b->name, sizeof(b->name), "%s", path);
		b->pending = true;
	}
	struct observer o = {.name = "baseline",
			     .state = b,
			     .on_mode = on_mode,
			     .fill_frame = fill_frame,
			     .close = on_close};
	if (!app_observe(app, &o)) {
		free(b);
		snprintf(err, errlen, "baseline: cannot register the observer");
		return -1;
	}
	base_at_setup(b, app);
	return 0;
}

size_t baseline_history_bytes(const struct app_ctx *app)
{
	const struct base *b = app_observer_state(app, "baseline");
	return b && b->history ? history_bytes(b) : 0;
}

int baseline_command(struct app_ctx *app, const char *arg, char *err, size_t errlen)
{
	struct base *b = app_observer_state(app, "baseline");
	if (!b) {
		snprintf(err, errlen, "baseline: not available in this run");
		return -1;
	}
	if (!arg || !*arg) {
		snprintf(err, errlen, "baseline: expected FILE, last DURATION or off");
		return -1;
	}
	if (strcmp(arg, "off") == 0) {
		b->active = b->pending = false;
		b->last = 0;
		b->path[0] = b->name[0] = '\0';
		return 0;
	}
	if (strncmp(arg, "last ", 5) == 0 || strcmp(arg, "last") == 0) {
		long ms;
		struct run_facts f;
		app_facts(app, &f);
		const char *d = arg + 4;
		while (*d == ' ')
			d++;
		if (duration_parse_ms(d, 1000, &ms) < 0 || ms <= 0) {
			snprintf(err, errlen, "baseline last: \"%s\" is not a duration (30s, 2m)",
				 d);
			return -1;
		}
		long n = f.interval_ms > 0 ? (ms + f.interval_ms / 2) / f.interval_ms : 0;
		int most = b->ref ? b->hist : BASELINE_HISTORY;
		if (n < 2 || n > most) {
			snprintf(err, errlen,
				 "baseline last %s: %ld windows asked, from 2 to %d are kept", d, n,
				 most);
			return -1;
		}
		b->pending = false;
		b->path[0] = '\0';
		snprintf(b->name, sizeof(b->name), "last %s", d);
		if (b->ref && n <= b->nhist) {
			take_last(b, n);
		} else { /* not that many windows yet: the reference once they are there */
			b->active = false;
			b->last = n;
		}
		return 0;
	}
	/* a recording: read now when a mode runs, else when it does */
	if (strlen(arg) >= sizeof(b->path)) { /* never a cut path: another file */
		snprintf(err, errlen, "baseline: path longer than %zu bytes", sizeof(b->path) - 1);
		return -1;
	}
	struct base keep = *b;
	snprintf(b->path, sizeof(b->path), "%s", arg);
	if (!b->ref) {
		snprintf(b->name, sizeof(b->name), "%s", arg);
		b->pending = true;
		return 0;
	}
	struct stat1 *old = malloc(((size_t)(b->nrows + 1) * b->nmetrics + 1) * sizeof(*old));
	if (!old) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(old, b->ref, (size_t)(b->nrows + 1) * b->nmetrics * sizeof(*old));
	memset(b->ref, 0, (size_t)(b->nrows + 1) * b->nmetrics * sizeof(*old));
	if (load_file(b, app, arg, err, errlen) < 0) { /* the old baseline stays */
		memcpy(b->ref, old, (size_t)(b->nrows + 1) * b->nmetrics * sizeof(*old));
		free(old);
		memcpy(b->path, keep.path, sizeof(b->path));
		return -1;
	}
	free(old);
	snprintf(b->name, sizeof(b->name), "%s", arg);
	b->active = true;
	b->pending = false;
	return 0;
}

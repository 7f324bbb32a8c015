/* SPDX-License-Identifier: GPL-2.0-or-later */
/* views.c: lays out the header, the per-CPU table and the prompt on a canvas; the table of views
 * (the others: src/view/view-*.c). */
#include "views.h"
#include "frame.h"
#include "numfmt.h"
#include "output.h"
#include "textutil.h"
#include "theme.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_W 40
#define MIN_H 10
#define CPU_COL key_col /* the key column's width, the separating blank included */

void views_put_line(struct canvas *c, int y, int role, unsigned attr, unsigned flags,
		    const char *text)
{
	unsigned k[3] = {(unsigned)role, attr, flags};
	if (!canvas_keep(c, y, canvas_hash_str(canvas_hash(0, k, sizeof(k)), text)))
		canvas_putx(c, 0, y, role, attr, -1, flags, text);
}

/* @s right-aligned in @w columns after @buf's @n bytes (printf's "%*s" for ASCII @s); returns
 * the new length. */
static size_t pad_left(char *buf, size_t n, const char *s, size_t len, int w)
{
	for (int i = (int)len; i < w; i++)
		buf[n++] = ' ';
	memcpy(buf + n, s, len);
	buf[n + len] = '\0';
	return n + len;
}

/* The key column: 6 for CPU numbers, wider for labels of summed rows ("S0-D0-L3-ID0"), as
 * the canvas shows them (a control byte in a task or cgroup name as "\x0a": 4 columns). */
int views_key_width(const struct view_input *in)
{
	int w = 6;
	for (int r = 0; in->row_keys && in->snap && r < in->snap->nrows; r++) {
		const char *s = in->row_keys[r].label;
		int l = (int)text_escape_flags(s, strnlen(s, ROW_LABEL_MAX), NULL, 0,
					       TEXT_ESC_KEEP_BACKSLASH) +
			1;
		w = l > w ? l : w;
	}
	return w;
}

/* Row @r's key: its CPU, or its label. */
void views_put_key(struct canvas *c, int y, const struct view_input *in, int r)
{
	if (in->row_keys) { /* right-aligned as shown: padded by its escaped width */
		const char *s = in->row_keys[r].label;
		int shown = (int)text_escape_flags(s, strnlen(s, ROW_LABEL_MAX), NULL, 0,
						   TEXT_ESC_KEEP_BACKSLASH);
		int pad = views_key_width(in) - 1 - shown;
		canvas_printf(c, 0, y, ROLE_CELL, "%*s%.*s", pad > 0 ? pad : 0, "",
			      (int)strnlen(s, ROW_LABEL_MAX), s);
	} else {
		char num[24], key[32];
		pad_left(key, 0, num, numfmt_i64(num, in->snap->cpus[r]), 4); /* "%4d" */
		canvas_put(c, 0, y, ROLE_CELL, key);
	}
}
/* the spans of a table row kept on their own (canvas_keep_span): the values 0.., then these */
enum { SPAN_TASK = CANVAS_SPANS - 4, SPAN_BAR, SPAN_ATTRIB, SPAN_SPARK };
#define ATTRIB_COLW 10	   /* attribution column */
#define TASK_COLW 18	   /* busiest task column */
#define TASKCOL_W 7	   /* the task view's run% and cpu% columns */
#define STACK_BAR_MIN 8	   /* columns: a narrower stacked bar is not drawn */
#define STACK_BAR_MAX 50   /* columns */
#define STACK_TAIL 2	   /* columns after the bar: "+" (shares past 100 %) and the mark */
#define STACK_TOP_MARK ">" /* before the largest share's value */

/* Each share of a stacked bar has its own character, so the bar reads without colour. */
static const char *const stack_glyphs[SESSION_MAX_STACK] = {"█", "▓", "▒", "░", "▞", "▚", "▖", "▗"};
static const char stack_ascii[SESSION_MAX_STACK + 1] = "#=+-:o%@";
#define STACK_REST "." /* the part of 100 % the shares leave */

int view_history_reset(struct view_history *h, int nrows, int nmetrics)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
	size_t cells = (size_t)VIEWS_SPARK_LEN * (size_t)nrows * (size_t)(nmetrics ? nmetrics : 1);
	h->v = malloc(cells * sizeof(double));
	if (!h->v)
		return -1;
	for (size_t i = 0; i < cells; i++)
		h->v[i] = NAN;
	h->nrows = nrows;
	h->nmetrics = nmetrics;
	return 0;
}

void view_history_push(struct view_history *h, const struct snapshot *snap)
{
	if (!h->v || snap->nrows != h->nrows || snap->nmetrics != h->nmetrics ||
	    (h->len && snap->seq == h->seq))
		return;
	h->seq = snap->seq;
	size_t slot = (size_t)h->head * (size_t)h->nrows * (size_t)h->nmetrics;
	memcpy(&h->v[slot], snap->values, (size_t)h->nrows * (size_t)h->nmetrics * sizeof(double));
	h->head = (h->head + 1) % VIEWS_SPARK_LEN;
	if (h->len < VIEWS_SPARK_LEN)
		h->len++;
}

void view_history_free(struct view_history *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* The last @n values of (row, metric), oldest first, into @out; returns how many. */
static int history_series(const struct view_history *h, int row, int metric, double *out, int n)
{
	if (!h || !h->v || row >= h->nrows || metric >= h->nmetrics)
		return 0;
	if (n > h->len)
		n = h->len;
	for (int i = 0; i < n; i++) {
		int slot = (h->head - n + i + VIEWS_SPARK_LEN) % VIEWS_SPARK_LEN;
		out[i] = h->v[((size_t)slot * h->nrows + row) * h->nmetrics + metric];
	}
	return n;
}

double views_row_running(const struct snapshot *snap, int r)
{
	double least = NAN;
	for (int e = 0; e < snap->nevents; e++) {
		const struct count *c = &snap->counts[r * snap->nevents + e];
		if (c->state != COUNT_OK && c->state != COUNT_SCALED &&
		    c->state != COUNT_NOT_COUNTED)
			continue; /* not opened, offline or invalid: no share */
		double v = c->state == COUNT_NOT_COUNTED ? 0 : c->running;
		if (isnan(least) || v < least)
			least = v;
	}
	return least;
}

/* The value row @r sorts by in the task view's column @col (VIEWS_SORT_*). */
static double task_col(const struct snapshot *snap, const struct view_state *vs, int col, int r)
{
	if (col == VIEWS_SORT_RUN)
		return views_row_running(snap, r);
	return vs->task_cpu && r < vs->ntask_cpu ? vs->task_cpu[r] : NAN;
}

int views_sort_column(const struct snapshot *snap, const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return -1;
	if (strcmp(name, "run%") == 0)
		return VIEWS_SORT_RUN;
	if (strcmp(name, "cpu%") == 0)
		return VIEWS_SORT_CPU_SHARE;
	for (int m = 0; m < snap->nmetrics; m++)
		if (strcmp(snap->metrics[m].name, name) == 0)
			return m;
	return -2;
}

/* --- header --------------------------------------------------------------------------------- */

static int draw_header(struct canvas *c, const struct view_header *h, bool room_for_capability)
{
	int bw = h->banner ? canvas_str_width(h->banner) + 2 : 0;
	if (bw > c->w / 2)
		bw = c->w / 2;
	/* host name and kernel release are the machine's (or a --sysfs-root tree's), of any length:
	 * the host keeps at most a third of the line left of the banner, the release the rest, both
	 * cut with an ellipsis; the PMU line gets what they leave */
	int left = c->w - (bw ? bw + 1 : 0);
	uint64_t key = canvas_hash_str(canvas_hash_str(0, h->host), h->kernel);
	if (!canvas_keep(c, 0, canvas_hash_str(canvas_hash_str(key, h->pmu), h->banner))) {
		/* the first line is drawn from these alone */
		int x = canvas_put(c, 0, 0, ROLE_HEADER, "pmutop ");
		x += canvas_putx(c, x, 0, ROLE_HEADER, 0, left / 3, CANVAS_ELLIPSIS,
				 h->host ? h->host : "");
		x += canvas_put(c, x, 0, ROLE_HEADER, "  ");
		if (left > x)
			x += canvas_putx(c, x, 0, ROLE_HEADER, 0, left - x, CANVAS_ELLIPSIS,
					 h->kernel ? h->kernel : "");
		x += canvas_put(c, x, 0, ROLE_HEADER, "  ");
		int room = left - x;
		if (room > 0)
			x += canvas_putx(c, x, 0, ROLE_HEADER_VALUE, 0, room, CANVAS_ELLIPSIS,
					 h->pmu ? h->pmu : "");
		if (h->banner) {
			canvas_putx(c, c->w - bw, 0,
				    strncmp(h->banner, "SIM", 3) == 0 ? ROLE_SIMULATED_BANNER
								      : ROLE_REPLAY_BANNER,
				    0, bw, CANVAS_ELLIPSIS, " ");
			canvas_putx(c, c->w - bw + 1, 0,
				    strncmp(h->banner, "SIM", 3) == 0 ? ROLE_SIMULATED_BANNER
								      : ROLE_REPLAY_BANNER,
				    0, bw - 1, CANVAS_ELLIPSIS, h->banner);
		}
	}
	char line[512];
	char measured[32] = "-";
	char num[NUMFMT_MAX];
	if (h->measured_ms > 0 && numfmt_fixed(num, h->measured_ms, 1) < sizeof(measured))
		memcpy(measured, num, strlen(num) + 1); /* "%.1f" */
	int x = canvas_put(c, 0, 1, ROLE_HEADER, "mode ");
	x += canvas_putx(c, x, 1, ROLE_HEADER_VALUE, CANVAS_BOLD, 16, CANVAS_ELLIPSIS,
			 h->mode ? h->mode : "-");
	/* " %s | %ld ms (last %s) | #%llu" */
	size_t used = text_cat(line, sizeof(line), 0, " ");
	used = text_cat(line, sizeof(line), used, h->title ? h->title : "");
	used = text_cat(line, sizeof(line), used, " | ");
	numfmt_i64(num, h->interval_ms);
	used = text_cat(line, sizeof(line), used, num);
	used = text_cat(line, sizeof(line), used, " ms (last ");
	used = text_cat(line, sizeof(line), used, measured);
	used = text_cat(line, sizeof(line), used, ") | #");
	numfmt_u64(num, h->samples);
	text_cat(line, sizeof(line), used, num);
	x += canvas_putx(c, x, 1, ROLE_HEADER, 0, -1, CANVAS_ELLIPSIS, line);
	if (h->paused)
		x += canvas_put(c, x + 1, 1, ROLE_STATUS_PAUSED, " PAUSED ") + 1;
	else if (h->first_tick_pending)
		x += canvas_put(c, x + 1, 1, ROLE_MESSAGE_INFO, "waiting for first full tick") + 1;
	if (h->warnings) {
		snprintf(line, sizeof(line), " %d warning%s (:messages)", h->warnings,
			 h->warnings == 1 ? "" : "s");
		canvas_putx(c, x + 1, 1, ROLE_MESSAGE_WARN, 0, -1, CANVAS_ELLIPSIS, line);
	}
	int rows = 2;
	if (room_for_capability && h->capability && h->capability[0]) {
		views_put_line(c, rows, ROLE_LEGEND, CANVAS_DIM, CANVAS_ELLIPSIS, h->capability);
		rows++;
	}
	if (room_for_capability && h->extra && h->extra[0]) {
		views_put_line(c, rows, ROLE_LEGEND, CANVAS_DIM, CANVAS_ELLIPSIS, h->extra);
		rows++;
	}
	return rows;
}

/* --- per-CPU table -------------------------------------------------------------------------- */

struct table_ctx {
	const struct snapshot *snap;
	const struct view_state *vs;
	const char *const *core_type;
	const int *type_rank; /* per row: order of its core type (first CPU of the type) */
};

static int row_compare(const void *a, const void *b, void *ctx)
{
	int ra = *(const int *)a, rb = *(const int *)b;
	const struct table_ctx *t = ctx;
	if (t->vs->group_by_type && t->core_type && t->type_rank[ra] != t->type_rank[rb])
		return t->type_rank[ra] - t->type_rank[rb];
	int m = t->vs->sort_col;
	bool task = t->vs->task_cpu && (m == VIEWS_SORT_RUN || m == VIEWS_SORT_CPU_SHARE);
	if ((m >= 0 && m < t->snap->nmetrics) || task) {
		double va = task ? task_col(t->snap, t->vs, m, ra)
				 : t->snap->values[ra * t->snap->nmetrics + m];
		double vb = task ? task_col(t->snap, t->vs, m, rb)
				 : t->snap->values[rb * t->snap->nmetrics + m];
		/* n/a sorts last either way */
		if (isnan(va) != isnan(vb))
			return isnan(va) ? 1 : -1;
		if (!isnan(va) && va != vb)
			return (va < vb) == t->vs->sort_desc ? 1 : -1;
	}
	return t->snap->cpus[ra] - t->snap->cpus[rb];
}

/* Core-type rank of each row: the row of the first CPU of its type. */
static void type_ranks(const struct snapshot *snap, const char *const *core_type, int *rank)
{
	for (int r = 0; r < snap->nrows; r++) {
		rank[r] = r;
		for (int k = 0; core_type && k < r; k++)
			if (strcmp(core_type[k], core_type[r]) == 0) {
				rank[r] = rank[k];
				break;
			}
	}
}

void views_table_order(const struct snapshot *snap, const char *const *core_type,
		       const struct view_state *vs, int *order)
{
	int rank[snap->nrows > 0 ? snap->nrows : 1];
	type_ranks(snap, core_type, rank);
	for (int r = 0; r < snap->nrows; r++)
		order[r] = r;
	struct table_ctx t = {snap, vs, core_type, rank};
	/* rows already in strictly increasing order (CPU order, the usual one) are the one order
	 * any sort gives them: no sort */
	int r = 1;
	while (r < snap->nrows && row_compare(&order[r - 1], &order[r], &t) < 0)
		r++;
	if (r < snap->nrows)
		qsort_r(order, (size_t)snap->nrows, sizeof(int), row_compare, &t);
}

static int class_role(enum metric_class cls)
{
	switch (cls) {
	case METRIC_GOOD:
		return ROLE_CELL_GOOD;
	case METRIC_WARN:
		return ROLE_CELL_WARN;
	case METRIC_BAD:
		return ROLE_CELL_BAD;
	case METRIC_NA:
		return ROLE_CELL_NA;
	default:
		return ROLE_CELL;
	}
}

/* Why a metric is n/a: the state of its least available input. */
static const char *na_reason(const struct snapshot *snap, const struct count *counts, int m)
{
	const struct session_metric *sm = &snap->metrics[m];
	static const enum count_state order[] = {COUNT_OFFLINE, COUNT_NOT_SUPPORTED, COUNT_INVALID,
						 COUNT_NOT_COUNTED};
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (int k = 0; k < sm->ninputs; k++)
			if (counts[sm->inputs[k]].state == order[o])
				return order[o] == COUNT_INVALID ? "invalid" /* guard.h */
								 : count_state_mark(order[o]);
	return "n/a";
}

/* The key of a metric cell with a value, in the row of key @rk (which holds the layout):
 * everything else draw_cell draws the value from. */
static uint64_t cell_key(uint64_t rk, const struct snapshot *snap, double v, double running,
			 const struct metric_detail *d, const double *err, const double *change,
			 const double *p, int cls, int m, bool top)
{
	struct {
		double v[6];
		uint64_t small; /* the class, the metric, and the coarse, top and split flags */
	} k = {
	    {v, running, d ? d->resolution : 0, err ? *err : 0, change ? *change : 0, p ? *p : 0},
	    (uint64_t)(uint32_t)m << 32 | (uint64_t)(uint16_t)cls << 8 |
		(uint64_t)(d && d->coarse) | (uint64_t)top << 1 |
		(uint64_t)(m < SESSION_MAX_METRICS && snap->split[m]) << 2};
	_Static_assert(sizeof(k) == 7 * sizeof(double), "no padding hashed");
	return canvas_hash(rk, &k, sizeof(k));
}

/* The key of an n/a cell in the row of key @rk: its metric and why it is n/a (its inputs'
 * states). */
static uint64_t na_key(uint64_t rk, const struct snapshot *snap, const struct count *counts, int m)
{
	return canvas_hash_str(canvas_hash(rk, &m, sizeof(m)), na_reason(snap, counts, m));
}

/* One metric cell; @top: the largest share of its row's stacked bar (own role, bold, marked). */
static void draw_cell(struct canvas *c, int x, int y, int w, const struct snapshot *snap,
		      const struct count *counts, double v, enum metric_class cls, double running,
		      int m, bool show_running, int base_role, const struct metric_detail *d,
		      bool top, const double *err, const double *change, const double *p,
		      bool stale)
{
	char buf[48];
	if (stale) { /* the mark goes where the value's last column was, the value one left */
		canvas_putx(c, x + w - 2, y, ROLE_MESSAGE_WARN, CANVAS_BOLD, 1, 0, VIEWS_STALE);
		w--;
	}
	if (isnan(v)) {
		canvas_putx(c, x, y, ROLE_CELL_NA, 0, w - 1, CANVAS_ALIGN_RIGHT,
			    na_reason(snap, counts, m));
		return;
	}
	output_format_metric(v, d ? d->resolution : 0, buf, sizeof(buf));
	if (err)
		output_append_err(buf, sizeof(buf), *err);
	int role = top ? ROLE_STACK_TOP : cls == METRIC_NONE ? base_role : class_role(cls);
	if (change) { /* against a baseline: the change, coloured only when significant */
		if (isnan(*change))
			snprintf(buf, sizeof(buf), "n/a");
		else
			snprintf(buf, sizeof(buf), "%+.*f%%", fabs(*change) < 10 ? 1 : 0, *change);
		role = *p < BASELINE_ALPHA ? class_role(METRIC_WARN) : base_role;
	}
	unsigned attr = top ? CANVAS_BOLD : stale ? CANVAS_DIM : 0;
	int lead = top ? 1 : 0; /* the column of the top mark */
	if (top)
		canvas_putx(c, x, y, ROLE_STACK_TOP, CANVAS_BOLD, 1, 0, STACK_TOP_MARK);
	if (running < 0.9999 && show_running) {
		char pct[NUMFMT_MAX + 8], num[NUMFMT_MAX];
		size_t n = pad_left(pct, 0, num, numfmt_fixed(num, running * 100, 0), 3);
		pct[n] = '%', pct[n + 1] = '\0'; /* "%3.0f%%" */
		canvas_putx(c, x + lead, y, role, attr, w - 6 - lead, CANVAS_ALIGN_RIGHT, buf);
		canvas_putx(c, x + w - 5, y, ROLE_CELL_SCALED, CANVAS_DIM, 4, 0, pct);
	} else {
		canvas_putx(c, x + lead, y, role, attr, w - 2 - lead, CANVAS_ALIGN_RIGHT, buf);
		const char *mark = output_value_mark(snap, m, running, d);
		if (mark)
			canvas_put(c, x + w - 2, y, ROLE_CELL_SCALED, mark);
	}
}

/* --- stacked bar ---------------------------------------------------------------------------- */

/* The key of a row's bar: the row's key @rk and what draw_stack_bar draws from. */
static uint64_t bar_key(uint64_t rk, const struct output_stack *sr)
{
	uint64_t bk = canvas_hash(rk, sr->share, (size_t)sr->n * sizeof(sr->share[0]));
	int bar_in[] = {sr->n, sr->na, sr->past_100};
	return canvas_hash_str(canvas_hash(bk, bar_in, sizeof(bar_in)), sr->mark);
}

/* The bar of one row: @w columns are 100 % (what the shares leave is dotted); then "+" when the
 * shares add past 100 % (the bar is cut there) and the mark of its values. */
static void draw_stack_bar(struct canvas *c, int x, int y, int w, const struct output_stack *sr)
{
	if (sr->na) {
		canvas_putx(c, x, y, ROLE_CELL_NA, 0, w + STACK_TAIL, CANVAS_ELLIPSIS, "n/a");
		return;
	}
	struct canvas_segment segs[SESSION_MAX_STACK];
	for (int i = 0; i < sr->n; i++)
		segs[i] = (struct canvas_segment){ROLE_STACK_0 + i, sr->share[i] / 100,
						  stack_ascii[i], stack_glyphs[i]};
	canvas_fill(c, x, y, w, 1, ROLE_LEGEND, STACK_REST);
	canvas_stacked_bar(c, x, y, w, segs, sr->n);
	if (sr->past_100)
		canvas_put(c, x + w, y, ROLE_CELL_SCALED, "+");
	if (sr->mark)
		canvas_put(c, x + w + 1, y, ROLE_CELL_SCALED, sr->mark);
}

/* The bar's legend in the column header: each share's character and its metric's name, the
 * names cut to the same length when they do not all fit in @w columns. */
static void draw_stack_legend(struct canvas *c, int x, int y, int w, const struct snapshot *snap,
			      const struct view_input *in)
{
	int n = in->nstack < SESSION_MAX_STACK ? in->nstack : SESSION_MAX_STACK;
	const char *names[SESSION_MAX_STACK];
	int longest = 1;
	for (int i = 0; i < n; i++) {
		int m = in->stack[i];
		names[i] = m >= 0 && m < snap->nmetrics ? snap->metrics[m].name : "?";
		int nw = canvas_str_width(names[i]);
		longest = nw > longest ? nw : longest;
	}
	int keep = longest; /* columns of each name */
	for (; keep > 1; keep--) {
		int need = 0;
		for (int i = 0; i < n; i++) {
			int nw = canvas_str_width(names[i]);
			need += 1 + (nw < keep ? nw : keep) + (i ? 1 : 0);
		}
		if (need <= w)
			break;
	}
	int end = x + w;
	for (int i = 0; i < n && x < end; i++) {
		char a[2] = {stack_ascii[i], '\0'};
		x += canvas_putx(c, x, y, ROLE_STACK_0 + i, 0, end - x, 0,
				 c->ascii ? a : stack_glyphs[i]);
		x += canvas_putx(c, x, y, ROLE_COLUMN_HEADER, 0, end - x < keep ? end - x : keep, 0,
				 names[i]);
		x += 1;
	}
}

/* What the legend under the table explains: bars drawn, a top share, shares past 100 %, and
 * which marks the bars carry (@marks in output_value_mark's order: "*", "^", "~"). */
static void note_stack(const struct output_stack *sr, bool bar, bool *any_bar, bool *any_top,
		       bool *past_100, const char *marks[3])
{
	*any_top |= sr->top >= 0;
	if (!bar || sr->na)
		return;
	*any_bar = true;
	*past_100 |= sr->past_100;
	for (int k = 0; k < 3; k++)
		if (sr->mark && strcmp(sr->mark, output_marks[k]) == 0)
			marks[k] = output_marks[k];
}

/* The legend line of the stacked bars: "> largest share; bar = 100 %; after a bar: ~ ...". */
static void stack_legend_line(char *buf, size_t len, bool any_bar, bool any_top, bool past_100,
			      const char *const marks[3])
{
	static const char *const says[] = {
	    "* from different ticks (rotated sets)",
	    OUTPUT_COARSE_MARK " coarse values",
	    "~ scaled counts (multiplexed)",
	};
	size_t u = 0;
	buf[0] = '\0';
	if (!any_bar && !any_top)
		return;
	u += (size_t)snprintf(buf + u, len - u, "%s%s",
			      any_top ? STACK_TOP_MARK " largest share" : "",
			      any_bar ? (any_top ? "; bar = 100 %" : "bar = 100 %") : "");
	if (past_100 && u < len)
		u += (size_t)snprintf(buf + u, len - u, "; + shares add past 100 %% (bar cut)");
	const char *sep = "; after a bar: ";
	for (int k = 0; k < 3 && u < len; k++)
		if (marks[k]) {
			u += (size_t)snprintf(buf + u, len - u, "%s%s", sep, says[k]);
			sep = ", ";
		}
}

/* The table's column header at line @top (the layout draw_table worked out). */
static void draw_column_header(struct canvas *c, int top, const struct view_input *in,
			       const struct view_state *vs, const char *key_head, int key_col,
			       int colw, int shown, int task_x, int tcw, int attrib_x, int na,
			       int bar_x, int bar_w, int spark_x, int spark_w, bool spark)
{
	const struct snapshot *snap = in->snap;
	const struct view_jitter *jit = in->jitter;
	int nm = snap->nmetrics, c0 = vs->col_first;
	canvas_fill(c, 0, top, c->w, 1, ROLE_COLUMN_HEADER, NULL);
	canvas_putx(c, 0, top, ROLE_COLUMN_HEADER, vs->sort_col == -1 ? CANVAS_UNDERLINE : 0,
		    CPU_COL - 1, 0, key_head);
	for (int k = 0; k < shown; k++) {
		int m = c0 + k;
		char h[SESSION_METRIC_NAME_MAX + 24];
		const struct session_metric *sm = &snap->metrics[m];
		size_t hn = text_cat(h, sizeof(h), 0, sm->name);
		if (jit && jit->stat)
			text_cat(h, sizeof(h), text_cat(h, sizeof(h), hn, " "), jit->stat);
		else if (sm->unit[0])
			text_cat(h, sizeof(h), text_cat(h, sizeof(h), hn, " "), sm->unit);
		/* too wide: the unit goes first (the name alone is unambiguous), then the name
		 * is cut */
		if (canvas_str_width(h) > colw - 1)
			h[hn] = '\0';
		canvas_putx(c, CPU_COL + k * colw, top, ROLE_COLUMN_HEADER,
			    m == vs->sort_col ? CANVAS_UNDERLINE | CANVAS_BOLD : 0, colw - 1,
			    CANVAS_ALIGN_RIGHT | CANVAS_ELLIPSIS, h);
	}
	if (tcw) {
		canvas_putx(c, task_x, top, ROLE_COLUMN_HEADER,
			    vs->sort_col == VIEWS_SORT_RUN ? CANVAS_UNDERLINE | CANVAS_BOLD : 0,
			    TASKCOL_W - 1, CANVAS_ALIGN_RIGHT, "run%");
		canvas_putx(c, task_x + TASKCOL_W, top, ROLE_COLUMN_HEADER,
			    vs->sort_col == VIEWS_SORT_CPU_SHARE ? CANVAS_UNDERLINE | CANVAS_BOLD
								 : 0,
			    TASKCOL_W - 1, CANVAS_ALIGN_RIGHT, "cpu%");
	}
	for (int a = 0; a < na; a++)
		canvas_putx(c, attrib_x + a * ATTRIB_COLW, top, ROLE_COLUMN_HEADER, CANVAS_DIM,
			    ATTRIB_COLW - 1, CANVAS_ALIGN_RIGHT | CANVAS_ELLIPSIS,
			    jit->attrib_names[a]);
	if (na)
		canvas_putx(c, attrib_x + na * ATTRIB_COLW + 1, top, ROLE_COLUMN_HEADER, CANVAS_DIM,
			    TASK_COLW - 1, CANVAS_ELLIPSIS, "busiest task");
	if (bar_w)
		draw_stack_legend(c, bar_x, top, bar_w + STACK_TAIL, snap, in);
	if (shown < nm) { /* the columns hidden (< when some are left of those shown) */
		char more[24];
		int n = snprintf(more, sizeof(more), "%s+%d cols", c0 > 0 ? "<" : "", nm - shown);
		canvas_printf(c, c->w - n > spark_x ? c->w - n : spark_x, top, ROLE_COLUMN_HEADER,
			      "%s", more);
	} else if (spark)
		canvas_putx(c, spark_x, top, ROLE_COLUMN_HEADER, 0, spark_w, CANVAS_ELLIPSIS,
			    snap->metrics[vs->spark_metric].name);
}

static int draw_table(struct canvas *c, int top, int bottom, const struct view_input *in,
		      struct view_state *vs)
{
	const struct snapshot *snap = in->snap;
	if (!snap || snap->nrows == 0) {
		canvas_put(c, 0, top, ROLE_MESSAGE_INFO, "waiting for the first tick...");
		return top + 1;
	}
	int key_col = views_key_width(in);
	char key_head[16] = "CPU"; /* or the unit: "CORE" */
	for (int i = 0; in->row_unit && in->row_unit[i] && i < 15; i++)
		key_head[i] = (char)toupper((unsigned char)in->row_unit[i]), key_head[i + 1] = '\0';
	int colw = (vs->show_running ? 13 : 11) + (in->err ? 7 : 0); /* "±0.045" */
	int nm = snap->nmetrics;
	const struct view_jitter *jit = in->jitter;
	const double *values = jit && jit->values ? jit->values : snap->values;
	int na = jit && jit->attrib ? jit->nattrib : 0;
	int attrib_w = na ? na * ATTRIB_COLW + TASK_COLW : 0;
	if (attrib_w > c->w - CPU_COL - colw)
		attrib_w = 0, na = 0; /* too narrow: the metrics first */
	/* the task view's run% and cpu% follow the metrics shown, kept when metrics scroll */
	int tcw =
	    vs->task_cpu && c->w - CPU_COL - attrib_w - colw >= 2 * TASKCOL_W ? 2 * TASKCOL_W : 0;
	attrib_w += tcw;
	/* columns as wide as the longest header ("dmiss_pct %") when they all fit */
	int wide = colw;
	for (int m = 0; m < nm; m++) {
		const struct session_metric *sm = &snap->metrics[m];
		int hw = canvas_str_width(sm->name) + 2 +
			 (jit && jit->stat ? 1 + canvas_str_width(jit->stat)
			  : sm->unit[0]	   ? 1 + canvas_str_width(sm->unit)
					   : 0);
		if (hw > wide)
			wide = hw;
	}
	if (wide > 24)
		wide = 24;
	/* the room there is: columns widen towards the longest header while all still fit */
	int room = nm > 0 ? (c->w - CPU_COL - attrib_w) / nm : 0;
	if (room > colw)
		colw = room < wide ? room : wide;
	int fit = (c->w - CPU_COL - attrib_w) / colw;
	int shown = nm < fit ? nm : fit;
	if (shown < 0)
		shown = 0;
	/* "<+N cols" says columns are hidden: one more column gives way when there is no room
	 * for it after them (it goes one cell past the last column) */
	if (shown > 1 && shown < nm &&
	    c->w - CPU_COL - attrib_w - shown * colw <
		snprintf(NULL, 0, "<+%d cols", nm - shown + 1) + 1)
		shown--;
	/* Left/Right scroll the metric columns that do not fit */
	if (vs->col_first > nm - shown)
		vs->col_first = nm - shown;
	if (vs->col_first < 0)
		vs->col_first = 0;
	int c0 = vs->col_first;
	int task_x = CPU_COL + shown * colw;
	int attrib_x = task_x + tcw;
	/* the stacked bar gets what the columns leave: it shrinks and goes before a column is
	 * cut */
	int bar_x = attrib_x + (na ? attrib_w - tcw : 0) + 1, bar_w = 0;
	if (in->nstack > 0 && in->stack && shown == nm) {
		bar_w = c->w - bar_x - STACK_TAIL;
		bar_w = bar_w > STACK_BAR_MAX ? STACK_BAR_MAX : bar_w < STACK_BAR_MIN ? 0 : bar_w;
	}
	int spark_x = bar_w ? bar_x + bar_w + STACK_TAIL + 1 : bar_x;
	int spark_w = c->w - spark_x;
	if (spark_w > VIEWS_SPARK_LEN)
		spark_w = VIEWS_SPARK_LEN;
	bool spark = vs->spark_metric >= 0 && vs->spark_metric < nm && spark_w >= 8;
	/* column header: drawn from these alone, kept while they stay the same */
	int layout[] = {key_col,
			colw,
			shown,
			c0,
			nm,
			tcw,
			na,
			bar_w,
			spark_x,
			spark_w,
			spark ? vs->spark_metric : -1,
			vs->sort_col,
			in->nstack};
	uint64_t key = canvas_hash_str(canvas_hash(0, layout, sizeof(layout)), key_head);
	key = canvas_hash_str(key, jit ? jit->stat : NULL);
	for (int m = 0; m < nm; m++)
		key = canvas_hash_str(canvas_hash_str(key, snap->metrics[m].name),
				      snap->metrics[m].unit);
	for (int a = 0; a < na; a++)
		key = canvas_hash_str(key, jit->attrib_names[a]);
	if (in->stack && in->nstack > 0)
		key = canvas_hash(key, in->stack, (size_t)in->nstack * sizeof(*in->stack));
	int row_in[] = {vs->show_running,	 in->stale,	     in->err != NULL,
			in->base_change != NULL, in->base_p != NULL, values == snap->values};
	uint64_t row_layout = canvas_hash(key, row_in, sizeof(row_in));
	if (!canvas_keep(c, top, key))
		draw_column_header(c, top, in, vs, key_head, key_col, colw, shown, task_x, tcw,
				   attrib_x, na, bar_x, bar_w, spark_x, spark_w, spark);
	bool any_bar = false, any_top = false, past_100 = false;
	const char *marks[3] = {NULL, NULL, NULL}; /* the marks the bars carry, for the legend */
	int y = top + 1;
	int order[snap->nrows > 0 ? snap->nrows : 1];
	views_table_order(snap, in->core_type, vs, order);
	for (int k = 0; vs->pin && k < snap->nrows; k++)
		if (snap->cpus[order[k]] == vs->pin_cpu)
			vs->scroll = k;
	if (vs->pin && !in->header->first_tick_pending)
		vs->pin = false; /* the new mode's numbers are drawn: the user moves it again */
	int rows_room = bottom - y - 1; /* keep one line for the total */
	int group_lines = 0;
	const char *last_type = NULL;
	/* the selected row (vs->scroll) is kept in view; rows scroll only when they do not all
	 * fit */
	int sel = vs->scroll;
	if (sel > snap->nrows - 1)
		sel = snap->nrows > 0 ? snap->nrows - 1 : 0;
	if (sel < 0)
		sel = 0;
	int first = sel - rows_room + 1 > 0 ? sel - rows_room + 1 : 0;
	if (vs->group_by_type && in->core_type)
		first = sel; /* group titles take lines: the selection goes first */
	/* a row without a core type: every row (one core PMU, "cpu", or none), or a CPU whose PMU
	 * is not known on a hybrid machine */
	bool typed = false;
	for (int r = 0; vs->group_by_type && in->core_type && r < snapshot_cpu_rows(snap); r++)
		typed |= in->core_type[r][0] != '\0';
	int drawn = 0;
	for (int k = first; k < snapshot_cpu_rows(snap); k++) {
		int r = order[k];
		const char *type = in->core_type ? in->core_type[r] : "";
		if (vs->group_by_type && (!last_type || strcmp(type, last_type) != 0)) {
			if (y >= top + 1 + rows_room)
				break;
			views_put_line(c, y++, ROLE_TITLE, CANVAS_BOLD, CANVAS_ELLIPSIS,
				       type[0] ? type
				       : typed ? "(core type not known)"
					       : "all CPUs: one core type");
			last_type = type;
			group_lines++;
		}
		if (y >= top + 1 + rows_room)
			break;
		/* the row is kept while its layout, CPU, label, selection and state are; its spans
		 * (each value, the task columns, the bar, the attribution, the sparkline) while
		 * their inputs are */
		int ident[] = {snap->cpus[r], k == sel, snap->offline[r]};
		uint64_t rk = canvas_hash(row_layout, ident, sizeof(ident));
		if (in->row_keys)
			rk = canvas_hash_str(rk, in->row_keys[r].label);
		if (!canvas_keep(c, y, rk)) {
			views_put_key(c, y, in, r);
			if (k == sel) /* the selected row (the one enter drills into) */
				canvas_paint(c, 0, y, CPU_COL - 1, 1, ROLE_SELECTED_ROW, 0);
			if (snap->offline[r])
				canvas_put(c, CPU_COL, y, ROLE_CELL_NA, "offline");
		}
		const struct count *counts = &snap->counts[r * snap->nevents];
		if (!snap->offline[r]) {
			struct output_stack sr;
			output_stack_row(snap, in->stack, in->nstack, &values[r * nm],
					 &snap->running[r * nm],
					 snap->detail ? &snap->detail[r * nm] : NULL, &sr);
			for (int k = 0; k < shown; k++) {
				int m = c0 + k;
				int at = r * nm + m;
				const struct metric_detail *d =
				    snap->detail ? &snap->detail[at] : NULL;
				bool top = sr.top >= 0 && in->stack[sr.top] == m;
				const double *err =
				    in->err && values == snap->values ? &in->err[at] : NULL;
				const double *change = in->base_change && values == snap->values
							   ? &in->base_change[at]
							   : NULL;
				const double *p = in->base_p ? &in->base_p[at] : NULL;
				uint64_t ck =
				    isnan(values[at])
					? na_key(rk, snap, counts, m)
					: cell_key(rk, snap, values[at], snap->running[at], d, err,
						   change, p, snap->classes[at], m, top);
				if (canvas_keep_span(c, y, k < SPAN_TASK ? k : -1,
						     CPU_COL + k * colw, colw, ck))
					continue;
				draw_cell(c, CPU_COL + k * colw, y, colw, snap, counts, values[at],
					  snap->classes[at], snap->running[at], m, vs->show_running,
					  ROLE_CELL, d, top, err, change, p, in->stale);
			}
			double tv[2] = {tcw ? task_col(snap, vs, VIEWS_SORT_RUN, r) : 0,
					tcw ? task_col(snap, vs, VIEWS_SORT_CPU_SHARE, r) : 0};
			bool task_kept = tcw && canvas_keep_span(c, y, SPAN_TASK, task_x, tcw,
								 canvas_hash(rk, tv, sizeof(tv)));
			for (int k = 0; k < (tcw && !task_kept ? 2 : 0); k++) {
				double v = tv[k];
				char buf[16] = "n/a";
				if (!isnan(v))
					snprintf(buf, sizeof(buf), "%.1f", v * 100);
				canvas_putx(c, task_x + k * TASKCOL_W, y,
					    isnan(v) ? ROLE_CELL_NA : ROLE_CELL, 0, TASKCOL_W - 1,
					    CANVAS_ALIGN_RIGHT, buf);
			}
			if (bar_w && !canvas_keep_span(c, y, SPAN_BAR, bar_x, bar_w + STACK_TAIL,
						       bar_key(rk, &sr)))
				draw_stack_bar(c, bar_x, y, bar_w, &sr);
			note_stack(&sr, bar_w > 0, &any_bar, &any_top, &past_100, marks);
			uint64_t ak = 0;
			if (na) {
				ak = canvas_hash(rk, &jit->attrib[r * jit->nattrib],
						 (size_t)na * sizeof(double));
				ak = canvas_hash_str(ak, jit->task ? jit->task[r] : NULL);
			}
			bool attrib_kept =
			    na && canvas_keep_span(c, y, SPAN_ATTRIB, attrib_x,
						   na * ATTRIB_COLW + 1 + TASK_COLW, ak);
			for (int a = 0; a < (attrib_kept ? 0 : na); a++) {
				char buf[32];
				output_format_value(jit->attrib[r * jit->nattrib + a], buf,
						    sizeof(buf));
				canvas_putx(c, attrib_x + a * ATTRIB_COLW, y,
					    isnan(jit->attrib[r * jit->nattrib + a]) ? ROLE_CELL_NA
										     : ROLE_CELL,
					    0, ATTRIB_COLW - 1, CANVAS_ALIGN_RIGHT, buf);
			}
			if (!attrib_kept && na && jit->task && jit->task[r])
				canvas_putx(c, attrib_x + na * ATTRIB_COLW + 1, y, ROLE_CELL, 0,
					    TASK_COLW - 1, CANVAS_ELLIPSIS, jit->task[r]);
			if (spark) {
				double series[VIEWS_SPARK_LEN];
				int n = history_series(in->history, r, vs->spark_metric, series,
						       spark_w);
				uint64_t sk = canvas_hash(canvas_hash(rk, &n, sizeof(n)), series,
							  (size_t)n * sizeof(series[0]));
				if (!canvas_keep_span(c, y, SPAN_SPARK, spark_x, spark_w, sk))
					canvas_sparkline(c, spark_x, y, ROLE_SPARKLINE, series, n,
							 0, 0);
			}
		}
		y++;
		drawn++;
	}
	int hidden = snapshot_cpu_rows(snap) ? snap->nrows - first - drawn : 0;
	/* total row: kept as the CPU rows are; a span that misses is blank in the row's own
	 * background (canvas_keep_span_in) */
	uint64_t tk = canvas_hash_str(row_layout, " all");
	if (!canvas_keep(c, y, tk)) {
		canvas_fill(c, 0, y, c->w, 1, ROLE_TOTAL_ROW, NULL);
		canvas_put(c, 0, y, ROLE_TOTAL_ROW, " all");
	}
	struct output_stack total;
	output_stack_row(snap, in->stack, in->nstack, snap->total_values, snap->total_running,
			 snap->detail ? &snap->detail[snap->nrows * nm] : NULL, &total);
	for (int k = 0; k < shown; k++) {
		int m = c0 + k;
		int at = snap->nrows * nm + m;
		const struct metric_detail *d = snap->detail ? &snap->detail[at] : NULL;
		bool top = total.top >= 0 && in->stack[total.top] == m;
		const double *err = in->err ? &in->err[at] : NULL;
		const double *change = in->base_change ? &in->base_change[at] : NULL;
		const double *p = in->base_p ? &in->base_p[at] : NULL;
		uint64_t ck =
		    isnan(snap->total_values[m])
			? na_key(tk, snap, snap->total_counts, m)
			: cell_key(tk, snap, snap->total_values[m], snap->total_running[m], d, err,
				   change, p, snap->total_classes[m], m, top);
		if (canvas_keep_span_in(c, y, k < SPAN_TASK ? k : -1, CPU_COL + k * colw, colw, ck,
					ROLE_TOTAL_ROW))
			continue;
		draw_cell(c, CPU_COL + k * colw, y, colw, snap, snap->total_counts,
			  snap->total_values[m], snap->total_classes[m], snap->total_running[m], m,
			  vs->show_running, ROLE_TOTAL_ROW, d, top, err, change, p, in->stale);
	}
	if (bar_w && !canvas_keep_span_in(c, y, SPAN_BAR, bar_x, bar_w + STACK_TAIL,
					  bar_key(tk, &total), ROLE_TOTAL_ROW))
		draw_stack_bar(c, bar_x, y, bar_w, &total);
	int more_in[] = {hidden, first};
	if (!canvas_keep_span_in(c, y, SPAN_SPARK, spark_x, c->w - spark_x,
				 canvas_hash(tk, more_in, sizeof(more_in)), ROLE_TOTAL_ROW)) {
		if (hidden > 0 || first > 0) {
			char more[48];
			snprintf(more, sizeof(more), "%s%d more", first > 0 ? "^ " : "",
				 hidden > 0 ? hidden : first);
			canvas_putx(c, spark_x, y, ROLE_LEGEND, 0, -1, CANVAS_ELLIPSIS, more);
		}
	}
	note_stack(&total, bar_w > 0, &any_bar, &any_top, &past_100, marks);
	char legend[512];
	if (in->stale && shown > 0 && y + 1 < bottom) {
		views_put_line(c, y + 1, ROLE_MESSAGE_WARN, 0, CANVAS_ELLIPSIS,
			       VIEWS_STALE " stale: the link is down, the values are the last good "
					   "tick's");
		y++;
	}
	output_coarse_legend(snap, legend, sizeof(legend));
	if (legend[0] && y + 1 < bottom) {
		views_put_line(c, y + 1, ROLE_LEGEND, CANVAS_DIM, CANVAS_ELLIPSIS, legend);
		y++;
	}
	stack_legend_line(legend, sizeof(legend), any_bar, any_top, past_100, marks);
	if (legend[0] && y + 1 < bottom) {
		views_put_line(c, y + 1, ROLE_LEGEND, CANVAS_DIM, CANVAS_ELLIPSIS, legend);
		y++;
	}
	return y + 1;
}

/* --- the views: one row each, the first the main view ------------------------------------ */

static void view_table(struct canvas *c, int top, int bottom, const struct view_input *in,
		       struct view_state *vs)
{
	draw_table(c, top, bottom, in, vs);
}

int views_draw_table(struct canvas *c, int top, int bottom, const struct view_input *in,
		     struct view_state *vs)
{
	return draw_table(c, top, bottom, in, vs);
}

static const struct view_def view_table_def = {"table", "per-CPU metrics (the main view)",
					       view_table};
/* the other views, each defined in its file (src/view/view-*.c) */
extern const struct view_def view_offcore_def, view_help_def, view_messages_def, view_probe_def,
    view_spikes_def, view_counters_def, view_tasks_def, view_cgroups_def;
static const struct view_def view_cpus_def = {"cpus", "back to counting the CPUs (the main view)",
					      view_table};

static const struct view_def *const view_defs[] = {
    &view_table_def,  &view_offcore_def,  &view_help_def,  &view_messages_def, &view_probe_def,
    &view_spikes_def, &view_counters_def, &view_tasks_def, &view_cgroups_def,  &view_cpus_def,
};

const struct view_def *views_at(int i)
{
	return i >= 0 && (size_t)i < sizeof(view_defs) / sizeof(view_defs[0]) ? view_defs[i] : NULL;
}

int views_find(const char *name)
{
	for (int i = 0; views_at(i); i++)
		if (strcmp(views_at(i)->name, name) == 0)
			return i;
	return -1;
}

int views_draw(struct canvas *c, const struct view_input *in, struct view_state *vs)
{
	canvas_begin(c);
	if (c->w < MIN_W || c->h < MIN_H) {
		canvas_putx(c, 0, 0, ROLE_MESSAGE_WARN, 0, -1, CANVAS_ELLIPSIS,
			    "terminal too small");
		char need[64];
		snprintf(need, sizeof(need), "need %dx%d, have %dx%d", MIN_W, MIN_H, c->w, c->h);
		canvas_putx(c, 0, 1, ROLE_MESSAGE_WARN, 0, -1, CANVAS_ELLIPSIS, need);
		canvas_putx(c, 0, 2, ROLE_HELP_TEXT, 0, -1, CANVAS_ELLIPSIS, "q quits");
		canvas_end(c);
		return c->h - 1;
	}
	int top = draw_header(c, in->header, c->h >= 14);
	int bottom = c->h - 2; /* message line and prompt line */
	const struct view_def *v = views_at(vs->view);
	(v ? v : views_at(VIEWS_TABLE))->draw(c, top, bottom, in, vs);
	if (in->message)
		views_put_line(c, c->h - 2, in->message_role, 0, CANVAS_ELLIPSIS, in->message);
	if (in->prompt) {
		views_put_line(c, c->h - 1, ROLE_PROMPT, 0, 0, in->prompt);
	} else {
		static const char hints[] =
		    "q quit  : command  space pause  m/M mode  </> sort  +/- interval  "
		    "t theme  o offcore  ? help";
		static const char replay_hints[] = "q quit  : command  space pause  ./, tick  "
						   "[/] speed  g/G start/end  ' mark  ? help";
		char line[256];
		/* a drill-down (enter) or the way back from one (backspace) comes first */
		size_t used = 0;
		if (in->drill) {
			used = text_cat(line, sizeof(line), used, "enter drill to ");
			used = text_cat(line, sizeof(line), used, in->drill);
			used = text_cat(line, sizeof(line), used, "  ");
		}
		if (in->drilled_from) {
			used = text_cat(line, sizeof(line), used, "bksp back to ");
			used = text_cat(line, sizeof(line), used, in->drilled_from);
			used = text_cat(line, sizeof(line), used, "  ");
		}
		text_cat(line, sizeof(line), used, in->replay ? replay_hints : hints);
		views_put_line(c, c->h - 1, ROLE_HELP_KEY, CANVAS_DIM, CANVAS_ELLIPSIS, line);
	}
	canvas_end(c);
	return c->h - 1;
}

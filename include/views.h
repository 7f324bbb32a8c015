/* SPDX-License-Identifier: GPL-2.0-or-later */
/* views.h: the screens (per-CPU table, offcore, help, messages) drawn into a canvas, curses-free.
 */
#ifndef PMUTOP_VIEWS_H
#define PMUTOP_VIEWS_H
#include "canvas.h"
#include "rows.h"
#include "session.h"
#include <stdbool.h>

#define VIEWS_SPARK_LEN 120 /* samples of sparkline history per row */

/* The user's choices about what to show. */
struct view_state {
	int view;     /* a row of the view table (views_at), VIEWS_TABLE the main view */
	int sort_col; /* -1: by CPU number; 0..nmetrics-1: by that metric */
	bool sort_desc;
	int spark_metric; /* -1: none */
	bool group_by_type;
	bool show_running; /* show the running percentage of scaled values */
	int scroll;	   /* first line of scrollable views; the table's selected row */
	int col_first;	   /* the table's first metric column shown (Left/Right scroll) */
	/* the selection follows CPU pin_cpu (a drill-down keeps the CPU selected) until the new
	 * mode's first full tick is drawn */
	bool pin;
	int pin_cpu;
	/* the task view's columns: each row's CPU share from /proc (0..1, NAN: none) [ntask_cpu],
	 * beside its run% (from the snapshot); NULL: not shown */
	const double *task_cpu;
	int ntask_cpu;
};
/* sort_col of the task view's columns */
#define VIEWS_SORT_RUN (-3)	  /* run%: the least running share of the row's counters */
#define VIEWS_SORT_CPU_SHARE (-4) /* cpu%: the task's CPU time over the tick, from /proc */

/* Text of the header (all strings escaped by the caller). */
struct view_header {
	const char *host, *kernel;
	const char *pmu;    /* "Intel Skylake", "software events only", ... */
	const char *banner; /* "SIMULATED", "REPLAY file.jsonl", or NULL */
	const char *mode, *title;
	long interval_ms;
	double measured_ms; /* last tick */
	unsigned long long samples;
	bool paused;
	bool first_tick_pending; /* a mode switch waits for its first full tick */
	const char *capability;
	int warnings;
	const char *extra; /* a free line (recording state, cadence, ...) or NULL */
};

/* Last minute (VIEWS_SPARK_LEN ticks) of each row's metrics, for sparklines. */
struct view_history {
	int nrows, nmetrics;
	int len, head; /* ring */
	double *v;     /* [slot][row][metric] */
	uint64_t seq;  /* the snapshot pushed last (a frame built again for it adds nothing) */
};

__attribute__((cold)) int view_history_reset(struct view_history *h, int nrows, int nmetrics);
void view_history_push(struct view_history *h, const struct snapshot *snap);
void view_history_free(struct view_history *h);

/* Lines for text views (help, messages, probe, spikes). */
struct view_lines {
	const char *const *lines;
	const int *roles; /* per line, may be NULL */
	int n;
};

/* Optional jitter additions to the table: a window statistic in the metric cells and
 * attribution columns after them. */
struct view_jitter {
	const char *stat;     /* name of the statistic shown ("p99"), NULL: plain values */
	const double *values; /* [row * nmetrics + m] shown instead of snap->values, or NULL */
	int nattrib;	      /* attribution columns, 0: none */
	const char *const *attrib_names;
	const double *attrib;	 /* [row * nattrib + a], NAN = n/a */
	const char *const *task; /* [row] busiest task ("stress-ng 98%") or NULL */
};

struct view_input {
	const struct view_header *header;
	const struct snapshot *snap;  /* NULL before the first tick */
	const char *const *core_type; /* per row, "" if none (grouping) */
	/* rows summed by a unit (frame.h): the column head ("CORE") and each row's key; NULL: a
	 * row per CPU */
	const char *row_unit;
	const struct row_key *row_keys;
	const struct view_history *history;
	struct view_lines text; /* for the text views: help, messages, probe, spikes */
	const char *message;	/* message line */
	int message_role;
	const char *prompt; /* visible prompt text or NULL */
	int prompt_cursor;  /* column of the cursor in the prompt */
	/* the offcore view's data: per bit name, rate, share, age; per row shares */
	int nbits;
	const char *const *bit_names;
	const double *bit_rate;		  /* total rate per bit, events/s */
	const double *bit_share;	  /* 0..1, NAN = no share (ANY bit, not measured) */
	const int *bit_age;		  /* ticks since measured, -1 never */
	const double *row_bit_share;	  /* [row * nbits + bit], NAN = none */
	const struct view_jitter *jitter; /* NULL: none */
	/* the stacked bar of a mode with "stack =" (frame.h): the snapshot's metric index of each
	 * share in the bar's order, -1 for a metric gone; nstack 0: no bar */
	int nstack;
	const int *stack;
	/* error bars (frame.h err: 95 % half-widths, [row * nmetrics + m], the total row last), or
	 * NULL: cells show "1.32±0.04" */
	const double *err;
	/* against a baseline (frame.h base_change, base_p_adj), or NULL: cells show the change
	 * ("+12%"), coloured only when significant */
	const double *base_change, *base_p;
	const char *drill;	  /* the running mode's drill-down mode (enter), or NULL */
	const char *drilled_from; /* the mode a drill-down came from (backspace), or NULL */
	bool replay;		  /* a replay: the key bar shows the replay's keys */
	bool stale; /* the numbers are the last good tick's (frame.h): each cell gets VIEWS_STALE */
};
/* The mark of a stale cell (a value from the last good tick while the link is down): plain
 * ASCII, so it reads without colour, in mono and in ASCII mode. */
#define VIEWS_STALE "!"

/* One view: its name (:view NAME), a line of help, and how it draws the rows between the
 * header and the message line. Adding a view is its file (src/view/view-NAME.c, defining
 * view_NAME_def) and one row of the table in src/view/views.c. */
struct view_def {
	const char *name;
	const char *help;
	void (*draw)(struct canvas *c, int top, int bottom, const struct view_input *in,
		     struct view_state *vs);
};
#define VIEWS_TABLE 0 /* the table's first row: the per-CPU table, the main view */
/* The @i-th view of the table; NULL past the end. */
const struct view_def *views_at(int i);
/* The row of the view named @name; -1 when there is none. */
int views_find(const char *name);
/* For the views' files: the key column's width (CPU numbers or summed rows' labels, the
 * separating blank included) and row @r's key drawn at line @y. */
int views_key_width(const struct view_input *in);
void views_put_key(struct canvas *c, int y, const struct view_input *in, int r);

/* Line @y drawn from @text alone (from column 0, cut at the right edge), kept between frames
 * while its text, role, attributes and flags stay the same (canvas_keep): nothing else may
 * write on that line. */
void views_put_line(struct canvas *c, int y, int role, unsigned attr, unsigned flags,
		    const char *text);
/* Draws the whole screen. Returns the row of the prompt line (for the cursor). */
int views_draw(struct canvas *c, const struct view_input *in, struct view_state *vs);
/* The table's rows in the order drawn (sort, grouping by core type): @order gets nrows row
 * indices. */
void views_table_order(const struct snapshot *snap, const char *const *core_type,
		       const struct view_state *vs, int *order);
/* The table (the main view's rows) between @top and @bottom: for views that add a line to it. */
int views_draw_table(struct canvas *c, int top, int bottom, const struct view_input *in,
		     struct view_state *vs);
/* Column names of the table for :sort and < > (metrics, then "cpu"). */
int views_sort_column(const struct snapshot *snap, const char *name);
/* Row @r's run share: the least running/enabled of its counters over the tick (0..1); NAN when
 * none was opened. */
double views_row_running(const struct snapshot *snap, int r);

#endif

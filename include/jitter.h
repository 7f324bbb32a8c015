/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jitter.h: fast sampling with calm display: window statistics, spikes, flight recorder, self
 * cadence. */
#ifndef PMUTOP_JITTER_H
#define PMUTOP_JITTER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alert.h"
#include "attrib.h"
#include "cadence.h"
#include "counts.h"
#include "flight.h"
#include "loop.h"
#include "output.h"
#include "stats.h"

struct app_ctx;

/* samples per refresh window (1 ms sampling, 1 min refresh) */
#define JITTER_WINDOW_MAX 60000
/* spikes kept in the log */
#define JITTER_SPIKE_LOG 4096
/* the default rule per metric, and for per-second metrics (a floor of 2 events) */
#define JITTER_DEFAULT_RULE "mad %s 8 window 64 floor 5%%"
#define JITTER_DEFAULT_RATE_RULE "mad %s 8 window 64 floor %.6g"
/* s of samples kept after a trigger (at most a third of --flight) */
#define JITTER_FLIGHT_AFTER_S 2.0
#define JITTER_FLIGHT_FILES 10		  /* flight recordings kept by default (oldest removed) */
#define JITTER_FLIGHT_BYTES (64ull << 20) /* their bytes kept by default */

/* Which statistic of the refresh window the table shows. */
enum jitter_stat {
	JITTER_VALUE,
	JITTER_MIN,
	JITTER_MEDIAN,
	JITTER_P99,
	JITTER_MAX,
	JITTER_DEV,
	JITTER_NSTATS
};
const char *jitter_stat_name(enum jitter_stat s);
/* "value", "min", "median", "p99", "max", "dev" -> stat; -1 when unknown. */
int jitter_stat_parse(const char *name);

/* Statistics of one (CPU, column) over the last closed window; dev compares the window's median
 * with the median of all CPUs' medians (delta and MAD units, stats.h). */
struct jitter_cell {
	struct stats st;
	struct peer_dev dev;
};

struct jitter_agg; /* accumulated counts of the open window (private) */

struct jitter {
	struct app_ctx *app;
	/* layout of the current mode */
	int nrows, nevents, nmetrics, ncols; /* ncols = nmetrics + ATTRIB_NCOLS */
	size_t k;			     /* samples per window */
	size_t nwin;			     /* samples in the open window */
	double win_end_s;      /* the open window's end (s, the snapshots' clock; 0 unset): the ring
				* path cuts windows by time */
	struct series_set win; /* [row][col], cap k */
	struct jitter_agg *acc;
	/* the last closed window */
	struct snapshot agg; /* counts and metrics summed over the window */
	bool have_agg;
	struct jitter_cell *cells; /* [row * ncols + col] */
	double *shown;		   /* [row * nmetrics + m]: the chosen statistic, for the table */
	uint64_t windows;	   /* windows closed */
	double window_interval_ms; /* measured mean sample interval of the last window */
	unsigned long long spikes_before; /* log->total when the last closed window began */
	unsigned long long spikes_open;	  /* log->total when the open window began */
	/* rules (the set itself is below) and spikes */
	bool user_rules;    /* false: the default mad rule per metric */
	long rules_tick_us; /* sample cadence the default rules were made for (us) */
	struct spike_log log;
	enum jitter_stat stat;
	/* flight recorder: made when the jitter state is attached and when a mode opens (the
	 * session's rows and events known), so the first tick maps nothing in */
	struct flight *flight;
	uint64_t flight_tick_ns; /* the sample cadence it was made for (ns) */
	bool flight_pending;
	double flight_due_s;
	int flight_files;
	/* the recordings this run wrote, oldest first: removed beyond these bounds (settings
	 * flight-files, flight-bytes) */
	struct jitter_flight_file {
		char *path;
		unsigned long long bytes;
	} * written;
	int nwritten;
	int max_files;		      /* 1 .. 10000 */
	unsigned long long max_bytes; /* bytes, at least 64 KiB */
	/* freeze: the view keeps the window of the trigger */
	bool frozen, freeze_pending;
	bool freeze_held_off; /* :freeze off: rules go on recording but leave the view following */
	/* attribution (its state is below) */
	bool attrib_on;
	bool attrib_ready;
	/* the sampler itself */
	bool cad_ready;
	uint64_t cad_loop_t0;
	/* the sampling ring path (perfring.h), live or replayed: the kernel's counts per row
	 * (enum ring_count: samples lost, ns throttled, throttling episodes begun), from the
	 * backend's cumulative ones */
	bool ring;
	struct jitter_ring_count {
		uint64_t *open; /* [row] the backend's count when the window opened */
		uint64_t *win;	/* [row] in the last closed window */
		uint64_t *tick; /* [row] the backend's count at the last sample (flight notes) */
		uint64_t total; /* since the mode opened, all rows */
	} rc[RING_NCOUNTS];
	uint64_t *ring_mem;   /* the arrays of rc[], one block */
	int64_t ring_last_ns; /* the last ring tick's sample time (cadence) */
	/* the big members last, after what a tick reads: the sampler's cadence (its figures first,
	 * then its rings), the rules, the attribution, the texts */
	struct cadence cad;
	struct alert_set rules;
	struct attrib attrib;
	struct rec_mark flight_mark;
	char flight_path[1024]; /* last written */
	char note[512];
};

/* Creates the jitter state for @app (app->jitter), registers its hook and the commands sample,
 * refresh, alert, export, freeze; applies --alert, --flight, --attrib and --pin
 * (sched_setaffinity). Returns 0, or -1 with a cause (bad rule, no memory). */
int jitter_attach(struct app_ctx *app, char *err, size_t errlen);
struct jitter *jitter_get(const struct app_ctx *app);
/* Feeds the loop's tick (lateness, overruns) into the self cadence. */
void jitter_loop_tick(struct app_ctx *app, const struct loop_event *ev);
/* Windows closed so far (output/redraw when it changes). */
uint64_t jitter_windows(const struct app_ctx *app);
/* The snapshot to show or print: the last window's sums, the session's when one sample is one
 * window, the frozen window while frozen. NULL before the first window. */
const struct snapshot *jitter_snapshot(const struct app_ctx *app);
/* Cell of (row, col); col < nmetrics is a metric, else attribution column col - nmetrics.
 * NULL when the last window computed no statistics (one sample per window and nothing that
 * reads them: see stats_wanted() in jitter.c). */
const struct jitter_cell *jitter_cell(const struct jitter *j, int row, int col);
/* The statistic @stat of a cell (JITTER_VALUE: its median); NAN when not available. */
double jitter_cell_stat(const struct jitter_cell *c, enum jitter_stat stat);
/* Adds a rule (the first user rule replaces the defaults); warns when the mode lacks its metric. */
int jitter_add_rule(struct app_ctx *app, const char *text, char *err, size_t errlen);
/* Drops the user's rules: the default rule per metric is back (:alert clear). */
void jitter_clear_rules(struct app_ctx *app);
/* Freezes the view on the trigger's window and writes the flight recording around @t_s. */
int jitter_trigger(struct app_ctx *app, double t_s, const char *why, char *err, size_t errlen);
int jitter_unfreeze(struct app_ctx *app);
/* Freezes the view at the current window without a flight recording (the screen only). */
void jitter_freeze_view(struct app_ctx *app);
/* The statistic the table shows instead of the values (JITTER_VALUE: the values). */
void jitter_set_stat(struct app_ctx *app, enum jitter_stat stat);
/* Bounds the flight recordings this run keeps (@max_files 1.., @max_bytes; 0 keeps a bound as
 * it is) and removes the oldest beyond them now. Returns -1 without the jitter tools. */
int jitter_set_flight_bounds(struct app_ctx *app, int max_files, unsigned long long max_bytes);
/* Writes the spike log to @path: CSV, or JSON Lines when the name ends in .jsonl or .json. */
int jitter_export_spikes(struct app_ctx *app, const char *path, char *err, size_t errlen);
int jitter_set_attrib(struct app_ctx *app, bool on, char *err, size_t errlen);
/* One status line: cadence, lateness, self CPU, flight memory, spikes. */
void jitter_status_line(const struct app_ctx *app, char *buf, size_t len);
/* The status line's inputs (times in ms, memory in bytes), and the line made from them without
 * printf: the bytes snprintf would write, cut at @len - 1 as snprintf cuts. */
enum jitter_late { JITTER_LATE_NA, JITTER_LATE_RING, JITTER_LATE_TICK };
struct jitter_status {
	bool frozen;
	double sample_ms, measured_ms;
	enum jitter_late late;
	double p99_ms, max_ms, throttled_ms; /* throttled: the ring's only */
	unsigned long long lost;	     /* ring samples lost, or ticks missed */
	bool try_realtime;		     /* ticks: "(try --realtime)" */
	bool self;			     /* own CPU known */
	double self_pct;		     /* % of one CPU */
	int self_cpu;
	bool flight;
	double flight_s; /* the flight recorder's span, s */
	size_t mem_bytes;
	unsigned long long spikes;
};
void jitter_status_format(const struct jitter_status *st, char *buf, size_t len);
/* Lines of the spike view, newest last: @add is called once per line. */
void jitter_spike_lines(const struct app_ctx *app,
			void (*add)(void *ctx, bool title, const char *line), void *ctx);
/* Gives frame @f its batch-output lines: the window statistics, spikes and self figures of @j
 * (written while @f is the newest frame). */
struct frame;
void jitter_frame_extras(const struct jitter *j, struct frame *f);

#endif

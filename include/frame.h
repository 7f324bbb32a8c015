/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame.h: one immutable frame per refresh: the numbers and the facts every output reads. */
#ifndef PMUTOP_FRAME_H
#define PMUTOP_FRAME_H
#include "rows.h"
#include "session.h"
#include "source.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FRAME_MAX_BITS 16 /* offcore request-type bits */

struct om_counters;
struct guard;
struct owners;

/*
 * Built by the engine (app_frame_build) once per refresh, after the pipeline ran: tick ->
 * counts -> metrics -> window statistics. The screen, batch output and the agent's stream read
 * it; none of them recomputes a total or a metric. Strings are escaped. A value: the engine's
 * facts (mode, title, machine, cadence) and each observer's contribution are copied in, and
 * everything it points to is storage the frame owns, so it stays exactly as built until the next
 * frame is built. A reader that keeps showing a frame while newer ones are built (the paused
 * screen) holds its own copy (frame_copy).
 */
#define BASELINE_ALPHA 0.05 /* a change against a baseline is significant below this p-value */

struct frame {
	uint64_t seq; /* frames since the start, 1, 2, ... */
	bool
	    stepped; /* built for a replay moved by hand (:tick, :jump): a paused screen shows it */
	const struct snapshot *snap; /* the refresh's numbers (window sums with --sample) */
	/* the source and the machine the numbers come from */
	const char *source_name; /* "perf", "sim", "replay", "remote" */
	unsigned caps;		 /* enum source_cap */
	bool simulated;
	const struct source_machine *machine; /* a copy (each text up to its NUL) */
	const char *origin; /* replayed file or remote host as given; NULL for a live source */
	/* the numbers are the last good tick's, not live: the remote link is down (the screen
	 * marks every value cell stale) */
	bool stale;
	bool show_self;	  /* the screen's header shows it (sampling, freeze or attribution on) */
	double timestamp; /* unix seconds at the end of the frame's tick; NAN when unknown */
	/* the mode and the cadence */
	long interval_ms, tick_ms; /* refresh and sample cadence */
	double speed;		   /* replay pace */
	uint64_t ticks, overruns;
	bool first_tick_pending;      /* a mode switch waits for its first full tick */
	const char *const *core_type; /* per row: core type name, "" if none */
	/* what a row stands for: ROWS_CPU (row_keys NULL, a row per CPU) or the unit the rows
	 * were summed by, with each row's key (label "S0-D0-C1", CPUs summed) */
	enum row_unit rows;
	const struct row_key *row_keys;
	/* offcore breakdown per request-type bit (nbits 0 in other modes): the all-CPU figures
	 * and, per row and for the total (row nrows), [row * nbits + bit] */
	int nbits;
	const double *row_bit_rate;  /* requests/s, NAN = not measured */
	const double *row_bit_share; /* 0..1, NAN = none */
	const int *row_bit_age;	     /* ticks, -1 never */
	/* the stacked bar (the mode's "stack ="): the snapshot's index of each stacked metric, in
	 * the bar's order, -1 for one the running mode no longer has; nstack 0: no bar */
	int nstack;
	int stack[SESSION_MAX_STACK];
	/* window statistics shown in the table: the chosen statistic instead of the values */
	const char *stat;	   /* "p99", NULL: plain values */
	const double *stat_values; /* [row * nmetrics + m] */
	/* error bars (uncertainty.h): the 95 % half-width of each metric [row * nmetrics + m] and
	 * count [row * nevents + e], the total row at row nrows; NULL when off, NAN not known yet,
	 * 0 exact. truth, truth_counts: the simulated true figures (--sim-truth), same layout. */
	const double *err, *err_counts;
	const double *truth, *truth_counts;
	/* against a baseline (baseline.h; NULL none), [row * nmetrics + m], the total row last:
	 * the change of the last windows' mean from the reference's [%], the 95 % half-width of
	 * that change [%], and Welch's two-sided p-value (NAN n/a) */
	const double *base_change, *base_err, *base_p;
	/* base_p adjusted by Holm's method over one metric's rows of the refresh (the all row a
	 * family of its own; baseline.h baseline_holm): significant below BASELINE_ALPHA */
	const double *base_p_adj;
	/* attribution columns (nattrib 0: none) */
	int nattrib;
	const char *const *attrib_names;
	const double *attrib;	 /* [row * nattrib + a], NAN = n/a */
	const char *const *task; /* [row] busiest task ("stress-ng 98%") or NULL */
	/* An observer's lines for batch output (the window statistics, spikes and self figures),
	 * written with the frame; NULL without them and in a held copy (frame_copy). @ctx is the
	 * frame. Valid only while this frame is the newest one. */
	void (*json_extra)(void *ctx, void *rec, void *row, int r);
	void (*text_extra)(void *ctx, FILE *out);
	const void *extra_state;
	/* [row]: samples the sampling ring lost in the window (PERF_RECORD_LOST), NULL when the
	 * samples are not taken into rings; live like the extras (NULL in a held copy) */
	const uint64_t *ring_lost;
	/* [row]: ns the kernel throttled the ring's group in the window and the episodes begun
	 * in it (PERF_RECORD_THROTTLE); NULL as ring_lost */
	const uint64_t *ring_throttled_ns, *ring_throttles;
	/* cumulative per-event counts for OpenMetrics (-f openmetrics, --listen), or NULL; valid
	 * only while this frame is the newest one (NULL in a held copy) */
	const struct om_counters *counters;
	/* their live state for batch output, or NULL; valid only while this frame is the newest
	 * one (NULL in a held copy) */
	const struct guard *guard;
	const struct owners *owners;
	/* The texts and the offcore arrays, last. A build sets each text afresh and reads none
	 * back, and fills bit_names..bit_age up to nbits: the bytes past a text's NUL and past
	 * nbits are left from earlier frames and mean nothing (a build clears only the fields
	 * above, and the first byte of each text: see frame_clear in frame.c). */
	/* the offcore breakdown's all-CPU figures per request-type bit, [0, nbits) */
	const char *bit_names[FRAME_MAX_BITS]; /* copies */
	double bit_rate[FRAME_MAX_BITS];  /* requests/s over all CPUs, NAN = not measured yet */
	double bit_share[FRAME_MAX_BITS]; /* 0..1 of the measured requests, NAN = none (the ANY
					   * bit, which is the whole, or not measured yet) */
	int bit_age[FRAME_MAX_BITS];	  /* ticks since measured, -1 never */
	/* the source and the machine */
	char pmu_line[160]; /* "Intel Skylake PMU", "software events only", "SIMULATED ..." */
	/* the events the all-CPU utilisation (metric "util") is computed from, with the step of a
	 * quantised one: "msr/mperf/ msr/tsc/", "proc/busy/ proc/idle/ (/proc/stat, 10 ms
	 * ticks)"; "" when the mode has none or it is n/a */
	char util_source[128];
	char banner[160];   /* "SIMULATED", "REPLAY file", "REMOTE host", "" */
	char position[192]; /* replay position or remote link state, "" */
	/* the recorder and the window statistics */
	char recorder[192]; /* "REC file 12 ticks", "" */
	/* cadence, lateness, own CPU, spikes; "" without window statistics or when the front end
	 * does not read it (app->frame_wants_self) */
	char self[256];
	/* the mode */
	char mode[SESSION_MODE_NAME];
	char title[96];
	char drill[SESSION_MODE_NAME]; /* the drill-down mode of the running mode, "" none */
	char baseline[160]; /* the baseline's name (a recording's path, "last 60s"), "" none */
	/* the validity guard (guard.h) and the ownership map (owners.h): "invalid: ..." and the
	 * holders' lines, "\n" between them ("" when nothing to say) */
	char guard_line[320];
	char owners_lines[1024];
};

struct frame_store;
__attribute__((cold)) void frame_store_free(struct frame_store *fs);
/* Where an observer copies its per-row columns (observer.h: fill_frame): [row * nmetrics + m]
 * statistic values, [row * ATTRIB_NCOLS + a] attribution, a task name per row. */
struct frame_cols {
	double *stat_values;
	double *err, *err_counts, *truth, *truth_counts; /* (rows + 1) x metrics or events */
	double *base_change, *base_err, *base_p;	 /* (rows + 1) x metrics */
	double *base_p_adj;				 /* (rows + 1) x metrics */
	double *attrib;
	char (*tasks)[48];
	const char **task_ptr;
};
void frame_store_cols(struct frame_store *fs, struct frame_cols *c);
/* @f's snapshot (@fs's) as the store's own copy, for an observer's fill_frame that changes it
 * (the guard marks invalid counts): a shared tick's arrays are copied first. NULL when @f's
 * snapshot is not @fs's. */
struct snapshot *frame_snapshot_own(struct frame *f, struct frame_store *fs);
/* Copies @src into @dst with everything it points to in *@store (allocated or grown as needed):
 * a frame a reader keeps while newer ones are built. The observers' live parts (extras,
 * counters) are left out. Returns 0, or -1 when out of memory (@dst unchanged). */
int frame_copy(struct frame *dst, struct frame_store **store, const struct frame *src);

#endif

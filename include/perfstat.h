/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfstat.h: import of `perf stat -I -A -a` interval output (CSV or JSON) as a recording. */
#ifndef PMUTOP_PERFSTAT_H
#define PMUTOP_PERFSTAT_H
#include <stddef.h>

#include "recfile.h"

/*
 * Accepted input (perf 5.x/6.x layouts):
 *   CSV,  perf stat -x, -I MS -A -a -e EV,... :
 *     time,CPUn,value,unit,event,run_ns,pct_running[,metric_value,metric_unit]
 *     (value may be "<not counted>" or "<not supported>"; event names may contain commas,
 *     e.g. cpu/event=0x3c,umask=0x0/; lines starting with '#' are skipped)
 *   JSON, perf stat -j -I MS -A -a -e ... : one object per line with "interval", "cpu",
 *     "counter-value", "unit", "event", "pcnt-running" (strings or numbers accepted).
 *
 * The import is turned into the same records as a pmutop recording: a header (backend
 * "replay", source "perf-stat-csv" or "perf-stat-json", CPUs as found, interval_ms from the
 * first interval), one mode "perf-stat" whose events are the distinct event names in
 * first-seen order (spec = name, no encoding), and one tick per interval timestamp holding
 * synthesized CUMULATIVE triples, so that count_delta() between consecutive ticks gives back
 * perf's printed (already scaled) value and its running fraction:
 *   enabled += interval_ns; running += interval_ns * pct / 100;
 *   value   += count * pct / 100 (accumulated in floating point, rounded per tick);
 *   "<not counted>"   -> present, enabled advances, running and value do not (n/c);
 *   "<not supported>" -> present = false for that tick;
 *   no line for a CPU/event in an interval -> present = false for that tick.
 * Values with unit "msec" (cpu-clock, task-clock) are converted to ns, as the perf backend
 * reads them. interval_ns is the difference of consecutive timestamps (the first from 0).
 * Values are kept exactly as printed, also when multiplexed: see synth_delta in perfstat.c.
 * Without -I the one interval is the elapsed time (duration_time; per CPU the longest run
 * time; else cpu-clock/task-clock over its "CPUs utilized"). -r N's variance column is dropped.
 * --per-core/-socket/-die/-node (perf 6.1) and -cache/-cluster (later perf) output,
 *     [time SEP]UNIT SEP CPUS SEP value SEP ... (JSON "core": "S0-D0-C1", "aggregate-number" or
 *     "counters": CPUS): each unit is a row (the header's cpus are row numbers 0.., each with
 *     key = the unit as printed, key_cpus = CPUS, and rows = "core", "socket", ...), holding
 *     perf's sums over the unit's CPUs as printed; untimed, the interval is the longest enabled
 *     time of one CPU (a unit's run time / its CPUs) unless duration_time was counted.
 * A line that is not perf stat output (no CPU column, bad numbers, time going back, a repeated
 * CPU/event in one interval, units of two shapes, unknown JSON objects) fails the import with
 * "path:line: why"; perf's summary lines are skipped with a warning. The human-readable output
 * and --metric-only are refused with the remedy.
 */

enum perfstat_format {
	PERFSTAT_UNKNOWN = 0, /* for perfstat_load: detect */
	PERFSTAT_CSV,
	PERFSTAT_JSON,
	PERFSTAT_RECORDING,   /* a pmutop recording (load it with rec_load) */
	PERFSTAT_HUMAN,	      /* perf stat's human-readable output: refused with the remedy */
	PERFSTAT_METRIC_ONLY, /* perf stat --metric-only: no counts, refused with the remedy */
};

/* Guesses the format from the first meaningful line; PERFSTAT_UNKNOWN if unreadable or none. */
enum perfstat_format perfstat_detect(const char *path);

/* "csv", "json", "recording", "unknown". */
const char *perfstat_format_name(enum perfstat_format fmt);

/* Imports @path (format @fmt, or detected when PERFSTAT_UNKNOWN) into @out. Returns 0, or -1
 * with a message in @err (unreadable file, a pmutop recording, no usable line at all, a line
 * longer than LR_TEXT_LINE_MAX, a NUL byte). */
int perfstat_load(const char *path, enum perfstat_format fmt, struct rec_file *out, char *err,
		  size_t errlen);

/* The same on an open reader (linereader.h): detection reads up to the first meaningful line
 * and puts it back (lr_unread), so a pipe is read once. */
struct linereader;
enum perfstat_format perfstat_detect_lr(struct linereader *lr);
int perfstat_load_lr(struct linereader *lr, enum perfstat_format fmt, struct rec_file *out,
		     char *err, size_t errlen);

#endif

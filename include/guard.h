/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.h: the validity guard: plausibility checks on pmutop's own counts that open nothing. */
#ifndef PMUTOP_GUARD_H
#define PMUTOP_GUARD_H
#include "procirq.h"
#include "session.h"
#include <stdbool.h>
#include <stdint.h>

/* Why a count cannot be true. */
enum guard_reason {
	GUARD_INST_RATE,  /* instructions/s above cores x retire width x maximum frequency */
	GUARD_CYCLE_RATE, /* cycles/s above the maximum frequency (x running time) */
	GUARD_ZERO_BUSY,  /* 0 cycles or instructions on a CPU /proc/stat shows busy (or 0 cycles
			   * with instructions retired) */
	GUARD_IDENTICAL,  /* several unrelated events with identical deltas, tick after tick */
	GUARD_FROZEN,	  /* a counter that never changes */
	GUARD_NREASONS
};

/* What is plausible on the machine counted. */
struct guard_limits {
	double max_hz;	    /* highest core clock (Hz): cpufreq's maximum, else the default */
	double width;	    /* instructions one core retires per cycle at most (the family's) */
	const char *family; /* for the messages ("zen4") */
	const char *pmu;    /* core PMU name for the messages ("cpu_core"), "" none */
};

/* Slack over the limits: macro-fused pairs retire as one slot, turbo above the listed maximum,
 * and the measured tick's jitter must never raise a flag on valid counts. */
#define GUARD_RATE_MARGIN 2.0
#define GUARD_DEFAULT_HZ 6.0e9	   /* no core clock known: above any shipping core's turbo */
#define GUARD_FROZEN_TICKS 5	   /* unchanged reads in a row ... */
#define GUARD_FROZEN_S 2.0	   /* ... over at least this long */
#define GUARD_IDENTICAL_MIN 1000.0 /* equal deltas below this happen by chance */
#define GUARD_IDENTICAL_EVENTS 3   /* events with one delta */
#define GUARD_IDENTICAL_TICKS 2	   /* ticks in a row */
#define GUARD_BUSY 0.5		   /* /proc/stat busy fraction that must show cycles */
#define GUARD_BUSY_TICK_S 0.1	   /* the zero checks need ticks this long (s) */
#define GUARD_MAX_FLAGS 256

/* One count the guard holds invalid now. */
struct guard_flag {
	int cpu;   /* -1: the all-CPU total */
	int event; /* index in the snapshot's events */
	char name[48];
	enum guard_reason reason;
	char text[200]; /* "the virtual PMU returns 0 for cycles on CPU 1 while /proc/stat shows it
			 * 97 % busy" */
	uint64_t since; /* the guard's tick it was raised at */
};

struct guard;

/* The limits of the family @family_key ("skl", "zen4", ...) at @max_hz (0: unknown). */
void guard_limits_for(struct guard_limits *l, const char *family_key, const char *pmu,
		      double max_hz);
/* Instructions per cycle one core of @family_key retires at most (vendor manuals). */
double guard_retire_width(const char *family_key);
struct guard *guard_new(const struct guard_limits *l);
/* Whether the rows count tasks or cgroups: a task that sleeps counts nothing however long, and
 * its CPU's busy share says nothing of it, so the frozen and zero-while-busy checks skip them. */
void guard_rows_are_tasks(struct guard *g, bool tasks);
void guard_free(struct guard *g);
/* A new mode or CPU set: the per-counter history starts again. */
void guard_reset(struct guard *g);
/* Checks one tick. @busy: per row, the /proc/stat busy fraction 0..1 of this tick, or for ticks
 * shorter than GUARD_BUSY_TICK_S of the last window that long (NAN or NULL unknown).
 * Returns the number of flags raised by this tick (they are active from now on). */
int guard_check(struct guard *g, const struct snapshot *s, const double *busy);
/* The active flags. */
int guard_flags(const struct guard *g, const struct guard_flag **out);
/* Flags raised since the start (what a long run of valid data must keep at 0). */
uint64_t guard_raised(const struct guard *g);
/* Marks @s (a frame's own copy): each flagged count COUNT_INVALID, the metrics that read it n/a
 * on its row (and on the total row). */
void guard_mark(const struct guard *g, struct snapshot *s);
/* One line for the capability line: "invalid: cycles on CPUs 0-1 (...)"; "" when all is well. */
void guard_line(const struct guard *g, char *out, size_t len);
const char *guard_reason_name(enum guard_reason r); /* "inst_rate", "cycle_rate", ... */

/* /proc/stat busy fractions between two reads, per CPU (engine glue). */
struct guard_procstat {
	int n;
	uint64_t *busy, *total;	   /* jiffies per CPU at the last read */
	uint64_t *fields;	   /* [n * PROCSTAT_FIELDS]: the last read's, kept for the next */
	bool *seen;		   /* [n] */
	struct procstat_file file; /* this machine's kept open */
};
/* Reads <root>/proc/stat (this machine's with one pread on a descriptor kept open); fills
 * @frac[cpu] (for @cpus[0..ncpus)) with the busy fraction since the previous read (NAN for the
 * first read or an unknown CPU). Returns 0 or -1. */
int guard_procstat_read(struct guard_procstat *p, const char *root, const int *cpus, int ncpus,
			double *frac);
void guard_procstat_free(struct guard_procstat *p);

#endif

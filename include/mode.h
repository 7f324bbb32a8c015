/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mode.h: event modes as data: mode files, per-family event lists, metrics, counter planning. */
#ifndef PMUTOP_MODE_H
#define PMUTOP_MODE_H
#include <stdbool.h>
#include <stddef.h>

struct expr;
struct pmu_family;

#define MODE_MAX_EVENTS 32  /* events in one [events ...] section */
#define MODE_MAX_METRICS 64 /* metrics in one mode */
/* What one running mode holds (the session's SESSION_MAX_METRICS and SESSION_MODE_NAME): a
 * library's group or metric beyond it is not made a mode */
#define MODE_RUN_MAX_METRICS 24
#define MODE_RUN_NAME 64 /* bytes of a running mode's name with its NUL */

enum mode_kind {
	MODE_KIND_COUNTERS, /* the events below are the whole mode */
	MODE_KIND_OFFCORE, /* plus OFFCORE_RESPONSE events generated at run time (offcore module) */
};

#include "metric_class.h" /* enum metric_class: colour class of a metric value */

struct mode_event {
	char *alias;   /* the name formulas use */
	char *spec;    /* encoder spec: perf::CYCLES, @::L1D:REPLACEMENT, r03, msr/tsc/ */
	bool optional; /* written "alias? = spec": the mode runs without it, its metrics show n/a */
	int group;     /* 0, or a group number: the events of one group always share a set */
};

/* One [events FAMILY...] section. */
struct mode_events {
	char **families; /* family keys, or "*" = every family (software events) */
	int nfamilies;
	struct mode_event *events;
	int nevents;
	char *note;    /* "note = ..." label: e.g. an implementation-defined stand-in, or NULL */
	bool fallback; /* "[else events F]": used for F when F's earlier section needs an event
			* the core does not implement (its family table or its PMU's events/) */
	int line;
};

struct mode_unavailable {
	char *family;
	char *reason;
	int line;
};

struct mode_metric {
	char *name;
	char *desc;
	char *unit;		/* "", "%", "GHz", "/s", ... */
	struct expr *expr;	/* over event aliases and the builtin variables */
	double good, warn, bad; /* NAN = not set */
	int better;		/* +1 higher is better, -1 lower is better, 0 = no thresholds */
	char *threshold; /* a formula, not 0 = bad and 0 = good (perf's MetricThreshold), or NULL */
	int line;
};

struct mode {
	char *name;  /* "cpi" */
	char *title; /* one line */
	char *help;  /* description, may hold several lines */
	enum mode_kind kind;
	char *source; /* "modes/cpi.mode" (built in), a file path, or "define" */
	struct mode_events *sets;
	int nsets;
	struct mode_unavailable *unavail;
	int nunavail;
	struct mode_metric *metrics;
	int nmetrics;
	/* "stack = a, b, c" in [mode]: metrics (% of one whole, in this order) that the table also
	 * draws as one stacked bar per row, with the largest highlighted (top-down shares). */
	char **stack;
	int nstack;
	char *drill; /* "drill = MODE": the mode the drill-down key opens for a row, or NULL */
	/* the core PMU whose CPUs alone count this mode ("cpu_atom": a perf: mode of one core type
	 * of a hybrid part), or NULL: every monitored CPU */
	char *pmu;
};
#define MODE_MAX_STACK 8 /* metrics in one stacked bar */

/* Variables every formula may use besides the event aliases (per-tick deltas, scaled):
 * interval (s, measured tick length), interval_ns, ncpus (CPUs summed into the deltas: 1 per
 * CPU, N for the all-CPU row), slots (issue slots per cycle from the core PMU's caps/slots; n/a
 * where the kernel does not say or the monitored cores differ). Terminated by NULL. */
extern const char *const mode_builtin_vars[];

/* Parses one mode file. @label names it in errors ("modes/cpi.mode"). Returns the mode, or NULL
 * with "label:line: message" in @err. */
struct mode *mode_parse(const char *label, const char *text, char *err, size_t errlen);
#define MODE_NAME_MAX 48 /* bytes */
#define MODE_NAME_RULE "letters, digits, _ - + . and one library: prefix; at most 48"
/* True for a mode name: 1 to MODE_NAME_MAX letters, digits, '_', '-', '+' or '.', with at most
 * one ':' between a library prefix and the name ("perf:TopdownL1", "likwid:FLOPS_DP"). */
bool mode_name_valid(const char *name);
/* A mode from a "define NAME EVENTS METRICS" command: @events "ev1=spec1,ev2=spec2" (commas
 * inside pmu/.../ belong to the spec; "ev?=spec" is optional), @metrics "m1=expr1;m2[unit]=expr2".
 * The events apply to every family. NULL and a message in @err on error. */
struct mode *mode_define(const char *name, const char *events, const char *metrics, char *err,
			 size_t errlen);
void mode_free(struct mode *m);

/* What a mode gives a family. */
struct mode_resolution {
	const struct mode_events *events; /* NULL: unavailable */
	const char *matched;		  /* family key (or "*") whose section matched */
	char reason[256];		  /* why unavailable */
};

/* Finds the events for @fam: the family's own section, else its parents' (skl -> intel ->
 * generic), else a "*" section; an [unavailable] entry met first makes it unavailable.
 * Returns 0, or -1 with @r->reason. */
int mode_resolve(const struct mode *m, const struct pmu_family *fam, struct mode_resolution *r);
struct mode_event_support;
/* As mode_resolve, where @sup (NULL: the family's tables only) also says which events the
 * core implements: a section needing one it lacks gives way to the family's [else events]. */
int mode_resolve_on(const struct mode *m, const struct pmu_family *fam,
		    const struct mode_event_support *sup, struct mode_resolution *r);

/* Which counter an event needs on @fam. */
enum event_slot {
	EVENT_SLOT_COUNTER, /* a programmable counter */
	EVENT_SLOT_FIXED,   /* a fixed counter (Intel fixed, ARM cycle counter, XScale CCNT) */
	EVENT_SLOT_NONE,    /* software event or another PMU (msr/tsc/): no core counter */
};
/* @fixed_id (may be NULL) gets which fixed counter (0 instructions, 1 cycles, 2 ref cycles). */
enum event_slot mode_event_slot(const char *spec, const struct pmu_family *fam, int *fixed_id);

struct mode_avail {
	bool available;
	char reason[320];
	const char *matched; /* section family, see mode_resolution */
	const char *note;    /* the matched section's note (a stand-in event's label), or NULL */
	const struct mode_events *events; /* the section used (NULL: unavailable) */
	int needed;			  /* programmable counters */
	int fixed;			  /* events on fixed counters */
	int other;			  /* software or other-PMU events */
	int counters;			  /* the family's programmable counters (0 = unknown) */
	bool multiplex;			  /* needed > counters */
};
/* What one core PMU says it can count, beyond its family's tables. */
struct mode_event_support {
	const char *pmu;	      /* sysfs PMU name, for messages */
	const unsigned short *listed; /* codes in <pmu>/events/ (NULL: no such directory) */
	int nlisted;
	int counters; /* programmable counters (probed or caps/num_counters), 0 = family's */
};
/* Fills @a for --list-modes. A raw event ("r24") the family's core does not implement (its
 * event table), or an ARMv8 common event missing from @sup->listed, makes the mode
 * unavailable with the event named. @sup may be NULL. Returns 0 if available, -1 if not
 * (reason in @a->reason). */
int mode_availability_on(const struct mode *m, const struct pmu_family *fam,
			 const struct mode_event_support *sup, struct mode_avail *a);
int mode_availability(const struct mode *m, const struct pmu_family *fam, struct mode_avail *a);
/* Programmable counters the mode needs on @fam, or -1 if unavailable there. */
int mode_counters_needed(const struct mode *m, const struct pmu_family *fam);

/* Event sets for rotation when the events do not fit at once (the "multiple runs"). */
#define MODE_MAX_SETS 32
struct mode_plan {
	const struct mode_events *events; /* what the indices below refer to */
	int nsets;
	struct {
		int n;
		int ev[MODE_MAX_EVENTS]; /* indices into events->events, in mode order */
	} set[MODE_MAX_SETS];
	bool split[MODE_MAX_METRICS]; /* metric i's inputs were never counted in the same set
				       * ("ratio from different runs") */
};
/* Splits the mode's events for @fam into sets of at most @max_counters programmable events
 * (docs/modes.md, "Event sets"): fixed-counter and software events go in every set; the events
 * of a group ({a,b} in an event list, "group = a, b" in a mode file) go in one set first (a group
 * larger than @max_counters is an error); each metric's programmable inputs go together into
 * the set needing the fewest additions (an input shared with another set is repeated), else a
 * new one; only a metric with more inputs than counters is split. One set when everything
 * fits. Returns the number of sets, or -1 + @err. */
int mode_plan_sets(const struct mode *m, const struct pmu_family *fam, int max_counters,
		   struct mode_plan *plan, char *err, size_t errlen);
/* As mode_plan_sets, for the section mode_resolve_on picks with @sup. */
int mode_plan_sets_on(const struct mode *m, const struct pmu_family *fam,
		      const struct mode_event_support *sup, int max_counters,
		      struct mode_plan *plan, char *err, size_t errlen);

/* One mode running the events and metrics of several (name "icache+dcache") on @fam: the same
 * alias must mean the same spec; clashing metric names get "mode." in front. NULL + @err if a
 * mode is unavailable on @fam or the aliases clash. */
struct mode *mode_merge(const struct mode *const *modes, int n, const struct pmu_family *fam,
			char *err, size_t errlen);

/* Threshold class of @value (NAN -> METRIC_NA). Direction: bad > warn means higher is worse;
 * at or beyond bad is BAD, at or beyond warn WARN, at or within good GOOD, else NONE (GOOD
 * when good is not set but warn or bad is). */
enum metric_class metric_classify(const struct mode_metric *m, double value);

struct mode_registry {
	struct mode **modes;
	int n;
	char **warnings; /* "file:line: message", one per broken file */
	int nwarnings;
};

void mode_registry_init(struct mode_registry *r);
void mode_registry_free(struct mode_registry *r);
/* Takes @m; a mode with the same name is replaced (user files override built-in ones). */
void mode_register(struct mode_registry *r, struct mode *m);
int mode_load_file(struct mode_registry *r, const char *path);
/* As mode_load_file, but a file that cannot be read (missing, a line longer than
 * LR_TEXT_LINE_MAX, larger than LR_TEXT_FILE_MAX, binary, a FIFO without data) is no warning:
 * returns -2 with "path:line: reason" in @err. */
int mode_read_file(struct mode_registry *r, const char *path, char *err, size_t errlen);
/* Every *.mode in @dir, sorted by name; a missing directory is not an error. Returns the number
 * of modes loaded, or -1 (with a warning) if @dir exists but cannot be read. */
int mode_load_dir(struct mode_registry *r, const char *dir);
/* The modes compiled in from the modes/ directory. Returns the number loaded. */
int mode_load_builtin(struct mode_registry *r);
/* Exact name, else a unique prefix; NULL if none or ambiguous. */
const struct mode *mode_find(const struct mode_registry *r, const char *name);

/* Index of @alias in @ev, or -1. */
int mode_event_index(const struct mode_events *ev, const char *alias);

#endif

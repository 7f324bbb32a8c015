/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.h: one monitoring run: backend + resolved mode -> per-tick snapshots of counts and
 * metrics. */
#ifndef PMUTOP_SESSION_H
#define PMUTOP_SESSION_H
#include "counts.h"
#include "metric_class.h"
#include "source.h"
#include <stdbool.h>
#include <stdint.h>

#define SESSION_MAX_EVENTS 48
#define SESSION_MAX_METRICS 24
#define SESSION_MAX_STACK 8 /* metrics in one stacked bar (MODE_MAX_STACK) */
/* bytes of a mode name with its NUL: MODE_NAME_MAX + 1 and more for merged modes ("a+b"), as
 * recordings keep them (REC_NAME_MAX) */
#define SESSION_MODE_NAME 64

/* What a metric formula can read for one row: event deltas by alias and the tick's time. */
struct metric_inputs {
	const char (*names)[48];
	const struct count *counts; /* this row's counts, one per event */
	int nevents;
	double interval_s; /* measured */
	double time_s;	   /* since start */
	double ncpus;	   /* CPUs summed into the counts: 1 per CPU row, N for the total row (times
			    * session_config.row_cpus); NAN when unknown */
	double slots;	   /* issue slots per cycle of the cores (caps/slots), NAN unknown */
};

/* A metric as the session runs it: plain data (no pointer into a mode registry), so a running
 * session never depends on a mode that is redefined or freed; the session compiles the formula
 * when the mode opens and frees it when the next one opened. */
#define SESSION_METRIC_NAME_MAX 72 /* bytes of a metric name with its NUL (perf's reach 67) */
struct session_metric {
	char name[SESSION_METRIC_NAME_MAX];
	char unit[16];
	char desc[96];
	char formula[4096];   /* expr.h syntax over event names and builtins */
	char threshold[1024]; /* "" or a formula: not 0 = bad, 0 = good (perf's MetricThreshold) */
	/* thresholds as in mode.h (NAN = not set); better 0 = none */
	double good, warn, bad;
	int better;
	/* Events the formula reads (indices into the mode's events), for the running share. */
	int ninputs;
	int inputs[8];
	bool split; /* its inputs are in different rotated sets: never counted together */
};

/* The request-type bits of an offcore breakdown (empty in other modes). */
struct session_offcore {
	int nbits;
	char names[16][32]; /* event and share-metric name of each bit */
	bool superset[16];  /* Atom's ANY bit: not part of the shares */
};

/* A mode resolved for one machine: the events to open and the metrics to compute. A value
 * type: copies own everything they hold. */
struct session_mode {
	char name[SESSION_MODE_NAME];
	char title[96];
	int nevents;
	struct backend_event events[SESSION_MAX_EVENTS];
	bool optional[SESSION_MAX_EVENTS]; /* the mode runs without it ("alias? = spec") */
	int nmetrics;
	struct session_metric metrics[SESSION_MAX_METRICS];
	int nsets;	 /* >1: rotate event sets, one per tick ("multiple runs") */
	bool singletons; /* more events than counters: let the kernel multiplex */
	struct session_offcore offcore;
	/* the mode file's "stack =": metrics (% of one whole) the table draws as one stacked bar,
	 * by name (the frame finds them among the snapshot's metrics); 0: none */
	int nstack;
	char stack[SESSION_MAX_STACK][SESSION_METRIC_NAME_MAX];
	char drill[SESSION_MODE_NAME]; /* "drill =": the drill-down mode, "" none */
};

/* A metric value is coarse when its tick is shorter than this many steps of a quantised input
 * (a /proc/stat utilisation at 100 ms moves in 10 % steps). */
#define SESSION_COARSE_STEPS 4

/* How precise one metric value is. */
struct metric_detail {
	double resolution; /* the step a one-quantum change of its quantised inputs makes (metric
			    * units); 0 = computed from exact counts */
	bool coarse;	   /* the tick is shorter than SESSION_COARSE_STEPS quanta of an input */
	unsigned long long used; /* the events the value was computed from (bit = event index) */
	bool not_counted; /* n/c: an input of the formula's first ?? branch the row has was not
			   * counted this tick (the row stays out of the metric's total) */
};

/* One tick, immutable once published. */
struct snapshot {
	uint64_t seq;	   /* 1, 2, ... for the whole run (modes and CPU sets change) */
	double time_s;	   /* since the session started (monotonic) */
	double interval_s; /* measured length of this tick */
	bool first;	   /* the first full tick of a newly opened mode */
	int row_cpus;	   /* session_config.row_cpus */
	/* per row: CPUs summed into it (rows keyed by a core, socket, ...: rows.h), NULL: every
	 * row is row_cpus' */
	const int *row_ncpus;
	int nrows;
	const int *cpus; /* CPU number per row */
	bool *offline;	 /* per row */
	int nevents;
	int nmetrics; /* next to nevents: no padding after either (the struct's size is kept) */
	const char (*event_names)[48];
	struct count *counts;	    /* [row * nevents + e] */
	struct count *total_counts; /* per event, summed over online rows */
	double *event_age;	    /* [row * nevents + e]: ticks since measured (rotation) */
	const struct session_metric *metrics;
	const struct metric_program *program; /* the compiled metrics (snapshot_compute) */
	double *values;			      /* [row * nmetrics + m], NAN = n/a */
	double *total_values;		      /* per metric over all rows */
	enum metric_class *classes;	      /* [row * nmetrics + m] */
	double *running; /* [row * nmetrics + m]: least running fraction of the inputs */
	double *total_running;
	enum metric_class *total_classes;
	/* [m]: this tick's value combines events measured in different ticks - inputs never
	 * counted together (session_metric.split), or one carried from an earlier tick of the
	 * rotation with one measured now (their ages differ); shown as "*", JSON split_metrics */
	bool split[SESSION_MAX_METRICS];
	/* [row * nmetrics + m]; the total row's at [nrows * nmetrics + m] */
	struct metric_detail *detail;
	double slots; /* issue slots per cycle (caps/slots, the same on every row), NAN unknown */
	/* the refcounted storage the arrays above lie in, immutable once published (a session's
	 * tick: snapshot_share), NULL: the producer's own arrays */
	const struct snapshot_store *store;
};

/* A snapshot's per-tick arrays, each with its element count for @r rows, @e events and @m
 * metrics: X(field, count). Those a session's store holds, a frame shares or copies. */
/* clang-format off */
#define SNAPSHOT_ARRAYS(X)                                                                         \
	X(cpus, r)                                                                                 \
	X(offline, r)                                                                              \
	X(counts, r * e)                                                                           \
	X(total_counts, e)                                                                         \
	X(event_age, r * e)                                                                        \
	X(values, r * m)                                                                           \
	X(total_values, m)                                                                         \
	X(running, r * m)                                                                          \
	X(total_running, m)                                                                        \
	X(classes, r * m)                                                                          \
	X(total_classes, m)                                                                        \
	X(detail, (r + 1) * m)
/* clang-format on */

/* One more reference to the storage of @s's arrays (SNAPSHOT_ARRAYS) when they all lie in an
 * immutable store, a session's tick: a frame holds its tick that way instead of copying it, and the
 * session writes its next ticks into another store while the reference is held. NULL: they do not
 * (copy them). */
const struct snapshot_store *snapshot_share(const struct snapshot *s);
/* Drops a reference of snapshot_share (or the session's own); the last one frees the store. */
void snapshot_store_release(const struct snapshot_store *st);

/* The per-CPU rows outputs show: all of them, or none when the rows are sums over several CPUs
 * (an aggregated capture: its one row is the total, shown as the all row alone). */
static inline int snapshot_cpu_rows(const struct snapshot *s) { return s->row_cpus ? 0 : s->nrows; }

struct session_config {
	const struct source *source; /* where the ticks come from (outlives the session) */
	const char *sysfs_root;
	const struct pmu_family *family;
	int ncpus;
	const int *cpus;
	const int *core_pmu_type; /* per row, may be NULL */
	/* CPUs each row's counts are summed over: 0 or 1 (a row per CPU), N (a capture aggregated
	 * over N CPUs, source_machine.aggregated_cpus), -1 (aggregated over an unknown number:
	 * ncpus is n/a) */
	int row_cpus;
	unsigned slots; /* issue slots per cycle (caps/slots) for the "slots" builtin, 0 unknown */
	/* per row: the thread, the cgroup descriptor (backend_req); NULL: the CPU. The caller
	 * keeps them for the session's life. */
	const int *pids;
	const int *cgroup_fds;
	bool inherit;
	/* per row: the CPUs its counts already sum (an imported perf stat --per-core, ...
	 * capture), NULL: row_cpus. The caller keeps it for the session's life. */
	const int *row_ncpus;
	const bool *exec_pending; /* while true the command waits for its exec (enable on exec) */
	bool pid_on_cpu; /* a thread's row counts it on the row's CPU only (pid = TID, cpu = N) */
	uint64_t sample_ns; /* --sample period (ns), 0 none: see backend_req */
	int sample_path;    /* enum perfring_path */
	uint64_t drain_ns;  /* the loop's period while sampling into rings (ns) */
};

/* The compiled formulas of a mode's metrics. */
struct metric_program;
/* Compiles @n metrics over the events called @names (variables are bound to event indices
 * once, not looked up per evaluation); NULL with "metric NAME: message" in @err. */
struct metric_program *metric_program_new(const struct session_metric *metrics, int n,
					  const char (*names)[48], int nevents, char *err,
					  size_t errlen);
/* Drops one reference (the creator's, or metric_program_hold's); the last one frees it. */
void metric_program_free(const struct metric_program *p);
/* One more reference: a frame shares the compiled metrics' immutable definitions while the
 * mode runs instead of copying them per refresh. */
void metric_program_hold(const struct metric_program *p);
/* The definitions @p was compiled from (its own copy, [n]; immutable). */
const struct session_metric *metric_program_metrics(const struct metric_program *p);
/* The event names @p was compiled over (its own copy, [nevents]; immutable): a session's
 * snapshots name their events with it, so a frame shares them as it shares the definitions. */
const char (*metric_program_names(const struct metric_program *p))[48];
/* The step of each event's value (backend_status.quantum_ns, 0 = exact), [nevents]. */
void metric_program_set_quanta(struct metric_program *p, const uint64_t *quantum_ns, int nevents);
/* The one place counts become metrics: from @s->counts (per row) it computes the totals over
 * the rows counted this tick (online, and not the first tick after coming back: a row with no
 * event counted adds nothing, so averages stay those of the CPUs counted), then every metric per
 * row and for the total row, their classes, the least running fraction of their inputs and
 * whether the tick's value is split (@s->split). The
 * session does this per tick, the window statistics per refresh window. @s must have its arrays,
 * names and program set. */
void snapshot_compute(struct snapshot *s);

/* Metric @m of row @row (@s->nrows: the total row) evaluated by @p over @s's counts with @delta
 * added to event @e's value (e < 0: as counted): the formula's numerical derivative for error
 * propagation (uncertainty.h). NAN when n/a. */
double snapshot_metric_with(const struct snapshot *s, const struct metric_program *p, int row,
			    int m, int e, double delta);

struct session;

struct session *session_new(const struct session_config *cfg, char *err, size_t errlen);
/* Closes the current counters and opens @mode's. On failure the previous mode keeps running. */
int session_set_mode(struct session *s, const struct session_mode *mode, char *err, size_t errlen);
/* *@dst = *@src, touching only the metrics @src has: the unused tail of metrics[] (most of the
 * 142 KiB) stays untouched, so it is not resident in a fresh (zero) @dst. */
void session_mode_copy(struct session_mode *dst, const struct session_mode *src);
/* Reads the counters and computes the next snapshot. @nominal_ns is the tick the engine runs at
 * (virtual-time sources advance by it). Returns 1 when a snapshot was produced, 0 for the
 * priming read of a new mode, -1 on error. */
int session_tick(struct session *s, uint64_t nominal_ns, char *err, size_t errlen);
const struct snapshot *session_snapshot(const struct session *s);
const struct backend *session_backend(const struct session *s);
/* Ticks a sampling backend has ready (it drains its rings first, without blocking); -1 when the
 * backend is read once per tick instead. */
int session_queued(struct session *s);
/* The --sample period and drain time the next mode opened samples with (session_config). */
void session_set_sampling(struct session *s, uint64_t sample_ns, uint64_t drain_ns);
/* Tells a sampling source that the open window ends at @time_s (the snapshots' clock, s). */
void session_set_due(struct session *s, double time_s);
/* The raw reads behind the current snapshot, [row * nevents + e] (recorders). prev holds the
 * read before (the priming read for seq 1); offline is the last read's per-row flag. */
struct session_raw {
	int nrows, nevents;
	const int *cpus;
	const struct raw_count *prev, *cur;
	const bool *prev_present, *cur_present;
	const bool *offline;
	uint64_t prev_t, cur_t; /* ns, backend clock */
};
void session_raw(const struct session *s, struct session_raw *out);
/* @s replaces @before (the CPU set changed): its time, seq and so the wall-clock timestamp go
 * on from where @before's were, never back. Call before @s reads. */
void session_continue(struct session *s, const struct session *before);
/* Row @row is shown offline (@held) whatever the source reads: its CPU left the online list
 * (which a --sysfs-root tree can say while the CPU counts on); back to what the source says
 * when not held, its deltas restarting as after a real hotplug. Returns whether it changed. */
bool session_hold_offline(struct session *s, int row, bool held);
void session_free(struct session *s);

#endif

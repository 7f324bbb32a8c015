/* session.h: one monitoring run: backend + resolved mode -> per-tick snapshots of counts and metrics. */
#ifndef PMUTOP_SESSION_H
#define PMUTOP_SESSION_H
#include "backend.h"
#include "counts.h"
#include "metric_class.h"
#include <stdbool.h>
#include <stdint.h>

#define SESSION_MAX_EVENTS 48
#define SESSION_MAX_METRICS 24

/* What a metric formula can read for one row: event deltas by alias and the tick's time. */
struct metric_inputs {
	const char (*names)[48];
	const struct count *counts; /* this row's counts, one per event */
	int nevents;
	double interval_s; /* measured */
	double time_s;     /* since start */
	int ncpus;         /* CPUs summed into the counts: 1 per CPU row, N for the total row */
};
/* Returns 0 and the event's (scaled) delta or a builtin (interval [s], interval_ns, time [s],
 * ncpus), or -1 when it was not counted (n/a). */
int metric_inputs_get(const struct metric_inputs *in, const char *name, double *out);

struct session_metric {
	char name[32];
	char unit[16];
	char desc[96];
	/* Computes the metric; returns 0, or -1 for n/a (missing input, division by zero). */
	int (*eval)(const void *ctx, const struct metric_inputs *in, double *out);
	const void *ctx;
	/* Optional thresholds: class of a value (NULL = METRIC_NONE). */
	enum metric_class (*classify)(const void *ctx, double value);
	/* Events the formula reads (indices into the mode's events), for the running share. */
	int ninputs;
	int inputs[8];
	bool split; /* its inputs are in different rotated sets: never counted together */
};

/* A mode resolved for one machine: the events to open and the metrics to compute. */
struct session_mode {
	char name[32];
	char title[96];
	int nevents;
	struct backend_event events[SESSION_MAX_EVENTS];
	int nmetrics;
	struct session_metric metrics[SESSION_MAX_METRICS];
	int nsets;        /* >1: rotate event sets, one per tick ("multiple runs") */
	bool singletons;  /* more events than counters: let the kernel multiplex */
};

/* One tick, immutable once published. */
struct snapshot {
	uint64_t seq;       /* 1, 2, ... since the mode started */
	double time_s;      /* since the session started (monotonic) */
	double interval_s;  /* measured length of this tick */
	bool first;         /* the first full tick of a newly opened mode */
	int nrows;
	const int *cpus;    /* CPU number per row */
	bool *offline;      /* per row */
	int nevents;
	const char (*event_names)[48];
	struct count *counts;       /* [row * nevents + e] */
	struct count *total_counts; /* per event, summed over online rows */
	double *event_age;          /* [row * nevents + e]: ticks since measured (rotation) */
	int nmetrics;
	const struct session_metric *metrics;
	double *values;             /* [row * nmetrics + m], NAN = n/a */
	double *total_values;       /* per metric over all rows */
	enum metric_class *classes; /* [row * nmetrics + m] */
	double *running;            /* [row * nmetrics + m]: least running fraction of the inputs */
	double *total_running;
	enum metric_class *total_classes;
};

struct session_config {
	const char *backend;       /* "perf", "sim" */
	const struct sim_opts *sim;
	const char *sysfs_root;
	const struct pmu_family *family;
	int ncpus;
	const int *cpus;
	const int *core_pmu_type;  /* per row, may be NULL */
};

/* Evaluates one metric for one row: its value (NAN = n/a, also when @skip, e.g. an offline
 * row), its class, and the least running fraction of its inputs. */
void metric_compute(const struct session_metric *sm, const struct metric_inputs *in, bool skip,
		    double *value, enum metric_class *cls, double *running);

struct session;

struct session *session_new(const struct session_config *cfg, char *err, size_t errlen);
/* Closes the current counters and opens @mode's. On failure the previous mode keeps running. */
int session_set_mode(struct session *s, const struct session_mode *mode, char *err, size_t errlen);
/* Reads the counters and computes the next snapshot. Returns 1 when a snapshot was produced,
 * 0 for the priming read of a new mode, -1 on error. */
int session_tick(struct session *s, char *err, size_t errlen);
const struct snapshot *session_snapshot(const struct session *s);
const struct session_mode *session_mode(const struct session *s);
const struct backend *session_backend(const struct session *s);
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
/* The sim backend's virtual time per read follows the loop's cadence. */
void session_set_sim_interval(struct session *s, uint64_t interval_ns);
/* Time (ns) of the last read, from the backend's clock. */
uint64_t session_last_read_ns(const struct session *s);
void session_free(struct session *s);

#endif

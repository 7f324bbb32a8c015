/* backend.h: the counter backend interface (perf, sim, replay) and its registry. */
#ifndef PMUTOP_BACKEND_H
#define PMUTOP_BACKEND_H
#include "counts.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmu_family;

/* One event to count, as a mode names it. */
struct backend_event {
	char name[48];  /* alias used by formulas and output ("cycles") */
	char spec[192]; /* encoder spec ("@::CPU_CLK_UNHALTED:THREAD_P", "r11", "msr/tsc/") */
	int set;        /* event set for rotation (0 when all count together; -1: counted in every set) */
};

/* What to count and where. */
struct backend_req {
	const char *sysfs_root;          /* "" or "/" for the live machine */
	const struct pmu_family *family; /* machine family (for "@::" specs and filtering) */
	int ncpus;                       /* rows */
	const int *cpus;                 /* CPU number of each row */
	const int *core_pmu_type;        /* per row: attr.type of that CPU's core PMU, 0 = none */
	int nevents;
	const struct backend_event *events;
	int nsets;       /* >1: only one set counts per tick, rotated by backend_select_set */
	bool singletons; /* open each event as its own group so the kernel multiplexes them */
};

/* Per (row, event): did it open, and if not why. */
struct backend_status {
	bool supported;
	int err;          /* errno of the failed open, 0 if it opened */
	char reason[160]; /* one sentence on what to do */
	char encoding[160];
};

struct backend;

struct backend_ops {
	const char *name;
	/* Opens the events on every row. Fails (-1) only when nothing at all can be counted. */
	int (*open)(struct backend *b, const struct backend_req *req, char *err, size_t errlen);
	/* Reads every row: @out[row * nevents + e] cumulative triples, @present likewise (false =
	 * not supported or CPU offline), @offline[row]. @t_ns is the sample time (monotonic ns). */
	int (*read)(struct backend *b, struct raw_count *out, bool *present, bool *offline,
		    uint64_t *t_ns, char *err, size_t errlen);
	/* Enables only event set @set (rotation of "multiple runs"); optional. */
	void (*select_set)(struct backend *b, int set);
	void (*close)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
	int nrows, nevents;
	struct backend_status *status; /* [row * nevents + e], filled by open */
	unsigned counter_bits;         /* width for count_delta (64 for kernel counts) */
	bool simulated;                /* every output says SIMULATED */
	char description[128];         /* "perf_event (software events only)" */
	char warnings[4][192];         /* messages for the log, set by open */
	int nwarnings;
};

extern const struct backend_ops backend_perf_ops;
extern const struct backend_ops backend_sim_ops;

/* Sim backend knobs (--sim-* options). */
struct sim_opts {
	uint64_t seed;
	unsigned counter_bits;  /* 64, or 32 to wrap as on ARMv7/XScale */
	double mux_fraction;    /* <1: every event counts only this fraction of the time */
	int fail_event;         /* index of an event that never opens, -1 none */
	int offline_cpu;        /* CPU that goes offline ... */
	int offline_from, offline_to; /* ... for ticks [from, to), -1 none */
	uint64_t interval_ns;   /* virtual time per read */
	int spike_cpu;          /* CPU with injected spikes, -1 none */
	int spike_every;        /* every N ticks (0 = none) */
	double spike_factor;    /* multiply the spiking CPU's cycles/misses by this */
};
void sim_opts_default(struct sim_opts *o);
/* Must be called before open for the sim backend. */
void backend_sim_configure(struct backend *b, const struct sim_opts *o);
/* Changes the virtual time per read of an open sim backend (the loop's cadence changed). */
void backend_sim_set_interval(struct backend *b, uint64_t interval_ns);

const struct backend_ops *backend_find(const char *name);
void backend_free(struct backend *b);

/* perf_event_open errno -> a sentence saying what to do. */
const char *perf_errno_hint(int err);
/* Raises RLIMIT_NOFILE to the hard limit; returns the new soft limit. */
long backend_raise_nofile(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.h: where ticks come from (perf, sim, replay, remote): one interface, capabilities as
 * flags. */
#ifndef PMUTOP_SOURCE_H
#define PMUTOP_SOURCE_H
#include "counts.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmu_family;
struct cpuset;

/*
 * A source produces raw cumulative triples per (CPU, event) when asked for the next tick; it
 * never drives the run and never sees the app or the screen. What differs between sources is
 * said by its capability flags, never by its name.
 *
 * Its lifetime has two levels: the source itself (struct source: ops + the source's own state,
 * for example a loaded recording) lives for the run; for every mode the engine opens a counter
 * set on it (struct backend below), closed when the next mode opened.
 */

enum source_cap {
	SOURCE_CAP_SIMULATED = 1u << 0,	   /* no number is from hardware: outputs say SIMULATED */
	SOURCE_CAP_THIS_MACHINE = 1u << 1, /* counts the machine pmutop runs on (attribution) */
	SOURCE_CAP_RECORDED = 1u << 2,	   /* ticks were recorded: only recorded events exist, the
					    * interval is the recorded one, the machine is described */
	SOURCE_CAP_SEEK = 1u << 3,	   /* seek, step and rate (a file) */
	SOURCE_CAP_FORWARD = 1u << 4,	   /* mode, interval and CPU changes go to the far end */
	SOURCE_CAP_VIRTUAL_TIME = 1u << 5, /* a read advances time by the nominal tick (sim) */
	SOURCE_CAP_STREAM = 1u << 6,	   /* more ticks may arrive while running (remote) */
};

/* The machine a source's numbers come from (the recorded board for a replay). Strings are
 * escaped by whoever filled them; "" = not known. */
struct source_machine {
	char host[128];
	char kernel[128];
	char pmu[64];	 /* core PMU name ("cpu", "armv8_cortex_a53") */
	char family[32]; /* pmu_family key */
	char model[128];
	char capability[2560]; /* one line on what can be counted there (the platform summary) */
	unsigned counter_bits; /* hardware counter width (64 for kernel-accumulated counts) */
	unsigned slots; /* issue slots per cycle of the monitored cores (caps/slots), 0 unknown or
			 * not the same on all of them */
	int ncpus;
	/* 0: a row per CPU; N > 0: the one row is the sum over N CPUs (a perf stat capture
	 * without -A); -1: summed over an unknown number of CPUs. Outputs show the total alone. */
	int aggregated_cpus;
};

/* One event to count, as a mode names it. */
struct backend_event {
	char name[48];	/* alias used by formulas and output ("cycles") */
	char spec[192]; /* encoder spec ("@::CPU_CLK_UNHALTED:THREAD_P", "r11", "msr/tsc/") */
	int set; /* event set for rotation (0 when all count together; -1: counted in every set) */
	/* further sets the event counts in (bit k = set k): an input shared by metrics that the
	 * planner keeps in different sets ("cycles" with the misses of each set) */
	uint32_t also_in;
};
/* Whether @ev counts while set @set is selected. */
bool backend_event_in_set(const struct backend_event *ev, int set);

/* What to count and where. */
struct backend_req {
	void *inst;			 /* the source's own state (struct source.inst) */
	const char *sysfs_root;		 /* "" or "/" for the live machine */
	const struct pmu_family *family; /* machine family (for "@::" specs and filtering) */
	int ncpus;			 /* rows */
	const int *cpus;		 /* CPU number of each row */
	const int *core_pmu_type;	 /* per row: attr.type of that CPU's core PMU, 0 = none */
	int nevents;
	const struct backend_event *events;
	int nsets;	 /* >1: only one set counts per tick, rotated by backend_select_set */
	bool singletons; /* open each event as its own group so the kernel multiplexes them */
	/* What a row counts (target.h), NULL for every row counting its CPU: the thread
	 * (pid = TID, cpu = -1; -1 = the CPU), and the cgroup directory's descriptor counted on
	 * the row's CPU (PERF_FLAG_PID_CGROUP; -1 = none). */
	const int *pids;
	const int *cgroup_fds;
	bool inherit;		  /* a task's children count too, from its exec on (-- CMD) */
	const bool *exec_pending; /* while true the command waits for its exec (enable on exec) */
	bool pid_on_cpu;	  /* a thread's row counts it on the row's CPU (cpu = N, not -1) */
	/* --sample: the sample period (ns, 0 = no sub-interval sampling), the way it is taken
	 * (enum perfring_path) and the longest time between two drains of what was sampled (ns) */
	uint64_t sample_ns;
	int sample_path;
	uint64_t drain_ns;
};

/* Per (row, event): did it open, and if not why. */
struct backend_status {
	bool supported;
	int err;	  /* errno of the failed open, 0 if it opened */
	char reason[256]; /* one sentence on what to do (strerror: hint, never cut short) */
	char encoding[160];
	/* The value counts CPU time (ns) in steps of this many ns (a /proc/stat tick of
	 * 1/USER_HZ s); 0 = it counts single events. */
	uint64_t quantum_ns;
};

struct backend;

struct source_ops {
	const char *name; /* "perf", "sim", "replay", "remote": for output, never for decisions */
	unsigned caps;	  /* enum source_cap */
	/* Opens the events on every row. Fails (-1) only when nothing at all can be counted. */
	int (*open)(struct backend *b, const struct backend_req *req, char *err, size_t errlen);
	/* Reads every row: @out[row * nevents + e] cumulative triples, @present likewise (false =
	 * not supported or CPU offline), @offline[row]. @t_ns is the sample time (monotonic ns).
	 * @nominal_ns is the tick the engine asked for (virtual-time sources advance by it). */
	int (*read)(struct backend *b, uint64_t nominal_ns, struct raw_count *out, bool *present,
		    bool *offline, uint64_t *t_ns, char *err, size_t errlen);
	/* Enables only event set @set (rotation of "multiple runs"); optional. */
	void (*select_set)(struct backend *b, int set);
	void (*close)(struct backend *b);
	/* Optional: the machine the numbers come from (recorded sources). */
	void (*describe)(const void *inst, struct source_machine *out);
	/* Optional: the CPUs the source can show (recorded or simulated ones); without it the
	 * engine uses the online CPUs of this machine. */
	void (*cpus)(const void *inst, struct cpuset *out);
	/* Optional (a sampling source): drains what was sampled without blocking and returns how
	 * many ticks are ready for read() now; -1 when ticks are not sampled (read() takes one) */
	int (*queued)(struct backend *b);
};

/* A source for the run: its operations and its own state. */
struct source {
	const struct source_ops *ops;
	void *inst;
};

static inline bool source_has(const struct source *s, unsigned cap)
{
	return s->ops && (s->ops->caps & cap) != 0;
}

struct backend {
	const struct source_ops *ops;
	void *priv;
	int nrows, nevents;
	struct backend_status *status; /* [row * nevents + e], filled by open */
	unsigned counter_bits;	       /* width for count_delta (64 for kernel counts) */
	bool simulated;		       /* every output says SIMULATED */
	/* the sampling ring path (perfring.h) is active: ticks come from queued() */
	bool ring;
	/* [row]: samples the ring lost (PERF_RECORD_LOST), NULL: none. A replay of a ring run sets
	 * these three from the recording (ring stays false: its ticks are not sampled here) */
	const uint64_t *lost;
	/* [row]: the kernel throttled the ring's group (PERF_RECORD_THROTTLE .. UNTHROTTLE): ns
	 * throttled and episodes begun, through the ticks read; NULL: none */
	const uint64_t *throttled_ns, *throttles;
	uint64_t drain_ns; /* the rings fill a quarter in this time (ns): drain at least so often */
	/* the sampling ring: the engine's open window ends at this time (monotonic ns, the samples'
	 * clock; 0 = not known). A row the kernel throttled at that time gets a tick there, whose
	 * counts repeat its last ones, so a window closes on time with every CPU throttled. */
	uint64_t due_ns;
	/* the CPUs this tick's /proc/stat read had a line for (the kernel prints one per online
	 * CPU) as procirq_stat_parse_keyed()'s key: app_tick() reads the online list when it
	 * changes; 0: no /proc/stat read this tick */
	uint64_t stat_cpus_key;
	/* texts last: the fields above are a tick's, these 900 bytes are read when a mode opens */
	char description[128]; /* "perf_event (software events only)" */
	char warnings[4][192]; /* messages for the log, set by open */
	int nwarnings;
};

/* The backend's ring count @k per row (lost, throttled_ns, throttles), NULL when it keeps none
 * (a read() path, or a replay of one). */
static inline const uint64_t *backend_ring_count(const struct backend *b, enum ring_count k)
{
	return k == RING_LOST ? b->lost : k == RING_THROTTLED_NS ? b->throttled_ns : b->throttles;
}

/* Sim backend knobs (--sim-* options). */
struct sim_opts {
	uint64_t seed;
	unsigned counter_bits;	      /* 64, or 32 to wrap as on ARMv7/XScale */
	double mux_fraction;	      /* <1: every event counts only this fraction of the time */
	int fail_event;		      /* index of an event that never opens, -1 none */
	int offline_cpu;	      /* CPU that goes offline ... */
	int offline_from, offline_to; /* ... for ticks [from, to), -1 none */
	int ncpus;		      /* simulated CPUs 0 .. ncpus-1 */
	int spike_cpu;		      /* CPU with injected spikes, -1 none */
	int spike_every;	      /* every N ticks (0 = none) */
	double spike_factor;	      /* multiply the spiking CPU's cycles/misses by this */
	unsigned slots;		      /* issue slots per cycle its machine says (caps/slots) */
	/* --sim-truth: the rates also wander within a tick (a multiplexed count misses what it did
	 * not see) and the true counts are kept (sim_truth) */
	bool truth;
	/* --sim-shift CPU:FACTOR@TICK: from output tick TICK on, CPU retires FACTOR times the
	 * instructions (an IPC shift); shift_cpu -1 none */
	int shift_cpu;
	double shift_factor;
	long shift_tick;
	/* --sim-tasks N: the run counts N simulated tasks (ids SIM_TASK_PID0 + k), a row each,
	 * instead of CPUs; 0 none */
	int tasks;
	/* --sim-task-churn K: the last K of them come and go: one in two ends early, the others
	 * start late (within the first 3 + 2K + 4 ticks) */
	int task_churn;
	/* --sim-unpaced: a batch run (-b -n N) reads its ticks one after another without waiting;
	 * each still stands for the interval (virtual time) */
	bool unpaced;
};
#define SIM_TASK_PID0 1000 /* the first simulated task's id */
#define SIM_SLOTS 4	   /* the simulated cores' caps/slots (ARMv8 top-down) */
void sim_opts_default(struct sim_opts *o);
/* The true count of each counter, [row * nevents + e], over the tick of the last read of the sim
 * backend @b opened with --sim-truth; -1 for any other backend. */
int sim_truth(const struct backend *b, const double **truth);

/* The sources --backend can name (perf, sim: a backend file each and a row of the table in
 * backends/source.c); replay and remote come from -R and --remote (replay.h). A source's
 * ops.name ("perf", "sim", "replay", "remote") is stable: JSON and recordings carry it. */
const struct source_ops *source_find(const char *name);
/* The @i-th of them by name, in their table's order; NULL past the end. */
const char *source_name_at(size_t i);
void backend_free(struct backend *b);

/* perf_event_open errno -> a sentence saying what to do. */
const char *perf_errno_hint(int err);
/* Raises RLIMIT_NOFILE to the hard limit; returns the new soft limit. */
long backend_raise_nofile(void);
/* Descriptors this process can still open under RLIMIT_NOFILE (a large number when there is
 * no limit); @limit (may be NULL) gets the soft limit, -1 for none. */
long backend_nofile_free(long *limit);
/* Descriptors the perf backend leaves free when it opens counters: the recording file and the
 * files read while running (the terminal database, the CPU online list, flight recordings). */
#define BACKEND_FD_SPARE 2

#endif

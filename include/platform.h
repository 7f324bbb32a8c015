/* SPDX-License-Identifier: GPL-2.0-or-later */
/* platform.h: the machine's PMUs, CPUs, core types and privileges, from sysfs/procfs under a root.
 */
#ifndef PMUTOP_PLATFORM_H
#define PMUTOP_PLATFORM_H
#include "cpuset.h"
#include "family.h"
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#define PLATFORM_MAX_PMUS 32
#define PLATFORM_MAX_CACHES 8
#define PLATFORM_MAX_NOTES 10
#define PLATFORM_NOTE_MAX 256	/* bytes of one note, NUL included: every permission hint fits */
#define PLATFORM_MAX_LISTED 128 /* event= codes kept from one core PMU's events/ directory */
#define PLATFORM_PROBE_MAX 33	/* counters tried at most (ARMv8.9: 31 + cycle + instructions) */

/* One directory of <root>/sys/bus/event_source/devices. */
#define PLATFORM_MAX_SLOTS 64 /* caps/slots above this is taken as unreadable */
struct platform_pmu {
	char name[64];
	int type;			 /* attr.type from <pmu>/type, -1 if unreadable */
	struct cpuset cpus;		 /* from cpus or cpumask; all possible CPUs if absent */
	char caps_pmu_name[64];		 /* caps/pmu_name, "" if absent */
	const struct pmu_family *family; /* core PMUs only, NULL otherwise */
	bool is_core; /* cpu, cpu_core, cpu_atom, armv5_*, armv6_*, armv7_*, armv8_*, armv9_* */
	int mux_interval_ms; /* perf_event_mux_interval_ms, -1 if unknown */
	int num_counters; /* caps/num_counters, else probed, else the family's count, 0 unknown */
	bool counters_probed; /* num_counters was found by opening growing groups */
	bool has_events_dir;  /* <pmu>/events/ exists (core PMUs only) */
	unsigned short listed[PLATFORM_MAX_LISTED]; /* "event=0xNN" codes in <pmu>/events/ */
	int nlisted;
	bool has_long;	  /* format/long exists (ARMv8: config1:0 asks for a 64-bit counter) */
	unsigned max_khz; /* cpufreq cpuinfo_max_freq of its first CPU (kHz), 0 unknown */
	unsigned slots; /* caps/slots: issue slots per cycle (ARMv8.4 PMMIR_EL1.SLOTS), 0 unknown */
};

/* One cache of the first online CPU (cpuN/cache/indexM). */
struct platform_cache {
	int level;	    /* 1, 2, 3 */
	char type[16];	    /* "Data", "Instruction", "Unified" */
	unsigned size_kb;   /* KiB */
	unsigned line_size; /* bytes, coherency_line_size */
};

struct platform {
	char root[4096]; /* prefix without trailing '/', "" for the live system */
	struct cpuset possible, online, present;
	int ncpus_possible; /* highest possible CPU + 1 */
	struct platform_pmu pmus[PLATFORM_MAX_PMUS];
	int npmus;	    /* core PMUs first (by first CPU), then the others by name */
	int pmus_dropped;   /* PMU directories beyond PLATFORM_MAX_PMUS (never core PMUs) */
	int core_pmu_count; /* 0 = no hardware PMU (VM without vPMU) */
	const struct pmu_family
	    *family; /* main family: from the core PMU of the lowest CPU; "sw" if none */
	bool hybrid; /* more than one core PMU (cpu_core+cpu_atom, big.LITTLE) */
	char cpu_vendor[32],
	    cpu_model_name[128]; /* vendor_id/model name (x86); implementer name/Processor (ARM) */
	int cpu_family, cpu_model;   /* /proc/cpuinfo (x86), -1 if absent */
	int cpu_stepping;	     /* /proc/cpuinfo "stepping" (x86), -1 if absent */
	unsigned long long arm_midr; /* midr_el1 of the first online CPU (or built from cpuinfo) */
	unsigned arm_implementer, arm_part; /* first CPU, /proc/cpuinfo or midr_el1; 0 if not ARM */
	bool hypervisor;  /* "hypervisor" flag in cpuinfo, or /sys/hypervisor/type */
	int smt;	  /* 1 SMT on, 0 off, -1 unknown: devices/system/cpu/smt/active, else
			   * topology/thread_siblings_list of the online CPUs */
	int paranoid;	  /* /proc/sys/kernel/perf_event_paranoid, -99 unknown */
	bool cap_perfmon; /* CAP_PERFMON or CAP_SYS_ADMIN effective (live only; false under a
			     fixture root) */
	bool is_root;	  /* euid 0 (live only; false under a fixture root) */
	int nmi_watchdog; /* /proc/sys/kernel/nmi_watchdog, -1 unknown */
	char hostname[128], kernel[128]; /* uname, or <root>/proc/sys/kernel/{hostname,osrelease} */
	struct platform_cache caches[PLATFORM_MAX_CACHES];
	int ncaches;
	char notes[PLATFORM_MAX_NOTES][PLATFORM_NOTE_MAX]; /* the capability summary, one fact
							    * per entry */
	int nnotes;
	long interval_ms; /* the run's interval, judged in the counter-wrap note (0: left out) */
	char capability[PLATFORM_MAX_NOTES * PLATFORM_NOTE_MAX]; /* the notes joined with "; " */
};

/* What a perf_event_open asks for: each needs its own perf_event_paranoid level (or root or
 * CAP_PERFMON). */
enum perf_scope {
	PERF_SCOPE_CPU,		/* per-CPU system-wide counting, what pmutop counts: <= 0 */
	PERF_SCOPE_TASK_USER,	/* one task, user space only (the cache probe): <= 2 */
	PERF_SCOPE_TASK_KERNEL, /* one task, kernel counts included: <= 1 */
	PERF_SCOPE_TRACEPOINT,	/* tracepoints and raw tracepoint data: -1 */
};
/* The highest perf_event_paranoid at which an unprivileged user gets @scope. */
int platform_paranoid_needed(enum perf_scope scope);
/* The permission hint for @scope given a perf_event_paranoid level (-99: unknown) and the
 * privileges: whether it is allowed, or the level it needs, the level there is, and what to do;
 * @denied (an open failed with EACCES/EPERM although it is allowed): where else a denial comes
 * from. One complete line; returns the length it needs (snprintf), always < PLATFORM_NOTE_MAX. */
int platform_permission_text(int paranoid, bool is_root, bool cap_perfmon, enum perf_scope scope,
			     bool denied, char *buf, size_t len);
/* The same for this platform's perf_event_paranoid and privileges. */
int platform_permission_hint(const struct platform *pf, enum perf_scope scope, bool denied,
			     char *buf, size_t len);

/* Reads everything under @root ("" or "/" or NULL for the live system). Returns 0, or -1 with
 * a cause in @err (missing root, missing <root>/sys/devices/system/cpu/possible or online). */
int platform_detect(struct platform *pf, const char *root, char *err, size_t errlen);
/* Rebuilds notes[] and capability[] from the fields (after a test or caller changed e.g.
 * paranoid, cap_perfmon or is_root). */
void platform_describe(struct platform *pf);
/* The core PMU whose cpus contain @cpu, or NULL. */
const struct platform_pmu *platform_core_pmu_for_cpu(const struct platform *pf, int cpu);
const struct platform_pmu *platform_find_pmu(const struct platform *pf, const char *name);
/* Core type of @cpu: the core PMU's name ("cpu_core", "cpu_atom", "armv8_cortex_a53"), or ""
 * for the plain x86 "cpu" PMU and for CPUs without a core PMU. */
const char *platform_core_type(const struct platform *pf, int cpu);
/* Seconds until a counter of @p wraps at its maximum clock (2^bits cycles), 0 if the clock is
 * unknown or the counters are 64-bit. */
double platform_wrap_seconds(const struct platform_pmu *p);
/* "counters 32-bit: wrap after 2.1 s at 2.0 GHz; interval 1 s ok" for @interval_ms (0 = leave
 * the interval out). Returns true if the interval is longer than the wrap time (a warning). */
bool platform_wrap_note(const struct platform_pmu *p, long interval_ms, char *buf, size_t len);

/* How the counter probe opens and closes events (perf_event_open, or a fake in tests). */
struct platform_opener {
	int (*open)(struct perf_event_attr *attr, int cpu, int group_fd, void *arg); /* fd/-1 */
	void (*close)(int fd, void *arg);
	void *arg;
};
/* perf_event_open(2) and close(2). */
extern const struct platform_opener platform_perf_opener;
/* Counts the programmable counters of core PMU @p: opens growing pinned groups of one
 * non-cycle raw event (disabled, nothing counts) on @cpu until the kernel refuses the group,
 * then closes them. Returns the count (>= 1), or -1 with the reason in @why when not even
 * one event opens. */
int platform_probe_counters(const struct platform_pmu *p, int cpu, const struct platform_opener *o,
			    char *why, size_t len);

/* Re-reads <root>/sys/devices/system/cpu/online (cheap, every tick). Returns 1 if the set
 * changed (notes are rebuilt), 0 if not, -1 if unreadable (set kept). */
int platform_read_online(struct platform *pf);
/* The same through a descriptor kept open in @fd (-1: opened on the first call; closed and set
 * to -1 when a read fails): one pread per call instead of open, read and close. */
int platform_read_online_fd(struct platform *pf, int *fd);

struct pmuev_machine;
/* Fills @m (pmuevents.h) from @pf: its root, vendor, family, model, stepping, MIDR, topology. */
void platform_pmuev_machine(const struct platform *pf, struct pmuev_machine *m);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrib.h: per-CPU attribution of a sample: switches, migrations, interrupts, SMIs, MHz, busiest
 * task. */
#ifndef PMUTOP_ATTRIB_H
#define PMUTOP_ATTRIB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "procirq.h"
#include "tasktop.h"

/* Numeric columns, per CPU and sample. NaN = n/a. */
enum attrib_col {
	ATTRIB_CS,	/* context switches per s (own software perf event per CPU) */
	ATTRIB_MIGR,	/* CPU migrations per s (own software perf event per CPU) */
	ATTRIB_IRQ,	/* hardware interrupts per s (/proc/interrupts) */
	ATTRIB_SOFTIRQ, /* softirqs per s (/proc/softirqs) */
	ATTRIB_SMI,	/* SMIs in the sample (msr/smi/ where that event exists) */
	ATTRIB_MHZ,	/* scaling_cur_freq, MHz (read at the slow cadence) */
	ATTRIB_TASK, /* the busiest task's % of the scan interval on this CPU (slow cadence), 0 idle
		      */
	ATTRIB_NCOLS
};

/* Column names as rules and JSON name them: cs_s migr_s irq_s softirq_s smi mhz task_pct. */
extern const char *const attrib_col_names[ATTRIB_NCOLS];
/* Index of column @name, or -1. */
int attrib_col_find(const char *name);

struct attrib {
	char root[1024];
	int nrows;
	int *cpus;
	int ncpu_max;	/* highest CPU + 1 */
	int *fd;	/* [nrows * 3]: cs, migrations, smi; -1 when not open */
	uint64_t *prev; /* [nrows * 3] */
	bool primed;
	struct procirq_table irq[2], softirq[2];
	int cur; /* index of the newest read in irq[] and softirq[] */
	bool irq_ok, softirq_ok;
	struct tasktop tt;
	bool tt_ok;
	unsigned slow_ms; /* cadence of cpufreq and task scans */
	uint64_t last_ns, last_slow_ns;
	double *val;	     /* [nrows * ATTRIB_NCOLS] of the last sample */
	double *mhz;	     /* [nrows], kept between slow reads */
	uint64_t *irq_delta; /* [ncpu_max] scratch */
	char note[256];	     /* what is n/a and why (first causes), for the message log */
};

/*
 * Opens the sources for the CPUs @cpus: per CPU a context-switch, a migration and (where
 * <root>/sys/bus/event_source/devices/msr/events/smi exists) an SMI counter with
 * perf_event_open when @perf_events is true; /proc/interrupts and /proc/softirqs and cpufreq
 * under @root ("" or "/" live); tasktop with @exclude_pid (pmutop's own pid) at @slow_ms.
 * Sources that fail are n/a and described in a->note. Returns 0, or -1 on allocation failure.
 */
int attrib_init(struct attrib *a, const char *root, int nrows, const int *cpus, unsigned slow_ms,
		int exclude_pid, bool perf_events, char *err, size_t errlen);
void attrib_free(struct attrib *a);
/* Reads every source at @now_ns (CLOCK_MONOTONIC); the first call primes (values n/a). */
void attrib_sample(struct attrib *a, uint64_t now_ns);
/* The last sample of row @row: ATTRIB_NCOLS values. */
const double *attrib_values(const struct attrib *a, int row);
/* Busiest task of row @row from the last scan, or NULL when none is known. */
const struct tasktop_cpu *attrib_task(const struct attrib *a, int row);
size_t attrib_bytes(const struct attrib *a);

#endif

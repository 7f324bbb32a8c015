/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cadence.h: the sampler's own honesty: tick lateness, missed ticks, drift and self CPU use. */
#ifndef PMUTOP_CADENCE_H
#define PMUTOP_CADENCE_H
#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define CADENCE_WINDOW 1024	/* lateness samples kept for p50/p99 */
#define CADENCE_LATE_NS 1000000 /* p99 lateness (ns) past which ticks count as late */
#define CADENCE_SLIDE_MAX 64	/* wake-ups between reports that a report catches up on */

/*
 * Feed one call per wake-up. Lateness = wake - deadline (ns). With cadence_tick() the deadline is
 * the absolute schedule t0 + k * period, where k counts every expiration (the loop's periodic
 * timer reports how many expirations passed, 1 + its overrun count; all but one are missed
 * ticks). With
 * cadence_tick_at() the caller names its own deadline (a relative sleep loop), and drift shows
 * what that costs: drift = last wake - (t0 + k * period), which stays bounded for absolute
 * deadlines and grows for relative ones. Pure accumulation; the caller supplies every time.
 * The ring points into the struct itself: initialise in place, never copy a struct cadence.
 */
struct cadence {
	int64_t t0_ns, period_ns;
	uint64_t k;		 /* expirations so far */
	uint64_t ticks;		 /* wake-ups */
	uint64_t missed;	 /* expirations beyond the first of each wake-up */
	uint64_t long_intervals; /* wake-to-wake gaps over 1.5 periods */
	int64_t late_max_ns;	 /* since init */
	int64_t last_wake_ns;
	int64_t drift_ns;
	struct series_ring late; /* the last CADENCE_WINDOW lateness values, ns */
	/* Own CPU use between the last two self samples. */
	int64_t self_cpu_ns, self_wall_ns;
	unsigned self_samples;
	unsigned sorted_behind; /* wake-ups since scratch was sorted (cadence.c) */
	double self_pct;	/* % of one core */
	int self_cpu;		/* CPU the sampler last ran on, -1 when unknown */
	int sorted_state; /* cadence.c: a sorted copy, or one to make at the next close report */
	/* the arrays last: the figures above share the lines a wake-up reads */
	double late_buf[CADENCE_WINDOW];
	/* [0, W): the ring's values ascending as of sorted_behind wake-ups ago (cadence_report),
	 * or a copy of them to select on while there is no sorted one; [W, W +
	 * CADENCE_SLIDE_MAX): the values those wake-ups pushed out of the ring */
	double scratch[3 * CADENCE_WINDOW];
};

struct cadence_report {
	bool available; /* at least one tick */
	uint64_t ticks, missed, long_intervals;
	double p50_ns, p99_ns, max_ns; /* over the window (type-7 percentiles, see stats.h) */
	int64_t max_all_ns;	       /* since init */
	int64_t drift_ns;
	double self_pct; /* NaN before two self samples */
	int self_cpu;
};

__attribute__((cold)) void cadence_init(struct cadence *c, int64_t t0_ns, int64_t period_ns);
/* One wake-up at @wake_ns on the absolute schedule; @expirations as the loop's timer reports
 * them (1 + overruns; 0 is taken as 1). */
void cadence_tick(struct cadence *c, int64_t wake_ns, uint64_t expirations);
/* One wake-up for a caller-chosen @deadline_ns. */
void cadence_tick_at(struct cadence *c, int64_t wake_ns, int64_t deadline_ns, uint64_t expirations);
/* Own process CPU time and a monotonic wall time (both ns), and the current CPU (-1 unknown). */
void cadence_self_sample(struct cadence *c, int64_t cpu_ns, int64_t wall_ns, int cpu);
void cadence_report(struct cadence *c, struct cadence_report *out);
/* True when the report's p99 lateness over its window exceeds CADENCE_LATE_NS: the ticks wait
 * for the scheduler, and an ordinary process cannot wait less (--realtime can). */
bool cadence_late(const struct cadence_report *r);
/* True when this process already runs under a real-time policy (FIFO, RR or DEADLINE). */
bool cadence_realtime(void);
/* The own-CPU part of a cadence, kept across cadence_init (a new schedule). */
struct cadence_self {
	int64_t cpu_ns, wall_ns;
	unsigned samples;
	double pct;
	int cpu;
};
void cadence_self_save(const struct cadence *c, struct cadence_self *out);
void cadence_self_restore(struct cadence *c, const struct cadence_self *in);
/* Reads CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC and sched_getcpu(). Returns 0 or -1. */
int cadence_self_read(int64_t *cpu_ns, int64_t *wall_ns, int *cpu);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cadence.c: tick lateness percentiles, missed ticks, drift and self CPU use from injected
 * times. */
#include "cadence.h"
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL
#define US 1000LL

static void check_absolute(void)
{
	struct cadence c;
	struct cadence_report r;
	cadence_init(&c, 5 * MS, 10 * MS);
	cadence_report(&c, &r);
	CHECK(!r.available && r.ticks == 0, "empty report");
	CHECK(isnan(r.self_pct) && r.self_cpu == -1, "no self sample yet");
	/* Tick k (1..100) wakes k microseconds late. */
	for (int k = 1; k <= 100; k++)
		cadence_tick(&c, 5 * MS + k * 10 * MS + k * US, 1);
	cadence_report(&c, &r);
	CHECK(r.available, "available");
	CHECK_INT(r.ticks, 100);
	CHECK_INT(r.missed, 0);
	CHECK_NEAR(r.p50_ns, 50.5 * US, 1e-6);
	CHECK_NEAR(r.p99_ns, 99.01 * US, 1e-6);
	CHECK_NEAR(r.max_ns, 100 * US, 0);
	CHECK_INT(r.max_all_ns, 100 * US);
	CHECK_INT(r.drift_ns, 100 * US); /* absolute deadlines: drift is just the last lateness */
	CHECK_INT(r.long_intervals, 0);
	/* A stall: the timer reports 4 expirations (3 overruns), 3 ticks were missed. */
	cadence_tick(&c, 5 * MS + 104 * 10 * MS + 20 * US, 4);
	cadence_report(&c, &r);
	CHECK_INT(r.missed, 3);
	CHECK_INT(r.ticks, 101);
	CHECK_INT(c.k, 104);
	CHECK_INT(r.drift_ns, 20 * US);
	CHECK_INT(r.long_intervals, 1);
	cadence_tick(&c, 5 * MS + 105 * 10 * MS, 0); /* 0 expirations counts as 1 */
	CHECK_INT(c.k, 105);
	cadence_report(&c, &r);
	CHECK_INT(r.drift_ns, 0);
}

static void check_relative(void)
{
	struct cadence c;
	struct cadence_report r;
	cadence_init(&c, 0, 10 * MS);
	/* A relative sleep loop: each deadline is the previous wake + period, 100 us late each
	 * time. */
	int64_t wake = 0;
	for (int k = 0; k < 10; k++) {
		int64_t deadline = wake + 10 * MS;
		wake = deadline + 100 * US;
		cadence_tick_at(&c, wake, deadline, 1);
	}
	cadence_report(&c, &r);
	CHECK_NEAR(r.p50_ns, 100 * US, 0);
	CHECK_NEAR(r.max_ns, 100 * US, 0);
	CHECK_INT(r.drift_ns, 1 * MS); /* accumulated: 10 x 100 us */
}

static void check_window(void)
{
	struct cadence c;
	struct cadence_report r;
	cadence_init(&c, 0, MS);
	cadence_tick(&c, MS + 900 * US, 1); /* one early outlier, later pushed out of the window */
	for (int k = 2; k <= CADENCE_WINDOW + 1; k++)
		cadence_tick(&c, k * MS + 10 * US, 1);
	cadence_report(&c, &r);
	CHECK_NEAR(r.max_ns, 10 * US, 0);
	CHECK_INT(r.max_all_ns, 900 * US);
	CHECK_NEAR(r.p99_ns, 10 * US, 0);
	/* Early wakes (negative lateness) are kept as they are. */
	cadence_init(&c, 0, MS);
	cadence_tick(&c, MS - 5 * US, 1);
	cadence_report(&c, &r);
	CHECK_INT(r.max_all_ns, -5 * US);
	CHECK_NEAR(r.p50_ns, -5 * US, 0);
}

static void check_self(void)
{
	struct cadence c;
	struct cadence_report r;
	cadence_init(&c, 0, MS);
	cadence_self_sample(&c, 0, 1000 * MS, 1);
	cadence_report(&c, &r);
	CHECK(isnan(r.self_pct), "one sample: n/a");
	CHECK_INT(r.self_cpu, 1);
	cadence_self_sample(&c, 5 * MS, 1100 * MS, 0);
	cadence_report(&c, &r);
	CHECK_NEAR(r.self_pct, 5.0, 1e-12);
	CHECK_INT(r.self_cpu, 0);
	cadence_self_sample(&c, 5 * MS, 1100 * MS, 0); /* no time passed: keeps the last value */
	cadence_report(&c, &r);
	CHECK_NEAR(r.self_pct, 5.0, 1e-12);

	int64_t cpu_ns, wall_ns;
	int cpu;
	CHECK(cadence_self_read(&cpu_ns, &wall_ns, &cpu) == 0, "self read");
	CHECK(cpu_ns > 0 && wall_ns > 0, "times positive");
	CHECK(cpu >= -1, "cpu %d", cpu);
}

/* The kernel's own record of this process's policy: field 41 of /proc/self/stat. */
/* Field @want (1-based, as proc(5) numbers them) of /proc/self/stat, or -1. */
static long proc_stat_field(int want)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the name may hold spaces */
	int field = 2;
	long value = -1;
	for (char *tok = p ? strtok(p + 1, " ") : NULL; tok; tok = strtok(NULL, " "))
		if (++field == want)
			value = atol(tok);
	return value;
}

static int proc_policy(void) { return (int)proc_stat_field(41); }

/* The --realtime suggestion: p99 over the window above 1 ms, and only for an ordinary process. */
static void check_late(void)
{
	struct cadence c;
	struct cadence_report r;
	cadence_init(&c, 0, 10 * MS);
	cadence_report(&c, &r);
	CHECK(!cadence_late(&r), "no ticks: not late");
	/* 200 ticks 100 us late: p99 0.1 ms */
	for (int k = 1; k <= 200; k++)
		cadence_tick(&c, k * 10 * MS + 100 * US, 1);
	cadence_report(&c, &r);
	CHECK(!cadence_late(&r), "on time: p99 %.3f ms is not late", r.p99_ns / 1e6);
	/* the window's p99 exactly at the threshold is not above it */
	cadence_init(&c, 0, 10 * MS);
	for (int k = 1; k <= 100; k++)
		cadence_tick(&c, k * 10 * MS + CADENCE_LATE_NS, 1);
	cadence_report(&c, &r);
	CHECK(!cadence_late(&r), "p99 at exactly 1 ms is not late");
	cadence_init(&c, 0, 10 * MS);
	for (int k = 1; k <= 200; k++)
		cadence_tick(&c, k * 10 * MS + (k % 50 == 0 ? 5 * MS : 100 * US), 1);
	cadence_report(&c, &r);
	/* 4 of 200 ticks 5 ms late: p99 (type 7, rank 197.01 of 0..199) is 5 ms */
	CHECK_NEAR(r.p99_ns, 5 * MS, 1e-6);
	CHECK(cadence_late(&r), "2 %% of ticks 5 ms late: p99 %.3f ms is late", r.p99_ns / 1e6);
	/* the window forgets: CADENCE_WINDOW ticks on time later it is no longer late */
	for (int k = 201; k <= 200 + CADENCE_WINDOW; k++)
		cadence_tick(&c, k * 10 * MS + 100 * US, 1);
	cadence_report(&c, &r);
	CHECK(!cadence_late(&r), "a window on time again: p99 %.3f ms", r.p99_ns / 1e6);

	/* the policy as the kernel shows it in /proc/self/stat (0 other, 1 FIFO, 2 RR, 6 deadline)
	 */
	int pol = proc_policy();
	CHECK(pol >= 0, "policy in /proc/self/stat");
	/* an ordinary task's priority (field 18) is 20 + nice, never 0 but at nice -20; an emulator
	 * (qemu-user runs the armhf tests) writes its own /proc/self/stat with 0 in most fields */
	if (pol == 0 && proc_stat_field(18) == 0) {
		printf(
		    "note: /proc/self/stat is not the kernel's here (priority 0 under SCHED_OTHER: "
		    "an emulator's): the policy checks against it are left out\n");
		return;
	}
	CHECK(cadence_realtime() == (pol == 1 || pol == 2 || pol == 6), "policy %d", pol);
	struct sched_param sp = {.sched_priority = 1}, zero = {.sched_priority = 0};
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0) {
		CHECK_INT(proc_policy(), 1);
		CHECK(cadence_realtime(), "SCHED_FIFO | SCHED_RESET_ON_FORK is real-time");
		CHECK(sched_setscheduler(0, SCHED_OTHER, &zero) == 0, "back to SCHED_OTHER");
		CHECK_INT(proc_policy(), 0);
		CHECK(!cadence_realtime(), "SCHED_OTHER is not real-time");
	} else {
		printf("note: SCHED_FIFO refused (%s): only the current policy checked\n",
		       strerror(errno));
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * The report's p50, p99 and max (kept sorted as the window slides) against a full
 * recomputation: the ring copied and sorted on every report. Random lateness with ties and
 * negative values (early wake-ups), 5000 wake-ups (the 1024-sample window wraps several times),
 * and reports 1 to 300 wake-ups apart, so both the catching up (up to CADENCE_SLIDE_MAX) and the
 * selection on a copy (further apart), and the change between them, are compared.
 */
static void check_incremental(void)
{
	static struct cadence c;
	static double copy[CADENCE_WINDOW];
	struct cadence_report r;
	cadence_init(&c, 0, 10 * MS);
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	int reports = 0, bad = 0, gap = 1, next = 1;
	for (int k = 1; k <= 5000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int64_t late = (int64_t)(x % 4000) * US / 10 - 50 * US; /* 0.1 us steps: ties */
		if (x % 97 == 0)
			late += 7 * MS; /* a stall */
		cadence_tick_at(&c, k * 10 * MS + late, k * 10 * MS, 1);
		if (k < next)
			continue;
		/* gaps: runs of close reports, then far ones, then close again */
		gap = (k / 700) % 2 ? 1 + (int)(x % 300) : 1 + (int)(x % 5);
		next = k + gap;
		cadence_report(&c, &r);
		size_t n = series_ring_last(&c.late, c.late.len, copy);
		qsort(copy, n, sizeof(double), cmp_dbl);
		reports++;
		if (!r.available || r.p50_ns != stats_percentile_sorted(copy, n, 0.5) ||
		    r.p99_ns != stats_percentile_sorted(copy, n, 0.99) || r.max_ns != copy[n - 1])
			bad++;
	}
	CHECK(reports > 500 && bad == 0, "%d of %d reports differ from a full sort", bad, reports);
	CHECK_INT(c.late.len, CADENCE_WINDOW);
}

int main(void)
{
	check_absolute();
	check_relative();
	check_window();
	check_self();
	check_late();
	check_incremental();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_cadence.c: tick lateness percentiles, missed ticks, drift and self CPU use from injected
 * times. */
#include "cadence.h"
#include "harness.h"

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
	/* A stall: the timerfd reports 4 expirations, 3 ticks were missed. */
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

int main(void)
{
	check_absolute();
	check_relative();
	check_window();
	check_self();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perf_live.c: the perf backend on this machine with software events on every online CPU.
 * Asserts only what holds on a loaded machine (counted, present, never backwards); how close the
 * counts come to the wall clock is bench/live_accuracy.sh's. */
#include "cpuset.h"
#include "family.h"
#include "harness.h"
#include "source.h"
#include <errno.h>
#include <unistd.h>

extern const struct source_ops source_perf_ops; /* backends/perf.c */

static int online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[256] = "", err[128];
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	struct cpuset s;
	if (cpuset_parse(&s, buf, err, sizeof(err)) < 0)
		return 0;
	int n = 0, c;
	cpuset_for_each(c, &s) if (n < max) cpus[n++] = c;
	return n;
}

int main(void)
{
	int cpus[256];
	int ncpus = online_cpus(cpus, 256);
	CHECK(ncpus > 0, "online CPUs");
	struct backend_event events[] = {
	    {"cpu_clock", "cpu-clock", 0, 0},
	    {"cs", "perf::CONTEXT-SWITCHES", 0, 0},
	    {"cycles", "perf::CYCLES", 0, 0},
	    {"bogus", "perf::NO_SUCH_EVENT", 0, 0},
	};
	struct backend_req req = {.sysfs_root = "/",
				  .family = family_find("sw"),
				  .ncpus = ncpus,
				  .cpus = cpus,
				  .nevents = 4,
				  .events = events};
	struct backend b = {.ops = &source_perf_ops};
	char err[512];
	if (b.ops->open(&b, &req, err, sizeof(err)) < 0) {
		if (strstr(err, "ermission") || strstr(err, "EACCES")) {
			SKIP("kernel refuses system-wide counting: %s", err);
			return harness_done();
		}
		if (strstr(err, "Function not implemented")) { /* ENOSYS: qemu-user, no perf */
			SKIP("perf_event_open is not implemented here: %s", err);
			return harness_done();
		}
		CHECK(0, "open failed: %s", err);
		return harness_done();
	}
	struct raw_count r0[256 * 4], r1[256 * 4];
	bool p0[256 * 4], p1[256 * 4], off[256];
	uint64_t t0, t1;
	CHECK(b.ops->read(&b, 0, r0, p0, off, &t0, err, sizeof(err)) == 0, "read");
	usleep(10000);
	CHECK(b.ops->read(&b, 0, r1, p1, off, &t1, err, sizeof(err)) == 0, "read");
	CHECK(t1 > t0, "time goes on: %llu then %llu ns", (unsigned long long)t0,
	      (unsigned long long)t1);
	for (int r = 0; r < ncpus; r++) {
		CHECK(!off[r], "cpu %d online", cpus[r]);
		CHECK(p1[r * 4 + 0], "cpu-clock present on cpu %d", cpus[r]);
		struct count c;
		count_delta(&r0[r * 4], &r1[r * 4], 64, &c);
		/* cpu-clock counts wall time on its CPU, busy or idle: some of it between two reads
		 */
		CHECK(c.state == COUNT_OK, "cpu %d cpu-clock state %s", cpus[r],
		      count_state_name(c.state));
		CHECK(c.value > 0, "cpu %d cpu-clock %.0f ns", cpus[r], c.value);
		CHECK(p1[r * 4 + 1], "context switches present");
		/* Hardware cycles: ENOENT on a VM without PMU; if a PMU exists it must count. */
		const struct backend_status *st = &b.status[r * 4 + 2];
		if (!st->supported)
			CHECK(st->err == ENOENT && strstr(st->reason, "no such event"),
			      "cycles reason: %s", st->reason);
		else
			CHECK(p1[r * 4 + 2], "cycles present when supported");
		st = &b.status[r * 4 + 3];
		CHECK(!st->supported && strstr(st->reason, "unknown event"), "bogus reason: %s",
		      st->reason);
	}
	backend_free(&b);

	/* msr/tsc as a member of a software-led group, where the msr PMU exists. */
	struct backend_event tsc_events[] = {{"cpu_clock", "cpu-clock", 0, 0},
					     {"tsc", "msr/tsc/", 0, 0}};
	req.events = tsc_events;
	req.nevents = 2;
	struct backend b2 = {.ops = &source_perf_ops};
	if (b2.ops->open(&b2, &req, err, sizeof(err)) == 0) {
		if (b2.status[1].supported) {
			CHECK(b2.ops->read(&b2, 0, r0, p0, off, &t0, err, sizeof(err)) == 0,
			      "read");
			usleep(10000);
			CHECK(b2.ops->read(&b2, 0, r1, p1, off, &t1, err, sizeof(err)) == 0,
			      "read");
			struct count c;
			count_delta(&r0[1], &r1[1], 64, &c);
			/* the time stamp counter only goes up */
			CHECK(c.state == COUNT_OK && c.value > 0, "TSC %s %.0f",
			      count_state_name(c.state), c.value);
		} else {
			SKIP("msr/tsc does not open here: %s", b2.status[1].reason);
		}
	}
	backend_free(&b2);

	/* /proc/stat busy + idle time (clock ticks) never goes back, and goes on: reads 10 ms or
	 * more apart until every CPU has a tick of either (1 s or more at most, however loaded) */
	struct backend_event proc_events[] = {{"clock", "cpu-clock", 0, 0},
					      {"busy", "proc/busy/", 0, 0},
					      {"idle", "proc/idle/", 0, 0}};
	req.events = proc_events;
	req.nevents = 3;
	struct backend b3 = {.ops = &source_perf_ops};
	CHECK(b3.ops->open(&b3, &req, err, sizeof(err)) == 0, "open: %s", err);
	CHECK(b3.ops->read(&b3, 0, r0, p0, off, &t0, err, sizeof(err)) == 0, "read");
	bool all_ticked = false;
	for (int tries = 0; tries < 100 && !all_ticked; tries++) {
		usleep(10000);
		CHECK(b3.ops->read(&b3, 0, r1, p1, off, &t1, err, sizeof(err)) == 0, "read");
		all_ticked = true;
		for (int r = 0; r < ncpus; r++) {
			struct count busy, idle;
			CHECK(p1[r * 3 + 1] && p1[r * 3 + 2], "cpu %d proc events present",
			      cpus[r]);
			count_delta(&r0[r * 3 + 1], &r1[r * 3 + 1], 64, &busy);
			count_delta(&r0[r * 3 + 2], &r1[r * 3 + 2], 64, &idle);
			CHECK(busy.state == COUNT_OK && idle.state == COUNT_OK, "cpu %d states",
			      cpus[r]);
			CHECK(busy.value >= 0 && idle.value >= 0, "cpu %d busy %.0f idle %.0f ns",
			      cpus[r], busy.value, idle.value);
			all_ticked &= busy.value + idle.value > 0;
		}
	}
	CHECK(all_ticked, "every CPU's busy + idle time went on");
	backend_free(&b3);

	/* Rotation: three sets of cpu-clock events; "shared" is in sets 0 and 2 (its own group,
	 * enabled with either), "always" in every set. An event runs exactly while one of its
	 * sets is selected: its running time grows in those ticks and stands still in the
	 * others. */
	struct backend_event rot_events[] = {{"set0", "cpu-clock", 0, 0},
					     {"set1", "cpu-clock", 1, 0},
					     {"shared", "cpu-clock", 0, 1u << 2},
					     {"always", "cpu-clock", -1, 0}};
	static const bool runs[3][4] = {{1, 0, 1, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
	req.events = rot_events;
	req.nevents = 4;
	req.nsets = 3;
	struct backend b4 = {.ops = &source_perf_ops};
	CHECK(b4.ops->open(&b4, &req, err, sizeof(err)) == 0, "open: %s", err);
	b4.ops->select_set(&b4, 0);
	CHECK(b4.ops->read(&b4, 0, r0, p0, off, &t0, err, sizeof(err)) == 0, "read");
	for (int tick = 0; tick < 3; tick++) {
		b4.ops->select_set(&b4, tick);
		CHECK(b4.ops->read(&b4, 0, r0, p0, off, &t0, err, sizeof(err)) == 0, "read");
		usleep(50000);
		CHECK(b4.ops->read(&b4, 0, r1, p1, off, &t1, err, sizeof(err)) == 0, "read");
		for (int r = 0; r < ncpus; r++)
			for (int e = 0; e < 4; e++) {
				const struct raw_count *a = &r0[r * 4 + e], *z = &r1[r * 4 + e];
				CHECK(p0[r * 4 + e] && p1[r * 4 + e], "cpu %d %s present", cpus[r],
				      rot_events[e].name);
				bool ran = z->running > a->running;
				CHECK(ran == runs[tick][e], "set %d: cpu %d %s ran %d, want %d",
				      tick, cpus[r], rot_events[e].name, ran, runs[tick][e]);
			}
	}
	backend_free(&b4);
	return harness_done();
}

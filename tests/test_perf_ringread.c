/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perf_ringread.c: on the sampling ring, a read() of the CPUs' groups (the priming read)
 * that waits while the CPUs' timers go on writing samples: those samples are older than the
 * read's counts and must not follow them (a count that goes back is an invalid tick, and the next
 * one counts twice). Every read() of the perf backend is made to wait 4 ms here (the link wraps
 * read: CMakeLists.txt), as a read of a halted virtual CPU's group waits for the host to wake it.
 */
#include "cpuset.h"
#include "family.h"
#include "harness.h"
#include "perfring.h"
#include "source.h"
#include <errno.h>
#include <unistd.h>

extern const struct source_ops source_perf_ops; /* backends/perf.c */

ssize_t __real_read(int fd, void *buf, size_t len);
ssize_t __wrap_read(int fd, void *buf, size_t len);
static int read_wait_us; /* how long each read() waits before it reads */

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	if (read_wait_us)
		usleep((useconds_t)read_wait_us);
	return __real_read(fd, buf, len);
}

int main(void)
{
	int cpus[2];
	struct cpuset online;
	char err[512], buf[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	int ncpus = 0, c;
	CHECK(cpuset_parse(&online, buf, err, sizeof(err)) == 0, "online CPUs: %s", buf);
	cpuset_for_each(c, &online) if (ncpus < 2) cpus[ncpus++] = c;
	struct backend_event events[] = {{"cpu_clock", "cpu-clock", 0, 0},
					 {"cs", "perf::CONTEXT-SWITCHES", 0, 0}};
	struct backend_req req = {.sysfs_root = "/",
				  .family = family_find("sw"),
				  .ncpus = ncpus,
				  .cpus = cpus,
				  .nevents = 2,
				  .events = events,
				  .sample_ns = 1000000, /* 1 ms */
				  .sample_path = PERFRING_RING,
				  .drain_ns = 100000000};
	struct backend b = {.ops = &source_perf_ops};
	if (b.ops->open(&b, &req, err, sizeof(err)) < 0) {
		if (strstr(err, "ermission") || strstr(err, "Function not implemented")) {
			SKIP("the kernel counts nothing system-wide here: %s", err);
			return harness_done();
		}
		CHECK(0, "open failed: %s", err);
		return harness_done();
	}
	if (!b.ring) {
		SKIP("the sampling ring did not open here (%s)",
		     b.nwarnings ? b.warnings[0] : "no warning");
		backend_free(&b);
		return harness_done();
	}
	struct raw_count prev[2 * 2], cur[2 * 2];
	bool pr[2 * 2], off[2];
	uint64_t t_ns;
	/* the priming read: each CPU's group read 4 ms late, while its timer writes samples */
	read_wait_us = 4000;
	CHECK(b.ops->read(&b, 0, prev, pr, off, &t_ns, err, sizeof(err)) == 0, "priming read");
	read_wait_us = 0;
	int ticks = 0;
	/* ticks for 2 s at most (a ring the kernel throttles writes fewer samples) */
	for (int round = 0; round < 400 && ticks < 8; round++) {
		usleep(5000);
		int ready = b.ops->queued(&b);
		CHECK(ready >= 0, "queued: %d", ready);
		for (int k = 0; k < ready; k++, ticks++) {
			CHECK(b.ops->read(&b, 0, cur, pr, off, &t_ns, err, sizeof(err)) == 0,
			      "tick read");
			for (int r = 0; r < ncpus; r++) {
				if (off[r] || !pr[r * 2])
					continue;
				struct count cc;
				count_delta(&prev[r * 2], &cur[r * 2], 64, &cc);
				CHECK(cur[r * 2].value >= prev[r * 2].value &&
					  cc.state != COUNT_INVALID,
				      "cpu %d tick %d: cpu-clock %llu after %llu (%s): a sample "
				      "older "
				      "than the read came after it",
				      cpus[r], ticks, (unsigned long long)cur[r * 2].value,
				      (unsigned long long)prev[r * 2].value,
				      count_state_name(cc.state));
				prev[r * 2] = cur[r * 2];
				prev[r * 2 + 1] = cur[r * 2 + 1];
			}
		}
	}
	CHECK(ticks >= 8, "ticks from the ring after the priming read: %d", ticks);
	backend_free(&b);
	return harness_done();
}

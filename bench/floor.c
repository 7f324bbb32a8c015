/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor.c: the least a counter monitor can cost: the groups pmutop's perf source opens for the
 * sw mode (per CPU a cpu-clock leader with context-switches, cpu-migrations, page-faults and
 * msr/tsc/ where it opens; PERF_FORMAT_GROUP with enabled and running time and ids), read
 * each tick on a timerfd with one pread of /proc/stat, and nothing else: no arithmetic, no
 * output. bench/floor.sh divides pmutop's CPU time by this program's. With --write BYTES it also
 * writes BYTES bytes to stdout each tick in one write() (cursor home, then digits that change
 * every tick): the least a screen costs that sends that many bytes a frame to its terminal.
 * With --touch KIB it also walks every 64-byte line of a KIB buffer each tick, in a shuffled
 * order where each line holds the next one's index (one load waits for the one before, as in
 * code that follows pointers) and writes a byte of each: what touching that much memory costs a
 * tick after the sleep (bench/touch_cost.sh). With --spread S the same lines lie S lines apart
 * (a KIB x S buffer, every S-th line): as many lines on S times the pages (S = 6: ~11 lines a
 * 4 KiB page, as a pmutop tick's data). With --huge the buffer lies on 2 MiB transparent huge
 * pages (madvise MADV_HUGEPAGE, then MADV_COLLAPSE): as many lines on few TLB entries. With
 * --prefetch each tick first asks for every line with a prefetch instruction, before its reads,
 * so the misses overlap each other and the reads' wait (bench/touch_ways.sh). With --online each
 * tick also preads /sys/devices/system/cpu/online on a descriptor kept open: what following
 * hotplug with a sysfs read a tick costs (bench/alone.sh).
 * usage: floor [-i INTERVAL_MS] [-n TICKS] [--no-msr] [--write BYTES] [--touch KIB] [--spread S]
 *              [--huge] [--prefetch] [--online]
 *   defaults: 1000 ms, 10 ticks, no output */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MAX_CPUS 4096
#define GROUP_EVENTS 5

static int open_event(struct perf_event_attr *a, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* The msr PMU's type and tsc's config, as sysfs says; -1 when there is none. */
static int msr_tsc(uint64_t *config)
{
	char buf[64];
	int fd = open("/sys/bus/event_source/devices/msr/type", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	int type = atoi(buf);
	fd = open("/sys/bus/event_source/devices/msr/events/tsc", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *eq = strchr(buf, '=');
	*config = eq ? strtoull(eq + 1, NULL, 0) : 0;
	return type;
}

/* BYTES of zeroes on 2 MiB huge pages where the kernel gives them (else on small pages: said) */
static void *huge_buffer(size_t bytes)
{
	const size_t huge = 2u << 20;
	size_t len = (bytes + huge - 1) / huge * huge;
	char *map =
	    mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	char *at = (char *)(((uintptr_t)map + huge - 1) / huge * huge);
	if (madvise(at, len, MADV_HUGEPAGE) < 0)
		fprintf(stderr, "floor: MADV_HUGEPAGE: %s (small pages)\n", strerror(errno));
	memset(at, 0, len);
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
	if (madvise(at, len, MADV_COLLAPSE) < 0)
		fprintf(stderr, "floor: MADV_COLLAPSE: %s (huge pages as khugepaged makes them)\n",
			strerror(errno));
	return at;
}

int main(int argc, char **argv)
{
	long interval_ms = 1000, ticks = 10;
	long write_bytes = 0; /* per tick, to stdout */
	long touch_kib = 0;   /* per tick, one byte a line */
	long spread = 1;      /* lines apart */
	int use_msr = 1;
	int huge = 0, prefetch = 0, online = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
			interval_ms = atol(argv[++i]);
		else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			ticks = atol(argv[++i]);
		else if (strcmp(argv[i], "--no-msr") == 0)
			use_msr = 0;
		else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc)
			write_bytes = atol(argv[++i]);
		else if (strcmp(argv[i], "--touch") == 0 && i + 1 < argc)
			touch_kib = atol(argv[++i]);
		else if (strcmp(argv[i], "--huge") == 0)
			huge = 1;
		else if (strcmp(argv[i], "--prefetch") == 0)
			prefetch = 1;
		else if (strcmp(argv[i], "--online") == 0)
			online = 1;
		else if (strcmp(argv[i], "--spread") == 0 && i + 1 < argc)
			spread = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: floor [-i INTERVAL_MS] [-n TICKS] [--no-msr] "
					"[--write BYTES] [--touch KIB] [--spread S] [--huge] "
					"[--prefetch] [--online]\n");
			return 2;
		}
	}
	if (interval_ms <= 0 || ticks <= 0) {
		fprintf(stderr, "floor: the interval and the ticks must be positive\n");
		return 2;
	}
	static char out[1 << 16];
	if (write_bytes < 0 || write_bytes > (long)sizeof(out)) {
		fprintf(stderr, "floor: --write takes 0 to %zu bytes\n", sizeof(out));
		return 2;
	}
	if (touch_kib < 0 || touch_kib > 65536) {
		fprintf(stderr, "floor: --touch takes 0 to 65536 KiB\n");
		return 2;
	}
	if (spread < 1 || spread > 64) {
		fprintf(stderr, "floor: --spread takes 1 to 64\n");
		return 2;
	}
	/* the lines to touch, chained in an order the prefetchers cannot follow */
	size_t nlines = (size_t)touch_kib * 1024 / 64;
	struct line {
		size_t next;
		unsigned char bytes[64 - sizeof(size_t)];
	} *touch = NULL;
	if (nlines && huge)
		touch = huge_buffer(nlines * (size_t)spread * sizeof(*touch));
	else if (nlines)
		touch = calloc(nlines * (size_t)spread, sizeof(*touch));
	size_t *order = nlines ? malloc(nlines * sizeof(*order)) : NULL;
	if (nlines && (!touch || !order)) {
		fprintf(stderr, "floor: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < nlines; i++)
		order[i] = i;
	uint64_t seed = 88172645463325252ULL;
	for (size_t i = nlines; i > 1; i--) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		size_t j = (size_t)(seed % i), x = order[i - 1];
		order[i - 1] = order[j], order[j] = x;
	}
	for (size_t i = 0; i < nlines; i++) /* line k of the walk is line k * spread */
		touch[order[i] * (size_t)spread].next = order[(i + 1) % nlines] * (size_t)spread;
	size_t first = nlines ? order[0] * (size_t)spread : 0;
	free(order);
	static const uint64_t sw[] = {PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
				      PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS};
	uint64_t tsc_config = 0;
	int tsc_type = use_msr ? msr_tsc(&tsc_config) : -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	static int leader[MAX_CPUS];
	int nleaders = 0, nevents = 0;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int lead = -1;
		for (int e = 0; e < GROUP_EVENTS; e++) {
			struct perf_event_attr a;
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			if (e < 4) {
				a.type = PERF_TYPE_SOFTWARE;
				a.config = sw[e];
				a.exclude_hv = 1;
				a.exclude_guest = 1;
			} else if (tsc_type >= 0) {
				a.type = (uint32_t)tsc_type;
				a.config = tsc_config;
			} else {
				continue;
			}
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
					PERF_FORMAT_GROUP;
			a.disabled = lead < 0;
			int fd = open_event(&a, cpu, lead);
			if (fd < 0) {
				if (e == 0)
					break; /* an offline CPU */
				continue;
			}
			if (lead < 0)
				lead = fd;
			nevents++;
		}
		if (lead >= 0)
			leader[nleaders++] = lead;
	}
	if (nleaders == 0) {
		fprintf(stderr, "floor: no counter opens: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < nleaders; i++)
		ioctl(leader[i], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	int stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	static char statbuf[65536], onlinebuf[8192];
	int online_fd = online ? open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC) : -1;
	if (online && online_fd < 0) {
		fprintf(stderr, "floor: /sys/devices/system/cpu/online: %s\n", strerror(errno));
		return 1;
	}
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {
	    .it_interval = {interval_ms / 1000, (interval_ms % 1000) * 1000000L},
	    .it_value = {interval_ms / 1000, (interval_ms % 1000) * 1000000L},
	};
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0) {
		fprintf(stderr, "floor: timerfd: %s\n", strerror(errno));
		return 1;
	}
	uint64_t buf[3 + 2 * GROUP_EVENTS], expired;
	for (long t = 0; t < ticks; t++) {
		if (read(tfd, &expired, sizeof(expired)) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; prefetch && i < nlines; i++)
			__builtin_prefetch(&touch[i * (size_t)spread], 1, 3);
		for (int i = 0; i < nleaders; i++)
			if (read(leader[i], buf, sizeof(buf)) < 0)
				return 1;
		if (online_fd >= 0 && pread(online_fd, onlinebuf, sizeof(onlinebuf) - 1, 0) < 0)
			return 1;
		if (stat >= 0 && pread(stat, statbuf, sizeof(statbuf) - 1, 0) < 0)
			return 1;
		for (size_t i = 0, at = first; i < nlines; i++, at = touch[at].next)
			touch[at].bytes[0]++;
		if (write_bytes > 0) {
			/* cursor home, then a digit per byte that differs from the last tick's */
			long n = 0;
			if (write_bytes >= 3)
				memcpy(out, "\033[H", 3), n = 3;
			for (; n < write_bytes; n++)
				out[n] = (char)('0' + (t + n) % 10);
			if (write(STDOUT_FILENO, out, (size_t)n) < 0)
				return 1;
		}
	}
	fprintf(stderr, "floor: %d CPUs, %d events, %ld ticks of %ld ms\n", nleaders, nevents,
		ticks, interval_ms);
	return 0;
}

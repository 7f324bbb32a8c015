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
 * hotplug with a sysfs read a tick costs (bench/alone.sh). With -f csv each tick also does the
 * least a monitor does to print the records pmutop's batch CSV prints for the sw mode: the
 * deltas of the counts and of /proc/stat's busy and idle time (pmutop's parser), the mode's six
 * metrics, a row per CPU and one for all, in pmutop's columns and number formats (numfmt), one
 * write():
 * a single-purpose program with the same output, no tables, no expressions, no observers
 * (bench/lean.sh). -b, --no-rc and -m sw are taken and ignored, so the benchmarks that run
 * `BIN [--no-rc] -b -m sw -i MS -n TICKS -f csv` (overhead.sh, tick_touch.sh) run it in pmutop's
 * place.
 * usage: floor [-i INTERVAL_MS] [-n TICKS] [--no-msr] [--write BYTES] [--touch KIB] [--spread S]
 *              [--huge] [--prefetch] [--online] [-f csv]
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
#include <time.h>
#include <unistd.h>

#include "numfmt.h"
#include "procirq.h"

#define MAX_CPUS 4096
#define GROUP_EVENTS 5

/* The wait for the next tick (a function of its own: bench/tick_touch.py marks a tick by its
 * entry, as pmutop's loop_wait) */
__attribute__((noinline)) static ssize_t loop_wait(int tfd, uint64_t *expired)
{
	return read(tfd, expired, sizeof(*expired));
}

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

/* -f csv: what a tick keeps per CPU to print the sw mode's records */
struct lean_cpu {
	int cpu, nev; /* CPU number; events in its group (4, or 5 with tsc) */
	uint64_t prev[GROUP_EVENTS], d[GROUP_EVENTS]; /* counts and their deltas */
	uint64_t prev_enabled, prev_running;	      /* ns */
	double running;				      /* share of the tick counted */
	uint64_t busy, idle, prev_busy, prev_idle;    /* /proc/stat, USER_HZ ticks */
	uint64_t dbusy, didle;			      /* this tick's, ns */
};

static const char *const lean_event_names[] = {"clock", "cs", "migrations", "faults", "tsc"};

struct lean_out {
	char *buf;
	size_t n, cap;
	const char *prefix, *suffix; /* "time_s,interval_ms," and ",host,timestamp\n" */
	size_t prefix_len, suffix_len;
};

static void lean_put(struct lean_out *o, const char *s, size_t len)
{
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void lean_flush(struct lean_out *o)
{
	if (o->n && write(STDOUT_FILENO, o->buf, o->n) < 0)
		exit(1);
	o->n = 0;
}

/* One record: PREFIX CPU,KIND,NAME,VALUE,RUNNING,STATE SUFFIX; VALUE and RUNNING are given
 * formatted (an empty string: none). */
static void lean_record(struct lean_out *o, const char *cpu, const char *kind, const char *name,
			const char *value, size_t value_len, const char *running, const char *state)
{
	if (o->n + 512 + value_len > o->cap)
		lean_flush(o);
	lean_put(o, o->prefix, o->prefix_len);
	lean_put(o, cpu, strlen(cpu));
	o->buf[o->n++] = ',';
	lean_put(o, kind, strlen(kind));
	o->buf[o->n++] = ',';
	lean_put(o, name, strlen(name));
	o->buf[o->n++] = ',';
	lean_put(o, value, value_len);
	o->buf[o->n++] = ',';
	lean_put(o, running, strlen(running));
	o->buf[o->n++] = ',';
	lean_put(o, state, strlen(state));
	lean_put(o, o->suffix, o->suffix_len);
}

static void lean_event(struct lean_out *o, const char *cpu, const char *name, uint64_t v,
		       const char *running)
{
	char num[NUMFMT_MAX];
	lean_record(o, cpu, "event", name, num, numfmt_u64(num, v), running, "ok");
}

static void lean_metric(struct lean_out *o, const char *cpu, const char *name, double v,
			const char *state)
{
	char num[NUMFMT_MAX];
	lean_record(o, cpu, "metric", name, num, numfmt_g(num, v, 6), "", state);
}

/* The records of one row: CPU's counts D (clock, cs, migrations, faults, tsc: NEV of them),
 * busy and idle in ns, over NCPUS CPUs and INTERVAL_NS. */
static void lean_row(struct lean_out *o, const char *cpu, const uint64_t *d, int nev,
		     double running, uint64_t busy_ns, uint64_t idle_ns, int ncpus,
		     double interval_ns, const char *util_state)
{
	char run[NUMFMT_MAX];
	numfmt_fixed(run, running, 4);
	for (int e = 0; e < 4; e++)
		lean_event(o, cpu, lean_event_names[e], d[e], run);
	lean_record(o, cpu, "event", "mperf", "", 0, "0.0000", "not_supported");
	if (nev > 4)
		lean_event(o, cpu, "tsc", d[4], run);
	else
		lean_record(o, cpu, "event", "tsc", "", 0, "0.0000", "not_supported");
	lean_event(o, cpu, "busy", busy_ns, "1.0000");
	lean_event(o, cpu, "idle", idle_ns, "1.0000");
	double secs = interval_ns / 1e9;
	if (busy_ns + idle_ns)
		lean_metric(o, cpu, "util", 100.0 * (double)busy_ns / (double)(busy_ns + idle_ns),
			    util_state);
	else
		lean_record(o, cpu, "metric", "util", "", 0, "", "n/a");
	double counted = 100.0 * (double)d[0] / (interval_ns * ncpus);
	lean_metric(o, cpu, "counted", counted < 100 ? counted : 100, "ok");
	lean_metric(o, cpu, "cs_per_s", (double)d[1] / ncpus / secs, "ok");
	lean_metric(o, cpu, "migr_per_s", (double)d[2] / ncpus / secs, "ok");
	lean_metric(o, cpu, "faults_per_s", (double)d[3] / ncpus / secs, "ok");
	if (nev > 4)
		lean_metric(o, cpu, "tsc_ghz", (double)d[4] / ncpus / secs / 1e9, "ok");
	else
		lean_record(o, cpu, "metric", "tsc_ghz", "", 0, "", "n/a");
}

/* /proc/stat's cpuN lines (pmutop's parser) into each CPU's busy and idle ticks */
static void lean_stat(const char *text, size_t len, int ncpu, struct lean_cpu *cpus, int ncpus)
{
	static uint64_t field[MAX_CPUS * PROCSTAT_FIELDS];
	static bool seen[MAX_CPUS];
	memset(seen, 0, sizeof(bool) * (size_t)ncpu);
	procirq_stat_parse(text, len, ncpu, NULL, field, seen);
	for (int i = 0; i < ncpus; i++) {
		const uint64_t *v = &field[(size_t)cpus[i].cpu * PROCSTAT_FIELDS];
		if (!seen[cpus[i].cpu])
			continue;
		cpus[i].busy = v[PROCSTAT_USER] + v[PROCSTAT_NICE] + v[PROCSTAT_SYSTEM] +
			       v[PROCSTAT_IRQ] + v[PROCSTAT_SOFTIRQ] + v[PROCSTAT_STEAL];
		cpus[i].idle = v[PROCSTAT_IDLE] + v[PROCSTAT_IOWAIT];
	}
}

int main(int argc, char **argv)
{
	long interval_ms = 1000, ticks = 10;
	long write_bytes = 0; /* per tick, to stdout */
	long touch_kib = 0;   /* per tick, one byte a line */
	long spread = 1;      /* lines apart */
	int use_msr = 1;
	int huge = 0, prefetch = 0, online = 0, csv = 0;
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
		else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc &&
			 strcmp(argv[i + 1], "csv") == 0)
			csv = 1, i++;
		else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc &&
			 strcmp(argv[i + 1], "sw") == 0)
			i++; /* the sw mode's events are the only ones the floor opens */
		else if (strcmp(argv[i], "-b") == 0 || strcmp(argv[i], "--no-rc") == 0)
			; /* batch, no configuration file: the floor has neither */
		else {
			fprintf(stderr, "usage: floor [-i INTERVAL_MS] [-n TICKS] [--no-msr] "
					"[--write BYTES] [--touch KIB] [--spread S] [--huge] "
					"[--prefetch] [--online] [-f csv]\n");
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
	static struct lean_cpu lean[MAX_CPUS];
	int nleaders = 0, nevents = 0;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int lead = -1, opened = 0;
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
			opened++;
		}
		if (lead >= 0 && csv && opened < 4) {
			fprintf(stderr, "floor: -f csv needs the four software events on CPU %d\n",
				cpu);
			return 1;
		}
		if (lead >= 0) {
			lean[nleaders] = (struct lean_cpu){.cpu = cpu, .nev = opened};
			leader[nleaders++] = lead;
		}
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
	static char csv_buf[1 << 16];
	struct lean_out out_csv = {.buf = csv_buf, .cap = sizeof(csv_buf)};
	char host[256] = "", prefix[2 * NUMFMT_MAX], suffix[sizeof(host) + NUMFMT_MAX + 2];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double start_ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec, last_ns = start_ns;
	const uint64_t ns_per_tick = 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
	if (csv) {
		gethostname(host, sizeof(host) - 1);
		ssize_t len = stat >= 0 ? pread(stat, statbuf, sizeof(statbuf) - 1, 0) : 0;
		lean_stat(statbuf, len > 0 ? (size_t)len : 0, (int)ncpu, lean, nleaders);
		for (int i = 0; i < nleaders; i++) /* the first tick's deltas start here */
			lean[i].prev_busy = lean[i].busy, lean[i].prev_idle = lean[i].idle;
		static const char head[] =
		    "time_s,interval_ms,cpu,kind,name,value,running,state,host,timestamp\n";
		if (write(STDOUT_FILENO, head, sizeof(head) - 1) < 0)
			return 1;
	}
	for (long t = 0; t < ticks; t++) {
		if (loop_wait(tfd, &expired) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; prefetch && i < nlines; i++)
			__builtin_prefetch(&touch[i * (size_t)spread], 1, 3);
		for (int i = 0; i < nleaders; i++) {
			if (read(leader[i], buf, sizeof(buf)) < 0)
				return 1;
			if (!csv)
				continue;
			/* nr, enabled, running, then {value, id} in the order the group opened */
			struct lean_cpu *c = &lean[i];
			for (int e = 0; e < c->nev; e++) {
				c->d[e] = buf[3 + 2 * e] - c->prev[e];
				c->prev[e] = buf[3 + 2 * e];
			}
			uint64_t de = buf[1] - c->prev_enabled, dr = buf[2] - c->prev_running;
			c->prev_enabled = buf[1], c->prev_running = buf[2];
			c->running = de ? (double)dr / (double)de : 0;
		}
		if (online_fd >= 0 && pread(online_fd, onlinebuf, sizeof(onlinebuf) - 1, 0) < 0)
			return 1;
		if (!csv && stat >= 0 && pread(stat, statbuf, sizeof(statbuf) - 1, 0) < 0)
			return 1;
		if (csv && stat >= 0) {
			ssize_t len = pread(stat, statbuf, sizeof(statbuf) - 1, 0);
			lean_stat(statbuf, len > 0 ? (size_t)len : 0, (int)ncpu, lean, nleaders);
		}
		if (csv) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			double now_ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
			double interval_ns = now_ns - last_ns;
			last_ns = now_ns;
			size_t n = numfmt_fixed(prefix, (now_ns - start_ns) / 1e9, 6);
			prefix[n++] = ',';
			n += numfmt_fixed(prefix + n, interval_ns / 1e6, 3);
			prefix[n++] = ',';
			out_csv.prefix = prefix, out_csv.prefix_len = n;
			clock_gettime(CLOCK_REALTIME, &ts);
			n = (size_t)snprintf(suffix, sizeof(suffix), ",%s,", host);
			n += numfmt_fixed(suffix + n, (double)ts.tv_sec + ts.tv_nsec / 1e9, 3);
			suffix[n++] = '\n';
			out_csv.suffix = suffix, out_csv.suffix_len = n;
			/* a tick shorter than 4 of /proc/stat's ticks gives a coarse utilisation */
			const char *util_state =
			    interval_ns < 4.0 * (double)ns_per_tick ? "coarse" : "ok";
			uint64_t all[GROUP_EVENTS] = {0}, all_busy = 0, all_idle = 0;
			double all_running = 0;
			int all_nev = GROUP_EVENTS;
			for (int i = 0; i < nleaders; i++) {
				struct lean_cpu *c = &lean[i];
				c->dbusy = (c->busy - c->prev_busy) * ns_per_tick;
				c->didle = (c->idle - c->prev_idle) * ns_per_tick;
				c->prev_busy = c->busy, c->prev_idle = c->idle;
				char cpu[24];
				numfmt_u64(cpu, (uint64_t)c->cpu);
				lean_row(&out_csv, cpu, c->d, c->nev, c->running, c->dbusy,
					 c->didle, 1, interval_ns, util_state);
				for (int e = 0; e < c->nev; e++)
					all[e] += c->d[e];
				all_nev = c->nev < all_nev ? c->nev : all_nev;
				all_busy += c->dbusy, all_idle += c->didle;
				all_running += c->running / nleaders;
			}
			lean_row(&out_csv, "all", all, all_nev, all_running, all_busy, all_idle,
				 nleaders, interval_ns, util_state);
			lean_flush(&out_csv);
		}
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

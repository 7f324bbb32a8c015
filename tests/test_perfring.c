/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perfring.c: the ring parser on synthetic rings laid out from linux/perf_event.h (a record
 * wrapping the end, a LOST record, foreign and malformed records), and a live cpu-clock ring. */
#include "harness.h"
#include "perfring.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* PERF_RECORD_SAMPLE with sample_type TIME | CPU | READ and read_format GROUP |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, as perf_event.h documents its layout: header,
 * u64 time, u32 cpu + u32 res, then the read_format group { nr, time_enabled, time_running,
 * { value, id }[nr] }. */
#define NR 3
struct sample_rec {
	struct perf_event_header header;
	__u64 time;
	__u32 cpu, res;
	__u64 nr, time_enabled, time_running;
	struct {
		__u64 value, id;
	} cnt[NR];
};
/* PERF_RECORD_LOST: header, u64 id, u64 lost (no sample_id_all) */
struct lost_rec {
	struct perf_event_header header;
	__u64 id, lost;
};

#define RING 1024 /* bytes of the synthetic data area */
static unsigned char ring[RING];
static unsigned char scratch[PERFRING_SCRATCH];

/* Writes @len bytes at the free-running offset @pos, wrapping as the kernel does. */
static uint64_t put(uint64_t pos, const void *rec, size_t len)
{
	const unsigned char *p = rec;
	for (size_t i = 0; i < len; i++)
		ring[(pos + i) % RING] = p[i];
	return pos + len;
}

static struct sample_rec sample(__u64 time, __u32 cpu, __u64 base)
{
	struct sample_rec s = {
	    .header = {.type = PERF_RECORD_SAMPLE,
		       .misc = PERF_RECORD_MISC_KERNEL,
		       .size = sizeof(struct sample_rec)},
	    .time = time,
	    .cpu = cpu,
	    .nr = NR,
	    .time_enabled = time - 100,
	    .time_running = time - 200,
	};
	for (int i = 0; i < NR; i++) {
		s.cnt[i].value = base + (__u64)i * 1000;
		s.cnt[i].id = 40 + (__u64)i;
	}
	return s;
}

struct seen {
	int n;
	struct {
		uint64_t time, enabled, running;
		uint32_t cpu, nr;
		uint64_t vals[2 * NR];
	} s[16];
	uint64_t lost;
	int nlost;
	int order[32]; /* 'S' sample, 'L' lost, 'T' throttle, 'U' unthrottle, as delivered */
	int norder;
	uint64_t thr_time[8]; /* the throttling records' times */
	int nthr;
};

static void on_sample(void *ctx, const struct perfring_sample *s)
{
	struct seen *v = ctx;
	if (v->n < 16) {
		v->s[v->n].time = s->time_ns;
		v->s[v->n].cpu = s->cpu;
		v->s[v->n].enabled = s->enabled;
		v->s[v->n].running = s->running;
		v->s[v->n].nr = s->nr;
		memcpy(v->s[v->n].vals, s->vals, 2 * (s->nr < NR ? s->nr : NR) * sizeof(uint64_t));
	}
	v->n++;
	if (v->norder < 32)
		v->order[v->norder++] = 'S';
}

static void on_lost(void *ctx, uint64_t lost)
{
	struct seen *v = ctx;
	v->lost += lost;
	v->nlost++;
	if (v->norder < 32)
		v->order[v->norder++] = 'L';
}

static void on_throttle(void *ctx, uint64_t time_ns, bool on)
{
	struct seen *v = ctx;
	if (v->nthr < 8)
		v->thr_time[v->nthr] = time_ns;
	v->nthr++;
	if (v->norder < 32)
		v->order[v->norder++] = on ? 'T' : 'U';
}

static const struct perfring_cb cb = {on_sample, on_lost, on_throttle};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE: header, u64 time, u64 id, u64 stream_id
 * (no sample_id_all: no trailer) */
struct throttle_rec {
	struct perf_event_header header;
	__u64 time, id, stream_id;
};

static void check_layout(void)
{
	/* the parser's record size is the documented layout's */
	CHECK_INT((long long)perfring_record_bytes(NR), (long long)sizeof(struct sample_rec));
	CHECK_INT((long long)sizeof(struct sample_rec), 8 + 8 + 8 + 24 + 16 * NR);
}

/* Three samples and a LOST record; the third sample wraps the end of the data area, with free
 * running offsets past 2^32 (a 32-bit build must not truncate them). */
static void check_wrap(void)
{
	memset(ring, 0xee, sizeof(ring));
	uint64_t start = (5ull << 32) + RING * 7 + RING - 3 * sizeof(struct sample_rec) + 24;
	uint64_t pos = start;
	struct sample_rec a = sample(1000000, 1, 10), b = sample(2000000, 1, 20),
			  c = sample(4000000, 1, 40);
	struct lost_rec l = {{PERF_RECORD_LOST, 0, sizeof(struct lost_rec)}, 77, 5};
	pos = put(pos, &a, sizeof(a));
	pos = put(pos, &l, sizeof(l));
	pos = put(pos, &b, sizeof(b));
	uint64_t c_at = pos;
	pos = put(pos, &c, sizeof(c));
	CHECK(c_at % RING + sizeof(c) > RING, "the third sample wraps (at %llu of %d)",
	      (unsigned long long)(c_at % RING), RING);
	CHECK(c_at % RING != 0, "and does not start at 0");
	struct seen v = {0};
	struct perfring_counts counts = {0};
	uint64_t tail = perfring_parse(ring, RING, start, pos, scratch, &cb, &v, &counts);
	CHECK(tail == pos, "tail %llu, head %llu", (unsigned long long)tail,
	      (unsigned long long)pos);
	CHECK_INT(v.n, 3);
	CHECK_INT((long long)counts.samples, 3);
	CHECK_INT((long long)counts.lost, 5);
	CHECK_INT((long long)counts.lost_records, 1);
	CHECK_INT((long long)counts.bad, 0);
	CHECK_INT(v.nlost, 1);
	CHECK_INT((long long)v.lost, 5);
	CHECK(v.norder == 4 && v.order[0] == 'S' && v.order[1] == 'L' && v.order[2] == 'S' &&
		  v.order[3] == 'S',
	      "records in ring order");
	const struct sample_rec *want[3] = {&a, &b, &c};
	for (int i = 0; i < 3 && i < v.n; i++) {
		CHECK(v.s[i].time == want[i]->time, "sample %d time", i);
		CHECK_INT(v.s[i].cpu, 1);
		CHECK(v.s[i].enabled == want[i]->time_enabled, "sample %d enabled", i);
		CHECK(v.s[i].running == want[i]->time_running, "sample %d running", i);
		CHECK_INT(v.s[i].nr, NR);
		for (int k = 0; k < NR; k++) {
			CHECK(v.s[i].vals[2 * k] == want[i]->cnt[k].value, "sample %d value %d", i,
			      k);
			CHECK(v.s[i].vals[2 * k + 1] == want[i]->cnt[k].id, "sample %d id %d", i,
			      k);
		}
	}
}

/* A record of another type is stepped over; a record cut by head waits (tail stops at it); a
 * size-0 header is malformed and never loops. */
static void check_foreign_and_bad(void)
{
	memset(ring, 0, sizeof(ring));
	/* PERF_RECORD_COMM: pid, tid, a name (not asked for, but a ring may hold any type) */
	struct {
		struct perf_event_header header;
		__u32 pid, tid;
		char comm[8];
	} thr = {{PERF_RECORD_COMM, 0, 24}, 5, 6, "x"};
	struct sample_rec a = sample(1000, 0, 1);
	uint64_t pos = RING - 16;
	uint64_t start = pos;
	pos = put(pos, &thr, sizeof(thr));
	pos = put(pos, &a, sizeof(a));
	struct seen v = {0};
	struct perfring_counts counts = {0};
	uint64_t tail = perfring_parse(ring, RING, start, pos, scratch, &cb, &v, &counts);
	CHECK(tail == pos && v.n == 1 && counts.other == 1,
	      "a foreign record skipped, sample read");

	memset(&v, 0, sizeof(v));
	memset(&counts, 0, sizeof(counts));
	tail = perfring_parse(ring, RING, start, pos - 8, scratch, &cb, &v, &counts);
	CHECK(tail == start + sizeof(thr), "a record cut by head is left for later");
	CHECK_INT(v.n, 0);

	memset(ring, 0, sizeof(ring));
	memset(&counts, 0, sizeof(counts));
	tail = perfring_parse(ring, RING, 0, 64, scratch, &cb, &v, &counts);
	CHECK(tail == 0 && counts.bad == 1, "a size-0 header stops the parse");

	/* a sample claiming more members than its size holds */
	struct sample_rec s = sample(1, 0, 1);
	s.nr = 1000;
	memset(&counts, 0, sizeof(counts));
	memset(&v, 0, sizeof(v));
	pos = put(0, &s, sizeof(s));
	tail = perfring_parse(ring, RING, 0, pos, scratch, &cb, &v, &counts);
	CHECK(tail == pos && v.n == 0 && counts.bad == 1, "an nr beyond the record is refused");
}

/* A sample, the kernel throttling the group (THROTTLE at 2 ms), a truncated THROTTLE (16 bytes:
 * malformed, counted bad, stepped over by its size), the UNTHROTTLE at 4.5 ms wrapping the end
 * of the data area, then the next sample: the callbacks get each record's own time and kind in
 * ring order, and the counts say how many of each. */
static void check_throttle(void)
{
	memset(ring, 0xee, sizeof(ring));
	struct sample_rec a = sample(1000000, 1, 10), b = sample(5000000, 1, 30);
	struct throttle_rec th = {{PERF_RECORD_THROTTLE, 0, sizeof(th)}, 2000000, 41, 41},
			    un = {{PERF_RECORD_UNTHROTTLE, 0, sizeof(un)}, 4500000, 41, 41};
	struct perf_event_header cut = {PERF_RECORD_THROTTLE, 0, 16};
	uint64_t start = (3ull << 32) + RING - sizeof(a) - sizeof(th) - 16 - 8, pos = start;
	pos = put(pos, &a, sizeof(a));
	pos = put(pos, &th, sizeof(th));
	pos = put(pos, &cut, sizeof(cut));
	pos = put(pos, &(__u64){123}, 8);
	uint64_t un_at = pos;
	pos = put(pos, &un, sizeof(un));
	pos = put(pos, &b, sizeof(b));
	CHECK(un_at % RING + sizeof(un) > RING && un_at % RING != 0, "the UNTHROTTLE wraps");
	struct seen v = {0};
	struct perfring_counts counts = {0};
	uint64_t tail = perfring_parse(ring, RING, start, pos, scratch, &cb, &v, &counts);
	CHECK(tail == pos, "all parsed");
	CHECK_INT((long long)counts.samples, 2);
	CHECK_INT((long long)counts.throttles, 1);
	CHECK_INT((long long)counts.unthrottles, 1);
	CHECK_INT((long long)counts.bad, 1);
	CHECK_INT((long long)counts.other, 0);
	CHECK_INT(v.nthr, 2);
	CHECK(v.thr_time[0] == 2000000 && v.thr_time[1] == 4500000, "times %llu %llu",
	      (unsigned long long)v.thr_time[0], (unsigned long long)v.thr_time[1]);
	CHECK(v.norder == 4 && v.order[0] == 'S' && v.order[1] == 'T' && v.order[2] == 'U' &&
		  v.order[3] == 'S',
	      "records in ring order");
}

/* A live ring: a cpu-clock leader on CPU 0 every 1 ms for ~30 ms. The sleep may last much longer
 * on a loaded machine, so the expected count comes from the run itself: the kernel's own time
 * enabled (read from the leader after disabling it) in 1 ms periods, and the test's clock around
 * the enable/disable pair (CLOCK_MONOTONIC, the ring's sample clock). Each sample is on CPU 0,
 * read through the kernel's control page, stamped inside that window, a period after the one
 * before. */
static void check_live(void)
{
	struct perfring r;
	const uint64_t period = 1000000; /* ns */
	if (perfring_open(&r, 0, period, 8) < 0) {
		SKIP("no perf_event_open/mmap of a cpu-clock ring here: %s", strerror(errno));
		return;
	}
	struct timespec ts = {0, 30000000}, a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
	nanosleep(&ts, NULL);
	ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t t0 = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
	uint64_t t1 = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
	/* read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID, the leader alone */
	__u64 rd[5] = {0};
	CHECK(read(r.fd, rd, sizeof(rd)) == (ssize_t)sizeof(rd), "read of the leader");
	uint64_t enabled = rd[1]; /* ns */
	CHECK(enabled > 0 && enabled <= t1 - t0, "enabled %llu ns within the %llu ns around it",
	      (unsigned long long)enabled, (unsigned long long)(t1 - t0));
	CHECK(perfring_pending(&r) > 0, "bytes pending");
	struct seen v = {0};
	perfring_drain(&r, &cb, &v);
	/* the hrtimer fires once per period it is enabled for (at most), and skips periods only
	 * when the (virtual) CPU did not run: at least half of them even then */
	uint64_t periods = enabled / period;
	CHECK(v.n >= 1 && (uint64_t)v.n <= periods + 1 && (uint64_t)v.n * 2 >= periods,
	      "%d samples over %llu ns enabled at 1 ms", v.n, (unsigned long long)enabled);
	CHECK_INT((long long)r.counts.lost, 0);
	for (int i = 0; i < v.n && i < 16; i++) {
		CHECK_INT(v.s[i].cpu, 0);
		CHECK_INT(v.s[i].nr, 1); /* the leader alone */
		CHECK(v.s[i].time >= t0 && v.s[i].time <= t1, "sample %d stamped inside the window",
		      i);
		/* a period apart, less the timer's slack */
		if (i)
			CHECK(v.s[i].time >= v.s[i - 1].time + period / 2,
			      "sample %d a period after the one before (%llu ns)", i,
			      (unsigned long long)(v.s[i].time - v.s[i - 1].time));
	}
	CHECK(perfring_pending(&r) == 0, "drained: tail caught up with head");
	perfring_close(&r);
}

static void check_paths(void)
{
	CHECK_INT(perfring_path_parse("ring"), PERFRING_RING);
	CHECK_INT(perfring_path_parse("read"), PERFRING_READ);
	CHECK_INT(perfring_path_parse("auto"), PERFRING_AUTO);
	CHECK_INT(perfring_path_parse("rings"), -1);
	/* 1 kHz of 128-byte records drained every second: twice that in 4 KiB pages */
	CHECK_INT(perfring_pages(128000, 1000000000ULL) * sysconf(_SC_PAGESIZE) >= 256000, 1);
	CHECK_INT(perfring_pages(1, 1000000), 8);
	CHECK_INT(perfring_pages(1e12, 1000000000ULL), 1024);
}

int main(void)
{
	check_layout();
	check_wrap();
	check_foreign_and_bad();
	check_throttle();
	check_paths();
	check_live();
	return harness_done();
}

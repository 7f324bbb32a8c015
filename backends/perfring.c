/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfring.c: per-CPU perf mmap rings of group samples: open, map, drain, parse. */
#include "perfring.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *const path_names[PERFRING_NPATHS] = {"auto", "read", "ring"};

const char *perfring_path_name(enum perfring_path p)
{
	return (unsigned)p < PERFRING_NPATHS ? path_names[p] : "?";
}

int perfring_path_parse(const char *name)
{
	for (int i = 0; i < PERFRING_NPATHS; i++)
		if (!strcmp(name, path_names[i]))
			return i;
	return -1;
}

size_t perfring_record_bytes(unsigned nr)
{
	/* header, time, cpu + res, nr, enabled, running, {value, id} per member */
	return sizeof(struct perf_event_header) + 8 + 8 + 3 * 8 + 16 * (size_t)nr;
}

unsigned perfring_pages(double bytes_per_s, uint64_t drain_ns)
{
	long page = sysconf(_SC_PAGESIZE);
	double want = 2.0 * bytes_per_s * (double)drain_ns / 1e9 / (double)(page > 0 ? page : 4096);
	unsigned pages = 8;
	while (pages < 1024 && (double)pages < want)
		pages *= 2;
	return pages;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* One record at @rec of @len bytes (the header included). */
static void parse_record(const unsigned char *rec, size_t len, const struct perfring_cb *cb,
			 void *ctx, struct perfring_counts *counts)
{
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	const unsigned char *p = rec + sizeof(h), *end = rec + len;
	if (h.type == PERF_RECORD_SAMPLE) {
		if (end - p < 8 + 8 + 3 * 8) {
			counts->bad++;
			return;
		}
		struct perfring_sample s;
		s.time_ns = get64(p);
		uint32_t cpu;
		memcpy(&cpu, p + 8, sizeof(cpu));
		s.cpu = cpu;
		uint64_t nr = get64(p + 16);
		s.enabled = get64(p + 24);
		s.running = get64(p + 32);
		p += 40;
		if (nr > (uint64_t)(end - p) / 16) {
			counts->bad++;
			return;
		}
		s.nr = (uint32_t)nr;
		uint64_t vals[2 * 4096 / 16];
		size_t nv = 2 * (size_t)nr;
		if (nv > sizeof(vals) / sizeof(vals[0])) {
			counts->bad++;
			return;
		}
		memcpy(vals, p, nv * sizeof(uint64_t)); /* aligned for the reader */
		s.vals = vals;
		counts->samples++;
		if (cb->sample)
			cb->sample(ctx, &s);
	} else if (h.type == PERF_RECORD_LOST) {
		if (end - p < 16) {
			counts->bad++;
			return;
		}
		uint64_t lost = get64(p + 8); /* after the id */
		counts->lost_records++;
		counts->lost += lost;
		if (cb->lost)
			cb->lost(ctx, lost);
	} else if (h.type == PERF_RECORD_THROTTLE || h.type == PERF_RECORD_UNTHROTTLE) {
		/* u64 time, id, stream_id; no sample_id trailer (the leader has no sample_id_all)
		 */
		if (end - p < 24) {
			counts->bad++;
			return;
		}
		bool on = h.type == PERF_RECORD_THROTTLE;
		if (on)
			counts->throttles++;
		else
			counts->unthrottles++;
		if (cb->throttle)
			cb->throttle(ctx, get64(p), on);
	} else {
		counts->other++; /* records the sampling path has no use for */
	}
}

uint64_t perfring_parse(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
			unsigned char *scratch, const struct perfring_cb *cb, void *ctx,
			struct perfring_counts *counts)
{
	uint64_t mask = size - 1;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		/* the header itself may wrap (8-byte records keep it whole, but be safe) */
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(off + i) & mask];
		if (h.size < sizeof(h) || h.size > head - tail) {
			counts->bad++;
			break;
		}
		const unsigned char *rec = data + off;
		if (off + h.size > size) { /* wraps the end of the data area */
			size_t first = (size_t)(size - off);
			memcpy(scratch, data + off, first);
			memcpy(scratch + first, data, h.size - first);
			rec = scratch;
		}
		parse_record(rec, h.size, cb, ctx, counts);
		tail += h.size;
	}
	return tail;
}

/*
 * data_head and data_tail are 64-bit: the kernel's perf_event_mmap_page asks for data_head to
 * be read before the data (an acquire: smp_rmb after the load) and data_tail to be written
 * after the data is consumed (a release: smp_mb before the store). An 8-byte __atomic load or
 * store is single-copy atomic on x86-64, i386 (cmpxchg8b/SSE) and ARMv7 (ldrexd/strexd), so a
 * 32-bit build reads and writes them whole, never as two torn halves.
 */
static uint64_t load_head(const struct perf_event_mmap_page *pg)
{
	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

static void store_tail(struct perf_event_mmap_page *pg, uint64_t tail)
{
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

int perfring_open(struct perfring *ring, int cpu, uint64_t period_ns, unsigned pages)
{
	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_period = period_ns,
	    .sample_type = PERFRING_SAMPLE_TYPE,
	    .read_format = PERFRING_READ_FORMAT,
	    .disabled = 1,
	    .use_clockid = 1,
	    .clockid = CLOCK_MONOTONIC,
	    .wakeup_events = 0,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(page > 0 ? page : 4096) * (1 + (size_t)pages);
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	ring->scratch = malloc(PERFRING_SCRATCH);
	if (!ring->scratch) {
		munmap(base, len);
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	ring->fd = fd;
	ring->base = base;
	ring->map_len = len;
	ring->data_size = (uint64_t)(page > 0 ? page : 4096) * pages;
	return 0;
}

uint64_t perfring_pending(const struct perfring *ring)
{
	if (!ring->base)
		return 0;
	const struct perf_event_mmap_page *pg = ring->base;
	return load_head(pg) - __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
}

uint64_t perfring_drain(struct perfring *ring, const struct perfring_cb *cb, void *ctx)
{
	if (!ring->base)
		return 0;
	struct perf_event_mmap_page *pg = ring->base;
	uint64_t head = load_head(pg);
	uint64_t tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED); /* only we write it */
	/* data_offset is 0 before Linux 4.1: the data area follows the control page */
	uint64_t doff = pg->data_offset ? pg->data_offset : ring->map_len - ring->data_size;
	const unsigned char *data = (const unsigned char *)ring->base + doff;
	uint64_t size = pg->data_size ? pg->data_size : ring->data_size;
	uint64_t to = perfring_parse(data, size, tail, head, ring->scratch, cb, ctx, &ring->counts);
	/* a malformed record cannot be stepped over: drop what is left */
	store_tail(pg, to == head ? to : head);
	return head - tail;
}

void perfring_close(struct perfring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->map_len);
	if (ring->fd >= 0)
		close(ring->fd);
	free(ring->scratch);
	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
}

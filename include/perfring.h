/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfring.h: per-CPU perf mmap ring buffers of group samples (a cpu-clock sampling leader). */
#ifndef PMUTOP_PERFRING_H
#define PMUTOP_PERFRING_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The sampling path of the perf source: on each CPU a cpu-clock leader (a software timer that
 * fires in idle too) samples its group every period with PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
 * PERF_SAMPLE_READ and read_format GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID. The
 * kernel writes the counts into that CPU's ring, on that CPU, without an IPI; the main loop
 * drains the rings without blocking.
 */

/* Which way --sample takes its sub-interval counts. */
enum perfring_path {
	PERFRING_AUTO, /* the ring below PERFRING_AUTO_NS, read() above */
	PERFRING_READ, /* a read() of every CPU's group per sample */
	PERFRING_RING, /* the sampling ring, where the mode allows it */
	PERFRING_NPATHS
};
#define PERFRING_AUTO_NS 5000000ULL /* ns: shorter sample periods take the ring (auto) */
const char *perfring_path_name(enum perfring_path p);
/* "auto", "read", "ring" -> path; -1 when unknown. */
int perfring_path_parse(const char *name);

/* The sample_type and read_format the ring's records are parsed with. */
#define PERFRING_SAMPLE_TYPE (PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_READ)
#define PERFRING_READ_FORMAT                                                                       \
	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |     \
	 PERF_FORMAT_ID)

/* One PERF_RECORD_SAMPLE: the group's cumulative counts at @time_ns (the sampling clock,
 * CLOCK_MONOTONIC ns). @vals holds @nr pairs {value, id}, leader first; valid only during the
 * callback. */
struct perfring_sample {
	uint64_t time_ns;
	uint32_t cpu;
	uint64_t enabled, running; /* ns */
	uint32_t nr;
	const uint64_t *vals;
};

struct perfring_cb {
	void (*sample)(void *ctx, const struct perfring_sample *s);
	/* a PERF_RECORD_LOST: @lost samples the kernel could not write (the ring was full) */
	void (*lost)(void *ctx, uint64_t lost);
	/* a PERF_RECORD_THROTTLE (@on) or PERF_RECORD_UNTHROTTLE (!@on) at @time_ns (the sampling
	 * clock): the kernel stopped the group (too many sampling interrupts in one scheduler
	 * tick) or started it again; in between the group counts nothing and writes no sample */
	void (*throttle)(void *ctx, uint64_t time_ns, bool on);
};

/* What a parse saw. */
struct perfring_counts {
	uint64_t samples, lost_records, lost, throttles, unthrottles, other, bad;
};

/*
 * Parses the records of a data area of @size bytes (a power of two) from @tail to @head (free
 * running byte offsets, as data_tail and data_head) into @cb; a record that wraps the end is
 * copied into @scratch (64 KiB: a record's size is 16 bits). Stops at a malformed record (its
 * size 0 or beyond head: counted in bad). Returns the new tail (head, or where it stopped).
 */
uint64_t perfring_parse(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
			unsigned char *scratch, const struct perfring_cb *cb, void *ctx,
			struct perfring_counts *counts);
#define PERFRING_SCRATCH 65536

/* One CPU's ring. */
struct perfring {
	int fd;		    /* the sampling leader, -1 when closed */
	void *base;	    /* the mmap: the control page, then the data area */
	size_t map_len;	    /* bytes mapped (1 + 2^n pages) */
	uint64_t data_size; /* bytes of the data area */
	unsigned char *scratch;
	struct perfring_counts counts;
};

/* Pages of the data area (a power of two) for @bytes_per_s of samples drained every @drain_ns:
 * twice what one drain takes, 8 to 1024 pages. */
unsigned perfring_pages(double bytes_per_s, uint64_t drain_ns);
/* Bytes of one sample record with @nr group members (leader included). */
size_t perfring_record_bytes(unsigned nr);
/* Opens the disabled cpu-clock leader on @cpu sampling every @period_ns and maps its ring of
 * @pages data pages. Returns 0, or -1 with errno and @ring->fd -1. */
int perfring_open(struct perfring *ring, int cpu, uint64_t period_ns, unsigned pages);
/* Bytes waiting in the ring (without consuming them). */
uint64_t perfring_pending(const struct perfring *ring);
/* Drains every record written so far into @cb: data_head read with acquire, data_tail written
 * with release. Never blocks. Returns the bytes that were waiting (a ring found within a record
 * of full may have lost samples whose PERF_RECORD_LOST the kernel writes only later). */
uint64_t perfring_drain(struct perfring *ring, const struct perfring_cb *cb, void *ctx);
void perfring_close(struct perfring *ring);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counts.h: raw cumulative counter triples, per-tick deltas, multiplex scaling and explicit states.
 */
#ifndef PMUTOP_COUNTS_H
#define PMUTOP_COUNTS_H
#include <stdbool.h>
#include <stdint.h>

/* What a value is worth. Never encoded as a sentinel number. */
enum count_state {
	COUNT_OK,	     /* counted for the whole interval */
	COUNT_SCALED,	     /* counted part of the interval; value = delta * enabled / running */
	COUNT_NOT_COUNTED,   /* opened, but never scheduled in this interval (running delta 0) */
	COUNT_NOT_SUPPORTED, /* could not be opened on this CPU */
	COUNT_OFFLINE,	     /* the CPU is offline */
	COUNT_INVALID,	     /* the counter went backwards or jumped impossibly */
};

/* One counter as read: cumulative value and times (enabled and running in ns). */
struct raw_count {
	uint64_t value;
	uint64_t enabled; /* ns */
	uint64_t running; /* ns */
};

/* The kernel's per-CPU counts of a sampling ring (perfring.h), cumulative since the ring opened:
 * samples lost (PERF_RECORD_LOST), ns the group was throttled and throttling episodes begun
 * (PERF_RECORD_THROTTLE). One table for the backend, recordings and the jitter windows. */
enum ring_count { RING_LOST, RING_THROTTLED_NS, RING_THROTTLES, RING_NCOUNTS };

/* One counter over one tick. */
struct count {
	double value;	/* events in the interval, scaled when state == COUNT_SCALED */
	double running; /* fraction 0..1 of the interval the counter really counted */
	enum count_state state;
};

/* Difference between two reads of the same counter. @width_bits is the hardware counter
 * width for values that wrap (32 on ARMv7/XScale raw reads, 48 on x86 rdpmc), or 64 for
 * kernel-accumulated values. A delta above half the counter range is COUNT_INVALID. */
void count_delta(const struct raw_count *prev, const struct raw_count *cur, unsigned width_bits,
		 struct count *out);

/* The all-CPU value of event @e from a [row * nevents + e] table: values add up, running is the
 * mean over the rows that exist; offline and unsupported rows, and rows with @skip[row] set
 * (@skip may be NULL), do not count. */
void count_total(const struct count *counts, int nrows, int nevents, int e, const bool *skip,
		 struct count *out);

/* "ok", "scaled", "not_counted", "not_supported", "offline", "invalid": stable JSON names. */
const char *count_state_name(enum count_state state);
/* Short cell text for tables: "", "~", "n/c", "n/s", "off", "?". */
const char *count_state_mark(enum count_state state);
/* Parses a JSON state name; returns -1 when unknown. */
int count_state_parse(const char *name);

#endif

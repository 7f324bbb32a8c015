/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flight.h: the flight recorder: a bounded RAM ring of recent samples, written out as a recording.
 */
#ifndef PMUTOP_FLIGHT_H
#define PMUTOP_FLIGHT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counts.h"
#include "recfile.h"
#include "session.h"

#define FLIGHT_MAX_BYTES (256u << 20) /* default cap on the ring: 256 MiB */

/*
 * One slot per sample: its time, its length and, per CPU and event, a cumulative
 * {value, enabled ns, running ns} triple with a present flag. The session hands out deltas, so
 * the triples are rebuilt by summing them from the ring's start: a delta of state ok or scaled
 * adds round(value * running) events, the interval's ns to enabled and running * interval to
 * running; a not-counted delta adds only to enabled; unsupported, invalid and offline cells are
 * absent. Replaying the written triples with count_delta() gives back every ok delta exactly and
 * scaled ones to the rounding of their raw count.
 *
 * The slots are one allocation of fixed-stride slots (a multiple of 64 bytes, cache-line
 * aligned), so a push writes one contiguous region: the time and length (2 doubles), the raw
 * triples [nrows * nevents], a sampling ring run's counts [nrows * RING_NCOUNTS], the present
 * flags [nrows * nevents], the offline flags [nrows] and the ring-counts flag. Where each part
 * lies follows from the shape (nrows, nevents, ring), so the ring keeps only the stride
 * (flight.c: slot_layout).
 */
#define FLIGHT_NOTES 16 /* notes kept (flight_note) */
struct flight {
	/* what a push reads, in one cache line */
	int nrows, nevents;
	bool ring;   /* the slots hold a sampling ring run's counts per row */
	size_t cap;  /* slots */
	size_t head; /* next write */
	size_t len;  /* slots held */
	unsigned long long pushed;
	unsigned char *slots;  /* [cap * stride] */
	size_t stride;	       /* bytes a slot, a multiple of 64 */
	struct raw_count *cum; /* [nrows * nevents] running sums */
	int *cpus;	       /* [nrows] */
	size_t bytes;	       /* heap held */
	/* notes on the samples (samples a sampling ring lost), the newest FLIGHT_NOTES, in time
	 * order: written as marks where they fall in a recording */
	struct rec_mark notes[FLIGHT_NOTES];
	size_t nnotes;
};

/* Slots needed for @seconds at @sample_ms (at least 2). */
size_t flight_slots(double seconds, long sample_ms);
/* Bytes a ring of @slots slots takes for @nrows x @nevents (the slots' padding included). */
size_t flight_bytes_for(size_t slots, int nrows, int nevents, bool ring);
/* Bytes a slot takes (a multiple of 64). */
size_t flight_stride(int nrows, int nevents, bool ring);
/* Allocates a ring for @seconds of @sample_ms samples (@ring: with the sampling ring's counts per
 * row); when that exceeds @max_bytes (0: the default cap), the ring is shortened to fit and
 * @clipped is set. NULL with a cause on error. */
struct flight *flight_new(int nrows, const int *cpus, int nevents, bool ring, double seconds,
			  long sample_ms, size_t max_bytes, bool *clipped, char *err,
			  size_t errlen);
void flight_free(struct flight *f);
/* Appends one sample (the snapshot's rows and events must match the ring's). */
struct session_raw;
/* Adds one sample. With @raw (the reads behind @snap) the ring keeps the kernel's own cumulative
 * triples, so a flight recording replays exactly; without it, triples rebuilt from the deltas. */
/* @ring (may be NULL): the sampling ring's counts per row after it (enum ring_count), kept when
 * the flight was made with @ring. */
void flight_push(struct flight *f, const struct snapshot *snap, const struct session_raw *raw,
		 const uint64_t *const *ring);
size_t flight_bytes(const struct flight *f);
/* The sampling ring's counts [row * RING_NCOUNTS + k] kept with the sample in @slot, or NULL
 * when it brought none. */
const uint64_t *flight_slot_ring(const struct flight *f, size_t slot);
/* Notes @text at @t (s since start, not before the last note): a mark in the recordings whose
 * window holds it; the oldest note goes beyond FLIGHT_NOTES. */
void flight_note(struct flight *f, double t, const char *text);

/*
 * Writes the samples with t in [@t_from, @t_to] to a new recording at @path: @hdr, @mode, one
 * base tick (the sample before the window, so a replay's first delta is the window's first
 * sample), the window's ticks and @mark (may be NULL). @mode->nevents must equal the ring's.
 * @path is created new (O_EXCL|O_NOFOLLOW): when it exists, even as a symbolic link, -1 with
 * errno EEXIST (the caller picks another name). Returns the number of window ticks written
 * (the base not counted), or -1 with a cause.
 */
int flight_write(const struct flight *f, const char *path, const struct rec_header *hdr,
		 const struct rec_mode *mode, double t_from, double t_to,
		 const struct rec_mark *mark, char *err, size_t errlen);

#endif

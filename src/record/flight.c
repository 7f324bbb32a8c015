/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flight.c: a bounded ring of rebuilt cumulative counter triples, dumped as a pmutop recording. */
#include "flight.h"
#include "prefault.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t flight_slots(double seconds, long sample_ms)
{
	if (sample_ms < 1)
		sample_ms = 1;
	double n = ceil(seconds * 1000.0 / (double)sample_ms) + 1; /* +1: the base of the window */
	if (!(n >= 2))
		n = 2;
	if (n > 1e9)
		n = 1e9;
	return (size_t)n;
}

/* Where a slot's parts lie (bytes from its start) and its stride: the time (s) and the length
 * (ms) first, then the raw triples, a ring run's counts, the present flags, the offline flags
 * and the ring-counts flag. Derived from the shape where used (a few multiplications), not
 * kept in struct flight. */
struct slot_layout {
	size_t raw, ring, present, offline, has_ring, stride;
};

static inline struct slot_layout slot_layout(int nrows, int nevents, bool ring)
{
	struct slot_layout l;
	size_t cells = (size_t)nrows * (size_t)nevents;
	l.raw = 2 * sizeof(double);
	l.ring = l.raw + cells * sizeof(struct raw_count);
	l.present = l.ring + (ring ? (size_t)nrows * RING_NCOUNTS * sizeof(uint64_t) : 0);
	l.offline = l.present + cells;
	l.has_ring = l.offline + (size_t)nrows;
	size_t end = l.has_ring + (ring ? 1 : 0);
	l.stride = (end + 63) / 64 * 64; /* whole cache lines: a push touches its slot alone */
	return l;
}

/* The layout of @f's slots. */
static inline struct slot_layout layout_of(const struct flight *f)
{
	return slot_layout(f->nrows, f->nevents, f->ring);
}

size_t flight_stride(int nrows, int nevents, bool ring)
{
	return slot_layout(nrows, nevents, ring).stride;
}

size_t flight_bytes_for(size_t slots, int nrows, int nevents, bool ring)
{
	size_t cells = (size_t)nrows * (size_t)nevents;
	size_t fixed =
	    sizeof(struct flight) + cells * sizeof(struct raw_count) + (size_t)nrows * sizeof(int);
	size_t stride = flight_stride(nrows, nevents, ring);
	/* SIZE_MAX when it does not fit in a size_t (a 32-bit board asked for hours at 1 ms):
	 * more than any cap, so the ring is clipped, never allocated short */
	if (slots > (SIZE_MAX - fixed) / stride)
		return SIZE_MAX;
	return fixed + slots * stride;
}

struct flight *flight_new(int nrows, const int *cpus, int nevents, bool ring, double seconds,
			  long sample_ms, size_t max_bytes, bool *clipped, char *err, size_t errlen)
{
	if (nrows < 1 || nevents < 1) {
		snprintf(err, errlen, "flight recorder: nothing to record");
		return NULL;
	}
	if (!max_bytes)
		max_bytes = FLIGHT_MAX_BYTES;
	size_t slots = flight_slots(seconds, sample_ms);
	*clipped = false;
	if (flight_bytes_for(slots, nrows, nevents, ring) > max_bytes) {
		size_t base = flight_bytes_for(0, nrows, nevents, ring);
		size_t per = flight_bytes_for(1, nrows, nevents, ring) - base;
		slots = max_bytes > base ? (max_bytes - base) / per : 0;
		*clipped = true;
		if (slots < 2) {
			snprintf(err, errlen,
				 "flight recorder: %d CPUs x %d events do not fit in %zu bytes",
				 nrows, nevents, max_bytes);
			return NULL;
		}
	}
	struct flight *f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct slot_layout l = slot_layout(nrows, nevents, ring);
	size_t cells = (size_t)nrows * (size_t)nevents;
	f->nrows = nrows;
	f->nevents = nevents;
	f->cap = slots;
	f->stride = l.stride;
	f->ring = ring;
	f->cpus = malloc((size_t)nrows * sizeof(int));
	/* not zeroed: a slot is written whole (its padding aside) before anything reads it */
	f->slots = aligned_alloc(64, slots * l.stride);
	f->cum = calloc(cells, sizeof(struct raw_count));
	if (!f->cpus || !f->slots || !f->cum) {
		flight_free(f);
		snprintf(err, errlen, "flight recorder: out of memory for %zu samples", slots);
		return NULL;
	}
	/* every slot is written within the ring's first window (30 s by default), and each page
	 * first written then costs a tick a fault: mapped in now by the rings' rule (prefault.h),
	 * memory the ring holds after that window anyway; a big one stays lazy */
	mem_prefault_ring(f->slots, slots * l.stride, (double)slots * (double)sample_ms / 1000.0);
	memcpy(f->cpus, cpus, (size_t)nrows * sizeof(int));
	f->bytes = flight_bytes_for(slots, nrows, nevents, ring);
	return f;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	free(f->cpus);
	free(f->slots);
	free(f->cum);
	free(f);
}

static inline unsigned char *slot_ptr(const struct flight *f, size_t slot)
{
	return f->slots + slot * f->stride;
}

static inline double slot_t(const struct flight *f, size_t slot)
{
	return ((const double *)(const void *)slot_ptr(f, slot))[0];
}

/* Starts the slot at head (@l: the slots' layout, layout_of): its time, length and per-row
 * offline flags. Returns the slot's start. */
static unsigned char *begin_slot(struct flight *f, const struct slot_layout *l, double t_s,
				 double iv_ms, const bool *offline)
{
	unsigned char *p = slot_ptr(f, f->head);
	double *head = (double *)(void *)p;
	head[0] = t_s;
	head[1] = iv_ms;
	uint8_t *off = p + l->offline;
	for (int r = 0; r < f->nrows; r++)
		off[r] = offline[r];
	if (f->ring)
		p[l->has_ring] = 0;
	return p;
}

/* The slot at head (@p) is complete (@ring: the sampling ring's counts per row, or NULL): the
 * ring moves on. */
static void end_slot(struct flight *f, const struct slot_layout *l, unsigned char *p,
		     const uint64_t *const *ring)
{
	if (f->ring && ring) {
		uint64_t *dst = (uint64_t *)(void *)(p + l->ring);
		for (int r = 0; r < f->nrows; r++)
			for (int k = 0; k < RING_NCOUNTS; k++)
				dst[(size_t)r * RING_NCOUNTS + (size_t)k] = ring[k][r];
		p[l->has_ring] = 1;
	}
	f->head = f->head + 1 == f->cap ? 0 : f->head + 1;
	if (f->len < f->cap)
		f->len++;
	f->pushed++;
}

/* Appends the raw reads @cur / @present (per row offline) as one slot at @t_s. */
static void push_raw(struct flight *f, double t_s, double iv_ms, const bool *offline,
		     const struct raw_count *cur, const bool *present, const uint64_t *const *ring)
{
	const struct slot_layout l = layout_of(f);
	unsigned char *p = begin_slot(f, &l, t_s, iv_ms, offline);
	struct raw_count *raw = (struct raw_count *)(void *)(p + l.raw);
	uint8_t *pres = p + l.present;
	/* (a loop, not memcpy: a few triples, and no library code lines to fetch for them) */
	size_t i = 0;
	for (int r = 0; r < f->nrows; r++) {
		bool off = offline[r];
		for (int e = 0; e < f->nevents; e++, i++) {
			raw[i] = cur[i];
			pres[i] = present[i] && !off;
		}
	}
	end_slot(f, &l, p, ring);
}

void flight_push(struct flight *f, const struct snapshot *snap, const struct session_raw *raw,
		 const uint64_t *const *ring)
{
	if (snap->nrows != f->nrows || snap->nevents != f->nevents)
		return;
	size_t cells = (size_t)f->nrows * (size_t)f->nevents;
	bool use_raw = raw && raw->cur && raw->nrows == f->nrows && raw->nevents == f->nevents;
	if (use_raw) {
		/* a mode's first sample brings the read before it, as a recording does: a replay of
		 * the ring then starts from the same base as the live run (rotation carry included)
		 */
		if (snap->first && raw->prev) {
			bool none[f->nrows > 0 ? f->nrows : 1];
			memset(none, 0, sizeof(none));
			push_raw(f, snap->time_s - snap->interval_s, 0, none, raw->prev,
				 raw->prev_present, NULL);
		}
		push_raw(f, snap->time_s, snap->interval_s * 1000.0, snap->offline, raw->cur,
			 raw->cur_present, ring);
		return;
	}
	const struct slot_layout l = layout_of(f);
	/* no raw reads: cumulative triples rebuilt from the deltas */
	uint64_t iv_ns = (uint64_t)llround(snap->interval_s * 1e9);
	unsigned char *p =
	    begin_slot(f, &l, snap->time_s, snap->interval_s * 1000.0, snap->offline);
	struct raw_count *out = (struct raw_count *)(void *)(p + l.raw);
	uint8_t *pres = p + l.present;
	for (size_t i = 0; i < cells; i++) {
		const struct count *c = &snap->counts[i];
		struct raw_count *cum = &f->cum[i];
		bool present = true;
		switch (c->state) {
		case COUNT_OK:
		case COUNT_SCALED: {
			double run = c->state == COUNT_OK ? 1.0 : c->running;
			cum->value += (uint64_t)llround(c->value * run);
			cum->enabled += iv_ns;
			cum->running += (uint64_t)llround(run * (double)iv_ns);
			break;
		}
		case COUNT_NOT_COUNTED:
			cum->enabled += iv_ns;
			break;
		default:
			present = false;
			break;
		}
		out[i] = *cum;
		pres[i] = present;
	}
	end_slot(f, &l, p, ring);
}

size_t flight_bytes(const struct flight *f) { return f ? f->bytes : 0; }

const uint64_t *flight_slot_ring(const struct flight *f, size_t slot)
{
	const struct slot_layout l = layout_of(f);
	const unsigned char *p = slot_ptr(f, slot);
	return f->ring && p[l.has_ring] ? (const uint64_t *)(const void *)(p + l.ring) : NULL;
}

/* Slot of the @i-th oldest sample held. */
static size_t slot_at(const struct flight *f, size_t i)
{
	return (f->head + f->cap - f->len + i) % f->cap;
}

static void fill_tick(const struct flight *f, size_t slot, struct rec_tick *tk)
{
	const struct slot_layout l = layout_of(f);
	const unsigned char *p = slot_ptr(f, slot);
	const double *head = (const double *)(const void *)p;
	const struct raw_count *raw = (const struct raw_count *)(const void *)(p + l.raw);
	const uint8_t *pres = p + l.present, *off = p + l.offline;
	const uint64_t *ring = flight_slot_ring(f, slot);
	tk->t = head[0];
	tk->interval_ms = head[1];
	for (int r = 0; r < f->nrows; r++) {
		struct rec_cpu *rc = &tk->cpus[r];
		rc->cpu = f->cpus[r];
		rc->offline = off[r];
		rc->has_ring = ring != NULL;
		for (int k = 0; rc->has_ring && k < RING_NCOUNTS; k++)
			rc->ring[k] = ring[(size_t)r * RING_NCOUNTS + (size_t)k];
		for (int e = 0; e < f->nevents; e++) {
			size_t i = (size_t)r * (size_t)f->nevents + (size_t)e;
			rc->c[e].present = !rc->offline && pres[i];
			rc->c[e].raw = rc->c[e].present ? raw[i] : (struct raw_count){0};
		}
	}
}

void flight_note(struct flight *f, double t, const char *text)
{
	if (!f)
		return;
	if (f->nnotes == FLIGHT_NOTES) {
		memmove(f->notes, f->notes + 1, (FLIGHT_NOTES - 1) * sizeof(f->notes[0]));
		f->nnotes--;
	}
	struct rec_mark *m = &f->notes[f->nnotes++];
	m->t = t;
	snprintf(m->text, sizeof(m->text), "%s", text);
}

int flight_write(const struct flight *f, const char *path, const struct rec_header *hdr,
		 const struct rec_mode *mode, double t_from, double t_to,
		 const struct rec_mark *mark, char *err, size_t errlen)
{
	if (mode->nevents != f->nevents) {
		snprintf(err, errlen, "flight recorder: mode has %d events, ring %d", mode->nevents,
			 f->nevents);
		return -1;
	}
	/* first sample in the window that has a predecessor (the base tick) */
	size_t first = f->len, last = 0;
	for (size_t i = 1; i < f->len; i++) {
		double t = slot_t(f, slot_at(f, i));
		if (t >= t_from && t <= t_to) {
			if (first == f->len)
				first = i;
			last = i;
		}
	}
	if (first == f->len) {
		snprintf(err, errlen, "flight recorder: no samples between %.3f and %.3f s", t_from,
			 t_to);
		return -1;
	}
	struct rec_writer_opts wo = {.create = SAFE_CREATE_NEW};
	struct rec_writer *w = rec_writer_open(path, &wo, err, errlen);
	if (!w)
		return -1;
	struct rec_tick tk;
	if (rec_tick_alloc(&tk, f->nrows, f->nevents) < 0) {
		snprintf(err, errlen, "out of memory");
		rec_writer_close(w, NULL, 0);
		return -1;
	}
	tk.nevents = f->nevents;
	tk.ncpus = f->nrows;
	int written = 0;
	int rc = rec_writer_write_header(w, hdr, err, errlen);
	if (rc == 0)
		rc = rec_writer_write_mode(w, mode, err, errlen);
	bool marked = !mark;
	size_t note = 0; /* the notes within the window, each before the first tick after it */
	while (note < f->nnotes && f->notes[note].t < slot_t(f, slot_at(f, first)))
		note++;
	for (size_t i = first - 1; rc == 0 && i <= last; i++) {
		size_t slot = slot_at(f, i);
		while (rc == 0 && i >= first && note < f->nnotes &&
		       f->notes[note].t <= slot_t(f, slot))
			rc = rec_writer_write_mark(w, &f->notes[note++], err, errlen);
		if (rc < 0)
			break;
		if (!marked && slot_t(f, slot) > mark->t && i >= first) {
			rc = rec_writer_write_mark(w, mark, err, errlen);
			marked = true;
			if (rc < 0)
				break;
		}
		fill_tick(f, slot, &tk);
		rc = rec_writer_write_tick(w, &tk, err, errlen);
		if (rc == 0 && i >= first)
			written++;
	}
	if (rc == 0 && !marked)
		rc = rec_writer_write_mark(w, mark, err, errlen);
	rec_tick_free(&tk);
	char cerr[256];
	if (rec_writer_close(w, cerr, sizeof(cerr)) < 0 && rc == 0) {
		snprintf(err, errlen, "%s", cerr);
		rc = -1;
	}
	return rc < 0 ? -1 : written;
}

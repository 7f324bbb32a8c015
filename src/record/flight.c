/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flight.c: a bounded ring of rebuilt cumulative counter triples, dumped as a pmutop recording. */
#include "flight.h"
#include <math.h>
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

size_t flight_bytes_for(size_t slots, int nrows, int nevents, bool ring)
{
	size_t cells = (size_t)nrows * (size_t)nevents;
	size_t per_slot =
	    2 * sizeof(double) + cells * (sizeof(struct raw_count) + 1) + (size_t)nrows;
	if (ring)
		per_slot += (size_t)nrows * RING_NCOUNTS * sizeof(uint64_t) + 1;
	return sizeof(struct flight) + slots * per_slot + cells * sizeof(struct raw_count) +
	       (size_t)nrows * sizeof(int);
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
	size_t cells = (size_t)nrows * (size_t)nevents;
	f->nrows = nrows;
	f->nevents = nevents;
	f->cap = slots;
	f->cpus = malloc((size_t)nrows * sizeof(int));
	f->t = calloc(slots, sizeof(double));
	f->iv_ms = calloc(slots, sizeof(double));
	f->raw = calloc(slots * cells, sizeof(struct raw_count));
	f->present = calloc(slots * cells, 1);
	f->offline = calloc(slots * (size_t)nrows, 1);
	f->cum = calloc(cells, sizeof(struct raw_count));
	if (ring) {
		f->ring = calloc(slots * (size_t)nrows * RING_NCOUNTS, sizeof(uint64_t));
		f->has_ring = calloc(slots, 1);
	}
	if (!f->cpus || !f->t || !f->iv_ms || !f->raw || !f->present || !f->offline || !f->cum ||
	    (ring && (!f->ring || !f->has_ring))) {
		flight_free(f);
		snprintf(err, errlen, "flight recorder: out of memory for %zu samples", slots);
		return NULL;
	}
	memcpy(f->cpus, cpus, (size_t)nrows * sizeof(int));
	f->bytes = flight_bytes_for(slots, nrows, nevents, ring);
	return f;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	free(f->cpus);
	free(f->t);
	free(f->iv_ms);
	free(f->raw);
	free(f->present);
	free(f->offline);
	free(f->cum);
	free(f->ring);
	free(f->has_ring);
	free(f);
}

/* Starts the slot at head: its time, length and per-row offline flags. Returns the slot. */
static size_t begin_slot(struct flight *f, double t_s, double iv_ms, const bool *offline)
{
	size_t slot = f->head;
	f->t[slot] = t_s;
	f->iv_ms[slot] = iv_ms;
	for (int r = 0; r < f->nrows; r++)
		f->offline[slot * (size_t)f->nrows + (size_t)r] = offline[r];
	if (f->has_ring)
		f->has_ring[slot] = 0;
	return slot;
}

/* The slot at head is complete (@ring: the sampling ring's counts per row, or NULL): the ring
 * moves on. */
static void end_slot(struct flight *f, const uint64_t *const *ring)
{
	if (f->ring && ring) {
		uint64_t *dst = f->ring + f->head * (size_t)f->nrows * RING_NCOUNTS;
		for (int r = 0; r < f->nrows; r++)
			for (int k = 0; k < RING_NCOUNTS; k++)
				dst[(size_t)r * RING_NCOUNTS + (size_t)k] = ring[k][r];
		f->has_ring[f->head] = 1;
	}
	f->head = (f->head + 1) % f->cap;
	if (f->len < f->cap)
		f->len++;
	f->pushed++;
}

/* Appends the raw reads @cur / @present (per row offline) as one slot at @t_s. */
static void push_raw(struct flight *f, double t_s, double iv_ms, const bool *offline,
		     const struct raw_count *cur, const bool *present, const uint64_t *const *ring)
{
	size_t cells = (size_t)f->nrows * (size_t)f->nevents;
	size_t slot = begin_slot(f, t_s, iv_ms, offline);
	for (size_t i = 0; i < cells; i++) {
		bool off = offline[i / (size_t)f->nevents];
		f->raw[slot * cells + i] = cur[i];
		f->present[slot * cells + i] = present[i] && !off;
	}
	end_slot(f, ring);
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
	/* no raw reads: cumulative triples rebuilt from the deltas */
	uint64_t iv_ns = (uint64_t)llround(snap->interval_s * 1e9);
	size_t slot = begin_slot(f, snap->time_s, snap->interval_s * 1000.0, snap->offline);
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
		f->raw[slot * cells + i] = *cum;
		f->present[slot * cells + i] = present;
	}
	end_slot(f, ring);
}

size_t flight_bytes(const struct flight *f) { return f ? f->bytes : 0; }

/* Slot of the @i-th oldest sample held. */
static size_t slot_at(const struct flight *f, size_t i)
{
	return (f->head + f->cap - f->len + i) % f->cap;
}

static void fill_tick(const struct flight *f, size_t slot, struct rec_tick *tk)
{
	size_t cells = (size_t)f->nrows * (size_t)f->nevents;
	tk->t = f->t[slot];
	tk->interval_ms = f->iv_ms[slot];
	for (int r = 0; r < f->nrows; r++) {
		struct rec_cpu *rc = &tk->cpus[r];
		rc->cpu = f->cpus[r];
		rc->offline = f->offline[slot * (size_t)f->nrows + (size_t)r];
		rc->has_ring = f->has_ring && f->has_ring[slot];
		for (int k = 0; rc->has_ring && k < RING_NCOUNTS; k++)
			rc->ring[k] = f->ring[(slot * (size_t)f->nrows + (size_t)r) * RING_NCOUNTS +
					      (size_t)k];
		for (int e = 0; e < f->nevents; e++) {
			size_t i = (size_t)r * (size_t)f->nevents + (size_t)e;
			rc->c[e].present = !rc->offline && f->present[slot * cells + i];
			rc->c[e].raw =
			    rc->c[e].present ? f->raw[slot * cells + i] : (struct raw_count){0};
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
		double t = f->t[slot_at(f, i)];
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
	while (note < f->nnotes && f->notes[note].t < f->t[slot_at(f, first)])
		note++;
	for (size_t i = first - 1; rc == 0 && i <= last; i++) {
		size_t slot = slot_at(f, i);
		while (rc == 0 && i >= first && note < f->nnotes && f->notes[note].t <= f->t[slot])
			rc = rec_writer_write_mark(w, &f->notes[note++], err, errlen);
		if (rc < 0)
			break;
		if (!marked && f->t[slot] > mark->t && i >= first) {
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

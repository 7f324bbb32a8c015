/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_jitter_run.c: jitter wired into a sim run: spikes, steady runs, window aggregation, flight,
 * errors. */
#include "app.h"
#include "baseline.h"
#include "command.h"
#include "flight.h"
#include "harness.h"
#include "harness_app.h"
#include "jitter.h"
#include "recfile.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAMPLES 400
#define MAX_ROWS 8
#define MAX_EV 8
#define MAX_M 8

/* Every sample's counts and metric values, captured by a hook after jitter's. */
static struct capture {
	int n;
	int nrows, nevents, nmetrics;
	double t[MAX_SAMPLES];
	struct count counts[MAX_SAMPLES][MAX_ROWS * MAX_EV];
	double values[MAX_SAMPLES][MAX_ROWS * MAX_M];
} cap;

static void capture_hook(struct observer *o, struct app_ctx *app, const struct snapshot *snap)
{
	(void)app, (void)o;
	if (cap.n >= MAX_SAMPLES || snap->nrows > MAX_ROWS || snap->nevents > MAX_EV ||
	    snap->nmetrics > MAX_M)
		return;
	cap.nrows = snap->nrows;
	cap.nevents = snap->nevents;
	cap.nmetrics = snap->nmetrics;
	cap.t[cap.n] = snap->time_s;
	memcpy(cap.counts[cap.n], snap->counts,
	       (size_t)snap->nrows * (size_t)snap->nevents * sizeof(struct count));
	memcpy(cap.values[cap.n], snap->values,
	       (size_t)snap->nrows * (size_t)snap->nmetrics * sizeof(double));
	cap.n++;
}

static struct app_ctx app;

/* Parses @args (blank-separated; no quoting), starts the app with jitter and a capture hook. */
static int start(const char *args, char *err, size_t errlen)
{
	memset(&cap, 0, sizeof(cap));
	if (harness_app_start(&app, args, err, errlen) < 0)
		return -1;
	if (jitter_attach(&app, err, errlen) < 0)
		return -1;
	app_observe(&app, &(struct observer){.name = "capture", .on_tick = capture_hook});
	return app_tick(&app, err, errlen) < 0 ? -1 : 0; /* priming read */
}

static void run(int samples)
{
	char err[256];
	for (int i = 0; i < samples; i++)
		if (app_tick(&app, err, sizeof(err)) < 0) {
			CHECK(0, "tick: %s", err);
			return;
		}
}

static bool logged(const char *needle)
{
	for (int i = 0; i < app.nmessages; i++)
		if (strstr(app.messages[i].text, needle))
			return true;
	return false;
}

/* Injected spikes are found on the spiking CPU at the spiking ticks, and nowhere else. */
static void test_sim_spikes(void)
{
	char err[256];
	if (start("--backend sim --sim-cpus 4 --seed 1 -m cpi --sample 10 -i 100 --sim-spike "
		  "2:10:5 --flight 0",
		  err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	run(100);
	const struct jitter *j = jitter_get(&app);
	CHECK(j->log.len > 0, "no spike found");
	int cpi_hits[101] = {0};
	for (size_t i = 0; i < j->log.len; i++) {
		const struct spike_event *e = spike_log_get(&j->log, i);
		CHECK_INT(e->cpu, 2);
		/* the sim spikes on its reads 10, 20, ...: read 1 primes, so sample seq 9, 19, ...
		 * at t = seq * 10 ms */
		long seq = lround(e->time_s / 0.01);
		CHECK(fabs(e->time_s - (double)seq * 0.01) < 1e-9, "time %.9f off the sample grid",
		      e->time_s);
		CHECK_INT(seq % 10, 9);
		if (strcmp(e->metric, "cpi") == 0 && seq >= 0 && seq <= 100) {
			cpi_hits[seq]++;
			CHECK(e->value > 3 * e->baseline, "cpi %g vs baseline %g", e->value,
			      e->baseline);
		}
	}
	/* the mad rule needs half its window (32 samples) before it speaks; then every spike */
	for (int seq = 39; seq <= 99; seq += 10)
		CHECK_INT(cpi_hits[seq], 1);
	app_free(&app);
}

/* A steady run flags nothing (default rules), on several seeds and modes. */
static void test_steady(void)
{
	static const struct {
		int line;
		const char *args;
	} cases[] = {
	    {__LINE__, "--backend sim --sim-cpus 8 --seed 1 -m cpi --sample 10 -i 100 --flight 0"},
	    {__LINE__, "--backend sim --sim-cpus 8 --seed 2 -m cpi --sample 10 -i 100 --flight 0"},
	    {__LINE__,
	     "--backend sim --sim-cpus 8 --seed 3 -m dcache --sample 5 -i 100 --flight 0"},
	    {__LINE__, "--backend sim --sim-cpus 8 --seed 4 -m sw --sample 10 -i 100 --flight 0"},
	    {__LINE__, "--backend sim --sim-cpus 4 --seed 5 -m sw --sample 1 -i 50 --flight 0"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256];
		if (start(cases[i].args, err, sizeof(err)) < 0) {
			CHECK(0, "line %d: start: %s", cases[i].line, err);
			continue;
		}
		run(300);
		const struct jitter *j = jitter_get(&app);
		CHECK(j->log.total == 0, "line %d: %llu spikes on a steady run", cases[i].line,
		      j->log.total);
		app_free(&app);
	}
}

/* The window statistics are exactly those of the samples; the window's counts are their sums. */
static void test_window_exact(void)
{
	char err[256];
	if (start("--backend sim --sim-cpus 3 --seed 7 -m cpi --sample 10 --refresh 100 --flight 0",
		  err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	const struct jitter *j = jitter_get(&app);
	for (int w = 0; w < 3; w++) {
		int from = cap.n;
		run(10);
		CHECK_INT(jitter_windows(&app), w + 1);
		CHECK_INT(cap.n - from, 10);
		const struct snapshot *s = jitter_snapshot(&app);
		CHECK(s != NULL, "no window");
		if (!s)
			break;
		CHECK_NEAR(s->interval_s, 0.1, 1e-9);
		CHECK_NEAR(s->time_s, cap.t[cap.n - 1], 1e-12);
		for (int r = 0; r < cap.nrows; r++) {
			for (int m = 0; m < cap.nmetrics; m++) {
				double v[10];
				for (int k = 0; k < 10; k++)
					v[k] = cap.values[from + k][r * cap.nmetrics + m];
				struct stats want;
				stats_compute(v, 10, NULL, &want);
				const struct jitter_cell *c = jitter_cell(j, r, m);
				CHECK(c && c->st.available == want.available,
				      "row %d metric %d availability", r, m);
				if (!c || !want.available)
					continue;
				CHECK(c->st.min == want.min && c->st.median == want.median &&
					  c->st.p99 == want.p99 && c->st.max == want.max,
				      "row %d metric %d: %g %g %g %g vs %g %g %g %g", r, m,
				      c->st.min, c->st.median, c->st.p99, c->st.max, want.min,
				      want.median, want.p99, want.max);
				CHECK_INT(c->st.n, 10);
			}
			double sum[MAX_EV] = {0};
			for (int e = 0; e < cap.nevents; e++) {
				for (int k = 0; k < 10; k++)
					sum[e] += cap.counts[from + k][r * cap.nevents + e].value;
				CHECK(s->counts[r * s->nevents + e].value == sum[e],
				      "row %d event %d: %g vs %g", r, e,
				      s->counts[r * s->nevents + e].value, sum[e]);
				CHECK_INT(s->counts[r * s->nevents + e].state, COUNT_OK);
			}
			/* no attribution here: its columns are n/a for each of the window's
			 * samples, every window (written once, kept while they stay so) */
			for (int c = j->nmetrics; !j->attrib_ready && c < j->ncols; c++) {
				const struct jitter_cell *a = jitter_cell(j, r, c);
				CHECK(a && !a->st.available && a->st.n == 0 && a->st.n_nan == 10 &&
					  !a->dev.available && isnan(a->dev.value) &&
					  isnan(a->dev.delta) && isnan(a->dev.mad_units),
				      "window %d row %d attribution column %d is not n/a", w, r, c);
			}
			/* cpi of the window = summed cycles / summed instructions (events 0 and 1)
			 */
			CHECK_NEAR(s->values[r * s->nmetrics + 0], sum[0] / sum[1], 1e-12);
		}
		/* deviation: CPU medians against their median */
		double med[MAX_ROWS];
		for (int r = 0; r < cap.nrows; r++)
			med[r] = jitter_cell(j, r, 0)->st.median;
		struct peer_dev dev[MAX_ROWS];
		double scratch[2 * MAX_ROWS];
		stats_peer_deviation(med, (size_t)cap.nrows, 1e-12, scratch, dev);
		for (int r = 0; r < cap.nrows; r++)
			CHECK_NEAR(jitter_cell(j, r, 0)->dev.delta, dev[r].delta, 1e-12);
	}
	app_free(&app);
}

/* A window of one sample (the refresh is the sample) in a format that reads the statistics: each
 * window's statistics are exactly its one value's, with no ring in between. */
static void test_window_one(void)
{
	char err[256];
	if (start("--backend sim --sim-cpus 3 --seed 7 -m cpi -i 100 --flight 0 -f json", err,
		  sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	const struct jitter *j = jitter_get(&app);
	for (int w = 0; w < 4; w++) {
		run(1);
		CHECK_INT((int)j->k, 1);
		CHECK_INT(jitter_windows(&app), w + 1);
		for (int r = 0; r < cap.nrows; r++)
			for (int m = 0; m < cap.nmetrics; m++) {
				struct stats want;
				double v = cap.values[cap.n - 1][r * cap.nmetrics + m];
				stats_compute(&v, 1, NULL, &want);
				const struct jitter_cell *c = jitter_cell(j, r, m);
				CHECK(c && c->st.available == want.available && c->st.n == want.n &&
					  c->st.n_nan == want.n_nan,
				      "window %d row %d metric %d: availability", w, r, m);
				if (!c || !want.available)
					continue;
				CHECK(c->st.min == want.min && c->st.median == want.median &&
					  c->st.p99 == want.p99 && c->st.max == want.max &&
					  c->st.mean == want.mean && c->st.mad == want.mad,
				      "window %d row %d metric %d: %g vs %g", w, r, m, c->st.median,
				      want.median);
			}
	}
	app_free(&app);
}

static char tmpdir[] = "/tmp/pmutop-test-jitter-XXXXXX";

/* Checks that @path replays the captured samples exactly and holds one mark. Returns ticks. */
static int check_recording(const char *path, const char *mark_text, double *mark_t)
{
	struct rec_file f;
	char err[512];
	if (rec_load(path, &f, err, sizeof(err)) < 0) {
		CHECK(0, "rec_load: %s", err);
		return -1;
	}
	CHECK_INT(f.nmodes, 1);
	CHECK_INT(f.header.ncpus, cap.nrows);
	CHECK_INT(f.nmarks, 1);
	if (f.nmarks == 1) {
		CHECK(strstr(f.marks[0].text, mark_text) != NULL, "mark \"%s\"", f.marks[0].text);
		*mark_t = f.marks[0].t;
	}
	for (int i = 1; i < f.nticks; i++) {
		/* find the captured sample at this tick's time */
		int k = -1;
		for (int s = 0; s < cap.n; s++)
			if (fabs(cap.t[s] - f.ticks[i].t) < 1e-9)
				k = s;
		CHECK(k >= 0, "tick at %.3f s was not a sample", f.ticks[i].t);
		if (k < 0)
			continue;
		for (int r = 0; r < f.ticks[i].ncpus; r++)
			for (int e = 0; e < f.ticks[i].nevents; e++) {
				struct count c;
				count_delta(&f.ticks[i - 1].cpus[r].c[e].raw,
					    &f.ticks[i].cpus[r].c[e].raw, 64, &c);
				const struct count *want = &cap.counts[k][r * cap.nevents + e];
				CHECK(c.state == want->state && c.value == want->value &&
					  c.running == want->running,
				      "t %.3f cpu %d event %d: %g (%d) vs %g (%d)", f.ticks[i].t, r,
				      e, c.value, c.state, want->value, want->state);
			}
	}
	int n = f.nticks;
	rec_file_free(&f);
	return n;
}

/* The flight recorder's window and marker replay exactly. */
static void test_flight_replay(void)
{
	char err[256], args[512];
	snprintf(args, sizeof(args),
		 "--backend sim --sim-cpus 4 --seed 3 -m cpi --sample 10 -i 100 --flight 1.5 "
		 "--flight-out %s/fr "
		 "--sim-spike 1:50:6 --alert cpi>3",
		 tmpdir);
	/* "cpi>3" is one word: the test's splitter has no quoting */
	if (start(args, err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	run(150);
	const struct jitter *j = jitter_get(&app);
	char path[512];
	snprintf(path, sizeof(path), "%s/fr-1.jsonl", tmpdir);
	CHECK(access(path, R_OK) == 0, "no flight recording at %s", path);
	CHECK_STR(j->flight_path, path);
	double mark_t = -1;
	int ticks = check_recording(path, "spike cpu 1 cpi", &mark_t);
	/* first spike: sim read 50 = sample 49 at 0.49 s; window: 1.5 s before the end, 0.5 s after
	 */
	CHECK_NEAR(mark_t, 0.49, 1e-9);
	/* 0.01 .. 0.99 s + the base tick (the priming read at 0 s, which the ring keeps with the
	 * mode's first sample so a replay starts where the live run did) */
	CHECK_INT(ticks, 100);
	/* a direct write of a window inside the ring */
	struct rec_header h = {.version = 1, .ncpus = 4, .interval_ms = 10, .backend = "sim"};
	struct rec_cpu_info cpus[4] = {{.cpu = 0}, {.cpu = 1}, {.cpu = 2}, {.cpu = 3}};
	h.cpus = cpus;
	struct rec_event ev[2] = {{.name = "cycles", .spec = "perf::CYCLES"},
				  {.name = "instructions", .spec = "perf::INSTRUCTIONS"}};
	struct rec_mode mode = {.name = "cpi", .nevents = 2, .events = ev};
	struct rec_mark mark = {.t = 1.2, .text = "by hand"};
	snprintf(path, sizeof(path), "%s/direct.jsonl", tmpdir);
	int n = flight_write(j->flight, path, &h, &mode, 1.0, 1.3, &mark, err, sizeof(err));
	CHECK_INT(n, 31);
	ticks = check_recording(path, "by hand", &mark_t);
	CHECK_INT(ticks, 32);
	CHECK_NEAR(mark_t, 1.2, 1e-12);
	/* outside the ring */
	CHECK_INT(flight_write(j->flight, path, &h, &mode, 5.0, 6.0, &mark, err, sizeof(err)), -1);
	CHECK(strstr(err, "no samples") != NULL, "%s", err);
	app_free(&app);
}

/* OpenMetrics' baseline history is laid out at set-up for a row per CPU (attached, a mode
 * opened), so the first frame neither allocates nor maps it in; a mode switch lays it out again
 * for the new mode's metrics. */
static void test_baseline_setup(void)
{
	char err[256];
	if (harness_app_start(&app,
			      "--backend sim --sim-cpus 3 --seed 3 -m cpi -i 10 -f openmetrics",
			      err, sizeof(err)) < 0 ||
	    baseline_attach(&app, NULL, err, sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		app_free(&app);
		return;
	}
	size_t cells = 4 * (size_t)app.mode.nmetrics; /* 3 CPUs and the total */
	CHECK(app.mode.nmetrics > 0, "cpi has no metrics");
	CHECK_INT(baseline_history_bytes(&app), (cells + 1) * BASELINE_HISTORY * sizeof(double));
	if (app_set_mode(&app, "sw", err, sizeof(err)) < 0) {
		CHECK(0, "mode sw: %s", err);
		app_free(&app);
		return;
	}
	cells = 4 * (size_t)app.mode.nmetrics;
	CHECK_INT(baseline_history_bytes(&app), (cells + 1) * BASELINE_HISTORY * sizeof(double));
	app_free(&app);
}

/* The flight ring is made at set-up (attached, a mode opened), not by the first tick, which
 * keeps it; a mode of another shape makes it again before its first tick. */
static void test_flight_setup(void)
{
	char err[256];
	if (start("--backend sim --sim-cpus 4 --seed 3 -m cpi --sample 10 -i 100 --flight 1.5", err,
		  sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	const struct jitter *j = jitter_get(&app);
	const struct flight *f = j->flight;
	CHECK(f != NULL, "no flight ring before the first tick");
	if (!f) {
		app_free(&app);
		return;
	}
	CHECK_INT(f->pushed, 0);
	CHECK_INT(f->nrows, 4);
	CHECK_INT(f->nevents, app.mode.nevents);
	run(3);
	CHECK(j->flight == f, "the first ticks made the ring again");
	CHECK_INT(f->pushed, 4); /* the base (the priming read) with the first sample */
	if (app_set_mode(&app, "sw", err, sizeof(err)) < 0) {
		CHECK(0, "mode sw: %s", err);
		app_free(&app);
		return;
	}
	CHECK(j->flight != NULL, "no flight ring after the mode switch");
	if (j->flight) {
		CHECK_INT(j->flight->pushed, 0);
		CHECK_INT(j->flight->nevents, app.mode.nevents);
	}
	run(3);
	CHECK(j->flight && j->flight->pushed > 0, "the new mode's ticks are not in the ring");
	if (j->flight)
		CHECK_INT(j->flight->nevents, app.mode.nevents);
	app_free(&app);
}

/* The ring never exceeds its cap; the bytes it reports are what it allocated. */
static void test_flight_bound(void)
{
	static const struct {
		int line;
		int rows, events;
		double seconds;
		long sample_ms;
		size_t max;
		bool clipped;
		bool ring; /* with the sampling ring's counts per row */
	} cases[] = {
	    {__LINE__, 4, 2, 1.0, 10, 0, false, false},
	    {__LINE__, 64, 48, 30, 1, 8u << 20, true, false},
	    {__LINE__, 256, 8, 3600, 1, 1u << 20, true, false},
	    {__LINE__, 2, 5, 30, 10, 1u << 20, false, false},
	    {__LINE__, 4, 2, 1.0, 10, 0, false, true},
	    {__LINE__, 64, 1, 30, 1, 1u << 20, true, true},
	};
	int cpus[256];
	for (int i = 0; i < 256; i++)
		cpus[i] = i;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256];
		bool clipped;
		size_t max = cases[i].max ? cases[i].max : FLIGHT_MAX_BYTES;
		struct flight *f = flight_new(cases[i].rows, cpus, cases[i].events, cases[i].ring,
					      cases[i].seconds, cases[i].sample_ms, cases[i].max,
					      &clipped, err, sizeof(err));
		CHECK(f != NULL, "line %d: %s", cases[i].line, err);
		if (!f)
			continue;
		CHECK(clipped == cases[i].clipped, "line %d: clipped %d", cases[i].line, clipped);
		CHECK(flight_bytes(f) <= max, "line %d: %zu > %zu", cases[i].line, flight_bytes(f),
		      max);
		CHECK_INT(flight_bytes(f),
			  flight_bytes_for(f->cap, cases[i].rows, cases[i].events, cases[i].ring));
		/* a slot: 2 doubles, a triple (24 bytes) and a flag a cell, a flag a row and, with
		 * ring counts, a row's three (8 bytes each) and a flag, in whole 64-byte lines */
		size_t data = 16 + (size_t)cases[i].rows * (size_t)cases[i].events * 25 +
			      (size_t)cases[i].rows +
			      (cases[i].ring ? (size_t)cases[i].rows * 3 * 8 + 1 : 0);
		CHECK_INT(f->stride, (data + 63) / 64 * 64);
		CHECK((uintptr_t)f->slots % 64 == 0, "line %d: the slots start a cache line",
		      cases[i].line);
		CHECK_INT(flight_bytes_for(10, cases[i].rows, cases[i].events, cases[i].ring) -
			      flight_bytes_for(0, cases[i].rows, cases[i].events, cases[i].ring),
			  10 * f->stride);
		if (!clipped)
			CHECK_INT(f->cap, flight_slots(cases[i].seconds, cases[i].sample_ms));
		/* push past the end: the ring holds cap samples */
		size_t cells = (size_t)cases[i].rows * (size_t)cases[i].events;
		struct count *counts = calloc(cells, sizeof(*counts));
		bool *off = calloc((size_t)cases[i].rows, sizeof(bool));
		struct snapshot s = {.nrows = cases[i].rows,
				     .nevents = cases[i].events,
				     .counts = counts,
				     .offline = off,
				     .interval_s = 0.001};
		for (size_t k = 0; k < cells; k++)
			counts[k] = (struct count){.value = 3, .running = 1, .state = COUNT_OK};
		size_t pushes = f->cap + 5 < 5000 ? f->cap + 5 : 5000;
		uint64_t *rc = calloc((size_t)cases[i].rows * RING_NCOUNTS, sizeof(uint64_t));
		const uint64_t *ring[RING_NCOUNTS];
		for (int k = 0; k < RING_NCOUNTS; k++)
			ring[k] = rc + (size_t)k * (size_t)cases[i].rows;
		for (size_t k = 0; k < pushes; k++) {
			s.time_s = (double)k * 0.001;
			rc[(size_t)RING_THROTTLES * (size_t)cases[i].rows] =
			    k; /* row 0's episodes */
			flight_push(f, &s, NULL, cases[i].ring ? ring : NULL);
		}
		CHECK_INT(f->len, pushes < f->cap ? pushes : f->cap);
		if (cases[i].ring) { /* the newest sample keeps its counts */
			size_t slot = (f->head + f->cap - 1) % f->cap;
			const uint64_t *kept = flight_slot_ring(f, slot);
			CHECK(kept != NULL, "line %d: the last sample has ring counts",
			      cases[i].line);
			if (kept)
				CHECK_INT(kept[RING_THROTTLES], pushes - 1);
		}
		free(rc);
		free(counts);
		free(off);
		flight_free(f);
	}
	/* a size past size_t (hours at 1 ms on a 32-bit board) saturates: the ring is clipped to
	 * its cap, not allocated short */
	CHECK(flight_bytes_for(SIZE_MAX / 8, 2, 5, false) == SIZE_MAX, "no saturation: %zu",
	      flight_bytes_for(SIZE_MAX / 8, 2, 5, false));
	CHECK(flight_bytes_for(SIZE_MAX / 256, 2, 5, true) == SIZE_MAX, "no saturation (ring)");
	/* too small for even two samples */
	char err[256];
	bool clipped;
	CHECK(flight_new(4096, cpus, 48, false, 1, 1, 1000, &clipped, err, sizeof(err)) == NULL,
	      "fits in 1000 bytes?");
}

/* Options and commands refuse bad values with a message; rules on unknown metrics warn. */
static void test_errors(void)
{
	static const struct {
		int line;
		const char *args, *want;
	} bad_options[] = {
	    {__LINE__, "--sample 0", "--sample"},
	    {__LINE__, "--sample 200 -i 100", "longer than the interval"},
	    {__LINE__, "--sample 200 --refresh 100", "longer than the refresh"},
	    {__LINE__, "--refresh 5", "--refresh"},
	    {__LINE__, "--flight -1", "--flight"},
	    {__LINE__, "--alert cpi>", "--alert"},
	    {__LINE__, "--alert mad", "--alert"},
	};
	for (size_t i = 0; i < sizeof(bad_options) / sizeof(bad_options[0]); i++) {
		char err[256] = "";
		CHECK(start(bad_options[i].args, err, sizeof(err)) < 0, "line %d accepted",
		      bad_options[i].line);
		CHECK(strstr(err, bad_options[i].want) != NULL, "line %d: \"%s\"",
		      bad_options[i].line, err);
		app_free(&app);
	}
	char err[256];
	if (start("--backend sim --sim-cpus 2 -m cpi --sample 10 -i 100 --flight 0", err,
		  sizeof(err)) < 0) {
		CHECK(0, "start: %s", err);
		return;
	}
	static const struct {
		int line;
		const char *cmd, *want;
	} bad_cmds[] = {
	    {__LINE__, "sample 0", "out of range"},
	    {__LINE__, "sample 500", "out of range"},
	    {__LINE__, "sample x", "not a duration"},
	    {__LINE__, "refresh 5", "out of range"},
	    {__LINE__, "alert cpi >", "col"},
	    {__LINE__, "export stuff x.csv", "only \"spikes\""},
	    {__LINE__, "export spikes /nonexistent-dir/x.csv", "nonexistent"},
	    {__LINE__, "freeze maybe", "on or off"},
	};
	for (size_t i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++) {
		char e[256] = "";
		CHECK(command_execute(&app, bad_cmds[i].cmd, e, sizeof(e)) < 0, "line %d accepted",
		      bad_cmds[i].line);
		CHECK(strstr(e, bad_cmds[i].want) != NULL, "line %d: \"%s\"", bad_cmds[i].line, e);
	}
	CHECK(command_execute(&app, "freeze", err, sizeof(err)) == 0, "%s",
	      err); /* no recording: view only */
	CHECK(jitter_get(&app)->freeze_pending, "freeze did not freeze");
	CHECK(command_execute(&app, "freeze off", err, sizeof(err)) == 0, "%s", err);
	CHECK(!jitter_get(&app)->freeze_pending && !jitter_get(&app)->frozen, "still frozen");
	CHECK(command_execute(&app, "refresh 200", err, sizeof(err)) == 0, "%s", err);
	CHECK(command_execute(&app, "sample 20", err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(app_tick_ms(&app), 20);
	CHECK_INT(app.interval_ms, 200);
	CHECK(command_execute(&app, "alert dtlb_mpki > 5 on 1", err, sizeof(err)) == 0, "%s", err);
	CHECK(logged("mode cpi has no metric dtlb_mpki"), "no warning for a missing metric");
	CHECK(command_execute(&app, "alert cpi > 0", err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(jitter_get(&app)->rules.n, 2); /* user rules replaced the defaults */
	run(30);
	CHECK(jitter_get(&app)->log.total >= 30, "cpi > 0 fired %llu times",
	      jitter_get(&app)->log.total);
	char path[512];
	snprintf(path, sizeof(path), "export spikes %s/s.csv", tmpdir);
	CHECK(command_execute(&app, path, err, sizeof(err)) == 0, "%s", err);
	snprintf(path, sizeof(path), "%s/s.csv", tmpdir);
	FILE *f = fopen(path, "r");
	char line[256] = "";
	CHECK(f && fgets(line, sizeof(line), f), "no csv");
	CHECK_STR(line, "time_s,cpu,metric,value,baseline,score,rule\n");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "export spikes %s/s.jsonl", tmpdir);
	CHECK(command_execute(&app, path, err, sizeof(err)) == 0, "%s", err);
	CHECK(command_execute(&app, "alert clear", err, sizeof(err)) == 0, "%s", err);
	CHECK(!jitter_get(&app)->user_rules, "clear keeps user rules");
	app_free(&app);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_sim_spikes();
	test_steady();
	test_window_exact();
	test_window_one();
	test_flight_replay();
	test_flight_setup();
	test_baseline_setup();
	test_flight_bound();
	test_errors();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return harness_done();
}

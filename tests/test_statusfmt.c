/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_statusfmt.c: the screen's header lines made without printf (the jitter status line and
 * the coarse legend) against the same lines made with snprintf, the way they were made before
 * (kept here as the reference), over random inputs and buffer sizes, cuts included. */
#include "harness.h"
#include "jitter.h"
#include "output.h"
#include "session.h"
#include <stdint.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A double of any magnitude the lines may meet: 1e-9 .. 1e22, exact halves, zero, sometimes
 * NaN or an infinity; @neg: both signs. */
static double rnd_double(bool neg)
{
	switch (rnd(40)) {
	case 0:
		return NAN;
	case 1:
		return INFINITY;
	case 2:
		return 0;
	case 3:
		return (double)rnd(100000) + 0.5;
	case 4:
		return (double)rnd(1000) / 8.0; /* exact binary fractions: the ties */
	default:
		break;
	}
	double v = (double)rnd(1000000) / 1000.0 * pow(10, (int)rnd(32) - 12);
	return neg && rnd(3) == 0 ? -v : v;
}

/* jitter_status_line as it was made with snprintf (times in ms, memory in bytes). */
static void ref_status(const struct jitter_status *st, char *buf, size_t len)
{
	char mem[32], self[48] = "self n/a", late[96] = "late n/a";
	if (st->mem_bytes >= (1u << 20))
		snprintf(mem, sizeof(mem), "%.1f MiB", (double)st->mem_bytes / (1 << 20));
	else
		snprintf(mem, sizeof(mem), "%.0f KiB", (double)st->mem_bytes / 1024);
	if (st->late == JITTER_LATE_RING)
		snprintf(late, sizeof(late),
			 "ring late p99 %.2f max %.2f ms, throttled %.1f ms, lost %llu", st->p99_ms,
			 st->max_ms, st->throttled_ms, st->lost);
	else if (st->late == JITTER_LATE_TICK)
		snprintf(late, sizeof(late), "late p99 %.2f max %.2f ms%s, missed %llu", st->p99_ms,
			 st->max_ms, st->try_realtime ? " (try --realtime)" : "", st->lost);
	if (st->self)
		snprintf(self, sizeof(self), "self %.1f%% CPU on cpu%d", st->self_pct,
			 st->self_cpu);
	char flight[96] = "flight off";
	if (st->flight)
		snprintf(flight, sizeof(flight), "flight %.0f s", st->flight_s);
	snprintf(buf, len, "%ssample %g ms (measured %.2f) | %s | %s | %s, mem %s | spikes %llu",
		 st->frozen ? "FROZEN (:freeze off) | " : "", st->sample_ms, st->measured_ms, late,
		 self, flight, mem, st->spikes);
}

static void test_status(void)
{
	int bad = 0, n = 0;
	for (int i = 0; i < 20000; i++) {
		struct jitter_status st = {
		    .frozen = rnd(4) == 0,
		    .sample_ms = rnd(3) ? (double)rnd(100000) / 1000.0 : rnd_double(false),
		    .measured_ms = rnd_double(false),
		    .late = (enum jitter_late)rnd(3),
		    .p99_ms = rnd_double(true),
		    .max_ms = rnd_double(false),
		    .throttled_ms = rnd_double(false),
		    .lost = rnd(3) ? rnd(1000) : ((unsigned long long)rnd(~0u) << 32) | rnd(~0u),
		    .try_realtime = rnd(2),
		    .self = rnd(3) != 0,
		    .self_pct = rnd_double(false),
		    .self_cpu = rnd(5) ? (int)rnd(4096) : -(int)rnd(3),
		    .flight = rnd(2),
		    .flight_s = rnd_double(false),
		    .mem_bytes = rnd(2) ? rnd(1u << 21) : (size_t)rnd(~0u) * rnd(64),
		    .spikes = rnd(2) ? rnd(100) : ((unsigned long long)rnd(~0u) << 32),
		};
		/* the screen's buffer, then any size down to 0 (cut as snprintf cuts) */
		size_t len = i % 3 == 0 ? 1 + rnd(200) : i % 97 == 0 ? 0 : 512;
		char want[512], got[512];
		memset(want, 'W', sizeof(want));
		memset(got, 'W', sizeof(got));
		ref_status(&st, want, len);
		jitter_status_format(&st, got, len);
		n++;
		if (memcmp(want, got, sizeof(want)) != 0 && bad++ < 5)
			CHECK(0, "len %zu: \"%.*s\", want \"%.*s\"", len, (int)(len ? len - 1 : 0),
			      got, (int)(len ? len - 1 : 0), want);
	}
	CHECK(bad == 0, "%d of %d status lines differ", bad, n);
}

/* output_coarse_legend as it was made with snprintf. */
static bool ref_metric_coarse(const struct snapshot *snap, int m, double *step)
{
	bool coarse = false;
	*step = 0;
	for (int r = 0; snap->detail && r <= snap->nrows; r++) {
		const struct metric_detail *d = &snap->detail[r * snap->nmetrics + m];
		coarse |= d->coarse;
		if (d->coarse && d->resolution > *step)
			*step = d->resolution;
	}
	return coarse;
}

static void ref_legend(const struct snapshot *snap, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int m = 0; m < snap->nmetrics && used + 1 < len; m++) {
		double step;
		if (!ref_metric_coarse(snap, m, &step))
			continue;
		int n =
		    snprintf(buf + used, len - used, "%s%s (steps of %.3g%s)",
			     used ? ", " : OUTPUT_COARSE_MARK " coarse: ", snap->metrics[m].name,
			     step, snap->metrics[m].unit);
		if (n < 0)
			break;
		used += (size_t)n < len - used ? (size_t)n : len - used - 1;
	}
	if (used && used + 1 < len)
		snprintf(buf + used, len - used,
			 "; the tick is shorter than %d steps of its source (/proc/stat ticks): "
			 "sample longer for a finer value",
			 SESSION_COARSE_STEPS);
}

#define NM 8
#define NR 5

static void test_legend(void)
{
	static struct session_metric metrics[NM];
	static struct metric_detail detail[(NR + 1) * NM];
	static const char *const names[] = {
	    "util", "irq%", "softirq", "ipc", "a_rather_long_metric_name_x", "x"};
	static const char *const units[] = {"%", "", " GB/s", "/s"};
	int bad = 0, n = 0;
	for (int i = 0; i < 20000; i++) {
		struct snapshot snap = {0};
		snap.nmetrics = 1 + (int)rnd(NM);
		snap.nrows = (int)rnd(NR);
		snap.metrics = metrics;
		snap.detail = rnd(20) ? detail : NULL;
		for (int m = 0; m < snap.nmetrics; m++) {
			snprintf(metrics[m].name, sizeof(metrics[m].name), "%s",
				 names[rnd(sizeof(names) / sizeof(names[0]))]);
			snprintf(metrics[m].unit, sizeof(metrics[m].unit), "%s",
				 units[rnd(sizeof(units) / sizeof(units[0]))]);
		}
		for (int k = 0; k < (snap.nrows + 1) * snap.nmetrics; k++) {
			detail[k].coarse = rnd(4) == 0;
			detail[k].resolution =
			    rnd(4) ? (double)rnd(1001) / 100.0 : rnd_double(false);
		}
		size_t len = i % 3 == 0 ? 1 + rnd(300) : 512;
		char want[512], got[512];
		memset(want, 'W', sizeof(want));
		memset(got, 'W', sizeof(got));
		ref_legend(&snap, want, len);
		output_coarse_legend(&snap, got, len);
		n++;
		if (memcmp(want, got, sizeof(want)) != 0 && bad++ < 5)
			CHECK(0, "len %zu: \"%.*s\", want \"%.*s\"", len, (int)len - 1, got,
			      (int)len - 1, want);
	}
	CHECK(bad == 0, "%d of %d legends differ", bad, n);
}

int main(void)
{
	test_status();
	test_legend();
	return harness_done();
}

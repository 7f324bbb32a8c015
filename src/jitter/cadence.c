/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cadence.c: the sampler's own honesty: tick lateness, missed ticks, drift and self CPU use. */
#include "cadence.h"

#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The report's percentiles over the lateness window, kept incrementally: scratch[0, W) holds the
 * window sorted as it was sorted_behind wake-ups ago, and each wake-up since notes the value it
 * pushed out; a report slides those in (stats_sorted_slide) and reads p50, p99 and max by rank.
 * Reports further apart than CADENCE_SLIDE_MAX wake-ups (a long refresh over short samples)
 * select on a copy as before, since catching up would cost more; the next report that follows
 * closely sorts the window once and slides from then on. Lateness is an integer count of ns (no
 * NaN, no -0.0), so the ranks give the selection's values bit for bit.
 */
enum { SORTED_YES, SORTED_NEXT /* none: sort at the next report that follows closely */ };

static int cmp_late(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void cadence_init(struct cadence *c, int64_t t0_ns, int64_t period_ns)
{
	/* all but the two buffers (32 KiB), which are written before they are read: the ring's
	 * slots as ticks come, the scratch as far as a report sorts or copies the ring (and the
	 * values pushed out of a full ring) */
	memset(c, 0, offsetof(struct cadence, late_buf)); /* the buffers are last */
	c->t0_ns = t0_ns;
	c->period_ns = period_ns;
	c->self_cpu = -1;
	c->self_pct = NAN;
	series_ring_init(&c->late, c->late_buf, CADENCE_WINDOW);
	c->sorted_behind = 0;
	c->sorted_state = SORTED_YES; /* the empty window, sorted */
}

void cadence_tick_at(struct cadence *c, int64_t wake_ns, int64_t deadline_ns, uint64_t expirations)
{
	if (expirations == 0)
		expirations = 1;
	int64_t late = wake_ns - deadline_ns;
	if (c->ticks == 0 || late > c->late_max_ns)
		c->late_max_ns = late;
	if (c->ticks > 0 && 2 * (wake_ns - c->last_wake_ns) > 3 * c->period_ns)
		c->long_intervals++;
	c->k += expirations;
	c->missed += expirations - 1;
	c->ticks++;
	c->last_wake_ns = wake_ns;
	c->drift_ns = wake_ns - (c->t0_ns + (int64_t)c->k * c->period_ns);
	if (c->sorted_behind < CADENCE_SLIDE_MAX && c->late.len == c->late.cap)
		c->scratch[CADENCE_WINDOW + c->sorted_behind] =
		    series_ring_get(&c->late, c->late.cap - 1);
	if (c->sorted_behind <= CADENCE_SLIDE_MAX)
		c->sorted_behind++;
	series_ring_push(&c->late, (double)late);
}

void cadence_tick(struct cadence *c, int64_t wake_ns, uint64_t expirations)
{
	if (expirations == 0)
		expirations = 1;
	int64_t deadline = c->t0_ns + (int64_t)(c->k + expirations) * c->period_ns;
	cadence_tick_at(c, wake_ns, deadline, expirations);
}

void cadence_self_sample(struct cadence *c, int64_t cpu_ns, int64_t wall_ns, int cpu)
{
	if (c->self_samples > 0 && wall_ns > c->self_wall_ns) {
		c->self_pct =
		    100.0 * (double)(cpu_ns - c->self_cpu_ns) / (double)(wall_ns - c->self_wall_ns);
		/* one thread uses at most one CPU: more is the skew of the two clocks' reads
		 * over a short window (a batch replay runs flat out) */
		if (c->self_pct > 100)
			c->self_pct = 100;
	}
	c->self_cpu_ns = cpu_ns;
	c->self_wall_ns = wall_ns;
	c->self_cpu = cpu;
	c->self_samples++;
}

void cadence_self_save(const struct cadence *c, struct cadence_self *out)
{
	*out = (struct cadence_self){c->self_cpu_ns, c->self_wall_ns, c->self_samples, c->self_pct,
				     c->self_cpu};
}

void cadence_self_restore(struct cadence *c, const struct cadence_self *in)
{
	c->self_cpu_ns = in->cpu_ns;
	c->self_wall_ns = in->wall_ns;
	c->self_samples = in->samples;
	c->self_pct = in->pct;
	c->self_cpu = in->cpu;
}

void cadence_report(struct cadence *c, struct cadence_report *out)
{
	memset(out, 0, sizeof(*out));
	out->ticks = c->ticks;
	out->missed = c->missed;
	out->long_intervals = c->long_intervals;
	out->max_all_ns = c->late_max_ns;
	out->drift_ns = c->drift_ns;
	out->self_pct = c->self_pct;
	out->self_cpu = c->self_cpu;
	/* p50, p99 and max only (lateness is always finite): no MAD, no full statistics */
	size_t n = c->late.len;
	out->available = n > 0;
	double *sorted = c->scratch;
	if (c->sorted_state == SORTED_YES && c->sorted_behind <= CADENCE_SLIDE_MAX) {
		/* catch up: the wake-ups since, oldest first, each with what it pushed out of a
		 * full ring */
		uint64_t held = c->late.pushed - c->sorted_behind;
		size_t len = held < c->late.cap ? (size_t)held : c->late.cap;
		for (unsigned i = 0; i < c->sorted_behind; i++) {
			bool evict = len == c->late.cap;
			double old = evict ? c->scratch[CADENCE_WINDOW + i] : 0;
			double v = series_ring_get(&c->late, c->sorted_behind - 1 - i);
			len = stats_sorted_slide(sorted, len, evict, old, v);
		}
		c->sorted_behind = 0;
	} else if (c->sorted_state == SORTED_NEXT && c->sorted_behind <= CADENCE_SLIDE_MAX) {
		/* reports follow closely again: sort once, slide from now on */
		series_ring_last(&c->late, n, sorted);
		qsort(sorted, n, sizeof(*sorted), cmp_late);
		c->sorted_state = SORTED_YES;
		c->sorted_behind = 0;
	} else {
		/* the copy takes the sorted copy's place: there is none until the next sort */
		series_ring_last(&c->late, n, sorted);
		if (n > 0) {
			out->max_ns = stats_percentile_select(sorted, n, 1);
			out->p99_ns = stats_percentile_select(sorted, n, 0.99);
			out->p50_ns = stats_percentile_select(sorted, n, 0.5);
		}
		c->sorted_state = SORTED_NEXT;
		c->sorted_behind = 0;
		return;
	}
	if (n > 0) {
		out->max_ns = stats_percentile_sorted(sorted, n, 1);
		out->p99_ns = stats_percentile_sorted(sorted, n, 0.99);
		out->p50_ns = stats_percentile_sorted(sorted, n, 0.5);
	}
}

bool cadence_late(const struct cadence_report *r)
{
	return r->available && r->p99_ns > CADENCE_LATE_NS;
}

bool cadence_realtime(void)
{
	int policy = sched_getscheduler(0);
	if (policy < 0)
		return false;
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == 6; /* 6: SCHED_DEADLINE */
}

int cadence_self_read(int64_t *cpu_ns, int64_t *wall_ns, int *cpu)
{
	struct timespec a, b;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a) < 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &b) < 0)
		return -1;
	*cpu_ns = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec;
	*wall_ns = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
	*cpu = sched_getcpu();
	return 0;
}

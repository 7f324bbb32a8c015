/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cadence.c: the sampler's own honesty: tick lateness, missed ticks, drift and self CPU use. */
#include "cadence.h"

#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

void cadence_init(struct cadence *c, int64_t t0_ns, int64_t period_ns)
{
	/* all but the two buffers (32 KiB), which are written before they are read: the ring's
	 * slots as ticks come, the scratch as far as a report copies the ring */
	memset(c, 0, offsetof(struct cadence, late_buf));
	memset(&c->self_cpu_ns, 0, sizeof(*c) - offsetof(struct cadence, self_cpu_ns));
	c->t0_ns = t0_ns;
	c->period_ns = period_ns;
	c->self_cpu = -1;
	c->self_pct = NAN;
	series_ring_init(&c->late, c->late_buf, CADENCE_WINDOW);
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
	size_t n = series_ring_last(&c->late, c->late.len, c->scratch);
	out->available = n > 0;
	if (n > 0) {
		out->max_ns = stats_percentile_select(c->scratch, n, 1);
		out->p99_ns = stats_percentile_select(c->scratch, n, 0.99);
		out->p50_ns = stats_percentile_select(c->scratch, n, 0.5);
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

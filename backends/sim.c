/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.c: deterministic simulated counters for any number of CPUs (wrap, multiplexing, faults). */
#include "cpuset.h"
#include "source.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an event's rate follows the CPU's simulated utilisation. */
enum sim_follow { SIM_FIXED, SIM_BUSY, SIM_IDLE };

struct sim_event {
	double rate;		 /* events per second at 100% utilisation (SIM_IDLE: at 0%) */
	enum sim_follow follows; /* scales with the utilisation, or with the idle share */
	int spiky;   /* on spike ticks: +1 multiplied by spike_factor, -1 divided (a stall) */
	bool steady; /* a clock: no random wander */
};

struct sim_priv {
	struct sim_opts opts;
	int nrows, nevents;
	int *cpus;
	struct sim_event *ev;
	struct raw_count *acc; /* cumulative, unmasked: [row * nevents + e] */
	double *frac;	       /* fractional carry per counter */
	uint64_t tick;
	uint64_t t_ns; /* virtual time of the last read */
	int cur_set, nsets;
	struct backend_event *set_of; /* each event's sets (set, also_in) */
};

void sim_opts_default(struct sim_opts *o)
{
	*o = (struct sim_opts){
	    .seed = 1,
	    .counter_bits = 64,
	    .mux_fraction = 1.0,
	    .fail_event = -1,
	    .offline_cpu = -1,
	    .offline_from = -1,
	    .offline_to = -1,
	    .spike_cpu = -1,
	    .spike_every = 0,
	    .spike_factor = 4.0,
	    .ncpus = 4,
	};
}

/* splitmix64: a small, well-mixed deterministic hash. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Uniform in [0, 1) from (seed, a, b, c). */
static double unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = mix(seed ^ mix(a ^ mix(b ^ mix(c))));
	return (double)(h >> 11) / 9007199254740992.0;
}

static bool name_has(const char *name, const char *word)
{
	char low[256];
	size_t i = 0;
	for (; name[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	return strstr(low, word) != NULL;
}

/* A plausible rate per event, chosen from the alias and the spec. */
static struct sim_event profile(const struct backend_event *e)
{
	char both[256];
	snprintf(both, sizeof(both), "%s %s", e->name, e->spec);
	static const struct {
		const char *word;
		double rate;
		enum sim_follow follows;
		int spiky;
		bool steady;
	} table[] = {
	    {"clock", 1e9, SIM_FIXED, 0, true},	 /* ns per second: counts idle time too */
	    {"busy", 1e9, SIM_BUSY, 0, false},	 /* proc/busy/: ns per second of busy time */
	    {"idle", 1e9, SIM_IDLE, 0, false},	 /* proc/idle/: ns per second of idle time */
	    {"mperf", 2.6e9, SIM_BUSY, 0, true}, /* msr/mperf/: TSC rate while not halted */
	    {"tsc", 2.6e9, SIM_FIXED, 0, true},
	    {"migration", 3, SIM_FIXED, 0, false},
	    {"switch", 800, SIM_BUSY, 0, false},
	    {"cs", 800, SIM_BUSY, 0, false},
	    {"fault", 200, SIM_BUSY, 0, false},
	    {"miss", 2e6, SIM_BUSY, 1, false},
	    {"refill", 2e6, SIM_BUSY, 1, false},
	    {"walk", 4e5, SIM_BUSY, 1, false},
	    {"stall", 3e8, SIM_BUSY, 1, false},
	    {"wb", 1e6, SIM_BUSY, 0, false},
	    {"write", 1e6, SIM_BUSY, 0, false},
	    {"instr", 3e9, SIM_BUSY, -1,
	     false}, /* a stall: fewer instructions in the same cycles */
	    {"inst", 3e9, SIM_BUSY, -1, false},
	    {"cycle", 2.4e9, SIM_BUSY, 0, false},
	    {"ccnt", 2.4e9, SIM_BUSY, 0, false},
	    {"access", 9e8, SIM_BUSY, 0, false},
	    {"load", 9e8, SIM_BUSY, 0, false},
	    {"ref", 3e7, SIM_BUSY, 0, false},
	    {"branch", 5e8, SIM_BUSY, 0, false},
	    {"offcore", 5e6, SIM_BUSY, 1, false},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (name_has(both, table[i].word))
			return (struct sim_event){table[i].rate, table[i].follows, table[i].spiky,
						  table[i].steady};
	return (struct sim_event){1e7, SIM_BUSY, 0, false};
}

static int sim_open(struct backend *b, const struct backend_req *req, char *err, size_t errlen)
{
	struct sim_priv *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->priv = p;
	if (req->inst)
		p->opts = *(const struct sim_opts *)req->inst;
	else
		sim_opts_default(&p->opts);
	p->nrows = req->ncpus;
	p->nevents = req->nevents;
	size_t cells = (size_t)req->ncpus * (size_t)req->nevents + 1;
	p->cpus = calloc((size_t)req->ncpus + 1, sizeof(int));
	p->ev = calloc((size_t)req->nevents + 1, sizeof(*p->ev));
	p->set_of = calloc((size_t)req->nevents + 1, sizeof(*p->set_of));
	p->acc = calloc(cells, sizeof(*p->acc));
	p->frac = calloc(cells, sizeof(double));
	b->status = calloc(cells, sizeof(*b->status));
	if (!p->cpus || !p->ev || !p->acc || !p->frac || !b->status || !p->set_of) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(p->cpus, req->cpus, (size_t)req->ncpus * sizeof(int));
	p->nsets = req->nsets > 1 ? req->nsets : 1;
	for (int e = 0; e < req->nevents; e++) {
		p->ev[e] = profile(&req->events[e]);
		p->set_of[e] = req->events[e];
	}
	b->nrows = req->ncpus;
	b->nevents = req->nevents;
	b->counter_bits = p->opts.counter_bits ? p->opts.counter_bits : 64;
	b->simulated = true;
	int usable = 0;
	for (int r = 0; r < req->ncpus; r++)
		for (int e = 0; e < req->nevents; e++) {
			struct backend_status *st = &b->status[r * req->nevents + e];
			snprintf(st->encoding, sizeof(st->encoding), "simulated %.140s",
				 req->events[e].spec);
			if (e == p->opts.fail_event) {
				st->supported = false;
				st->err = ENOENT;
				snprintf(st->reason, sizeof(st->reason),
					 "simulated fault: this event never opens");
			} else {
				st->supported = true;
				usable++;
			}
		}
	snprintf(b->description, sizeof(b->description), "SIMULATED (seed %llu)",
		 (unsigned long long)p->opts.seed);
	if (!usable) {
		snprintf(err, errlen, "no simulated event can be counted");
		return -1;
	}
	return 0;
}

static int sim_read(struct backend *b, uint64_t nominal_ns, struct raw_count *out, bool *present,
		    bool *offline, uint64_t *t_ns, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct sim_priv *p = b->priv;
	const struct sim_opts *o = &p->opts;
	p->tick++;
	uint64_t dt =
	    nominal_ns ? nominal_ns : 1000000000ULL; /* virtual time: the tick asked for */
	p->t_ns += dt;
	*t_ns = p->t_ns;
	uint64_t mask = b->counter_bits >= 64 ? ~0ULL : (1ULL << b->counter_bits) - 1;
	for (int r = 0; r < p->nrows; r++) {
		int cpu = p->cpus[r];
		/* read 1 primes the deltas, so output tick k is read k + 1 */
		int64_t out_tick = (int64_t)p->tick - 1;
		bool off = cpu == o->offline_cpu && out_tick >= o->offline_from &&
			   out_tick <= o->offline_to;
		offline[r] = off;
		/* Utilisation drifts slowly per CPU: a base level plus a small deterministic
		 * jitter. */
		double util = 0.25 + 0.6 * unit(o->seed, (uint64_t)cpu, 0, 0) +
			      0.1 * (unit(o->seed, (uint64_t)cpu, p->tick, 1) - 0.5);
		if (util > 1)
			util = 1;
		bool spike = o->spike_every > 0 && cpu == o->spike_cpu &&
			     p->tick % (uint64_t)o->spike_every == 0;
		for (int e = 0; e < p->nevents; e++) {
			size_t i = (size_t)r * p->nevents + e;
			present[i] = !off && b->status[i].supported;
			if (!present[i]) {
				out[i] = (struct raw_count){0};
				continue;
			}
			struct raw_count *a = &p->acc[i];
			double frac =
			    o->mux_fraction > 0 && o->mux_fraction < 1 ? o->mux_fraction : 1.0;
			bool active =
			    p->nsets <= 1 || backend_event_in_set(&p->set_of[e], p->cur_set);
			uint64_t run = active ? (uint64_t)((double)dt * frac) : 0;
			/* clocks tick steadily; event counts wander by +-10% */
			double jitter = p->ev[e].steady
					    ? 1.0
					    : 0.9 + 0.2 * unit(o->seed, (uint64_t)cpu, p->tick,
							       (uint64_t)e + 2);
			double share = p->ev[e].follows == SIM_BUSY   ? util
				       : p->ev[e].follows == SIM_IDLE ? 1.0 - util
								      : 1.0;
			double rate = p->ev[e].rate * share * jitter;
			if (spike && p->ev[e].spiky > 0)
				rate *= o->spike_factor;
			else if (spike && p->ev[e].spiky < 0)
				rate /= o->spike_factor;
			double inc = rate * (double)run / 1e9 + p->frac[i];
			uint64_t whole = (uint64_t)inc;
			p->frac[i] = inc - (double)whole;
			a->value += whole;
			a->enabled += dt;
			a->running += run;
			out[i] = (struct raw_count){a->value & mask, a->enabled, a->running};
		}
	}
	return 0;
}

static void sim_select_set(struct backend *b, int set)
{
	struct sim_priv *p = b->priv;
	p->cur_set = p->nsets > 1 ? set % p->nsets : 0;
}

static void sim_close(struct backend *b)
{
	struct sim_priv *p = b->priv;
	if (!p)
		return;
	free(p->cpus);
	free(p->ev);
	free(p->set_of);
	free(p->acc);
	free(p->frac);
	free(p);
	b->priv = NULL;
}

static void sim_cpus(const void *inst, struct cpuset *out)
{
	const struct sim_opts *o = inst;
	cpuset_clear(out);
	for (int c = 0; c < o->ncpus; c++)
		cpuset_add(out, c);
}

const struct source_ops source_sim_ops = {
    .name = "sim",
    .kind = SOURCE_SIM,
    .caps = SOURCE_CAP_SIMULATED | SOURCE_CAP_VIRTUAL_TIME,
    .cpus = sim_cpus,
    .open = sim_open,
    .read = sim_read,
    .select_set = sim_select_set,
    .close = sim_close,
};

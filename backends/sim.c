/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim.c: deterministic simulated counters for any number of CPUs (wrap, multiplexing, faults). */
#include "cpuset.h"
#include "family.h"
#include "mix.h"
#include "source.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How an event's rate follows the CPU's simulated utilisation. */
enum sim_follow { SIM_FIXED, SIM_BUSY, SIM_IDLE };

struct sim_event {
	double rate;		 /* events per second at 100% utilisation (SIM_IDLE: at 0%) */
	enum sim_follow follows; /* scales with the utilisation, or with the idle share */
	int spiky;   /* on spike ticks: +1 multiplied by spike_factor, -1 divided (a stall) */
	bool steady; /* a clock: no random wander */
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
	    .shift_cpu = -1,
	    .shift_factor = 1.0,
	    .ncpus = 4,
	    .slots = SIM_SLOTS,
	};
}

/* Uniform in [0, 1) from (seed, a, b, c). */
static double unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c))));
	return (double)(h >> 11) / 9007199254740992.0;
}

/* The noise model: each random part of a count (an event's wander, the utilisation's, the
 * top-down split's, a task's demand) is drawn afresh per tick, uniform, with a half-width that
 * shrinks as 1/sqrt(tick length) from its value at a 10 ms tick, as a sum of independent
 * per-millisecond parts does: +-10 % at 10 ms, +-1 % at 1 s, +-32 % at 1 ms. A window of n ticks
 * sums n draws, so its relative spread falls the same way with the window's length. Capped at
 * @cap times the 10 ms spread (counts stay positive, shares in their ranges). */
static double spread(uint64_t dt_ns, double cap)
{
	double k = dt_ns ? sqrt(1e7 / (double)dt_ns) : cap;
	return k < cap ? k : cap;
}

/* Top-down events (modes/topdown*.mode, stallcycles.mode): counts that are sub-counts of the
 * issue slots of the same tick, so the shares they give add up to 100 %. */
enum td_role {
	TD_NONE,
	TD_CYCLES,	 /* core cycles C */
	TD_SLOTS,	 /* W x C */
	TD_FE,		 /* frontend-bound slots */
	TD_FE_LAT,	 /* fetch-latency slots */
	TD_FE_LAT_CYC,	 /* fetch-latency slots / W (cycles with nothing delivered) */
	TD_FE_CYC,	 /* Silvermont: frontend share of cycles */
	TD_BS,		 /* bad-speculation slots */
	TD_BS_CYC,	 /* Silvermont: bad-speculation share of cycles */
	TD_BR,		 /* branch-mispredict slots */
	TD_BR_N,	 /* mispredicted branches (against TD_MC_N: the mispredict share) */
	TD_MC_N,	 /* machine clears */
	TD_ISSUED,	 /* retired slots + 60 % of the bad-speculation slots */
	TD_RECOVERY,	 /* the other 40 %, in slots */
	TD_RECOVERY_CYC, /* the same in cycles (x 4 in the formula) */
	TD_DISPATCHED,	 /* retired + bad-speculation slots (Zen 4 dispatched, Arm OP_SPEC) */
	TD_RET,		 /* retired slots */
	TD_HEAVY,	 /* heavy-operation slots */
	TD_MS_UOPS,	 /* microcode uops: heavy slots x issued / retired */
	TD_BE,		 /* backend-bound slots */
	TD_MEM,		 /* memory-bound slots */
	TD_STALL_SLOT,	 /* Arm STALL_SLOT: frontend + backend slots */
	TD_STALLS_MEM,	 /* Skylake memory-bound stall cycles (see td_value) */
	TD_BOUND_STORES, /* ... stores */
	TD_STALLS_TOTAL, /* ... all stalls */
	TD_PORTS1,	 /* ... cycles with 1 port busy */
	TD_PORTS2,	 /* ... 2 ports */
	TD_NR_LOAD,	 /* Zen 4 no-retire cycles waiting for a load */
	TD_NR_ALL,	 /* ... for anything */
	TD_FE_QUARTER,	 /* Cortex-A53 0xE0-0xE3: a quarter of the frontend stall cycles each */
	TD_BE_FIFTH,	 /* Cortex-A53 0xE4-0xE8: a fifth of the backend stall cycles each */
};

struct td_spec {
	const char *family; /* NULL: any */
	const char *spec;   /* as the mode file writes it (case-insensitive) */
	enum td_role role;
	bool marker; /* only top-down modes count it: its presence makes the mode's counts
		      * top-down ones (the other events are shared with other modes) */
};

static const struct td_spec td_specs[] = {
    {NULL, "perf::CYCLES", TD_CYCLES, false},
    {"zen4", "@::CYCLES_NOT_IN_HALT", TD_CYCLES, false},
    {"armv8", "r11", TD_CYCLES, false},
    {NULL, "cpu/slots/", TD_SLOTS, true},
    {NULL, "cpu/topdown-retiring/", TD_RET, true},
    {NULL, "cpu/topdown-bad-spec/", TD_BS, true},
    {NULL, "cpu/topdown-fe-bound/", TD_FE, true},
    {NULL, "cpu/topdown-be-bound/", TD_BE, true},
    {NULL, "cpu/topdown-heavy-ops/", TD_HEAVY, true},
    {NULL, "cpu/topdown-br-mispredict/", TD_BR, true},
    {NULL, "cpu/topdown-fetch-lat/", TD_FE_LAT, true},
    {NULL, "cpu/topdown-mem-bound/", TD_MEM, true},
    {NULL, "@::IDQ_UOPS_NOT_DELIVERED:CORE", TD_FE, true},
    {NULL, "@::IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", TD_FE_LAT_CYC, true},
    {NULL, "@::UOPS_ISSUED:ANY", TD_ISSUED, true},
    {NULL, "@::UOPS_RETIRED:RETIRE_SLOTS", TD_RET, true},
    {NULL, "@::INT_MISC:RECOVERY_CYCLES", TD_RECOVERY_CYC, true},
    {NULL, "@::BR_MISP_RETIRED:ALL_BRANCHES", TD_BR_N, false},
    {NULL, "@::MACHINE_CLEARS:COUNT", TD_MC_N, true},
    {NULL, "@::IDQ:MS_UOPS", TD_MS_UOPS, true},
    {NULL, "@::CYCLE_ACTIVITY:STALLS_MEM_ANY", TD_STALLS_MEM, false},
    {NULL, "@::EXE_ACTIVITY:BOUND_ON_STORES", TD_BOUND_STORES, true},
    {NULL, "@::CYCLE_ACTIVITY:STALLS_TOTAL", TD_STALLS_TOTAL, true},
    {NULL, "@::EXE_ACTIVITY:1_PORTS_UTIL", TD_PORTS1, true},
    {NULL, "@::EXE_ACTIVITY:2_PORTS_UTIL", TD_PORTS2, true},
    {"slm", "@::NO_ALLOC_CYCLES:NOT_DELIVERED", TD_FE_CYC, true},
    {"slm", "@::NO_ALLOC_CYCLES:MISPREDICTS", TD_BS_CYC, true},
    {NULL, "@::UOPS_RETIRED:ANY", TD_RET, true},
    {"glm", "@::UOPS_NOT_DELIVERED:ANY", TD_FE, true},
    {"glm", "@::ISSUE_SLOTS_NOT_CONSUMED:RECOVERY", TD_RECOVERY, true},
    {"tmt", "r71", TD_FE, true},
    {"tmt", "r73", TD_BS, true},
    {"tmt", "r74", TD_BE, true},
    {"tmt", "rc2", TD_RET, true},
    {"zen4", "@::DISPATCH_STALLS_1:FE_NO_OPS", TD_FE, true},
    {"zen4", "@::DISPATCH_STALLS_1:BE_STALLS", TD_BE, true},
    {"zen4", "@::OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", TD_DISPATCHED,
     true},
    {"zen4", "@::RETIRED_OPS", TD_RET, true},
    {"zen4", "@::DISPATCH_STALLS_1:FE_NO_OPS:c=6", TD_FE_LAT_CYC, true},
    {"zen4", "@::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", TD_BR_N, true},
    {"zen4", "@::RESYNCS", TD_MC_N, true},
    {"zen4", "@::CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD", TD_NR_LOAD, true},
    {"zen4", "@::CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU", TD_NR_ALL, true},
    {"zen4", "@::RETIRED_UCODE_OPS", TD_HEAVY, true},
    {"armv8", "r3f", TD_STALL_SLOT, true},
    {"armv8", "r3e", TD_FE, true},
    {"armv8", "r3d", TD_BE, true},
    {"armv8", "r3a", TD_RET, true},
    {"armv8", "r3b", TD_DISPATCHED, true},
    {"cortex_a53", "re0", TD_FE_QUARTER, true},
    {"cortex_a53", "re1", TD_FE_QUARTER, false}, /* ifetch.mode counts it too */
    {"cortex_a53", "re2", TD_FE_QUARTER, true},
    {"cortex_a53", "re3", TD_FE_QUARTER, true},
    {"cortex_a53", "re4", TD_BE_FIFTH, true},
    {"cortex_a53", "re5", TD_BE_FIFTH, true},
    {"cortex_a53", "re6", TD_BE_FIFTH, true},
    {"cortex_a53", "re7", TD_BE_FIFTH, false}, /* stall.mode counts it too */
    {"cortex_a53", "re8", TD_BE_FIFTH, true},
};

/* Issue slots per cycle of the simulated family (the widths docs/topdown.md names). */
static double td_width(const struct pmu_family *fam, unsigned arm_slots)
{
	static const struct {
		const char *family;
		double width;
	} widths[] = {{"zen4", 6}, {"spr", 6}, {"icl", 5}, {"icx", 5},
		      {"tmt", 4},  {"glm", 3}, {"slm", 2}};
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (family_is_a(fam, widths[i].family))
			return widths[i].width;
	if (family_is_a(fam, "armv8"))
		return arm_slots ? arm_slots : SIM_SLOTS;
	return 4;
}

static enum td_role td_role_of(const struct pmu_family *fam, const char *spec, bool *marker)
{
	for (size_t i = 0; i < sizeof(td_specs) / sizeof(td_specs[0]); i++)
		if ((!td_specs[i].family || family_is_a(fam, td_specs[i].family)) &&
		    strcasecmp(spec, td_specs[i].spec) == 0) {
			*marker = td_specs[i].marker;
			return td_specs[i].role;
		}
	*marker = false;
	return TD_NONE;
}

/* One CPU's top-down split in one tick: shares of the slots it had. */
struct td_split {
	double cycles, width;
	double slots;		       /* width x cycles */
	double thread_slots;	       /* what is left after SMT contention (Zen 4) */
	double fe, bs, be, ret;	       /* fractions of thread_slots, adding up to 1 */
	double fe_lat, br, mem, heavy; /* fractions of their level-1 share */
};

static struct td_split td_split_of(uint64_t seed, int cpu, uint64_t tick, double cycles,
				   double width, bool smt, uint64_t dt)
{
	struct td_split t = {.cycles = cycles, .width = width, .slots = width * cycles};
	/* each share wanders about the middle of its range, over the whole range at 10 ms ticks
	 * and less in longer ones (spread() capped at 1: shorter ticks keep the range) */
	double u[9], k = spread(dt, 1);
	for (int j = 0; j < 9; j++)
		u[j] = 0.5 + k * (unit(seed, (uint64_t)cpu, tick, 100 + (uint64_t)j) - 0.5);
	t.fe = 0.10 + 0.20 * u[0];
	t.bs = 0.03 + 0.10 * u[1];
	t.ret = 0.15 + 0.35 * u[2];
	t.be = 1 - t.fe - t.bs - t.ret; /* at least 0.07 */
	t.thread_slots = t.slots * (smt ? 0.95 - 0.05 * u[3] : 1);
	t.fe_lat = 0.40 + 0.40 * u[4];
	t.br = 0.60 + 0.35 * u[5];
	t.mem = 0.30 + 0.40 * u[6];
	t.heavy = 0.05 + 0.20 * u[7];
	return t;
}

/* Cortex-A53's IQ-empty (0xE0-0xE3) and interlock/Wr-stall (0xE4-0xE8) counts split their stall
 * cycles unevenly, as a core's causes do (equal sub-counts tick after tick are what a PMU that
 * does not count them reads): the weight of event @spec's part, the parts adding up to 1. */
static double td_share(enum td_role role, const char *spec)
{
	static const double fe[4] = {1.6, 1.2, 0.8, 0.4}, be[5] = {1.5, 1.25, 1.0, 0.75, 0.5};
	size_t n = strlen(spec);
	int d = n ? spec[n - 1] - '0' : -1;
	if (role == TD_FE_QUARTER && d >= 0 && d < 4)
		return fe[d];
	if (role == TD_BE_FIFTH && d >= 4 && d < 9)
		return be[d - 4];
	return 1;
}

/* The count of @role in a tick of @t (at full running time). */
static double td_value(const struct td_split *t, enum td_role role)
{
	double st = t->thread_slots, c = t->cycles;
	/* Skylake's memory-bound ratio (STALLS_MEM_ANY + BOUND_ON_STORES) / (STALLS_TOTAL +
	 * 1_PORTS_UTIL + retiring x 2_PORTS_UTIL + BOUND_ON_STORES) made to equal t->mem */
	double be_c = t->be * c, denom = be_c * (0.70 + 0.15 + 0.10 * t->ret + 0.05);
	switch (role) {
	case TD_CYCLES:
		return c;
	case TD_SLOTS:
		return t->slots;
	case TD_FE:
		return t->fe * st;
	case TD_FE_LAT:
		return t->fe * t->fe_lat * st;
	case TD_FE_LAT_CYC:
		return t->fe * t->fe_lat * st / t->width;
	case TD_FE_CYC:
		return t->fe * c;
	case TD_BS:
		return t->bs * st;
	case TD_BS_CYC:
		return t->bs * c;
	case TD_BR:
		return t->bs * t->br * st;
	case TD_BR_N:
		return t->bs * t->br * st / 20;
	case TD_MC_N:
		return t->bs * (1 - t->br) * st / 20;
	case TD_ISSUED:
		return (t->ret + 0.6 * t->bs) * st;
	case TD_RECOVERY:
		return 0.4 * t->bs * st;
	case TD_RECOVERY_CYC:
		return 0.4 * t->bs * st / 4;
	case TD_DISPATCHED:
		return (t->ret + t->bs) * st;
	case TD_RET:
		return t->ret * st;
	case TD_HEAVY:
		return t->ret * t->heavy * st;
	case TD_MS_UOPS:
		return t->heavy * (t->ret + 0.6 * t->bs) * st;
	case TD_BE:
		return t->be * st;
	case TD_MEM:
		return t->be * t->mem * st;
	case TD_STALL_SLOT:
		return (t->fe + t->be) * st;
	case TD_STALLS_MEM:
		return t->mem * denom - 0.05 * be_c;
	case TD_BOUND_STORES:
		return 0.05 * be_c;
	case TD_STALLS_TOTAL:
		return 0.70 * be_c;
	case TD_PORTS1:
		return 0.15 * be_c;
	case TD_PORTS2:
		return 0.10 * be_c;
	case TD_NR_LOAD:
		return t->mem * 0.8 * be_c;
	case TD_NR_ALL:
		return 0.8 * be_c;
	case TD_FE_QUARTER:
		return t->fe * c / 4;
	case TD_BE_FIFTH:
		return t->be * c / 5;
	case TD_NONE:
		break;
	}
	return 0;
}

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
	enum td_role *role;	      /* per event; all TD_NONE unless the mode is top-down */
	double td_width;	      /* issue slots per cycle */
	bool td_smt;		      /* the family has an SMT-contention share (Zen 4) */
	double *truth;	/* --sim-truth: each counter's true count over the last read's tick */
	int *pids;	/* [nrows]: the task a row counts (-1: the row's CPU), NULL: all CPUs */
	int *task_cpu;	/* [nrows]: where the row's task runs this tick */
	double *share;	/* [nrows]: its share of that CPU's busy time this tick */
	double *demand; /* [opts.ncpus]: the demands of the tasks on each CPU this tick */
};

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
	    /* before "inst": BR_INST_RETIRED, RETIRED_BRANCH_INSTRUCTIONS are branches */
	    {"branch", 5e8, SIM_BUSY, 0, false},
	    {"instr", 3e9, SIM_BUSY, -1,
	     false}, /* a stall: fewer instructions in the same cycles */
	    {"inst", 3e9, SIM_BUSY, -1, false},
	    {"cycle", 2.4e9, SIM_BUSY, 0, false},
	    {"ccnt", 2.4e9, SIM_BUSY, 0, false},
	    {"access", 9e8, SIM_BUSY, 0, false},
	    {"load", 9e8, SIM_BUSY, 0, false},
	    {"ref", 3e7, SIM_BUSY, 0, false},
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
	p->role = calloc((size_t)req->nevents + 1, sizeof(*p->role));
	p->truth = calloc(cells, sizeof(double));
	if (req->pids) {
		p->pids = calloc((size_t)req->ncpus + 1, sizeof(int));
		p->task_cpu = calloc((size_t)req->ncpus + 1, sizeof(int));
		p->share = calloc((size_t)req->ncpus + 1, sizeof(double));
		p->demand = calloc((size_t)(p->opts.ncpus > 0 ? p->opts.ncpus : 1), sizeof(double));
		if (!p->pids || !p->task_cpu || !p->share || !p->demand) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(p->pids, req->pids, (size_t)req->ncpus * sizeof(int));
	}
	b->status = calloc(cells, sizeof(*b->status));
	if (!p->cpus || !p->ev || !p->acc || !p->frac || !b->status || !p->set_of || !p->role ||
	    !p->truth) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(p->cpus, req->cpus, (size_t)req->ncpus * sizeof(int));
	p->nsets = req->nsets > 1 ? req->nsets : 1;
	bool top_down = false;
	for (int e = 0; e < req->nevents; e++) {
		p->ev[e] = profile(&req->events[e]);
		p->set_of[e] = req->events[e];
		bool marker;
		p->role[e] = td_role_of(req->family, req->events[e].spec, &marker);
		top_down |= marker;
	}
	if (!top_down)
		memset(p->role, 0, (size_t)req->nevents * sizeof(*p->role));
	p->td_width = td_width(req->family, p->opts.slots);
	p->td_smt = family_is_a(req->family, "zen4");
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

/* One CPU's state over (part of) a tick: its utilisation and top-down split. */
struct sim_state {
	double util;
	struct td_split td;
};

static struct sim_state sim_state_of(const struct sim_priv *p, uint64_t seed, int cpu, uint64_t dt)
{
	/* Utilisation drifts slowly per CPU: a base level (the run's seed) plus a small
	 * deterministic jitter per tick (+-5 % at 10 ms ticks, see spread()). */
	struct sim_state st;
	st.util = 0.25 + 0.6 * unit(p->opts.seed, (uint64_t)cpu, 0, 0) +
		  0.1 * spread(dt, 3) * (unit(seed, (uint64_t)cpu, p->tick, 1) - 0.5);
	if (st.util > 1)
		st.util = 1;
	/* top-down counts: one split per CPU and tick, of the cycles at this utilisation */
	st.td = td_split_of(seed, cpu, p->tick, 2.4e9 * st.util * (double)dt / 1e9, p->td_width,
			    p->td_smt, dt);
	return st;
}

/* Event @e's count over @run ns of a tick of @dt ns in state @st. */
static double sim_count(const struct sim_priv *p, const struct sim_state *st, uint64_t seed,
			int cpu, int e, bool spike, uint64_t dt, uint64_t run, bool task)
{
	const struct sim_opts *o = &p->opts;
	if (p->role[e] != TD_NONE)
		return td_value(&st->td, p->role[e]) * td_share(p->role[e], p->set_of[e].spec) *
		       (double)run / (double)dt;
	/* clocks tick steadily; event counts wander by +-10 % at 10 ms ticks (see spread()) */
	double jitter = p->ev[e].steady
			    ? 1.0
			    : 1.0 + 0.2 * spread(dt, 3) *
					(unit(seed, (uint64_t)cpu, p->tick, (uint64_t)e + 2) - 0.5);
	double share = p->ev[e].follows == SIM_BUSY   ? st->util
		       : p->ev[e].follows == SIM_IDLE ? 1.0 - st->util
						      : 1.0;
	if (task) /* a task's clocks tick while it runs, it has no idle time */
		share = p->ev[e].follows == SIM_IDLE ? 0 : st->util;
	double rate = p->ev[e].rate * share * jitter;
	if (spike && p->ev[e].spiky > 0)
		rate *= o->spike_factor;
	else if (spike && p->ev[e].spiky < 0)
		rate /= o->spike_factor;
	/* read 1 primes the deltas, so output tick k is read k + 1 */
	if (cpu == o->shift_cpu && p->ev[e].spiky < 0 && (int64_t)p->tick - 1 >= o->shift_tick)
		rate *= o->shift_factor;
	return rate * (double)run / 1e9;
}

/* --- simulated tasks: a row with a task id counts that task, which runs on one CPU at a time and
 * takes a share of its busy time; the shares of the tasks on a CPU add up to 1 at most, so the
 * tasks' counts never exceed their CPUs'. Any id works (-p against the sim too). */

static uint64_t task_hash_id(int pid) { return (uint64_t)(unsigned)pid | (1ULL << 40); }

/* Whether task @pid exists at output tick @t: the last task_churn of --sim-tasks come and go. */
static bool task_alive(const struct sim_opts *o, int pid, int64_t t)
{
	int k = pid - SIM_TASK_PID0, n = o->tasks, c = o->task_churn < n ? o->task_churn : n;
	if (k < n - c || k >= n)
		return true;
	int j = k - (n - c);
	int64_t at = 3 + 2 * (int64_t)j + (int64_t)(4 * unit(o->seed, task_hash_id(pid), 0, 21));
	return j % 2 == 0 ? t < at : t >= at; /* one in two ends at tick @at, the others start */
}

/* The CPU task @pid runs on in read @tick: it migrates every 8 ticks, off an offline CPU. */
static int task_cpu_at(const struct sim_opts *o, int pid, uint64_t tick, int64_t out_tick)
{
	int n = o->ncpus > 0 ? o->ncpus : 1;
	uint64_t epoch = (tick + (uint64_t)(unsigned)pid % 8) / 8;
	int cpu = (int)(unit(o->seed, task_hash_id(pid), epoch, 22) * n) % n;
	if (cpu == o->offline_cpu && out_tick >= o->offline_from && out_tick <= o->offline_to)
		cpu = (cpu + 1) % n;
	return cpu;
}

/* What share of its CPU's busy time task @pid asks for in read @tick of @dt ns (0.08 .. 1; it
 * wanders by +-10 % at 10 ms ticks, see spread()). */
static double task_demand(const struct sim_opts *o, int pid, uint64_t tick, uint64_t dt)
{
	double base = 0.1 + 0.9 * unit(o->seed, task_hash_id(pid), 0, 23);
	return base *
	       (0.9 + 0.2 * spread(dt, 1) * (unit(o->seed, task_hash_id(pid), tick, 24) - 0.5));
}

/* Places this read's live tasks and gives each its share: demand / max(1, the CPU's demand). */
static void place_tasks(struct sim_priv *p, int64_t out_tick, bool *offline, uint64_t dt)
{
	const struct sim_opts *o = &p->opts;
	int ncpu = o->ncpus > 0 ? o->ncpus : 1;
	memset(p->demand, 0, (size_t)ncpu * sizeof(double));
	for (int r = 0; r < p->nrows; r++) {
		if (p->pids[r] < 0)
			continue;
		offline[r] = !task_alive(o, p->pids[r], out_tick);
		p->task_cpu[r] = task_cpu_at(o, p->pids[r], p->tick, out_tick);
		p->share[r] = offline[r] ? 0 : task_demand(o, p->pids[r], p->tick, dt);
		p->demand[p->task_cpu[r]] += p->share[r];
	}
	for (int r = 0; r < p->nrows; r++)
		if (p->pids[r] >= 0 && p->demand[p->task_cpu[r]] > 1)
			p->share[r] /= p->demand[p->task_cpu[r]];
}

extern const struct source_ops source_sim_ops; /* its row, at the end */

int sim_truth(const struct backend *b, const double **truth)
{
	const struct sim_priv *p = b && b->ops == &source_sim_ops ? b->priv : NULL;
	if (!p || !p->opts.truth)
		return -1;
	*truth = p->truth;
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
	/* read 1 primes the deltas, so output tick k is read k + 1 */
	int64_t out_tick = (int64_t)p->tick - 1;
	if (p->pids)
		place_tasks(p, out_tick, offline, dt);
	for (int r = 0; r < p->nrows; r++) {
		bool task = p->pids && p->pids[r] >= 0;
		int cpu = task ? p->task_cpu[r] : p->cpus[r];
		double w = task ? p->share[r] : 1.0; /* the row's share of its CPU's counts */
		bool off = task ? offline[r]
				: cpu == o->offline_cpu && out_tick >= o->offline_from &&
				      out_tick <= o->offline_to;
		offline[r] = off;
		bool spike = o->spike_every > 0 && cpu == o->spike_cpu &&
			     p->tick % (uint64_t)o->spike_every == 0;
		/* the part of the tick the counters ran (a), and with --sim-truth the rest (b),
		 * whose rates are drawn afresh: what a multiplexed count did not see */
		struct sim_state sa = sim_state_of(p, o->seed, cpu, dt);
		struct sim_state sb =
		    o->truth ? sim_state_of(p, mix64(o->seed ^ 0xb), cpu, dt) : sa;
		for (int e = 0; e < p->nevents; e++) {
			size_t i = (size_t)r * p->nevents + e;
			present[i] = !off && b->status[i].supported;
			p->truth[i] = 0;
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
			double inc = w * sim_count(p, &sa, o->seed, cpu, e, spike, dt, run, task) +
				     p->frac[i];
			/* the true count: the first part's rate while the counters ran (whether
			 * this one ran or not), the other part's for the rest of the tick */
			uint64_t part = (uint64_t)((double)dt * frac);
			p->truth[i] =
			    w * (sim_count(p, &sa, o->seed, cpu, e, spike, dt, part, task) +
				 sim_count(p, &sb, mix64(o->seed ^ 0xb), cpu, e, spike, dt,
					   dt - part, task));
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
	free(p->role);
	free(p->acc);
	free(p->frac);
	free(p->truth);
	free(p->pids);
	free(p->task_cpu);
	free(p->share);
	free(p->demand);
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
    .caps = SOURCE_CAP_SIMULATED | SOURCE_CAP_VIRTUAL_TIME,
    .cpus = sim_cpus,
    .open = sim_open,
    .read = sim_read,
    .select_set = sim_select_set,
    .close = sim_close,
};

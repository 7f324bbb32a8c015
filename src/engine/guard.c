/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.c: the validity guard: impossible rates, zeros on busy CPUs, identical and frozen counts.
 */
#include "guard.h"
#include "procirq.h"
#include "textutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const reason_names[GUARD_NREASONS] = {"inst_rate", "cycle_rate", "zero_busy",
							 "identical", "frozen"};

const char *guard_reason_name(enum guard_reason r)
{
	return (unsigned)r < GUARD_NREASONS ? reason_names[r] : "?";
}

/* Instructions a core retires per cycle at most, from the vendors' optimisation manuals and
 * core descriptions (retire or issue width); the generous end where sources differ. */
static const struct {
	const char *key;
	double width;
} widths[] = {
    {"xscale", 1},     {"xscale1", 1},	  {"xscale2", 1},    {"armv6", 1},	{"arm11mpcore", 1},
    {"cortex_a5", 1},  {"cortex_a7", 2},  {"cortex_a8", 2},  {"cortex_a9", 2},	{"cortex_a53", 2},
    {"cortex_a12", 2}, {"cortex_a15", 3}, {"cortex_a17", 2}, {"cortex_a57", 3}, {"cortex_a72", 3},
    {"armv7", 3},      {"armv8", 8},	  {"atom", 2},	     {"slm", 2},	{"glm", 3},
    {"tmt", 4},	       {"nhm", 4},	  {"wsm", 4},	     {"snb", 4},	{"ivb", 4},
    {"hsw", 4},	       {"bdw", 4},	  {"skl", 4},	     {"skx", 4},	{"icl", 8},
    {"icx", 8},	       {"spr", 8},	  {"intel", 8},	     {"amd", 8},	{"zen", 8},
    {"zen4", 8},       {"grt", 5},
};

double guard_retire_width(const char *family_key)
{
	/* an SMT variant ("skl_smt": top-down in per-core clocks) is the same core */
	size_t n = family_key ? strlen(family_key) : 0;
	if (n > 4 && strcmp(family_key + n - 4, "_smt") == 0)
		n -= 4;
	for (size_t i = 0; family_key && i < sizeof(widths) / sizeof(widths[0]); i++)
		if (strlen(widths[i].key) == n && strncmp(widths[i].key, family_key, n) == 0)
			return widths[i].width;
	return 8; /* unknown: the widest cores shipping */
}

void guard_limits_for(struct guard_limits *l, const char *family_key, const char *pmu,
		      double max_hz)
{
	l->max_hz = max_hz > 0 ? max_hz : GUARD_DEFAULT_HZ;
	l->width = guard_retire_width(family_key);
	l->family = family_key ? family_key : "";
	l->pmu = pmu ? pmu : "";
}

/* What the guard knows of one (row, event) across ticks. */
struct cell {
	int unchanged;	    /* ticks in a row with a zero delta */
	double unchanged_s; /* their length */
	int same;	    /* ticks in a row this event shared its delta with others */
};

struct guard {
	struct guard_limits lim;
	int nrows, nevents;
	struct cell *cells; /* [row * nevents + e] */
	int nflags;	    /* in flags[] */
	uint64_t ticks, raised;
	/* per tick scratch, allocated once: the next list of flags, one row's values */
	struct guard_flag *next;
	double *vals;
	int nvals;
	/* what each event is (EV_* bits), worked out again only when the names change: the
	 * names it was worked out from are kept and compared each tick */
	unsigned char *kind;
	int nkind;
	char (*kind_names)[48]; /* [nkind] */
	bool tasks;		/* rows count tasks or cgroups */
	/* last, after what every tick reads: the flags raised (68 KiB, nflags of them in use) */
	struct guard_flag flags[GUARD_MAX_FLAGS];
};

enum { EV_CYCLES = 1, EV_INSTRUCTIONS = 2, EV_PROC = 4 };

void guard_rows_are_tasks(struct guard *g, bool tasks)
{
	if (g)
		g->tasks = tasks;
}

struct guard *guard_new(const struct guard_limits *l)
{
	struct guard *g = calloc(1, sizeof(*g));
	if (g) {
		g->lim = *l;
		g->nkind = -1;
	}
	return g;
}

void guard_free(struct guard *g)
{
	if (!g)
		return;
	free(g->cells);
	free(g->next);
	free(g->vals);
	free(g->kind);
	free(g->kind_names);
	free(g);
}

void guard_reset(struct guard *g)
{
	free(g->cells);
	g->cells = NULL;
	g->nrows = g->nevents = 0;
	g->nflags = 0;
	g->nkind = -1; /* the names are looked at again */
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcasecmp(name, *list) == 0)
			return true;
	return false;
}

static bool is_cycles(const char *name)
{
	static const char *const names[] = {"cycles",
					    "cpu_cycles",
					    "cpu-cycles",
					    "cpu_clk_unhalted",
					    "cpu_clk_unhalted_thread",
					    "cpu_clk_unhalted_thread_p",
					    "cpu_clk_unhalted_core",
					    "cycles_not_in_halt",
					    NULL};
	return name_in(name, names);
}

static bool is_instructions(const char *name)
{
	static const char *const names[] = {"instructions",
					    "inst_retired",
					    "inst_retired_any",
					    "inst_retired_any_p",
					    "instructions_retired",
					    "retired_instructions",
					    NULL};
	return name_in(name, names);
}

/* Events read from /proc (quantised ticks) take no part in the identical and frozen checks. */
static bool from_proc(const char *name)
{
	return strcmp(name, "busy") == 0 || strcmp(name, "idle") == 0;
}

static bool counted(const struct count *c)
{
	return c->state == COUNT_OK || c->state == COUNT_SCALED;
}

static struct guard_flag *find_flag(struct guard *g, int cpu, int e)
{
	for (int i = 0; i < g->nflags; i++)
		if (g->flags[i].cpu == cpu && g->flags[i].event == e)
			return &g->flags[i];
	return NULL;
}

/* Keeps (or raises) the flag of (@cpu, @e) in the new list @next. Returns 1 when raised now.
 * Cold: a steady tick raises none, so the messages written for it go out of line too. */
__attribute__((cold)) static int keep(struct guard *g, struct guard_flag *next, int *nnext, int cpu,
				      int e, const char *name, enum guard_reason reason,
				      const char *text)
{
	for (int i = 0; i < *nnext; i++)
		if (next[i].cpu == cpu && next[i].event == e)
			return 0; /* one reason per count: the first found */
	if (*nnext >= GUARD_MAX_FLAGS)
		return 0;
	struct guard_flag *old = find_flag(g, cpu, e);
	struct guard_flag *f = &next[(*nnext)++];
	memset(f, 0, sizeof(*f));
	f->cpu = cpu;
	f->event = e;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->reason = reason;
	snprintf(f->text, sizeof(f->text), "%s", text);
	f->since = old && old->reason == reason ? old->since : g->ticks;
	return !(old && old->reason == reason);
}

/* "CPU 12", "all CPUs" into @out: made only when a flag's text is written */
static const char *where(int cpu, char *out, size_t len)
{
	if (cpu < 0)
		snprintf(out, len, "all CPUs");
	else
		snprintf(out, len, "CPU %d", cpu);
	return out;
}

/* "the msr PMU", "the PMU": in the texts of the zero checks' flags, made when one is raised */
static const char *pmu_text(const struct guard *g, char *out, size_t len)
{
	if (g->lim.pmu[0])
		snprintf(out, len, "the %s PMU", g->lim.pmu);
	else
		snprintf(out, len, "the PMU");
	return out;
}

/* The rate checks and the zero checks of one row (@row == nrows: the total). */
static int check_row(struct guard *g, const struct snapshot *s, int row, double busy,
		     struct guard_flag *next, int *nnext, int ecyc, int einst)
{
	bool total = row == s->nrows;
	const struct count *c = total ? s->total_counts : &s->counts[row * s->nevents];
	int cpu = total ? -1 : s->cpus[row];
	/* cores in the row: 1 per CPU row, the row's CPUs in an aggregated capture, all the
	 * online rows for the total */
	double cores = 1;
	if (total) {
		cores = 0;
		for (int r = 0; r < s->nrows; r++)
			cores += s->offline[r] ? 0 : s->row_ncpus ? s->row_ncpus[r] : 1;
		if (s->row_cpus > 1)
			cores = s->row_cpus;
	} else if (s->row_cpus > 1) {
		cores = s->row_cpus;
	} else if (s->row_ncpus && s->row_ncpus[row] > 1) { /* a unit perf summed */
		cores = s->row_ncpus[row];
	}
	if (cores <= 0 || s->interval_s <= 0)
		return 0;
	int raised = 0;
	char at[24], text[200];
	char pmu[80];
	if (einst >= 0 && counted(&c[einst])) {
		double rate = c[einst].value / s->interval_s;
		double lim = cores * g->lim.width * g->lim.max_hz;
		if (rate > lim * GUARD_RATE_MARGIN) {
			snprintf(text, sizeof(text),
				 "%.3g instructions/s on %s is above %.0f core%s x %.0f/cycle x "
				 "%.2f GHz",
				 rate, where(cpu, at, sizeof(at)), cores, cores == 1 ? "" : "s",
				 g->lim.width, g->lim.max_hz / 1e9);
			raised += keep(g, next, nnext, cpu, einst, s->event_names[einst],
				       GUARD_INST_RATE, text);
		}
	}
	if (ecyc >= 0 && counted(&c[ecyc])) {
		double rate = c[ecyc].value / s->interval_s;
		double lim = cores * g->lim.max_hz;
		if (rate > lim * GUARD_RATE_MARGIN) {
			snprintf(text, sizeof(text),
				 "%.3g cycles/s on %s is above %.2f GHz x %.0f core%s", rate,
				 where(cpu, at, sizeof(at)), g->lim.max_hz / 1e9, cores,
				 cores == 1 ? "" : "s");
			raised += keep(g, next, nnext, cpu, ecyc, s->event_names[ecyc],
				       GUARD_CYCLE_RATE, text);
		}
	}
	if (total)
		return raised;
	/* zeros: a busy CPU runs cycles and retires instructions; cycles 0 with instructions
	 * retired is never true */
	/* /proc/stat counts in 10 ms ticks: a busy figure says something about ticks of
	 * GUARD_BUSY_TICK_S and longer only */
	bool known_busy = !isnan(busy) && busy >= GUARD_BUSY && s->interval_s >= GUARD_BUSY_TICK_S;
	if (ecyc >= 0 && counted(&c[ecyc]) && c[ecyc].value == 0 &&
	    (known_busy || (einst >= 0 && counted(&c[einst]) && c[einst].value > 0))) {
		if (known_busy)
			snprintf(text, sizeof(text),
				 "%s returns 0 for cycles on %s while /proc/stat shows it %.0f %% "
				 "busy",
				 pmu_text(g, pmu, sizeof(pmu)), where(cpu, at, sizeof(at)),
				 busy * 100);
		else
			snprintf(text, sizeof(text),
				 "%s returns 0 for cycles on %s while it counts %.3g instructions",
				 pmu_text(g, pmu, sizeof(pmu)), where(cpu, at, sizeof(at)),
				 c[einst].value);
		raised +=
		    keep(g, next, nnext, cpu, ecyc, s->event_names[ecyc], GUARD_ZERO_BUSY, text);
	}
	if (einst >= 0 && counted(&c[einst]) && c[einst].value == 0 && known_busy) {
		snprintf(text, sizeof(text),
			 "%s returns 0 for instructions on %s while /proc/stat shows it %.0f %% "
			 "busy",
			 pmu_text(g, pmu, sizeof(pmu)), where(cpu, at, sizeof(at)), busy * 100);
		raised +=
		    keep(g, next, nnext, cpu, einst, s->event_names[einst], GUARD_ZERO_BUSY, text);
	}
	return raised;
}

/* The EV_* bits of every event in g->kind, looked up by name only when the names changed (the
 * names they were looked up from are compared with the snapshot's each tick, all 48 bytes of
 * each). Returns -1 when out of memory. */
__attribute__((noinline, cold)) static int classify_names(struct guard *g,
							  const struct snapshot *s);
static int classify(struct guard *g, const struct snapshot *s)
{
	size_t bytes = (size_t)s->nevents * sizeof(s->event_names[0]);
	if (g->nkind == s->nevents && g->kind && g->kind_names &&
	    memcmp(g->kind_names, s->event_names, bytes) == 0)
		return 0;
	return classify_names(g, s);
}

/* classify()'s look-up when the names changed. */
static int classify_names(struct guard *g, const struct snapshot *s)
{
	size_t bytes = (size_t)s->nevents * sizeof(s->event_names[0]);
	g->nkind = -1;
	unsigned char *k = realloc(g->kind, (size_t)s->nevents + 1);
	if (!k)
		return -1;
	g->kind = k;
	char(*kn)[48] = realloc(g->kind_names, bytes + sizeof(kn[0]));
	if (!kn)
		return -1;
	g->kind_names = kn;
	memcpy(kn, s->event_names, bytes);
	for (int e = 0; e < s->nevents; e++) {
		const char *n = s->event_names[e];
		k[e] = (unsigned char)((is_cycles(n) ? EV_CYCLES : 0) |
				       (is_instructions(n) ? EV_INSTRUCTIONS : 0) |
				       (from_proc(n) ? EV_PROC : 0));
	}
	g->nkind = s->nevents;
	return 0;
}

int guard_check(struct guard *g, const struct snapshot *s, const double *busy)
{
	if (!s || s->nrows <= 0)
		return 0;
	if (unlikely(s->nrows != g->nrows || s->nevents != g->nevents || !g->cells)) {
		free(g->cells);
		g->cells = calloc((size_t)s->nrows * (size_t)(s->nevents ? s->nevents : 1),
				  sizeof(*g->cells));
		g->nrows = s->nrows;
		g->nevents = s->nevents;
		g->nflags = 0;
		if (!g->cells)
			return 0;
	}
	g->ticks++;
	if (!g->next && !(g->next = malloc(sizeof(g->flags))))
		return 0;
	if (g->nvals < s->nevents + 1) {
		double *v = realloc(g->vals, sizeof(double) * (size_t)(s->nevents + 1));
		if (!v)
			return 0;
		g->vals = v;
		g->nvals = s->nevents + 1;
	}
	if (classify(g, s) < 0)
		return 0;
	struct guard_flag *next = g->next;
	double *vals = g->vals;
	const unsigned char *kind = g->kind;
	int ecyc = -1, einst = -1;
	for (int e = 0; e < s->nevents; e++) {
		if ((kind[e] & EV_CYCLES) && ecyc < 0)
			ecyc = e;
		else if ((kind[e] & EV_INSTRUCTIONS) && einst < 0)
			einst = e;
	}
	int nnext = 0, raised = 0;
	char text[200], at[24];
	for (int r = 0; r < s->nrows; r++) {
		if (s->offline[r])
			continue;
		double b = busy && !g->tasks ? busy[r] : NAN;
		raised += check_row(g, s, r, b, next, &nnext, ecyc, einst);
		const struct count *c = &s->counts[r * s->nevents];
		struct cell *cell = &g->cells[r * s->nevents];
		/* frozen: a counter that reads the same value tick after tick */
		int ncounted = 0, nfrozen = 0;
		for (int e = 0; e < s->nevents; e++) {
			if (g->tasks || !counted(&c[e]) || (kind[e] & EV_PROC)) {
				cell[e].unchanged = 0;
				cell[e].unchanged_s = 0;
				continue;
			}
			ncounted++;
			if (c[e].value == 0) {
				cell[e].unchanged++;
				cell[e].unchanged_s += s->interval_s;
			} else {
				cell[e].unchanged = 0;
				cell[e].unchanged_s = 0;
			}
			nfrozen += cell[e].unchanged >= GUARD_FROZEN_TICKS &&
				   cell[e].unchanged_s >= GUARD_FROZEN_S;
		}
		bool known_idle = !isnan(b) && b < 0.02;
		for (int e = 0; e < s->nevents && nfrozen > 0;
		     e++) { /* nfrozen: the frozen cells */
			bool frozen = cell[e].unchanged >= GUARD_FROZEN_TICKS &&
				      cell[e].unchanged_s >= GUARD_FROZEN_S;
			if (!frozen)
				continue;
			/* cycles and instructions move on any CPU that is not idle; any event
			 * does when every event of the row stopped together */
			bool core = kind[e] & (EV_CYCLES | EV_INSTRUCTIONS);
			if ((core && !known_idle) || (ncounted >= 2 && nfrozen == ncounted)) {
				snprintf(
				    text, sizeof(text),
				    "%s on %s has not changed for %d reads (%.1f s): the counter "
				    "is frozen",
				    s->event_names[e], where(s->cpus[r], at, sizeof(at)),
				    cell[e].unchanged, cell[e].unchanged_s);
				raised += keep(g, next, &nnext, s->cpus[r], e, s->event_names[e],
					       GUARD_FROZEN, text);
			}
		}
		/* identical: several unrelated events with one delta, tick after tick (the
		 * count of equal values needs no order) */
		int nv = 0;
		for (int e = 0; e < s->nevents; e++)
			if (counted(&c[e]) && !(kind[e] & EV_PROC) &&
			    c[e].value >= GUARD_IDENTICAL_MIN)
				vals[nv++] = c[e].value;
		if (nv < GUARD_IDENTICAL_EVENTS) { /* no delta can be shared by enough events */
			for (int e = 0; e < s->nevents; e++)
				cell[e].same = 0;
			continue;
		}
		for (int e = 0; e < s->nevents; e++) {
			int same = 0;
			if (counted(&c[e]) && !(kind[e] & EV_PROC) &&
			    c[e].value >= GUARD_IDENTICAL_MIN)
				for (int k = 0; k < nv; k++)
					same += vals[k] == c[e].value;
			if (same >= GUARD_IDENTICAL_EVENTS)
				cell[e].same++;
			else
				cell[e].same = 0;
			if (cell[e].same >= GUARD_IDENTICAL_TICKS) {
				snprintf(
				    text, sizeof(text),
				    "%d events on %s read the same delta %.0f for %d ticks: the "
				    "PMU does not count them",
				    same, where(s->cpus[r], at, sizeof(at)), c[e].value,
				    cell[e].same);
				raised += keep(g, next, &nnext, s->cpus[r], e, s->event_names[e],
					       GUARD_IDENTICAL, text);
			}
		}
	}
	raised += check_row(g, s, s->nrows, NAN, next, &nnext, ecyc, einst);
	memcpy(g->flags, next, sizeof(*next) * (size_t)nnext);
	g->nflags = nnext;
	g->raised += (uint64_t)raised;
	return raised;
}

int guard_flags(const struct guard *g, const struct guard_flag **out)
{
	*out = g->flags;
	return g->nflags;
}

uint64_t guard_raised(const struct guard *g) { return g->raised; }

static int event_index(const struct snapshot *s, const char *name)
{
	for (int e = 0; e < s->nevents; e++)
		if (strcmp(s->event_names[e], name) == 0)
			return e;
	return -1;
}

static void mark_metrics(struct snapshot *s, int row, int e)
{
	bool total = row == s->nrows;
	for (int m = 0; m < s->nmetrics; m++) {
		const struct session_metric *sm = &s->metrics[m];
		bool reads = false;
		for (int k = 0; k < sm->ninputs; k++)
			reads |= sm->inputs[k] == e;
		if (!reads)
			continue;
		if (total) {
			s->total_values[m] = NAN;
			s->total_classes[m] = METRIC_NA;
		} else {
			s->values[row * s->nmetrics + m] = NAN;
			s->classes[row * s->nmetrics + m] = METRIC_NA;
		}
	}
}

void guard_mark(const struct guard *g, struct snapshot *s)
{
	for (int i = 0; g && s && i < g->nflags; i++) {
		const struct guard_flag *f = &g->flags[i];
		int e = event_index(s, f->name);
		if (e < 0)
			continue;
		for (int r = 0; r < s->nrows; r++) {
			if (f->cpu >= 0 && s->cpus[r] != f->cpu)
				continue;
			if (f->cpu >= 0 || s->row_cpus > 1) {
				s->counts[r * s->nevents + e].state = COUNT_INVALID;
				mark_metrics(s, r, e);
			}
		}
		/* a total that sums an invalid count is invalid too */
		s->total_counts[e].state = COUNT_INVALID;
		mark_metrics(s, s->nrows, e);
	}
}

void guard_line(const struct guard *g, char *out, size_t len)
{
	out[0] = 0;
	if (!g || g->nflags == 0)
		return;
	/* the first flag's reason, and how many more */
	const struct guard_flag *f = &g->flags[0];
	if (g->nflags == 1)
		snprintf(out, len, "invalid: %s", f->text);
	else
		snprintf(out, len, "invalid: %s (and %d more counts)", f->text, g->nflags - 1);
}

/* ---- /proc/stat ---- */

int guard_procstat_read(struct guard_procstat *p, const char *root, const int *cpus, int ncpus,
			double *frac)
{
	int ncpu = 1; /* the CPUs asked for are below it */
	for (int i = 0; i < ncpus; i++) {
		frac[i] = NAN;
		if (cpus[i] >= 0 && cpus[i] <= 65535 && cpus[i] + 1 > ncpu)
			ncpu = cpus[i] + 1;
	}
	if (ncpu > p->n) {
		uint64_t *b = realloc(p->busy, sizeof(uint64_t) * (size_t)ncpu);
		if (!b)
			return -1;
		p->busy = b;
		uint64_t *t = realloc(p->total, sizeof(uint64_t) * (size_t)ncpu);
		if (!t)
			return -1;
		p->total = t;
		uint64_t *fields =
		    realloc(p->fields, sizeof(uint64_t) * (size_t)ncpu * PROCSTAT_FIELDS);
		if (!fields)
			return -1;
		p->fields = fields;
		bool *seen = realloc(p->seen, sizeof(bool) * (size_t)ncpu);
		if (!seen)
			return -1;
		p->seen = seen;
		for (int k = p->n; k < ncpu; k++)
			p->busy[k] = p->total[k] = 0;
		p->n = ncpu;
	}
	memset(p->seen, 0, sizeof(bool) * (size_t)ncpu);
	long len = procstat_file_read(&p->file, root);
	int rc = len >= 0
		     ? procirq_stat_parse(p->file.buf, (size_t)len, ncpu, NULL, p->fields, p->seen)
		     : -1;
	for (int cpu = 0; rc >= 0 && cpu < ncpu; cpu++) {
		if (!p->seen[cpu])
			continue;
		const uint64_t *f = &p->fields[(size_t)cpu * PROCSTAT_FIELDS];
		/* busy is all but idle and iowait (steal is time the host ran something else: not
		 * busy here) */
		uint64_t total = 0;
		for (int k = 0; k < PROCSTAT_FIELDS; k++)
			total += f[k];
		uint64_t busy = f[PROCSTAT_USER] + f[PROCSTAT_NICE] + f[PROCSTAT_SYSTEM] +
				f[PROCSTAT_IRQ] + f[PROCSTAT_SOFTIRQ];
		for (int i = 0; i < ncpus; i++) {
			if (cpus[i] != cpu || !p->total[cpu] || total <= p->total[cpu] ||
			    busy < p->busy[cpu])
				continue;
			frac[i] = (double)(busy - p->busy[cpu]) / (double)(total - p->total[cpu]);
		}
		p->busy[cpu] = busy;
		p->total[cpu] = total;
	}
	return rc < 0 ? -1 : 0;
}

void guard_procstat_free(struct guard_procstat *p)
{
	free(p->busy);
	free(p->total);
	free(p->fields);
	free(p->seen);
	procstat_file_close(&p->file);
	memset(p, 0, sizeof(*p));
}

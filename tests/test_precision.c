/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_precision.c: utilisation and totals: resolution and coarse flags of quantised inputs,
 * the fine source preferred over /proc/stat ticks, the all row made of the CPUs counted, the
 * CPUs that come online, and pmutop's own CPU use from the first window. */
#include "app.h"
#include "expr.h"
#include "harness.h"
#include "harness_app.h"
#include "options.h"
#include "session.h"
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_ROWS = 4 };

/* A snapshot over @nrows rows of the events @names, for snapshot_compute. */
struct fixture {
	struct snapshot s;
	char names[SESSION_MAX_EVENTS][48];
	struct session_metric metrics[4];
	struct metric_program *prog;
	int cpus[MAX_ROWS];
	bool offline[MAX_ROWS];
	struct count counts[MAX_ROWS * SESSION_MAX_EVENTS], total_counts[SESSION_MAX_EVENTS];
	double values[MAX_ROWS * 4], total_values[4], running[MAX_ROWS * 4], total_running[4];
	enum metric_class classes[MAX_ROWS * 4], total_classes[4];
	struct metric_detail detail[(MAX_ROWS + 1) * 4];
};

/* @formulas: "name=expr" per metric; @quantum_ns per event (NULL: all exact). */
static int fixture_init(struct fixture *f, int nrows, const char *const *events, int nevents,
			const char *const *formulas, int nmetrics, const uint64_t *quantum_ns,
			double interval_s)
{
	memset(f, 0, sizeof(*f));
	for (int e = 0; e < nevents; e++)
		snprintf(f->names[e], sizeof(f->names[e]), "%s", events[e]);
	for (int m = 0; m < nmetrics; m++) {
		const char *eq = strchr(formulas[m], '=');
		snprintf(f->metrics[m].name, sizeof(f->metrics[m].name), "%.*s",
			 (int)(eq - formulas[m]), formulas[m]);
		snprintf(f->metrics[m].formula, sizeof(f->metrics[m].formula), "%s", eq + 1);
		f->metrics[m].good = f->metrics[m].warn = f->metrics[m].bad = NAN;
	}
	char err[256];
	f->prog = metric_program_new(f->metrics, nmetrics, (const char(*)[48])f->names, nevents,
				     err, sizeof(err));
	CHECK(f->prog != NULL, "metric program: %s", err);
	if (!f->prog)
		return -1;
	if (quantum_ns)
		metric_program_set_quanta(f->prog, quantum_ns, nevents);
	for (int r = 0; r < nrows; r++)
		f->cpus[r] = r;
	f->s = (struct snapshot){.seq = 1,
				 .interval_s = interval_s,
				 .nrows = nrows,
				 .cpus = f->cpus,
				 .offline = f->offline,
				 .nevents = nevents,
				 .event_names = (const char(*)[48])f->names,
				 .counts = f->counts,
				 .total_counts = f->total_counts,
				 .nmetrics = nmetrics,
				 .metrics = f->metrics,
				 .program = f->prog,
				 .values = f->values,
				 .total_values = f->total_values,
				 .classes = f->classes,
				 .running = f->running,
				 .total_running = f->total_running,
				 .total_classes = f->total_classes,
				 .detail = f->detail};
	return 0;
}

static void set_count(struct fixture *f, int row, int e, double v, enum count_state st)
{
	f->counts[row * f->s.nevents + e] =
	    (struct count){.value = v, .running = st == COUNT_OK ? 1 : 0, .state = st};
}

static const struct metric_detail *detail_of(const struct fixture *f, int row, int m)
{
	return &f->detail[row * f->s.nmetrics + m];
}

/* busy / (busy + idle) over /proc/stat ticks of 10 ms: never above 100 %, its step follows the
 * tick, coarse below 4 ticks per sample. */
static void test_proc_util(void)
{
	static const char *const events[] = {"busy", "idle"};
	static const char *const formulas[] = {"util=100 * busy / (busy + idle)"};
	static const uint64_t quantum[] = {10000000, 10000000};
	static const struct {
		int line;
		double interval_s, busy_ns, idle_ns;
		double util, resolution;
		bool coarse;
	} cases[] = {
	    /* 10 ms samples: one tick lands in busy or idle (the old busy / interval gave 0, 100
	     * or 200 % here) */
	    {__LINE__, 0.010, 10e6, 0, 100, 100, true},
	    {__LINE__, 0.010, 0, 10e6, 0, 100, true},
	    {__LINE__, 0.010, 20e6, 0, 100, 50, true}, /* two ticks in one 10 ms read */
	    /* 100 ms: 11 ticks counted in a 100 ms read (busy / interval said 110 %) */
	    {__LINE__, 0.100, 110e6, 0, 100, 100.0 / 11, false},
	    {__LINE__, 0.100, 50e6, 50e6, 50, 10, false},
	    {__LINE__, 0.030, 30e6, 0, 100, 100.0 / 3, true}, /* 3 ticks: coarse */
	    {__LINE__, 0.040, 20e6, 20e6, 50, 25, false},     /* 4 ticks: not coarse */
	    {__LINE__, 1.0, 250e6, 750e6, 25, 1, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture f;
		if (fixture_init(&f, 1, events, 2, formulas, 1, quantum, cases[i].interval_s) < 0)
			return;
		set_count(&f, 0, 0, cases[i].busy_ns, COUNT_OK);
		set_count(&f, 0, 1, cases[i].idle_ns, COUNT_OK);
		snapshot_compute(&f.s);
		const struct metric_detail *d = detail_of(&f, 0, 0);
		CHECK(fabs(f.values[0] - cases[i].util) < 1e-9, "line %d: util %g, want %g",
		      cases[i].line, f.values[0], cases[i].util);
		CHECK(f.values[0] <= 100, "line %d: util %g above 100 %%", cases[i].line,
		      f.values[0]);
		CHECK(fabs(d->resolution - cases[i].resolution) < 1e-6,
		      "line %d: resolution %g, want %g", cases[i].line, d->resolution,
		      cases[i].resolution);
		CHECK(d->coarse == cases[i].coarse, "line %d: coarse %d", cases[i].line, d->coarse);
		CHECK(d->used == 3, "line %d: computed from busy and idle (used 0x%llx)",
		      cases[i].line, d->used);
		metric_program_free(f.prog);
	}
}

/* Exact counts have no resolution and are never coarse, at any sample length. */
static void test_exact_inputs(void)
{
	static const char *const events[] = {"cycles", "instructions"};
	static const char *const formulas[] = {"cpi=cycles / instructions"};
	struct fixture f;
	if (fixture_init(&f, 1, events, 2, formulas, 1, NULL, 0.001) < 0)
		return;
	set_count(&f, 0, 0, 3e6, COUNT_OK);
	set_count(&f, 0, 1, 2e6, COUNT_OK);
	snapshot_compute(&f.s);
	CHECK_NEAR(f.values[0], 1.5, 1e-12);
	CHECK(detail_of(&f, 0, 0)->resolution == 0 && !detail_of(&f, 0, 0)->coarse,
	      "exact counts: resolution %g coarse %d", detail_of(&f, 0, 0)->resolution,
	      detail_of(&f, 0, 0)->coarse);
	metric_program_free(f.prog);
}

/* a = 6, c = 3, nothing else */
static int lookup_ac(void *ctx, const char *name, double *out)
{
	(void)ctx;
	if (strcmp(name, "a") == 0)
		*out = 6;
	else if (strcmp(name, "c") == 0)
		*out = 3;
	else
		return -1;
	return 0;
}

/* The sw mode's utilisation prefers mperf over the TSC and falls back to /proc/stat ticks where
 * mperf is not counted; the detail says which inputs were used. */
static void test_fine_source_preferred(void)
{
	static const char *const events[] = {"mperf", "tsc", "busy", "idle"};
	static const char *const formulas[] = {
	    "util=100 * mperf / tsc ?? 100 * busy / (busy + idle)"};
	static const uint64_t quantum[] = {0, 0, 10000000, 10000000};
	for (int have_mperf = 0; have_mperf <= 1; have_mperf++) {
		struct fixture f;
		if (fixture_init(&f, 1, events, 4, formulas, 1, quantum, 0.010) < 0)
			return;
		set_count(&f, 0, 0, 6.5e6, have_mperf ? COUNT_OK : COUNT_NOT_SUPPORTED);
		set_count(&f, 0, 1, 2.6e7, COUNT_OK);
		set_count(&f, 0, 2, 10e6, COUNT_OK);
		set_count(&f, 0, 3, 0, COUNT_OK);
		snapshot_compute(&f.s);
		const struct metric_detail *d = detail_of(&f, 0, 0);
		if (have_mperf) {
			CHECK_NEAR(f.values[0], 25, 1e-9);
			CHECK(d->used == 0x3 && d->resolution == 0 && !d->coarse,
			      "mperf/tsc: used 0x%llx resolution %g coarse %d", d->used,
			      d->resolution, d->coarse);
		} else {
			CHECK_NEAR(f.values[0], 100, 1e-9);
			CHECK(d->used == 0xc && d->resolution > 0 && d->coarse,
			      "fallback: used 0x%llx resolution %g coarse %d", d->used,
			      d->resolution, d->coarse);
		}
		metric_program_free(f.prog);
	}
	/* expr_eval_used: only the branch of ?? that gave the value */
	char err[128];
	struct expr *e = expr_parse("a / b ?? c", err, sizeof(err));
	CHECK(e != NULL, "parse: %s", err);
	if (e) {
		double v;
		unsigned long long used;
		/* lookup_ac: a and c exist, b does not */
		CHECK(expr_eval_used(e, lookup_ac, NULL, &v, &used) == 0 && v == 3,
		      "a / b ?? c = %g", v);
		const char *const *vars;
		int nv = expr_vars(e, &vars);
		unsigned long long want = 0;
		for (int k = 0; k < nv; k++)
			if (strcmp(vars[k], "c") == 0)
				want |= 1ULL << k;
		CHECK(used == want, "used 0x%llx, want 0x%llx (c only)", used, want);
		expr_free(e);
	}
}

/* The all row: a CPU offline or in its first tick back (nothing counted yet) adds neither
 * counts nor a CPU to the averages. */
static void test_all_row_counted_cpus(void)
{
	static const char *const events[] = {"tsc", "busy"};
	static const char *const formulas[] = {"tsc_ghz=tsc / ncpus / interval / 1e9",
					       "busy_pct=100 * busy / (interval_ns * ncpus)"};
	static const struct {
		int line;
		enum count_state cpu1; /* CPU 0 is counted; CPU 1 in this state */
		bool cpu1_offline;
		double ghz, busy_pct;
	} cases[] = {
	    {__LINE__, COUNT_OK, false, 2.6, 50},
	    {__LINE__, COUNT_NOT_COUNTED, false, 2.6, 40}, /* first tick back */
	    {__LINE__, COUNT_OFFLINE, true, 2.6, 40},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture f;
		if (fixture_init(&f, 2, events, 2, formulas, 2, NULL, 1.0) < 0)
			return;
		set_count(&f, 0, 0, 2.6e9, COUNT_OK);
		set_count(&f, 0, 1, 0.4e9, COUNT_OK);
		bool ok = cases[i].cpu1 == COUNT_OK;
		set_count(&f, 1, 0, ok ? 2.6e9 : 0, cases[i].cpu1);
		set_count(&f, 1, 1, ok ? 0.6e9 : 0, cases[i].cpu1);
		f.offline[1] = cases[i].cpu1_offline;
		snapshot_compute(&f.s);
		CHECK(fabs(f.total_values[0] - cases[i].ghz) < 1e-9, "line %d: all tsc_ghz %g",
		      cases[i].line, f.total_values[0]);
		CHECK(fabs(f.total_values[1] - cases[i].busy_pct) < 1e-9,
		      "line %d: all busy_pct %g", cases[i].line, f.total_values[1]);
		CHECK(f.total_counts[0].state == COUNT_OK, "line %d: all-row tsc state %s",
		      cases[i].line, count_state_name(f.total_counts[0].state));
		metric_program_free(f.prog);
	}
}

static struct app_ctx app; /* large: static */

static int start(const char *args)
{
	char err[512];
	if (harness_app_start(&app, args, err, sizeof(err)) < 0) {
		CHECK(0, "start \"%s\": %s", args, err);
		app_free(&app);
		return -1;
	}
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "open %s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A CPU offline at start gets its row when it comes online: a copy of the VM tree whose online
 * list first says "0" and then "0-1" (the perf backend counts this machine's CPUs). */
static void test_cpu_comes_online(void)
{
	char dir[] = "/tmp/pmutop-online.XXXXXX", cmd[512], path[600];
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(cmd, sizeof(cmd), "cp -r '%s/tests/sysfs/x86-vm-nopmu/.' '%s'",
		 getenv("PMUTOP_SRC") ? getenv("PMUTOP_SRC") : "..", dir);
	CHECK(system(cmd) == 0, "%s", cmd);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", dir);
	write_file(path, "0\n");
	char args[256], err[256];
	snprintf(args, sizeof(args), "-b -m sw --sysfs-root %s", dir);
	if (start(args) == 0) {
		CHECK_INT(app.ncpus, 1);
		CHECK_INT(app_follow_online(&app, err, sizeof(err)), 0); /* nothing new */
		CHECK(app_tick(&app, err, sizeof(err)) >= 0, "priming: %s", err);
		write_file(path, "0-1\n");
		CHECK_INT(app_follow_online(&app, err, sizeof(err)), 1);
		CHECK_INT(app.ncpus, 2);
		CHECK(app.ncpus == 2 && app.cpus[1] == 1, "row for CPU 1");
		CHECK(app_tick(&app, err, sizeof(err)) >= 0, "priming after the reopen: %s", err);
		CHECK(app_tick(&app, err, sizeof(err)) > 0, "tick: %s", err);
		const struct snapshot *s = session_snapshot(app.session);
		CHECK(s->nrows == 2 && s->cpus[1] == 1, "snapshot rows %d", s->nrows);
		/* CPU 1 exists on this machine when it has two online CPUs: then it is counted */
		if (s->nrows == 2 && sysconf(_SC_NPROCESSORS_ONLN) >= 2)
			CHECK(!s->offline[1] && s->counts[1 * s->nevents].state == COUNT_OK,
			      "CPU 1 counted: %s", count_state_name(s->counts[s->nevents].state));
		/* a CPU that goes offline keeps its row */
		write_file(path, "0\n");
		CHECK_INT(app_follow_online(&app, err, sizeof(err)), 0);
		CHECK_INT(app.ncpus, 2);
		app_free(&app);
	}
	/* with a CPU list the rows stay what was asked */
	write_file(path, "0\n");
	snprintf(args, sizeof(args), "-b -m sw -C 0 --sysfs-root %s", dir);
	if (start(args) == 0) {
		write_file(path, "0-1\n");
		CHECK_INT(app_follow_online(&app, err, sizeof(err)), 0);
		CHECK_INT(app.ncpus, 1);
		app_free(&app);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "%s", cmd);
}

/* GHz against a reference clock: a CPU whose reference clock was not counted this tick is n/c
 * (not cycles per wall second) and stays out of the all row, which would otherwise divide four
 * CPUs' cycles by three CPUs' reference cycles (4 GHz from four 3 GHz cores). */
static void test_reference_not_counted(void)
{
	static const char *const events[] = {"cycles", "ref", "tsc"};
	static const char *const formulas[] = {
	    "ghz=cycles * tsc / ref / ncpus / interval / 1e9 ?? cycles / ncpus / interval / 1e9"};
	struct fixture f;
	if (fixture_init(&f, 4, events, 3, formulas, 1, NULL, 1.0) < 0)
		return;
	for (int r = 0; r < 4; r++) {
		set_count(&f, r, 0, 3e9, COUNT_OK);
		set_count(&f, r, 1, 2e9, r == 3 ? COUNT_NOT_COUNTED : COUNT_OK);
		set_count(&f, r, 2, 2e9, COUNT_OK);
	}
	snapshot_compute(&f.s);
	for (int r = 0; r < 3; r++)
		CHECK(fabs(f.values[r] - 3.0) < 1e-9, "cpu %d: %g GHz", r, f.values[r]);
	CHECK(isnan(f.values[3]) && detail_of(&f, 3, 0)->not_counted,
	      "cpu 3 (reference not counted): %g GHz, want n/c", f.values[3]);
	CHECK(fabs(f.total_values[0] - 3.0) < 1e-9, "all: %g GHz, want 3 (cpu 3 left out)",
	      f.total_values[0]);
	metric_program_free(f.prog);

	/* no reference clock in the mode at all (ARM): wall time, as documented */
	static const char *const arm_events[] = {"cycles"};
	if (fixture_init(&f, 2, arm_events, 1, formulas, 1, NULL, 1.0) < 0)
		return;
	set_count(&f, 0, 0, 2e9, COUNT_OK);
	set_count(&f, 1, 0, 1e9, COUNT_OK);
	snapshot_compute(&f.s);
	CHECK(fabs(f.values[0] - 2.0) < 1e-9 && fabs(f.total_values[0] - 1.5) < 1e-9,
	      "no reference: %g and all %g GHz", f.values[0], f.total_values[0]);
	metric_program_free(f.prog);
}

int main(void)
{
	test_reference_not_counted();
	test_proc_util();
	test_exact_inputs();
	test_fine_source_preferred();
	test_all_row_counted_cpus();
	test_cpu_comes_online();
	return harness_done();
}

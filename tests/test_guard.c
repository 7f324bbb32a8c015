/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_guard.c: the validity guard: each failure shape of tests/fixtures/guard flagged with its
 * reason and marked invalid in the frame; long sim runs of valid data raise no flag. */
#include "app.h"
#include "frame.h"
#include "guard.h"
#include "harness.h"
#include "harness_app.h"
#include "options.h"
#include "watch.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static struct app_ctx app; /* large: static */

static int start(const char *args)
{
	char err[512];
	if (harness_app_start(&app, args, err, sizeof(err)) < 0 ||
	    watch_attach(&app, err, sizeof(err)) < 0) {
		CHECK(0, "start \"%s\": %s", args, err);
		return -1;
	}
	return 0;
}

static void stop(void)
{
	app_free(&app);
	memset(&app, 0, sizeof(app));
}

static int event_index(const struct snapshot *s, const char *name)
{
	for (int e = 0; e < s->nevents; e++)
		if (strcmp(s->event_names[e], name) == 0)
			return e;
	return -1;
}

static int row_of(const struct snapshot *s, int cpu)
{
	for (int r = 0; r < s->nrows; r++)
		if (s->cpus[r] == cpu)
			return r;
	return -1;
}

/* Replays @file to its end; returns the guard's flags at the last frame in @seen (reason per
 * "cpu:event", -1 none) and checks the last frame marks each flagged count invalid. */
struct want {
	int cpu; /* -1 the total */
	const char *event;
	enum guard_reason reason;
};

static void shape(const char *file, const struct want *want, int nwant, int nclean_cpu)
{
	char args[512], err[256];
	snprintf(args, sizeof(args), "-b --no-rc -R %s/tests/fixtures/guard/%s", harness_src(),
		 file);
	if (start(args) < 0)
		return;
	const struct frame *f = NULL;
	int rc = 0;
	for (int i = 0; i < 1000; i++) { /* the recording's ticks, then its end */
		rc = app_next(&app, err, sizeof(err));
		if (rc > 0)
			f = app_frame_build(&app);
		if (rc < 0 || (rc == 0 && app_pending(&app) == 0))
			break;
	}
	CHECK(rc == 0, "%s: %s", file, err);
	CHECK(f != NULL, "%s: no frame", file);
	if (!f) {
		stop();
		return;
	}
	const struct guard_flag *flags;
	int n = guard_flags(f->guard, &flags);
	for (int w = 0; w < nwant; w++) {
		bool found = false;
		for (int i = 0; i < n; i++)
			if (flags[i].cpu == want[w].cpu &&
			    strcmp(flags[i].name, want[w].event) == 0) {
				found = true;
				CHECK(flags[i].reason == want[w].reason,
				      "%s: %s on CPU %d: reason %s, want %s", file, want[w].event,
				      want[w].cpu, guard_reason_name(flags[i].reason),
				      guard_reason_name(want[w].reason));
			}
		CHECK(found, "%s: %s on CPU %d not flagged", file, want[w].event, want[w].cpu);
		/* the frame's copy shows it invalid */
		int e = event_index(f->snap, want[w].event);
		int r = want[w].cpu < 0 ? -1 : row_of(f->snap, want[w].cpu);
		const struct count *c =
		    r < 0 ? &f->snap->total_counts[e] : &f->snap->counts[r * f->snap->nevents + e];
		CHECK(e >= 0 && c->state == COUNT_INVALID, "%s: %s on CPU %d not marked invalid",
		      file, want[w].event, want[w].cpu);
	}
	/* the clean CPU's counts stay valid */
	int r = row_of(f->snap, nclean_cpu);
	for (int e = 0; r >= 0 && e < f->snap->nevents; e++)
		CHECK(f->snap->counts[r * f->snap->nevents + e].state != COUNT_INVALID,
		      "%s: CPU %d's %s marked invalid", file, nclean_cpu, f->snap->event_names[e]);
	CHECK(f->guard_line && strncmp(f->guard_line, "invalid: ", 9) == 0,
	      "%s: capability line: \"%s\"", file, f->guard_line ? f->guard_line : "(null)");
	CHECK(watch_raised(&app) >= (uint64_t)nwant, "%s: raised %llu", file,
	      (unsigned long long)watch_raised(&app));
	stop();
}

static void test_shapes(void)
{
	static const struct want zeros[] = {{0, "cycles", GUARD_ZERO_BUSY},
					    {1, "instructions", GUARD_ZERO_BUSY}};
	shape("zeros.jsonl", zeros, 2, -99);
	static const struct want rates[] = {{1, "cycles", GUARD_CYCLE_RATE},
					    {1, "instructions", GUARD_INST_RATE},
					    {-1, "instructions", GUARD_INST_RATE}};
	shape("rates.jsonl", rates, 3, 0);
	static const struct want frozen[] = {{0, "cycles", GUARD_FROZEN},
					     {0, "instructions", GUARD_FROZEN},
					     {0, "branches", GUARD_FROZEN},
					     {0, "branch_misses", GUARD_FROZEN}};
	shape("frozen.jsonl", frozen, 4, 1);
	static const struct want identical[] = {{1, "cycles", GUARD_IDENTICAL},
						{1, "instructions", GUARD_IDENTICAL},
						{1, "branches", GUARD_IDENTICAL}};
	shape("identical.jsonl", identical, 3, 0);
}

/* Valid data: sim runs of every family and many modes, with multiplexing, 32-bit wrap, spikes
 * and a CPU going offline: not one flag. */
static void test_sim_no_false_flags(void)
{
	static const char *const runs[] = {
	    "--sim-family skl -m cpi",
	    "--sim-family skl -m branch --sim-mux 0.5",
	    "--sim-family skl -m dcache --sim-width 32",
	    "--sim-family zen4 -m cpi --sim-spike 1:7:8",
	    "--sim-family armv8 -m cpi --sim-offline 2:100-200",
	    "--sim-family cortex_a53 -m cpi",
	    "--sim-family cortex_a9 -m cpi --sim-width 32",
	    "--sim-family xscale2 -m cpi --sim-width 32",
	    "--sim-family atom -m cpi",
	    "--sim-family generic -m llc",
	    "--sim-family generic -m sw",
	    "--sim-cpus 16 --sim-family icl -m cpi --sim-mux 0.3",
	    "--sim-family cortex_a53 -m stallcycles",
	    "--sim-family skl -m topdown",
	    "--sim-family zen4 -m topdown",
	    "--sim-family spr -m topdown2",
	    "--sim-family armv8 -m topdown",
	    "--sim-family snb -m offcore",
	};
	int ticks = 20000; /* 200 s each at the 10 ms tick */
	uint64_t total_ticks = 0, false_flags = 0;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char args[512], err[256];
		snprintf(args, sizeof(args), "-b --no-rc --backend sim -i 10 --seed %zu %s", i + 1,
			 runs[i]);
		if (start(args) < 0)
			continue;
		int done = 0;
		for (int t = 0; t < ticks; t++) {
			int rc = app_tick(&app, err, sizeof(err));
			if (rc < 0) {
				CHECK(0, "%s: tick %d: %s", args, t, err);
				break;
			}
			if (rc > 0 && (t % 50) == 0)
				app_frame_build(&app);
			done += rc > 0;
		}
		uint64_t raised = watch_raised(&app);
		CHECK(raised == 0, "%s: %llu false flags over %d ticks", args,
		      (unsigned long long)raised, done);
		if (raised) {
			const struct frame *f = app_frame_build(&app);
			const struct guard_flag *flags;
			int n = f ? guard_flags(f->guard, &flags) : 0;
			for (int k = 0; k < n && k < 3; k++)
				fprintf(stderr, "  flag: %s\n", flags[k].text);
		}
		total_ticks += (uint64_t)done;
		false_flags += raised;
		stop();
	}
	printf("sim: %llu ticks over %zu runs, %llu false flags\n", (unsigned long long)total_ticks,
	       sizeof(runs) / sizeof(runs[0]), (unsigned long long)false_flags);
}

/* The limits: a family's width, and the rate check at its edge. */
static void test_limits(void)
{
	CHECK_NEAR(guard_retire_width("skl"), 4, 0);
	CHECK_NEAR(guard_retire_width("skl_smt"), 4, 0); /* the SMT variant: the same core */
	CHECK_NEAR(guard_retire_width("hsw_smt"), 4, 0);
	CHECK_NEAR(guard_retire_width("xscale2"), 1, 0);
	CHECK_NEAR(guard_retire_width("no-such-family"), 8, 0);
	struct guard_limits l;
	guard_limits_for(&l, "skl", "cpu", 0);
	CHECK_NEAR(l.max_hz, GUARD_DEFAULT_HZ, 0);
	guard_limits_for(&l, "skl", "cpu", 3.0e9);
	CHECK_NEAR(l.max_hz, 3.0e9, 0);
}

/* The guard finds cycles and instructions by name; it looks the names up again when they change,
 * also when they change in place with the same number of events (no guard_reset between). */
static void test_names_change(void)
{
	struct guard_limits l;
	guard_limits_for(&l, "skl", "cpu", 0);
	struct guard *g = guard_new(&l);
	char names[2][48] = {"cycles", "instructions"};
	int cpus[1] = {0};
	bool offline[1] = {false};
	struct count counts[2] = {{0, 1, COUNT_OK}, {1e6, 1, COUNT_OK}}, total[2];
	memcpy(total, counts, sizeof(total));
	struct snapshot s = {.interval_s = 1,
			     .nrows = 1,
			     .cpus = cpus,
			     .offline = offline,
			     .nevents = 2,
			     .event_names = (const char(*)[48])names,
			     .counts = counts,
			     .total_counts = total};
	const struct guard_flag *f;
	guard_check(g, &s, NULL);
	int n = guard_flags(g, &f);
	CHECK(n >= 1 && f[0].event == 0 && f[0].reason == GUARD_ZERO_BUSY,
	      "cycles 0 while instructions count: flagged on event 0 (%d flags)", n);
	/* the same buffer, renamed: instructions first now, and cycles (event 1) still 0 */
	snprintf(names[0], sizeof(names[0]), "instructions");
	snprintf(names[1], sizeof(names[1]), "cycles");
	counts[0] = total[0] = (struct count){1e6, 1, COUNT_OK};
	counts[1] = total[1] = (struct count){0, 1, COUNT_OK};
	guard_check(g, &s, NULL);
	n = guard_flags(g, &f);
	CHECK(n >= 1 && f[0].event == 1 && f[0].reason == GUARD_ZERO_BUSY,
	      "after the rename the flag is on event 1 (%d flags, first on %d)", n,
	      n ? f[0].event : -1);
	/* the flag's text names the CPU (a many-digit number too) */
	cpus[0] = 4093;
	guard_check(g, &s, NULL);
	n = guard_flags(g, &f);
	CHECK(n >= 1 && strstr(f[0].text, "cycles on CPU 4093 while") != NULL, "text: %s",
	      n ? f[0].text : "(none)");
	/* names with neither: nothing to check */
	snprintf(names[0], sizeof(names[0]), "cs");
	snprintf(names[1], sizeof(names[1]), "migrations");
	guard_check(g, &s, NULL);
	CHECK_INT(guard_flags(g, &f), 0);
	guard_free(g);
}

/* Writes @text as <root>/proc/stat. */
static void write_stat(const char *root, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "%s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The busy fractions between two reads of a /proc/stat fixture: busy is user + nice + system +
 * irq + softirq, the total adds idle, iowait and steal (top's %Cpu: us+ni+sy+hi+si of all). */
static void test_procstat(void)
{
	char root[] = "/tmp/pmutop-guard-XXXXXX", dir[600];
	CHECK(mkdtemp(root) != NULL, "mkdtemp");
	snprintf(dir, sizeof(dir), "%s/proc", root);
	CHECK(mkdir(dir, 0700) == 0, "%s", dir);
	struct guard_procstat ps = {0};
	int cpus[] = {0, 1, 3, 5}; /* 5: no line */
	double frac[4];
	write_stat(root, "cpu  0 0 0 0 0 0 0 0 0 0\n"
			 "cpu0 100 0 100 700 100 0 0 0 0 0\n"
			 "cpu1 10 10 10 10 10 10 10 10 0 0\n"
			 "cpu3 50 0 0 50 0 0 0 0 0 0\n"
			 "intr 1 2 3\n");
	CHECK_INT(guard_procstat_read(&ps, root, cpus, 4, frac), 0);
	for (int i = 0; i < 4; i++) /* a first read has no interval */
		CHECK(isnan(frac[i]), "first read: frac[%d] = %g", i, frac[i]);
	/* cpu0: +30 user +10 system +40 idle +20 iowait: 40 of 100 busy
	 * cpu1: +5 nice +5 irq +5 softirq +5 steal: 15 of 20
	 * cpu3: nothing counted: no fraction (the total did not move) */
	write_stat(root, "cpu  0 0 0 0 0 0 0 0 0 0\n"
			 "cpu0 130 0 110 740 120 0 0 0 0 0\n"
			 "cpu1 10 15 10 10 10 15 15 15 0 0\n"
			 "cpu3 50 0 0 50 0 0 0 0 0 0\n"
			 "intr 1 2 3\n");
	CHECK_INT(guard_procstat_read(&ps, root, cpus, 4, frac), 0);
	CHECK_NEAR(frac[0], 0.40, 1e-12);
	CHECK_NEAR(frac[1], 0.75, 1e-12);
	CHECK(isnan(frac[2]), "cpu3 idle clock: %g", frac[2]);
	CHECK(isnan(frac[3]), "cpu5 without a line: %g", frac[3]);
	/* a CPU gone offline has no line: no fraction; the others go on */
	write_stat(root, "cpu  0 0 0 0 0 0 0 0 0 0\n"
			 "cpu0 230 0 110 740 120 0 0 0 0 0\n"
			 "intr 1 2 3\n");
	CHECK_INT(guard_procstat_read(&ps, root, cpus, 4, frac), 0);
	CHECK_NEAR(frac[0], 1.0, 1e-12);
	CHECK(isnan(frac[1]), "cpu1 offline: %g", frac[1]);
	/* no file: -1, nothing filled */
	char path[600];
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	unlink(path);
	frac[0] = 0;
	CHECK_INT(guard_procstat_read(&ps, root, cpus, 4, frac), -1);
	CHECK(isnan(frac[0]), "no file: %g", frac[0]);
	rmdir(dir);
	rmdir(root);
	guard_procstat_free(&ps);
}

int main(void)
{
	test_procstat();
	test_limits();
	test_names_change();
	test_shapes();
	test_sim_no_false_flags();
	return harness_done();
}

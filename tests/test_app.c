/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_app.c: the app layer on the sim backend: offcore wiring, screen commands, cadence changes.
 */
#include "app.h"
#include "command.h"
#include "frame.h"
#include "harness.h"
#include "harness_app.h"
#include "options.h"
#include "replay.h"
#include "uistate.h"
#include <math.h>
#include <stddef.h>
#include <unistd.h>

static struct app_ctx app; /* large: static */
static bool have_ui;

static void stop(void)
{
	if (have_ui)
		ui_state_free(&app);
	app_free(&app);
	memset(&app, 0, sizeof(app));
	have_ui = false;
}

/* Starts pmutop with @args (split at blanks), optionally with the screen's state, and primes. */
static int start(const char *args, bool ui)
{
	char err[512];
	if (harness_app_start(&app, args, err, sizeof(err)) < 0) {
		CHECK(0, "start \"%s\": %s", args, err);
		return -1;
	}
	if (ui) {
		CHECK(ui_state_new(&app, err, sizeof(err)) != NULL, "ui: %s", err);
		have_ui = true;
	}
	if (!app.replay && app_tick(&app, err, sizeof(err)) < 0) {
		CHECK(0, "priming: %s", err);
		return -1;
	}
	return 0;
}

static void ticks(int n)
{
	char err[256];
	for (int i = 0; i < n; i++)
		CHECK(app_tick(&app, err, sizeof(err)) >= 0, "tick: %s", err);
}

static int metric_index(const struct snapshot *s, const char *name)
{
	for (int m = 0; m < s->nmetrics; m++)
		if (strcmp(s->metrics[m].name, name) == 0)
			return m;
	return -1;
}

/* Sum of the share metrics of one row (or the total row with @row < 0). */
static double share_sum(const struct snapshot *s, int row)
{
	double sum = 0;
	for (int b = 0; b < app.mode.offcore.nbits; b++) {
		int m = metric_index(s, app.mode.offcore.names[b]);
		if (m >= 0)
			sum += row < 0 ? s->total_values[m] : s->values[row * s->nmetrics + m];
	}
	return sum;
}

static void test_offcore(void)
{
	if (start("--backend sim --sim-family snb --sim-cpus 2 -i 10 -m offcore --no-rc", false) <
	    0)
		return;
	/* Sandy Bridge: 13 request bits swept 2 at a time over the offcore MSRs */
	CHECK(app.mode.offcore.nbits > 0, "offcore map of the running mode");
	CHECK_INT(app.mode.offcore.nbits, 13);
	CHECK_INT(app.mode.nsets, 7);
	ticks(7); /* one full sweep: every bit measured once */
	const struct snapshot *s = session_snapshot(app.session);
	for (int r = 0; r < 2; r++)
		CHECK_NEAR(share_sum(s, r), 100.0, 1e-6);
	CHECK_NEAR(share_sum(s, -1), 100.0, 1e-6);

	/* a pinned pair needs one slice: both count every tick, whole interval */
	char err[256];
	char *pair[] = {"DMND_DATA_RD", "WB"};
	CHECK(app_set_offcore(&app, 2, pair, err, sizeof(err)) == 0, "%s", err);
	const struct session_offcore *running = &app.mode.offcore;
	CHECK_INT(running->nbits, 2);
	CHECK_INT(app.mode.nsets, 0);
	ticks(2);
	s = session_snapshot(app.session);
	for (int e = 0; e < s->nevents; e++)
		CHECK(s->counts[e].state == COUNT_OK, "event %s state %s", s->event_names[e],
		      count_state_name(s->counts[e].state));
	CHECK_NEAR(share_sum(s, 0), 100.0, 1e-9);

	/* a bad selection changes nothing: same map, same bits, same mode */
	char *bad[] = {"NO_SUCH_BIT"};
	CHECK(app_set_offcore(&app, 1, bad, err, sizeof(err)) < 0 && strstr(err, "NO_SUCH_BIT"),
	      "%s", err);
	CHECK(running->nbits == 2, "running map kept");
	CHECK_STR(running->names[1], "WB");

	/* resolving a mode (as --explain and --list-modes do) leaves the running map alone */
	struct session_mode sm;
	app.offcore_choice.set = false;
	CHECK(app_resolve_mode(&app, "offcore", &sm, err, sizeof(err)) == 0, "%s", err);
	CHECK(running->nbits == 2 && strcmp(running->names[1], "WB") == 0,
	      "resolve does not touch the running map");

	/* shares find their events by name: dropping cycles keeps them exact */
	struct session_mode cut = app.mode;
	memmove(&cut.events[0], &cut.events[1], (size_t)(cut.nevents - 1) * sizeof(cut.events[0]));
	cut.nevents--;
	cut.nmetrics = 0;
	for (int m = 0; m < app.mode.nmetrics; m++)
		if (metric_index(session_snapshot(app.session), app.mode.metrics[m].name) >= 0 &&
		    app.mode.metrics[m].ninputs == 1) { /* the share metrics */
			cut.metrics[cut.nmetrics] = app.mode.metrics[m];
			cut.metrics[cut.nmetrics].inputs[0]--;
			cut.nmetrics++;
		}
	CHECK(app_run_mode(&app, &cut, err, sizeof(err)) == 0, "%s", err);
	ticks(2);
	CHECK_NEAR(share_sum(session_snapshot(app.session), 0), 100.0, 1e-9);

	/* another mode: no offcore view */
	CHECK(app_set_mode(&app, "cpi", err, sizeof(err)) == 0, "%s", err);
	CHECK(app.mode.offcore.nbits == 0, "offcore map cleared in cpi");
	stop();
}

/* :sample retimes the sim backend at once (virtual time per read = the loop's tick). */
static void test_sim_cadence(void)
{
	if (start("--backend sim --sim-cpus 2 -i 100 -m cpi --no-rc", false) < 0)
		return;
	ticks(1);
	CHECK_NEAR(session_snapshot(app.session)->interval_s, 0.1, 1e-12);
	char err[256];
	CHECK(app_set_sample(&app, 20, 0, err, sizeof(err)) == 0, "%s", err);
	ticks(2);
	CHECK_NEAR(session_snapshot(app.session)->interval_s, 0.02, 1e-12);
	CHECK(app_set_sample(&app, 500, 0, err, sizeof(err)) < 0 && strstr(err, "out of range"),
	      "%s", err);
	/* below 1 ms (:sample 200us), then back to whole milliseconds */
	CHECK(app_set_sample(&app, 0, 200, err, sizeof(err)) == 0, "%s", err);
	CHECK(app_tick_ns(&app) == 200000, "tick %llu ns", (unsigned long long)app_tick_ns(&app));
	CHECK(app_set_sample(&app, 20, 0, err, sizeof(err)) == 0, "%s", err);
	CHECK(app_tick_ns(&app) == 20000000, "tick %llu ns", (unsigned long long)app_tick_ns(&app));
	stop();
}

/* :probe in the screen: starts in its own view, stops, and refuses what it does not know. */
static void test_probe_command(void)
{
	if (start("--backend sim --sim-cpus 2 -i 100 -m cpi --no-rc", true) < 0)
		return;
	struct ui_state *u = ui_state_of(&app);
	CHECK_INT(ui_state_command(&app, "probe cache"), 0);
	CHECK(u->probe != NULL && u->vs.view == views_find("probe"), "probe view open");
	CHECK(u->ntext > 0 && strstr(u->text[0], "cache probe"), "progress line: %s",
	      u->ntext ? u->text[0] : "");
	CHECK_INT(ui_state_command(&app, "probe stop"), 0);
	CHECK(u->probe == NULL && u->vs.view == VIEWS_TABLE, "probe stopped, table back");
	CHECK(ui_state_command(&app, "probe stop") < 0, "stop without a probe");
	CHECK(ui_state_command(&app, "probe disk") < 0, "unknown probe");
	CHECK(ui_state_command(&app, "probe cache sometimes") < 0, "bad probe argument");
	CHECK(strstr(app.status, "usage: probe cache") != NULL, "usage shown: %s", app.status);
	stop();
}

/* The screen follows what the core's commands did (its app hook): a new mode resets sort,
 * sparkline and history; a new CPU set keeps the columns; a new offcore selection shows it. */
static void test_screen_follows(void)
{
	if (start("--backend sim --sim-family snb --sim-cpus 2 -i 10 -m cpi --no-rc", true) < 0)
		return;
	struct ui_state *u = ui_state_of(&app);
	for (int i = 0; i < 3; i++) { /* what the run loop does: a tick, then its frame */
		ticks(1);
		const struct frame *f = app_refresh_due(&app) ? app_frame_build(&app) : NULL;
		CHECK(f != NULL, "frame %d", i + 1);
		if (f)
			ui_state_frame(&app, f);
	}
	CHECK(u->hist.len == 3, "history of 3 frames: %d", u->hist.len);
	CHECK_INT(ui_state_command(&app, "sort ipc; spark cpi"), 0);
	CHECK(u->vs.sort_col >= 0 && u->vs.spark_metric >= 0, "sorted");
	CHECK_INT(ui_state_command(&app, "cpus 1"), 0);
	CHECK(u->vs.sort_col >= 0 && u->vs.spark_metric >= 0, "cpus keep the columns");
	CHECK(u->hist.len == 0, "cpus restart the history: %d", u->hist.len);
	CHECK_INT(ui_state_command(&app, "mode branch"), 0);
	CHECK(u->vs.sort_col == -1 && u->vs.spark_metric == -1, "a new mode resets sort and spark");
	CHECK(strstr(app.status, "mode branch opened") != NULL, "note: %s", app.status);
	CHECK_INT(u->vs.view, VIEWS_TABLE);
	CHECK_INT(ui_state_command(&app, "offcore DMND_DATA_RD WB"), 0);
	CHECK_INT(u->vs.view, views_find("offcore"));
	CHECK_INT(ui_state_command(&app, "view offcore"), 0); /* o: back to the table */
	CHECK_INT(ui_state_command(&app, "mode cpi; mode offcore"), 0);
	CHECK_INT(u->vs.view, VIEWS_TABLE); /* the same selection: the view stays */
	/* the screen's own settings next to the core's */
	CHECK_INT(ui_state_command(&app, "set ascii on; set interval 20"), 0);
	CHECK(u->ascii && app.interval_ms == 20, "ascii %d, interval %ld", u->ascii,
	      app.interval_ms);
	CHECK_INT(ui_state_command(&app, "show"), 0);
	CHECK(strstr(app.status, "interval=20ms") && strstr(app.status, "ascii=on"), "show: %s",
	      app.status);
	/* :show's values carry their units and :set takes them back (flight-bytes: e2e_commands) */
	CHECK_INT(ui_state_command(&app, "show interval"), 0);
	CHECK(strstr(app.status, "interval = 20ms") != NULL, "show interval: %s", app.status);
	CHECK_INT(ui_state_command(&app, "set interval 20ms"), 0);
	stop();
}

/* On the screen -c and the rc file run every line; errors go to the message log. */
static void test_screen_startup(void)
{
	if (start("--backend sim --sim-cpus 2 -i 100 -m cpi --no-rc -c 1 -c bogus -c 3", true) < 0)
		return;
	struct ui_state *u = ui_state_of(&app);
	/* start() splits at blanks: the commands with blanks go in here */
	app.opt.commands[0] = "sort ipc";
	app.opt.commands[2] = "theme mono";
	ui_state_startup(&app);
	CHECK(u->vs.sort_col >= 0, "-c sort ipc ran");
	CHECK_STR(u->theme.name, "mono");
	bool logged = false;
	for (int i = 0; i < app.nmessages; i++)
		logged |= strstr(app.messages[i].text, "-c:2: unknown command 'bogus'") != NULL;
	CHECK(logged, "-c:2 error in the message log");
	stop();
}

/* m/M in a replay only lands on modes whose events were recorded. */
static void test_replay_mode_walk(void)
{
	char path[] = "/tmp/pmutop-test-app-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "temp file");
	if (fd < 0)
		return;
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "%s -b -n 4 -i 10 --backend sim --sim-cpus 2 -m cpi -r %s >/dev/null 2>&1",
		 getenv("PMUTOP_BIN") ? getenv("PMUTOP_BIN") : "../build/pmutop", path);
	CHECK(system(cmd) == 0, "recording made: %s", cmd);
	char args[600];
	snprintf(args, sizeof(args), "-R %s --no-rc", path);
	if (start(args, true) == 0) {
		CHECK_STR(app.mode_name, "cpi");
		/* the recording holds cycles and instructions only: no other mode can open */
		CHECK(ui_state_command(&app, "mode next") < 0, "mode next refused");
		CHECK(strstr(app.status, "no other mode") != NULL, "message: %s", app.status);
		CHECK_STR(app.mode_name, "cpi");
		stop();
	}
	unlink(path);
}

/* A running mode is the session's own copy: redefining it with a definition that fails to
 * open frees the registry's old mode, and the run goes on evaluating its own copy (this was a
 * heap use-after-free, caught by AddressSanitizer in the metric evaluation). */
static void test_define_twice(void)
{
	if (start("-m sw -i 100 --no-rc", true) < 0)
		return;
	char err[512];
	int rc =
	    command_execute(&app, "define foo 'a=perf::CPU-CLOCK' 'ms=a/1e6'", err, sizeof(err));
	CHECK(rc == 0, "first define: %s", err);
	CHECK_STR(app.mode_name, "foo");
	ticks(2);
	const struct snapshot *s = session_snapshot(app.session);
	int m = metric_index(s, "ms");
	CHECK(m >= 0 && !isnan(s->total_values[m]), "foo's metric counts");
	rc = command_execute(&app, "define foo 'a=nosuch::NO_SUCH_EVENT' 'ms=a/1e6'", err,
			     sizeof(err));
	CHECK(rc < 0, "second define fails to open");
	CHECK_STR(app.mode_name, "foo");
	ticks(3); /* evaluates the running metrics: no read of the freed definition */
	s = session_snapshot(app.session);
	m = metric_index(s, "ms");
	CHECK(m >= 0 && !isnan(s->total_values[m]) && s->total_values[m] > 0,
	      "the running foo still counts after the failed redefinition");
	CHECK_STR(s->metrics[m].formula, "a/1e6");
	stop();
}

/* ARM boards: the seed's XScale modes run on ARMv6 in one counter set (CCNT + 2, no
 * rotation), and ":mode" lists what cannot run on a big.LITTLE tree with the missing event. */
static void test_arm_modes(void)
{
	const char *const seed[] = {"icache", "ifetch", "dcache", "stall", "itlb", "dtlb"};
	char err[512];
	if (start("--backend sim --sim-family armv6 --sim-cpus 2 -m dcache -i 100 --no-rc", false) <
	    0)
		return;
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		CHECK(app_set_mode(&app, seed[i], err, sizeof(err)) == 0, "%s: %s", seed[i], err);
		CHECK(app.mode.nsets <= 1 && !app.mode.singletons, "%s on armv6: %d sets", seed[i],
		      app.mode.nsets);
		int hw = 0;
		for (int e = 0; e < app.mode.nevents; e++)
			hw += app.mode.events[e].set < 0 &&
			      strcmp(app.mode.events[e].spec, "rff") != 0;
		CHECK(hw <= 2, "%s: %d events besides CCNT", seed[i], hw);
		ticks(2);
	}
	const struct snapshot *s = session_snapshot(app.session);
	int m = metric_index(s, "dtlb_miss_pct");
	CHECK(m >= 0 && !isnan(s->total_values[m]), "dtlb on armv6 counts in one set");
	stop();

	if (start("--sysfs-root sysfs/arm-biglittle -m sw -i 100 --no-rc", true) < 0)
		return;
	int before = app.nmessages;
	CHECK(command_execute(&app, "mode", err, sizeof(err)) == 0, "mode: %s", err);
	bool stall = false, cpi = false;
	for (int i = 0; i < app.nmessages && i < APP_MAX_MESSAGES; i++) {
		stall |= strstr(app.messages[i].text, "mode stall: n/a here:") &&
			 strstr(app.messages[i].text, "armv8_cortex_a72") &&
			 strstr(app.messages[i].text, "STALL_BACKEND (0x24)");
		cpi |= strstr(app.messages[i].text, "mode cpi: Cycles per instruction") != NULL;
	}
	CHECK(app.nmessages > before && stall && cpi, "mode lists: stall %d cpi %d", stall, cpi);
	CHECK(command_execute(&app, "mode stall", err, sizeof(err)) < 0 &&
		  strstr(err, "STALL_BACKEND (0x24)"),
	      "mode stall refused: %s", err);
	CHECK_STR(app.mode_name, "sw");
	stop();
}

/* The frame's machine facts and PMU line, kept between frames, follow every change of the
 * machine (a mode's capability line, the CPU set) and never point at the live copy. */
static int frame_machine_matches(const char *when)
{
	const struct frame *f = app_refresh_due(&app) ? app_frame_build(&app) : NULL;
	if (!f) /* a new session's first tick primes */
		return 0;
	const struct source_machine *m = f->machine, *live = &app.machine;
	CHECK(m != live, "%s: the frame's own copy", when);
	CHECK(strcmp(m->host, live->host) == 0 && strcmp(m->kernel, live->kernel) == 0 &&
		  strcmp(m->pmu, live->pmu) == 0 && strcmp(m->family, live->family) == 0 &&
		  strcmp(m->model, live->model) == 0 &&
		  strcmp(m->capability, live->capability) == 0 &&
		  m->counter_bits == live->counter_bits && m->slots == live->slots &&
		  m->ncpus == live->ncpus && m->aggregated_cpus == live->aggregated_cpus,
	      "%s: machine \"%s\" vs \"%s\"", when, m->capability, live->capability);
	char want[200];
	snprintf(want, sizeof(want), "SIMULATED %s", app.family->desc);
	CHECK(strcmp(f->pmu_line, want) == 0, "%s: PMU line \"%s\"", when, f->pmu_line);
	return 1;
}

static void test_frame_machine(void)
{
	if (start("--backend sim --sim-family snb --sim-cpus 2 -i 10 -m cpi --no-rc", true) < 0)
		return;
	static char first[sizeof(app.machine.capability)];
	int frames = 0;
	for (int i = 0; i < 3; i++) {
		ticks(1);
		frames += frame_machine_matches("start");
	}
	CHECK_INT(frames, 3);
	snprintf(first, sizeof(first), "%s", app.frame.machine->capability);
	const char *cmds[] = {"mode branch", "cpus 1", "mode offcore", "cpus 0-1", "mode cpi"};
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		CHECK_INT(ui_state_command(&app, cmds[c]), 0);
		frames = 0;
		for (int i = 0; i < 3; i++) {
			ticks(1);
			frames += frame_machine_matches(cmds[c]);
		}
		CHECK(frames >= 2, "%s: %d frames", cmds[c], frames);
	}
	/* a change of the machine's facts is copied into the next frame */
	snprintf(app.machine.capability, sizeof(app.machine.capability), "changed: %.2000s", first);
	ticks(1);
	CHECK_INT(frame_machine_matches("a new capability line"), 1);
	CHECK(strncmp(app.frame.machine->capability, "changed: ", 9) == 0, "copied: %s",
	      app.frame.machine->capability);
	stop();
}

/* A frame built over an earlier one equals one built fresh: a build clears the fields and the
 * first byte of each text, not the texts and offcore arrays whole, so what an earlier frame
 * left past a text's end or past nbits must never show. */
static bool same_double(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void test_frame_over_old(void)
{
	if (start("--backend sim --sim-family snb --sim-cpus 2 -i 10 -m offcore --no-rc", true) < 0)
		return;
	ticks(3);
	const struct frame *f = app_refresh_due(&app) ? app_frame_build(&app) : NULL;
	CHECK(f != NULL, "a frame");
	if (!f) {
		stop();
		return;
	}
	static struct frame kept;
	struct frame_store *store = NULL;
	memset(&kept, 'x', sizeof(kept)); /* a copy sets each text and array it holds */
	CHECK_INT(frame_copy(&kept, &store, f), 0);
	/* what an earlier frame might have left: every byte of the texts and arrays garbage */
	size_t from = offsetof(struct frame, bit_names);
	memset((char *)&app.frame + from, 'x', sizeof(app.frame) - from);
	f = app_frame_build(&app); /* the same state, built again over the garbage */
	CHECK(f != NULL, "the frame again");
	if (!f) {
		frame_store_free(store);
		stop();
		return;
	}
	CHECK(f->nbits > 0 && f->nbits == kept.nbits, "offcore bits %d vs %d", f->nbits,
	      kept.nbits);
	for (int b = 0; b < f->nbits && b < kept.nbits; b++) {
		CHECK_STR(f->bit_names[b], kept.bit_names[b]);
		CHECK(same_double(f->bit_rate[b], kept.bit_rate[b]) &&
			  same_double(f->bit_share[b], kept.bit_share[b]) &&
			  f->bit_age[b] == kept.bit_age[b],
		      "bit %d: %g %g %d vs %g %g %d", b, f->bit_rate[b], f->bit_share[b],
		      f->bit_age[b], kept.bit_rate[b], kept.bit_share[b], kept.bit_age[b]);
	}
	const char *texts[][2] = {
	    {f->pmu_line, kept.pmu_line},
	    {f->util_source, kept.util_source},
	    {f->banner, kept.banner},
	    {f->position, kept.position},
	    {f->recorder, kept.recorder},
	    {f->self, kept.self},
	    {f->mode, kept.mode},
	    {f->title, kept.title},
	    {f->drill, kept.drill},
	    {f->baseline, kept.baseline},
	    {f->guard_line, kept.guard_line},
	    {f->owners_lines, kept.owners_lines},
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		CHECK(strcmp(texts[i][0], texts[i][1]) == 0, "text %zu: \"%.40s\" vs \"%.40s\"", i,
		      texts[i][0], texts[i][1]);
	CHECK_STR(f->banner, "SIMULATED");
	CHECK_STR(f->mode, "offcore");
	CHECK(f->seq == kept.seq + 1 && f->ticks == kept.ticks && f->nstack == kept.nstack &&
		  f->interval_ms == kept.interval_ms && f->snap->nrows == kept.snap->nrows,
	      "the fields: seq %llu ticks %llu", (unsigned long long)f->seq,
	      (unsigned long long)f->ticks);
	frame_store_free(store);
	stop();
}

/* A tick's numbers as a frame built from it showed them, copied by hand (frame_copy shares). */
struct tick_copy {
	uint64_t seq;
	int r, e, m;
	void *arrays[12];
	size_t sizes[12];
};

static void tick_arrays(const struct snapshot *s, const void **a, size_t *sz)
{
	size_t r = (size_t)s->nrows, e = (size_t)s->nevents, m = (size_t)s->nmetrics;
	const void *ptr[12] = {s->cpus,		 s->offline, s->counts,	       s->total_counts,
			       s->event_age,	 s->values,  s->total_values,  s->running,
			       s->total_running, s->classes, s->total_classes, s->detail};
	size_t size[12] = {r * sizeof(int),
			   r * sizeof(bool),
			   r * e * sizeof(struct count),
			   e * sizeof(struct count),
			   r * e * sizeof(double),
			   r * m * sizeof(double),
			   m * sizeof(double),
			   r * m * sizeof(double),
			   m * sizeof(double),
			   r * m * sizeof(enum metric_class),
			   m * sizeof(enum metric_class),
			   (r + 1) * m * sizeof(struct metric_detail)};
	memcpy(a, ptr, sizeof(ptr));
	memcpy(sz, size, sizeof(size));
}

static void tick_copy(struct tick_copy *c, const struct snapshot *s)
{
	const void *a[12];
	c->seq = s->seq, c->r = s->nrows, c->e = s->nevents, c->m = s->nmetrics;
	tick_arrays(s, a, c->sizes);
	for (int i = 0; i < 12; i++) {
		c->arrays[i] = malloc(c->sizes[i] + 1);
		if (c->arrays[i])
			memcpy(c->arrays[i], a[i], c->sizes[i]);
	}
}

/* Whether @s still holds the numbers of @c, byte for byte. */
static bool tick_same(const struct tick_copy *c, const struct snapshot *s)
{
	const void *a[12];
	size_t sz[12];
	if (s->seq != c->seq || s->nrows != c->r || s->nevents != c->e || s->nmetrics != c->m)
		return false;
	tick_arrays(s, a, sz);
	for (int i = 0; i < 12; i++)
		if (!c->arrays[i] || sz[i] != c->sizes[i] || memcmp(a[i], c->arrays[i], sz[i]) != 0)
			return false;
	return true;
}

/* Frames held across later ticks - copies (frame_copy) and the built frame taken whole
 * (app_frame_take) - keep their own tick's numbers: a frame shares the session's tick instead
 * of copying it, so the session must never write a tick into storage a frame still holds,
 * also when more frames are held than it keeps stores for. */
static void test_frame_held(const char *args)
{
	if (start(args, false) < 0)
		return;
	enum { HELD = 6 };
	static struct frame kept[HELD], taken;
	static struct tick_copy want[HELD], want_taken;
	struct frame_store *store[HELD] = {NULL}, *taken_store = NULL;
	ticks(2);
	for (int i = 0; i < HELD; i++) {
		ticks(1);
		const struct frame *f = app_frame_build(&app);
		CHECK(f != NULL && f->snap, "frame %d", i);
		if (!f || !f->snap)
			break;
		tick_copy(&want[i], f->snap);
		CHECK_INT(frame_copy(&kept[i], &store[i], f), 0);
		/* shared, not copied: else this test proves nothing of the sharing */
		CHECK(kept[i].snap->store != NULL && kept[i].snap->values == f->snap->values,
		      "frame %d holds the tick's own arrays", i);
		if (i == 1) {
			tick_copy(&want_taken, f->snap);
			app_frame_take(&app, &taken, &taken_store);
		}
	}
	ticks(3);
	const struct frame *f = app_frame_build(&app);
	CHECK(f != NULL && f->snap && f->snap->seq > want[HELD - 1].seq, "a later frame");
	for (int i = 0; i < HELD; i++) {
		CHECK(kept[i].snap && tick_same(&want[i], kept[i].snap),
		      "held frame %d keeps its tick's numbers (seq %llu)", i,
		      (unsigned long long)want[i].seq);
		CHECK(!f || kept[i].snap->values != f->snap->values,
		      "held frame %d: not the session's latest tick", i);
	}
	CHECK(taken.snap && tick_same(&want_taken, taken.snap), "the taken frame keeps its tick");
	/* the session's storage freed first: the held frames keep theirs */
	stop();
	for (int i = 0; i < HELD; i++) {
		CHECK(kept[i].snap && tick_same(&want[i], kept[i].snap),
		      "held frame %d after the session's end", i);
		frame_store_free(store[i]);
		for (int k = 0; k < 12; k++)
			free(want[i].arrays[k]);
	}
	frame_store_free(taken_store);
	for (int k = 0; k < 12; k++)
		free(want_taken.arrays[k]);
}

int main(void)
{
	char home[] = "/tmp/pmutop-app-home.XXXXXX";
	if (mkdtemp(home))
		setenv("HOME", home, 1); /* history and rc files go to a scratch directory */
	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_CONFIG_HOME");
	test_offcore();
	test_sim_cadence();
	test_probe_command();
	test_screen_follows();
	test_screen_startup();
	test_replay_mode_walk();
	test_define_twice();
	test_arm_modes();
	test_frame_machine();
	test_frame_over_old();
	test_frame_held("--backend sim --sim-cpus 2 -i 10 -m cpi --no-rc");
	/* more events than counters: a rotation (event ages), and a CPU offline for a while */
	test_frame_held("--backend sim --sim-family snb --sim-cpus 2 -i 10 -m offcore --no-rc "
			"--sim-offline 1:4-6");
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_replay.c: the replay backend and driver: recorded deltas, mode switches, seeking, marks,
 * mode availability, perf stat imports, the recorder's round trip and the agent's controls. */
#include "app.h"
#include "command.h"
#include "harness.h"
#include "options.h"
#include "playback.h"
#include "recorder.h"
#include "remote.h"
#include "replay.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path_buf[4096];
static const char *fixture(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/tests/fixtures/%s", harness_src(), name);
	return path_buf;
}

/* Sets up an app from command-line words, as main() does. */
static int start(struct app_ctx *app, const char *const *words, char *err, size_t errlen)
{
	char *argv[32];
	int argc = 0;
	for (; words[argc] && argc < 31; argc++)
		argv[argc] = (char *)words[argc];
	argv[argc] = NULL;
	memset(app, 0, sizeof(*app));
	if (options_parse(&app->opt, argc, argv, err, errlen) < 0)
		return 2;
	return app_init(app, err, errlen);
}

static double value(const struct snapshot *s, int row, const char *event)
{
	for (int e = 0; e < s->nevents; e++)
		if (strcmp(s->event_names[e], event) == 0)
			return s->counts[row * s->nevents + e].value;
	return NAN;
}

static double metric(const struct snapshot *s, int row, const char *name)
{
	for (int m = 0; m < s->nmetrics; m++)
		if (strcmp(s->metrics[m].name, name) == 0)
			return s->values[row * s->nmetrics + m];
	return NAN;
}

/* two-modes.jsonl: cpi for ticks 0..4 (cycles 2000/s and 3000/s, instructions 1000/s), a mark
 * at 2.5 s, then sw (clock, cs) for ticks 5..7. */
static void test_driver(void)
{
	static struct app_ctx app;
	char err[512] = "";
	const char *words[] = {"pmutop", "-b", "-R", "x", NULL};
	char path[4096];
	snprintf(path, sizeof(path), "%s", fixture("replay/two-modes.jsonl"));
	words[3] = path;
	int rc = start(&app, words, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		app_free(&app);
		return;
	}
	CHECK_STR(app.mode_name, "cpi");
	CHECK_INT(app.ncpus, 2);
	CHECK_INT(app.interval_ms, 1000);
	CHECK_STR(app.machine.host, "board"); /* the recorded machine, not this one */
	CHECK_INT(playback_pending(&app), 8);
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 0); /* priming */
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
	const struct snapshot *s = session_snapshot(app.session);
	CHECK_NEAR(s->interval_s, 1.0, 1e-9);
	CHECK_NEAR(value(s, 0, "cycles"), 2000, 1e-9);
	CHECK_NEAR(value(s, 1, "cycles"), 3000, 1e-9);
	CHECK_NEAR(metric(s, 1, "cpi"), 3.0, 1e-9);
	CHECK(session_backend(app.session)->simulated, "a sim recording stays SIMULATED");

	/* a mode whose events were not recorded says which */
	CHECK_INT(app_set_mode(&app, "dcache", err, sizeof(err)), -1);
	CHECK(strstr(err, "mode dcache needs events") && strstr(err, "that the recording lacks"),
	      "why: %s", err);
	CHECK_STR(app.mode_name, "cpi");
	/* interval changes are refused, :rate changes the pace */
	CHECK_INT(app_set_interval(&app, 500, err, sizeof(err)), -1);
	CHECK_INT(app_set_speed(&app, "4", err, sizeof(err)), 0);
	CHECK_INT(app_set_speed(&app, "+", err, sizeof(err)), 0);
	CHECK_NEAR(app.speed, 8, 1e-9);
	CHECK_INT(app_set_speed(&app, "32", err, sizeof(err)), -1);

	/* the next tick crosses the mark */
	int before = app.nmessages;
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
	bool marked = false;
	for (int i = 0; i < app.nmessages && i < APP_MAX_MESSAGES; i++)
		marked |= strstr(app.messages[i].text, "build started") != NULL;
	CHECK(marked && app.nmessages > before, "mark logged");

	/* step back: the tick before is rebuilt from the one before it */
	CHECK_INT(playback_step(&app, -1, err, sizeof(err)), 0);
	s = session_snapshot(app.session);
	CHECK_NEAR(s->time_s >= 0 ? value(s, 0, "cycles") : 0, 2000, 1e-9);
	CHECK_INT(((struct replay *)app.replay)->served, 2);

	/* seek to a mark, then into the second mode: the display follows the recording */
	char *jump_mark[] = {"jump", "mark", "build", NULL};
	CHECK_INT(playback_seek_arg(&app, 3, jump_mark, err, sizeof(err)), 0);
	CHECK_INT(((struct replay *)app.replay)->served, 3);
	char *jump6[] = {"jump", "6", NULL};
	CHECK_INT(playback_seek_arg(&app, 2, jump6, err, sizeof(err)), 0);
	CHECK_STR(app.mode_name, "sw");
	s = session_snapshot(app.session);
	CHECK_NEAR(value(s, 0, "clock"), 0.5e9, 1);
	CHECK_NEAR(value(s, 1, "cs"), 20, 1e-9);
	/* seeking to the first tick of a mode shows the next one */
	CHECK_INT(playback_seek(&app, 5, err, sizeof(err)), 0);
	CHECK_INT(((struct replay *)app.replay)->served, 6);
	char *bad[] = {"jump", "soon", NULL};
	CHECK_INT(playback_seek_arg(&app, 2, bad, err, sizeof(err)), -1);
	char *nomark[] = {"jump", "mark", "nothing", NULL};
	CHECK_INT(playback_seek_arg(&app, 3, nomark, err, sizeof(err)), -1);

	/* back to the first mode, then to the end */
	CHECK_INT(playback_seek(&app, 0, err, sizeof(err)), 0);
	CHECK_STR(app.mode_name, "cpi");
	int n = 0;
	while (playback_pending(&app) > 0 && n < 20)
		if (playback_tick(&app, err, sizeof(err)) > 0)
			n++;
	CHECK_INT(n, 5);				     /* ticks 2..4 of cpi, 6..7 of sw */
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 0); /* end: nothing, no error */
	char status[256];
	playback_status(&app, status, sizeof(status));
	CHECK(strstr(status, "END") != NULL, "status: %s", status);
	playback_banner(&app, status, sizeof(status));
	CHECK(strncmp(status, "REPLAY ", 7) == 0, "banner: %s", status);
	app_free(&app);
}

/* perf stat imports: the first interval shows, values and running shares are perf's. */
static void test_perfstat(void)
{
	static const struct {
		int line;
		const char *file;
	} cases[] = {
	    {__LINE__, "perfstat/stat.csv"},
	    {__LINE__, "perfstat/stat.json"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct app_ctx app;
		char err[512] = "", path[4096];
		snprintf(path, sizeof(path), "%s", fixture(cases[i].file));
		const char *words[] = {"pmutop", "-b", "-m", "cpi", "-R", path, NULL};
		int rc = start(&app, words, err, sizeof(err));
		CHECK(rc == 0, "line %d: %s", cases[i].line, err);
		if (rc) {
			app_free(&app);
			continue;
		}
		CHECK(app.warnings == 0, "line %d: %d warnings for perf's own lines", cases[i].line,
		      app.warnings);
		playback_tick(&app, err, sizeof(err));
		CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
		const struct snapshot *s = session_snapshot(app.session);
		CHECK_NEAR(value(s, 0, "cycles"), 2000000, 0.5);
		CHECK_NEAR(metric(s, 0, "cpi"), 2.0, 1e-9);
		CHECK_NEAR(s->counts[1 * s->nevents].running, 0.5, 1e-9);
		CHECK_INT(s->counts[1 * s->nevents + 1].state, COUNT_NOT_COUNTED);
		CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
		s = session_snapshot(app.session);
		CHECK_NEAR(metric(s, 1, "cpi"), 2800000.0 / 900000.0, 1e-6);
		app_free(&app);
	}
}

/* Files that must fail cleanly, with the line number. */
static void test_bad_files(void)
{
	static const struct {
		int line;
		const char *file;
		int status;
		const char *msg;
	} cases[] = {
	    {__LINE__, "rec/future.jsonl", 2, "newer than this pmutop"},
	    {__LINE__, "replay/wrongtype.jsonl", 2, ":3: tick"},
	    {__LINE__, "replay/negative.jsonl", 2, "negative"},
	    {__LINE__, "replay/toobig.jsonl", 2, "64 bits"},
	    {__LINE__, "replay/badcpu.jsonl", 2, "CPU 7"},
	    {__LINE__, "replay/notjson.txt", 2, "not a pmutop recording"},
	    {__LINE__, "replay/no-such-file", 2, "cannot open"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct app_ctx app;
		char err[512] = "", path[4096];
		snprintf(path, sizeof(path), "%s", fixture(cases[i].file));
		const char *words[] = {"pmutop", "-b", "-R", path, NULL};
		int rc = start(&app, words, err, sizeof(err));
		CHECK(rc == cases[i].status, "line %d: status %d", cases[i].line, rc);
		CHECK(strstr(err, cases[i].msg) != NULL, "line %d: message '%s'", cases[i].line,
		      err);
		CHECK(!strchr(err, '\x1b'), "line %d: no escape character", cases[i].line);
		app_free(&app);
	}
}

/* Hostile strings never reach the screen raw; huge counters are deltas like any other. */
static void test_hostile(void)
{
	static struct app_ctx app;
	char err[512] = "", path[4096];
	snprintf(path, sizeof(path), "%s", fixture("replay/hostile2.jsonl"));
	const char *words[] = {"pmutop", "-b", "-R", path, NULL};
	CHECK_INT(start(&app, words, err, sizeof(err)), 0);
	CHECK(!strchr(app.machine.host, 0x1b) && !strchr(app.machine.host, 7), "host escaped");
	CHECK(!strchr(app.mode_name, '\x1b'), "mode name escaped: %s", app.mode_name);
	for (int e = 0; e < app.mode.nevents; e++)
		CHECK(!strpbrk(app.mode.events[e].name, "\x1b\r\n"), "event name escaped");
	playback_tick(&app, err, sizeof(err));
	CHECK_INT(playback_tick(&app, err, sizeof(err)), 1);
	const struct snapshot *s = session_snapshot(app.session);
	CHECK_NEAR(s->counts[1].value, 615, 1e-9);
	for (int i = 0; i < app.nmessages; i++)
		CHECK(!strchr(app.messages[i].text, '\x1b'), "message escaped: %s",
		      app.messages[i].text);
	app_free(&app);
}

/* Recording on the sim backend: the file replays to the same numbers, also after a mode switch
 * and a CPU-set change, and marks land in the file. */
static void test_record_roundtrip(void)
{
	char tmpl[] = "/tmp/pmutop-test-replay-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		SKIP("no temporary file");
		return;
	}
	close(fd);
	static struct app_ctx live;
	char err[512] = "";
	const char *words[] = {"pmutop", "-b", "--backend", "sim",	 "--sim-cpus", "3", "-m",
			       "cpi",	 "-i", "10",	    "--sim-mux", "0.5",	       NULL};
	CHECK_INT(start(&live, words, err, sizeof(err)), 0);
	CHECK_INT(recorder_start(&live, tmpl, err, sizeof(err)), 0);
	CHECK_INT(recorder_start(&live, tmpl, err, sizeof(err)), -1); /* already */
	double want[3][2];
	app_tick(&live, err, sizeof(err));
	for (int i = 0; i < 3; i++) {
		app_tick(&live, err, sizeof(err));
		const struct snapshot *s = session_snapshot(live.session);
		want[i][0] = value(s, 1, "cycles");
		want[i][1] = metric(s, 2, "ipc");
	}
	CHECK_INT(recorder_mark(&live, "half \x1b way", err, sizeof(err)), 0);
	CHECK_INT(app_set_mode(&live, "sw", err, sizeof(err)), 0);
	app_tick(&live, err, sizeof(err));
	app_tick(&live, err, sizeof(err));
	double sw_clock = value(session_snapshot(live.session), 0, "clock");
	CHECK_INT(app_set_cpus(&live, "1-2", err, sizeof(err)), 0);
	app_tick(&live, err, sizeof(err));
	app_tick(&live, err, sizeof(err));
	double cpus_clock = value(session_snapshot(live.session), 1, "clock");
	char status[256];
	recorder_status(&live, status, sizeof(status));
	CHECK(strncmp(status, "REC ", 4) == 0, "status %s", status);
	CHECK_INT(recorder_stop(&live, err, sizeof(err)), 0);
	CHECK_INT(recorder_stop(&live, err, sizeof(err)), -1);
	CHECK_INT(recorder_mark(&live, "late", err, sizeof(err)), -1);
	app_free(&live);

	static struct app_ctx rep;
	const char *rwords[] = {"pmutop", "-b", "-R", tmpl, NULL};
	CHECK_INT(start(&rep, rwords, err, sizeof(err)), 0);
	if (!rep.replay) {
		unlink(tmpl);
		return;
	}
	struct replay *r = rep.replay;
	CHECK_INT(r->f.nmarks, 1);
	CHECK_INT(r->f.nmodes, 3);
	playback_tick(&rep, err, sizeof(err));
	for (int i = 0; i < 3; i++) {
		CHECK_INT(playback_tick(&rep, err, sizeof(err)), 1);
		const struct snapshot *s = session_snapshot(rep.session);
		CHECK_NEAR(value(s, 1, "cycles"), want[i][0], 1e-6);
		CHECK_NEAR(metric(s, 2, "ipc"), want[i][1], 1e-9);
	}
	double got_sw = NAN, got_cpus = NAN;
	int n = 0;
	while (playback_pending(&rep) > 0 && n++ < 10) {
		if (playback_tick(&rep, err, sizeof(err)) <= 0)
			continue;
		const struct snapshot *s = session_snapshot(rep.session);
		if (isnan(got_sw))
			got_sw = value(s, 0, "clock");
		else
			got_cpus = value(s, 2, "clock"); /* recorded header rows 0-2: CPU 2 */
	}
	CHECK_STR(rep.mode_name, "sw");
	CHECK_NEAR(got_sw, sw_clock, 1e-3);
	CHECK_NEAR(got_cpus, cpus_clock, 1e-3);
	app_free(&rep);
	unlink(tmpl);
}

/* The agent's control lines. */
static void test_agent_commands(void)
{
	static struct app_ctx app;
	char err[512] = "";
	const char *words[] = {"pmutop", "-b", "--backend", "sim", "-m", "cpi", NULL};
	CHECK_INT(start(&app, words, err, sizeof(err)), 0);
	static const struct {
		int line;
		const char *cmd;
		int rc;
		const char *mode;
	} cases[] = {
	    {__LINE__, "mode sw", 0, "sw"},
	    {__LINE__, "  mode cpi\r", 0, "cpi"}, /* the shared splitter: \r is a blank */
	    {__LINE__, "mode cpi", 0, "cpi"},
	    {__LINE__, "interval 250", 0, "cpi"},
	    {__LINE__, "interval 5", -1, "cpi"},
	    {__LINE__, "interval soon", -1, "cpi"},
	    {__LINE__, "cpus 0-1", 0, "cpi"},
	    {__LINE__, "mark not recording", -1, "cpi"},
	    {__LINE__, "mode a b", -1, "cpi"},
	    {__LINE__, "frobnicate \x1b[2J", -1, "cpi"},
	    {__LINE__, "", 0, "cpi"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		int rc = command_control(&app, cases[i].cmd, err, sizeof(err));
		CHECK(rc == cases[i].rc, "line %d: rc %d (%s)", cases[i].line, rc, err);
		CHECK(strcmp(app.mode_name, cases[i].mode) == 0, "line %d: mode %s", cases[i].line,
		      app.mode_name);
		CHECK(!strchr(err, '\x1b'), "line %d: escaped", cases[i].line);
	}
	CHECK_INT(app.interval_ms, 250);
	CHECK_INT(app.ncpus, 2);
	CHECK(!app.quit, "still running");
	CHECK_INT(command_control(&app, "quit", err, sizeof(err)), 0);
	CHECK(app.quit, "quit");
	app_free(&app);
}

static void test_sizes(void)
{
	static const struct {
		int line;
		const char *text;
		int rc;
		uint64_t want;
	} cases[] = {
	    {__LINE__, "4096", 0, 4096},     {__LINE__, "64k", 0, 65536},
	    {__LINE__, "2M", 0, 2 << 20},    {__LINE__, "1G", 0, 1ULL << 30},
	    {__LINE__, "10MB", 0, 10 << 20}, {__LINE__, "x", -1, 0},
	    {__LINE__, "-5", -1, 0},	     {__LINE__, "5T", -1, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		int rc = recorder_parse_size(cases[i].text, &v);
		CHECK(rc == cases[i].rc, "line %d: rc %d", cases[i].line, rc);
		if (rc == 0)
			CHECK(v == cases[i].want, "line %d: %llu", cases[i].line,
			      (unsigned long long)v);
	}
	/* recorder_format_size is its inverse: the largest exact unit, parsed back to the bytes */
	static const struct {
		uint64_t bytes;
		const char *text;
	} sizes[] = {{64ull << 20, "64M"}, {500 << 10, "500K"},	  {2ull << 30, "2G"},
		     {70000, "70000"},	   {1536 << 10, "1536K"}, {0, "0"}};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char buf[32];
		uint64_t back = 1;
		CHECK_STR(recorder_format_size(sizes[i].bytes, buf, sizeof(buf)), sizes[i].text);
		CHECK(recorder_parse_size(buf, &back) == 0 && back == sizes[i].bytes, "%s -> %llu",
		      buf, (unsigned long long)back);
	}
}

int main(void)
{
	test_driver();
	test_perfstat();
	test_bad_files();
	test_hostile();
	test_record_roundtrip();
	test_agent_commands();
	test_sizes();
	return harness_done();
}

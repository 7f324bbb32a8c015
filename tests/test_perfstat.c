/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perfstat.c: perf stat CSV/JSON import gives back perf's values through count_delta. */
#include "harness.h"
#include "perfstat.h"

#include <unistd.h>

static char tmpdir[64];

static const char *fixture(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/tests/fixtures/perfstat/%s", harness_src(), name);
	return buf;
}

static const char *tmp_file(const char *name, const char *text)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

enum { CYC, INS, SMI, CLK };
#define ABSENT (-1)

/* Expected per-interval result of count_delta (previous tick, or zero for the first). */
static const struct {
	int line;
	int interval, cpu, ev;
	int state; /* enum count_state, or ABSENT (present == false) */
	double value, running;
} expect[] = {
    {__LINE__, 0, 0, CYC, COUNT_OK, 2000000, 1},
    {__LINE__, 0, 1, CYC, COUNT_SCALED, 3000000, 0.5},
    {__LINE__, 0, 0, INS, COUNT_OK, 1000000, 1},
    {__LINE__, 0, 1, INS, COUNT_NOT_COUNTED, 0, 0},
    {__LINE__, 0, 0, SMI, ABSENT, 0, 0},
    {__LINE__, 0, 1, SMI, ABSENT, 0, 0},
    {__LINE__, 0, 0, CLK, COUNT_OK, 1000500000, 1},
    {__LINE__, 0, 1, CLK, COUNT_OK, 1000500000, 1},
    {__LINE__, 1, 0, CYC, COUNT_OK, 2500000, 1},
    {__LINE__, 1, 1, CYC, COUNT_SCALED, 2800000, 0.25},
    {__LINE__, 1, 0, INS, COUNT_OK, 1200000, 1},
    {__LINE__, 1, 1, INS, COUNT_OK, 900000, 1},
    {__LINE__, 1, 0, SMI, ABSENT, 0, 0},
    {__LINE__, 1, 1, SMI, ABSENT, 0, 0},
    {__LINE__, 1, 0, CLK, COUNT_OK, 1000250000, 1},
    {__LINE__, 1, 1, CLK, COUNT_OK, 999750000, 1},
    {__LINE__, 2, 0, CYC, COUNT_NOT_COUNTED, 0, 0},
    {__LINE__, 2, 1, CYC, COUNT_OK, 3300000, 1},
    {__LINE__, 2, 0, INS, COUNT_OK, 1100000, 1},
    {__LINE__, 2, 1, INS, COUNT_SCALED, 1000000, 0.755},
    {__LINE__, 2, 0, SMI, ABSENT, 0, 0},
    {__LINE__, 2, 1, SMI, ABSENT, 0, 0}, /* no line at all for CPU1 */
    {__LINE__, 2, 0, CLK, COUNT_OK, 1000000000, 1},
    {__LINE__, 2, 1, CLK, COUNT_OK, 1000000000, 1},
};

static void check_import(const struct rec_file *f, const char *what)
{
	static const char *const names[] = {"cycles", "instructions", "msr/smi/", "cpu-clock"};
	CHECK_STR(f->header.backend, "replay");
	CHECK_INT(f->header.version, REC_FORMAT_VERSION);
	CHECK_INT(f->header.ncpus, 2);
	CHECK_INT(f->header.interval_ms, 1001);
	CHECK_INT(f->nmodes, 1);
	CHECK_INT(f->nticks, 3);
	if (f->nmodes != 1 || f->nticks != 3 || f->header.ncpus != 2)
		return;
	CHECK_INT(f->modes[0].nevents, 4);
	for (int i = 0; i < 4 && i < f->modes[0].nevents; i++)
		CHECK_STR(f->modes[0].events[i].name, names[i]);
	CHECK_NEAR(f->ticks[1].t, 2.001, 1e-9);
	CHECK_NEAR(f->ticks[2].interval_ms, 1000.5, 1e-6);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct rec_tick *t = &f->ticks[expect[i].interval];
		const struct rec_counter *cur = &t->cpus[expect[i].cpu].c[expect[i].ev];
		CHECK(t->cpus[expect[i].cpu].cpu == expect[i].cpu, "%s line %d: cpu order", what,
		      expect[i].line);
		if (expect[i].state == ABSENT) {
			CHECK(!cur->present, "%s line %d: should be absent", what, expect[i].line);
			continue;
		}
		CHECK(cur->present, "%s line %d: absent", what, expect[i].line);
		struct raw_count zero = {0, 0, 0};
		const struct raw_count *prev =
		    expect[i].interval
			? &f->ticks[expect[i].interval - 1].cpus[expect[i].cpu].c[expect[i].ev].raw
			: &zero;
		struct count c;
		count_delta(prev, &cur->raw, 64, &c);
		CHECK(c.state == (enum count_state)expect[i].state, "%s line %d: state %s", what,
		      expect[i].line, count_state_name(c.state));
		/* one count of rounding per tick, scaled up by 1/running */
		CHECK(fabs(c.value - expect[i].value) <= 4.5, "%s line %d: value %.3f, want %.3f",
		      what, expect[i].line, c.value, expect[i].value);
		CHECK_NEAR(c.running, expect[i].running, 1e-6);
	}
}

static void test_fixtures(void)
{
	static const struct {
		int line;
		const char *file;
		enum perfstat_format fmt;
		const char *source;
		const char *garbage[2]; /* a line inserted as line 19, and the error it gives */
		const char *mixed[2];	/* the same for an aggregated line in a per-CPU capture */
	} cases[] = {
	    {__LINE__,
	     "stat.csv",
	     PERFSTAT_CSV,
	     "perf-stat-csv",
	     {"this line is not perf stat output\n", ":19: not a perf stat -x line"},
	     {"     3.001500000,123456,,cycles,1000500000,100.00,,\n",
	      ":19: an aggregated line in a per-CPU (-A) capture"}},
	    {__LINE__,
	     "stat.json",
	     PERFSTAT_JSON,
	     "perf-stat-json",
	     {"this line is not perf stat output\n", ":19: not a perf stat JSON line"},
	     {"{\"interval\" : 3.001500000, \"counter-value\" : \"123456.000000\", \"unit\" : "
	      "\"\", "
	      "\"event\" : \"cycles\", \"event-runtime\" : 1000500000, \"pcnt-running\" : "
	      "100.00}\n",
	      ":19: an aggregated line in a per-CPU (-A) capture"}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		struct rec_file f;
		CHECK_INT(perfstat_detect(fixture(cases[i].file)), cases[i].fmt);
		int rc =
		    perfstat_load(fixture(cases[i].file), PERFSTAT_UNKNOWN, &f, err, sizeof(err));
		CHECK(rc == 0, "line %d: %s", cases[i].line, err);
		if (rc)
			continue;
		CHECK_STR(f.header.source, cases[i].source);
		check_import(&f, cases[i].file);
		CHECK(f.nwarnings == 0, "line %d: %d warnings (%s)", cases[i].line, f.nwarnings,
		      f.nwarnings ? f.warnings[0] : "");
		/* a line that is not perf stat output fails the import, with its number */
		for (int g = 0; g < 2; g++) {
			const char *const *bad = g ? cases[i].mixed : cases[i].garbage;
			char text[16384] = "", one[1024];
			FILE *in = fopen(fixture(cases[i].file), "r");
			for (int ln = 1; in && fgets(one, sizeof(one), in); ln++) {
				if (ln == 19)
					strcat(text, bad[0]);
				strcat(text, one);
			}
			if (in)
				fclose(in);
			struct rec_file g2;
			char e2[256] = "";
			int r2 = perfstat_load(tmp_file("garbage.txt", text), PERFSTAT_UNKNOWN, &g2,
					       e2, sizeof(e2));
			CHECK(r2 == -1 && strstr(e2, bad[1]), "line %d: garbage: rc %d \"%s\"",
			      cases[i].line, r2, e2);
			if (r2 == 0)
				rec_file_free(&g2);
		}

		/* the import saved as a pmutop recording reads back identically */
		char path[256];
		snprintf(path, sizeof(path), "%s/conv.jsonl", tmpdir);
		struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
		int ok = w && rec_writer_write_header(w, &f.header, err, sizeof(err)) == 0 &&
			 rec_writer_write_mode(w, &f.modes[0], err, sizeof(err)) == 0;
		for (int t = 0; ok && t < f.nticks; t++)
			ok = rec_writer_write_tick(w, &f.ticks[t], err, sizeof(err)) == 0;
		ok &= rec_writer_close(w, err, sizeof(err)) == 0;
		CHECK(ok, "line %d: write: %s", cases[i].line, err);
		struct rec_file g;
		rc = rec_load(path, &g, err, sizeof(err));
		CHECK(rc == 0, "line %d: reload: %s", cases[i].line, err);
		if (rc == 0) {
			check_import(&g, "reloaded");
			CHECK_STR(g.header.source, cases[i].source);
			rec_file_free(&g);
		}
		rec_file_free(&f);
	}
}

/* Fixtures recorded with perf stat on this kind of machine (README.md there); expected values
 * are the numbers perf printed in the file, in ns for msec, read back through count_delta. */
enum { SW_CLK, SW_CS, SW_MIGR, SW_FAULTS, SW_CYCLES };
static const struct {
	int line;
	const char *file;
	int ncpus, nticks, nevents, interval_ms;
	const char *warn[3]; /* the first warnings, in order */
	int tick, cpu, ev, state;
	double value, running;
} sw_cases[] = {
    {__LINE__, "sw-percpu.csv", 2, 3, 4, 502, {NULL}, 1, 1, SW_CS, COUNT_OK, 416, 1},
    {__LINE__, "sw-percpu.csv", 2, 3, 4, 502, {NULL}, 0, 0, SW_CLK, COUNT_OK, 507200000, 1},
    {__LINE__, "sw-percpu.json", 2, 3, 4, 501, {NULL}, 2, 0, SW_FAULTS, COUNT_OK, 1520, 1},
    {__LINE__, "sw-percpu.json", 2, 3, 4, 501, {NULL}, 1, 1, SW_CLK, COUNT_OK, 509123454, 1},
    {__LINE__,
     "sw-aggregated.csv",
     1,
     3,
     4,
     501,
     {"sw-aggregated.csv:15: perf's summary line", "sw-aggregated.csv:18: perf's summary line",
      "aggregated capture (perf stat without -A)"},
     0,
     0,
     SW_CS,
     COUNT_OK,
     861,
     1},
    {__LINE__,
     "sw-aggregated.json",
     1,
     3,
     4,
     503,
     {"sw-aggregated.json:15: perf's summary line", "sw-aggregated.json:18: perf's summary",
      "aggregated capture"},
     2,
     0,
     SW_MIGR,
     COUNT_OK,
     5,
     1},
    {__LINE__,
     "sw-percpu-once.ssv",
     2,
     1,
     4,
     506,
     {"no interval timestamps (perf stat without -I): one interval of 0.506 s"},
     0,
     1,
     SW_FAULTS,
     COUNT_OK,
     7438,
     1},
    {__LINE__, "sw-mux.csv", 2, 3, 5, 502, {NULL}, 1, 1, SW_CS, COUNT_SCALED, 416, 0.5},
    {__LINE__, "sw-mux.csv", 2, 3, 5, 502, {NULL}, 1, 0, SW_MIGR, COUNT_NOT_COUNTED, 0, 0},
    {__LINE__, "sw-mux.csv", 2, 3, 5, 502, {NULL}, 1, 1, SW_CYCLES, ABSENT, 0, 0},
    {__LINE__, "sw-mux.csv", 2, 3, 5, 502, {NULL}, 2, 0, SW_CYCLES, ABSENT, 0, 0},
    {__LINE__, "sw-mux.csv", 2, 3, 5, 502, {NULL}, 2, 1, SW_CS, COUNT_OK, 151, 1},
};

static void test_sw_fixtures(void)
{
	for (size_t i = 0; i < sizeof(sw_cases) / sizeof(sw_cases[0]); i++) {
		char err[256] = "";
		struct rec_file f;
		int rc = perfstat_load(fixture(sw_cases[i].file), PERFSTAT_UNKNOWN, &f, err,
				       sizeof(err));
		CHECK(rc == 0, "line %d: %s", sw_cases[i].line, err);
		if (rc)
			continue;
		CHECK_INT(f.header.ncpus, sw_cases[i].ncpus);
		CHECK_INT(f.nticks, sw_cases[i].nticks);
		CHECK_INT(f.header.interval_ms, sw_cases[i].interval_ms);
		CHECK(f.nmodes == 1 && f.modes[0].nevents == sw_cases[i].nevents, "line %d: events",
		      sw_cases[i].line);
		int k = 0;
		for (; k < 3 && sw_cases[i].warn[k]; k++) {
			/* the warnings named appear in this order (summary lines 15..18 between) */
			int found = -1;
			for (int w = 0; w < f.nwarnings && found < 0; w++)
				if (strstr(f.warnings[w], sw_cases[i].warn[k]))
					found = w;
			CHECK(found >= 0, "line %d: no warning \"%s\"", sw_cases[i].line,
			      sw_cases[i].warn[k]);
		}
		if (k == 0)
			CHECK(f.nwarnings == 0, "line %d: warning \"%s\"", sw_cases[i].line,
			      f.nwarnings ? f.warnings[0] : "");
		if (f.header.ncpus != sw_cases[i].ncpus || f.nticks != sw_cases[i].nticks ||
		    f.modes[0].nevents != sw_cases[i].nevents) {
			rec_file_free(&f);
			continue;
		}
		int t = sw_cases[i].tick, c = sw_cases[i].cpu, e = sw_cases[i].ev;
		const struct rec_counter *cur = &f.ticks[t].cpus[c].c[e];
		if (sw_cases[i].state == ABSENT) {
			CHECK(!cur->present, "line %d: should be absent", sw_cases[i].line);
		} else {
			struct raw_count zero = {0, 0, 0};
			const struct raw_count *prev = t ? &f.ticks[t - 1].cpus[c].c[e].raw : &zero;
			struct count cnt;
			count_delta(prev, &cur->raw, 64, &cnt);
			CHECK(cnt.state == (enum count_state)sw_cases[i].state, "line %d: state %s",
			      sw_cases[i].line, count_state_name(cnt.state));
			CHECK(fabs(cnt.value - sw_cases[i].value) <= 1.5,
			      "line %d: %.3f, want %.3f", sw_cases[i].line, cnt.value,
			      sw_cases[i].value);
			CHECK_NEAR(cnt.running, sw_cases[i].running, 1e-6);
		}
		rec_file_free(&f);
	}
}

static const struct {
	int line;
	const char *text;
	enum perfstat_format fmt;
	const char *err;  /* NULL: must load */
	int nev, nticks;  /* when it loads */
	const char *warn; /* expected first warning, or NULL for none */
} cases[] = {
    /* event names with commas (raw event syntax) */
    {__LINE__,
     "1.0,CPU0,10,,cpu/event=0x3c,umask=0x0/,1000,100.00,,\n"
     "1.0,CPU0,20,,cpu/event=0xc0,umask=0x0/,1000,100.00,2.00,insn per cycle\n",
     PERFSTAT_CSV, NULL, 2, 1, NULL},
    {__LINE__, "", PERFSTAT_CSV, "no perf stat counter lines", 0, 0, NULL},
    /* aggregated (no -A), no -I: one interval as long as the run */
    {__LINE__, "10,,cycles,1000,100.00,,\n", PERFSTAT_CSV, "nothing that gives the elapsed time", 0,
     0, NULL},
    {__LINE__, "10,,cycles,0,0.00,,\n", PERFSTAT_CSV, "nothing that gives the elapsed time", 0, 0,
     NULL},
    /* ... the elapsed time from cpu-clock and its CPUs utilized (2000 ms / 2.000 CPUs = 1 s) */
    {__LINE__,
     "2000.00,msec,cpu-clock,2000000000,100.00,2.000,CPUs utilized\n10,,cycles,2000000000,100.00,,"
     "\n",
     PERFSTAT_CSV, NULL, 2, 1, "one interval of 1.000 s, from cpu-clock or task-clock"},
    /* perf stat -r N: the variance column is not part of the event name */
    {__LINE__,
     "606.49,msec,task-clock,0.85%,606487749,100.00,1.982,CPUs utilized\n"
     "510,,context-switches,19.64%,606486606,100.00,826.809,/sec\n",
     PERFSTAT_CSV, NULL, 2, 1, "one interval of 0.306 s"},
    /* other separators, and a per-CPU line in an aggregated capture */
    {__LINE__, "1.0;7;;cs;1000;100.00;;\n1.0;CPU1;7;;cs;1000;100.00;;\n", PERFSTAT_CSV,
     "t.txt:2: a per-CPU line in an aggregated", 0, 0, NULL},
    {__LINE__, "1.0|CPU0|7||cs|1000|100.00||\n", PERFSTAT_CSV, NULL, 1, 1, NULL},
    /* a line without a timestamp after the intervals is perf's summary */
    {__LINE__, "1.0,CPU0,7,,cs,1000,100.00,,\nCPU0,7,,cs,1000,100.00,,\n", PERFSTAT_CSV, NULL, 1, 1,
     "t.txt:2: perf's summary line"},
    {__LINE__, "{\"type\":\"header\",\"format\":\"pmutop-recording\",\"version\":1}\n",
     PERFSTAT_UNKNOWN, "this is a pmutop recording", 0, 0, NULL},
    {__LINE__, "hello\n", PERFSTAT_UNKNOWN, "not perf stat -x, or -j output", 0, 0, NULL},
    {__LINE__, "2.0,CPU0,10,,cycles,1000,100.00,,\n1.0,CPU0,10,,cycles,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:2: timestamp 1 goes back in time", 0, 0, NULL},
    {__LINE__, "1.0,CPU0,10,,cycles,1000,100.00,,\n1.0,CPU0,11,,cycles,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:2: CPU 0 event 'cycles' repeated", 0, 0, NULL},
    {__LINE__, "1.0,CPU0,-5,,cycles,1000,100.00,,\n1.0,CPU0,5,,\x1b[2J,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:1: bad counter value '-5'", 0, 0, NULL},
    {__LINE__, "1.0,CPU99999,5,,cycles,1000,100.00,,\n1.0,CPU1,5,,cycles,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:1: CPU 99999 out of range", 0, 0, NULL},
    {__LINE__, "1.0,CPU0,1.5,Joules,power/energy-pkg/,1000,100.00,,\n", PERFSTAT_CSV, NULL, 1, 1,
     "fractional values"},
    {__LINE__,
     "{\"interval\":1.0,\"cpu\":0,\"counter-value\":12,\"unit\":\"\",\"event\":\"cycles\","
     "\"pcnt-running\":\"100.00\"}\n{\"foo\":1}\n[1]\n",
     PERFSTAT_JSON, "t.txt:2: not a perf stat counter line", 0, 0, NULL},
    /* per unit (--per-core, --per-socket, ...): a unit needs its CPU count, once per event */
    {__LINE__, "1.0,S0,2,10,,cycles,1000,100.00,,\n1.0,S0,2,11,,cycles,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:2: S0 event 'cycles' repeated", 0, 0, NULL},
    {__LINE__, "1.0,S0,0,10,,cycles,1000,100.00,,\n", PERFSTAT_CSV,
     "t.txt:1: socket S0: bad CPU count '0'", 0, 0, NULL},
    {__LINE__, "1.0,N0,1,10,,cycles,1000,100.00,,\n1.0,S0-D0,1,10,,cycles,1000,100.00,,\n",
     PERFSTAT_CSV, "t.txt:2: a perf stat --per-die line (S0-D0) in a --per-node capture", 0, 0,
     NULL},
    {__LINE__,
     "{\"interval\":1.0,\"core\":5,\"aggregate-number\":1,\"counter-value\":\"12\",\"unit\":\"\","
     "\"event\":\"cycles\",\"event-runtime\":1000,\"pcnt-running\":100.00}\n",
     PERFSTAT_JSON, "t.txt:1: bad \"core\" unit ''", 0, 0, NULL},
    {__LINE__,
     "{\"interval\":1.0,\"die\":\"S0-D0\",\"counter-value\":\"12\",\"unit\":\"\","
     "\"event\":\"cycles\",\"event-runtime\":1000,\"pcnt-running\":100.00}\n",
     PERFSTAT_JSON, "t.txt:1: die S0-D0: bad CPU count ''", 0, 0, NULL},
    {__LINE__,
     "{\"interval\":1.0,\"cluster\":\"S0-D0-CLS1\",\"counters\":2,\"counter-value\":\"12\","
     "\"unit\":\"\",\"event\":\"cycles\",\"event-runtime\":1000,\"pcnt-running\":100.00}\n",
     PERFSTAT_JSON, NULL, 1, 1, "perf stat --per-cluster capture: 1 cluster row"},
};

/* A per-unit capture: rows numbered 0.., each keyed by the unit perf printed, with its CPUs. */
static void test_units(void)
{
	struct rec_file f;
	char err[256] = "";
	int rc = perfstat_load(fixture("hw-per-cache.csv"), PERFSTAT_UNKNOWN, &f, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	if (rc)
		return;
	CHECK_STR(f.header.rows, "cache");
	CHECK_INT(f.header.ncpus, 2);
	CHECK_INT(f.nticks, 2);
	if (f.header.ncpus == 2) {
		CHECK_INT(f.header.cpus[0].cpu, 0);
		CHECK_STR(f.header.cpus[0].key, "S0-D0-L3-ID0");
		CHECK_INT(f.header.cpus[0].key_cpus, 8);
		CHECK_INT(f.header.cpus[1].cpu, 1);
		CHECK_STR(f.header.cpus[1].key, "S0-D0-L3-ID8");
		CHECK_INT(f.header.cpus[1].key_cpus, 8);
	}
	CHECK_INT(f.header.aggregated_cpus, 0);
	rec_file_free(&f);
}

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256] = "";
		struct rec_file f;
		const char *path = tmp_file("t.txt", cases[i].text);
		int rc = perfstat_load(path, cases[i].fmt, &f, err, sizeof(err));
		if (cases[i].err) {
			CHECK(rc == -1 && strstr(err, cases[i].err), "line %d: rc %d \"%s\"",
			      cases[i].line, rc, err);
			CHECK(f.nticks == 0 && f.nwarnings == 0, "line %d: output left",
			      cases[i].line);
			continue;
		}
		CHECK(rc == 0, "line %d: %s", cases[i].line, err);
		if (rc)
			continue;
		CHECK(f.nmodes == 1 && f.modes[0].nevents == cases[i].nev, "line %d: %d events",
		      cases[i].line, f.nmodes ? f.modes[0].nevents : -1);
		CHECK(f.nticks == cases[i].nticks, "line %d: %d ticks", cases[i].line, f.nticks);
		if (cases[i].warn)
			CHECK(f.nwarnings > 0 && strstr(f.warnings[0], cases[i].warn),
			      "line %d: warning \"%s\"", cases[i].line,
			      f.nwarnings ? f.warnings[0] : "");
		else
			CHECK(f.nwarnings == 0, "line %d: warning \"%s\"", cases[i].line,
			      f.nwarnings ? f.warnings[0] : "");
		rec_file_free(&f);
	}
	/* the comma case: names rejoined, values right */
	struct rec_file f;
	char err[256];
	const char *path = tmp_file("c.csv", cases[0].text);
	if (perfstat_load(path, PERFSTAT_UNKNOWN, &f, err, sizeof(err)) == 0) {
		CHECK_STR(f.modes[0].events[1].name, "cpu/event=0xc0,umask=0x0/");
		CHECK_INT(f.ticks[0].cpus[0].c[1].raw.value, 20);
		CHECK_INT(f.ticks[0].cpus[0].c[1].raw.enabled, 1000000000);
		rec_file_free(&f);
	}
	/* hostile event names are kept as read but never reach a message unescaped */
	path = tmp_file("h.csv",
			"1.0,CPU0,5,,ev\x1b]0;x\x07,1000,100.00,,\n1.0,CPU0,<bad>,,y\x1b,1,1,,\n");
	if (perfstat_load(path, PERFSTAT_CSV, &f, err, sizeof(err)) == 0) {
		for (int i = 0; i < f.nwarnings; i++)
			CHECK(!strpbrk(f.warnings[i], "\x1b\x07"), "raw escape in \"%s\"",
			      f.warnings[i]);
		CHECK_STR(f.modes[0].events[0].name, "ev\x1b]0;x\x07");
		rec_file_free(&f);
	}
	CHECK_INT(perfstat_detect("/nonexistent/file"), PERFSTAT_UNKNOWN);
	CHECK_STR(perfstat_format_name(PERFSTAT_JSON), "json");
	CHECK(perfstat_load("/nonexistent/file", PERFSTAT_CSV, &f, err, sizeof(err)) == -1 &&
		  strstr(err, "cannot open"),
	      "%s", err);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_perfstat.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_fixtures();
	test_sw_fixtures();
	test_cases();
	test_units();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return harness_done();
}

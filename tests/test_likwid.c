/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_likwid.c: likwid group files -> modes: arch names, the nominal clock, formulas, event
 * mapping checked against likwid's own event tables, unsupported counters, malformed files. */
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "harness.h"
#include "likwid.h"
#include "linereader.h"
#include "mode.h"
#include <ctype.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	char err[256];
	char *t =
	    lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, err, sizeof(err));
	if (!t)
		fprintf(stderr, "%s\n", err);
	return t;
}

static struct likwid_env env_for(const char *family, double hz)
{
	struct likwid_env env = {.family = family_find(family), .sysfs_root = "", .nominal_hz = hz};
	snprintf(env.clock_source, sizeof(env.clock_source), "test");
	return env;
}

static const struct mode_metric *metric(const struct mode *m, const char *name)
{
	for (int i = 0; m && i < m->nmetrics; i++)
		if (strcmp(m->metrics[i].name, name) == 0)
			return &m->metrics[i];
	return NULL;
}

static const char *spec_of(const struct mode *m, const char *alias)
{
	int e = m ? mode_event_index(&m->sets[0], alias) : -1;
	return e >= 0 ? m->sets[0].events[e].spec : "(none)";
}

static void test_arch(void)
{
	static const struct {
		const char *family, *arch;
	} t[] = {
	    {"skl", "skylake"},
	    {"skx", "skylakeX"},
	    {"icl", "ICL"},
	    {"hsw", "haswell"},
	    {"slm", "silvermont"},
	    {"glm", "goldmont"},
	    {"zen", "zen"},
	    {"armv8", "arm8"},
	    {"cortex_a53", "arm8"},
	    {"cortex_a72", "arm8"},
	    {"cortex_a9", NULL},
	    {"xscale2", NULL},
	    {"generic", NULL},
	    /* SMT-on variants and server parts follow their family (likwid's own directories) */
	    {"skx_smt", "skylakeX"},
	    {"skl_smt", "skylake"},
	    {"hsw_smt", "haswell"},
	    {"icx", "ICX"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *a = likwid_arch_of(family_find(t[i].family));
		CHECK(t[i].arch ? a && strcmp(a, t[i].arch) == 0 : a == NULL, "%s -> %s, want %s",
		      t[i].family, a ? a : "(none)", t[i].arch ? t[i].arch : "(none)");
	}
}

static void test_clock(void)
{
	struct likwid_env env = {0};
	likwid_env_clock(&env, "sysfs/x86-skylake", "Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz");
	CHECK_NEAR(env.nominal_hz, 3.2e9, 1);
	CHECK(strstr(env.clock_source, "model name") != NULL, "%s", env.clock_source);

	char dir[] = "/tmp/test_likwid.XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu0/cpufreq", dir);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && echo 2100000 > %s/base_frequency", path, path);
	CHECK(system(cmd) == 0, "%s", cmd);
	likwid_env_clock(&env, dir, "Intel(R) Xeon(R) CPU @ 3.20GHz");
	CHECK_NEAR(env.nominal_hz, 2.1e9, 1); /* base_frequency first */
	likwid_env_clock(&env, dir + strlen(dir), "ARMv8 Processor rev 4");
	CHECK(env.nominal_hz == 0, "no clock: %g", env.nominal_hz);
	CHECK(strstr(env.clock_source, "unknown") != NULL, "%s", env.clock_source);
	likwid_env_clock(&env, NULL, "a recording's CPU @ 2.50GHz"); /* no sysfs: the model only */
	CHECK_NEAR(env.nominal_hz, 2.5e9, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "%s", cmd);
}

/* FLOPS.txt: the metrics, units, names and formulas as pmutop runs them. */
static void test_flops(void)
{
	char *text = slurp("fixtures/likwid/skylake/FLOPS.txt"), err[512];
	struct likwid_env env = env_for("skl", 3.2e9);
	struct likwid_group_info info;
	struct mode *m =
	    likwid_group_parse("FLOPS.txt", "FLOPS", text, &env, &info, err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	if (!m) {
		free(text);
		return;
	}
	CHECK_STR(m->name, "likwid:FLOPS");
	CHECK_STR(m->title, "Double precision MFLOP/s (test group)");
	CHECK_INT(info.events, 6);
	CHECK_INT(info.mapped, 6);
	CHECK_INT(info.metrics, 6);
	CHECK_INT(info.computed, 6);
	CHECK_STR(spec_of(m, "FIXC0"), "perf::INSTRUCTIONS");
	CHECK_STR(spec_of(m, "FIXC1"), "perf::CYCLES");
	CHECK_STR(spec_of(m, "FIXC2"), "perf::REF-CYCLES");
	CHECK_STR(spec_of(m, "PMC0"), "skl::FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE");
	CHECK_INT(m->sets[0].nfamilies, 1);
	CHECK_STR(m->sets[0].families[0], "skl");
	static const struct {
		const char *name, *unit, *desc, *expr;
	} want[] = {
	    {"Runtime_RDTSC", "s", "Runtime (RDTSC)", "interval"},
	    {"Runtime_unhalted", "s", "Runtime unhalted", "FIXC1*3.125e-10"},
	    {"Clock", "MHz", "Clock", "1e-06*(FIXC1/FIXC2)/3.125e-10"},
	    {"CPI", "", "CPI", "FIXC1/FIXC0"},
	    {"DP", "MFLOP/s", "DP", "1e-06*(PMC0*2+PMC1+PMC2*4)/interval"},
	    {"Vectorization_ratio", "%", "Vectorization ratio", "100*(PMC0+PMC2)/(PMC0+PMC1+PMC2)"},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct mode_metric *mt = metric(m, want[i].name);
		CHECK(mt != NULL, "metric %s", want[i].name);
		if (!mt)
			continue;
		CHECK_STR(mt->unit, want[i].unit);
		CHECK_STR(mt->desc, want[i].desc);
		CHECK_STR(expr_text(mt->expr), want[i].expr);
	}
	CHECK(strstr(m->help, "Scalar and packed double precision FLOP rates.") != NULL, "%s",
	      m->help);
	CHECK(strstr(m->help, "inverseClock: 1 / 3.2 GHz (test)") != NULL, "%s", m->help);
	mode_free(m);

	/* the nominal clock unknown: the metrics using inverseClock are n/a, and say so */
	env = env_for("skl", 0);
	snprintf(env.clock_source, sizeof(env.clock_source), "unknown: none");
	m = likwid_group_parse("FLOPS.txt", "FLOPS", text, &env, NULL, err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	const struct mode_metric *clock = metric(m, "Clock");
	CHECK(clock && strstr(expr_text(clock->expr), "(0/0)"), "Clock without a clock");
	double v = 0;
	CHECK(clock && expr_eval(clock->expr, NULL, NULL, &v) < 0 && isnan(v), "Clock is n/a");
	CHECK(m && strstr(m->help, "inverseClock: n/a, the nominal clock is unknown: none"), "%s",
	      m ? m->help : "");
	mode_free(m);
	free(text);
}

/* MIXED.txt: options, unmapped counters named, their metrics left out, escapes in LONG. */
static void test_mixed(void)
{
	char *text = slurp("fixtures/likwid/skylake/MIXED.txt"), err[512];
	struct likwid_env env = env_for("skl", 3.2e9);
	struct likwid_group_info info;
	struct mode *m =
	    likwid_group_parse("MIXED.txt", "MIXED", text, &env, &info, err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	if (!m) {
		free(text);
		return;
	}
	CHECK_INT(info.events, 9);
	CHECK_INT(info.mapped, 5);
	CHECK_INT(info.metrics, 9);
	CHECK_INT(info.computed, 5);
	CHECK_STR(spec_of(m, "PMC1_EDGEDETECT"), "skl::UOPS_EXECUTED:STALL_CYCLES:e=1");
	CHECK_STR(spec_of(m, "PMC2_THRESHOLD_0x2"), "skl::UOPS_EXECUTED:THREAD:c=2");
	const struct mode_metric *mt = metric(m, "Avg_stall_duration");
	CHECK(mt && strcmp(expr_text(mt->expr), "PMC0/PMC1_EDGEDETECT") == 0, "counter options");
	mt = metric(m, "Cycles_with_2_uops");
	CHECK(mt && strcmp(expr_text(mt->expr), "100*PMC2_THRESHOLD_0x2/FIXC1") == 0,
	      "a formula broken by blanks: %s", mt ? expr_text(mt->expr) : "");
	CHECK(metric(m, "Memory_bandwidth") == NULL, "uncore metric left out");
	static const char *const named[] = {
	    "unmapped: PMC3 NOT_AN_EVENT_ANYWHERE: no libpfm4 skl event",
	    "unmapped: MBOX0C1 DRAM_READS: uncore memory controller counter",
	    "unmapped: PWR0 PWR_PKG_ENERGY: RAPL energy counter",
	    "unmapped: TMA0 RETIRING: top-down",
	    "not computed: Memory bandwidth: needs MBOX0C1 DRAM_READS",
	    "not computed: Energy: needs PWR0",
	    "not computed: Retiring: needs TMA0",
	    "not computed: Unknown: needs PMC3",
	    "Exercises the group parser.",
	    "A line with an escape \\x1b[31m red and a tab here.",
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		CHECK(strstr(m->help, named[i]) != NULL, "help lacks \"%s\"", named[i]);
	CHECK(strchr(m->help, '\033') == NULL, "raw escape in the help");
	mode_free(m);
	free(text);
}

/* Each mapped event encodes as likwid's event list gives it (perfmon_skylake_events.txt:
 * EVENT code, UMASK, EVENT_OPTION_THRESHOLD/INVERT/EDGE). */
static void test_encodings(void)
{
	static const struct {
		const char *counter, *event;
		unsigned code, umask, cmask;
		bool inv, edge;
	} t[] = {
	    {"PMC0", "FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE", 0xc7, 0x04, 0, false, false},
	    {"PMC1", "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE", 0xc7, 0x01, 0, false, false},
	    {"PMC2", "FP_ARITH_INST_RETIRED_256B_PACKED_SINGLE", 0xc7, 0x20, 0, false, false},
	    {"PMC3", "L1D_REPLACEMENT", 0x51, 0x01, 0, false, false},
	    {"PMC4", "BR_MISP_RETIRED_ALL_BRANCHES", 0xc5, 0x00, 0, false, false},
	    {"PMC5", "UOPS_EXECUTED_STALL_CYCLES", 0xb1, 0x01, 1, true, false},
	    {"PMC6:EDGEDETECT", "UOPS_EXECUTED_STALL_CYCLES", 0xb1, 0x01, 1, true, true},
	    {"PMC7", "DTLB_LOAD_MISSES_CAUSES_A_WALK", 0x08, 0x01, 0, false, false},
	    {"PMC8", "ICACHE_64B_IFTAG_MISS", 0x83, 0x02, 0, false, false},
	    {"PMC9", "MEM_INST_RETIRED_ALL_LOADS", 0xd0, 0x81, 0, false, false},
	    {"PMC10", "CYCLE_ACTIVITY_STALLS_TOTAL", 0xa3, 0x04, 4, false, false},
	    {"PMC11", "INT_MISC_RECOVERY_CYCLES", 0x0d, 0x01, 0, false, false},
	    {"PMC12", "UOPS_ISSUED_ANY", 0x0e, 0x01, 0, false, false},
	    {"PMC13", "IDQ_MITE_UOPS", 0x79, 0x04, 0, false, false},
	    {"PMC14:THRESHOLD=0x2", "UOPS_ISSUED_ANY", 0x0e, 0x01, 2, false, false},
	    {"PMC15", "L2_RQSTS_MISS", 0x24, 0x3f, 0, false, false},
	    {"PMC16", "LONGEST_LAT_CACHE_MISS", 0x2e, 0x41, 0, false, false},
	    /* two where libpfm4 follows Intel's Skylake event list, not likwid's: L2_LINES_IN.ALL
	     * umask 0x1f (likwid 0x07), ARITH.DIVIDER_ACTIVE counter mask 1 (likwid none) */
	    {"PMC17", "L2_LINES_IN_ALL", 0xf1, 0x1f, 0, false, false},
	    {"PMC18", "L2_TRANS_L2_WB", 0xf0, 0x40, 0, false, false},
	    {"PMC19", "ARITH_DIVIDER_ACTIVE", 0x14, 0x01, 1, false, false},
	    {"PMC20", "MACHINE_CLEARS_COUNT", 0xc3, 0x01, 1, false, true},
	};
	char text[4096], err[512];
	size_t n = (size_t)snprintf(text, sizeof(text), "SHORT encodings\nEVENTSET\n");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s %s\n", t[i].counter,
				      t[i].event);
	snprintf(text + n, sizeof(text) - n, "METRICS\nFirst PMC0\n");
	struct likwid_env env = env_for("skl", 0);
	struct likwid_group_info info;
	struct mode *m = likwid_group_parse("enc", "ENC", text, &env, &info, err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	CHECK_INT(info.mapped, (int)(sizeof(t) / sizeof(t[0])));
	struct encode_ctx ctx = {
	    .family = env.family, .core_pmu_type = PERF_TYPE_RAW, .filters_priv = true};
	for (size_t i = 0; m && i < sizeof(t) / sizeof(t[0]); i++) {
		char alias[64];
		size_t k = 0;
		for (const char *q = t[i].counter; *q; q++)
			alias[k++] = isalnum((unsigned char)*q) ? *q : '_';
		alias[k] = '\0';
		struct event_encoding enc;
		const char *spec = spec_of(m, alias);
		if (event_encode(spec, &ctx, &enc, err, sizeof(err)) < 0) {
			CHECK(0, "%s (%s): %s", t[i].event, spec, err);
			continue;
		}
		unsigned long long c = enc.attr.config;
		CHECK((c & 0xff) == t[i].code && ((c >> 8) & 0xff) == t[i].umask &&
			  ((c >> 24) & 0xff) == t[i].cmask && ((c >> 23) & 1) == t[i].inv &&
			  ((c >> 18) & 1) == t[i].edge,
		      "%s as %s: config 0x%llx, want event 0x%x umask 0x%x cmask %u inv %d edge %d",
		      t[i].event, spec, c, t[i].code, t[i].umask, t[i].cmask, t[i].inv, t[i].edge);
	}
	mode_free(m);
}

static void test_arm(void)
{
	char *text = slurp("fixtures/likwid/arm8/CPI.txt"), err[512];
	struct likwid_env env = env_for("cortex_a53", 0);
	struct mode *m = likwid_group_parse("CPI.txt", "CPI", text, &env, NULL, err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	CHECK_STR(spec_of(m, "PMC0"), "r8");
	CHECK_STR(spec_of(m, "PMC1"), "r11");
	CHECK_STR(spec_of(m, "PMC2"), "r3");
	mode_free(m);
	free(text);
}

/* Malformed groups: a message with the line, no mode. */
static void test_malformed(void)
{
	static char longline[6000];
	memset(longline, 'x', sizeof(longline) - 1);
	memcpy(longline, "SHORT ", 6);
	static const struct {
		const char *text, *msg;
	} t[] = {
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY extra\nMETRICS\nA FIXC0\n",
	     "x.txt:2: expected \"COUNTER EVENT\""},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nFIXC0 CPU_CLK_UNHALTED_CORE\n",
	     "x.txt:3: counter FIXC0 given twice"},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\n", "x.txt: no METRICS"},
	    {"METRICS\nA time\n", "x.txt: no EVENTSET counters"},
	    {"SHORT a\033[2Jb\n", "x.txt:1: control character 0x1b"},
	    {"EVENTSET\nPMC0 BAD/EVENT\n", "x.txt:2: bad event name \"BAD/EVENT\""},
	    {"EVENTSET\n0PMC INSTR_RETIRED_ANY\n", "x.txt:2: bad counter name"},
	    {"FIXC0 INSTR_RETIRED_ANY\n", "x.txt:1: \"FIXC0 INSTR_RETIRED_ANY\" outside a section"},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nNoFormula\n",
	     "x.txt:4: expected \"Name [unit] formula\""},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nA (FIXC0\n",
	     "nothing of group X runs on Intel Skylake: A: formula:"},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nA FIXC0?1:2\n",
	     "nothing of group X runs on Intel Skylake: A: operator \"?\" is not supported"},
	    {"EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nA num_sockets*FIXC0\n",
	     "\"num_sockets\" is not a counter of the group, time or inverseClock"},
	    {longline, "x.txt:1: line longer than 4096 bytes"},
	};
	struct likwid_env env = env_for("skl", 1e9);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char err[512] = "";
		struct mode *m =
		    likwid_group_parse("x.txt", "X", t[i].text, &env, NULL, err, sizeof(err));
		CHECK(m == NULL && strstr(err, t[i].msg), "case %zu: got \"%s\", want \"%s\"", i,
		      err, t[i].msg);
		mode_free(m);
	}
	/* a metric that cannot run leaves the others */
	char err[512];
	struct mode *m = likwid_group_parse(
	    "x.txt", "X",
	    "EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nBad FIXC0>1\nGood FIXC0/time\n", &env,
	    NULL, err, sizeof(err));
	CHECK(m && m->nmetrics == 1 && strcmp(m->metrics[0].name, "Good") == 0, "one of two");
	CHECK(m && strstr(m->help, "not computed: Bad: operator \">\" is not supported"), "why");
	mode_free(m);
	/* the same name many times: _2, _3, ...; too many metric lines: an error */
	static char many[200 * 16];
	size_t n =
	    (size_t)snprintf(many, sizeof(many), "EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\n");
	for (int i = 0; i < 3; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "Same FIXC0\n");
	m = likwid_group_parse("x.txt", "X", many, &env, NULL, err, sizeof(err));
	CHECK(m && m->nmetrics == 3 && strcmp(m->metrics[2].name, "Same_3") == 0, "Same_3");
	mode_free(m);
	for (int i = 3; i < 130; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "Same FIXC0\n");
	m = likwid_group_parse("x.txt", "X", many, &env, NULL, err, sizeof(err));
	CHECK(m == NULL && strstr(err, "x.txt:132: more than 128 metrics"), "%s", err);
	/* a name starting with a digit */
	m = likwid_group_parse("x.txt", "X",
			       "EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\n2nd try FIXC0\n", &env,
			       NULL, err, sizeof(err));
	CHECK(m && strcmp(m->metrics[0].name, "m_2nd_try") == 0, "%s",
	      m ? m->metrics[0].name : err);
	mode_free(m);
	/* names that make no mode name */
	m = likwid_group_parse("x.txt", "A B",
			       "EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nA FIXC0\n", &env, NULL,
			       err, sizeof(err));
	CHECK(m == NULL && strstr(err, "group name \"A B\" does not make a mode name"), "%s", err);
}

/* A directory: the arch picked, each mode's source its file, nothing registered on failure. */
static void test_load_dir(void)
{
	struct mode_registry r;
	struct likwid_load l;
	char err[1024] = "";
	mode_registry_init(&r);
	struct likwid_env env = env_for("skl", 3.2e9);
	env.cpu_family = env.cpu_model = -1;
	CHECK_INT(likwid_load_dir(&r, "fixtures/likwid", &env, &l, err, sizeof(err)), 3);
	CHECK_STR(l.dir, "fixtures/likwid/skylake");
	CHECK_INT(l.files, 3);
	CHECK_INT(l.complete, 2); /* MIXED names counters pmutop does not count */
	CHECK_INT(l.nwarnings, 0);
	const struct mode *m = mode_find(&r, "likwid:ROTATE");
	CHECK(m && strcmp(m->source, "fixtures/likwid/skylake/ROTATE.txt") == 0, "source %s",
	      m ? m->source : "(no mode)");
	likwid_load_free(&l);
	int before = r.n;
	env = env_for("cortex_a9", 0);
	env.cpu_family = env.cpu_model = -1;
	CHECK_INT(likwid_load_dir(&r, "fixtures/likwid", &env, &l, err, sizeof(err)), -1);
	CHECK(strstr(err, "no likwid group directory for ARM Cortex-A9 (cortex_a9); it has:") &&
		  strstr(err, " arm8") && strstr(err, " skylake") && strstr(err, " silvermont"),
	      "%s", err);
	CHECK_INT(r.n, before);
	env = env_for("cortex_a53", 0);
	env.cpu_family = env.cpu_model = -1;
	/* one arch directory as DIR: on ARM only the FIXC events (perf generic) map, so ROTATE,
	 * whose metrics all need PMC events, does not load */
	CHECK_INT(likwid_load_dir(&r, "fixtures/likwid/skylake", &env, &l, err, sizeof(err)), 2);
	CHECK(l.nwarnings == 1 && strstr(l.warnings[0], "ROTATE.txt: nothing of group ROTATE runs"),
	      "%s", l.nwarnings ? l.warnings[0] : "no warning");
	likwid_load_free(&l);
	mode_registry_free(&r);
}

int main(void)
{
	char err[256];
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (encode_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "SKIP: libpfm4: %s\n", err);
		return 77;
	}
	test_arch();
	test_clock();
	/* the x86 groups map to libpfm4's Skylake names: a libpfm4 built for another architecture
	 * (armhf, arm64) has no x86 tables */
	char model[32];
	if (encode_model_missing("@::INST_RETIRED:ANY_P", family_find("skl"), model,
				 sizeof(model))) {
		SKIP(
		    "Skylake groups (flops, mixed, encodings, a directory): libpfm4 here has no %s "
		    "tables (built for another architecture)",
		    model);
	} else {
		test_flops();
		test_mixed();
		test_encodings();
		test_load_dir();
	}
	test_arm();
	test_malformed();
	return harness_done();
}

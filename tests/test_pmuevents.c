/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_pmuevents.c: perf's pmu-events library: model choice, event encodings, metric formulas,
 * broken and hostile files, and (where present) every model of the kernel's real tree. */
#include "app.h"
#include "expr.h"
#include "harness.h"
#include "harness_app.h"
#include "mode.h"
#include "options.h"
#include "platform.h"
#include "pmuevents.h"
#include "session.h"
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static struct platform pf;

static void machine_of(const char *tree, struct pmuev_machine *m)
{
	char root[4096], err[512];
	snprintf(root, sizeof(root), "%s/tests/sysfs/%s", harness_src(), tree);
	CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s: %s", tree, err);
	platform_pmuev_machine(&pf, m);
}

static const char *lib_dir(void)
{
	static char d[4096];
	snprintf(d, sizeof(d), "%s/tests/fixtures/pmu-events", harness_src());
	return d;
}

static const struct mode_metric *metric_of(const struct mode *m, const char *name)
{
	for (int i = 0; m && i < m->nmetrics; i++)
		if (strcmp(m->metrics[i].name, name) == 0)
			return &m->metrics[i];
	return NULL;
}

static const char *spec_of(const struct mode *m, const char *alias)
{
	for (int i = 0; m && i < m->sets[0].nevents; i++)
		if (strcmp(m->sets[0].events[i].alias, alias) == 0)
			return m->sets[0].events[i].spec;
	return "(none)";
}

/* Every event is worth its table value; interval 2 s. */
static int lookup(void *ctx, const char *name, double *out)
{
	static const struct {
		const char *name;
		double v;
	} t[] = {{"INST_RETIRED.ANY", 3000},
		 {"CPU_CLK_UNHALTED.THREAD", 2000},
		 {"CPU_CLK_UNHALTED.THREAD_ANY", 3000},
		 {"BR_INST_RETIRED.EDGE", 500},
		 {"UOPS_ISSUED.ANY", 4000},
		 {"interval", 2}};
	(void)ctx;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(t[i].name, name) == 0)
			return *out = t[i].v, 0;
	return -1;
}

static double eval(const struct mode_metric *mt)
{
	double v = NAN;
	if (mt)
		expr_eval(mt->expr, lookup, NULL, &v);
	return v;
}

static void check_x86(void)
{
	struct pmuev_machine m;
	char err[512], sum[256];
	machine_of("x86-skylake", &m);
	CHECK_STR(m.arch, "x86");
	CHECK_STR(m.cpuid, "GenuineIntel-6-5E-3");
	CHECK_INT(m.num_cores, 4);
	CHECK_INT(m.num_packages, 1);
	CHECK_INT(m.smt_on, 0);
	/* DIR, DIR/arch and DIR/arch/x86 all work; the first core entry whose regex matches the
	 * whole CPUID (with stepping, or without where the entry has none) wins */
	const char *sub[] = {"", "/arch", "/arch/x86"};
	for (int i = 0; i < 3; i++) {
		char d[4200];
		snprintf(d, sizeof(d), "%s%s", lib_dir(), sub[i]);
		struct pmuev_lib *lib = pmuevents_open(d, &m, err, sizeof(err));
		CHECK(lib != NULL, "%s: %s", d, err);
		struct pmuev_stats st;
		if (lib) {
			pmuevents_stats(lib, &st);
			CHECK_STR(st.model, "testlake");
		}
		pmuevents_free(lib);
	}
	struct pmuev_lib *lib = pmuevents_open(lib_dir(), &m, err, sizeof(err));
	if (!lib)
		return;
	struct mode_registry r;
	mode_registry_init(&r);
	int n = pmuevents_register(lib, &r, sum, sizeof(sum));
	CHECK_INT(n, 4); /* Basic, Exotic, Summary, TopdownL1 */
	CHECK_STR(sum, "model testlake (GenuineIntel-6-5E-3): 4 modes, 17 metrics, 13 evaluable");
	const struct mode *basic = mode_find(&r, "perf:Basic");
	const struct mode *exotic = mode_find(&r, "perf:Exotic");
	CHECK(basic && exotic, "modes registered");
	if (!basic || !exotic)
		goto out;
	CHECK(strstr(basic->source, "testlake/metrics.json (perf-events model testlake)") != NULL,
	      "source %s", basic->source);
	/* encodings: fixed pseudo event, cmask+inv from a metric's terms, offcore config1 */
	CHECK_STR(spec_of(basic, "INST_RETIRED.ANY"), "perf::INSTRUCTIONS");
	CHECK_STR(spec_of(basic, "CPU_CLK_UNHALTED.THREAD"), "r3c");
	CHECK_STR(spec_of(basic, "cpu_UOPS_ISSUED.ANY_cmask_1_inv"), "r180010e");
	CHECK_STR(spec_of(basic, "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESP"),
		  "r1b7:config1=0x10001");
	CHECK_STR(spec_of(basic, "msr_tsc"), "msr/tsc/");
	CHECK_STR(spec_of(exotic, "BR_INST_RETIRED.EDGE"), "r420c4");	      /* edge: bit 18 */
	CHECK_STR(spec_of(exotic, "CPU_CLK_UNHALTED.THREAD_ANY"), "r20003c"); /* any: bit 21 */
	/* formulas: references inlined, ScaleUnit applied, threshold translated */
	CHECK_STR(expr_text(metric_of(basic, "CPI")->expr),
		  "1 / (INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD)");
	CHECK_STR(metric_of(basic, "CPI")->threshold,
		  "(1 / (INST_RETIRED.ANY / CPU_CLK_UNHALTED.THREAD)) > 0.6");
	CHECK_STR(expr_text(metric_of(basic, "Stall_Pct")->expr),
		  "100 * (cpu_UOPS_ISSUED.ANY_cmask_1_inv / CPU_CLK_UNHALTED.THREAD)");
	CHECK_STR(metric_of(basic, "Stall_Pct")->unit, "%");
	CHECK_STR(metric_of(exotic, "Edges_per_s")->unit, "k/s");
	/* values by hand: IPC 1.5, edges 500 / 2 s * 1e-3 = 0.25 k/s, SMT off: 2000/2000 = 1 */
	CHECK_NEAR(eval(metric_of(exotic, "Edges_per_s")), 0.25, 1e-12);
	CHECK_NEAR(eval(metric_of(exotic, "Thread_Share")), 1, 1e-12);
	/* 4 online CPUs, 4 cores, 1 package, 1 die, core_wide 1, 4 CPUs */
	CHECK_NEAR(eval(metric_of(exotic, "Topology")), 4411.14, 1e-9);
	/* max(min(1.5,1.5),0.5) + 0 + (1&1)*10 + 0 + 0 + 3*1000 */
	CHECK_NEAR(eval(metric_of(exotic, "Logic")), 3011.5, 1e-9);
	CHECK_NEAR(eval(metric_of(exotic, "Probe")), 120, 1e-12);
	CHECK_NEAR(eval(metric_of(exotic, "Any_per_Edge")), 6, 1e-12);
	/* what cannot be evaluated is named in the mode's help, the rest still runs */
	CHECK(strstr(exotic->help, "Uncore_BW: event UNC_CHA_TOR_INSERTS.IA_MISS: uncore event "
				   "(unit CHA)") != NULL,
	      "help: %s", exotic->help);
	CHECK(strstr(exotic->help, "Unknown_Literal: literal #no_such_literal is not known here"),
	      "help: %s", exotic->help);
	CHECK(strstr(exotic->help, "Loop_A: metric references form a cycle: Loop_A -> Loop_B -> "
				   "Loop_A"),
	      "help: %s", exotic->help);
	CHECK(metric_of(exotic, "Uncore_BW") == NULL && metric_of(exotic, "Logic"), "left out");
	/* kernel sysfs events through the core PMU */
	const struct mode *td = mode_find(&r, "perf:TopdownL1");
	CHECK_STR(spec_of(td, "topdown_fe_bound"), "cpu/topdown-fe-bound/");
	/* -M with a metric name: the metric and the metrics it refers to */
	const struct mode *one = pmuevents_mode(lib, &r, "CPI", err, sizeof(err));
	CHECK(one && one->nmetrics == 2 && metric_of(one, "IPC"), "perf:CPI: %s", err);
	CHECK(pmuevents_mode(lib, &r, "perf:Nope", err, sizeof(err)) == NULL &&
		  strcmp(err, "no metric group or metric \"Nope\" in perf-events model testlake") ==
		      0,
	      "unknown: %s", err);
	CHECK(pmuevents_mode(lib, &r, "Uncore_BW", err, sizeof(err)) == NULL &&
		  strstr(err, "uncore event (unit CHA)"),
	      "not evaluable: %s", err);
out:
	mode_registry_free(&r);
	pmuevents_free(lib);
}

static void check_arm_and_nomatch(void)
{
	struct pmuev_machine m;
	char err[512], sum[256];
	machine_of("arm-a53", &m);
	CHECK_STR(m.arch, "arm64");
	CHECK_STR(m.cpuid, "0x00000000410fd034"); /* revision 4 matches the entry of revision 0 */
	struct pmuev_lib *lib = pmuevents_open(lib_dir(), &m, err, sizeof(err));
	CHECK(lib != NULL, "arm: %s", err);
	if (lib) {
		struct mode_registry r;
		mode_registry_init(&r);
		pmuevents_register(lib, &r, sum, sizeof(sum));
		CHECK_STR(sum, "model arm/testcore (0x00000000410fd034): 2 modes, 5 metrics, 3 "
			       "evaluable");
		const struct mode *g = mode_find(&r, "perf:General");
		CHECK_STR(spec_of(g, "INST_RETIRED"), "r8"); /* ArchStdEvent from the common file */
		CHECK_STR(spec_of(g, "STALL_LSU"), "re7");
		CHECK(g && strstr(g->help, "smt_thing: literal #smt_on is not known here") &&
			  strstr(g->help, "ArchStdEvent NOT_IN_COMMON is not in the common files"),
		      "arm help: %s", g ? g->help : "");
		mode_registry_free(&r);
	}
	pmuevents_free(lib);
	machine_of("x86-hybrid", &m);
	CHECK(pmuevents_open(lib_dir(), &m, err, sizeof(err)) == NULL &&
		  strstr(err, "x86/mapfile.csv: no model for this CPU (CPUID GenuineIntel-6-9A-") &&
		  strstr(err, "among 3 core entries"),
	      "no match: %s", err);
	CHECK(pmuevents_open("/nonexistent", &m, err, sizeof(err)) == NULL &&
		  strstr(err, "/nonexistent: no mapfile.csv in /nonexistent/arch/x86"),
	      "no dir: %s", err);
}

/* A copy of the x86 fixture with testlake/bad.json holding @text (length @len). */
static void broken(const char *tmp, const char *text, size_t len, const char *want)
{
	char cmd[8400], path[4200], err[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/t' && mkdir -p '%s/t' && cp -r '%s/arch' '%s/t/'",
		 tmp, tmp, lib_dir(), tmp);
	CHECK(system(cmd) == 0, "copy");
	snprintf(path, sizeof(path), "%s/t/arch/x86/testlake/bad.json", tmp);
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	struct pmuev_machine m;
	machine_of("x86-skylake", &m);
	snprintf(path, sizeof(path), "%s/t", tmp);
	struct pmuev_lib *lib = pmuevents_open(path, &m, err, sizeof(err));
	CHECK(lib == NULL && strstr(err, "testlake/bad.json") && strstr(err, want),
	      "want \"%s\", got \"%s\"", want, err);
	for (const char *p = err; *p; p++)
		CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control byte in the message");
	pmuevents_free(lib);
}

static void check_hostile(void)
{
	char tmp[] = "/tmp/pmuev-test-XXXXXX";
	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
	broken(tmp, "[{\"EventName\": \"X\"", 18, "bad.json:1:");
	broken(tmp, "{\"EventName\": \"X\"}", 18, "not a JSON array");
	broken(tmp, "[{\"EventName\": \"X\", \"EventName\": \"Y\"}]", 38, "duplicate");
	static char deep[200001];
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	broken(tmp, deep, 200000, "maximum parsing depth");
	size_t huge = PMUEV_FILE_MAX + 10;
	char *big = malloc(huge);
	if (big) {
		memset(big, ' ', huge);
		big[0] = '[';
		big[huge - 1] = ']';
		broken(tmp, big, huge, "longer than");
		free(big);
	}
	broken(tmp, "[\x1b]0;pwned\x07]", 12, "bad.json:1:");
	/* escapes in names are kept out of the terminal: control bytes become '?' */
	char cmd[8400], path[4200], err[512];
	snprintf(cmd, sizeof(cmd), "rm -f '%s/t/arch/x86/testlake/bad.json'", tmp);
	CHECK(system(cmd) == 0, "rm");
	snprintf(path, sizeof(path), "%s/t/arch/x86/testlake/evil.json", tmp);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("[{\"MetricName\": \"E\\u001b[2Jvil\", \"MetricExpr\": \"1 + 1\", "
		      "\"MetricGroup\": \"Evil\", \"BriefDescription\": \"\\u009b6n\"}]",
		      f);
		fclose(f);
	}
	struct pmuev_machine m;
	machine_of("x86-skylake", &m);
	snprintf(path, sizeof(path), "%s/t", tmp);
	struct pmuev_lib *lib = pmuevents_open(path, &m, err, sizeof(err));
	CHECK(lib != NULL, "evil: %s", err);
	if (lib) {
		struct mode_registry r;
		mode_registry_init(&r);
		pmuevents_register(lib, &r, NULL, 0);
		const struct mode *e = mode_find(&r, "perf:Evil");
		CHECK(e && strcmp(e->metrics[0].name, "E?[2Jvil") == 0, "escaped name");
		mode_registry_free(&r);
	}
	pmuevents_free(lib);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0, "cleanup");
}

/* ---- the kernel's real tree ------------------------------------------------------------- */

/* A CPUID string one mapfile regex matches: the first alternative of each group, the first
 * character of each bracket, "-0" for a missing stepping. */
static void sample_cpuid(const char *re, char *out, size_t len)
{
	size_t n = 0;
	int dashes = 0;
	for (const char *p = re; *p && n + 1 < len; p++) {
		if (*p == '(') {
			continue;
		} else if (*p == '|') { /* skip to the group's end */
			int depth = 1;
			while (*p && depth) {
				p++;
				depth += *p == '(';
				depth -= *p == ')';
			}
			if (!*p)
				break;
		} else if (*p == ')') {
			continue;
		} else if (*p == '+' || *p == '*' || *p == '?') {
			continue;
		} else if (*p == '[' && p[1] == '[' && p[2] == ':') { /* [[:xdigit:]] */
			out[n++] = '0';
			p = strstr(p, ":]]") ? strstr(p, ":]]") + 2 : p + strlen(p) - 1;
		} else if (*p == '[') {
			out[n++] = p[1];
			while (*p && *p != ']')
				p++;
			if (!*p)
				break;
		} else if (*p != '^' && *p != '$') {
			dashes += *p == '-';
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	if (dashes == 2 && n + 3 < len)
		snprintf(out + n, len - n, "-0");
}

static struct app_ctx app; /* large: static */

/* Starts pmutop in-process with @args (split at blanks). */
static int app_start(const char *args, char *err, size_t errlen)
{
	if (harness_app_start(&app, args, err, errlen) < 0) {
		app_free(&app);
		return -1;
	}
	return 0;
}

static void write_file(const char *path, const char *text)
{
	char dir[4400];
	snprintf(dir, sizeof(dir), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(dir) != 0)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A sysfs/procfs tree standing for a CPU of @cpuid: 4 CPUs, 2 cores with 2 threads each. */
static void make_tree(const char *tree, const char *arch, const char *cpuid)
{
	char cmd[4400], path[4400], text[4096] = "";
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	CHECK(system(cmd) == 0, "rm tree");
	const char *files[] = {"possible", "online", "present"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s", tree, files[i]);
		write_file(path, "0-3\n");
	}
	for (int c = 0; c < 4; c++) {
		const char *topo[][2] = {{"physical_package_id", "0\n"},
					 {"die_id", "0\n"},
					 {"core_id", c / 2 ? "1\n" : "0\n"}};
		for (int k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/topology/%s",
				 tree, c, topo[k][0]);
			write_file(path, topo[k][1]);
		}
		if (strcmp(arch, "arm64") == 0) {
			snprintf(path, sizeof(path),
				 "%s/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
				 tree, c);
			write_file(path, cpuid);
		}
	}
	if (strcmp(arch, "x86") == 0) {
		char vendor[32];
		unsigned fam = 0, model = 0, step = 0;
		if (sscanf(cpuid, "%31[^-]-%u-%x-%x", vendor, &fam, &model, &step) < 3)
			return;
		for (int c = 0; c < 4; c++)
			snprintf(
			    text + strlen(text), sizeof(text) - strlen(text),
			    "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
			    "model name\t: Test CPU @ 2.50GHz\nstepping\t: %u\n\n",
			    c, vendor, fam, model, step);
	} else {
		snprintf(text, sizeof(text), "processor\t: 0\n\n");
	}
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", tree);
	write_file(path, text);
}

struct real_counts {
	int models, failed, metrics, parsed, evaluable, run, evaluated, modes;
};

/* Every core model of @root/@arch/mapfile.csv, each through a tree of its own and the sim. */
static void real_arch(const char *root, const char *arch, const char *tmp, struct real_counts *c)
{
	char path[4300], line[4096];
	snprintf(path, sizeof(path), "%s/%s/mapfile.csv", root, arch);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char seen[256][64];
	int nseen = 0;
	while (fgets(line, sizeof(line), f)) {
		char *fields[4], *s = line;
		int nf = 0;
		if (line[0] == '#' || strncmp(line, "Family-model", 12) == 0)
			continue;
		for (char *t; nf < 4 && (t = strsep(&s, ",\n"));)
			fields[nf++] = t;
		if (nf < 4 || strncmp(fields[3], "core", 4) != 0)
			continue;
		bool dup = false;
		for (int i = 0; i < nseen && !dup; i++)
			dup = strcmp(seen[i], fields[2]) == 0;
		if (dup || nseen >= 256)
			continue;
		snprintf(seen[nseen++], 64, "%s", fields[2]);
		char cpuid[64], tree[4200], err[512];
		sample_cpuid(fields[0], cpuid, sizeof(cpuid));
		snprintf(tree, sizeof(tree), "%s/tree", tmp);
		make_tree(tree, arch, cpuid);
		struct pmuev_machine m;
		CHECK(platform_detect(&pf, tree, err, sizeof(err)) == 0, "tree: %s", err);
		platform_pmuev_machine(&pf, &m);
		struct pmuev_lib *lib = pmuevents_open(root, &m, err, sizeof(err));
		if (!lib) {
			c->failed++;
			fprintf(stderr, "model %s (%s): %s\n", fields[2], m.cpuid, err);
			continue;
		}
		struct pmuev_stats st;
		pmuevents_stats(lib, &st);
		c->models++;
		c->metrics += st.metrics;
		c->parsed += st.parsed;
		c->evaluable += st.evaluable;
		pmuevents_free(lib);
		/* the sim counts every perf: mode of the model for two ticks */
		static char args[8192];
		snprintf(args, sizeof(args),
			 "--sysfs-root %s --perf-events %s --backend sim --sim-cpus 2 -b -m sw",
			 tree, root);
		if (app_start(args, err, sizeof(err)) < 0) {
			CHECK(0, "model %s: %s", fields[2], err);
			continue;
		}
		for (int i = 0; i < app.modes->n; i++) {
			const struct mode *md = app.modes->modes[i];
			if (strncmp(md->name, "perf:", 5) != 0)
				continue;
			c->modes++;
			c->run += md->nmetrics;
			if (app_set_mode(&app, md->name, err, sizeof(err)) < 0)
				continue;
			for (int t = 0; t < 2; t++)
				app_tick(&app, err, sizeof(err));
			const struct snapshot *snap = session_snapshot(app.session);
			for (int k = 0; snap && k < snap->nmetrics; k++)
				c->evaluated += isfinite(snap->total_values[k]);
		}
		app_free(&app);
	}
	fclose(f);
}

static void check_real(void)
{
	const char *bin = getenv("PMUTOP_BIN");
	char cache[4096], arch[4400], cmd[9000];
	if (!bin || !strrchr(bin, '/')) {
		SKIP("real pmu-events: PMUTOP_BIN not set (run through ctest)");
		return;
	}
	snprintf(cache, sizeof(cache), "%.*s/pmu-events-6.1", (int)(strrchr(bin, '/') - bin), bin);
	snprintf(arch, sizeof(arch), "%s/linux-source-6.1/tools/perf/pmu-events/arch", cache);
	struct stat st;
	if (stat(arch, &st) != 0) {
		const char *tar = "/usr/src/linux-source-6.1.tar.xz";
		if (stat(tar, &st) != 0) {
			SKIP("real pmu-events: %s is absent (Debian package linux-source-6.1; "
			     "scripts/deps.sh test installs it)",
			     tar);
			return;
		}
		snprintf(cmd, sizeof(cmd), "bash '%s/tests/pmu_events_extract.sh' '%s'",
			 harness_src(), cache);
		CHECK(system(cmd) == 0, "extracting %s", tar);
	}
	char tmp[] = "/tmp/pmuev-real-XXXXXX";
	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
	struct real_counts c = {0};
	real_arch(arch, "x86", tmp, &c);
	real_arch(arch, "arm64", tmp, &c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0, "cleanup");
	fprintf(stderr,
		"real pmu-events (linux 6.1): %d models loaded (%d failed), %d metrics, %d parse, "
		"%d translate to core-event formulas; sim: %d perf: modes with %d metrics, %d "
		"with a value\n",
		c.models, c.failed, c.metrics, c.parsed, c.evaluable, c.modes, c.run, c.evaluated);
	CHECK(c.models >= 50 && c.failed == 0, "models %d, failed %d", c.models, c.failed);
	CHECK(c.parsed >= c.metrics * 99 / 100, "parsed %d of %d", c.parsed, c.metrics);
	CHECK(c.evaluable >= c.metrics * 80 / 100, "evaluable %d of %d", c.evaluable, c.metrics);
	CHECK(c.evaluated >= c.run * 80 / 100, "sim values %d of %d", c.evaluated, c.run);
}

/* MetricThreshold ("CPI > 0.6") classes each row per tick: cpu0 CPI 0.5 good, cpu1 CPI 2 bad. */
static void check_threshold_class(void)
{
	char args[8192], err[512];
	snprintf(args, sizeof(args),
		 "--sysfs-root %s/tests/sysfs/x86-skylake --perf-events %s -R %s/basic.jsonl -m "
		 "perf:Basic -b",
		 harness_src(), lib_dir(), lib_dir());
	if (app_start(args, err, sizeof(err)) < 0) {
		CHECK(0, "replay: %s", err);
		return;
	}
	int got = 0;
	for (int t = 0; t < 5 && got <= 0; t++)
		got = app_next(&app, err, sizeof(err));
	const struct snapshot *snap = session_snapshot(app.session);
	int cpi = -1;
	for (int k = 0; snap && k < snap->nmetrics; k++)
		if (strcmp(snap->metrics[k].name, "CPI") == 0)
			cpi = k;
	CHECK(cpi >= 0 && snap->nrows == 2, "CPI metric, 2 rows");
	if (cpi >= 0 && snap->nrows == 2) {
		CHECK_NEAR(snap->values[0 * snap->nmetrics + cpi], 0.5, 1e-12);
		CHECK_NEAR(snap->values[1 * snap->nmetrics + cpi], 2, 1e-12);
		CHECK_INT(snap->classes[0 * snap->nmetrics + cpi], METRIC_GOOD);
		CHECK_INT(snap->classes[1 * snap->nmetrics + cpi], METRIC_BAD);
		CHECK_INT(snap->total_classes[cpi], METRIC_BAD); /* 0.8 > 0.6 */
	}
	app_free(&app);
}

int main(void)
{
	check_x86();
	check_arm_and_nomatch();
	check_hostile();
	check_threshold_class();
	check_real();
	return harness_done();
}

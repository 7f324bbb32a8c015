/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vendor.c: the built-in Arm and AMD tables against the vendors' data (perf's pmu-events
 * JSON of Linux 6.1, perf's later per-core metrics, Arm and AMD documents quoted here). */
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "harness.h"
#include "mode.h"
#include "platform.h"
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- perf's pmu-events JSON (Debian's linux-source-6.1) ------------------------------------ */

static char arch_dir[4400];

/* <build>/pmu-events-6.1/.../pmu-events/arch, extracted from the Debian tarball if needed (as
 * test_pmuevents does); false with a skip message when neither is there. */
static bool find_arch(void)
{
	const char *bin = getenv("PMUTOP_BIN");
	char cache[4096], cmd[9000];
	struct stat st;
	if (!bin || !strrchr(bin, '/')) {
		SKIP("vendor JSON: PMUTOP_BIN not set (run through ctest)");
		return false;
	}
	snprintf(cache, sizeof(cache), "%.*s/pmu-events-6.1", (int)(strrchr(bin, '/') - bin), bin);
	snprintf(arch_dir, sizeof(arch_dir), "%s/linux-source-6.1/tools/perf/pmu-events/arch",
		 cache);
	if (stat(arch_dir, &st) == 0)
		return true;
	const char *tar = "/usr/src/linux-source-6.1.tar.xz";
	if (stat(tar, &st) != 0) {
		SKIP("vendor JSON: %s is absent (Debian package linux-source-6.1; scripts/deps.sh "
		     "test installs it)",
		     tar);
		return false;
	}
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/pmu_events_extract.sh' '%s'", harness_src(),
		 cache);
	CHECK(system(cmd) == 0, "extracting %s", tar);
	return stat(arch_dir, &st) == 0;
}

/* One core's events: code -> name, from its directory's JSON (ArchStdEvent names resolved
 * through arm64/common-and-microarch.json and recommended.json). */
#define MAX_EV 1024
struct core_events {
	int n;
	unsigned code[MAX_EV];
	char name[MAX_EV][64];
	unsigned umask[MAX_EV]; /* x86 */
};

static struct core_events arm_std; /* the Arm architecture's common and recommended events */

static unsigned hexval(json_t *v)
{
	const char *s = json_string_value(v);
	return s ? (unsigned)strtoul(s, NULL, 16) : 0xffffffffu;
}

static void add_event(struct core_events *c, unsigned code, unsigned umask, const char *name)
{
	if (c->n < MAX_EV) {
		c->code[c->n] = code;
		c->umask[c->n] = umask;
		snprintf(c->name[c->n++], 64, "%s", name);
	}
}

static int std_code(const char *name)
{
	for (int i = 0; i < arm_std.n; i++)
		if (strcasecmp(arm_std.name[i], name) == 0)
			return (int)arm_std.code[i];
	return -1;
}

static void load_file(struct core_events *c, const char *path, bool arm)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!json_is_array(root)) {
		json_decref(root);
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(root, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "EventName"));
		const char *std = json_string_value(json_object_get(e, "ArchStdEvent"));
		json_t *code = json_object_get(e, "EventCode");
		if (arm && std && !code) {
			int k = std_code(std);
			if (k >= 0)
				add_event(c, (unsigned)k, 0, std);
		} else if (name && code) {
			json_t *um = json_object_get(e, "UMask");
			add_event(c, hexval(code), um ? hexval(um) : 0, name);
		}
	}
	json_decref(root);
}

/* Every *.json in @dir (relative to the arch directory), metrics files left out. */
static bool load_core(struct core_events *c, const char *dir, bool arm)
{
	char path[8800], cmd[9000];
	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "ls '%s/%s'/*.json 2>/dev/null", arch_dir, dir);
	FILE *ls = popen(cmd, "r");
	if (!ls)
		return false;
	while (fgets(path, sizeof(path), ls)) {
		path[strcspn(path, "\n")] = 0;
		if (!strstr(path, "metric"))
			load_file(c, path, arm);
	}
	pclose(ls);
	return c->n > 0;
}

static bool has_code(const struct core_events *c, unsigned code)
{
	for (int i = 0; i < c->n; i++)
		if (c->code[i] == code)
			return true;
	return false;
}

/* ---- Arm: which per-core event list each family is checked against ------------------------ */

/* Family -> perf's per-core directory (Linux 6.1 arm64/mapfile.csv names it by MIDR) and MIDR
 * part. Neoverse V2 (0xd4f) is not in 6.1; perf later lists it in neoverse-n2-v2 with N2. */
static const struct {
	const char *family, *dir;
	unsigned part;
	bool lists_common; /* the directory lists the architected events the core has */
} arm_cores[] = {
    {"cortex_a53", "arm64/arm/cortex-a53", 0xd03, false},
    {"cortex_a57", "arm64/arm/cortex-a57-a72", 0xd07, true},
    {"cortex_a72", "arm64/arm/cortex-a57-a72", 0xd08, true},
    {"neoverse_n1", "arm64/arm/cortex-a76-n1", 0xd0c, true},
    {"neoverse_v1", "arm64/arm/neoverse-v1", 0xd40, true},
    {"neoverse_n2", "arm64/arm/neoverse-n2", 0xd49, true},
    {"neoverse_v2", "arm64/arm/neoverse-n2", 0xd4f, true},
};
#define NARM (sizeof(arm_cores) / sizeof(arm_cores[0]))

/* perf's mapfile.csv: MIDR 0x00000000410fdNN0 -> the directory; the family's MIDR maps there
 * and family_from_midr finds the family. */
static void check_arm_midr(void)
{
	char path[8800], line[512];
	snprintf(path, sizeof(path), "%s/arm64/mapfile.csv", arch_dir);
	for (size_t i = 0; i < NARM; i++) {
		const struct pmu_family *f = family_from_midr(0x41, arm_cores[i].part);
		CHECK(f && strcmp(f->key, arm_cores[i].family) == 0,
		      "MIDR part 0x%x -> %s, want %s", arm_cores[i].part, f ? f->key : "none",
		      arm_cores[i].family);
		FILE *fp = fopen(path, "r");
		if (!fp) {
			CHECK(0, "%s: cannot open", path);
			return;
		}
		bool found = false;
		char want[32];
		snprintf(want, sizeof(want), "0x00000000410f%03x0,", arm_cores[i].part);
		while (fgets(line, sizeof(line), fp))
			if (strncasecmp(line, want, strlen(want)) == 0) {
				found = true;
				CHECK(strstr(line, arm_cores[i].dir + 6) != NULL,
				      "mapfile: %s maps to %s", line, arm_cores[i].dir);
			}
		fclose(fp);
		/* Neoverse V2 came to perf after 6.1 */
		CHECK(found || arm_cores[i].part == 0xd4f, "mapfile.csv has no %s", want);
	}
}

/* Every raw event a built-in mode counts on an Arm family is in the core's event list; the
 * walk events count where the core's list has them and the refills stand in elsewhere. */
static void check_arm_events(const struct mode_registry *reg)
{
	struct core_events *core = calloc(1, sizeof(*core));
	for (size_t i = 0; core && i < NARM; i++) {
		const struct pmu_family *fam = family_find(arm_cores[i].family);
		CHECK(fam != NULL, "family %s", arm_cores[i].family);
		if (!fam || !load_core(core, arm_cores[i].dir, true)) {
			CHECK(0, "%s: no events", arm_cores[i].dir);
			continue;
		}
		/* what the PMU's events/ would list: the core's events (PMCEID) */
		static unsigned short listed[MAX_EV];
		int nlisted = 0;
		for (int k = 0; k < core->n; k++)
			listed[nlisted++] = (unsigned short)core->code[k];
		struct mode_event_support sup = {
		    .pmu = arm_cores[i].dir, .listed = listed, .nlisted = nlisted};
		const struct mode_event_support *s = arm_cores[i].lists_common ? &sup : NULL;
		int checked = 0;
		for (int m = 0; m < reg->n; m++) {
			struct mode_resolution r;
			struct mode_avail a;
			const struct mode *md = reg->modes[m];
			/* a mode the core cannot run (its events/ lacks one) says so instead */
			if (mode_availability_on(md, fam, s, &a) < 0 ||
			    mode_resolve_on(md, fam, s, &r) < 0 || !r.events)
				continue;
			for (int e = 0; e < r.events->nevents; e++) {
				const char *spec = r.events->events[e].spec;
				char *end;
				if (spec[0] != 'r' || !isxdigit((unsigned char)spec[1]))
					continue;
				unsigned code = (unsigned)strtoul(spec + 1, &end, 16);
				if (*end)
					continue;
				checked++;
				if (code < 0x40 && !arm_cores[i].lists_common)
					continue; /* Cortex-A53's JSON lists only its own events */
				CHECK(has_code(core, code), "%s mode %s: %s = 0x%02x is not in %s",
				      fam->key, md->name, r.events->events[e].alias, code,
				      arm_cores[i].dir);
			}
			/* the TLB modes count walks exactly where the core has them */
			if (strcmp(md->name, "itlb") == 0 || strcmp(md->name, "dtlb") == 0) {
				unsigned walk = md->name[0] == 'i' ? 0x35 : 0x34;
				unsigned refill = md->name[0] == 'i' ? 0x02 : 0x05;
				char want[8], alias[16];
				snprintf(want, sizeof(want), "r%02x",
					 has_code(core, walk) ? walk : refill);
				snprintf(alias, sizeof(alias), "%ctlb_miss", md->name[0]);
				int k = mode_event_index(r.events, alias);
				CHECK(k >= 0 && strcmp(r.events->events[k].spec, want) == 0,
				      "%s %s counts %s, want %s (%s %s)", fam->key, md->name,
				      k >= 0 ? r.events->events[k].spec : "nothing", want,
				      arm_cores[i].dir,
				      has_code(core, walk) ? "has the walk event" : "has none");
				CHECK(has_code(core, walk) == (r.events->note == NULL ||
							       !strstr(r.events->note, "refills")),
				      "%s %s: the refill stand-in is labelled (note %s)", fam->key,
				      md->name, r.events->note ? r.events->note : "none");
			}
		}
		CHECK(checked > 10, "%s: %d raw events checked", fam->key, checked);
	}
	free(core);
}

/* ---- Arm top-down: pmutop's formulas against perf's per-core metric JSON -------------------- */

struct counts {
	const char *const *names;
	const double *values;
	int n;
	const struct mode_events *ev; /* pmutop: alias -> rNN -> architected name */
};

static int perf_lookup(void *ctx, const char *name, double *out)
{
	const struct counts *c = ctx;
	if (name[0] == '#') /* perf's literal #slots: caps/slots */
		name++;
	for (int i = 0; i < c->n; i++)
		if (strcasecmp(c->names[i], name) == 0) {
			*out = c->values[i];
			return 0;
		}
	return -1;
}

static int mode_lookup(void *ctx, const char *name, double *out)
{
	const struct counts *c = ctx;
	int e = mode_event_index(c->ev, name);
	if (e < 0)
		return perf_lookup(ctx, name, out); /* builtin variables: slots */
	const char *spec = c->ev->events[e].spec;
	if (spec[0] != 'r')
		return -1;
	const char *n = NULL;
	for (int i = 0; i < arm_std.n && !n; i++)
		if (arm_std.code[i] == (unsigned)strtoul(spec + 1, NULL, 16))
			n = arm_std.name[i];
	return n ? perf_lookup(ctx, n, out) : -1;
}

/* perf's formulas, quoted. V1: Linux tools/perf/pmu-events/arch/arm64/arm/neoverse-v1/
 * metrics.json (from v6.5; Arm's Neoverse V1 telemetry specification): frontend and bad
 * speculation corrected by 4 x BR_MIS_PRED / CPU_CYCLES, backend_bound and retiring are
 * sbsa.json's with 8 slots. N2/V2: .../arm64/arm/neoverse-n2-v2/metrics.json (v6.7; N2 counts
 * one slot too many per cycle in STALL_SLOT and STALL_SLOT_FRONTEND when #slots is 5).
 * Generic: .../arm64/sbsa.json (v6.5). ScaleUnit 100%. */
static const char *const v1_perf[4] = {
    "(100 * ((STALL_SLOT_FRONTEND / (CPU_CYCLES * 8)) - ((BR_MIS_PRED * 4) / CPU_CYCLES)))",
    "(100 * (((1 - (OP_RETIRED / OP_SPEC)) * (1 - (STALL_SLOT / (CPU_CYCLES * 8)))) + "
    "((BR_MIS_PRED * 4) / CPU_CYCLES)))",
    "100 * (stall_slot_backend / (8 * cpu_cycles))",
    "100 * ((op_retired / op_spec) * (1 - stall_slot / (8 * cpu_cycles)))",
};
static const char *const n2_perf[4] = {
    "100 * (((stall_slot_frontend) if (#slots - 5) else (stall_slot_frontend - cpu_cycles)) / "
    "(#slots * cpu_cycles))",
    "100 * ((1 - op_retired / op_spec) * (1 - (stall_slot if (#slots - 5) else (stall_slot - "
    "cpu_cycles)) / (#slots * cpu_cycles)))",
    "100 * (stall_slot_backend / (#slots * cpu_cycles))",
    "100 * ((op_retired / op_spec) * (1 - (stall_slot if (#slots - 5) else (stall_slot - "
    "cpu_cycles)) / (#slots * cpu_cycles)))",
};
static const char *const sbsa_perf[4] = {
    "100 * (stall_slot_frontend / (#slots * cpu_cycles))",
    "100 * ((1 - op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles)))",
    "100 * (stall_slot_backend / (#slots * cpu_cycles))",
    "100 * ((op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles)))",
};
static const char *const shares[4] = {"frontend", "bad_spec", "backend", "retiring"};

static double eval_perf(const char *text, struct counts *c)
{
	char err[128];
	double v = NAN;
	struct expr *e = expr_parse_flags(text, EXPR_PERF, err, sizeof(err));
	CHECK(e != NULL, "perf formula %s: %s", text, err);
	if (e)
		expr_eval(e, perf_lookup, c, &v);
	expr_free(e);
	return v;
}

static void check_arm_topdown(const struct mode_registry *reg)
{
	static const struct {
		const char *family;
		double slots;
		const char *const *perf;
	} cases[] = {
	    {"neoverse_v1", 8, v1_perf}, {"neoverse_n2", 5, n2_perf}, {"neoverse_v2", 8, n2_perf},
	    {"armv8", 5, sbsa_perf}, /* a PMUv3p4 core without formulas of its own */
	    {"armv8", 8, sbsa_perf},
	};
	/* slots: what the core's STALL_SLOT* count (N2 one extra per cycle, as Arm's errata
	 * and perf's N2 formula say); a misprediction-heavy tick so V1's correction shows */
	static const char *const names[] = {
	    "CPU_CYCLES", "STALL_SLOT", "STALL_SLOT_FRONTEND", "STALL_SLOT_BACKEND",
	    "OP_RETIRED", "OP_SPEC",	"BR_MIS_PRED",	       "slots"};
	const struct mode *td = mode_find(reg, "topdown");
	CHECK(td != NULL, "topdown mode");
	for (size_t i = 0; td && i < sizeof(cases) / sizeof(cases[0]); i++) {
		double cyc = 1e6, fe = 1.6e6, be = 1.9e6;
		double values[] = {cyc, fe + be, fe, be, 2.6e6, 3.1e6, 4e4, cases[i].slots};
		struct counts c = {names, values, 8, NULL};
		const struct pmu_family *fam = family_find(cases[i].family);
		struct mode_resolution r;
		CHECK(fam && mode_resolve(td, fam, &r) == 0, "topdown resolves on %s",
		      cases[i].family);
		if (!fam || !r.events)
			continue;
		c.ev = r.events;
		double sum = 0;
		for (int k = 0; k < 4; k++) {
			double want = eval_perf(cases[i].perf[k], &c), got = NAN;
			for (int j = 0; j < td->nmetrics; j++)
				if (strcmp(td->metrics[j].name, shares[k]) == 0)
					expr_eval(td->metrics[j].expr, mode_lookup, &c, &got);
			CHECK(isfinite(want) && fabs(got - want) < 1e-9,
			      "%s (slots %g) %s: pmutop %.6f, perf %.6f", cases[i].family,
			      cases[i].slots, shares[k], got, want);
			sum += got;
		}
		CHECK(fabs(sum - 100) < 1e-6, "%s: the four shares add up to %g", cases[i].family,
		      sum);
	}
}

/* perf's per-core cache and TLB metrics (the same metrics.json files) on the same counts. */
static void check_arm_cache_tlb(const struct mode_registry *reg)
{
	static const struct {
		const char *mode, *metric, *perf;
	} cases[] = {
	    {"itlb", "itlb_mpki", "((ITLB_WALK / INST_RETIRED) * 1000)"},
	    {"dtlb", "dtlb_mpki", "((DTLB_WALK / INST_RETIRED) * 1000)"},
	    {"icache", "imiss_pki", "((L1I_CACHE_REFILL / INST_RETIRED) * 1000)"},
	    {"dcache", "dmiss_pct", "100 * (L1D_CACHE_REFILL / L1D_CACHE)"},
	    {"dcache", "dmiss_pki", "((L1D_CACHE_REFILL / INST_RETIRED) * 1000)"},
	    {"llc", "llc_miss_pct", "100 * (LL_CACHE_MISS_RD / LL_CACHE_RD)"},
	    {"llc", "llc_mpki", "((LL_CACHE_MISS_RD / INST_RETIRED) * 1000)"},
	};
	static const char *const names[] = {
	    "CPU_CYCLES",	"INST_RETIRED",	  "ITLB_WALK",	      "DTLB_WALK",
	    "L1I_TLB_REFILL",	"L1D_TLB_REFILL", "L1I_CACHE_REFILL", "L1D_CACHE",
	    "L1D_CACHE_REFILL", "LL_CACHE_RD",	  "LL_CACHE_MISS_RD", "L1D_TLB",
	    "BR_MIS_PRED",	"BR_PRED",	  "BR_RETIRED",	      "BR_MIS_PRED_RETIRED"};
	static const double values[] = {2e6,   3e6,   900,  2100,  40000, 70000, 12000, 1.1e6,
					50000, 30000, 9000, 1.3e6, 8000,  4e5,	 3.5e5, 6000};
	static const char *const fams[] = {"neoverse_v1", "neoverse_n2", "neoverse_v2"};
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const struct mode *m = mode_find(reg, cases[i].mode);
			const struct pmu_family *fam = family_find(fams[f]);
			struct mode_resolution r;
			if (!m || !fam || mode_resolve(m, fam, &r) < 0) {
				CHECK(0, "%s on %s", cases[i].mode, fams[f]);
				continue;
			}
			struct counts c = {names, values, 16, r.events};
			double want = eval_perf(cases[i].perf, &c), got = NAN;
			for (int j = 0; j < m->nmetrics; j++)
				if (strcmp(m->metrics[j].name, cases[i].metric) == 0)
					expr_eval(m->metrics[j].expr, mode_lookup, &c, &got);
			CHECK(fabs(got - want) < 1e-9, "%s %s.%s: pmutop %g, perf %g", fams[f],
			      cases[i].mode, cases[i].metric, got, want);
		}
	/* Deliberate differences (docs/modes.md, "Vendor sources"): pmutop keeps the seed's
	 * denominators. They must differ from perf's on these counts, or the note is stale. */
	static const struct {
		const char *mode, *metric, *perf, *why;
	} differ[] = {
	    {"dtlb", "dtlb_miss_pct", "100 * (DTLB_WALK / L1D_TLB)",
	     "per data access (L1D_CACHE, the seed's DTLB miss rate), not per L1D_TLB lookup"},
	    {"branch", "brmiss_pct", "100 * (BR_MIS_PRED_RETIRED / BR_RETIRED)",
	     "speculative BR_MIS_PRED / BR_PRED (every ARMv8 core has them), not retired"},
	};
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++)
		for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
			const struct mode *m = mode_find(reg, differ[i].mode);
			const struct pmu_family *fam = family_find(fams[f]);
			struct mode_resolution r;
			if (!m || !fam || mode_resolve(m, fam, &r) < 0) {
				CHECK(0, "%s on %s", differ[i].mode, fams[f]);
				continue;
			}
			struct counts c = {names, values, 16, r.events};
			double want = eval_perf(differ[i].perf, &c), got = NAN;
			for (int j = 0; j < m->nmetrics; j++)
				if (strcmp(m->metrics[j].name, differ[i].metric) == 0)
					expr_eval(m->metrics[j].expr, mode_lookup, &c, &got);
			CHECK(isfinite(got) && isfinite(want) && fabs(got - want) > 1e-6,
			      "%s %s.%s is documented as differing from perf (%s): %g vs %g",
			      fams[f], differ[i].mode, differ[i].metric, differ[i].why, got, want);
		}
}

/* The sysfs trees: armv8_pmuv3 on a Neoverse V1 (MIDR part 0xd40) is the V1; its events/
 * lists itlb_walk but no dtlb_walk, so dtlb stands in with refills and says so. */
static void check_arm_tree(const struct mode_registry *reg)
{
	char root[4400], err[256];
	static struct platform pf;
	snprintf(root, sizeof(root), "%s/tests/sysfs/arm-neoverse", harness_src());
	CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s", err);
	CHECK(pf.family && strcmp(pf.family->key, "neoverse_v1") == 0, "arm-neoverse: %s",
	      pf.family ? pf.family->key : "none");
	const struct platform_pmu *p = platform_find_pmu(&pf, "armv8_pmuv3_0");
	if (!p)
		return;
	struct mode_event_support sup = {
	    .pmu = p->name, .listed = p->listed, .nlisted = p->nlisted};
	struct mode_avail a;
	const struct mode *itlb = mode_find(reg, "itlb"), *dtlb = mode_find(reg, "dtlb");
	CHECK(itlb && mode_availability_on(itlb, p->family, &sup, &a) == 0 && !a.note,
	      "itlb on the V1 tree counts ITLB_WALK (note %s)", a.note ? a.note : "none");
	CHECK(dtlb && mode_availability_on(dtlb, p->family, &sup, &a) == 0 && a.note &&
		  strstr(a.note, "L1 DTLB refills"),
	      "dtlb on the V1 tree (no dtlb_walk in events/) is labelled as refills");
}

/* ---- AMD: each Zen generation's events against perf's amdzen event lists ------------------ */

/* AMD, 2025 (the kernel patch that moves perf's generic L1-icache events off them; AMD's
 * statement on linux-kernel, lore.kernel.org 82853f34-cd5a-43d7-81de-8e40144503e1@amd.com):
 * "PMCx080 and PMCx081 report incorrect IC accesses and misses respectively for all Family 17h
 * and later processors. PMCx060 unit mask 0x10 replaces PMCx081 for counting IC misses but
 * there is no suitable replacement for counting IC accesses." */
#define AMD_BAD_IC_ACCESSES 0x080
#define AMD_BAD_IC_MISSES 0x081
#define AMD_IC_MISS_EVENT 0x060
#define AMD_IC_MISS_UMASK 0x10

/* Zen family -> perf's directories (Linux 6.1 x86/mapfile.csv: AuthenticAMD-23 models 0x00-0x2F
 * amdzen1, other family 23 models amdzen2, AuthenticAMD-25 amdzen3; Zen 4 came to perf as
 * amdzen4 in 6.2, so zen4 is held to amdzen3's list, whose events Zen 4 keeps). */
static const struct {
	const char *family, *dirs[2];
	bool coalesced_itlb; /* PMCx085 has umask 0x08 (coalesced 4K pages) */
} zen_cores[] = {
    {"zen", {"x86/amdzen1", "x86/amdzen2"}, false},
    {"zen3", {"x86/amdzen3", NULL}, true},
    {"zen4", {"x86/amdzen3", NULL}, true},
};

/* Event select bits 7:0 and 35:32, umask 15:8 of an AMD core event's config. */
static unsigned amd_event(unsigned long long config)
{
	return (unsigned)(config & 0xff) | (unsigned)((config >> 32) & 0xf) << 8;
}

/* True when every umask bit of @umask is one @core lists for @event (or the event has none). */
static bool umask_listed(const struct core_events *core, unsigned event, unsigned umask)
{
	unsigned all = 0;
	bool found = false, plain = false;
	for (int i = 0; i < core->n; i++)
		if (core->code[i] == event) {
			found = true;
			all |= core->umask[i];
			plain |= core->umask[i] == 0 || core->umask[i] == umask;
		}
	return found && (plain || (umask & ~all) == 0);
}

static bool umask_exact(const struct core_events *core, unsigned event, unsigned umask)
{
	for (int i = 0; i < core->n; i++)
		if (core->code[i] == event && core->umask[i] == umask)
			return true;
	return false;
}

/* Zen 4 events amdzen3 lacks (perf's amdzen4/pipeline.json, Linux 6.2; e2e_topdown checks
 * their encodings): DE_NO_DISPATCH_PER_SLOT 0x1A0, DE_SRC_OP_DISP 0xAA, RESYNCS 0x96,
 * EX_NO_RETIRE 0xD6, EX_RET_UCODE_OPS 0x1C2. */
static bool zen4_only(unsigned event)
{
	return event == 0x1a0 || event == 0xaa || event == 0x96 || event == 0xd6 || event == 0x1c2;
}

/* libpfm4 on ARM is built with its own architecture's models only: AMD's encodings cannot be
 * made there, so the checks that encode them run on x86 builds (said, not hidden). */
static bool amd_tables_missing(const char *what)
{
	char model[32];
	if (!encode_model_missing("@::RETIRED_INSTRUCTIONS", family_find("zen"), model,
				  sizeof(model)))
		return false;
	SKIP("%s: libpfm4 here has no %s tables (an ARM build); checked on x86 builds", what,
	     model);
	return true;
}

static void check_amd(const struct mode_registry *reg)
{
	if (amd_tables_missing("AMD encodings against perf's amdzen lists"))
		return;
	char err[256];
	CHECK(encode_init(err, sizeof(err)) == 0, "%s", err);
	struct core_events *core = calloc(1, sizeof(*core));
	for (size_t i = 0; core && i < sizeof(zen_cores) / sizeof(zen_cores[0]); i++) {
		const struct pmu_family *fam = family_find(zen_cores[i].family);
		CHECK(fam != NULL, "family %s", zen_cores[i].family);
		if (!fam)
			continue;
		struct encode_ctx ctx = {
		    .sysfs_root = "/", .family = fam, .core_pmu_type = 4, .filters_priv = true};
		bool icache_seen = false, itlb_seen = false;
		for (int d = 0; d < 2 && zen_cores[i].dirs[d]; d++) {
			if (!load_core(core, zen_cores[i].dirs[d], false)) {
				CHECK(0, "%s: no events", zen_cores[i].dirs[d]);
				continue;
			}
			for (int m = 0; m < reg->n; m++) {
				const struct mode *md = reg->modes[m];
				struct mode_resolution r;
				if (mode_resolve(md, fam, &r) < 0 || !r.events ||
				    md->kind == MODE_KIND_OFFCORE)
					continue;
				for (int e = 0; e < r.events->nevents; e++) {
					const char *spec = r.events->events[e].spec;
					struct event_encoding enc;
					if (strncmp(spec, "@::", 3) != 0 && spec[0] != 'r')
						continue; /* perf's generic events: the kernel's */
					if (event_encode(spec, &ctx, &enc, err, sizeof(err)) < 0) {
						CHECK(0, "%s %s: %s: %s", fam->key, md->name, spec,
						      err);
						continue;
					}
					unsigned long long cfg = enc.attr.config;
					unsigned ev = amd_event(cfg),
						 um = (unsigned)(cfg >> 8) & 0xff;
					CHECK(
					    ev != AMD_BAD_IC_MISSES && ev != AMD_BAD_IC_ACCESSES,
					    "%s %s: %s is PMCx%03x, wrong on Family 17h and later "
					    "(AMD 2025)",
					    fam->key, md->name, spec, ev);
					bool zen4 = strcmp(fam->key, "zen4") == 0;
					CHECK(umask_listed(core, ev, um) || (zen4 && zen4_only(ev)),
					      "%s %s: %s = event 0x%x umask 0x%02x is not in %s",
					      fam->key, md->name, spec, ev, um,
					      zen_cores[i].dirs[d]);
					if (strcmp(md->name, "icache") == 0 &&
					    strcmp(r.events->events[e].alias, "imiss") == 0) {
						icache_seen = true;
						CHECK(ev == AMD_IC_MISS_EVENT &&
							  um == AMD_IC_MISS_UMASK,
						      "%s icache misses: 0x%x/0x%02x, AMD says "
						      "PMCx060 "
						      "umask 0x10",
						      fam->key, ev, um);
					}
					if (strcmp(r.events->events[e].alias, "itlb_miss") == 0) {
						itlb_seen = true;
						bool has8 = umask_exact(core, 0x85, 0x08);
						CHECK(has8 == zen_cores[i].coalesced_itlb,
						      "%s lists coalesced 4K ITLB misses: %d",
						      zen_cores[i].dirs[d], has8);
						CHECK(ev == 0x85 && um == (has8 ? 0x0fu : 0x07u),
						      "%s itlb walks 0x%x/0x%02x, want 0x85/0x%02x "
						      "(%s)",
						      fam->key, ev, um, has8 ? 0x0f : 0x07,
						      zen_cores[i].dirs[d]);
					}
				}
			}
		}
		CHECK(icache_seen && itlb_seen, "%s: icache and itlb have AMD events", fam->key);
	}
	free(core);
}

/* perf's amdzen recommended.json metrics on the same counts: branch_misprediction_ratio =
 * d_ratio(ex_ret_brn_misp, ex_ret_brn) (amdzen1..3, Linux 6.1), against branch.brmiss_pct. */
struct amd_counts {
	const struct core_events *core;
	const struct mode_events *ev;
	const struct pmu_family *fam;
};

static double amd_count_of(const char *name) /* a distinct count per event name */
{
	double h = 1000;
	for (const char *p = name; *p; p++)
		h = fmod(h * 31 + (unsigned char)*p, 1e7);
	return 1e5 + h;
}

static int amd_perf_lookup(void *ctx, const char *name, double *out)
{
	(void)ctx;
	*out = amd_count_of(name);
	return 0;
}

static int amd_mode_lookup(void *ctx, const char *name, double *out)
{
	const struct amd_counts *c = ctx;
	int e = mode_event_index(c->ev, name);
	if (e < 0)
		return -1;
	char err[256];
	struct event_encoding enc;
	struct encode_ctx ectx = {
	    .sysfs_root = "/", .family = c->fam, .core_pmu_type = 4, .filters_priv = true};
	if (event_encode(c->ev->events[e].spec, &ectx, &enc, err, sizeof(err)) < 0)
		return -1;
	unsigned ev = amd_event(enc.attr.config), um = (unsigned)(enc.attr.config >> 8) & 0xff;
	for (int i = 0; i < c->core->n; i++)
		if (c->core->code[i] == ev && c->core->umask[i] == um) {
			*out = amd_count_of(c->core->name[i]);
			return 0;
		}
	return -1;
}

static void check_amd_metrics(const struct mode_registry *reg)
{
	if (amd_tables_missing("branch metrics against perf's amdzen metrics"))
		return;
	static const struct {
		const char *family, *dir;
	} cases[] = {{"zen", "x86/amdzen1"}, {"zen", "x86/amdzen2"}, {"zen3", "x86/amdzen3"}};
	struct core_events *core = calloc(1, sizeof(*core));
	const struct mode *br = mode_find(reg, "branch");
	for (size_t i = 0; core && br && i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pmu_family *fam = family_find(cases[i].family);
		struct mode_resolution r;
		if (!fam || !load_core(core, cases[i].dir, false) ||
		    mode_resolve(br, fam, &r) < 0) {
			CHECK(0, "branch on %s (%s)", cases[i].family, cases[i].dir);
			continue;
		}
		struct amd_counts c = {core, r.events, fam};
		char err[128];
		double want = NAN, got = NAN;
		struct expr *e = expr_parse_flags("100 * d_ratio(ex_ret_brn_misp, ex_ret_brn)",
						  EXPR_PERF, err, sizeof(err));
		if (e)
			expr_eval(e, amd_perf_lookup, NULL, &want);
		expr_free(e);
		for (int j = 0; j < br->nmetrics; j++)
			if (strcmp(br->metrics[j].name, "brmiss_pct") == 0)
				expr_eval(br->metrics[j].expr, amd_mode_lookup, &c, &got);
		CHECK(isfinite(want) && fabs(got - want) < 1e-9,
		      "%s branch.brmiss_pct %g, perf %s branch_misprediction_ratio %g", fam->key,
		      got, cases[i].dir, want);
	}
	free(core);
}

/* perf's x86/mapfile.csv picks the same generation from the trees' cpuinfo. */
static void check_amd_trees(void)
{
	static const struct {
		const char *tree, *family;
	} trees[] = {
	    {"x86-zen1", "zen"}, {"x86-zen2", "zen"}, {"x86-zen3", "zen3"}, {"x86-zen4", "zen4"}};
	char root[4400], err[256];
	static struct platform pf;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		snprintf(root, sizeof(root), "%s/tests/sysfs/%s", harness_src(), trees[i].tree);
		CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s", err);
		CHECK(pf.family && strcmp(pf.family->key, trees[i].family) == 0, "%s: %s, want %s",
		      trees[i].tree, pf.family ? pf.family->key : "none", trees[i].family);
	}
}

int main(void)
{
	struct mode_registry reg;
	mode_registry_init(&reg);
	mode_load_builtin(&reg);
	check_arm_tree(&reg);
	if (find_arch()) {
		char path[8800];
		snprintf(path, sizeof(path), "%s/arm64/common-and-microarch.json", arch_dir);
		load_file(&arm_std, path, false);
		snprintf(path, sizeof(path), "%s/arm64/recommended.json", arch_dir);
		load_file(&arm_std, path, false);
		CHECK(std_code("ITLB_WALK") == 0x35 && std_code("DTLB_WALK") == 0x34,
		      "common-and-microarch.json: walks 0x35/0x34");
		check_arm_midr();
		check_arm_events(&reg);
		check_arm_topdown(&reg);
		check_arm_cache_tlb(&reg);
		check_amd(&reg);
		check_amd_metrics(&reg);
	}
	check_amd_trees();
	mode_registry_free(&reg);
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mode.c: mode files, per-family resolution and encodings, counters, set plans, define. */
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "harness.h"
#include "mode.h"
#include "paths.h"

/* ---- raw event tables the ARM and XScale modes are checked against ------------------------ */

struct raw_event {
	unsigned code;
	const char *name;
};

static const struct raw_event armv8_events[] = {
    {0x01, "L1I_CACHE_REFILL"}, {0x02, "L1I_TLB_REFILL"},   {0x03, "L1D_CACHE_REFILL"},
    {0x04, "L1D_CACHE"},	{0x05, "L1D_TLB_REFILL"},   {0x08, "INST_RETIRED"},
    {0x10, "BR_MIS_PRED"},	{0x11, "CPU_CYCLES"},	    {0x12, "BR_PRED"},
    {0x14, "L1I_CACHE"},	{0x15, "L1D_CACHE_WB"},	    {0x16, "L2D_CACHE"},
    {0x17, "L2D_CACHE_REFILL"}, {0x1B, "INST_SPEC"},	    {0x23, "STALL_FRONTEND"},
    {0x24, "STALL_BACKEND"},	{0x25, "L1D_TLB"},	    {0x26, "L1I_TLB"},
    {0x2D, "L2D_TLB_REFILL"},	{0x34, "DTLB_WALK"},	    {0x35, "ITLB_WALK"},
    {0x36, "LL_CACHE_RD"},	{0x37, "LL_CACHE_MISS_RD"}, {0, NULL},
};

/* PMUv3 as in ARMv8.0 (Cortex-A53/A57/A72): no STALL_*, TLB access, walk or LL_CACHE_* events. */
static const struct raw_event armv80_events[] = {
    {0x01, "L1I_CACHE_REFILL"}, {0x02, "L1I_TLB_REFILL"}, {0x03, "L1D_CACHE_REFILL"},
    {0x04, "L1D_CACHE"},	{0x05, "L1D_TLB_REFILL"}, {0x08, "INST_RETIRED"},
    {0x10, "BR_MIS_PRED"},	{0x11, "CPU_CYCLES"},	  {0x12, "BR_PRED"},
    {0x14, "L1I_CACHE"},	{0x15, "L1D_CACHE_WB"},	  {0x16, "L2D_CACHE"},
    {0x17, "L2D_CACHE_REFILL"}, {0x1B, "INST_SPEC"},	  {0, NULL},
};

/* Cortex-A53 TRM, implementation-defined events the modes may use. */
static const struct raw_event a53_events[] = {
    {0xE1, "IC_DEP_STALL"},
    {0xE7, "LD_DEP_STALL"},
    {0, NULL},
};

static const struct raw_event armv7_events[] = {
    {0x01, "ICACHE_REFILL"},
    {0x02, "ITLB_REFILL"},
    {0x03, "DCACHE_REFILL"},
    {0x04, "DCACHE_ACCESS"},
    {0x05, "DTLB_REFILL"},
    {0x08, "INSTR_EXECUTED"},
    {0x10, "BR_MIS_PRED"},
    {0x12, "BR_PRED"},
    {0xFF, "CPU_CYCLES (cycle counter)"},
    {0, NULL},
};

/* PMUv2 cores with the L2 in the cluster (Cortex-A7, A12, A15, A17). */
static const struct raw_event armv7_l2_events[] = {
    {0x16, "L2D_CACHE"},
    {0x17, "L2D_CACHE_REFILL"},
    {0, NULL},
};

static const struct raw_event a8_events[] = {
    {0x43, "L2_ACCESS"},
    {0x44, "L2_CACHE_MISS"},
    {0, NULL},
};

static const struct raw_event a9_events[] = {
    {0x60, "ICACHE_DEP_STALL_CYCLES"},
    {0x68, "INST_OUT_OF_RENAME_STAGE"},
    {0, NULL},
};

/* ARMv6 (ARM1136, ARM1156, ARM1176): CCNT + 2 counters. */
static const struct raw_event armv6_events[] = {
    {0x00, "ICACHE_MISS"},   {0x01, "IBUF_STALL"},	  {0x02, "DDEP_STALL"},
    {0x03, "ITLB_MISS"},     {0x04, "DTLB_MISS"},	  {0x05, "BR_EXEC"},
    {0x06, "BR_MISPREDICT"}, {0x07, "INSTR_EXEC"},	  {0x09, "DCACHE_HIT"},
    {0x0A, "DCACHE_ACCESS"}, {0x0B, "DCACHE_MISS"},	  {0x0C, "DCACHE_WBACK"},
    {0x0F, "MAIN_TLB_MISS"}, {0x10, "EXPL_D_ACCESS"},	  {0x11, "LSU_FULL_STALL"},
    {0x12, "WBUF_DRAINED"},  {0xFF, "CPU_CYCLES (CCNT)"}, {0, NULL},
};

/* ARM11 MPCore: the same up to 0x05, then shifted (perf_event_v6.c armv6mpcore_perf_types). */
static const struct raw_event arm11mpcore_events[] = {
    {0x00, "ICACHE_MISS"},     {0x01, "IBUF_STALL"},	    {0x02, "DDEP_STALL"},
    {0x03, "ITLB_MISS"},       {0x04, "DTLB_MISS"},	    {0x05, "BR_EXEC"},
    {0x06, "BR_NOTPREDICT"},   {0x07, "BR_MISPREDICT"},	    {0x08, "INSTR_EXEC"},
    {0x0A, "DCACHE_RDACCESS"}, {0x0B, "DCACHE_RDMISS"},	    {0x0C, "DCACHE_WRACCESS"},
    {0x0D, "DCACHE_WRMISS"},   {0x0E, "DCACHE_EVICTION"},   {0x0F, "SW_PC_CHANGE"},
    {0x10, "MAIN_TLB_MISS"},   {0x11, "EXPL_MEM_ACCESS"},   {0x12, "LSU_FULL_STALL"},
    {0x13, "WBUF_DRAINED"},    {0xFF, "CPU_CYCLES (CCNT)"}, {0, NULL},
};

static const struct raw_event xscale_events[] = {
    {0x00, "ICACHE_MISS"},
    {0x01, "ICACHE_NO_DELIVER"},
    {0x02, "DATA_STALL"},
    {0x03, "ITLB_MISS"},
    {0x04, "DTLB_MISS"},
    {0x05, "BRANCH"},
    {0x06, "BRANCH_MISS"},
    {0x07, "INSTRUCTION"},
    {0x08, "DCACHE_FULL_STALL"},
    {0x09, "DCACHE_FULL_STALL_CONTIG"},
    {0x0A, "DCACHE_ACCESS"},
    {0x0B, "DCACHE_MISS"},
    {0x0C, "DCACHE_WRITE_BACK"},
    {0xFE, "CCNT"},
    {0, NULL},
};

/* What each ARM/XScale family's modes may use: the union of the tables, minus what the core
 * lacks, and its counters (the numbers the TRMs and the kernel give). */
static const struct {
	const char *family;
	const struct raw_event *tables[3];
	unsigned lacks[6]; /* 0-ended */
	int counters;
} core_maps[] = {
    {"armv8", {armv8_events}, {0}, 6},
    {"cortex_a53", {armv80_events, a53_events}, {0x1b, 0x23, 0x24, 0x36, 0x37, 0}, 6},
    {"cortex_a57", {armv80_events}, {0x23, 0x24, 0x36, 0x37, 0}, 6},
    {"cortex_a72", {armv80_events}, {0x23, 0x24, 0x36, 0x37, 0}, 6},
    {"armv7", {armv7_events}, {0}, 4},
    {"cortex_a5", {armv7_events}, {0}, 2},
    {"cortex_a7", {armv7_events, armv7_l2_events}, {0}, 4},
    {"cortex_a8", {armv7_events, a8_events}, {0}, 4},
    {"cortex_a9", {armv7_events, a9_events}, {0x08, 0}, 6},
    {"cortex_a12", {armv7_events, armv7_l2_events}, {0}, 6},
    {"cortex_a15", {armv7_events, armv7_l2_events}, {0}, 6},
    {"cortex_a17", {armv7_events, armv7_l2_events}, {0}, 6},
    {"armv6", {armv6_events}, {0}, 2},
    {"arm11mpcore", {arm11mpcore_events}, {0}, 2},
    {"xscale", {xscale_events}, {0}, 2},
    {"xscale1", {xscale_events}, {0}, 2},
    {"xscale2", {xscale_events}, {0}, 4},
};

static int core_map(const struct pmu_family *fam)
{
	for (size_t i = 0; i < sizeof(core_maps) / sizeof(core_maps[0]); i++)
		if (strcmp(core_maps[i].family, fam->key) == 0)
			return (int)i;
	return -1;
}

static bool raw_table(const struct pmu_family *fam) { return core_map(fam) >= 0; }

/* Name of @code on @fam's core, or NULL when the core does not have it. */
static const char *raw_name(const struct pmu_family *fam, unsigned code)
{
	int k = core_map(fam);
	if (k < 0)
		return NULL;
	for (int j = 0; core_maps[k].lacks[j]; j++)
		if (core_maps[k].lacks[j] == code)
			return NULL;
	for (int j = 0; j < 3 && core_maps[k].tables[j]; j++)
		for (const struct raw_event *t = core_maps[k].tables[j]; t->name; t++)
			if (t->code == code)
				return t->name;
	return NULL;
}

/* ---- every shipped mode on every family --------------------------------------------------- */

static const char *const shipped[] = {"cpi",  "icache", "dcache", "ifetch", "bufstall", "stall",
				      "itlb", "dtlb",	"branch", "llc",    "offcore",	"sw"};

static void check_event(const struct mode *m, const struct pmu_family *fam,
			const struct mode_event *ev)
{
	char err[256], desc[160];
	bool table = raw_table(fam);
	struct encode_ctx ctx = {.sysfs_root = "/",
				 .family = fam,
				 .core_pmu_type = 4,
				 .filters_priv = fam->filters_priv};
	struct event_encoding enc;
	bool raw = ev->spec[0] == 'r' && !strstr(ev->spec, "::") && !strchr(ev->spec, '/');
	if (table && raw) {
		/* ARM and XScale modes use raw codes (libpfm4 has no tables for them here). */
		char *end;
		unsigned long code = strtoul(ev->spec + 1, &end, 16);
		const char *name = raw_name(fam, (unsigned)code);
		CHECK(!*end && name, "%s/%s: %s=%s is not in the %s event table", m->name, fam->key,
		      ev->alias, ev->spec, fam->key);
		int rc = event_encode(ev->spec, &ctx, &enc, err, sizeof(err));
		CHECK(rc == 0 && enc.attr.config == code, "%s/%s: %s: %s", m->name, fam->key,
		      ev->spec, err);
		encode_format(&enc, desc, sizeof(desc));
		printf("  %-8s %-8s %-12s %-6s = 0x%02lx %-24s %s\n", m->name, fam->key, ev->alias,
		       ev->spec, code, name ? name : "?", desc);
		return;
	}
	if (table) /* otherwise only software events, which encode everywhere */
		CHECK(mode_event_slot(ev->spec, fam, NULL) == EVENT_SLOT_NONE,
		      "%s/%s: %s is neither a raw code nor a software event", m->name, fam->key,
		      ev->spec);
	char model[32];
	if (encode_model_missing(ev->spec, fam, model, sizeof(model))) {
		SKIP("%s/%s: %s: libpfm4 here has no %s tables (built for another architecture)",
		     m->name, fam->key, ev->spec, model);
		return;
	}
	int rc = event_encode(ev->spec, &ctx, &enc, err, sizeof(err));
	if (rc < 0 && strchr(ev->spec, '/') && ev->optional) {
		printf("  %-8s %-8s %-12s %s: not on this machine (optional): %s\n", m->name,
		       fam->key, ev->alias, ev->spec, err);
		return;
	}
	CHECK(rc == 0, "%s/%s: %s = %s does not encode: %s", m->name, fam->key, ev->alias, ev->spec,
	      err);
	if (rc == 0) {
		encode_format(&enc, desc, sizeof(desc));
		printf("  %-8s %-8s %-12s %-40s %s\n", m->name, fam->key, ev->alias, enc.fstr,
		       desc);
		/* A model event must have been encoded for this family's model, not another. */
		if (strncmp(ev->spec, "@::", 3) == 0)
			CHECK(fam->pfm_model && strcmp(enc.pmu, fam->pfm_model) == 0,
			      "%s/%s: %s encoded as %s", m->name, fam->key, ev->spec, enc.pmu);
	}
}

static void check_shipped(const struct mode_registry *reg)
{
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		const struct mode *m = mode_find(reg, shipped[i]);
		CHECK(m != NULL, "built-in mode %s missing", shipped[i]);
		if (!m)
			continue;
		CHECK(m->title[0] && m->help[0], "%s: title and help", m->name);
		printf("mode %s (%s)\n", m->name, m->title);
		int available = 0;
		for (const struct pmu_family *f = pmu_families; f->key; f++) {
			struct mode_avail a;
			int rc = mode_availability(m, f, &a);
			if (rc < 0) {
				CHECK(a.reason[0], "%s/%s: unavailable without a reason", m->name,
				      f->key);
				printf("  %-8s %-8s unavailable: %s\n", m->name, f->key, a.reason);
				continue;
			}
			available++;
			struct mode_resolution r;
			CHECK(mode_resolve(m, f, &r) == 0 && r.events, "%s/%s resolve", m->name,
			      f->key);
			printf(
			    "  %-8s %-8s from [events %s]: %d programmable, %d fixed, %d other%s\n",
			    m->name, f->key, a.matched, a.needed, a.fixed, a.other,
			    a.multiplex ? " (multiplexed)" : "");
			for (int e = 0; e < r.events->nevents; e++)
				check_event(m, f, &r.events->events[e]);
			/* Some metric can be computed from this family's events alone. */
			int complete = 0;
			for (int k = 0; k < m->nmetrics; k++) {
				const char *const *names;
				int n = expr_vars(m->metrics[k].expr, &names), have = 0;
				for (int j = 0; j < n; j++) {
					int e = mode_event_index(r.events, names[j]);
					have += (e >= 0 && !r.events->events[e].optional) ||
						!strcmp(names[j], "interval") ||
						!strcmp(names[j], "interval_ns") ||
						!strcmp(names[j], "ncpus");
				}
				complete += have == n;
			}
			CHECK(complete > 0, "%s/%s: no metric has all its inputs", m->name, f->key);
		}
		CHECK(available > 0, "%s available nowhere", m->name);
		/* Families a section names are really available (no [unavailable] overrides). */
		for (int s = 0; s < m->nsets; s++)
			for (int k = 0; k < m->sets[s].nfamilies; k++) {
				const char *key = m->sets[s].families[k];
				if (strcmp(key, "*") == 0)
					continue;
				CHECK(mode_counters_needed(m, family_find(key)) >= 0,
				      "%s claims %s", m->name, key);
			}
	}
}

/* Expected availability and counter needs on selected families. */
static const struct {
	int line;
	const char *mode, *family;
	int needed; /* -1 = unavailable */
	int fixed;
	int multiplex;
	const char *reason; /* substring of the reason, when unavailable */
} avail_cases[] = {
    {__LINE__, "cpi", "skl", 0, 3, 0, NULL},	 /* cycles, instructions, ref: all fixed */
    {__LINE__, "cpi", "generic", 2, 0, 0, NULL}, /* no fixed counters known */
    {__LINE__, "cpi", "zen", 2, 0, 0, NULL},
    {__LINE__, "cpi", "armv8", 1, 1, 0, NULL},	 /* r11 on the cycle counter */
    {__LINE__, "cpi", "armv7", 1, 1, 0, NULL},	 /* rff */
    {__LINE__, "cpi", "xscale1", 1, 1, 0, NULL}, /* rfe = CCNT */
    {__LINE__, "cpi", "sw", -1, 0, 0, "hardware PMU"},
    {__LINE__, "icache", "xscale1", 2, 1, 0, NULL},
    {__LINE__, "dcache", "xscale1", 3, 1, 1, NULL}, /* instructions, access, miss > 2 */
    {__LINE__, "dcache", "xscale2", 3, 1, 0, NULL},
    {__LINE__, "dcache", "skl", 2, 2, 0, NULL},
    {__LINE__, "dcache", "slm", 2, 2, 0, NULL},
    {__LINE__, "ifetch", "snb", -1, 0, 0, "Sandy Bridge"},
    {__LINE__, "ifetch", "amd", -1, 0, 0, "generic"},
    {__LINE__, "ifetch", "armv7", -1, 0, 0, "ARMv7"},
    {__LINE__, "ifetch", "xscale1", 3, 1, 1, NULL},
    {__LINE__, "bufstall", "armv8", -1, 0, 0, "ARMv8"},
    {__LINE__, "bufstall", "skx", 2, 2, 0, NULL},
    {__LINE__, "stall", "nhm", -1, 0, 0, "Nehalem"},
    {__LINE__, "stall", "spr", 2, 2, 0, NULL},
    {__LINE__, "llc", "zen", -1, 0, 0, "amd_l3"},
    {__LINE__, "llc", "icl", 2, 2, 0, NULL}, /* inherits [events generic] via intel */
    {__LINE__, "llc", "xscale2", -1, 0, 0, "no L2"},
    {__LINE__, "offcore", "skl", 0, 2, 0, NULL},
    {__LINE__, "offcore", "zen", -1, 0, 0, "OFFCORE_RESPONSE"},
    {__LINE__, "offcore", "atom", -1, 0, 0, "Bonnell"},
    {__LINE__, "sw", "sw", 0, 0, 0, NULL},
    {__LINE__, "sw", "xscale1", 0, 0, 0, NULL},
    {__LINE__, "branch", "atom", 2, 2, 0, NULL}, /* generic events; cycles/instructions fixed */
    {__LINE__, "branch", "nhm", 2, 2, 0, NULL},
    /* ARM cores: each core's own numbers, and "not here" with the missing event named */
    {__LINE__, "cpi", "cortex_a9", 1, 1, 0, NULL}, /* r68 + the cycle counter */
    {__LINE__, "cpi", "armv6", 1, 1, 0, NULL},	   /* r07 + CCNT (rff) */
    {__LINE__, "cpi", "arm11mpcore", 1, 1, 0, NULL},
    {__LINE__, "dcache", "armv6", 2, 1, 0, NULL}, /* the seed's two events + CCNT */
    {__LINE__, "stall", "cortex_a57", -1, 0, 0, "STALL_BACKEND (0x24)"},
    {__LINE__, "stall", "cortex_a72", -1, 0, 0, "Cortex-A72 TRM"},
    {__LINE__, "stall", "cortex_a53", 3, 1, 0, NULL}, /* implementation-defined 0xE7 */
    {__LINE__, "ifetch", "cortex_a72", -1, 0, 0, "STALL_FRONTEND (0x23)"},
    {__LINE__, "ifetch", "cortex_a53", 3, 1, 0, NULL},
    {__LINE__, "ifetch", "cortex_a9", 3, 1, 0, NULL},
    {__LINE__, "ifetch", "cortex_a15", -1, 0, 0, "ARMv7"},
    {__LINE__, "llc", "cortex_a53", -1, 0, 0, "LL_CACHE_RD (0x36)"},
    {__LINE__, "llc", "cortex_a15", 3, 1, 0, NULL}, /* cluster L2 0x16/0x17 */
    {__LINE__, "llc", "cortex_a5", -1, 0, 0, "L2"},
    {__LINE__, "llc", "armv6", -1, 0, 0, "ARM11"},
    {__LINE__, "bufstall", "armv6", 1, 1, 0, NULL},
    {__LINE__, "branch", "cortex_a9", 3, 1, 0, NULL},
};

static void check_availability(const struct mode_registry *reg)
{
	for (size_t i = 0; i < sizeof(avail_cases) / sizeof(avail_cases[0]); i++) {
		const struct mode *m = mode_find(reg, avail_cases[i].mode);
		const struct pmu_family *f = family_find(avail_cases[i].family);
		if (!m || !f) {
			CHECK(0, "line %d: no mode or family", avail_cases[i].line);
			continue;
		}
		struct mode_avail a;
		int rc = mode_availability(m, f, &a);
		CHECK_INT(mode_counters_needed(m, f), avail_cases[i].needed);
		if (avail_cases[i].needed < 0) {
			CHECK(rc < 0 && strstr(a.reason, avail_cases[i].reason),
			      "line %d: reason \"%s\"", avail_cases[i].line, a.reason);
			continue;
		}
		CHECK(rc == 0, "line %d: %s", avail_cases[i].line, a.reason);
		CHECK(a.fixed == avail_cases[i].fixed, "line %d: fixed %d", avail_cases[i].line,
		      a.fixed);
		CHECK(a.multiplex == avail_cases[i].multiplex, "line %d: multiplex %d",
		      avail_cases[i].line, a.multiplex);
	}
}

/* ---- ARM cores: counters, PMU names, per-core availability ------------------------------- */

static const struct {
	int line;
	const char *pmu; /* sysfs core PMU name */
	const char *family;
} pmu_name_cases[] = {
    {__LINE__, "armv6_1136", "armv6"},
    {__LINE__, "armv6_1156", "armv6"},
    {__LINE__, "armv6_1176", "armv6"},
    {__LINE__, "armv6_11mpcore", "arm11mpcore"},
    {__LINE__, "armv7_cortex_a5", "cortex_a5"},
    {__LINE__, "armv7_cortex_a7", "cortex_a7"},
    {__LINE__, "armv7_cortex_a8", "cortex_a8"},
    {__LINE__, "armv7_cortex_a9", "cortex_a9"},
    {__LINE__, "armv7_cortex_a12", "cortex_a12"},
    {__LINE__, "armv7_cortex_a15", "cortex_a15"},
    {__LINE__, "armv7_cortex_a17", "cortex_a17"},
    {__LINE__, "armv7_krait", "armv7"},
    {__LINE__, "armv8_cortex_a53", "cortex_a53"},
    {__LINE__, "armv8_cortex_a57", "cortex_a57"},
    {__LINE__, "armv8_cortex_a72", "cortex_a72"},
    {__LINE__, "armv8_pmuv3_0", "armv8"},
    {__LINE__, "armv8_neoverse_n1", "neoverse_n1"},
    {__LINE__, "armv8_neoverse_v2", "neoverse_v2"},
    {__LINE__, "armv5_xscale1", "xscale1"},
    {__LINE__, "armv5_xscale2", "xscale2"},
    {__LINE__, "cpu", NULL},
};

/* The seed's XScale modes: two events plus CCNT. */
static const char *const seed_modes[] = {"icache", "ifetch", "dcache", "bufstall",
					 "stall",  "itlb",   "dtlb"};

static void check_arm_cores(const struct mode_registry *reg)
{
	for (size_t i = 0; i < sizeof(core_maps) / sizeof(core_maps[0]); i++) {
		const struct pmu_family *f = family_find(core_maps[i].family);
		CHECK(f != NULL, "family %s", core_maps[i].family);
		if (!f)
			continue;
		CHECK(f->counters == core_maps[i].counters, "%s: %d counters, want %d", f->key,
		      f->counters, core_maps[i].counters);
		CHECK(f->fixed == 1, "%s: one cycle counter", f->key);
		CHECK_INT(f->counter_bits, 32);
		/* every listed number is implemented by the family's own table, the lacking ones
		 * not */
		for (int j = 0; j < 3 && core_maps[i].tables[j]; j++)
			for (const struct raw_event *t = core_maps[i].tables[j]; t->name; t++)
				if (raw_name(f, t->code))
					CHECK(family_implements(f, t->code) != 0,
					      "%s implements 0x%02x %s", f->key, t->code, t->name);
		for (int j = 0; core_maps[i].lacks[j]; j++)
			CHECK(family_implements(f, core_maps[i].lacks[j]) == 0, "%s lacks 0x%02x",
			      f->key, core_maps[i].lacks[j]);
	}
	for (size_t i = 0; i < sizeof(pmu_name_cases) / sizeof(pmu_name_cases[0]); i++) {
		const struct pmu_family *f = family_from_pmu_name(pmu_name_cases[i].pmu);
		if (!pmu_name_cases[i].family)
			CHECK(f == NULL, "line %d: %s has no family", pmu_name_cases[i].line,
			      pmu_name_cases[i].pmu);
		else
			CHECK(f && strcmp(f->key, pmu_name_cases[i].family) == 0,
			      "line %d: %s -> %s", pmu_name_cases[i].line, pmu_name_cases[i].pmu,
			      f ? f->key : "NULL");
	}
	/* the cycle counter of each architecture */
	CHECK_INT(family_cycle_code(family_find("armv6")), 0xff);
	CHECK_INT(family_cycle_code(family_find("arm11mpcore")), 0xff);
	CHECK_INT(family_cycle_code(family_find("cortex_a9")), 0xff);
	CHECK_INT(family_cycle_code(family_find("cortex_a53")), 0x11);
	CHECK_INT(family_cycle_code(family_find("xscale1")), 0xfe);

	/* the seed's modes run on ARMv6 and ARM11 MPCore in one counter set: no rotation */
	const char *const v6[] = {"armv6", "arm11mpcore"};
	for (size_t k = 0; k < 2; k++) {
		const struct pmu_family *f = family_find(v6[k]);
		for (size_t i = 0; i < sizeof(seed_modes) / sizeof(seed_modes[0]); i++) {
			const struct mode *m = mode_find(reg, seed_modes[i]);
			static struct mode_plan plan;
			char err[256];
			struct mode_avail a;
			if (!m || !f) {
				CHECK(0, "%s on %s", seed_modes[i], v6[k]);
				continue;
			}
			CHECK(mode_availability(m, f, &a) == 0, "%s on %s: %s", m->name, f->key,
			      a.reason);
			CHECK(a.needed <= 2 && a.fixed == 1 && !a.multiplex,
			      "%s on %s: %d counters + %d fixed", m->name, f->key, a.needed,
			      a.fixed);
			int n = mode_plan_sets(m, f, f->counters, &plan, err, sizeof(err));
			CHECK(n == 1, "%s on %s: %d sets (%s)", m->name, f->key, n, err);
		}
	}
	/* XScale (CCNT + 2, CCNT + 4): each seed mode's PMN0/PMN1 pair counts in one set, and
	 * every set counts an event some metric reads (the seed, section 3.7.4) */
	static const struct {
		const char *mode;
		unsigned pmn0, pmn1;
	} seed_pairs[] = {{"icache", 0x07, 0x00},   {"ifetch", 0x01, 0x00}, {"dcache", 0x0a, 0x0b},
			  {"bufstall", 0x08, 0x09}, {"stall", 0x02, 0x0c},  {"itlb", 0x07, 0x03},
			  {"dtlb", 0x0a, 0x04}};
	const char *const xs[] = {"xscale1", "xscale2"};
	for (size_t k = 0; k < 2; k++) {
		const struct pmu_family *f = family_find(xs[k]);
		for (size_t i = 0; f && i < sizeof(seed_pairs) / sizeof(seed_pairs[0]); i++) {
			const struct mode *m = mode_find(reg, seed_pairs[i].mode);
			static struct mode_plan plan;
			char err[256], spec0[8], spec1[8];
			struct mode_resolution r;
			if (!m || mode_resolve(m, f, &r) < 0) {
				CHECK(0, "%s on %s", seed_pairs[i].mode, xs[k]);
				continue;
			}
			int n = mode_plan_sets(m, f, f->counters, &plan, err, sizeof(err));
			CHECK(n >= 1, "%s on %s: %s", m->name, f->key, err);
			snprintf(spec0, sizeof(spec0), "r%02x", seed_pairs[i].pmn0);
			snprintf(spec1, sizeof(spec1), "r%02x", seed_pairs[i].pmn1);
			bool together = false;
			for (int s = 0; s < plan.nsets; s++) {
				bool has0 = false, has1 = false, useful = false;
				for (int j = 0; j < plan.set[s].n; j++) {
					const struct mode_event *ev =
					    &r.events->events[plan.set[s].ev[j]];
					has0 |= !strcmp(ev->spec, spec0);
					has1 |= !strcmp(ev->spec, spec1);
					if (!strcmp(ev->spec, "rfe"))
						continue; /* CCNT counts in every set */
					for (int q = 0; q < m->nmetrics && !useful; q++) {
						const char *const *names;
						int nv = expr_vars(m->metrics[q].expr, &names);
						for (int v = 0; v < nv; v++)
							useful |= !strcmp(names[v], ev->alias);
					}
				}
				together |= has0 && has1;
				CHECK(useful, "%s on %s: set %d counts only events no metric reads",
				      m->name, f->key, s);
			}
			CHECK(together, "%s on %s: the seed's pair %s, %s in one set", m->name,
			      f->key, spec0, spec1);
		}
	}
	/* ARMv6 and ARM11 MPCore differ from 0x06 on: instructions are 0x07 and 0x08 */
	struct mode_resolution r;
	const struct mode *cpi = mode_find(reg, "cpi");
	CHECK(cpi && mode_resolve(cpi, family_find("armv6"), &r) == 0 &&
		  !strcmp(r.events->events[mode_event_index(r.events, "instructions")].spec, "r07"),
	      "cpi armv6 instructions r07");
	CHECK(cpi && mode_resolve(cpi, family_find("arm11mpcore"), &r) == 0 &&
		  !strcmp(r.events->events[mode_event_index(r.events, "instructions")].spec, "r08"),
	      "cpi arm11mpcore instructions r08");
	CHECK(
	    cpi && mode_resolve(cpi, family_find("cortex_a9"), &r) == 0 &&
		!strcmp(r.events->events[mode_event_index(r.events, "instructions")].spec, "r68") &&
		r.events->note && strstr(r.events->note, "Cortex-A9 TRM"),
	    "cpi cortex_a9 instructions r68, labelled");

	/* a user mode that counts instructions with 0x08 is refused on Cortex-A9, by name */
	char err[256];
	struct mode *m8 = mode_define("i8", "c=rff,i=r08", "cpi=c/i", err, sizeof(err));
	struct mode_avail a;
	CHECK(m8 && mode_availability(m8, family_find("cortex_a9"), &a) < 0 &&
		  strstr(a.reason, "INST_RETIRED (0x08)") && strstr(a.reason, "Cortex-A9 TRM"),
	      "r08 on cortex_a9: %s", m8 ? a.reason : err);
	CHECK(m8 && mode_availability(m8, family_find("cortex_a7"), &a) == 0, "r08 on cortex_a7");
	mode_free(m8);

	/* ARMv8: sysfs events/ (PMCEID) decides for the common events */
	const struct mode *stall = mode_find(reg, "stall");
	const unsigned short no_stall[] = {0x03, 0x04, 0x08, 0x11, 0x15};
	const unsigned short with_stall[] = {0x03, 0x04, 0x08, 0x11, 0x15, 0x24};
	struct mode_event_support sup = {
	    .pmu = "armv8_pmuv3_0", .listed = no_stall, .nlisted = 5, .counters = 3};
	CHECK(stall && mode_availability_on(stall, family_find("armv8"), &sup, &a) < 0 &&
		  strstr(a.reason, "STALL_BACKEND (0x24)") && strstr(a.reason, "armv8_pmuv3_0") &&
		  strstr(a.reason, "events/"),
	      "stall without 0x24 in events/: %s", a.reason);
	sup.listed = with_stall;
	sup.nlisted = 6;
	CHECK(stall && mode_availability_on(stall, family_find("armv8"), &sup, &a) == 0 &&
		  a.counters == 3 && a.needed == 3 && !a.multiplex,
	      "stall with 0x24 listed: %s (counters %d)", a.reason, a.counters);
	sup.listed = NULL; /* no events/ directory: the family decides */
	CHECK(stall && mode_availability_on(stall, family_find("armv8"), &sup, &a) == 0,
	      "stall, no events/: %s", a.reason);
	/* an implementation-defined number is never in events/: the core table decides */
	sup.listed = no_stall;
	sup.nlisted = 5;
	CHECK(stall && mode_availability_on(stall, family_find("cortex_a53"), &sup, &a) == 0 &&
		  a.note && strstr(a.note, "implementation-defined (Cortex-A53 TRM)"),
	      "stall on cortex_a53 with 0xE7: %s", a.reason);
}

/* ---- event slots ------------------------------------------------------------------------- */

static const struct {
	int line;
	const char *spec, *family;
	enum event_slot slot;
	int fixed_id;
} slot_cases[] = {
    {__LINE__, "perf::CYCLES", "skl", EVENT_SLOT_FIXED, 1},
    {__LINE__, "perf::INSTRUCTIONS", "skl", EVENT_SLOT_FIXED, 0},
    {__LINE__, "perf::REF-CYCLES", "icl", EVENT_SLOT_FIXED, 2},
    {__LINE__, "@::INST_RETIRED:ANY", "skl", EVENT_SLOT_FIXED, 0},
    {__LINE__, "skl::CPU_CLK_UNHALTED:THREAD", "skl", EVENT_SLOT_FIXED, 1},
    {__LINE__, "@::INST_RETIRED:ANY_P", "skl", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "@::L1D:REPLACEMENT", "skl", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "perf::CYCLES", "zen", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "perf::CYCLES", "generic", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "r11", "armv8", EVENT_SLOT_FIXED, 1},
    {__LINE__, "perf::CYCLES", "armv8", EVENT_SLOT_FIXED, 1},
    {__LINE__, "r08", "armv8", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "rff", "armv7", EVENT_SLOT_FIXED, 1},
    {__LINE__, "r11", "armv7", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "rfe", "xscale1", EVENT_SLOT_FIXED, 1},
    {__LINE__, "rFE", "xscale2", EVENT_SLOT_FIXED, 1},
    {__LINE__, "r07", "xscale1", EVENT_SLOT_COUNTER, -1},
    {__LINE__, "cpu-clock", "xscale1", EVENT_SLOT_NONE, -1},
    {__LINE__, "perf::CONTEXT-SWITCHES", "skl", EVENT_SLOT_NONE, -1},
    {__LINE__, "msr/tsc/", "skl", EVENT_SLOT_NONE, -1},
    {__LINE__, "cpu/event=0x3c,umask=0/", "skl", EVENT_SLOT_COUNTER, -1},
};

static void check_slots(void)
{
	for (size_t i = 0; i < sizeof(slot_cases) / sizeof(slot_cases[0]); i++) {
		int id = -5;
		enum event_slot s =
		    mode_event_slot(slot_cases[i].spec, family_find(slot_cases[i].family), &id);
		CHECK(s == slot_cases[i].slot, "line %d: %s slot %d", slot_cases[i].line,
		      slot_cases[i].spec, s);
		CHECK(id == slot_cases[i].fixed_id, "line %d: %s fixed id %d", slot_cases[i].line,
		      slot_cases[i].spec, id);
	}
}

/* ---- parse errors ------------------------------------------------------------------------ */

#define HEAD "[mode]\nname = t\n"
#define EVENTS "[events *]\nclock = cpu-clock\n"
#define METRIC "[metric util]\nexpr = clock / interval_ns\n"

static const struct {
	int line;
	const char *text;
	const char *err; /* NULL = parses */
} parse_cases[] = {
    {__LINE__, HEAD EVENTS METRIC, NULL},
    {__LINE__, "# comment\n; comment\n\n" HEAD EVENTS METRIC "unit = %\nwarn = 50\nbad = 90\n",
     NULL},
    {__LINE__,
     HEAD "[events.skl skx, icl]\nx = @::L1D:REPLACEMENT\n" METRIC
	  "[events *]\nclock = cpu-clock\n",
     NULL},
    {__LINE__, HEAD "kind = offcore\n" EVENTS METRIC, NULL},
    {__LINE__,
     HEAD "[events *]   # software\nclock = cpu-clock  # the clock\n" METRIC
	  "unit = %\t# percent\n",
     NULL},
    {__LINE__, "name = t\n", "t.mode:1: \"name\" outside a section (start with [mode])"},
    {__LINE__, HEAD "[sideways]\n",
     "t.mode:3: unknown section [sideways] (expected [mode], [events FAMILY...], [metric NAME] or "
     "[unavailable])"},
    {__LINE__, HEAD "[events *\n", "t.mode:3: malformed section header (expected [name])"},
    {__LINE__, HEAD "[events *] x\n", "t.mode:3: malformed section header (expected [name])"},
    {__LINE__, HEAD "just words\n", "t.mode:3: expected key = value, got \"just words\""},
    {__LINE__, HEAD "= value\n", "t.mode:3: missing key before '='"},
    {__LINE__, HEAD "colour = red\n",
     "t.mode:3: unknown key \"colour\" in [mode] (name, title, help, kind, stack, drill)"},
    {__LINE__,
     HEAD "stack = util, util2\ndrill = t2\n" EVENTS METRIC "[metric util2]\nexpr = 100 - util\n",
     "t.mode:10: metric util2: unknown name \"util\" (not an event alias or builtin variable)"},
    {__LINE__, HEAD "stack = util, other\n" EVENTS METRIC "[metric other]\nexpr = 1\n", NULL},
    {__LINE__, HEAD "stack = util, nope\n" EVENTS METRIC,
     "t.mode:3: stack: \"nope\" is not a metric of mode t"},
    {__LINE__, HEAD "stack = util\n" EVENTS METRIC,
     "t.mode:3: stack needs at least two metric names"},
    {__LINE__, HEAD "stack = a b c d e f g h i\n" EVENTS METRIC,
     "t.mode:3: stack: more than 8 metrics"},
    {__LINE__, HEAD "drill = two words\n" EVENTS METRIC,
     "t.mode:3: bad drill-down mode name \"two words\" (letters, digits, _ - + . and one "
     "library: prefix; at most 48)"},
    {__LINE__, "[mode]\nname = perf:TopdownL1\n" EVENTS METRIC, NULL},
    {__LINE__, "[mode]\nname = likwid:FLOPS_DP\n" EVENTS METRIC, NULL},
    {__LINE__, "[mode]\nname = a:b:c\n",
     "t.mode:2: bad mode name \"a:b:c\" (letters, digits, _ - + . and one library: prefix; at "
     "most 48)"},
    {__LINE__, "[mode]\nname = :x\n",
     "t.mode:2: bad mode name \":x\" (letters, digits, _ - + . and one library: prefix; at "
     "most 48)"},
    {__LINE__, HEAD "kind = magic\n", "t.mode:3: unknown kind \"magic\" (counters or offcore)"},
    {__LINE__, "[mode]\nname = bad name\n",
     "t.mode:2: bad mode name \"bad name\" (letters, digits, _ - + . and one library: prefix; "
     "at most 48)"},
    {__LINE__, HEAD "[events skylake]\n", "t.mode:3: unknown family \"skylake\""},
    {__LINE__, HEAD "[events]\n",
     "t.mode:3: events section names no family ([events skl skx] or [events *])"},
    {__LINE__, HEAD "[events ]\n",
     "t.mode:3: events section names no family ([events skl skx] or [events *])"},
    {__LINE__, HEAD "[events skl]\na = r1\n[events icl skl]\n",
     "t.mode:5: family skl has two events sections (line 3)"},
    {__LINE__, HEAD EVENTS "clock = cpu-clock\n",
     "t.mode:5: event alias \"clock\" defined twice in this section"},
    {__LINE__, HEAD EVENTS "9lives = r1\n",
     "t.mode:5: bad event alias \"9lives\" (letters, digits, _)"},
    {__LINE__, HEAD EVENTS "interval = r1\n",
     "t.mode:5: event alias \"interval\" is a builtin variable"},
    {__LINE__, HEAD EVENTS "x =\n", "t.mode:5: event x: empty event spec"},
    {__LINE__, HEAD EVENTS "x = perf::CYCLES extra\n",
     "t.mode:5: event x: spaces or control characters in \"perf::CYCLES extra\""},
    {__LINE__, HEAD EVENTS METRIC "unit = %\nwarn = lots\n",
     "t.mode:8: metric util: warn = \"lots\" is not a number"},
    {__LINE__, HEAD EVENTS METRIC "bad = 1e999\n",
     "t.mode:7: metric util: bad = \"1e999\" is not a number"},
    {__LINE__, HEAD EVENTS METRIC "colour = red\n",
     "t.mode:7: unknown key \"colour\" in [metric util] (expr, unit, desc, good, warn, bad, "
     "better)"},
    {__LINE__, HEAD EVENTS METRIC "better = sideways\n",
     "t.mode:7: metric util: better = higher or lower"},
    {__LINE__, HEAD EVENTS "[metric util]\nexpr = (clock\n",
     "t.mode:6: metric util: column 1: unbalanced '(': no matching ')'"},
    {__LINE__, HEAD EVENTS "[metric util]\nexpr = clock /\n",
     "t.mode:6: metric util: column 8: operand expected at end of formula"},
    {__LINE__, HEAD EVENTS "[metric util]\nexpr =\n",
     "t.mode:6: metric util: column 1: empty formula"},
    {__LINE__, HEAD EVENTS "[metric util]\nexpr = clok / interval\n",
     "t.mode:6: metric util: unknown name \"clok\" (not an event alias or builtin variable)"},
    {__LINE__, HEAD EVENTS "[metric util]\nunit = %\n", "t.mode:5: metric util has no expr"},
    {__LINE__, HEAD EVENTS METRIC "[metric util]\n", "t.mode:7: metric \"util\" defined twice"},
    {__LINE__, HEAD EVENTS "[metric 2fast]\n",
     "t.mode:5: bad metric name \"2fast\" (letters, digits, _)"},
    {__LINE__, "[mode]\ntitle = x\n" EVENTS METRIC,
     "t.mode:6: mode has no name (name = ... in [mode])"},
    {__LINE__, HEAD METRIC, "t.mode:4: mode t has no [events ...] section"},
    {__LINE__, "", "t.mode: mode has no name (name = ... in [mode])"},
    {__LINE__, HEAD "[metric]\n", "t.mode:3: bad metric name \"\" (letters, digits, _)"},
    {__LINE__, HEAD "[metric util]\nexpr = interval\n",
     "t.mode:4: mode t has no [events ...] section"},
    {__LINE__, HEAD EVENTS, "t.mode:4: mode t has no metrics"},
    {__LINE__, HEAD "[events skl]\n" EVENTS METRIC, "t.mode:3: events section has no events"},
    {__LINE__, HEAD "[unavailable]\nskl = no\n[events skl]\nx = r1\n" EVENTS METRIC,
     "t.mode:4: family skl is both unavailable and has events (line 5)"},
    {__LINE__, HEAD "[unavailable]\nskylake = no\n", "t.mode:4: unknown family \"skylake\""},
    {__LINE__, HEAD "[events armv6]\nnote = a\nnote = b\n",
     "t.mode:5: note given twice in this section"},
    {__LINE__, HEAD "[events armv6]\nnote = a\x1b[2J\n",
     "t.mode:4: note: control characters in the label"},
    {__LINE__, HEAD "[events armv6]\nnote =\n", "t.mode:4: note: give the label after '='"},
    {__LINE__, HEAD "[unavailable]\nskl =\n", "t.mode:4: unavailable: give a reason after '='"},
    {__LINE__, HEAD EVENTS METRIC "better = higher\nwarn = 5\nbad = 10\n",
     "t.mode:6: metric util: warn and bad point opposite ways to 'better'"},
    {__LINE__, HEAD "[events *]\nx\x01 = r1\n",
     "t.mode:4: bad event alias \"x\\x01\" (letters, digits, _)"},
};

static void check_parse_errors(void)
{
	char err[512];
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		err[0] = '\0';
		struct mode *m = mode_parse("t.mode", parse_cases[i].text, err, sizeof(err));
		if (!parse_cases[i].err) {
			CHECK(m != NULL, "line %d: %s", parse_cases[i].line, err);
		} else {
			CHECK(m == NULL, "line %d: parsed", parse_cases[i].line);
			CHECK(strcmp(err, parse_cases[i].err) == 0,
			      "line %d:\n   got \"%s\"\n  want \"%s\"", parse_cases[i].line, err,
			      parse_cases[i].err);
		}
		mode_free(m);
	}
	/* Details of a good parse: optional events, kind, multi-line help, thresholds. */
	struct mode *m =
	    mode_parse("t.mode",
		       HEAD "kind = offcore\nhelp = one\nhelp = two\n[events skl, icl]\n"
			    "x = @::L1D:REPLACEMENT\ntsc? = msr/tsc/\n" EVENTS METRIC
			    "warn = 50\nbad = 90\ngood = 10\n",
		       err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	if (m) {
		CHECK_INT(m->kind, MODE_KIND_OFFCORE);
		CHECK_STR(m->help, "one\ntwo");
		CHECK_STR(m->title, "t");
		CHECK_INT(m->nsets, 2);
		CHECK_INT(m->sets[0].nfamilies, 2);
		CHECK_STR(m->sets[0].events[1].alias, "tsc");
		CHECK(m->sets[0].events[1].optional && !m->sets[0].events[0].optional,
		      "optional flag");
		CHECK_INT(m->metrics[0].better, -1);
		mode_free(m);
	}
}

static char *err_buf(void)
{
	static char buf[256];
	return buf;
}

/* ---- thresholds -------------------------------------------------------------------------- */

static void check_classify(void)
{
	struct mode_metric hi = {.good = 1, .warn = 2, .bad = 4, .better = -1};	     /* CPI-like */
	struct mode_metric lo = {.good = 1, .warn = 0.5, .bad = 0.25, .better = +1}; /* IPC-like */
	struct mode_metric none = {.good = NAN, .warn = NAN, .bad = NAN};
	struct mode_metric warn_only = {.good = NAN, .warn = 5, .bad = NAN, .better = -1};
	static const struct {
		int line;
		int which; /* 0 hi, 1 lo, 2 none, 3 warn_only */
		double v;
		enum metric_class want;
	} cases[] = {
	    {__LINE__, 0, 0.5, METRIC_GOOD}, {__LINE__, 0, 1, METRIC_GOOD},
	    {__LINE__, 0, 1.5, METRIC_NONE}, {__LINE__, 0, 2, METRIC_WARN},
	    {__LINE__, 0, 3.9, METRIC_WARN}, {__LINE__, 0, 4, METRIC_BAD},
	    {__LINE__, 0, NAN, METRIC_NA},   {__LINE__, 1, 2, METRIC_GOOD},
	    {__LINE__, 1, 0.7, METRIC_NONE}, {__LINE__, 1, 0.5, METRIC_WARN},
	    {__LINE__, 1, 0.1, METRIC_BAD},  {__LINE__, 2, 5, METRIC_NONE},
	    {__LINE__, 2, NAN, METRIC_NA},   {__LINE__, 3, 1, METRIC_GOOD},
	    {__LINE__, 3, 6, METRIC_WARN},
	};
	const struct mode_metric *ms[] = {&hi, &lo, &none, &warn_only};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(metric_classify(ms[cases[i].which], cases[i].v) == cases[i].want,
		      "line %d: %g -> %d", cases[i].line, cases[i].v,
		      metric_classify(ms[cases[i].which], cases[i].v));
	/* Inline comments are cut off the value. */
	struct mode *c = mode_parse(
	    "t.mode", HEAD "[events *] # sw\nclock = cpu-clock # c\n" METRIC "unit = % # pct\n",
	    err_buf(), 256);
	CHECK(c && strcmp(c->metrics[0].unit, "%") == 0 &&
		  strcmp(c->sets[0].events[0].spec, "cpu-clock") == 0,
	      "inline comments");
	mode_free(c);
	/* Direction inferred from a file: bad < warn means lower is worse. */
	char err[256];
	struct mode *m =
	    mode_parse("t.mode", HEAD EVENTS METRIC "warn = 0.5\nbad = 0.25\n", err, sizeof(err));
	CHECK(m && m->metrics[0].better == +1, "inferred direction: %s", m ? "" : err);
	mode_free(m);
}

/* ---- set planning ------------------------------------------------------------------------ */

/* The planner's table: on FAMILY with COUNTERS programmable counters, the mode (built-in
 * modes joined by "+", or EVENTS and METRICS as for define) gets exactly SETS (sets in braces,
 * events in mode order; fixed and software events in every set) and exactly the metrics in SPLIT
 * are ratios from different runs. Another PMU is one more row: an ARMv6 core (CCNT + 2, like
 * xscale1) is {__LINE__, "armv6", 2, NULL, "ccnt=rff,a=r00,b=r01", "ab=a/b", "{ccnt a b}", ""}
 * with its own cycle event. */
static const struct plan_case {
	int line;
	const char *family;
	int counters;
	const char *modes;	      /* built-in modes, or NULL: the define below */
	const char *events, *metrics; /* define */
	const char *sets;
	const char *split; /* space-separated metric names, "" = none */
} plan_cases[] = {
    /* The XScale manual's modes as it gives them (IXP42X developer's manual, 3.7.4): two events
     * in PMN0/PMN1 and CCNT for the execution time. On xscale1 (CCNT + 2) each runs in one set:
     * no rotation. */
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,inst=r07,imiss=r00",
     "imiss_rate=imiss/inst;cpi=ccnt/inst", "{ccnt inst imiss}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,fstall=r01,imiss=r00",
     "fstall_pct=100*fstall/ccnt;stall_per_miss=fstall/imiss", "{ccnt fstall imiss}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,daccess=r0a,dmiss=r0b", "dmiss_rate=dmiss/daccess",
     "{ccnt daccess dmiss}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,bstall=r08,bfull=r09",
     "bstall_pct=100*bstall/ccnt;cycles_per_full=bstall/bfull", "{ccnt bstall bfull}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,dstall=r02,wb=r0c", "dstall_pct=100*dstall/ccnt",
     "{ccnt dstall wb}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,inst=r07,itlb=r03",
     "itlb_rate=itlb/inst;cpi=ccnt/inst", "{ccnt inst itlb}", ""},
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,daccess=r0a,dtlb=r04", "dtlb_rate=dtlb/daccess",
     "{ccnt daccess dtlb}", ""},
    /* Built-in modes: a third programmable event rotates; each metric keeps its events
     * together, the shared event is repeated (dtlb_miss in both sets counts all the time). */
    {__LINE__, "xscale1", 2, "icache", NULL, NULL, "{cycles instructions imiss}", ""},
    {__LINE__, "xscale1", 2, "dcache", NULL, NULL,
     "{cycles daccess dmiss} {cycles instructions dmiss}", ""},
    {__LINE__, "xscale1", 2, "dtlb", NULL, NULL,
     "{cycles daccess dtlb_miss} {cycles instructions dtlb_miss}", ""},
    {__LINE__, "xscale1", 2, "icache+dcache", NULL, NULL,
     "{cycles instructions imiss} {cycles daccess dmiss} {cycles instructions dmiss}", ""},
    {__LINE__, "xscale2", 4, "icache+dcache", NULL, NULL,
     "{cycles instructions imiss daccess dmiss}", ""},
    /* One counter: a metric of two counted events cannot stay together. */
    {__LINE__, "xscale1", 1, "icache", NULL, NULL, "{cycles instructions} {cycles imiss}",
     "imiss_pki imiss_rate"},
    /* Fixed counters and software events only: one set. */
    {__LINE__, "skl", 4, "cpi", NULL, NULL, "{cycles instructions ref tsc}", ""},
    /* A shared denominator is repeated in each set that needs it. */
    {__LINE__, "xscale1", 2, NULL, "a=r00,b=r01,c=r02", "ac=a/c;bc=b/c", "{a c} {b c}", ""},
    {__LINE__, "xscale1", 3, NULL, "a=r00,b=r01,c=r02", "ac=a/c;bc=b/c", "{a b c}", ""},
    {__LINE__, "xscale1", 1, NULL, "a=r00,b=r01,c=r02", "ac=a/c;bc=b/c", "{a} {b} {c}", "ac bc"},
    /* The metric that fits goes into the set needing the fewest additions. */
    {__LINE__, "xscale1", 2, NULL, "a=r00,b=r01,c=r02,d=r03", "ab=a/b;cd=c/d;bd=b/d",
     "{a b} {c d} {b d}", ""},
    {__LINE__, "xscale1", 3, NULL, "a=r00,b=r01,c=r02,d=r03", "ab=a/b;cd=c/d;bd=b/d",
     "{a b d} {c d}", ""},
    /* A metric larger than the counters is split; the others still stay together. */
    {__LINE__, "xscale1", 2, NULL, "a=r00,b=r01,c=r02,d=r03", "abc=(a+b)/c;cd=c/d", "{c d} {a b}",
     "abc"},
    /* An event no metric reads fills the first set with room. */
    {__LINE__, "xscale1", 2, NULL, "ccnt=rfe,a=r00,b=r01,x=r05", "ab=a/b;cpa=ccnt/a",
     "{ccnt a b} {ccnt x}", ""},
};

/* "{a b} {c}" for @p. */
static void plan_text(const struct mode_plan *p, char *out, size_t len)
{
	out[0] = '\0';
	for (int s = 0; s < p->nsets; s++) {
		size_t u = strlen(out);
		snprintf(out + u, len - u, "%s{", s ? " " : "");
		for (int j = 0; j < p->set[s].n; j++) {
			u = strlen(out);
			snprintf(out + u, len - u, "%s%s", j ? " " : "",
				 p->events->events[p->set[s].ev[j]].alias);
		}
		u = strlen(out);
		snprintf(out + u, len - u, "}");
	}
}

static struct mode *plan_case_mode(const struct mode_registry *reg, const struct plan_case *c,
				   const struct pmu_family *fam, char *err, size_t errlen)
{
	if (!c->modes)
		return mode_define("plan", c->events, c->metrics, err, errlen);
	const struct mode *parts[4];
	int n = 0;
	char names[64];
	snprintf(names, sizeof(names), "%s", c->modes);
	for (char *save = NULL, *t = strtok_r(names, "+", &save); t && n < 4;
	     t = strtok_r(NULL, "+", &save))
		if (!(parts[n++] = mode_find(reg, t))) {
			snprintf(err, errlen, "no built-in mode %s", t);
			return NULL;
		}
	return mode_merge(parts, n, fam, err, errlen);
}

static void check_plans(const struct mode_registry *reg)
{
	char err[256];
	for (size_t i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++) {
		const struct plan_case *c = &plan_cases[i];
		const struct pmu_family *fam = family_find(c->family);
		struct mode *m = plan_case_mode(reg, c, fam, err, sizeof(err));
		CHECK(fam && m, "line %d: %s", c->line, err);
		if (!fam || !m)
			continue;
		struct mode_plan plan;
		int n = mode_plan_sets(m, fam, c->counters, &plan, err, sizeof(err));
		CHECK(n > 0, "line %d: %s", c->line, err);
		char got[512], split[256] = "";
		plan_text(&plan, got, sizeof(got));
		for (int k = 0; n > 0 && k < m->nmetrics; k++)
			if (plan.split[k]) {
				size_t u = strlen(split);
				snprintf(split + u, sizeof(split) - u, "%s%s", u ? " " : "",
					 m->metrics[k].name);
			}
		printf("plan %s on %s, %d counters: %s%s%s\n", c->modes ? c->modes : c->metrics,
		       c->family, c->counters, got, split[0] ? "; split: " : "", split);
		CHECK(n <= 0 || strcmp(got, c->sets) == 0, "line %d: sets %s, want %s", c->line,
		      got, c->sets);
		CHECK_INT(n, plan.nsets);
		CHECK(strcmp(split, c->split) == 0, "line %d: split \"%s\", want \"%s\"", c->line,
		      split, c->split);
		/* a plan never puts more programmable events in a set than there are counters */
		struct mode_avail a;
		mode_availability(m, fam, &a);
		for (int s = 0; s < plan.nsets; s++)
			CHECK(plan.set[s].n - a.fixed - a.other <= c->counters,
			      "line %d: set %d holds %d events", c->line, s, plan.set[s].n);
		mode_free(m);
	}

	const struct pmu_family *x1 = family_find("xscale1");
	const struct mode *ic = mode_find(reg, "icache");
	struct mode_plan plan;
	/* Errors. */
	CHECK(ic && mode_plan_sets(ic, x1, 0, &plan, err, sizeof(err)) < 0 && err[0], "0 counters");
	const struct mode *llc = mode_find(reg, "llc");
	CHECK(llc && mode_plan_sets(llc, x1, 2, &plan, err, sizeof(err)) < 0 &&
		  strstr(err, "no L2"),
	      "unavailable: %s", err);
	/* Clashing aliases cannot merge; unavailable modes cannot either. */
	struct mode *a1 = mode_define("a1", "x=r1", "m=x", err, sizeof(err));
	struct mode *a2 = mode_define("a2", "x=r2", "m=x", err, sizeof(err));
	const struct mode *clash[] = {a1, a2};
	struct mode *bad = mode_merge(clash, 2, x1, err, sizeof(err));
	CHECK(bad == NULL && strstr(err, "alias x"), "clash: %s", err);
	const struct mode *na[] = {ic, llc};
	bad = mode_merge(na, 2, x1, err, sizeof(err));
	CHECK(bad == NULL && strstr(err, "mode llc"), "unavailable merge: %s", err);
	mode_free(a1);
	mode_free(a2);
}

/* ---- define ------------------------------------------------------------------------------ */

static const struct {
	int line;
	const char *name, *events, *metrics;
	const char *err; /* NULL = ok; else the exact message */
	int nevents, nmetrics;
} define_cases[] = {
    {__LINE__, "mine", "c=perf::CYCLES,i=perf::INSTRUCTIONS", "cpi=c/i;ipc=i/c", NULL, 2, 2},
    {__LINE__, "mine", " c = perf::CYCLES , i = perf::INSTRUCTIONS ", " cpi = c / i ; ", NULL, 2,
     1},
    {__LINE__, "raw", "x=r1b7:config1=0x10001,t?=msr/tsc/", "rate[/s]=x/interval", NULL, 2, 1},
    {__LINE__, "sysfs", "x=cpu/event=0x3c,umask=0x0/,y=r01", "r=x/y", NULL, 2, 1},
    {__LINE__, "bad name", "c=r1", "m=c",
     "define: bad mode name \"bad name\" (letters, digits, _ - + . and one library: prefix; "
     "at most 48)",
     0, 0},
    {__LINE__, "m", "", "m=1", "define: events: column 1: empty event", 0, 0},
    /* an unnamed event is named after its spec, as -e names them */
    {__LINE__, "m", "cycles,r1", "m=cycles/r1", NULL, 2, 1},
    {__LINE__, "m", "{c=r1,d=r2", "m=c",
     "define: events: column 1: group opened here is not closed ('}')", 0, 0},
    {__LINE__, "m", "c=r1,c=r2", "m=c",
     "define: event 2: event alias \"c\" defined twice in this section", 0, 0},
    {__LINE__, "m", "c=", "m=c", "define: events: column 3: no event after \"c=\"", 0, 0},
    {__LINE__, "m", "c=r1", "", "define: no metrics (expected name=formula;name=formula)", 0, 0},
    {__LINE__, "m", "c=r1", "m", "define: metric 1 \"m\": expected name=formula", 0, 0},
    {__LINE__, "m", "c=r1", "m=c;m=c", "define: metric 2: metric \"m\" defined twice", 0, 0},
    {__LINE__, "m", "c=r1", "m=c*(2",
     "define: metric 1: metric m: column 3: unbalanced '(': no matching ')'", 0, 0},
    {__LINE__, "m", "c=r1", "m=d",
     "define: metric m: unknown name \"d\" (not an event alias or builtin variable)", 0, 0},
    {__LINE__, "m", "c=r1", "m[%=c", "define: metric 1: unit must be written name[unit]", 0, 0},
};

static void check_define(void)
{
	char err[256];
	for (size_t i = 0; i < sizeof(define_cases) / sizeof(define_cases[0]); i++) {
		err[0] = '\0';
		struct mode *m = mode_define(define_cases[i].name, define_cases[i].events,
					     define_cases[i].metrics, err, sizeof(err));
		if (define_cases[i].err) {
			CHECK(m == NULL, "line %d: defined", define_cases[i].line);
			CHECK(strcmp(err, define_cases[i].err) == 0,
			      "line %d:\n   got \"%s\"\n  want \"%s\"", define_cases[i].line, err,
			      define_cases[i].err);
		} else {
			CHECK(m != NULL, "line %d: %s", define_cases[i].line, err);
			if (m) {
				CHECK_INT(m->sets[0].nevents, define_cases[i].nevents);
				CHECK_INT(m->nmetrics, define_cases[i].nmetrics);
				CHECK_STR(m->sets[0].families[0], "*");
				CHECK_STR(m->source, "define");
			}
		}
		mode_free(m);
	}
	struct mode *m = mode_define("raw", "x=r1b7:config1=0x10001,t?=msr/tsc/",
				     "rate[/s]=x/interval", err, sizeof(err));
	if (m) {
		CHECK_STR(m->sets[0].events[0].spec, "r1b7:config1=0x10001");
		CHECK_STR(m->sets[0].events[1].spec, "msr/tsc/");
		CHECK(m->sets[0].events[1].optional, "t? optional");
		CHECK_STR(m->metrics[0].unit, "/s");
		double v;
		struct mode_resolution r;
		CHECK(mode_resolve(m, family_find("xscale1"), &r) == 0,
		      "define applies everywhere");
		CHECK(expr_eval(m->metrics[0].expr, NULL, NULL, &v) < 0, "no inputs -> n/a");
		mode_free(m);
	}
	m = mode_define("sysfs", "x=cpu/event=0x3c,umask=0x0/,y=r01", "r=x/y", err, sizeof(err));
	if (m) {
		CHECK_STR(m->sets[0].events[0].spec, "cpu/event=0x3c,umask=0x0/");
		mode_free(m);
	}
}

/* ---- registry: built-in, directories, user overrides -------------------------------------- */

static void check_registry(void)
{
	struct mode_registry reg;
	mode_registry_init(&reg);
	int n = mode_load_builtin(&reg);
	CHECK_INT(n, 16); /* 12 + topdown, topdown2, tma, stallcycles */
	for (int i = 0; i < reg.nwarnings; i++)
		CHECK(0, "built-in warning: %s", reg.warnings[i]);
	const struct mode *cpi = mode_find(&reg, "cpi");
	CHECK(cpi && strcmp(cpi->source, "modes/cpi.mode") == 0, "cpi source");
	CHECK(mode_find(&reg, "ic") && strcmp(mode_find(&reg, "ic")->name, "icache") == 0,
	      "prefix ic");
	CHECK(mode_find(&reg, "d") == NULL, "d is ambiguous (dcache, dtlb)");
	CHECK(mode_find(&reg, "nosuch") == NULL, "unknown");

	/* A directory with good and broken files: broken ones warn, the rest load, cpi replaced. */
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/modes", harness_src());
	n = mode_load_dir(&reg, dir);
	CHECK_INT(n, 2);
	CHECK_INT(reg.nwarnings, 3);
	static const struct {
		const char *file;
		const char *msg;
	} want[] = {
	    {"bad_expr.mode", ":8: metric util: column 7: unbalanced '(': no matching ')'"},
	    {"bad_family.mode", ":4: unknown family \"skylake\""},
	    {"bad_section.mode", ":3: unknown section [sideways] (expected [mode], [events "
				 "FAMILY...], [metric NAME] or [unavailable])"},
	};
	for (int i = 0; i < 3 && i < reg.nwarnings; i++) {
		char expect[4608];
		snprintf(expect, sizeof(expect), "%s/%s%s", dir, want[i].file, want[i].msg);
		CHECK_STR(reg.warnings[i], expect);
	}
	CHECK_INT(reg.n, 17);
	cpi = mode_find(&reg, "cpi");
	CHECK(cpi && strcmp(cpi->title, "User CPI") == 0, "user cpi replaces the built-in one");
	CHECK(mode_find(&reg, "fixture_good") != NULL, "good fixture loaded");
	CHECK(mode_find(&reg, "dtlb") != NULL, "other modes still there");
	CHECK_INT(mode_load_dir(&reg, "/nonexistent/pmutop/modes"), 0);
	CHECK_INT(mode_load_file(&reg, "/nonexistent/x.mode"), -1);
	CHECK(strstr(reg.warnings[reg.nwarnings - 1], "/nonexistent/x.mode: "),
	      "missing file warning");

	/* Defined modes register like any other. */
	char err[256];
	struct mode *m = mode_define("mine", "c=perf::CYCLES", "rate=c/interval", err, sizeof(err));
	CHECK(m != NULL, "%s", err);
	if (m)
		mode_register(&reg, m);
	CHECK(mode_find(&reg, "mine") == m, "mine registered");
	mode_registry_free(&reg);

	/* User directory: XDG_CONFIG_HOME first, then HOME. */
	char buf[512];
	setenv("XDG_CONFIG_HOME", "/x/cfg", 1);
	CHECK(paths_user(PATHS_CONFIG, "modes", buf, sizeof(buf)) == 0 &&
		  strcmp(buf, "/x/cfg/pmutop/modes") == 0,
	      "xdg: %s", buf);
	setenv("XDG_CONFIG_HOME", "relative", 1); /* the spec says: ignore relative paths */
	setenv("HOME", "/home/u", 1);
	CHECK(paths_user(PATHS_CONFIG, "modes", buf, sizeof(buf)) == 0 &&
		  strcmp(buf, "/home/u/.config/pmutop/modes") == 0,
	      "home: %s", buf);
	/* state (the history) the same way: XDG_STATE_HOME, else ~/.local/state */
	setenv("XDG_STATE_HOME", "rel", 1);
	CHECK(paths_user(PATHS_STATE, "history", buf, sizeof(buf)) == 0 &&
		  strcmp(buf, "/home/u/.local/state/pmutop/history") == 0,
	      "state: %s", buf);
	unsetenv("XDG_STATE_HOME");
	CHECK_INT(paths_user(PATHS_CONFIG, "modes", buf, 10), -1); /* does not fit */
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	CHECK_INT(paths_user(PATHS_CONFIG, "modes", buf, sizeof(buf)), -1);
}

/* ---- metrics evaluate with the builtin variables ------------------------------------------ */

struct tick {
	const char *names[10];
	double values[10];
};

static int tick_lookup(void *ctx, const char *name, double *out)
{
	const struct tick *t = ctx;
	for (int i = 0; i < 10 && t->names[i]; i++)
		if (strcmp(t->names[i], name) == 0) {
			*out = t->values[i];
			return 0;
		}
	return -1;
}

static void check_eval(const struct mode_registry *reg)
{
	const struct mode *sw = mode_find(reg, "sw"), *cpi = mode_find(reg, "cpi");
	if (!sw || !cpi) {
		CHECK(0, "sw/cpi missing");
		return;
	}
	/* 0.5 s tick on one CPU: /proc/stat says 280 ms busy and 280 ms idle (its ticks do not add
	 * up to the measured tick: utilisation is busy / (busy + idle) of the same read, never
	 * busy over the measured time), cpu-clock the whole tick, 100 switches, no msr/tsc. */
	struct tick t = {{"busy", "idle", "clock", "cs", "migrations", "faults", "interval",
			  "interval_ns", "ncpus"},
			 {280e6, 280e6, 500e6, 100, 2, 40, 0.5, 500e6, 1}};
	static const struct {
		const char *metric;
		double want; /* NAN = n/a */
	} want[] = {{"util", 50},      {"counted", 100},     {"cs_per_s", 200},
		    {"migr_per_s", 4}, {"faults_per_s", 80}, {"tsc_ghz", NAN}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct mode_metric *mt = NULL;
		for (int k = 0; k < sw->nmetrics; k++)
			if (strcmp(sw->metrics[k].name, want[i].metric) == 0)
				mt = &sw->metrics[k];
		CHECK(mt != NULL, "sw metric %s", want[i].metric);
		if (!mt)
			continue;
		double v;
		int rc = expr_eval(mt->expr, tick_lookup, &t, &v);
		if (isnan(want[i].want))
			CHECK(rc < 0 && isnan(v), "%s should be n/a", want[i].metric);
		else
			CHECK(rc == 0 && fabs(v - want[i].want) < 1e-9, "%s = %g", want[i].metric,
			      v);
	}
	/* where msr/mperf/ and msr/tsc/ count, sw's utilisation is unhalted time over the TSC */
	struct tick fine = {{"mperf", "tsc", "busy", "idle", "interval", "interval_ns", "ncpus"},
			    {6.5e8, 2.6e9, 1e9, 0, 1, 1e9, 1}};
	for (int k = 0; k < sw->nmetrics; k++)
		if (strcmp(sw->metrics[k].name, "util") == 0) {
			double v;
			int rc = expr_eval(sw->metrics[k].expr, tick_lookup, &fine, &v);
			CHECK(rc == 0 && fabs(v - 25) < 1e-9, "util from mperf/tsc = %g (want 25)",
			      v);
		}
	/* cpi on an ARM-like family: no ref/tsc -> ghz falls back to wall-time rate; util n/a. */
	struct tick c = {{"cycles", "instructions", "interval", "ncpus"}, {1e9, 5e8, 0.5, 1}};
	for (int k = 0; k < cpi->nmetrics; k++) {
		double v;
		int rc = expr_eval(cpi->metrics[k].expr, tick_lookup, &c, &v);
		const char *name = cpi->metrics[k].name;
		if (strcmp(name, "cpi") == 0)
			CHECK(rc == 0 && v == 2 &&
				  metric_classify(&cpi->metrics[k], v) == METRIC_WARN,
			      "cpi %g", v);
		if (strcmp(name, "ghz") == 0)
			CHECK(rc == 0 && fabs(v - 2) < 1e-12, "ghz fallback %g", v);
		if (strcmp(name, "util") == 0)
			CHECK(rc < 0, "util n/a without ref");
	}
	/* With a reference clock (Intel): 2 GHz TSC, half the tick unhalted, 3 GHz while running.
	 */
	struct tick ci = {{"cycles", "instructions", "ref", "tsc", "interval", "ncpus"},
			  {1.5e9, 1e9, 1e9, 2e9, 1.0, 1}};
	for (int k = 0; k < cpi->nmetrics; k++) {
		double v;
		expr_eval(cpi->metrics[k].expr, tick_lookup, &ci, &v);
		if (strcmp(cpi->metrics[k].name, "ghz") == 0)
			CHECK(fabs(v - 3) < 1e-12, "ghz %g", v);
		if (strcmp(cpi->metrics[k].name, "util") == 0)
			CHECK(fabs(v - 50) < 1e-12, "util %g", v);
	}
}

int main(void)
{
	char err[256];
	CHECK(encode_init(err, sizeof(err)) == 0, "%s", err);
	struct mode_registry reg;
	mode_registry_init(&reg);
	mode_load_builtin(&reg);
	for (int i = 0; i < reg.nwarnings; i++)
		fprintf(stderr, "warning: %s\n", reg.warnings[i]);
	check_shipped(&reg);
	check_availability(&reg);
	check_arm_cores(&reg);
	check_slots();
	check_parse_errors();
	check_classify();
	check_plans(&reg);
	check_define();
	check_eval(&reg);
	mode_registry_free(&reg);
	check_registry();
	return harness_done();
}

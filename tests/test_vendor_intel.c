/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vendor_intel.c: every built-in Intel and Atom event, offcore bit and top-down formula
 * checked against Intel's event lists and TMA metrics as perf ships them (linux 6.1
 * tools/perf/pmu-events/arch/x86), with libpfm4 as the encoder of the named events. */
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "guard.h"
#include "harness.h"
#include "mode.h"
#include "offcore.h"
#include "platform.h"
#include "pmuevents.h"
#include <dirent.h>
#include <jansson.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- Intel's event lists (perf's JSON) ---------------------------------------------------- */

struct jev {
	char name[96];
	unsigned code[2]; /* EventCode "0xB7, 0xBB": both; 0 = the fixed-counter pseudo events */
	unsigned umask, cmask;
	bool edge, any, inv;
	unsigned long long msr_value; /* offcore config1, 0 for other events */
	bool rsp[2];		      /* MSRIndex holds 0x1a6 / 0x1a7 (offcore) */
};

struct jmodel {
	const char *dir;
	struct jev *ev;
	int n;
};

static unsigned long long jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return (unsigned long long)json_integer_value(v);
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	return s ? strtoull(s, NULL, 0) : 0;
}

/* Reads every event file of arch/x86/@dir (metric files hold no EventName and are skipped). */
static const char *unit_only; /* load only events of this Unit ("cpu_atom"), NULL = core */

static int load_model(const char *arch, const char *dir, struct jmodel *m)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/x86/%s", arch, dir);
	DIR *d = opendir(path);
	m->dir = dir;
	m->ev = NULL;
	m->n = 0;
	if (!d)
		return -1;
	for (struct dirent *de; (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 ||
		    strncmp(de->d_name, "uncore", 6) == 0)
			continue;
		char file[4700];
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		json_error_t je;
		json_t *root = json_load_file(file, 0, &je);
		if (!json_is_array(root)) {
			json_decref(root);
			continue;
		}
		size_t i;
		json_t *o;
		json_array_foreach(root, i, o)
		{
			json_t *name = json_object_get(o, "EventName");
			const char *unit = json_string_value(json_object_get(o, "Unit"));
			if (!json_is_string(name) ||
			    (unit_only ? !unit || strcmp(unit, unit_only) != 0
				       : unit && strcasecmp(unit, "cpu") != 0))
				continue;
			m->ev = realloc(m->ev, (size_t)(m->n + 1) * sizeof(*m->ev));
			struct jev *e = &m->ev[m->n++];
			memset(e, 0, sizeof(*e));
			snprintf(e->name, sizeof(e->name), "%s", json_string_value(name));
			const char *code = json_string_value(json_object_get(o, "EventCode"));
			if (code) {
				char *end;
				e->code[0] = e->code[1] = (unsigned)strtoul(code, &end, 0);
				if (*end == ',')
					e->code[1] = (unsigned)strtoul(end + 1, NULL, 0);
			}
			e->umask = (unsigned)jnum(o, "UMask");
			e->cmask = (unsigned)jnum(o, "CounterMask");
			e->edge = jnum(o, "EdgeDetect") != 0;
			e->any = jnum(o, "AnyThread") != 0;
			e->inv = jnum(o, "Invert") != 0;
			e->msr_value = jnum(o, "MSRValue");
			const char *idx = json_string_value(json_object_get(o, "MSRIndex"));
			e->rsp[0] = idx && strcasestr(idx, "0x1a6");
			e->rsp[1] = idx && strcasestr(idx, "0x1a7");
		}
		json_decref(root);
	}
	closedir(d);
	return m->n ? 0 : -1;
}

static const struct jev *jfind_name(const struct jmodel *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (strcasecmp(m->ev[i].name, name) == 0)
			return &m->ev[i];
	return NULL;
}

/* An encoding as Intel's lists write it. */
struct enc {
	unsigned code, umask, cmask;
	bool edge, any, inv;
};

static bool jmatch(const struct jev *e, const struct enc *k, bool base_only)
{
	if (e->msr_value || (e->code[0] != k->code && e->code[1] != k->code) ||
	    e->umask != k->umask)
		return false;
	return base_only ||
	       (e->cmask == k->cmask && e->edge == k->edge && e->any == k->any && e->inv == k->inv);
}

static const struct jev *jfind_enc(const struct jmodel *m, const struct enc *k, bool base_only)
{
	for (int i = 0; i < m->n; i++)
		if (jmatch(&m->ev[i], k, base_only))
			return &m->ev[i];
	return NULL;
}

/* The fixed-counter events of Intel's lists carry EventCode 0 (no code) and umask 1 to 3. */
static void fixed_alias(struct enc *k)
{
	if (k->code == 0xc0 && !k->umask)
		*k = (struct enc){.code = 0, .umask = 1, .any = k->any};
	else if (k->code == 0x3c && !k->umask && !k->cmask && !k->edge && !k->inv)
		*k = (struct enc){.code = 0, .umask = 2, .any = k->any};
}

/* ---- pmutop's specs -------------------------------------------------------------------- */

static char err[512];

/* Encodes @spec for @fam: 0 with @k, 1 for a kernel or generic event (perf::, cpu/.../,
 * msr/, proc/: not a model event), -1 with err. */
static int spec_enc(const char *spec, const struct pmu_family *fam, struct enc *k)
{
	if (strncmp(spec, "perf::", 6) == 0 || strchr(spec, '/'))
		return 1;
	struct encode_ctx ctx = {
	    .sysfs_root = "/", .family = fam, .core_pmu_type = 4, .filters_priv = true};
	struct event_encoding e;
	if (event_encode(spec, &ctx, &e, err, sizeof(err)) < 0)
		return -1;
	if (e.attr.type != PERF_TYPE_RAW)
		return 1;
	unsigned long long c = e.attr.config;
	*k = (struct enc){.code = (unsigned)(c & 0xff),
			  .umask = (unsigned)((c >> 8) & 0xff),
			  .cmask = (unsigned)((c >> 24) & 0xff),
			  .edge = (c >> 18) & 1,
			  .any = (c >> 21) & 1,
			  .inv = (c >> 23) & 1};
	return 0;
}

/* "@::IDQ_UOPS_NOT_DELIVERED:CORE:c=1" -> "IDQ_UOPS_NOT_DELIVERED.CORE"; "" for raw codes. */
static void spec_name(const char *spec, char *out, size_t len)
{
	const char *s = strstr(spec, "::");
	out[0] = 0;
	if (!s)
		return;
	snprintf(out, len, "%s", s + 2);
	char *c = strchr(out, ':');
	if (c) {
		*c = '.';
		char *c2 = strchr(c + 1, ':');
		if (c2)
			*c2 = 0;
	}
}

static bool has_modifiers(const char *spec)
{
	return strstr(spec, ":c=") || strstr(spec, ":e=") || strstr(spec, ":i=") ||
	       strstr(spec, ":t=");
}

/* ---- the families and Intel's lists for them ---------------------------------------------- */

static const struct {
	const char *family;
	const char *dirs[2]; /* perf 6.1 arch/x86 directories (mapfile.csv) for its models */
} families[] = {
    {"nhm", {"nehalemep"}},
    {"wsm", {"westmereep-sp"}},
    {"snb", {"sandybridge"}},
    {"snb_smt", {"sandybridge"}},
    {"ivb", {"ivybridge"}},
    {"ivb_smt", {"ivybridge"}},
    {"hsw", {"haswell", "haswellx"}},
    {"hsw_smt", {"haswell", "haswellx"}},
    {"bdw", {"broadwell"}},
    {"bdw_smt", {"broadwell"}},
    {"skl", {"skylake"}},
    {"skl_smt", {"skylake"}},
    {"skx", {"skylakex", "cascadelakex"}},
    {"skx_smt", {"skylakex", "cascadelakex"}},
    {"icl", {"icelake"}},
    {"icx", {"icelakex"}},
    {"spr", {"sapphirerapids"}},
    {"atom", {"bonnell"}},
    {"slm", {"silvermont"}},
    {"glm", {"goldmont"}},
    {"tmt", {"snowridgex", "elkhartlake"}},
    {"grt", {"alderlake"}}, /* its E-core events: Unit cpu_atom */
};

/* Built-in events whose encoding Intel's list for the family does not hold, on purpose; each
 * with the reason (a test of the same kind fails for any other difference). */
static const struct {
	const char *family, *mode, *alias;
	const char *why;
} deliberate[] = {
    /* libpfm4 4.13 snb encodes ALL_BRANCHES as umask 0x04, the encoding Intel's Sandy Bridge list
     * names BR_*_RETIRED.ALL_BRANCHES_PEBS (the same count, precise-capable); Intel's
     * ALL_BRANCHES is the architectural umask 0x00 */
    {"snb", "branch", "branches", "libpfm4 umask 0x04 = Intel's ALL_BRANCHES_PEBS, the same count"},
    {"snb", "branch", "brmiss", "libpfm4 umask 0x04 = Intel's ALL_BRANCHES_PEBS, the same count"},
    /* libpfm4 4.13 wsm encodes the architectural events (SDM vol. 3B, architectural performance
     * events: 0xC4/0xC5 umask 0x00 on every Intel core); Intel's Westmere list has umask 0x04 */
    {"wsm", "branch", "branches", "architectural umask 0x00 (SDM); Intel's Westmere list: 0x04"},
    {"wsm", "branch", "brmiss", "architectural umask 0x00 (SDM); Intel's Westmere list: 0x04"},
    {NULL, NULL, NULL, NULL},
};

static const char *deliberate_why(const struct pmu_family *fam, const char *mode, const char *alias)
{
	for (size_t i = 0; deliberate[i].family; i++)
		if (family_is_a(fam, deliberate[i].family) &&
		    strcmp(deliberate[i].mode, mode) == 0 &&
		    strcmp(deliberate[i].alias, alias) == 0)
			return deliberate[i].why;
	return NULL;
}

/* Each event of each mode on @fam must be an event of Intel's list @m: the same code, umask,
 * cmask, edge, any and inv (modifiers written in the spec may change cmask/edge/inv of a listed
 * event); where the list has the event's name, the same encoding as that entry. */
static void check_events(const struct mode_registry *reg, const struct pmu_family *fam,
			 const struct jmodel *m, int *checked)
{
	for (int i = 0; i < reg->n; i++) {
		const struct mode *mo = reg->modes[i];
		struct mode_resolution res;
		if (mode_resolve(mo, fam, &res) < 0 || !res.events || strcmp(res.matched, "*") == 0)
			continue;
		for (int e = 0; e < res.events->nevents; e++) {
			const struct mode_event *ev = &res.events->events[e];
			char model[32], name[96];
			if (encode_model_missing(ev->spec, fam, model, sizeof(model))) {
				SKIP("%s %s %s: libpfm4 here has no %s tables", fam->key, mo->name,
				     ev->spec, model);
				continue;
			}
			struct enc k;
			int rc = spec_enc(ev->spec, fam, &k);
			CHECK(rc >= 0, "%s %s %s: %s", fam->key, mo->name, ev->spec, err);
			if (rc != 0)
				continue;
			fixed_alias(&k);
			bool mods = has_modifiers(ev->spec);
			const struct jev *hit = jfind_enc(m, &k, false);
			if (!hit && mods)
				hit = jfind_enc(m, &k, true);
			spec_name(ev->spec, name, sizeof(name));
			const struct jev *named = name[0] ? jfind_name(m, name) : NULL;
			const char *why = deliberate_why(fam, mo->name, ev->alias);
			if (why) {
				printf("  %-8s %-10s %-16s %-44s deliberate: %s\n", fam->key,
				       mo->name, ev->alias, ev->spec, why);
				continue;
			}
			CHECK(hit != NULL,
			      "%s (%s): mode %s event %s = %s encodes event %#x umask %#x cmask %u "
			      "edge %d any %d inv %d, which Intel's list has not",
			      fam->key, m->dir, mo->name, ev->alias, ev->spec, k.code, k.umask,
			      k.cmask, k.edge, k.any, k.inv);
			if (named && !mods)
				CHECK(
				    jmatch(named, &k, false),
				    "%s (%s): mode %s %s: %s is event %#x umask %#x cmask %u any "
				    "%d "
				    "in Intel's list, pmutop encodes %#x umask %#x cmask %u any %d",
				    fam->key, m->dir, mo->name, ev->spec, named->name,
				    named->code[0], named->umask, named->cmask, named->any, k.code,
				    k.umask, k.cmask, k.any);
			if (hit)
				printf("  %-8s %-10s %-16s %-44s = %s\n", fam->key, mo->name,
				       ev->alias, ev->spec, hit->name);
			(*checked)++;
		}
	}
}

/* ---- offcore: request bits, responses, MSRs ---------------------------------------------- */

/* Request-bit differences from Intel's lists kept on purpose, with the source of pmutop's. */
static const struct {
	const char *model;
	int bit;
	const char *why;
} offcore_deliberate[] = {
    /* Goldmont bit 9 UC_CODE_READS: the SDM's Goldmont MSR_OFFCORE_RSPx request table and the
     * kernel's intel_glm_extra_regs mask (0x760005ffbf) have it; Intel's event list has no entry */
    {"glm", 9,
     "UC_CODE_READS: in the SDM's Goldmont request table and the kernel's mask, not in "
     "Intel's event list"},
    {NULL, 0, NULL},
};

static const char *offcore_why(const char *model, int bit)
{
	for (size_t i = 0; offcore_deliberate[i].model; i++)
		if (strcmp(offcore_deliberate[i].model, model) == 0 &&
		    offcore_deliberate[i].bit == bit)
			return offcore_deliberate[i].why;
	return NULL;
}

/* Models whose Intel list names every request type and response (Atom's OCR/OFFCORE_RESPONSE
 * matrices): there every pmutop bit and response must be in the list. Elsewhere the lists
 * hold a selection of combinations, and only the other direction is checked. */
static bool exhaustive(const struct offcore_model *om)
{
	return strcmp(om->key, "glm") == 0 || strcmp(om->key, "tmt") == 0;
}

static bool is_offcore(const struct offcore_model *om, const struct jev *e)
{
	unsigned c0 = (unsigned)(om->event[0] & 0xff);
	return e->msr_value && (e->code[0] == c0 || e->code[1] == c0);
}

static void check_offcore(const struct offcore_model *om, const struct jmodel *m)
{
	uint64_t field = om->request_field;
	uint64_t jbits = 0;	/* request bits Intel's list uses one at a time */
	uint64_t rsp1_bits = 0; /* of those, the ones some entry allows on MSR_OFFCORE_RSP_1 */
	for (int i = 0; i < m->n; i++) {
		const struct jev *e = &m->ev[i];
		uint64_t req = e->msr_value & field;
		if (!is_offcore(om, e) || !req || (req & (req - 1)))
			continue;
		jbits |= req;
		if (e->rsp[1])
			rsp1_bits |= req;
	}
	uint64_t ours = offcore_request_mask(om);
	for (int b = 0; b < OFFCORE_MAX_BITS; b++) {
		uint64_t bit = 1ULL << b;
		const char *why = offcore_why(om->key, b);
		if (why) {
			printf("  offcore %-4s bit %2d: deliberate: %s\n", om->key, b, why);
			continue;
		}
		if (jbits & bit)
			CHECK(ours & bit,
			      "offcore %s (%s): Intel's list has request bit %d, pmutop's "
			      "table has not",
			      om->key, m->dir, b);
		if ((ours & bit) && !(jbits & bit) && !exhaustive(om))
			printf(
			    "  offcore %-4s bit %2d (%s): no single-request entry in Intel's list "
			    "(it lists a selection)\n",
			    om->key, b, offcore_bit_at(om, b)->name);
		if ((ours & bit) && exhaustive(om)) {
			CHECK(jbits & bit,
			      "offcore %s (%s): pmutop's request bit %d (%s) is in no entry of "
			      "Intel's "
			      "list",
			      om->key, m->dir, b, offcore_bit_at(om, b)->name);
			const struct offcore_bit *ob = offcore_bit_at(om, b);
			bool only0 = offcore_rsp0_only(om, b);
			if ((jbits & bit) && om->event[1])
				CHECK(only0 == !(rsp1_bits & bit),
				      "offcore %s (%s): bit %d %s: Intel's list allows "
				      "MSR_OFFCORE_RSP_1 "
				      "%s, pmutop's table says %s",
				      om->key, m->dir, b, ob->name, rsp1_bits & bit ? "yes" : "no",
				      only0 ? "RSP_0 only" : "either MSR");
		}
	}
	/* each response filter is the response part of some entry */
	for (int r = 1; r < om->nresponses && exhaustive(om); r++) {
		bool found = false;
		for (int i = 0; i < m->n && !found; i++)
			found = is_offcore(om, &m->ev[i]) &&
				(m->ev[i].msr_value & ~field) == om->responses[r].mask;
		CHECK(found, "offcore %s (%s): response %s = %#llx is in no entry of Intel's list",
		      om->key, m->dir, om->responses[r].name,
		      (unsigned long long)om->responses[r].mask);
	}
	/* the sweep never programs an RSP_0-only bit on MSR_OFFCORE_RSP_1 */
	struct offcore_selection sel;
	struct offcore_plan plan;
	offcore_selection_all(om, &sel);
	offcore_plan_make(om, &sel, 0, &plan);
	for (int k = 0; k < plan.nslices; k++)
		for (int j = 1; j < plan.slice_n[k]; j++) {
			int b = plan.slice_bits[k][j];
			CHECK(!offcore_rsp0_only(om, b),
			      "offcore %s: slice %d puts %s on MSR_OFFCORE_RSP_%d", om->key, k,
			      offcore_bit_at(om, b)->name, j);
		}
	printf("  offcore %-4s (%s): request bits %#llx, Intel's list %#llx\n", om->key, m->dir,
	       (unsigned long long)ours, (unsigned long long)jbits);
}

/* ---- top-down formulas against perf's TMA metrics ---------------------------------------- */

/* Synthetic counts per event of Intel's list: two SMT siblings of one core both busy all the
 * time (THREAD_ANY, the core's unhalted cycles, equals each thread's THREAD; the core's
 * RECOVERY_CYCLES_ANY is more than one thread's) on a Skylake-class core. */
static const struct {
	const char *name;
	double v;
} counts[] = {
    {"CPU_CLK_UNHALTED.THREAD", 1e9},
    {"CPU_CLK_UNHALTED.THREAD_ANY", 1e9},
    {"CPU_CLK_UNHALTED.THREAD_P", 1e9},
    {"INST_RETIRED.ANY", 0.8e9},
    {"INST_RETIRED.ANY_P", 0.8e9},
    {"IDQ_UOPS_NOT_DELIVERED.CORE", 3e8},
    {"IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 5e7},
    {"UOPS_ISSUED.ANY", 1.0e9},
    {"UOPS_RETIRED.RETIRE_SLOTS", 0.9e9},
    {"UOPS_RETIRED.MACRO_FUSED", 2e8},
    {"INT_MISC.RECOVERY_CYCLES", 2e7},
    {"INT_MISC.RECOVERY_CYCLES_ANY", 3e7},
    {"BR_MISP_RETIRED.ALL_BRANCHES", 1e6},
    {"MACHINE_CLEARS.COUNT", 1e5},
    {"IDQ.MS_UOPS", 1e8},
    {"CYCLE_ACTIVITY.STALLS_MEM_ANY", 2e8},
    {"EXE_ACTIVITY.BOUND_ON_STORES", 3e7},
    {"CYCLE_ACTIVITY.STALLS_TOTAL", 3e8},
    {"EXE_ACTIVITY.1_PORTS_UTIL", 1e8},
    {"EXE_ACTIVITY.2_PORTS_UTIL", 1.2e8},
    /* Ice Lake and later: TOPDOWN.SLOTS and the TMA corrections */
    {"TOPDOWN.SLOTS", 4e9},
    {"INT_MISC.UOP_DROPPING", 6e7},
    /* rates: cache, branch */
    {"L1D.REPLACEMENT", 3e7},
    {"MEM_LOAD_RETIRED.L1_MISS", 2e7},
    {"MEM_INST_RETIRED.ALL_LOADS", 3e8},
    {"BR_INST_RETIRED.ALL_BRANCHES", 1.5e8},
    /* Gracemont (alderlake, Unit cpu_atom) */
    {"CPU_CLK_UNHALTED.CORE", 1e9},
    {"TOPDOWN_FE_BOUND.ALL", 1.5e9},
    {"TOPDOWN_BE_BOUND.ALL", 1.0e9},
    {"TOPDOWN_RETIRING.ALL", 2.0e9},
};

/* The kernel's PERF_METRICS events (cpu/NAME/, not in Intel's lists): their slot counts. */
static const struct {
	const char *name;
	double v;
} metric_counts[] = {
    {"slots", 4e9},
    {"topdown-retiring", 1.6e9},
    {"topdown-bad-spec", 0.4e9},
    {"topdown-fe-bound", 1.2e9},
    {"topdown-be-bound", 0.8e9},
    {"topdown-heavy-ops", 0.3e9},
    {"topdown-br-mispredict", 0.3e9},
    {"topdown-fetch-lat", 0.7e9},
    {"topdown-mem-bound", 0.5e9},
};

/* Encodings perf's metrics write with terms (cpu@EVENT\,cmask\=1\,edge@), not list entries. */
static const struct {
	struct enc k;
	double v;
} term_counts[] = {
    {{.code = 0x0d, .umask = 0x01, .cmask = 1, .edge = true}, 1e7}, /* icl recoveries */
};

struct eval_ctx {
	const struct jmodel *m;
	const struct mode_events *ev;
	const struct pmu_family *fam;
	bool failed;
	char missing[160];
	const char *subst_from, *subst_to; /* count event subst_from as subst_to (named below) */
};

static int count_of(struct eval_ctx *c, const char *spec, double *out)
{
	struct enc k;
	if (strcmp(spec, "perf::CYCLES") == 0 || strcmp(spec, "cycles") == 0)
		k = (struct enc){.code = 0, .umask = 2};
	else if (strcmp(spec, "perf::INSTRUCTIONS") == 0 || strcmp(spec, "instructions") == 0)
		k = (struct enc){.code = 0, .umask = 1};
	else if (strncmp(spec, "cpu/", 4) == 0) {
		for (size_t i = 0; i < sizeof(metric_counts) / sizeof(metric_counts[0]); i++) {
			size_t n = strlen(metric_counts[i].name);
			if (strncmp(spec + 4, metric_counts[i].name, n) == 0 &&
			    spec[4 + n] == '/') {
				*out = metric_counts[i].v;
				return 0;
			}
		}
		snprintf(c->missing, sizeof(c->missing), "%s", spec);
		return -1;
	} else if (spec_enc(spec, c->fam, &k) != 0)
		return -1;
	else
		fixed_alias(&k);
	for (size_t i = 0; i < sizeof(term_counts) / sizeof(term_counts[0]); i++) {
		const struct enc *t = &term_counts[i].k;
		if (t->code == k.code && t->umask == k.umask && t->cmask == k.cmask &&
		    t->edge == k.edge && t->any == k.any && t->inv == k.inv) {
			*out = term_counts[i].v;
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const struct jev *e = jfind_name(c->m, counts[i].name);
		if (e && jmatch(e, &k, false)) {
			const char *name = counts[i].name;
			if (c->subst_from && strcmp(name, c->subst_from) == 0)
				name = c->subst_to;
			for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++)
				if (strcmp(counts[j].name, name) == 0)
					*out = counts[j].v;
			return 0;
		}
	}
	snprintf(c->missing, sizeof(c->missing), "%s", spec);
	return -1;
}

static int lookup(void *ctx, const char *name, double *out)
{
	struct eval_ctx *c = ctx;
	int idx = mode_event_index(c->ev, name);
	if (idx < 0)
		return -1;
	return count_of(c, c->ev->events[idx].spec, out);
}

static double eval_metric(const struct mode *mo, const struct mode_events *ev, const char *metric,
			  struct eval_ctx *c)
{
	for (int i = 0; i < mo->nmetrics; i++)
		if (strcmp(mo->metrics[i].name, metric) == 0) {
			double v;
			c->ev = ev;
			c->missing[0] = 0;
			return expr_eval(mo->metrics[i].expr, lookup, c, &v) == 0 ? v : NAN;
		}
	return NAN;
}

/* pmutop metric -> perf's TMA metric (perf's value is a fraction; pmutop's a percentage).
 * @diff: a named, deliberate difference: pmutop's value minus perf's must be this formula's
 * value (in %, over the synthetic counts), 0 = none. */
struct tma_pair {
	const char *mode, *metric, *perf;
	const char *diff;
};

static const struct tma_pair tma_core[] = {
    {"topdown", "frontend", "tma_frontend_bound", NULL},
    {"topdown", "bad_spec", "tma_bad_speculation", NULL},
    {"topdown", "backend", "tma_backend_bound", NULL},
    {"topdown", "retiring", "tma_retiring", NULL},
    {"topdown2", "fe_latency", "tma_fetch_latency", NULL},
    {"topdown2", "fe_bandwidth", "tma_fetch_bandwidth", NULL},
    {"topdown2", "br_mispredict", "tma_branch_mispredicts", NULL},
    {"topdown2", "machine_clears", "tma_machine_clears", NULL},
    {"topdown2", "memory_bound", "tma_memory_bound", NULL},
    {"topdown2", "core_bound", "tma_core_bound", NULL},
    {"topdown2", "heavy_ops", "tma_heavy_operations", NULL},
    {"topdown2", "light_ops", "tma_light_operations", NULL},
};

/* Ice Lake (-SP): mode tma is perf's level 1; mode topdown the kernel's PERF_METRICS split,
 * which differs from TMA by the uop-drop and recovery corrections (docs/topdown.md). */
static const struct tma_pair tma_icl[] = {
    {"tma", "frontend", "tma_frontend_bound", NULL},
    {"tma", "bad_spec", "tma_bad_speculation", NULL},
    {"tma", "backend", "tma_backend_bound", NULL},
    {"tma", "retiring", "tma_retiring", NULL},
    {"topdown", "frontend", "tma_frontend_bound", "uop_dropping"},
    {"topdown", "backend", "tma_backend_bound", "-recoveries"},
    {"topdown", "retiring", "tma_retiring", NULL},
};
static const struct tma_pair tma_spr[] = {
    {"tma", "frontend", "tma_frontend_bound", NULL},
    {"tma", "bad_spec", "tma_bad_speculation", NULL},
    {"tma", "backend", "tma_backend_bound", NULL},
    {"tma", "retiring", "tma_retiring", NULL},
    {"topdown", "frontend", "tma_frontend_bound", "uop_dropping"},
    {"topdown", "backend", "tma_backend_bound", NULL},
    {"topdown", "retiring", "tma_retiring", NULL},
    {"topdown2", "br_mispredict", "tma_branch_mispredicts", NULL},
    {"topdown2", "memory_bound", "tma_memory_bound", NULL},
    {"topdown2", "heavy_ops", "tma_heavy_operations", NULL},
    {"topdown2", "fe_latency", "tma_fetch_latency", "uop_dropping"},
};

/* The named differences, in % of slots. */
static double tma_diff(const char *what)
{
	double slots = 4e9;
	if (strcmp(what, "uop_dropping") == 0)
		return 100 * 6e7 / slots; /* perf subtracts INT_MISC.UOP_DROPPING / SLOTS */
	if (strcmp(what, "-recoveries") == 0)
		return -100 * 5 * 1e7 / slots; /* perf adds 5 x recoveries / SLOTS */
	return 0;
}

#define PAIRS(a) a, sizeof(a) / sizeof(a[0])
/* Trees of Intel machines: the family pmutop picks there, SMT from the same tree for both
 * sides (perf's #SMT_on). */
static const struct {
	const char *tree, *family, *dir;
	int smt;
	const struct tma_pair *pairs;
	size_t npairs;
} tma_trees[] = {
    {"x86-skylake", "skl", "skylake", 0, PAIRS(tma_core)},
    {"x86-skylake-smt", "skl_smt", "skylake", 1, PAIRS(tma_core)},
    {"x86-skylake-sp", "skx_smt", "skylakex", 1, PAIRS(tma_core)},
    {"x86-offline", "hsw", "haswell", 0, tma_core, 4},
    {"x86-haswell-ep", "hsw_smt", "haswellx", 1, tma_core, 4},
    {"x86-icelake", "icl", "icelake", 0, PAIRS(tma_icl)},
    {"x86-icelake-sp", "icx", "icelakex", 0, PAIRS(tma_icl)},
    {"x86-sapphire", "spr", "sapphirerapids", 0, PAIRS(tma_spr)},
};

/* libpfm4 on ARM is built with its own architecture's models only: Intel's encodings cannot be
 * made there, so the checks that compute through them run on x86 builds (said, not hidden). */
static bool x86_tables_missing(const char *what)
{
	char model[32];
	if (!encode_model_missing("@::INST_RETIRED:ANY_P", family_find("skl"), model,
				  sizeof(model)))
		return false;
	SKIP("%s: libpfm4 here has no %s tables (an ARM build); checked on x86 builds", what,
	     model);
	return true;
}

static void check_tma(const char *arch, const struct mode_registry *reg)
{
	if (x86_tables_missing("top-down against perf's TMA metrics"))
		return;
	for (size_t t = 0; t < sizeof(tma_trees) / sizeof(tma_trees[0]); t++) {
		char root[4096];
		struct platform pf;
		snprintf(root, sizeof(root), "%s/tests/sysfs/%s", harness_src(), tma_trees[t].tree);
		CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s: %s", root, err);
		CHECK_STR(pf.family->key, tma_trees[t].family);
		struct pmuev_machine mach;
		platform_pmuev_machine(&pf, &mach);
		CHECK(mach.smt_on == tma_trees[t].smt, "%s: perf's #SMT_on %d", tma_trees[t].tree,
		      mach.smt_on);
		struct pmuev_lib *lib = pmuevents_open(arch, &mach, err, sizeof(err));
		CHECK(lib != NULL, "%s: %s", tma_trees[t].tree, err);
		struct jmodel jm;
		CHECK(load_model(arch, tma_trees[t].dir, &jm) == 0, "%s", tma_trees[t].dir);
		if (!lib)
			continue;
		struct mode_registry preg;
		mode_registry_init(&preg);
		printf("top-down on %s (%s, SMT %s) vs perf's %s metrics:\n", tma_trees[t].tree,
		       pf.family->key, tma_trees[t].smt ? "on" : "off", tma_trees[t].dir);
		for (size_t i = 0; i < tma_trees[t].npairs; i++) {
			const struct tma_pair *tp = &tma_trees[t].pairs[i];
			const struct mode *mo = mode_find(reg, tp->mode);
			struct mode_resolution res;
			CHECK(mo && mode_resolve(mo, pf.family, &res) == 0, "%s on %s", tp->mode,
			      pf.family->key);
			if (!mo || !res.events)
				continue;
			struct eval_ctx c = {.m = &jm, .fam = pf.family};
			double ours = eval_metric(mo, res.events, tp->metric, &c);
			CHECK(!isnan(ours), "%s %s: n/a (no synthetic count for %s)", tp->mode,
			      tp->metric, c.missing);
			const struct mode *pm =
			    pmuevents_mode(lib, &preg, tp->perf, err, sizeof(err));
			CHECK(pm != NULL, "perf %s: %s", tp->perf, err);
			if (!pm)
				continue;
			double theirs = eval_metric(pm, &pm->sets[0], tp->perf, &c);
			/* perf's ScaleUnit "100%": the mode's formula already gives a percentage */
			theirs /= 100;
			CHECK(!isnan(theirs), "perf %s: n/a (no synthetic count for %s)", tp->perf,
			      c.missing);
			double diff = tp->diff ? tma_diff(tp->diff) : 0;
			printf("  %-9s %-15s %8.3f %%   perf %-24s %8.3f %%%s%s\n", tp->mode,
			       tp->metric, ours, tp->perf, 100 * theirs,
			       tp->diff ? "   deliberate: PERF_METRICS share, TMA corrects by "
					: "",
			       tp->diff ? tp->diff : "");
			CHECK(fabs(ours - 100 * theirs - diff) < 1e-6 * fmax(1, fabs(ours)),
			      "%s on %s: %s %s = %.6f %%, perf's %s = %.6f %%", tma_trees[t].tree,
			      pf.family->key, tp->mode, tp->metric, ours, tp->perf, 100 * theirs);
		}
		mode_registry_free(&preg);
		pmuevents_free(lib);
		free(jm.ev);
	}
}

/* Rates pmutop's cpi, branch and dcache modes share with perf's metric files. A deliberate
 * difference is named as the event perf's formula counts instead of pmutop's (@subst "perf's
 * event=pmutop's event"): with it replaced the two formulas must agree. */
static const struct {
	const char *mode, *metric, *perf;
	bool inverse_kilo; /* pmutop's value is 1000 / perf's (per kilo-instruction vs "Ip") */
	const char *subst_from, *subst_to;
	const char *why;
} rates[] = {
    {"cpi", "cpi", "CPI", false, NULL, NULL, NULL},
    {"cpi", "ipc", "IPC", false, NULL, NULL, NULL},
    {"branch", "brmiss_pki", "IpMispredict", true, NULL, NULL, NULL},
    {"dcache", "dmiss_pki", "L1MPKI", false, "MEM_LOAD_RETIRED.L1_MISS", "L1D.REPLACEMENT",
     "pmutop counts L1D line replacements (every fill: loads, stores, prefetches, as XScale's "
     "D-cache miss count), perf's L1MPKI retired loads that missed"},
};

static const struct {
	const char *tree, *dir;
	bool l1mpki; /* perf's file defines L1MPKI */
} rate_trees[] = {
    {"x86-skylake", "skylake", true},	      {"x86-skylake-sp", "skylakex", true},
    {"x86-icelake", "icelake", true},	      {"x86-icelake-sp", "icelakex", true},
    {"x86-sapphire", "sapphirerapids", true}, {"x86-tremont", "elkhartlake", false},
};

static void check_rates(const char *arch, const struct mode_registry *reg)
{
	if (x86_tables_missing("rates against perf's metrics"))
		return;
	for (size_t t = 0; t < sizeof(rate_trees) / sizeof(rate_trees[0]); t++) {
		char root[4096];
		struct platform pf;
		snprintf(root, sizeof(root), "%s/tests/sysfs/%s", harness_src(),
			 rate_trees[t].tree);
		CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s: %s", root, err);
		struct pmuev_machine mach;
		platform_pmuev_machine(&pf, &mach);
		struct pmuev_lib *lib = pmuevents_open(arch, &mach, err, sizeof(err));
		CHECK(lib != NULL, "%s: %s", rate_trees[t].tree, err);
		struct jmodel jm;
		CHECK(load_model(arch, rate_trees[t].dir, &jm) == 0, "%s", rate_trees[t].dir);
		if (!lib)
			continue;
		struct mode_registry preg;
		mode_registry_init(&preg);
		printf("rates on %s (%s) vs perf's %s metrics:\n", rate_trees[t].tree,
		       pf.family->key, rate_trees[t].dir);
		for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
			if (rates[i].subst_from && !rate_trees[t].l1mpki)
				continue;
			const struct mode *mo = mode_find(reg, rates[i].mode);
			struct mode_resolution res;
			CHECK(mo && mode_resolve(mo, pf.family, &res) == 0, "%s on %s",
			      rates[i].mode, pf.family->key);
			if (!mo || !res.events)
				continue;
			struct eval_ctx c = {.m = &jm, .fam = pf.family};
			double ours = eval_metric(mo, res.events, rates[i].metric, &c);
			CHECK(!isnan(ours), "%s %s: n/a (%s)", rates[i].mode, rates[i].metric,
			      c.missing);
			const struct mode *pm =
			    pmuevents_mode(lib, &preg, rates[i].perf, err, sizeof(err));
			CHECK(pm != NULL, "perf %s: %s", rates[i].perf, err);
			if (!pm)
				continue;
			c.subst_from = rates[i].subst_from;
			c.subst_to = rates[i].subst_to;
			double theirs = eval_metric(pm, &pm->sets[0], rates[i].perf, &c);
			CHECK(!isnan(theirs), "perf %s: n/a (%s)", rates[i].perf, c.missing);
			double want = rates[i].inverse_kilo ? 1000 / theirs : theirs;
			printf("  %-7s %-11s %10.4f   perf %-13s %10.4f%s%s\n", rates[i].mode,
			       rates[i].metric, ours, rates[i].perf, theirs,
			       rates[i].why ? "   deliberate: " : "",
			       rates[i].why ? rates[i].why : "");
			CHECK(fabs(ours - want) < 1e-9 * fmax(1, fabs(want)),
			      "%s: %s %s = %.6f, perf's %s gives %.6f", rate_trees[t].tree,
			      rates[i].mode, rates[i].metric, ours, rates[i].perf, want);
		}
		mode_registry_free(&preg);
		pmuevents_free(lib);
		free(jm.ev);
	}
}

/* perf's metrics for one core type of a hybrid model (adl-metrics.json, Unit cpu_atom) read
 * here directly, keyed by (Unit, MetricName) as perf keys them (tests/e2e_hybrid.sh checks
 * pmutop's own per-core-type perf: modes). */
struct atom_ctx {
	json_t *metrics;
	const struct jmodel *m;
	int depth;
};

static int atom_lookup(void *ctx, const char *name, double *out);

static int atom_eval(struct atom_ctx *a, const char *metric, double *out)
{
	size_t i;
	json_t *o;
	json_array_foreach(a->metrics, i, o)
	{
		const char *n = json_string_value(json_object_get(o, "MetricName"));
		const char *u = json_string_value(json_object_get(o, "Unit"));
		if (!n || !u || strcmp(n, metric) != 0 || strcmp(u, "cpu_atom") != 0)
			continue;
		struct expr *e =
		    expr_parse_flags(json_string_value(json_object_get(o, "MetricExpr")), EXPR_PERF,
				     err, sizeof(err));
		if (!e || a->depth > 8)
			return -1;
		a->depth++;
		int rc = expr_eval(e, atom_lookup, a, out);
		a->depth--;
		expr_free(e);
		return rc;
	}
	return 1; /* not a metric */
}

static int atom_lookup(void *ctx, const char *name, double *out)
{
	struct atom_ctx *a = ctx;
	int rc = atom_eval(a, name, out);
	if (rc <= 0)
		return rc;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (strcmp(counts[i].name, name) == 0 && jfind_name(a->m, name)) {
			*out = counts[i].v;
			return 0;
		}
	return -1;
}

/* Gracemont's level 1 against perf's alderlake cpu_atom metrics on the Alder Lake-N tree. */
static void check_gracemont(const char *arch, const struct mode_registry *reg)
{
	char root[4096], path[4500];
	struct platform pf;
	snprintf(root, sizeof(root), "%s/tests/sysfs/x86-gracemont", harness_src());
	CHECK(platform_detect(&pf, root, err, sizeof(err)) == 0, "%s: %s", root, err);
	CHECK_STR(pf.family->key, "grt");
	unit_only = "cpu_atom";
	struct jmodel jm;
	CHECK(load_model(arch, "alderlake", &jm) == 0, "alderlake");
	unit_only = NULL;
	snprintf(path, sizeof(path), "%s/x86/alderlake/adl-metrics.json", arch);
	json_error_t je;
	struct atom_ctx a = {.metrics = json_load_file(path, 0, &je), .m = &jm};
	CHECK(json_is_array(a.metrics), "%s: %s", path, je.text);
	const struct mode *mo = mode_find(reg, "topdown");
	struct mode_resolution res;
	CHECK(mo && mode_resolve(mo, pf.family, &res) == 0, "topdown on grt");
	printf("top-down on x86-gracemont (grt) vs perf's alderlake cpu_atom metrics:\n");
	for (size_t i = 0; json_is_array(a.metrics) && res.events && i < 4; i++) {
		const struct tma_pair *tp = &tma_core[i];
		struct eval_ctx c = {.m = &jm, .fam = pf.family};
		double ours = eval_metric(mo, res.events, tp->metric, &c), theirs = NAN;
		CHECK(atom_eval(&a, tp->perf, &theirs) == 0, "perf %s (cpu_atom)", tp->perf);
		printf("  %-9s %-15s %8.3f %%   perf %-24s %8.3f %%\n", tp->mode, tp->metric, ours,
		       tp->perf, 100 * theirs);
		CHECK(fabs(ours - 100 * theirs) < 1e-6 * fmax(1, fabs(ours)),
		      "grt: topdown %s = %.6f %%, perf's %s = %.6f %%", tp->metric, ours, tp->perf,
		      100 * theirs);
	}
	json_decref(a.metrics);
	free(jm.ev);
}

/* ---- --list-modes per family against the vendor lists ---------------------------------- */

/* ---- main ------------------------------------------------------------------------------ */

static const char *arch_dir(void)
{
	static char arch[4400];
	const char *bin = getenv("PMUTOP_BIN");
	char cache[4096], cmd[9000];
	struct stat st;
	if (!bin || !strrchr(bin, '/'))
		return NULL;
	snprintf(cache, sizeof(cache), "%.*s/pmu-events-6.1", (int)(strrchr(bin, '/') - bin), bin);
	snprintf(arch, sizeof(arch), "%s/linux-source-6.1/tools/perf/pmu-events/arch", cache);
	if (stat(arch, &st) == 0)
		return arch;
	const char *tar = "/usr/src/linux-source-6.1.tar.xz";
	if (stat(tar, &st) != 0)
		return NULL;
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/pmu_events_extract.sh' '%s'", harness_src(),
		 cache);
	return system(cmd) == 0 ? arch : NULL;
}

/* The guard's retire widths (src/engine/guard.c) against the pipeline width Intel's TMA uses:
 * perf's <model>-metrics.json defines SLOTS as "N * CORE_CLKS" (or "N * CLKS" for an E-core),
 * N issue slots per cycle. A guard width under N would flag instruction rates the core can
 * reach. Models whose SLOTS is the TOPDOWN.SLOTS event state no number and are said so. */
static void check_guard_widths(const char *arch)
{
	int compared = 0;
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		for (int d = 0; d < 2 && families[f].dirs[d]; d++) {
			char path[4400];
			DIR *dir;
			snprintf(path, sizeof(path), "%s/x86/%s", arch, families[f].dirs[d]);
			if (!(dir = opendir(path)))
				continue;
			for (struct dirent *de; (de = readdir(dir));) {
				if (!strstr(de->d_name, "metrics.json"))
					continue;
				char file[4700];
				snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
				json_error_t je;
				json_t *root = json_load_file(file, 0, &je), *o;
				size_t i;
				json_array_foreach(root, i, o)
				{
					const char *name =
					    json_string_value(json_object_get(o, "MetricName"));
					const char *expr =
					    json_string_value(json_object_get(o, "MetricExpr"));
					const char *unit =
					    json_string_value(json_object_get(o, "Unit"));
					bool atom = strcmp(families[f].family, "grt") == 0;
					if (!name || !expr || strcmp(name, "SLOTS") != 0 ||
					    (atom != (unit && strcmp(unit, "cpu_atom") == 0)))
						continue;
					char *end;
					double n = strtod(expr, &end);
					if (end == expr || strncmp(end, " * ", 3) != 0) {
						printf("  guard %s: SLOTS = %s in %s (no width "
						       "stated)\n",
						       families[f].family, expr,
						       families[f].dirs[d]);
						continue;
					}
					double w = guard_retire_width(families[f].family);
					printf("  guard %s: width %.0f, perf's %s SLOTS = %s\n",
					       families[f].family, w, families[f].dirs[d], expr);
					CHECK(w >= n, "guard width %.0f for %s under %s's SLOTS %s",
					      w, families[f].family, families[f].dirs[d], expr);
					compared++;
				}
				json_decref(root);
			}
			closedir(dir);
		}
	}
	/* snb..skx and Gracemont state a number in perf 6.1 */
	CHECK(compared >= 12, "guard widths compared with %d SLOTS definitions", compared);
}

int main(void)
{
	const char *arch = arch_dir();
	if (!arch) {
		SKIP("Intel's event lists: PMUTOP_BIN not set or /usr/src/linux-source-6.1.tar.xz "
		     "absent (Debian package linux-source-6.1; scripts/deps.sh test installs it)");
		return harness_done();
	}
	CHECK(encode_init(err, sizeof(err)) == 0, "%s", err);
	struct mode_registry reg;
	mode_registry_init(&reg);
	CHECK(mode_load_builtin(&reg) > 0, "built-in modes");
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct pmu_family *fam = family_find(families[f].family);
		CHECK(fam != NULL, "family %s", families[f].family);
		if (!fam)
			continue;
		unit_only = strcmp(fam->key, "grt") == 0 ? "cpu_atom" : NULL;
		for (int d = 0; d < 2 && families[f].dirs[d]; d++) {
			struct jmodel m;
			CHECK(load_model(arch, families[f].dirs[d], &m) == 0, "%s/x86/%s", arch,
			      families[f].dirs[d]);
			int checked = 0;
			printf("%s against Intel's %s list (%d events):\n", fam->key, m.dir, m.n);
			check_events(&reg, fam, &m, &checked);
			const struct offcore_model *om = offcore_model_for(fam);
			if (om)
				check_offcore(om, &m);
			free(m.ev);
		}
	}
	unit_only = NULL;
	/* Tremont's kernel mask (linux 6.1 intel_tnt_extra_regs: RSP_0 0x800ff0ffffff9fff):
	 * request bits 13 and 14 are refused */
	const struct offcore_model *tmt = offcore_model_for(family_find("tmt"));
	CHECK(tmt && strcmp(tmt->key, "tmt") == 0, "tmt offcore model %s", tmt ? tmt->key : "-");
	if (tmt) {
		CHECK(offcore_check_mask(tmt, 0, 0x12000, err, sizeof(err)) < 0, "tmt bit 13");
		CHECK(offcore_check_mask(tmt, 0, 0x14000, err, sizeof(err)) < 0, "tmt bit 14");
		CHECK(offcore_check_mask(tmt, 0, 0x18000, err, sizeof(err)) == 0, "tmt bit 15: %s",
		      err);
		const struct offcore_bit *other = offcore_bit_at(tmt, 15);
		CHECK(other && !other->superset, "tmt bit 15 is OTHER, not an ANY superset");
	}
	check_tma(arch, &reg);
	check_gracemont(arch, &reg);
	check_rates(arch, &reg);
	check_guard_widths(arch);
	mode_registry_free(&reg);
	return harness_done();
}

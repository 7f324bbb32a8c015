/* SPDX-License-Identifier: GPL-2.0-or-later */
/* likwid.c: likwid performance groups (SHORT, EVENTSET, METRICS, LONG) translated into modes. */
#include "likwid.h"
#include "dirlist.h"
#include "encode.h"
#include "expr.h"
#include "family.h"
#include "linereader.h"
#include "mode.h"
#include "session.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* likwid's arch directories per pmutop family, preferred first (likwid's own names as the
 * Debian package installs them; later releases' spellings after). */
static const struct {
	const char *family;
	const char *arch[3];
} arch_table[] = {
    {"nhm", {"nehalem", "nehalemEX"}},
    {"wsm", {"westmere", "westmereEX"}},
    {"snb", {"sandybridge", "sandybridgeEP"}},
    {"ivb", {"ivybridge", "ivybridgeEP"}},
    {"hsw", {"haswell", "haswellEP"}},
    {"bdw", {"broadwell", "broadwellEP", "broadwellD"}},
    {"skl", {"skylake"}},
    {"skx", {"skylakeX", "CLX"}},
    {"icl", {"ICL", "icelake"}},
    {"icx", {"ICX", "icelakeX"}},
    {"spr", {"SPR", "sapphirerapids"}},
    {"atom", {"atom"}},
    {"slm", {"silvermont"}},
    {"glm", {"goldmont"}},
    {"zen", {"zen", "zen2", "zen3"}},
    {"zen3", {"zen3"}},
    {"armv8", {"arm8"}},
};

/* Parts likwid gives their own directory (x86 family and model, /proc/cpuinfo), before the
 * family's. Model -1: every model from min_model on. */
static const struct {
	const char *family;
	int cpu_family, model, min_model;
	const char *arch;
} model_table[] = {
    {"nhm", 6, 46, 0, "nehalemEX"},	{"wsm", 6, 47, 0, "westmereEX"},
    {"snb", 6, 45, 0, "sandybridgeEP"}, {"ivb", 6, 62, 0, "ivybridgeEP"},
    {"hsw", 6, 63, 0, "haswellEP"},	{"bdw", 6, 79, 0, "broadwellEP"},
    {"bdw", 6, 86, 0, "broadwellD"},	{"icl", 6, 140, 0, "TGL"},
    {"icl", 6, 141, 0, "TGL"},		{"icl", 6, 167, 0, "RKL"},
    {"zen", 0x17, -1, 0x30, "zen2"},	{"zen", 0x19, -1, 0, "zen3"},
};

/* Counter kinds likwid groups name that pmutop does not count (uncore boxes and others). */
static const struct {
	const char *prefix;
	const char *what;
} unsupported_boxes[] = {
    {"MBOX", "uncore memory controller counter"},
    {"CBOX", "uncore LLC slice (CBo/CHA) counter"},
    {"UPMC", "uncore counter"},
    {"UBOX", "uncore UBOX counter"},
    {"SBOX", "uncore interconnect (QPI/UPI/ring) counter"},
    {"QBOX", "uncore QPI counter"},
    {"BBOX", "uncore home agent counter"},
    {"RBOX", "uncore ring counter"},
    {"PBOX", "uncore ring-to-PCIe counter"},
    {"IBOX", "uncore IIO/IRP counter"},
    {"WBOX", "uncore power control counter"},
    {"EDBOX", "uncore EDC (MCDRAM) counter"},
    {"EUBOX", "uncore EDC counter"},
    {"MDEV", "uncore memory device counter"},
    {"DFC", "AMD data fabric counter"},
    {"CPMC", "AMD L3 counter"},
    {"GPU", "GPU counter"},
    {"TMP", "thermal sensor"},
    {"TMA", "top-down (PERF_METRICS) counter, not mapped to perf's topdown events"},
    {"PWR", "RAPL energy counter: per package (perf's power/energy-*/ opens on one CPU of the "
	    "package), pmutop counts per CPU"},
};

/* likwid's fixed-counter events as perf generic events (which go on the fixed counters). */
static const struct {
	const char *event;
	const char *spec;
} fixed_events[] = {
    {"INSTR_RETIRED_ANY", "perf::INSTRUCTIONS"},
    {"CPU_CLK_UNHALTED_CORE", "perf::CYCLES"},
    {"CPU_CLK_UNHALTED_REF", "perf::REF-CYCLES"},
    {"INST_RETIRED_ANY", "perf::INSTRUCTIONS"}, /* AMD Zen */
    {"ACTUAL_CPU_CLOCK", "msr/aperf/"},		/* AMD Zen: APERF */
    {"MAX_CPU_CLOCK", "msr/mperf/"},		/* AMD Zen: MPERF, at the nominal clock */
};

/* likwid names that libpfm4 spells differently (same event, umask, cmask, edge). */
static const struct {
	const char *likwid;
	const char *pfm; /* event[:umask][:modifier] on the family's libpfm4 model */
} pfm_aliases[] = {
    {"CPU_CLOCK_UNHALTED_THREAD_P", "CPU_CLK_UNHALTED:THREAD_P"},
    {"CPU_CLOCKS_UNHALTED", "CYCLES_NOT_IN_HALT"},
    {"DTLB_LOAD_MISSES_CAUSES_A_WALK", "DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK"},
    {"DTLB_STORE_MISSES_CAUSES_A_WALK", "DTLB_STORE_MISSES:MISS_CAUSES_A_WALK"},
    {"ITLB_MISSES_CAUSES_A_WALK", "ITLB_MISSES:MISS_CAUSES_A_WALK"},
    {"UOPS_EXECUTED_USED_CYCLES", "UOPS_EXECUTED:THREAD:c=1"},
    {"UOPS_ISSUED_USED_CYCLES", "UOPS_ISSUED:ANY:c=1"},
    {"UOPS_RETIRED_USED_CYCLES", "UOPS_RETIRED:ALL:c=1"},
    {"INT_MISC_RECOVERY_COUNT", "INT_MISC:RECOVERY_CYCLES:e=1:c=1"},
    /* AMD Zen */
    {"RETIRED_BRANCH_INSTR", "RETIRED_BRANCH_INSTRUCTIONS"},
    {"RETIRED_MISP_BRANCH_INSTR", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"},
    {"ICACHE_FETCHES", "32_BYTE_INSTRUCTION_CACHE_FETCH"},
    {"ICACHE_L2_REFILLS", "INSTRUCTION_CACHE_REFILLS_FROM_L2"},
    {"ICACHE_SYSTEM_REFILLS", "INSTRUCTION_CACHE_REFILLS_FROM_SYSTEM"},
    {"DIV_BUSY_CYCLES", "DIV_CYCLES_BUSY_COUNT"},
    {"L2_PF_HIT_IN_L2", "L2_PREFETCH_HIT_L2"},
    {"L2_PF_HIT_IN_L3", "L2_PREFETCH_HIT_L3"},
    {"L2_PF_MISS_IN_L3", "L2_PREFETCH_MISS_L3"},
};

/* likwid event options on programmable counters and their libpfm4 modifiers (Intel). */
static const struct {
	const char *option; /* without "=value" */
	const char *modifier;
	bool value; /* takes "=0xN" */
} x86_options[] = {
    {"EDGEDETECT", "e=1", false},
    {"INVERT", "i=1", false},
    {"ANYTHREAD", "t=1", false},
    {"THRESHOLD", "c", true},
};

#define LK_MAX_COUNTERS 48
#define LK_MAX_METRICS 128 /* metric lines of one group (likwid's largest has 38) */
#define LK_LINE_MAX 4096   /* a group line: longer is an error */
#define LK_FORMULA_MAX 511 /* bytes of a translated formula (session_metric.formula) */

struct lk_counter {
	char name[64];	/* as written: "PMC3:EDGEDETECT" */
	char alias[64]; /* the formula name: "PMC3_EDGEDETECT" */
	char event[96]; /* "UOPS_EXECUTED_STALL_CYCLES" */
	char spec[192]; /* encoder spec, "" when unmapped */
	char why[192];	/* why unmapped */
	int line;
};

struct lk_metric {
	char ident[32], unit[16], desc[96];
	char expr[LK_FORMULA_MAX + 1];
	char why[400]; /* non-empty: not computed here */
	bool clock;    /* uses inverseClock */
	int line;
};

struct lk_group {
	char title[96];
	char *help; /* LONG, lines joined */
	size_t helplen;
	bool noht;
	struct lk_counter c[LK_MAX_COUNTERS];
	int nc;
	struct lk_metric *m;
	int nm;
};

static int lk_fail(char *err, size_t errlen, const char *label, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int lk_fail(char *err, size_t errlen, const char *label, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", label, line, msg);
	else
		snprintf(err, errlen, "%s: %s", label, msg);
	return -1;
}

/* ---- the nominal clock --------------------------------------------------------------------- */

static double read_khz(const char *root, const char *file)
{
	char path[4200], buf[64];
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu0/cpufreq/%s", root, file);
	if (lr_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	char *end;
	double v = strtod(buf, &end);
	return end != buf && v > 0 && v < 1e8 ? v * 1e3 : 0; /* kHz -> Hz */
}

void likwid_env_clock(struct likwid_env *env, const char *root, const char *model_name)
{
	env->nominal_hz = root ? read_khz(root, "base_frequency") : 0;
	if (env->nominal_hz > 0) {
		snprintf(env->clock_source, sizeof(env->clock_source), "cpufreq base_frequency");
		return;
	}
	const char *at = model_name ? strstr(model_name, "@ ") : NULL;
	if (at) {
		char *end;
		double v = strtod(at + 2, &end);
		double scale = strncmp(end, "GHz", 3) == 0   ? 1e9
			       : strncmp(end, "MHz", 3) == 0 ? 1e6
							     : 0;
		if (v > 0 && v < 100e9 / (scale ? scale : 1) && scale) {
			env->nominal_hz = v * scale;
			snprintf(env->clock_source, sizeof(env->clock_source),
				 "the model name in /proc/cpuinfo");
			return;
		}
	}
	env->nominal_hz = root ? read_khz(root, "cpuinfo_max_freq") : 0;
	if (env->nominal_hz > 0) {
		snprintf(env->clock_source, sizeof(env->clock_source),
			 "cpufreq cpuinfo_max_freq (the highest clock; no base_frequency)");
		return;
	}
	snprintf(
	    env->clock_source, sizeof(env->clock_source),
	    "unknown: no cpufreq base_frequency or cpuinfo_max_freq, no \"@ GHz\" in the model "
	    "name");
}

/* ---- arch directories ---------------------------------------------------------------------- */

const char *likwid_arch_of(const struct pmu_family *fam)
{
	for (; fam; fam = family_find(fam->parent))
		for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++)
			if (strcmp(arch_table[i].family, fam->key) == 0)
				return arch_table[i].arch[0];
	return NULL;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* True when @dir holds group files itself (it is one arch directory). */
static bool holds_groups(const char *dir)
{
	DIR *d = opendir(dir);
	bool found = false;
	if (!d)
		return false;
	for (struct dirent *de; !found && (de = readdir(d));)
		found = de->d_name[0] != '.' && has_suffix(de->d_name, ".txt");
	closedir(d);
	return found;
}

/* The arch directory for env->family under @dir into @out; -1 + @err naming what is there. */
static int pick_arch(const char *dir, const struct pmu_family *fam, int cpu_family, int cpu_model,
		     char *out, size_t outlen, char *err, size_t errlen)
{
	char edir[200];
	text_escape(dir, TEXT_NUL_TERMINATED, edir, sizeof(edir));
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return lk_fail(err, errlen, edir, 0, "%s",
			       stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
	if (holds_groups(dir)) {
		snprintf(out, outlen, "%s", dir);
		return 0;
	}
	for (size_t i = 0; fam && i < sizeof(model_table) / sizeof(model_table[0]); i++) {
		if (!family_is_a(fam, model_table[i].family) ||
		    model_table[i].cpu_family != cpu_family ||
		    (model_table[i].model >= 0 ? model_table[i].model != cpu_model
					       : cpu_model < model_table[i].min_model))
			continue;
		snprintf(out, outlen, "%s/%s", dir, model_table[i].arch);
		if (is_dir(out))
			return 0;
	}
	for (const struct pmu_family *f = fam; f; f = family_find(f->parent))
		for (size_t i = 0; i < sizeof(arch_table) / sizeof(arch_table[0]); i++) {
			if (strcmp(arch_table[i].family, f->key) != 0)
				continue;
			for (int k = 0; k < 3 && arch_table[i].arch[k]; k++) {
				snprintf(out, outlen, "%s/%s", dir, arch_table[i].arch[k]);
				if (is_dir(out))
					return 0;
			}
		}
	/* none: name the family, the directories likwid would use and what DIR has */
	const char *want = likwid_arch_of(fam);
	int n =
	    snprintf(err, errlen, "%s: no likwid group directory for %s (%s)%s%s%s; it has:", edir,
		     fam ? fam->desc : "this PMU", fam ? fam->key : "?",
		     want ? ", likwid calls it \"" : "", want ? want : "", want ? "\"" : "");
	DIR *d = opendir(dir);
	int listed = 0;
	for (struct dirent *de; d && (de = readdir(d)) && n > 0 && (size_t)n < errlen;) {
		char sub[4200], e[64];
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (!is_dir(sub))
			continue;
		text_escape(de->d_name, TEXT_NUL_TERMINATED, e, sizeof(e));
		if (listed++ < 48)
			n += snprintf(err + n, errlen - (size_t)n, " %s", e);
	}
	if (d)
		closedir(d);
	if (!listed && n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, " no arch directories (and no *.txt groups)");
	return -1;
}

/* ---- events -------------------------------------------------------------------------------- */

static bool encodes(const char *spec, const struct likwid_env *env)
{
	struct encode_ctx ctx = {.sysfs_root = env->sysfs_root,
				 .family = env->family,
				 .core_pmu_type = PERF_TYPE_RAW,
				 .filters_priv = env->family ? env->family->filters_priv : true};
	struct event_encoding enc;
	char why[256];
	return event_encode(spec, &ctx, &enc, why, sizeof(why)) == 0;
}

static const char *pfm_model_of(const struct pmu_family *fam)
{
	for (; fam; fam = family_find(fam->parent))
		if (fam->pfm_model)
			return fam->pfm_model;
	return NULL;
}

/* The counter's options (":EDGEDETECT:THRESHOLD=0x2") as libpfm4 modifiers; -1 + @why. */
static int x86_modifiers(const char *opts, char *out, size_t outlen, char *why, size_t whylen)
{
	char copy[64];
	size_t n = 0;
	out[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", opts);
	char *save = NULL;
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(t, '=');
		if (eq)
			*eq++ = '\0';
		size_t i = 0;
		for (; i < sizeof(x86_options) / sizeof(x86_options[0]); i++)
			if (strcmp(x86_options[i].option, t) == 0)
				break;
		if (i == sizeof(x86_options) / sizeof(x86_options[0]) ||
		    x86_options[i].value != (eq != NULL)) {
			snprintf(why, whylen, "option %s%s%s is not supported", t, eq ? "=" : "",
				 eq ? eq : "");
			return -1;
		}
		if (eq) {
			char *end;
			unsigned long v = strtoul(eq, &end, 0);
			if (*end || end == eq || v > 255) {
				snprintf(why, whylen, "option %s=%s: not a number up to 255", t,
					 eq);
				return -1;
			}
			n += (size_t)snprintf(out + n, outlen - n, ":%s=%lu",
					      x86_options[i].modifier, v);
		} else {
			n += (size_t)snprintf(out + n, outlen - n, ":%s", x86_options[i].modifier);
		}
		if (n >= outlen)
			return snprintf(why, whylen, "too many options"), -1;
	}
	return 0;
}

/* likwid NAME_UMASK on an x86 libpfm4 model: NAME:UMASK split at each underscore (the longest
 * event name first), then the whole name; libpfm4 resolves its alias names. */
static int map_pfm(struct lk_counter *c, const char *opts, const struct likwid_env *env)
{
	const char *model = pfm_model_of(env->family);
	char mods[64];
	if (!model)
		return snprintf(c->why, sizeof(c->why), "%s has no libpfm4 event table",
				env->family ? env->family->desc : "this PMU"),
		       -1;
	if (x86_modifiers(opts, mods, sizeof(mods), c->why, sizeof(c->why)) < 0)
		return -1;
	char cand[192];
	for (size_t k = strlen(c->event); k > 0; k--) {
		if (c->event[k] != '_' || !c->event[k + 1])
			continue;
		snprintf(cand, sizeof(cand), "%s::%.*s:%s%s", model, (int)k, c->event,
			 c->event + k + 1, mods);
		if (encodes(cand, env)) {
			snprintf(c->spec, sizeof(c->spec), "%s", cand);
			return 0;
		}
	}
	snprintf(cand, sizeof(cand), "%s::%s%s", model, c->event, mods);
	if (encodes(cand, env)) {
		snprintf(c->spec, sizeof(c->spec), "%s", cand);
		return 0;
	}
	for (size_t i = 0; i < sizeof(pfm_aliases) / sizeof(pfm_aliases[0]); i++) {
		if (strcmp(pfm_aliases[i].likwid, c->event) != 0)
			continue;
		snprintf(cand, sizeof(cand), "%s::%s%s", model, pfm_aliases[i].pfm, mods);
		if (encodes(cand, env)) {
			snprintf(c->spec, sizeof(c->spec), "%s", cand);
			return 0;
		}
	}
	snprintf(c->why, sizeof(c->why), "no libpfm4 %s event for %s (tried NAME:UMASK at each _)",
		 model, c->event);
	return -1;
}

/* ARM: the architected name of a common (or the core's own) event number -> rNN. */
static int map_arm(struct lk_counter *c, const char *opts, const struct likwid_env *env)
{
	if (*opts)
		return snprintf(c->why, sizeof(c->why),
				"options on ARM counters are not supported"),
		       -1;
	static const unsigned ranges[][2] = {{0x00, 0x400}, {0x4000, 0x4100}};
	for (size_t r = 0; r < 2; r++)
		for (unsigned code = ranges[r][0]; code < ranges[r][1]; code++) {
			const char *name = family_event_name(env->family, code);
			if (!name || strcmp(name, c->event) != 0)
				continue;
			if (family_implements(env->family, code) == 0)
				return snprintf(c->why, sizeof(c->why),
						"%s (0x%x) is not implemented by the %s", c->event,
						code, env->family->desc),
				       -1;
			snprintf(c->spec, sizeof(c->spec), "r%x", code);
			return 0;
		}
	return snprintf(c->why, sizeof(c->why), "no ARMv8 event named %s", c->event), -1;
}

static void map_counter(struct lk_counter *c, const struct likwid_env *env)
{
	char base[64];
	const char *colon = strchr(c->name, ':');
	const char *opts = colon ? colon + 1 : "";
	snprintf(base, sizeof(base), "%.*s",
		 (int)(colon ? (size_t)(colon - c->name) : strlen(c->name)), c->name);
	c->spec[0] = c->why[0] = '\0';
	for (size_t i = 0; i < sizeof(unsupported_boxes) / sizeof(unsupported_boxes[0]); i++) {
		size_t n = strlen(unsupported_boxes[i].prefix);
		if (strncmp(base, unsupported_boxes[i].prefix, n) == 0) {
			snprintf(c->why, sizeof(c->why), "%s: not supported",
				 unsupported_boxes[i].what);
			return;
		}
	}
	bool fixc = strncmp(base, "FIXC", 4) == 0, pmc = strncmp(base, "PMC", 3) == 0;
	if (!fixc && !pmc) {
		snprintf(c->why, sizeof(c->why), "counter %s: not a core counter (FIXC, PMC)",
			 base);
		return;
	}
	if (fixc && !*opts)
		for (size_t i = 0; i < sizeof(fixed_events) / sizeof(fixed_events[0]); i++)
			if (strcmp(fixed_events[i].event, c->event) == 0) {
				if (encodes(fixed_events[i].spec, env))
					snprintf(c->spec, sizeof(c->spec), "%s",
						 fixed_events[i].spec);
				else
					snprintf(c->why, sizeof(c->why), "%s does not encode here",
						 fixed_events[i].spec);
				return;
			}
	if (env->family && family_is_a(env->family, "armv8"))
		map_arm(c, opts, env);
	else
		map_pfm(c, opts, env);
}

/* ---- metrics ------------------------------------------------------------------------------- */

static const struct lk_counter *counter_named(const struct lk_group *g, const char *name)
{
	const struct lk_counter *hit = NULL;
	for (int i = 0; i < g->nc; i++)
		if (strcmp(g->c[i].name, name) == 0)
			return &g->c[i];
	/* "PMC3" for the one counter "PMC3:EDGEDETECT" */
	size_t n = strlen(name);
	for (int i = 0; i < g->nc; i++)
		if (strncmp(g->c[i].name, name, n) == 0 && g->c[i].name[n] == ':') {
			if (hit)
				return NULL;
			hit = &g->c[i];
		}
	return hit;
}

/* likwid formula -> expr.h text in mt->expr; mt->why when it cannot run here. */
static void translate(const struct lk_group *g, const char *f, const struct likwid_env *env,
		      struct lk_metric *mt)
{
	size_t n = 0;
	char *out = mt->expr;
	const size_t cap = sizeof(mt->expr);
	out[0] = '\0';
#define EMIT(...)                                                                                  \
	do {                                                                                       \
		int k_ = snprintf(out + n, cap - n, __VA_ARGS__);                                  \
		if (k_ < 0 || (size_t)k_ >= cap - n) {                                             \
			snprintf(mt->why, sizeof(mt->why), "formula longer than %d bytes here",    \
				 LK_FORMULA_MAX);                                                  \
			return;                                                                    \
		}                                                                                  \
		n += (size_t)k_;                                                                   \
	} while (0)
	for (const char *p = f; *p;) {
		unsigned char ch = (unsigned char)*p;
		if (isspace(ch)) {
			p++;
		} else if (isdigit(ch) || (ch == '.' && isdigit((unsigned char)p[1]))) {
			char *end;
			double v = strtod(p, &end);
			if (end == p || !isfinite(v) || isalpha((unsigned char)*end) ||
			    *end == '_') {
				char e[64];
				text_escape(p, strnlen(p, 12), e, sizeof(e));
				snprintf(mt->why, sizeof(mt->why), "malformed number at \"%s\"", e);
				return;
			}
			EMIT("%.12g", v);
			p = end;
		} else if (isalpha(ch) || ch == '_') {
			char name[64];
			size_t k = 0;
			while ((isalnum((unsigned char)p[k]) || p[k] == '_') &&
			       k < sizeof(name) - 1)
				k++;
			/* counter options belong to the name: "PMC3:EDGEDETECT",
			 * "CBOX0C0:STATE=0x3F" */
			while (p[k] == ':' && isalnum((unsigned char)p[k + 1]) &&
			       k < sizeof(name) - 2) {
				k++;
				while (
				    (isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '=') &&
				    k < sizeof(name) - 1)
					k++;
			}
			memcpy(name, p, k);
			name[k] = '\0';
			p += k;
			const struct lk_counter *c;
			if (strcmp(name, "time") == 0) {
				EMIT("interval");
			} else if (strcmp(name, "inverseClock") == 0) {
				mt->clock = true;
				if (env->nominal_hz > 0)
					EMIT("%.12g", 1.0 / env->nominal_hz);
				else
					EMIT("(0/0)"); /* n/a: the nominal clock is unknown */
			} else if ((c = counter_named(g, name))) {
				if (!c->spec[0]) {
					snprintf(mt->why, sizeof(mt->why), "needs %s %s (%s)",
						 c->name, c->event, c->why);
					return;
				}
				EMIT("%s", c->alias);
			} else {
				char e[40];
				text_escape(name, 32, e, sizeof(e));
				snprintf(
				    mt->why, sizeof(mt->why),
				    "\"%s\" is not a counter of the group, time or inverseClock",
				    e);
				return;
			}
		} else if (strchr("+-*/()", ch)) {
			EMIT("%c", ch);
			p++;
		} else {
			char e[16];
			text_escape(p, 1, e, sizeof(e));
			snprintf(mt->why, sizeof(mt->why), "operator \"%s\" is not supported", e);
			return;
		}
	}
#undef EMIT
	char perr[160];
	struct expr *e = expr_parse(out, perr, sizeof(perr));
	if (!e)
		snprintf(mt->why, sizeof(mt->why), "formula: %s", perr);
	expr_free(e);
}

/* "Name words [unit] formula": the formula is the last word, with the words before it that
 * end in an operator (a formula broken by blanks). */
static int parse_metric_line(struct lk_group *g, char *s, int line, const struct likwid_env *env,
			     const char *label, char *err, size_t errlen)
{
	char *words[256];
	int nw = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (nw == (int)(sizeof(words) / sizeof(words[0])))
			return lk_fail(err, errlen, label, line, "metric line has too many words");
		words[nw++] = t;
	}
	if (nw < 2)
		return lk_fail(err, errlen, label, line, "expected \"Name [unit] formula\"");
	int first = nw - 1;
	while (first > 1 && (strchr("+-*/(", words[first - 1][strlen(words[first - 1]) - 1]) ||
			     strchr("+-*/)", words[first][0])))
		first--;
	char formula[LK_LINE_MAX] = "", name[LK_LINE_MAX] = "";
	for (int i = first; i < nw; i++)
		strncat(formula, words[i], sizeof(formula) - strlen(formula) - 1);
	for (int i = 0; i < first; i++) {
		if (i)
			strncat(name, " ", sizeof(name) - strlen(name) - 1);
		strncat(name, words[i], sizeof(name) - strlen(name) - 1);
	}
	if (g->nm == LK_MAX_METRICS)
		return lk_fail(err, errlen, label, line, "more than %d metrics", LK_MAX_METRICS);
	struct lk_metric *v = realloc(g->m, (size_t)(g->nm + 1) * sizeof(*v));
	if (!v)
		return lk_fail(err, errlen, label, line, "out of memory");
	g->m = v;
	struct lk_metric *mt = &g->m[g->nm++];
	memset(mt, 0, sizeof(*mt));
	mt->line = line;
	/* the unit: the last [...] of the name */
	char *open = strrchr(name, '['), *close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		size_t k = 0;
		for (char *q = open + 1; q < close && k < sizeof(mt->unit) - 1; q++)
			if (isprint((unsigned char)*q) && *q != '#')
				mt->unit[k++] = *q;
		mt->unit[k] = '\0';
		memmove(open, close + 1, strlen(close + 1) + 1);
	}
	char *nm = name;
	while (*nm == ' ')
		nm++;
	for (size_t k = strlen(nm); k > 0 && nm[k - 1] == ' '; k--)
		nm[k - 1] = '\0';
	text_escape(nm, TEXT_NUL_TERMINATED, mt->desc, sizeof(mt->desc));
	/* the identifier: letters and digits, other runs as one '_' */
	size_t k = 0;
	bool gap = false;
	for (const char *q = nm; *q && k < sizeof(mt->ident) - 4; q++) {
		if (isalnum((unsigned char)*q)) {
			if (gap && k)
				mt->ident[k++] = '_';
			mt->ident[k++] = *q;
			gap = false;
		} else {
			gap = true;
		}
	}
	mt->ident[k] = '\0';
	if (!k || isdigit((unsigned char)mt->ident[0])) {
		char digits[sizeof(mt->ident)];
		memcpy(digits, mt->ident, k + 1);
		snprintf(mt->ident, sizeof(mt->ident), "m_%.28s", digits);
	}
	for (int dup = 2;; dup++) {
		bool clash = false;
		for (int i = 0; i < g->nm - 1 && !clash; i++)
			clash = strcmp(g->m[i].ident, mt->ident) == 0;
		if (!clash)
			break;
		char base[32];
		snprintf(base, sizeof(base), "%.26s", mt->ident);
		char *us = strrchr(base, '_');
		if (dup > 2 && us)
			*us = '\0';
		snprintf(mt->ident, sizeof(mt->ident), "%.26s_%d", base, dup % LK_MAX_METRICS);
	}
	translate(g, formula, env, mt);
	return 0;
}

/* ---- the group file ------------------------------------------------------------------------ */

static bool word_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_:=.", *s))
			return false;
	return true;
}

static int parse_event_line(struct lk_group *g, char *s, int line, const char *label, char *err,
			    size_t errlen)
{
	char *save = NULL, *counter = strtok_r(s, " \t", &save),
	     *event = strtok_r(NULL, " \t", &save);
	char e[64];
	if (!counter || !event || strtok_r(NULL, " \t", &save))
		return lk_fail(err, errlen, label, line, "expected \"COUNTER EVENT\" in EVENTSET");
	if (!word_ok(counter, 63) || !isalpha((unsigned char)counter[0]))
		return lk_fail(err, errlen, label, line, "bad counter name \"%s\"",
			       (text_escape(counter, 40, e, sizeof(e)), e));
	if (!word_ok(event, 95) || strchr(event, ':'))
		return lk_fail(err, errlen, label, line, "bad event name \"%s\"",
			       (text_escape(event, 40, e, sizeof(e)), e));
	if (g->nc == LK_MAX_COUNTERS)
		return lk_fail(err, errlen, label, line, "more than %d counters", LK_MAX_COUNTERS);
	for (int i = 0; i < g->nc; i++)
		if (strcmp(g->c[i].name, counter) == 0)
			return lk_fail(err, errlen, label, line, "counter %s given twice", counter);
	struct lk_counter *c = &g->c[g->nc++];
	memset(c, 0, sizeof(*c));
	c->line = line;
	snprintf(c->name, sizeof(c->name), "%s", counter);
	snprintf(c->event, sizeof(c->event), "%s", event);
	size_t k = 0;
	for (const char *q = counter; *q && k < sizeof(c->alias) - 1; q++)
		c->alias[k++] = isalnum((unsigned char)*q) ? *q : '_';
	c->alias[k] = '\0';
	for (int i = 0; i < g->nc - 1; i++)
		if (strcmp(g->c[i].alias, c->alias) == 0)
			return lk_fail(err, errlen, label, line, "counters %s and %s look alike",
				       g->c[i].name, counter);
	return 0;
}

static int append_help(struct lk_group *g, const char *text, size_t n)
{
	char *v = realloc(g->help, g->helplen + n * 4 + 2);
	if (!v)
		return -1;
	g->help = v;
	if (g->helplen)
		g->help[g->helplen++] = '\n';
	g->helplen += text_escape_flags(text, n, g->help + g->helplen, n * 4 + 1, 0);
	return 0;
}

enum lk_section { LK_NONE, LK_EVENTS, LK_METRICS, LK_LONG };

static int parse_group(struct lk_group *g, const char *label, const char *text,
		       const struct likwid_env *env, char *err, size_t errlen)
{
	enum lk_section sec = LK_NONE;
	int line = 0;
	bool mapped = false;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		line++;
		if (len >= LK_LINE_MAX)
			return lk_fail(err, errlen, label, line, "line longer than %d bytes",
				       LK_LINE_MAX);
		char buf[LK_LINE_MAX];
		memcpy(buf, p, len);
		buf[len] = '\0';
		p = nl ? nl + 1 : NULL;
		if (sec == LK_LONG) { /* free text up to the end */
			while (len && isspace((unsigned char)buf[len - 1]))
				buf[--len] = '\0';
			for (size_t k = 0; k < len; k++)
				buf[k] = buf[k] == '\t' ? ' ' : buf[k];
			if (append_help(g, buf, len) < 0)
				return lk_fail(err, errlen, label, line, "out of memory");
			continue;
		}
		char *s = buf;
		while (isspace((unsigned char)*s))
			s++;
		for (size_t k = strlen(s); k && isspace((unsigned char)s[k - 1]); k--)
			s[k - 1] = '\0';
		if (!*s || *s == '#')
			continue;
		for (const char *q = s; *q; q++)
			if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f)
				return lk_fail(err, errlen, label, line, "control character 0x%02x",
					       (unsigned char)*q);
		if (strncmp(s, "SHORT", 5) == 0 && (!s[5] || isspace((unsigned char)s[5]))) {
			char *t = s + 5;
			while (isspace((unsigned char)*t))
				t++;
			text_escape(t, TEXT_NUL_TERMINATED, g->title, sizeof(g->title));
			sec = LK_NONE;
		} else if (strcmp(s, "EVENTSET") == 0) {
			sec = LK_EVENTS;
		} else if (strcmp(s, "METRICS") == 0) {
			sec = LK_METRICS;
		} else if (strcmp(s, "LONG") == 0) {
			sec = LK_LONG;
		} else if (strcmp(s, "REQUIRE_NOHT") == 0) {
			g->noht = true;
		} else if (sec == LK_EVENTS) {
			if (parse_event_line(g, s, line, label, err, errlen) < 0)
				return -1;
		} else if (sec == LK_METRICS) {
			if (!mapped) { /* the counters are known once the metrics start */
				for (int i = 0; i < g->nc; i++)
					map_counter(&g->c[i], env);
				mapped = true;
			}
			if (parse_metric_line(g, s, line, env, label, err, errlen) < 0)
				return -1;
		} else {
			char e[48];
			text_escape(s, 32, e, sizeof(e));
			return lk_fail(err, errlen, label, line,
				       "\"%s\" outside a section (SHORT, EVENTSET, METRICS, LONG)",
				       e);
		}
	}
	if (!g->nc)
		return lk_fail(err, errlen, label, 0, "no EVENTSET counters");
	if (!g->nm)
		return lk_fail(err, errlen, label, 0, "no METRICS");
	return 0;
}

static int buf_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int buf_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (*len + (size_t)n + 1 > *cap) {
		size_t c = (*len + (size_t)n + 1) * 2;
		char *v = realloc(*buf, c);
		if (!v)
			return -1;
		*buf = v;
		*cap = c;
	}
	va_start(ap, fmt);
	vsnprintf(*buf + *len, *cap - *len, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
	return 0;
}

/* The mode's skeleton in mode-file syntax (names, events, formulas, units); free text is set
 * on the parsed mode directly. */
static char *mode_text(const struct lk_group *g, const char *name, const struct likwid_env *env,
		       int *nmetrics)
{
	char *b = NULL;
	size_t len = 0, cap = 0;
	int rc = buf_add(&b, &len, &cap, "[mode]\nname = %s\n[events %s]\n", name,
			 env->family ? env->family->key : "*");
	for (int i = 0; i < g->nc && rc == 0; i++)
		if (g->c[i].spec[0])
			rc = buf_add(&b, &len, &cap, "%s = %s\n", g->c[i].alias, g->c[i].spec);
	*nmetrics = 0;
	for (int i = 0; i < g->nm && rc == 0; i++) {
		const struct lk_metric *mt = &g->m[i];
		if (mt->why[0] || *nmetrics >= SESSION_MAX_METRICS)
			continue;
		rc = buf_add(&b, &len, &cap, "[metric %s]\nexpr = %s\n", mt->ident, mt->expr);
		if (rc == 0 && mt->unit[0])
			rc = buf_add(&b, &len, &cap, "unit = %s\n", mt->unit);
		(*nmetrics)++;
	}
	if (rc < 0) {
		free(b);
		return NULL;
	}
	return b;
}

/* The help: LONG, then what does not run here and why. */
static char *mode_help(const struct lk_group *g, const struct likwid_env *env, bool uses_clock)
{
	char *b = NULL;
	size_t len = 0, cap = 0;
	int rc = buf_add(&b, &len, &cap, "%s", g->help ? g->help : "");
	int shown = 0;
	for (int i = 0; i < g->nc && rc == 0; i++)
		if (!g->c[i].spec[0])
			rc = buf_add(&b, &len, &cap, "%sunmapped: %s %s: %s", len ? "\n" : "",
				     g->c[i].name, g->c[i].event, g->c[i].why);
	for (int i = 0; i < g->nm && rc == 0; i++) {
		const struct lk_metric *mt = &g->m[i];
		if (mt->why[0])
			rc = buf_add(&b, &len, &cap, "%snot computed: %s: %s", len ? "\n" : "",
				     mt->desc, mt->why);
		else if (shown++ >= SESSION_MAX_METRICS)
			rc = buf_add(&b, &len, &cap, "%snot computed: %s: more than %d metrics",
				     len ? "\n" : "", mt->desc, SESSION_MAX_METRICS);
	}
	if (rc == 0 && uses_clock && env->nominal_hz > 0)
		rc = buf_add(&b, &len, &cap, "%sinverseClock: 1 / %.6g GHz (%s)", len ? "\n" : "",
			     env->nominal_hz / 1e9, env->clock_source);
	else if (rc == 0 && uses_clock)
		rc = buf_add(&b, &len, &cap, "%sinverseClock: n/a, the nominal clock is %s",
			     len ? "\n" : "", env->clock_source);
	if (rc == 0 && g->noht)
		rc = buf_add(&b, &len, &cap,
			     "%slikwid runs this group only without SMT "
			     "(REQUIRE_NOHT)",
			     len ? "\n" : "");
	if (rc < 0) {
		free(b);
		return NULL;
	}
	return b;
}

struct mode *likwid_group_parse(const char *label, const char *group, const char *text,
				const struct likwid_env *env, struct likwid_group_info *info,
				char *err, size_t errlen)
{
	char name[64], e[64];
	struct likwid_group_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	snprintf(name, sizeof(name), LIKWID_PREFIX "%s", group);
	if (strlen(name) >= sizeof(((struct session_mode *)0)->name) || !mode_name_valid(name) ||
	    strchr(group, ':'))
		return lk_fail(err, errlen, label, 0,
			       "group name \"%s\" does not make a mode name (letters, digits, _ - "
			       "+ .; at most %zu)",
			       (text_escape(group, 40, e, sizeof(e)), e),
			       sizeof(((struct session_mode *)0)->name) - 1 -
				   strlen(LIKWID_PREFIX)),
		       NULL;
	struct lk_group *g = calloc(1, sizeof(*g));
	if (!g)
		return lk_fail(err, errlen, label, 0, "out of memory"), NULL;
	struct mode *m = NULL;
	char *body = NULL, *help = NULL;
	if (parse_group(g, label, text, env, err, errlen) < 0)
		goto out;
	info->events = g->nc;
	info->metrics = g->nm;
	size_t ul = 0;
	for (int i = 0; i < g->nc; i++) {
		if (g->c[i].spec[0]) {
			info->mapped++;
		} else if (ul < sizeof(info->unmapped) - 1) {
			int k = snprintf(info->unmapped + ul, sizeof(info->unmapped) - ul,
					 "%s%s %s (%s)", ul ? "; " : "", g->c[i].name,
					 g->c[i].event, g->c[i].why);
			ul = k < 0 ? ul : ul + (size_t)k;
		}
	}
	bool any_event = info->mapped > 0, uses_clock = false;
	for (int i = 0; i < g->nm; i++)
		uses_clock |= g->m[i].clock && !g->m[i].why[0];
	int nmetrics = 0;
	body = any_event ? mode_text(g, name, env, &nmetrics) : NULL;
	info->computed = nmetrics;
	if (!any_event || !nmetrics) {
		lk_fail(err, errlen, label, 0, "nothing of group %s runs on %s: %s%s%s", group,
			env->family ? env->family->desc : "this PMU",
			!any_event ? info->unmapped : g->m[0].desc, !any_event ? "" : ": ",
			!any_event ? "" : g->m[0].why);
		goto out;
	}
	if (!body) {
		lk_fail(err, errlen, label, 0, "out of memory");
		goto out;
	}
	m = mode_parse(label, body, err, errlen);
	if (!m)
		goto out;
	help = mode_help(g, env, uses_clock);
	free(m->title);
	free(m->help);
	m->title = strdup(g->title[0] ? g->title : group);
	m->help = help ? help : strdup("");
	help = NULL;
	for (int i = 0, k = 0; i < g->nm && k < m->nmetrics; i++) {
		if (g->m[i].why[0])
			continue;
		free(m->metrics[k].desc);
		m->metrics[k++].desc = strdup(g->m[i].desc);
	}
	if (!m->title || !m->help) {
		mode_free(m);
		m = NULL;
		lk_fail(err, errlen, label, 0, "out of memory");
	}
out:
	free(help);
	free(body);
	free(g->help);
	free(g->m);
	free(g);
	return m;
}

/* ---- a directory --------------------------------------------------------------------------- */

static void add_warning(struct likwid_load *l, const char *msg)
{
	char **v = realloc(l->warnings, (size_t)(l->nwarnings + 1) * sizeof(*v));
	if (!v)
		return;
	l->warnings = v;
	if ((v[l->nwarnings] = strdup(msg)))
		l->nwarnings++;
}

void likwid_load_free(struct likwid_load *l)
{
	for (int i = 0; i < l->nwarnings; i++)
		free(l->warnings[i]);
	free(l->warnings);
	l->warnings = NULL;
	l->nwarnings = 0;
}

int likwid_load_dir(struct mode_registry *r, const char *dir, const struct likwid_env *env,
		    struct likwid_load *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (pick_arch(dir, env->family, env->cpu_family, env->cpu_model, out->dir, sizeof(out->dir),
		      err, errlen) < 0)
		return -1;
	char edir[200];
	text_escape(out->dir, TEXT_NUL_TERMINATED, edir, sizeof(edir));
	char **names;
	int n = dir_list(out->dir, ".txt", LIKWID_MAX_GROUPS, &names);
	if (n == -2)
		return lk_fail(err, errlen, edir, 0, "more than %d group files", LIKWID_MAX_GROUPS);
	if (n < 0)
		return lk_fail(err, errlen, edir, 0, "%s", strerror(errno));
	struct mode_registry tmp;
	mode_registry_init(&tmp);
	for (int i = 0; i < n; i++) {
		char path[4400], label[300], why[600], group[256];
		snprintf(path, sizeof(path), "%s/%s", out->dir, names[i]);
		text_escape(path, TEXT_NUL_TERMINATED, label, sizeof(label));
		snprintf(group, sizeof(group), "%.*s", (int)(strlen(names[i]) - 4), names[i]);
		free(names[i]);
		out->files++;
		char *text = lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, why,
				      sizeof(why));
		if (!text) {
			add_warning(out, why);
			continue;
		}
		struct likwid_group_info info;
		struct mode *m =
		    likwid_group_parse(label, group, text, env, &info, why, sizeof(why));
		free(text);
		if (!m) {
			add_warning(out, why);
			continue;
		}
		free(m->source);
		m->source = strdup(path);
		mode_register(&tmp, m);
		out->loaded++;
		out->complete += info.mapped == info.events;
	}
	free(names);
	for (int i = 0; i < tmp.n; i++)
		mode_register(r, tmp.modes[i]);
	tmp.n = 0;
	mode_registry_free(&tmp);
	return out->loaded;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* encode.c: turns event specs into perf_event_attr via libpfm4, raw codes and sysfs formats. */
#include "encode.h"
#include "family.h"
#include "linereader.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* libpfm4's entry points. Its tables are relocated when it is loaded (about 2.7 MB resident on
 * x86-64), so a dynamic build loads it on first use and encode_release() unloads it again; a
 * static build calls it directly. */
struct pfm_api {
	pfm_err_t (*initialize)(void);
	void (*terminate)(void);
	const char *(*strerror)(int code);
	pfm_err_t (*get_os_event_encoding)(const char *str, int dfl_plm, pfm_os_t os, void *args);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
	int (*get_event_next)(int idx);
	pfm_err_t (*get_event_info)(int idx, pfm_os_t os, pfm_event_info_t *output);
};

#ifdef PMUTOP_PFM_DLOPEN
#include <dlfcn.h>
static struct pfm_api pfm;
static void *pfm_lib;
static unsigned pfm_loads; /* times libpfm4 was loaded (encode_loads()) */

static int pfm_load(char *err, size_t errlen)
{
	if (pfm_lib)
		return 0;
	void *h = dlopen(PMUTOP_PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "libpfm4 could not be loaded: %s", dlerror());
		return -1;
	}
	/* POSIX's way to store a function pointer from dlsym (the C standard has none) */
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
	    {"pfm_initialize", offsetof(struct pfm_api, initialize)},
	    {"pfm_terminate", offsetof(struct pfm_api, terminate)},
	    {"pfm_strerror", offsetof(struct pfm_api, strerror)},
	    {"pfm_get_os_event_encoding", offsetof(struct pfm_api, get_os_event_encoding)},
	    {"pfm_get_pmu_info", offsetof(struct pfm_api, get_pmu_info)},
	    {"pfm_get_event_next", offsetof(struct pfm_api, get_event_next)},
	    {"pfm_get_event_info", offsetof(struct pfm_api, get_event_info)},
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f) {
			snprintf(err, errlen, "libpfm4 (%s) lacks %s", PMUTOP_PFM_SONAME,
				 syms[i].name);
			dlclose(h);
			return -1;
		}
		memcpy((char *)&pfm + syms[i].off, &f, sizeof(f));
	}
	pfm_lib = h;
	pfm_loads++;
	return 0;
}
#else
static const struct pfm_api pfm = {
    pfm_initialize,   pfm_terminate,	  pfm_strerror,	     pfm_get_os_event_encoding,
    pfm_get_pmu_info, pfm_get_event_next, pfm_get_event_info};
static unsigned pfm_loads;
static int pfm_load(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	pfm_loads += pfm_loads == 0;
	return 0;
}
#endif

static int pfm_ready;

int encode_init(char *err, size_t errlen)
{
	if (pfm_ready)
		return 0;
	if (pfm_load(err, errlen) < 0)
		return -1;
	/* Any value enables encoding of compiled-in models the CPU does not have (4.13). */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	int ret = pfm.initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 initialisation failed: %s", pfm.strerror(ret));
		return -1;
	}
	pfm_ready = 1;
	return 0;
}

void encode_release(void)
{
#ifdef PMUTOP_PFM_DLOPEN
	if (!pfm_lib)
		return;
	if (pfm_ready)
		pfm.terminate();
	pfm_ready = 0;
	dlclose(pfm_lib);
	pfm_lib = NULL;
	memset(&pfm, 0, sizeof(pfm));
#endif
}

bool encode_loaded(void)
{
#ifdef PMUTOP_PFM_DLOPEN
	return pfm_lib != NULL;
#else
	return true;
#endif
}

unsigned encode_loads(void) { return pfm_loads; }

static void clear_excludes(struct perf_event_attr *attr)
{
	attr->exclude_user = attr->exclude_kernel = attr->exclude_hv = 0;
	attr->exclude_idle = attr->exclude_host = attr->exclude_guest = 0;
}

static int read_small_file(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s%s", (root && strcmp(root, "/") != 0) ? root : "", path);
	long got = lr_read_small(full, buf, len);
	if (got < 0)
		return -1;
	size_t n = (size_t)got;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* Applies @value to the bits a sysfs format string describes ("config:0-7,21", "config1:0-63"). */
static int apply_format(struct perf_event_attr *attr, const char *format, uint64_t value)
{
	char field[16];
	const char *colon = strchr(format, ':');
	if (!colon || (size_t)(colon - format) >= sizeof(field))
		return -1;
	memcpy(field, format, (size_t)(colon - format));
	field[colon - format] = '\0';
	__u64 *target = strcmp(field, "config") == 0	? &attr->config
			: strcmp(field, "config1") == 0 ? &attr->config1
			: strcmp(field, "config2") == 0 ? &attr->config2
							: NULL;
	if (!target)
		return -1;
	const char *p = colon + 1;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0 || lo > 63)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -1;
			p = end;
		}
		for (long bit = lo; bit <= hi; bit++) {
			if (value & 1)
				*target |= 1ULL << bit;
			else
				*target &= ~(1ULL << bit);
			value >>= 1;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* "event, umask, cmask" : the entries of <pmu>/<dir>/, sorted, in @out. */
static void list_dir(const char *root, const char *pmu, const char *dir, char *out, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/%s",
		 (root && strcmp(root, "/") != 0) ? root : "", pmu, dir);
	char names[64][48];
	int n = 0;
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && n < 64 && (de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	out[0] = '\0';
	size_t u = 0;
	for (int i = 0; i < n && u + 1 < len; i++) {
		int w = snprintf(out + u, len - u, "%s%s", i ? ", " : "", names[i]);
		if (w < 0 || (size_t)w >= len - u) {
			if (len > 4)
				memcpy(out + len - 4, "...", 4);
			break;
		}
		u += (size_t)w;
	}
}

static int apply_terms(struct perf_event_attr *attr, const char *root, const char *pmu,
		       const char *terms, size_t len, int depth, int *errpos, int base, char *err,
		       size_t errlen);

/* One "name=value" or event term of the pmu/terms/ syntax (@len bytes at @term). */
static int apply_term(struct perf_event_attr *attr, const char *root, const char *pmu,
		      const char *term, size_t len, int depth, int *errpos, int pos, char *err,
		      size_t errlen)
{
	char path[512], buf[512], list[400];
	const char *eq = memchr(term, '=', len);
	*errpos = pos;
	if (!eq) { /* a named event from <pmu>/events/<name> */
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%.*s", pmu,
			 (int)len, term);
		if (depth > 0 || len >= 128 || memchr(term, '/', len) ||
		    read_small_file(root, path, buf, sizeof(buf)) < 0) {
			list_dir(root, pmu, "events", list, sizeof(list));
			snprintf(err, errlen, "%s has no event \"%.*s\"%s%s%s", pmu, (int)len, term,
				 list[0] ? " (events: " : "", list, list[0] ? ")" : "");
			return -1;
		}
		return apply_terms(attr, root, pmu, buf, strlen(buf), depth + 1, errpos, pos, err,
				   errlen);
	}
	char name[64], val[64];
	if ((size_t)(eq - term) >= sizeof(name) || (size_t)(term + len - eq - 1) >= sizeof(val)) {
		snprintf(err, errlen, "term too long in \"%.*s\"", (int)len, term);
		return -1;
	}
	memcpy(name, term, (size_t)(eq - term));
	name[eq - term] = '\0';
	snprintf(val, sizeof(val), "%.*s", (int)(term + len - eq - 1), eq + 1);
	if (strcmp(name, "name") == 0)
		return 0; /* names the event; the event list takes it */
	uint64_t value;
	if (parse_u64(val, &value) < 0) {
		*errpos = pos + (int)(eq + 1 - term);
		snprintf(err, errlen, "%s/%s: \"%s\" is not a number", pmu, name, val);
		return -1;
	}
	__u64 *whole = strcmp(name, "config") == 0    ? &attr->config
		       : strcmp(name, "config1") == 0 ? &attr->config1
		       : strcmp(name, "config2") == 0 ? &attr->config2
						      : NULL;
	if (whole) {
		*whole = value;
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, name);
	if (strchr(name, '/') || read_small_file(root, path, buf, sizeof(buf)) < 0) {
		list_dir(root, pmu, "format", list, sizeof(list));
		snprintf(err, errlen,
			 "unknown term \"%s\" for PMU %s (terms: %s%sconfig, config1, "
			 "config2, name)",
			 name, pmu, list, list[0] ? ", " : "");
		return -1;
	}
	if (apply_format(attr, buf, value) < 0) {
		snprintf(err, errlen, "%s: cannot parse format \"%s\" of %s", pmu, buf, name);
		return -1;
	}
	return 0;
}

/* Comma-separated terms; @base is the offset of @terms in the spec (for error columns). */
static int apply_terms(struct perf_event_attr *attr, const char *root, const char *pmu,
		       const char *terms, size_t len, int depth, int *errpos, int base, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && terms[i + n] != ',')
			n++;
		size_t skip = 0;
		while (skip < n && isspace((unsigned char)terms[i + skip]))
			skip++;
		size_t tl = n - skip;
		while (tl > 0 && isspace((unsigned char)terms[i + skip + tl - 1]))
			tl--;
		int pos = depth ? base : base + (int)(i + skip);
		if (tl && apply_term(attr, root, pmu, terms + i + skip, tl, depth, errpos, pos, err,
				     errlen) < 0)
			return -1;
		i += n + 1;
	}
	return 0;
}

static const char *const proc_fields[] = {
    [ENCODE_PROC_BUSY] = "busy",
    [ENCODE_PROC_IDLE] = "idle",
    [ENCODE_PROC_IRQ] = "irq",
};

/* "proc/busy/": CPU time from /proc/stat, for utilisation where cpu-clock counts idle time too */
static int encode_proc(const char *spec, struct event_encoding *enc, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(proc_fields) / sizeof(proc_fields[0]); i++) {
		char want[32];
		snprintf(want, sizeof(want), "proc/%s/", proc_fields[i]);
		if (strcmp(spec, want) == 0) {
			enc->attr.type = ENCODE_TYPE_PROC;
			enc->attr.config = i;
			enc->procfs = true;
			snprintf(enc->pmu, sizeof(enc->pmu), "proc");
			snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
			return 0;
		}
	}
	snprintf(err, errlen, "unknown proc event \"%s\" (proc/busy/, proc/idle/, proc/irq/)",
		 spec);
	return -1;
}

/* "pmu/terms/" (modifiers after the last '/' are taken off by the caller) */
static int encode_sysfs(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
			char *err, size_t errlen)
{
	const char *slash = strchr(spec, '/');
	size_t plen = (size_t)(slash - spec), len = strlen(spec);
	if (plen == 0 || plen >= sizeof(enc->pmu) || spec[len - 1] != '/' || len < plen + 2) {
		enc->errpos = plen == 0 ? 0 : (int)len;
		snprintf(err, errlen, "malformed event \"%s\" (expected pmu/term,term/)", spec);
		return -1;
	}
	memcpy(enc->pmu, spec, plen);
	enc->pmu[plen] = '\0';
	char path[256], buf[64];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", enc->pmu);
	if (read_small_file(ctx->sysfs_root, path, buf, sizeof(buf)) < 0) {
		enc->errpos = 0;
		snprintf(err, errlen, "no PMU \"%s\" in /sys/bus/event_source/devices", enc->pmu);
		return -1;
	}
	uint64_t type;
	if (parse_u64(buf, &type) < 0 || type > INT32_MAX) {
		snprintf(err, errlen, "PMU %s has a bad type \"%s\"", enc->pmu, buf);
		return -1;
	}
	enc->attr.type = (uint32_t)type;
	if (apply_terms(&enc->attr, ctx->sysfs_root, enc->pmu, slash + 1, len - plen - 2, 0,
			&enc->errpos, (int)plen + 1, err, errlen) < 0)
		return -1;
	/* Uncore-like and msr PMUs cannot filter privilege levels; core PMUs via sysfs can. */
	enc->hardware = type == PERF_TYPE_RAW || strcmp(enc->pmu, "cpu") == 0 ||
			strncmp(enc->pmu, "cpu_", 4) == 0 || strncmp(enc->pmu, "arm", 3) == 0;
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
	return 0;
}

/* The kernel's generic events, as perf names them (perf list: Hardware/Software event). */
static const struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
};

/* Generic cache events "<cache>-<op>[-<result>]": L1-dcache-load-misses, LLC-stores, ... */
static const struct cache_word {
	const char *name;
	unsigned id;
} cache_names[] = {{"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"l1-d", PERF_COUNT_HW_CACHE_L1D},
		   {"L1-icache", PERF_COUNT_HW_CACHE_L1I}, {"l1-i", PERF_COUNT_HW_CACHE_L1I},
		   {"LLC", PERF_COUNT_HW_CACHE_LL},	   {"L2", PERF_COUNT_HW_CACHE_LL},
		   {"dTLB", PERF_COUNT_HW_CACHE_DTLB},	   {"d-tlb", PERF_COUNT_HW_CACHE_DTLB},
		   {"iTLB", PERF_COUNT_HW_CACHE_ITLB},	   {"i-tlb", PERF_COUNT_HW_CACHE_ITLB},
		   {"branch", PERF_COUNT_HW_CACHE_BPU},	   {"node", PERF_COUNT_HW_CACHE_NODE}},
  cache_ops[] = {{"loads", PERF_COUNT_HW_CACHE_OP_READ},
		 {"load", PERF_COUNT_HW_CACHE_OP_READ},
		 {"stores", PERF_COUNT_HW_CACHE_OP_WRITE},
		 {"store", PERF_COUNT_HW_CACHE_OP_WRITE},
		 {"prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH},
		 {"prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH}},
  cache_results[] = {{"misses", PERF_COUNT_HW_CACHE_RESULT_MISS},
		     {"miss", PERF_COUNT_HW_CACHE_RESULT_MISS},
		     {"refs", PERF_COUNT_HW_CACHE_RESULT_ACCESS},
		     {"accesses", PERF_COUNT_HW_CACHE_RESULT_ACCESS}};

/* Matches one table word at *@s followed by '-' or the end; advances past it. */
static int cache_word(const char **s, const struct cache_word *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(t[i].name);
		if (strncasecmp(*s, t[i].name, l) == 0 && ((*s)[l] == '-' || !(*s)[l])) {
			*s += l + ((*s)[l] == '-');
			return (int)t[i].id;
		}
	}
	return -1;
}

/* perf's generic hardware, software and cache event names; false if @spec is none of them. */
static bool encode_generic(const char *spec, struct event_encoding *enc)
{
	for (size_t i = 0; i < sizeof(generic_events) / sizeof(generic_events[0]); i++)
		if (strcasecmp(spec, generic_events[i].name) == 0) {
			enc->attr.type = generic_events[i].type;
			enc->attr.config = generic_events[i].config;
			goto found;
		}
	const char *s = spec;
	int cache = cache_word(&s, cache_names, sizeof(cache_names) / sizeof(cache_names[0]));
	if (cache < 0 || !*s)
		return false;
	int op = cache_word(&s, cache_ops, sizeof(cache_ops) / sizeof(cache_ops[0]));
	int result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (*s) {
		result =
		    cache_word(&s, cache_results, sizeof(cache_results) / sizeof(cache_results[0]));
		if (result < 0 || *s)
			return false;
	}
	if (op < 0) {
		if (result != PERF_COUNT_HW_CACHE_RESULT_MISS)
			return false;
		op = PERF_COUNT_HW_CACHE_OP_READ; /* "L1-dcache-misses": read misses, as perf has it
						   */
	}
	enc->attr.type = PERF_TYPE_HW_CACHE;
	enc->attr.config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
found:
	snprintf(enc->pmu, sizeof(enc->pmu), "perf");
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
	enc->hardware = enc->attr.type != PERF_TYPE_SOFTWARE;
	return true;
}

/* "r1b7" or "r1b7:config1=0x10001" */
static int encode_raw(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		      char *err, size_t errlen)
{
	char code[32];
	const char *colon = strchr(spec, ':');
	size_t clen = colon ? (size_t)(colon - spec - 1) : strlen(spec + 1);
	if (clen == 0 || clen >= sizeof(code)) {
		snprintf(err, errlen, "bad raw event \"%s\" (expected rHEX)", spec);
		return -1;
	}
	memcpy(code, spec + 1, clen);
	code[clen] = '\0';
	char *end;
	errno = 0;
	unsigned long long config = strtoull(code, &end, 16);
	if (errno || *end || !isxdigit((unsigned char)code[0])) {
		snprintf(err, errlen, "bad raw event \"%s\" (expected rHEX)", spec);
		return -1;
	}
	enc->attr.type = ctx->core_pmu_type > 0 ? (uint32_t)ctx->core_pmu_type : PERF_TYPE_RAW;
	enc->attr.config = config;
	if (colon) {
		uint64_t v;
		if (strncmp(colon + 1, "config1=", 8) != 0 || parse_u64(colon + 9, &v) < 0) {
			snprintf(err, errlen,
				 "bad raw event modifier \"%s\" (expected :config1=VALUE)",
				 colon + 1);
			return -1;
		}
		enc->attr.config1 = v;
	}
	snprintf(enc->pmu, sizeof(enc->pmu), "raw");
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", spec);
	enc->hardware = true;
	return 0;
}

/* Does this libpfm4 build have the PMU model @model ("skl", "arm_ac53")? libpfm4 is built
 * with the tables of its own architecture only. */
static bool has_model(const char *model)
{
	char err[64];
	pfm_pmu_t p;
	if (encode_init(err, sizeof(err)) < 0)
		return false;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pi = {.size = sizeof(pi)};
		if (pfm.get_pmu_info(p, &pi) == PFM_SUCCESS && strcmp(pi.name, model) == 0)
			return true;
	}
	return false;
}

bool encode_model_missing(const char *spec, const struct pmu_family *family, char *model,
			  size_t len)
{
	const char *sep = strstr(spec, "::");
	if (!sep)
		return false;
	if (strncmp(spec, "@::", 3) == 0) {
		if (!family || !family->pfm_model)
			return false;
		snprintf(model, len, "%s", family->pfm_model);
	} else {
		snprintf(model, len, "%.*s", (int)(sep - spec), spec);
	}
	return !has_model(model);
}

static int encode_pfm(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		      char *err, size_t errlen)
{
	char name[256];
	if (strncmp(spec, "@::", 3) == 0) {
		if (!ctx->family || !ctx->family->pfm_model) {
			snprintf(err, errlen,
				 "\"%s\" needs a libpfm4 model, but family %s has none", spec,
				 ctx->family ? ctx->family->key : "(none)");
			return -1;
		}
		snprintf(name, sizeof(name), "%s::%s", ctx->family->pfm_model, spec + 3);
	} else {
		snprintf(name, sizeof(name), "%s", spec);
	}
	if (encode_init(err, errlen) < 0)
		return -1;
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg = {.size = sizeof(arg), .attr = &enc->attr, .fstr = &fstr};
	enc->attr.size = sizeof(enc->attr);
	int ret = pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	char model[32];
	if (ret != PFM_SUCCESS && encode_model_missing(name, NULL, model, sizeof(model))) {
		snprintf(err, errlen,
			 "\"%s\": libpfm4 here has no %s tables (it is built with its own "
			 "architecture's models only)",
			 name, model);
		free(fstr);
		return -1;
	}
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "unknown event \"%s\": %s", name, pfm.strerror(ret));
		free(fstr);
		return -1;
	}
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", fstr ? fstr : name);
	free(fstr);
	const char *sep = strstr(enc->fstr, "::");
	size_t plen = sep ? (size_t)(sep - enc->fstr) : 0;
	if (plen >= sizeof(enc->pmu))
		plen = sizeof(enc->pmu) - 1;
	memcpy(enc->pmu, enc->fstr, plen);
	enc->pmu[plen] = '\0';
	enc->hardware =
	    enc->attr.type != PERF_TYPE_SOFTWARE && enc->attr.type != PERF_TYPE_TRACEPOINT;
	if (enc->attr.type == PERF_TYPE_RAW && ctx->core_pmu_type > 0)
		enc->attr.type = (uint32_t)ctx->core_pmu_type;
	return 0;
}

/* perf's event modifiers "u", "k", "h", "G", "H", "I", "p" ("uk", "pp") at @end of a spec:
 * after the last '/' of PMU/terms/, or after the last ':' of a generic or raw name (libpfm4
 * names take theirs through libpfm4). Returns the modifier text's offset, or -1 if none. */
static int split_modifiers(const char *spec)
{
	const char *m = NULL;
	if (strstr(spec, "::"))
		return -1;
	const char *last_slash = strrchr(spec, '/');
	if (last_slash && strchr(spec, '/') != last_slash)
		m = last_slash + 1;
	else if (!last_slash && strrchr(spec, ':'))
		m = strrchr(spec, ':') + 1;
	if (!m || !*m)
		return -1;
	if (strspn(m, "ukhGHIp") != strlen(m))
		return -1;
	return (int)(m - spec);
}

/* Applies modifiers as perf does: any of u/k/h counts only those levels; G/H only guest/host. */
static int apply_modifiers(struct perf_event_attr *a, const char *mods, char *err, size_t errlen)
{
	bool u = strchr(mods, 'u'), k = strchr(mods, 'k'), h = strchr(mods, 'h');
	bool G = strchr(mods, 'G'), H = strchr(mods, 'H');
	if (u || k || h) {
		a->exclude_user = !u;
		a->exclude_kernel = !k;
		a->exclude_hv = !h;
	}
	if (G || H) {
		a->exclude_host = !H;
		a->exclude_guest = !G;
	}
	if (strchr(mods, 'I'))
		a->exclude_idle = 1;
	unsigned precise = a->precise_ip;
	for (const char *p = mods; *p; p++)
		precise += *p == 'p';
	if (precise > 3) {
		snprintf(err, errlen, "at most three p modifiers (precise_ip 0..3)");
		return -1;
	}
	a->precise_ip = precise;
	return 0;
}

int event_encode(const char *spec, const struct encode_ctx *ctx, struct event_encoding *enc,
		 char *err, size_t errlen)
{
	memset(enc, 0, sizeof(*enc));
	enc->attr.size = sizeof(enc->attr);
	enc->errpos = -1;
	const char *orig = spec;
	while (isspace((unsigned char)*spec))
		spec++;
	int lead = (int)(spec - orig);
	if (!*spec) {
		enc->errpos = 0;
		snprintf(err, errlen, "empty event name");
		return -1;
	}
	if (strncmp(spec, "proc/", 5) == 0)
		return encode_proc(spec, enc, err, errlen);
	char base[sizeof(enc->fstr) - 8], mods[16] = "";
	snprintf(base, sizeof(base), "%s", spec);
	int mpos = split_modifiers(base);
	if (mpos >= 0) {
		snprintf(mods, sizeof(mods), "%s", base + mpos);
		base[mpos - (base[mpos - 1] == ':')] = '\0';
	}
	int rc;
	if (strchr(base, '/'))
		rc = encode_sysfs(base, ctx, enc, err, errlen);
	else if (base[0] == 'r' && strspn(base + 1, "0123456789abcdefABCDEF") > 0 &&
		 (base[1 + strspn(base + 1, "0123456789abcdefABCDEF")] == '\0' ||
		  base[1 + strspn(base + 1, "0123456789abcdefABCDEF")] == ':'))
		rc = encode_raw(base, ctx, enc, err, errlen);
	else if ((rc = encode_pfm(base, ctx, enc, err, errlen)) < 0 && !strstr(base, "::")) {
		struct event_encoding g;
		memset(&g, 0, sizeof(g));
		g.attr.size = sizeof(g.attr);
		if (encode_generic(base, &g)) {
			*enc = g;
			rc = 0;
		} else {
			enc->errpos = 0;
		}
	}
	if (rc < 0) {
		if (enc->errpos >= 0)
			enc->errpos += lead;
		return -1;
	}
	enc->attr.size = sizeof(enc->attr);
	/* PMUs without privilege filtering (msr, XScale, several ARM PMUs) reject any exclude bit.
	 */
	bool core_raw = enc->attr.type == PERF_TYPE_RAW || enc->attr.type == PERF_TYPE_HARDWARE ||
			enc->attr.type == PERF_TYPE_HW_CACHE ||
			(ctx->core_pmu_type > 0 && enc->attr.type == (uint32_t)ctx->core_pmu_type);
	bool sysfs_nonfilter = strchr(base, '/') && !enc->hardware;
	/* the base encoding's own exclude bits (libpfm4 sets exclude_hv) go first, also when a
	 * modifier follows: one that filters is refused below, a precise 'p' keeps them clear */
	if (sysfs_nonfilter || (core_raw && !ctx->filters_priv))
		clear_excludes(&enc->attr);
	if (mods[0]) {
		if ((sysfs_nonfilter || (core_raw && !ctx->filters_priv)) &&
		    strpbrk(mods, "ukhGHI")) {
			enc->errpos = lead + mpos;
			snprintf(err, errlen,
				 "modifier \"%s\": %s cannot filter privilege levels or guests",
				 mods, enc->pmu[0] ? enc->pmu : "this PMU");
			return -1;
		}
		if (apply_modifiers(&enc->attr, mods, err, errlen) < 0) {
			enc->errpos = lead + mpos;
			return -1;
		}
		size_t u = strlen(enc->fstr);
		snprintf(enc->fstr + u, sizeof(enc->fstr) - u, "%s%s", strchr(base, '/') ? "" : ":",
			 mods);
		return 0;
	}
	return 0;
}

void encode_format(const struct event_encoding *enc, char *buf, size_t len)
{
	const struct perf_event_attr *a = &enc->attr;
	if (enc->procfs) {
		snprintf(buf, len, "/proc/stat field %s (no perf event)",
			 proc_fields[a->config < 3 ? a->config : 0]);
		return;
	}
	char ex[64] = "";
	static const struct {
		const char *name;
		int bit;
	} bits[] = {{"user", 0}, {"kernel", 1}, {"hv", 2}, {"idle", 3}, {"host", 4}, {"guest", 5}};
	int flags[] = {a->exclude_user, a->exclude_kernel, a->exclude_hv,
		       a->exclude_idle, a->exclude_host,   a->exclude_guest};
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (flags[bits[i].bit]) {
			size_t u = strlen(ex);
			snprintf(ex + u, sizeof(ex) - u, "%s%s", u ? "," : "", bits[i].name);
		}
	snprintf(buf, len, "type=%u config=%#llx config1=%#llx%s%s", a->type,
		 (unsigned long long)a->config, (unsigned long long)a->config1,
		 ex[0] ? " exclude=" : " exclude=none", ex);
}

struct suggest_state {
	const char *bad;
	const char *model; /* only this pmu (and perf) */
	char (*out)[96];
	int dist[16];
	int n, max;
};

static void suggest_one(void *arg, const char *pmu, const char *event, const char *desc,
			bool present)
{
	(void)desc;
	(void)present;
	struct suggest_state *s = arg;
	if (strcmp(pmu, "perf") != 0 && (!s->model || strcmp(pmu, s->model) != 0))
		return;
	const char *bad = s->bad;
	const char *sep = strstr(bad, "::");
	if (sep)
		bad = sep + 2;
	char upper[96];
	size_t k = 0;
	for (; bad[k] && bad[k] != ':' && k < sizeof(upper) - 1; k++)
		upper[k] = bad[k];
	upper[k] = '\0';
	int d = text_distance(upper, event, 1);
	if (d > 3 + (int)strlen(upper) / 4)
		return;
	char name[96];
	snprintf(name, sizeof(name), "%s::%s", pmu, event);
	int pos = s->n < s->max ? s->n : s->max;
	while (pos > 0 && s->dist[pos - 1] > d)
		pos--;
	if (pos >= s->max)
		return;
	int last = s->n < s->max ? s->n : s->max - 1;
	for (int i = last; i > pos; i--) {
		memcpy(s->out[i], s->out[i - 1], sizeof(s->out[0]));
		s->dist[i] = s->dist[i - 1];
	}
	snprintf(s->out[pos], sizeof(s->out[0]), "%s", name);
	s->dist[pos] = d;
	if (s->n < s->max)
		s->n++;
}

int encode_suggest(const char *bad, const struct encode_ctx *ctx, char (*out)[96], int max)
{
	struct suggest_state s = {.bad = bad, .out = out, .max = max > 16 ? 16 : max};
	if (ctx && ctx->family && ctx->family->pfm_model)
		s.model = ctx->family->pfm_model;
	char model[64];
	const char *sep = strstr(bad, "::");
	if (sep && (size_t)(sep - bad) < sizeof(model)) {
		memcpy(model, bad, (size_t)(sep - bad));
		model[sep - bad] = '\0';
		s.model = model;
	}
	encode_list(NULL, true, suggest_one, &s);
	return s.n;
}

/* A glob ("skl::INST*", "*MISS*") matches "PMU::EVENT" or the event name, case ignored; any
 * other pattern is a substring of either. */
static bool list_match(const char *pattern, const char *pmu, const char *event)
{
	if (!strpbrk(pattern, "*?["))
		return strcasestr(event, pattern) || strcasestr(pmu, pattern);
	char full[256];
	snprintf(full, sizeof(full), "%s::%s", pmu, event);
	return fnmatch(pattern, full, FNM_CASEFOLD) == 0 ||
	       fnmatch(pattern, event, FNM_CASEFOLD) == 0;
}

void encode_list(const char *pattern, bool all, encode_list_fn fn, void *arg)
{
	char err[128];
	if (encode_init(err, sizeof(err)) < 0)
		return;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pi = {.size = sizeof(pi)};
		if (pfm.get_pmu_info(p, &pi) != PFM_SUCCESS)
			continue;
		if (!all && !pi.is_present)
			continue;
		if (pi.type != PFM_PMU_TYPE_CORE && pi.type != PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm.get_event_next(i)) {
			pfm_event_info_t ei = {.size = sizeof(ei)};
			if (pfm.get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			if (pattern && !list_match(pattern, pi.name, ei.name))
				continue;
			fn(arg, pi.name, ei.name, ei.desc ? ei.desc : "", pi.is_present);
		}
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* platform.c: PMUs, CPU sets, core types and privileges from sysfs/procfs under a root prefix. */
#include "platform.h"
#include "linereader.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define EVENT_SOURCE "/sys/bus/event_source/devices"
#define CPU_DIR "/sys/devices/system/cpu"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

// clang-format off
/* ARM "CPU implementer" codes -> vendor names (MIDR bits 31:24). */
static const struct {
	unsigned code;
	const char *name;
} arm_implementers[] = {
	{0x41, "ARM"},      {0x42, "Broadcom"}, {0x43, "Cavium"},  {0x46, "Fujitsu"},
	{0x48, "HiSilicon"}, {0x4e, "NVIDIA"},  {0x51, "Qualcomm"}, {0x61, "Apple"},
	{0x69, "Intel"},    {0xc0, "Ampere"},   {0, NULL},
};

/* x86 vendor_id -> family key when the cpu PMU has no (known) caps/pmu_name. */
static const struct {
	const char *vendor;
	int min_family, max_family; /* cpuinfo "cpu family" range, inclusive */
	int min_model, max_model;   /* cpuinfo "model" range, inclusive */
	const char *key;
} x86_vendor_families[] = {
	/* Zen 4 (family 0x19: Genoa 0x10-0x1f, Raphael/Phoenix 0x60-0x7f, Bergamo/Siena 0xa0-0xaf);
	 * the other family 0x19 models are Zen 3 (perf's x86/mapfile.csv: amdzen3). Family 0x17
	 * (Zen, Zen+, Zen 2; perf's amdzen1 and amdzen2) shares one table. Family 0x1a (Zen 5)
	 * has no table here: perf's generic events. */
	{"AuthenticAMD", 0x19, 0x19, 0x10, 0x1f, "zen4"},
	{"AuthenticAMD", 0x19, 0x19, 0x60, 0x7f, "zen4"},
	{"AuthenticAMD", 0x19, 0x19, 0xa0, 0xaf, "zen4"},
	{"AuthenticAMD", 0x19, 0x19, -1, 0xff, "zen3"},
	{"AuthenticAMD", 0x17, 0x17, -1, 0xff, "zen"},
	{"HygonGenuine", 0x18, 0x18, -1, 0xff, "zen"},
	{"AuthenticAMD", 0, 0xff, -1, 0xff, "amd"},
	{"GenuineIntel", 0, 0xff, -1, 0xff, "intel"},
	{NULL, 0, 0, 0, 0, NULL},
};
// clang-format on

/* Builds <root><fmt...> into @buf; returns @buf. */
static char *pf_path(const struct platform *pf, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	n = (size_t)snprintf(buf, len, "%s", pf->root);
	if (n >= len)
		n = len - 1;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return buf;
}

/* Replaces control characters so file contents can never drive a terminal. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)*p))
		p++;
	if (p != s)
		memmove(s, p, strlen(p) + 1);
}

/* Reads a small file, trimmed and sanitized. Returns 0, or -1 (errno set). */
static int read_text(const char *path, char *buf, size_t len)
{
	if (lr_read_small(path, buf, len) < 0)
		return -1;
	trim(buf);
	sanitize(buf);
	return 0;
}

static int read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 0);
	if (errno || end == buf || *end)
		return -1;
	return 0;
}

static int read_cpuset(const char *path, struct cpuset *s)
{
	char buf[8192], e[128];

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	if (cpuset_parse(s, buf, e, sizeof(e)) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int last_cpu(const struct cpuset *s)
{
	int last = -1;

	for (int cpu = cpuset_next(s, 0); cpu >= 0; cpu = cpuset_next(s, cpu + 1))
		last = cpu;
	return last;
}

/* ---- /proc/cpuinfo ---- */

static void copy_str(char *dst, size_t len, const char *src) { snprintf(dst, len, "%s", src); }

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += wl)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[wl] == 0 || isspace((unsigned char)p[wl])))
			return true;
	return false;
}

/* Reads the first occurrence of each field of interest (libpfm4 also uses CPU0's lines). */
static void read_cpuinfo(struct platform *pf)
{
	char path[4400], line[4096], err[256];
	bool got_impl = false, got_part = false, got_flags = false, got_variant = false,
	     got_revision = false;
	unsigned long variant = 0, revision = 0;
	const char *text;
	size_t len;
	/* non-blocking: a FIFO in a test tree gives what it has and never hangs */
	struct linereader *lr = lr_open(pf_path(pf, path, sizeof(path), "/proc/cpuinfo"),
					LR_TEXT_LINE_MAX, LR_NONBLOCK, err, sizeof(err));

	if (!lr)
		return;
	while (lr_next(lr, &text, &len, err, sizeof(err)) == LR_LINE) {
		snprintf(line, sizeof(line), "%s", text);
		char *colon = strchr(line, ':'), *key = line, *val;

		if (!colon)
			continue;
		*colon = 0;
		val = colon + 1;
		trim(key);
		trim(val);
		sanitize(val);
		if (strcmp(key, "vendor_id") == 0 && !pf->cpu_vendor[0])
			copy_str(pf->cpu_vendor, sizeof(pf->cpu_vendor), val);
		else if (strcmp(key, "cpu family") == 0 && pf->cpu_family < 0)
			pf->cpu_family = atoi(val);
		else if (strcmp(key, "model") == 0 && pf->cpu_model < 0)
			pf->cpu_model = atoi(val);
		else if (strcmp(key, "stepping") == 0 && pf->cpu_stepping < 0)
			pf->cpu_stepping = atoi(val);
		else if (strcmp(key, "CPU variant") == 0 && !got_variant)
			variant = strtoul(val, NULL, 0), got_variant = true;
		else if (strcmp(key, "CPU revision") == 0 && !got_revision)
			revision = strtoul(val, NULL, 0), got_revision = true;
		else if ((strcmp(key, "model name") == 0 || strcmp(key, "Processor") == 0) &&
			 !pf->cpu_model_name[0])
			copy_str(pf->cpu_model_name, sizeof(pf->cpu_model_name), val);
		else if (strcmp(key, "CPU implementer") == 0 && !got_impl)
			pf->arm_implementer = (unsigned)strtoul(val, NULL, 0), got_impl = true;
		else if (strcmp(key, "CPU part") == 0 && !got_part)
			pf->arm_part = (unsigned)strtoul(val, NULL, 0), got_part = true;
		else if (strcmp(key, "flags") == 0 && !got_flags) {
			got_flags = true;
			if (has_word(val, "hypervisor"))
				pf->hypervisor = true;
		}
	}
	lr_close(lr);
	if (got_impl && got_part) /* MIDR as cpuinfo spells it; architecture 0xf = "CPUID scheme" */
		pf->arm_midr = (unsigned long long)(pf->arm_implementer & 0xff) << 24 |
			       (unsigned long long)(variant & 0xf) << 20 | 0xfULL << 16 |
			       (unsigned long long)(pf->arm_part & 0xfff) << 4 | (revision & 0xf);
}

/* MIDR of the first online CPU; the implementer and part from it where cpuinfo had none. */
static void read_midr(struct platform *pf)
{
	char path[4400], buf[64];
	unsigned long long midr;
	int cpu = cpuset_next(&pf->online, 0);

	if (cpu < 0)
		return;
	pf_path(pf, path, sizeof(path), CPU_DIR "/cpu%d/regs/identification/midr_el1", cpu);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return;
	midr = strtoull(buf, NULL, 0);
	pf->arm_midr = midr;
	if (pf->arm_implementer)
		return;
	pf->arm_implementer = (unsigned)(midr >> 24) & 0xff;
	pf->arm_part = (unsigned)(midr >> 4) & 0xfff;
}

static void fill_vendor(struct platform *pf)
{
	if (pf->cpu_vendor[0] || !pf->arm_implementer)
		return;
	for (size_t i = 0; arm_implementers[i].name; i++)
		if (arm_implementers[i].code == pf->arm_implementer)
			copy_str(pf->cpu_vendor, sizeof(pf->cpu_vendor), arm_implementers[i].name);
	if (!pf->cpu_vendor[0])
		snprintf(pf->cpu_vendor, sizeof(pf->cpu_vendor), "ARM implementer 0x%02x",
			 pf->arm_implementer);
}

/* ---- caches ---- */

static unsigned parse_size_kb(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end == 'K')
		return (unsigned)v;
	if (*end == 'M')
		return (unsigned)(v * 1024);
	if (*end == 'G')
		return (unsigned)(v * 1024 * 1024);
	return (unsigned)(v / 1024);
}

static void read_caches(struct platform *pf)
{
	char path[4400], buf[64];
	int cpu = cpuset_next(&pf->online, 0);
	long v;

	for (int i = 0; cpu >= 0 && pf->ncaches < PLATFORM_MAX_CACHES; i++) {
		struct platform_cache *c = &pf->caches[pf->ncaches];
		const char *dir = CPU_DIR "/cpu%d/cache/index%d/%s";

		if (read_long(pf_path(pf, path, sizeof(path), dir, cpu, i, "level"), &v) < 0)
			break;
		memset(c, 0, sizeof(*c));
		c->level = (int)v;
		if (read_text(pf_path(pf, path, sizeof(path), dir, cpu, i, "type"), c->type,
			      sizeof(c->type)) < 0)
			c->type[0] = 0;
		if (read_text(pf_path(pf, path, sizeof(path), dir, cpu, i, "size"), buf,
			      sizeof(buf)) == 0)
			c->size_kb = parse_size_kb(buf);
		if (read_long(pf_path(pf, path, sizeof(path), dir, cpu, i, "coherency_line_size"),
			      &v) == 0)
			c->line_size = (unsigned)v;
		pf->ncaches++;
	}
}

/* ---- PMUs ---- */

static bool pmu_name_is_core(const char *name)
{
	return strcmp(name, "cpu") == 0 || strcmp(name, "cpu_core") == 0 ||
	       strcmp(name, "cpu_atom") == 0 || family_from_pmu_name(name) != NULL;
}

static const struct pmu_family *x86_vendor_family(const struct platform *pf)
{
	for (size_t i = 0; x86_vendor_families[i].vendor; i++)
		if (strcmp(pf->cpu_vendor, x86_vendor_families[i].vendor) == 0 &&
		    pf->cpu_family >= x86_vendor_families[i].min_family &&
		    pf->cpu_family <= x86_vendor_families[i].max_family &&
		    pf->cpu_model >= x86_vendor_families[i].min_model &&
		    pf->cpu_model <= x86_vendor_families[i].max_model)
			return family_find(x86_vendor_families[i].key);
	return family_find("generic");
}

/* The Arm core family of the first CPU of @cpus: its midr_el1, else the MIDR cpuinfo gave
 * when every CPU is the same core (one core PMU); NULL if the part has no table. */
static const struct pmu_family *arm_core_family(const struct platform *pf,
						const struct cpuset *cpus)
{
	char path[4400], buf[64];
	int cpu = cpuset_next(cpus, 0);

	if (cpu >= 0 && read_text(pf_path(pf, path, sizeof(path),
					  CPU_DIR "/cpu%d/regs/identification/midr_el1", cpu),
				  buf, sizeof(buf)) == 0) {
		unsigned long long midr = strtoull(buf, NULL, 0);
		return family_from_midr((unsigned)(midr >> 24) & 0xff,
					(unsigned)(midr >> 4) & 0xfff);
	}
	return pf->core_pmu_count <= 1 ? family_from_midr(pf->arm_implementer, pf->arm_part) : NULL;
}

static const struct pmu_family *core_pmu_family(const struct platform *pf,
						const struct platform_pmu *p)
{
	const struct pmu_family *fam = NULL;

	if (strcmp(p->name, "cpu_core") == 0 || strcmp(p->name, "cpu_atom") == 0)
		return family_find("generic"); /* libpfm4 4.13 has no hybrid models */
	if (strcmp(p->name, "cpu") == 0) {
		/* the kernel drives only the architectural events of a model it does not know */
		if (strncmp(p->caps_pmu_name, "generic_arch", 12) == 0)
			return family_find("intel");
		/* the CPU model first, as the kernel and perf's mapfile.csv; caps/pmu_name confirms
		 */
		fam = family_from_x86_model(pf->cpu_vendor, pf->cpu_family, pf->cpu_model, NULL);
		if (!fam && p->caps_pmu_name[0])
			fam = family_from_caps_name(p->caps_pmu_name);
		return fam ? fam : x86_vendor_family(pf);
	}
	fam = family_from_pmu_name(p->name);
	return fam ? fam : family_find("generic");
}

/* Path of <root>/sys/bus/event_source/devices/<pmu>/<file>; returns @buf. */
static char *pmu_file(const struct platform *pf, char *buf, size_t len, const char *pmu,
		      const char *file)
{
	return pf_path(pf, buf, len, EVENT_SOURCE "/%s/%s", pmu, file);
}

static int read_int_or(const char *path, int fallback)
{
	long v;

	return read_long(path, &v) == 0 ? (int)v : fallback;
}

/* The "event=0xNN" codes in <pmu>/events/ (ARMv8: the common events PMCEID reports). Files
 * with other terms are skipped; at most PLATFORM_MAX_LISTED are kept. */
static void read_listed_events(const struct platform *pf, struct platform_pmu *p)
{
	char path[4400], buf[64];
	struct dirent *de;
	DIR *d = opendir(pmu_file(pf, path, sizeof(path), p->name, "events"));

	if (!d)
		return;
	p->has_events_dir = true;
	while ((de = readdir(d)) && p->nlisted < PLATFORM_MAX_LISTED) {
		char file[320], *end;
		unsigned long code;

		if (de->d_name[0] == '.' || strlen(de->d_name) > 200)
			continue;
		snprintf(file, sizeof(file), "events/%s", de->d_name);
		if (read_text(pmu_file(pf, path, sizeof(path), p->name, file), buf, sizeof(buf)) <
			0 ||
		    strncmp(buf, "event=", 6) != 0)
			continue;
		errno = 0;
		code = strtoul(buf + 6, &end, 0);
		if (errno || end == buf + 6 || *end || code > 0xffff)
			continue;
		p->listed[p->nlisted++] = (unsigned short)code;
	}
	closedir(d);
}

static void read_pmu(struct platform *pf, struct platform_pmu *p, const char *name)
{
	char path[4400];
	size_t len = sizeof(path);

	memset(p, 0, sizeof(*p));
	copy_str(p->name, sizeof(p->name), name);
	sanitize(p->name);
	p->type = read_int_or(pmu_file(pf, path, len, name, "type"), -1);
	if (read_cpuset(pmu_file(pf, path, len, name, "cpus"), &p->cpus) < 0 &&
	    read_cpuset(pmu_file(pf, path, len, name, "cpumask"), &p->cpus) < 0)
		p->cpus = pf->possible;
	if (read_text(pmu_file(pf, path, len, name, "caps/pmu_name"), p->caps_pmu_name,
		      sizeof(p->caps_pmu_name)) < 0)
		p->caps_pmu_name[0] = 0;
	p->mux_interval_ms =
	    read_int_or(pmu_file(pf, path, len, name, "perf_event_mux_interval_ms"), -1);
	p->is_core = pmu_name_is_core(name);
	if (!p->is_core)
		return;
	p->family = core_pmu_family(pf, p);
	p->num_counters = read_int_or(pmu_file(pf, path, len, name, "caps/num_counters"),
				      p->family ? p->family->counters : 0);
	p->has_long = path_exists(pmu_file(pf, path, len, name, "format/long"));
	int slots = read_int_or(pmu_file(pf, path, len, name, "caps/slots"), 0);
	p->slots = slots > 0 && slots <= PLATFORM_MAX_SLOTS ? (unsigned)slots : 0;
	read_listed_events(pf, p);
	int cpu = cpuset_next(&p->cpus, 0);
	long khz;
	if (cpu >= 0 &&
	    read_long(pf_path(pf, path, len, CPU_DIR "/cpu%d/cpufreq/cpuinfo_max_freq", cpu),
		      &khz) == 0 &&
	    khz > 0 && khz < 100000000)
		p->max_khz = (unsigned)khz;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_pmus(struct platform *pf)
{
	char path[4400], **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(pf_path(pf, path, sizeof(path), EVENT_SOURCE));
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(pf->pmus[0].name))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 32) * sizeof(*names));

			if (!nn)
				break;
			names = nn;
			cap = cap ? cap * 2 : 32;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	/* Core PMUs first so that dozens of uncore PMUs can never push them out. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (pmu_name_is_core(names[i]) != (pass == 0))
				continue;
			if (pf->npmus == PLATFORM_MAX_PMUS) {
				pf->pmus_dropped++;
				continue;
			}
			read_pmu(pf, &pf->pmus[pf->npmus], names[i]);
			if (pf->pmus[pf->npmus].is_core)
				pf->core_pmu_count++;
			pf->npmus++;
		}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* armv8_pmuv3 names no core: its CPUs' MIDR does (per-core tables win over generic) */
	for (int i = 0; i < pf->npmus; i++) {
		struct platform_pmu *p = &pf->pmus[i];
		const struct pmu_family *core;
		if (p->is_core && p->family && strcmp(p->family->key, "armv8") == 0 &&
		    (core = arm_core_family(pf, &p->cpus)))
			p->family = core;
	}
	/* Core PMUs in CPU order: cpu_core (0-3) before cpu_atom (4-7), LITTLE before big. */
	for (int i = 1; i < pf->core_pmu_count; i++)
		for (int j = i; j > 0 && cpuset_next(&pf->pmus[j].cpus, 0) <
					     cpuset_next(&pf->pmus[j - 1].cpus, 0);
		     j--) {
			struct platform_pmu t = pf->pmus[j];

			pf->pmus[j] = pf->pmus[j - 1];
			pf->pmus[j - 1] = t;
		}
}

/* ---- privileges, system identity ---- */

static void read_live_caps(struct platform *pf)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	pf->is_root = geteuid() == 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CapEff:", 7) == 0) {
			unsigned long long caps = strtoull(line + 7, NULL, 16);

			pf->cap_perfmon =
			    (caps >> CAP_PERFMON_BIT & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);
			break;
		}
	}
	fclose(f);
}

static void read_identity(struct platform *pf)
{
	char path[4400];
	struct utsname u;

	if (!pf->root[0]) {
		if (uname(&u) == 0) {
			copy_str(pf->hostname, sizeof(pf->hostname), u.nodename);
			copy_str(pf->kernel, sizeof(pf->kernel), u.release);
			sanitize(pf->hostname);
			sanitize(pf->kernel);
		}
		return;
	}
	if (read_text(pf_path(pf, path, sizeof(path), "/proc/sys/kernel/hostname"), pf->hostname,
		      sizeof(pf->hostname)) < 0)
		pf->hostname[0] = 0;
	if (read_text(pf_path(pf, path, sizeof(path), "/proc/sys/kernel/osrelease"), pf->kernel,
		      sizeof(pf->kernel)) < 0)
		pf->kernel[0] = 0;
}

/* ---- capability summary ---- */

/* perf_event_paranoid per scope (kernel perf_allow_cpu, perf_allow_kernel, perf_allow_tracepoint;
 * 3 and above, a distribution patch, allow no unprivileged use at all). */
static const struct {
	int level;	  /* highest level that allows the scope */
	const char *what; /* the scope in a sentence */
} perf_scopes[] = {
    [PERF_SCOPE_CPU] = {0, "per-CPU system-wide counting"},
    [PERF_SCOPE_TASK_USER] = {2, "per-task user-space counting"},
    [PERF_SCOPE_TASK_KERNEL] = {1, "per-task kernel counting"},
    [PERF_SCOPE_TRACEPOINT] = {-1, "tracepoint counting"},
};

int platform_paranoid_needed(enum perf_scope scope)
{
	return perf_scopes[scope <= PERF_SCOPE_TRACEPOINT ? scope : PERF_SCOPE_CPU].level;
}

int platform_permission_text(int paranoid, bool is_root, bool cap_perfmon, enum perf_scope scope,
			     bool denied, char *buf, size_t len)
{
	if (scope > PERF_SCOPE_TRACEPOINT)
		scope = PERF_SCOPE_CPU;
	const char *what = perf_scopes[scope].what;
	int need = perf_scopes[scope].level;
	const char *elsewhere = denied
				    ? "; a denial comes from a security policy (SELinux, AppArmor, "
				      "lockdown) or a container"
				    : "";
	char is[48];
	if (is_root || cap_perfmon)
		return snprintf(buf, len, "%s allowed (%s)%s", what,
				is_root ? "root" : "CAP_PERFMON", elsewhere);
	if (paranoid != -99 && paranoid <= need)
		return snprintf(buf, len, "%s allowed (perf_event_paranoid=%d)%s", what, paranoid,
				elsewhere);
	if (paranoid == -99)
		snprintf(is, sizeof(is), "not readable here");
	else
		snprintf(is, sizeof(is), "it is %d%s", paranoid,
			 paranoid >= 3 ? ", no unprivileged use at all" : "");
	return snprintf(
	    buf, len,
	    "%s needs perf_event_paranoid <= %d (%s) or CAP_PERFMON: sysctl "
	    "kernel.perf_event_paranoid=%d, or run as root, or setcap cap_perfmon+ep pmutop",
	    what, need, is, need);
}

int platform_permission_hint(const struct platform *pf, enum perf_scope scope, bool denied,
			     char *buf, size_t len)
{
	return platform_permission_text(pf->paranoid, pf->is_root, pf->cap_perfmon, scope, denied,
					buf, len);
}

static void note(struct platform *pf, const char *fmt, ...)
{
	va_list ap;

	if (pf->nnotes == PLATFORM_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(pf->notes[pf->nnotes++], sizeof(pf->notes[0]), fmt, ap);
	va_end(ap);
}

static void note_counters(char *buf, size_t len, const struct platform_pmu *p, int fixed)
{
	const char *how = p->counters_probed ? ", probed" : "";

	if (p->num_counters <= 0)
		buf[0] = 0;
	else if (fixed > 0)
		snprintf(buf, len, " (%d counters + %d fixed%s)", p->num_counters, fixed, how);
	else
		snprintf(buf, len, " (%d counters%s)", p->num_counters, how);
}

/* Width (bits) of the programmable counters of @p as the hardware wraps them (32 on ARMv6,
 * ARMv7, ARMv8 without format/long, XScale). */
static unsigned platform_counter_bits(const struct platform_pmu *p)
{
	return p->family && p->family->counter_bits ? p->family->counter_bits : 64;
}

static void note_pmu(struct platform *pf)
{
	const struct platform_pmu *core = NULL;
	char cnt[64], set[256], list[320] = "";
	const struct pmu_family *fam = pf->family;

	if (pf->core_pmu_count == 0) {
		if (pf->arm_implementer == 0x69)
			note(pf,
			     "hardware counters unavailable: Intel XScale CPU (implementer 0x69) "
			     "but the kernel registered no armv5_xscale PMU (no xscale-pmu device "
			     "for this board); showing software events");
		else if (pf->arm_implementer)
			note(pf,
			     "hardware counters unavailable: no armv7_*/armv8_* PMU in %s (%s); "
			     "showing software events",
			     EVENT_SOURCE,
			     pf->hypervisor ? "virtual machine without vPMU"
					    : "kernel or device tree registered none");
		else
			note(pf,
			     "hardware counters unavailable: no `cpu` PMU in %s (%s); showing "
			     "software events",
			     EVENT_SOURCE,
			     pf->hypervisor ? "virtual machine without vPMU"
					    : "kernel has no PMU driver for this CPU");
		return;
	}
	for (int i = 0; i < pf->npmus; i++)
		if (pf->pmus[i].is_core && !core)
			core = &pf->pmus[i];
	if (pf->hybrid) {
		size_t off = 0;

		for (int i = 0; i < pf->npmus && off < sizeof(list); i++)
			if (pf->pmus[i].is_core) {
				cnt[0] = 0;
				if (pf->arm_implementer)
					note_counters(cnt, sizeof(cnt), &pf->pmus[i],
						      pf->pmus[i].family->fixed);
				off += (size_t)snprintf(
				    list + off, sizeof(list) - off, "%s%s on %s%s", off ? ", " : "",
				    pf->pmus[i].name,
				    cpuset_format(&pf->pmus[i].cpus, set, sizeof(set)), cnt);
			}
		note(pf, "%s: %s", pf->arm_implementer ? "big.LITTLE" : "hybrid", list);
		if (!pf->arm_implementer) {
			note(pf,
			     "%s: libpfm4 has no hybrid model; perf generic events per core type",
			     core->caps_pmu_name[0] ? core->caps_pmu_name : "hybrid PMU");
			return;
		}
	}
	note_counters(cnt, sizeof(cnt), core, fam->fixed);
	if (strcmp(core->name, "cpu") == 0) {
		const char *want = NULL;
		bool by_model = family_from_x86_model(pf->cpu_vendor, pf->cpu_family, pf->cpu_model,
						      &want) != NULL;
		if (by_model && core->caps_pmu_name[0] &&
		    strncmp(core->caps_pmu_name, "generic_arch", 12) == 0)
			note(pf,
			     "%s PMU%s (caps/pmu_name `%s`: the kernel does not know CPU model "
			     "%#x, only architectural events)",
			     fam->desc, cnt, core->caps_pmu_name, (unsigned)pf->cpu_model);
		else if (by_model && core->caps_pmu_name[0] &&
			 strcasecmp(core->caps_pmu_name, want) != 0)
			note(pf,
			     "%s PMU%s (CPU model %#x; caps/pmu_name `%s` where the kernel writes "
			     "`%s` for it)",
			     fam->desc, cnt, (unsigned)pf->cpu_model, core->caps_pmu_name, want);
		else if (by_model)
			note(pf, "%s PMU%s (CPU model %#x%s%s%s)", fam->desc, cnt,
			     (unsigned)pf->cpu_model,
			     core->caps_pmu_name[0] ? ", caps/pmu_name `" : "", core->caps_pmu_name,
			     core->caps_pmu_name[0] ? "` agrees" : "");
		else if (core->caps_pmu_name[0] && !family_from_caps_name(core->caps_pmu_name))
			note(pf, "%s PMU%s (caps/pmu_name `%s` not in the family table)", fam->desc,
			     cnt, core->caps_pmu_name);
		else
			note(pf, "%s PMU%s", fam->desc, cnt);
		if (family_smt_variant(fam))
			note(pf, "SMT %s: top-down in per-thread clocks",
			     pf->smt == 0 ? "off" : "state unknown");
		else if (family_smt_variant(family_find(fam->parent)))
			note(pf,
			     "SMT on: top-down in per-core clocks (CPU_CLK_UNHALTED.THREAD_ANY / "
			     "2, perf's CORE_CLKS)");
	} else if (!pf->hybrid) { /* big.LITTLE: the core types note says it */
		note(pf, "%s PMU: %s%s", core->name, fam->desc, cnt);
	}
	if (platform_counter_bits(core) < 64) {
		char wrap[240];

		platform_wrap_note(core, pf->interval_ms, wrap, sizeof(wrap));
		note(pf, "%s%s", wrap,
		     fam->filters_priv ? "" : "; the PMU cannot separate user and kernel counts");
	}
}

void platform_describe(struct platform *pf)
{
	struct cpuset off;
	char set[256];
	size_t len = 0;
	int cpu;

	pf->nnotes = 0;
	note_pmu(pf);
	if (pf->nmi_watchdog == 1 && pf->core_pmu_count > 0)
		note(pf, "NMI watchdog holds one counter: echo 0 > /proc/sys/kernel/nmi_watchdog");
	if (pf->nnotes < PLATFORM_MAX_NOTES)
		platform_permission_hint(pf, PERF_SCOPE_CPU, false, pf->notes[pf->nnotes++],
					 sizeof(pf->notes[0]));
	cpuset_clear(&off);
	for (cpu = cpuset_next(&pf->possible, 0); cpu >= 0;
	     cpu = cpuset_next(&pf->possible, cpu + 1))
		if (!cpuset_has(&pf->online, cpu))
			cpuset_add(&off, cpu);
	if (cpuset_count(&off))
		note(pf, "CPU%s %s offline (counted once online)",
		     cpuset_count(&off) > 1 ? "s" : "", cpuset_format(&off, set, sizeof(set)));
	if (pf->pmus_dropped)
		note(pf, "%d more PMUs not listed", pf->pmus_dropped);

	pf->capability[0] = 0;
	for (int i = 0; i < pf->nnotes && len < sizeof(pf->capability); i++)
		len += (size_t)snprintf(pf->capability + len, sizeof(pf->capability) - len, "%s%s",
					i ? "; " : "", pf->notes[i]);
}

/* SMT from devices/system/cpu/smt/active, else the online CPUs' thread_siblings_list. */
static int read_smt(const struct platform *pf)
{
	char path[4400];
	struct cpuset sib;
	long v;
	int seen = 0;

	if (read_long(pf_path(pf, path, sizeof(path), CPU_DIR "/smt/active"), &v) == 0)
		return v != 0;
	for (int cpu = cpuset_next(&pf->online, 0); cpu >= 0;
	     cpu = cpuset_next(&pf->online, cpu + 1)) {
		if (read_cpuset(pf_path(pf, path, sizeof(path),
					CPU_DIR "/cpu%d/topology/thread_siblings_list", cpu),
				&sib) < 0)
			continue;
		if (cpuset_count(&sib) > 1)
			return 1;
		seen = 1;
	}
	return seen ? 0 : -1;
}

/* ---- public ---- */

int platform_detect(struct platform *pf, const char *root, char *err, size_t errlen)
{
	char path[4400];
	struct stat st;
	int cpu;

	memset(pf, 0, sizeof(*pf));
	if (!root || strcmp(root, "/") == 0)
		root = "";
	if (strlen(root) >= sizeof(pf->root)) {
		text_errorf(err, errlen, "sysfs root: path too long");
		return -1;
	}
	copy_str(pf->root, sizeof(pf->root), root);
	for (size_t n = strlen(pf->root); n > 0 && pf->root[n - 1] == '/'; n--)
		pf->root[n - 1] = 0;
	if (pf->root[0]) {
		if (stat(pf->root, &st) < 0) {
			text_errorf(err, errlen, "sysfs root %s: %s", pf->root, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			text_errorf(err, errlen, "sysfs root %s: not a directory", pf->root);
			return -1;
		}
	}
	errno = 0;
	if (read_cpuset(pf_path(pf, path, sizeof(path), CPU_DIR "/possible"), &pf->possible) < 0 ||
	    cpuset_count(&pf->possible) == 0) {
		text_errorf(err, errlen, "%s: %s (is %s a sysfs/procfs root?)", path,
			    errno ? strerror(errno) : "no CPUs", pf->root[0] ? pf->root : "/");
		return -1;
	}
	if (read_cpuset(pf_path(pf, path, sizeof(path), CPU_DIR "/online"), &pf->online) < 0) {
		text_errorf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (read_cpuset(pf_path(pf, path, sizeof(path), CPU_DIR "/present"), &pf->present) < 0)
		pf->present = pf->possible;
	pf->ncpus_possible = last_cpu(&pf->possible) + 1;

	pf->cpu_family = pf->cpu_model = pf->cpu_stepping = -1;
	read_cpuinfo(pf);
	read_midr(pf);
	fill_vendor(pf);
	if (path_exists(pf_path(pf, path, sizeof(path), "/sys/hypervisor/type")))
		pf->hypervisor = true;

	read_pmus(pf);
	pf->hybrid = pf->core_pmu_count > 1;
	pf->family = family_find("sw");
	if (pf->core_pmu_count) {
		const struct platform_pmu *p = NULL;

		for (cpu = cpuset_next(&pf->online, 0); cpu >= 0 && !p;
		     cpu = cpuset_next(&pf->online, cpu + 1))
			p = platform_core_pmu_for_cpu(pf, cpu);
		pf->family = p ? p->family : pf->pmus[0].family;
		if (pf->hybrid && !pf->arm_implementer)
			pf->family = family_find("generic");
	}
	pf->smt = read_smt(pf);
	const struct pmu_family *smt_fam = family_smt_variant(pf->family);
	if (smt_fam && pf->smt == 1) { /* top-down in per-core clocks (the core PMU's family too) */
		for (int i = 0; i < pf->npmus; i++)
			if (pf->pmus[i].is_core && pf->pmus[i].family == pf->family)
				pf->pmus[i].family = smt_fam;
		pf->family = smt_fam;
	}

	pf_path(pf, path, sizeof(path), "/proc/sys/kernel/perf_event_paranoid");
	pf->paranoid = read_int_or(path, -99);
	pf_path(pf, path, sizeof(path), "/proc/sys/kernel/nmi_watchdog");
	pf->nmi_watchdog = read_int_or(path, -1);
	if (!pf->root[0])
		read_live_caps(pf);
	read_identity(pf);
	read_caches(pf);
	platform_describe(pf);
	return 0;
}

const struct platform_pmu *platform_core_pmu_for_cpu(const struct platform *pf, int cpu)
{
	if (cpu < 0 || cpu >= CPUSET_MAX)
		return NULL;
	for (int i = 0; i < pf->core_pmu_count; i++) /* the core PMUs come first */
		if (pf->pmus[i].is_core && cpuset_has(&pf->pmus[i].cpus, cpu))
			return &pf->pmus[i];
	return NULL;
}

const struct platform_pmu *platform_find_pmu(const struct platform *pf, const char *name)
{
	for (int i = 0; i < pf->npmus; i++)
		if (strcmp(pf->pmus[i].name, name) == 0)
			return &pf->pmus[i];
	return NULL;
}

const char *platform_core_type(const struct platform *pf, int cpu)
{
	const struct platform_pmu *p = platform_core_pmu_for_cpu(pf, cpu);

	if (!p || strcmp(p->name, "cpu") == 0)
		return "";
	return p->name;
}

double platform_wrap_seconds(const struct platform_pmu *p)
{
	unsigned bits = platform_counter_bits(p);

	if (bits >= 64 || !p->max_khz)
		return 0;
	return (double)(1ULL << bits) / ((double)p->max_khz * 1e3);
}

bool platform_wrap_note(const struct platform_pmu *p, long interval_ms, char *buf, size_t len)
{
	unsigned bits = platform_counter_bits(p);
	double wrap = platform_wrap_seconds(p), cycles = (double)(1ULL << (bits < 64 ? bits : 0));
	bool armv8 = p->family && family_is_a(p->family, "armv8");
	int n;

	if (bits >= 64) {
		snprintf(buf, len, "counters 64-bit");
		return false;
	}
	if (wrap > 0)
		n = snprintf(buf, len, "counters %u-bit: wrap after %.1f s at %.1f GHz", bits, wrap,
			     p->max_khz / 1e6);
	else
		n = snprintf(buf, len, "counters %u-bit: wrap after %.1f s per GHz", bits,
			     cycles / 1e9);
	if (n < 0 || (size_t)n >= len)
		return false;
	if (armv8)
		n += snprintf(buf + n, len - (size_t)n, "%s",
			      p->has_long ? " (64-bit only with format/long, config1:0)"
					  : " (no format/long: no 64-bit event counters)");
	if (interval_ms <= 0 || n < 0 || (size_t)n >= len)
		return false;
	double interval = interval_ms / 1e3;
	if (wrap <= 0) {
		snprintf(buf + n, len - (size_t)n, "; interval %g s ok below %.1f GHz", interval,
			 cycles / interval / 1e9);
		return false;
	}
	if (interval < wrap) {
		snprintf(buf + n, len - (size_t)n, "; interval %g s ok", interval);
		return false;
	}
	snprintf(buf + n, len - (size_t)n,
		 "; interval %g s is longer than the wrap: counts are right only while the PMU "
		 "overflow interrupt works",
		 interval);
	return true;
}

static int perf_open(struct perf_event_attr *attr, int cpu, int group_fd, void *arg)
{
	(void)arg;
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static void perf_close(int fd, void *arg)
{
	(void)arg;
	close(fd);
}

const struct platform_opener platform_perf_opener = {.open = perf_open, .close = perf_close};

int platform_probe_counters(const struct platform_pmu *p, int cpu, const struct platform_opener *o,
			    char *why, size_t len)
{
	int fds[PLATFORM_PROBE_MAX], n = 0, err = 0;
	/* 0x03 counts on a programmable counter everywhere (ARMv7/ARMv8 L1D refill, ARMv6 and
	 * XScale ITLB miss), never on the cycle counter. */
	struct perf_event_attr attr;

	if (p->type < 0) {
		snprintf(why, len, "%s: no type file, nothing to open", p->name);
		return -1;
	}
	while (n < PLATFORM_PROBE_MAX) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = (unsigned)p->type;
		attr.config = 0x03;
		attr.disabled = 1;
		attr.pinned = n == 0;
		attr.read_format = PERF_FORMAT_GROUP;
		int fd = o->open(&attr, cpu, n ? fds[0] : -1, o->arg);
		if (fd < 0) {
			err = errno;
			break;
		}
		fds[n++] = fd;
	}
	for (int i = n - 1; i >= 0; i--)
		o->close(fds[i], o->arg);
	if (n == 0)
		snprintf(why, len, "%s: a raw event does not open on CPU %d (%s)", p->name, cpu,
			 strerror(err));
	return n ? n : -1;
}

int platform_read_online(struct platform *pf)
{
	char path[4400];
	struct cpuset now;

	if (read_cpuset(pf_path(pf, path, sizeof(path), CPU_DIR "/online"), &now) < 0)
		return -1;
	if (cpuset_equal(&now, &pf->online))
		return 0;
	pf->online = now;
	platform_describe(pf);
	return 1;
}

int platform_read_online_fd(struct platform *pf, int *fd)
{
	char buf[8192], e[128];
	struct cpuset now;

	if (*fd < 0) {
		char path[4400];
		*fd = open(pf_path(pf, path, sizeof(path), CPU_DIR "/online"),
			   O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (*fd < 0)
			return -1;
	}
	ssize_t n = pread(*fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	buf[n] = 0;
	trim(buf);
	if (cpuset_parse(&now, buf, e, sizeof(e)) < 0)
		return -1;
	if (cpuset_equal(&now, &pf->online))
		return 0;
	pf->online = now;
	platform_describe(pf);
	return 1;
}

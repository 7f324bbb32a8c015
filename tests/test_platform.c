/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_platform.c: platform detection on the tests/sysfs fixture trees, the live system, errors. */
#include "harness.h"
#include "platform.h"
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct platform pf; /* large: keep it off the stack */

static const char *tree(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/tests/sysfs/%s", harness_src(), name);
	return buf;
}

static bool detect(const char *name)
{
	char err[512] = "";
	int rc = platform_detect(&pf, tree(name), err, sizeof(err));

	CHECK(rc == 0, "%s: platform_detect failed: %s", name, err);
	return rc == 0;
}

static const char *setstr(const struct cpuset *s)
{
	static char buf[4][256];
	static int n;

	return cpuset_format(s, buf[n++ & 3], sizeof(buf[0]));
}

// clang-format off
/* Whole-machine expectations per tree. */
static const struct tree_case {
	int line;
	const char *dir;
	const char *family;
	int core_pmus;
	bool hybrid;
	const char *possible, *online;
	int ncpus_possible;
	int paranoid, watchdog;
	const char *vendor;
	int cpu_family, cpu_model;
	unsigned impl, part;
	bool hypervisor;
	const char *hostname, *kernel;
	int ncaches;
	unsigned l1d_kb, l2_kb, line_size;
	const char *cap[3];    /* substrings the capability line must contain */
	const char *not_cap;   /* substring it must not contain */
} trees[] = {
	{__LINE__, "x86-vm-nopmu", "sw", 0, false, "0-1", "0-1", 2, 2, 0, "GenuineIntel", 6, 143, 0, 0, true,
	 "vm", "6.18.44-fc-v669", 4, 48, 2048, 64,
	 {"hardware counters unavailable: no `cpu` PMU in /sys/bus/event_source/devices (virtual machine "
	  "without vPMU); showing software events",
	  "per-CPU system-wide counting needs perf_event_paranoid <= 0 (it is 2) or CAP_PERFMON: sysctl "
	  "kernel.perf_event_paranoid=0, or run as root, or setcap cap_perfmon+ep pmutop", NULL},
	 "NMI watchdog"},
	{__LINE__, "x86-skylake", "skl", 1, false, "0-3", "0-3", 4, 2, 1, "GenuineIntel", 6, 94, 0, 0, false,
	 "skylake-desk", "5.15.0-91-generic", 4, 32, 256, 64,
	 {"Intel Skylake PMU (4 counters + 3 fixed) (CPU model 0x5e, caps/pmu_name `skylake` agrees); "
	  "SMT state unknown: top-down in per-thread clocks",
	  "NMI watchdog holds one counter: echo 0 > /proc/sys/kernel/nmi_watchdog",
	  "needs perf_event_paranoid <= 0 (it is 2)"},
	 "unavailable"},
	{__LINE__, "x86-hybrid", "generic", 2, true, "0-7", "0-7", 8, -1, 0, "GenuineIntel", 6, 154, 0, 0, false,
	 "alder", "6.5.0-14-generic", 4, 48, 1280, 64,
	 {"hybrid: cpu_core on 0-3, cpu_atom on 4-7",
	  "alderlake_hybrid: libpfm4 has no hybrid model; perf generic events per core type",
	  "system-wide counting allowed (perf_event_paranoid=-1)"},
	 "NMI watchdog"},
	{__LINE__, "arm-biglittle", "cortex_a53", 2, true, "0-5", "0-5", 6, 1, 1, "ARM", -1, -1, 0x41, 0xd03, false,
	 "rockpro64", "6.1.68-rockchip64", 3, 32, 512, 64,
	 {"big.LITTLE: armv8_cortex_a53 on 0-3 (6 counters + 1 fixed), armv8_cortex_a72 on 4-5 (6 counters + 1 fixed)",
	  "counters 32-bit: wrap after 3.0 s at 1.4 GHz (64-bit only with format/long, config1:0)",
	  "needs perf_event_paranoid <= 0 (it is 1)"},
	 "hybrid:"},
	{__LINE__, "xscale", "xscale2", 1, false, "0", "0", 1, 1, -1, "Intel", -1, -1, 0x69, 0x41c, false,
	 "nslu2", "6.6.30-ixp4xx", 0, 0, 0, 0,
	 {"armv5_xscale2 PMU: Intel XScale (xscale2: CCNT + 4) (4 counters + 1 fixed)",
	  "counters 32-bit: wrap after 4.3 s per GHz; the PMU cannot separate user and kernel counts", NULL},
	 "unavailable"},
	{__LINE__, "armv6", "armv6", 1, false, "0", "0", 1, 1, -1, "ARM", -1, -1, 0x41, 0xb76, false,
	 "pizero", "6.1.21+", 0, 0, 0, 0,
	 {"armv6_1176 PMU: ARMv6 ARM1136/ARM1156/ARM1176 (CCNT + 2) (2 counters + 1 fixed)",
	  "counters 32-bit: wrap after 4.3 s at 1.0 GHz; the PMU cannot separate user and kernel counts", NULL},
	 "ARMv7"},
	{__LINE__, "cortex-a9", "cortex_a9", 1, false, "0-3", "0-3", 4, 1, -1, "ARM", -1, -1, 0x41, 0xc09, false,
	 "imx6q", "6.1.55-imx6", 0, 0, 0, 0,
	 {"armv7_cortex_a9 PMU: ARM Cortex-A9 (6 counters + 1 fixed)", "counters 32-bit: wrap after 4.3 s at 1.0 GHz",
	  NULL},
	 "cannot separate"},
	{__LINE__, "arm-a53", "cortex_a53", 1, false, "0-3", "0-3", 4, 1, 0, "ARM", -1, -1, 0x41, 0xd03, false,
	 "rpi3", "6.1.21-v8+", 0, 0, 0, 0,
	 {"armv8_cortex_a53 PMU: ARM Cortex-A53 (PMUv3) (6 counters + 1 fixed)",
	  "counters 32-bit: wrap after 3.6 s at 1.2 GHz (64-bit only with format/long, config1:0)", NULL},
	 "NMI watchdog"},
	{__LINE__, "xscale-nopmu", "sw", 0, false, "0", "0", 1, 1, -1, "Intel", -1, -1, 0x69, 0x41c, false,
	 "nslu2", "6.6.30-ixp4xx", 0, 0, 0, 0,
	 {"hardware counters unavailable: Intel XScale CPU (implementer 0x69) but the kernel registered no "
	  "armv5_xscale PMU",
	  "showing software events", NULL},
	 "`cpu` PMU"},
	{__LINE__, "x86-offline", "hsw", 1, false, "0-3", "0-1,3", 4, 0, 0, "GenuineIntel", 6, 60, 0, 0, false,
	 "hotplug", "6.1.0-17-amd64", 4, 32, 256, 64,
	 {"Intel Haswell PMU (4 counters + 3 fixed)", "CPU 2 offline",
	  "system-wide counting allowed (perf_event_paranoid=0)"},
	 "NMI watchdog"},
	{__LINE__, "silvermont", "slm", 1, false, "0-3", "0-3", 4, 3, 0, "GenuineIntel", 6, 55, 0, 0, false,
	 "baytrail", "4.19.0-26-amd64", 3, 24, 1024, 64,
	 {"Intel Atom Silvermont PMU (2 counters + 3 fixed)",
	  "needs perf_event_paranoid <= 0 (it is 3, no unprivileged use at all) or CAP_PERFMON", NULL},
	 "offline"},
	/* the family comes from the CPU model (the kernel's intel-family.h, perf's mapfile.csv);
	 * caps/pmu_name, in the kernel's spelling, only confirms it */
	{__LINE__, "x86-tremont", "tmt", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 150, 0, 0, false,
	 "ehl", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Atom Tremont PMU (4 counters + 3 fixed) (CPU model 0x96, caps/pmu_name `Tremont` agrees)",
	  NULL, NULL},
	 "not in the family table"},
	{__LINE__, "x86-goldmont", "glm", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 92, 0, 0, false,
	 "apl", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Atom Goldmont PMU (4 counters + 3 fixed) (CPU model 0x5c, caps/pmu_name `goldmont` agrees)",
	  NULL, NULL},
	 "SMT"},
	{__LINE__, "x86-gracemont", "grt", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 190, 0, 0, false,
	 "n100", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Atom Gracemont (Alder Lake-N) PMU (6 counters + 3 fixed) (CPU model 0xbe, caps/pmu_name "
	  "`gracemont` agrees)", NULL, NULL},
	 "not in the family table"},
	{__LINE__, "x86-skylake-sp", "skx_smt", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 85, 0, 0, false,
	 "clx", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Skylake-X/Cascade Lake (SMT on) PMU (4 counters + 3 fixed) "
	  "(CPU model 0x55, caps/pmu_name `skylake` agrees)",
	  "SMT on: top-down in per-core clocks (CPU_CLK_UNHALTED.THREAD_ANY / 2, perf's CORE_CLKS)", NULL},
	 "per-thread"},
	{__LINE__, "x86-skylake-smt", "skl_smt", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 158, 0, 0, false,
	 "kbl", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Skylake (SMT on) PMU", "SMT on: top-down in per-core clocks",
	  NULL},
	 "per-thread"},
	{__LINE__, "x86-haswell-ep", "hsw_smt", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 63, 0, 0, false,
	 "hsx", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Haswell (SMT on) PMU (4 counters + 3 fixed) (CPU model 0x3f, caps/pmu_name `haswell` agrees)",
	  "SMT on: top-down in per-core clocks", NULL},
	 "per-thread"},
	{__LINE__, "x86-icelake-sp", "icx", 1, false, "0-3", "0-3", 4, 0, 0, "GenuineIntel", 6, 106, 0, 0, false,
	 "icx", "6.1.0-27-amd64", 4, 32, 1024, 64,
	 {"Intel Ice Lake-SP PMU (8 counters + 4 fixed) (CPU model 0x6a, caps/pmu_name `icelake` agrees)",
	  NULL, NULL},
	 "SMT"},
};
/* Per-CPU expectations: core PMU, its attr.type, core type string. */
static const struct cpu_case {
	int line;
	const char *dir;
	int cpu;
	const char *pmu; /* NULL: no core PMU */
	int type;
	const char *core_type;
	const char *family;
} percpu[] = {
	{__LINE__, "x86-vm-nopmu", 0, NULL, -1, "", NULL},
	{__LINE__, "x86-vm-nopmu", 1, NULL, -1, "", NULL},
	{__LINE__, "x86-skylake", 0, "cpu", 4, "", "skl"},
	{__LINE__, "x86-skylake", 3, "cpu", 4, "", "skl"},
	{__LINE__, "x86-skylake", 4, NULL, -1, "", NULL},
	{__LINE__, "x86-hybrid", 0, "cpu_core", 4, "cpu_core", "generic"},
	{__LINE__, "x86-hybrid", 3, "cpu_core", 4, "cpu_core", "generic"},
	{__LINE__, "x86-hybrid", 4, "cpu_atom", 10, "cpu_atom", "generic"},
	{__LINE__, "x86-hybrid", 7, "cpu_atom", 10, "cpu_atom", "generic"},
	{__LINE__, "x86-hybrid", 8, NULL, -1, "", NULL},
	{__LINE__, "arm-biglittle", 0, "armv8_cortex_a53", 8, "armv8_cortex_a53", "cortex_a53"},
	{__LINE__, "arm-biglittle", 3, "armv8_cortex_a53", 8, "armv8_cortex_a53", "cortex_a53"},
	{__LINE__, "arm-biglittle", 4, "armv8_cortex_a72", 9, "armv8_cortex_a72", "cortex_a72"},
	{__LINE__, "arm-biglittle", 5, "armv8_cortex_a72", 9, "armv8_cortex_a72", "cortex_a72"},
	{__LINE__, "armv6", 0, "armv6_1176", 7, "armv6_1176", "armv6"},
	{__LINE__, "cortex-a9", 2, "armv7_cortex_a9", 7, "armv7_cortex_a9", "cortex_a9"},
	{__LINE__, "arm-a53", 3, "armv8_cortex_a53", 8, "armv8_cortex_a53", "cortex_a53"},
	{__LINE__, "xscale", 0, "armv5_xscale2", 6, "armv5_xscale2", "xscale2"},
	{__LINE__, "xscale-nopmu", 0, NULL, -1, "", NULL},
	/* a core PMU without a cpus file covers every possible CPU, offline ones too */
	{__LINE__, "x86-offline", 2, "cpu", 4, "", "hsw"},
	{__LINE__, "x86-offline", 3, "cpu", 4, "", "hsw"},
	{__LINE__, "silvermont", 1, "cpu", 4, "", "slm"},
};

/* Other PMUs that must be found, with their type and properties. */
static const struct pmu_case {
	int line;
	const char *dir, *pmu;
	int type;
	bool is_core;
	const char *caps;
	int mux_ms;
	int counters;
} pmus[] = {
	{__LINE__, "x86-vm-nopmu", "msr", 9, false, "", 4, 0},
	{__LINE__, "x86-vm-nopmu", "software", 1, false, "", 4, 0},
	{__LINE__, "x86-vm-nopmu", "uprobe", 8, false, "", 4, 0},
	{__LINE__, "x86-skylake", "cpu", 4, true, "skylake", 4, 4},
	{__LINE__, "x86-hybrid", "cpu_core", 4, true, "alderlake_hybrid", 4, 0},
	{__LINE__, "x86-hybrid", "cpu_atom", 10, true, "alderlake_hybrid", 4, 0},
	{__LINE__, "x86-hybrid", "msr", 11, false, "", 4, 0},
	{__LINE__, "arm-biglittle", "armv8_cortex_a72", 9, true, "", 4, 6},
	{__LINE__, "arm-biglittle", "kprobe", 6, false, "", 4, 0},
	{__LINE__, "xscale", "armv5_xscale2", 6, true, "", 4, 4},
	{__LINE__, "armv6", "armv6_1176", 7, true, "", 4, 2},
	{__LINE__, "cortex-a9", "armv7_cortex_a9", 7, true, "", 4, 6},
	{__LINE__, "arm-a53", "armv8_cortex_a53", 8, true, "", 4, 6},
	{__LINE__, "silvermont", "cpu", 4, true, "silvermont", 4, 2},
};

// clang-format on

static void test_trees(void)
{
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		const struct tree_case *t = &trees[i];

		if (!detect(t->dir))
			continue;
		fprintf(stderr, "%s: %s\n", t->dir, pf.capability);
		CHECK(pf.family && strcmp(pf.family->key, t->family) == 0,
		      "line %d: family %s, want %s", t->line, pf.family ? pf.family->key : "(null)",
		      t->family);
		CHECK(pf.core_pmu_count == t->core_pmus, "line %d: %d core PMUs", t->line,
		      pf.core_pmu_count);
		CHECK(pf.hybrid == t->hybrid, "line %d: hybrid %d", t->line, pf.hybrid);
		CHECK(strcmp(setstr(&pf.possible), t->possible) == 0, "line %d: possible %s",
		      t->line, setstr(&pf.possible));
		CHECK(strcmp(setstr(&pf.online), t->online) == 0, "line %d: online %s", t->line,
		      setstr(&pf.online));
		CHECK(cpuset_equal(&pf.present, &pf.possible), "line %d: present %s", t->line,
		      setstr(&pf.present));
		CHECK(pf.ncpus_possible == t->ncpus_possible, "line %d: ncpus_possible %d", t->line,
		      pf.ncpus_possible);
		CHECK(pf.paranoid == t->paranoid, "line %d: paranoid %d", t->line, pf.paranoid);
		CHECK(pf.nmi_watchdog == t->watchdog, "line %d: nmi_watchdog %d", t->line,
		      pf.nmi_watchdog);
		CHECK(strcmp(pf.cpu_vendor, t->vendor) == 0, "line %d: vendor '%s'", t->line,
		      pf.cpu_vendor);
		CHECK(pf.cpu_family == t->cpu_family && pf.cpu_model == t->cpu_model,
		      "line %d: cpu family %d model %d", t->line, pf.cpu_family, pf.cpu_model);
		CHECK(pf.arm_implementer == t->impl && pf.arm_part == t->part,
		      "line %d: implementer 0x%x part 0x%x", t->line, pf.arm_implementer,
		      pf.arm_part);
		CHECK(pf.hypervisor == t->hypervisor, "line %d: hypervisor %d", t->line,
		      pf.hypervisor);
		CHECK(!pf.is_root && !pf.cap_perfmon,
		      "line %d: fixture root must not inherit privileges", t->line);
		CHECK(strcmp(pf.hostname, t->hostname) == 0, "line %d: hostname '%s'", t->line,
		      pf.hostname);
		CHECK(strcmp(pf.kernel, t->kernel) == 0, "line %d: kernel '%s'", t->line,
		      pf.kernel);
		CHECK(pf.ncaches == t->ncaches, "line %d: %d caches", t->line, pf.ncaches);
		if (t->ncaches >= 3) {
			CHECK(pf.caches[0].level == 1 && strcmp(pf.caches[0].type, "Data") == 0 &&
				  pf.caches[0].size_kb == t->l1d_kb &&
				  pf.caches[0].line_size == t->line_size,
			      "line %d: L1d level %d type %s %uK line %u", t->line,
			      pf.caches[0].level, pf.caches[0].type, pf.caches[0].size_kb,
			      pf.caches[0].line_size);
			CHECK(pf.caches[2].level == 2 && pf.caches[2].size_kb == t->l2_kb,
			      "line %d: L2 level %d %uK", t->line, pf.caches[2].level,
			      pf.caches[2].size_kb);
		}
		for (int k = 0; k < 3; k++)
			if (t->cap[k])
				CHECK(strstr(pf.capability, t->cap[k]),
				      "line %d: capability '%s' lacks '%s'", t->line, pf.capability,
				      t->cap[k]);
		CHECK(!strstr(pf.capability, t->not_cap), "line %d: capability '%s' has '%s'",
		      t->line, pf.capability, t->not_cap);
		/* core PMUs come first */
		for (int k = 0; k < pf.npmus; k++)
			CHECK(pf.pmus[k].is_core == (k < pf.core_pmu_count),
			      "line %d: PMU %d (%s) out of order", t->line, k, pf.pmus[k].name);
		CHECK(pf.nnotes > 0 &&
			  strncmp(pf.capability, pf.notes[0], strlen(pf.notes[0])) == 0,
		      "line %d: capability starts with notes[0]", t->line);
	}
}

static void test_percpu(void)
{
	for (size_t i = 0; i < sizeof(percpu) / sizeof(percpu[0]); i++) {
		const struct cpu_case *t = &percpu[i];
		const struct platform_pmu *p;

		if (!detect(t->dir))
			continue;
		p = platform_core_pmu_for_cpu(&pf, t->cpu);
		if (!t->pmu) {
			CHECK(p == NULL, "line %d: cpu %d has core PMU %s", t->line, t->cpu,
			      p ? p->name : "");
		} else {
			CHECK(p && strcmp(p->name, t->pmu) == 0,
			      "line %d: cpu %d core PMU %s, want %s", t->line, t->cpu,
			      p ? p->name : "(null)", t->pmu);
			CHECK(p && p->type == t->type, "line %d: cpu %d type %d, want %d", t->line,
			      t->cpu, p ? p->type : -1, t->type);
			CHECK(p && p->family && strcmp(p->family->key, t->family) == 0,
			      "line %d: cpu %d family %s", t->line, t->cpu,
			      p && p->family ? p->family->key : "(null)");
		}
		CHECK(strcmp(platform_core_type(&pf, t->cpu), t->core_type) == 0,
		      "line %d: cpu %d core type '%s'", t->line, t->cpu,
		      platform_core_type(&pf, t->cpu));
	}
}

static void test_pmus(void)
{
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		const struct pmu_case *t = &pmus[i];
		const struct platform_pmu *p;

		if (!detect(t->dir))
			continue;
		p = platform_find_pmu(&pf, t->pmu);
		CHECK(p != NULL, "line %d: PMU %s not found", t->line, t->pmu);
		if (!p)
			continue;
		CHECK(p->type == t->type, "line %d: %s type %d", t->line, t->pmu, p->type);
		CHECK(p->is_core == t->is_core, "line %d: %s is_core %d", t->line, t->pmu,
		      p->is_core);
		CHECK(strcmp(p->caps_pmu_name, t->caps) == 0, "line %d: %s caps '%s'", t->line,
		      t->pmu, p->caps_pmu_name);
		CHECK(p->mux_interval_ms == t->mux_ms, "line %d: %s mux %d", t->line, t->pmu,
		      p->mux_interval_ms);
		CHECK(p->num_counters == t->counters, "line %d: %s counters %d", t->line, t->pmu,
		      p->num_counters);
		CHECK(t->is_core || p->family == NULL, "line %d: non-core PMU %s has a family",
		      t->line, t->pmu);
	}
	/* absent PMUs */
	if (detect("x86-vm-nopmu")) {
		CHECK(platform_find_pmu(&pf, "cpu") == NULL, "vm: cpu PMU found");
		CHECK_INT(pf.npmus, 5);
		CHECK_INT(cpuset_count(&platform_find_pmu(&pf, "msr")->cpus), 2);
	}
	if (detect("arm-biglittle")) {
		CHECK_INT(cpuset_count(&platform_find_pmu(&pf, "armv8_cortex_a53")->cpus), 4);
		CHECK_STR(pf.pmus[0].name, "armv8_cortex_a53");
	}
}

/* A caller (or test) overriding privileges and regenerating the summary. */
/* ---- ARM PMUs: events/ lists, counter width, the counter probe ---------------------------- */

static bool has_code(const struct platform_pmu *p, unsigned code)
{
	for (int i = 0; i < p->nlisted; i++)
		if (p->listed[i] == code)
			return true;
	return false;
}

/* A fake perf_event_open that refuses the (limit+1)-th event of a group. */
struct fake_open {
	int limit, open, max_open, calls, refuse_errno;
	struct perf_event_attr first;
	int bad_group; /* members not opened into the leader's group */
};

static int fake_open_fn(struct perf_event_attr *attr, int cpu, int group_fd, void *arg)
{
	struct fake_open *f = arg;
	(void)cpu;
	if (f->calls++ == 0)
		f->first = *attr;
	else if (group_fd != 100)
		f->bad_group++;
	if (f->open >= f->limit) {
		errno = f->refuse_errno;
		return -1;
	}
	f->open++;
	if (f->open > f->max_open)
		f->max_open = f->open;
	return 100 + f->open - 1;
}

static void fake_close_fn(int fd, void *arg)
{
	struct fake_open *f = arg;
	(void)fd;
	f->open--;
}

static void test_arm_pmus(void)
{
	const struct platform_pmu *p;
	char buf[320], why[256];

	if (detect("arm-a53") && (p = platform_find_pmu(&pf, "armv8_cortex_a53"))) {
		CHECK(p->has_events_dir && p->nlisted > 20, "a53 events/: %d listed", p->nlisted);
		CHECK(has_code(p, 0x08) && has_code(p, 0x11) && has_code(p, 0x15) &&
			  has_code(p, 0x06),
		      "a53 lists inst_retired, cpu_cycles, l1d_cache_wb, ld_retired");
		CHECK(!has_code(p, 0x23) && !has_code(p, 0x24) && !has_code(p, 0x36) &&
			  !has_code(p, 0x1b),
		      "a53 lists no stall_*, ll_cache_rd, inst_spec");
		CHECK(p->has_long && p->max_khz == 1200000, "a53 long %d, %u kHz", p->has_long,
		      p->max_khz);
		CHECK(!platform_wrap_note(p, 1000, buf, sizeof(buf)) &&
			  strstr(buf, "counters 32-bit: wrap after 3.6 s at 1.2 GHz") &&
			  strstr(buf, "interval 1 s ok"),
		      "a53 1 s: %s", buf);
		CHECK(platform_wrap_note(p, 5000, buf, sizeof(buf)) &&
			  strstr(buf, "interval 5 s is longer than the wrap"),
		      "a53 5 s: %s", buf);
		CHECK(platform_wrap_seconds(p) > 3.5 && platform_wrap_seconds(p) < 3.6,
		      "a53 wrap %.3f s", platform_wrap_seconds(p));
	}
	if (detect("arm-biglittle")) {
		const struct platform_pmu *a53 = platform_find_pmu(&pf, "armv8_cortex_a53"),
					  *a72 = platform_find_pmu(&pf, "armv8_cortex_a72");
		CHECK(a53 && a72 && a53->type == 8 && a72->type == 9, "two PMU types");
		CHECK(a72 && has_code(a72, 0x1b) && !has_code(a72, 0x06) && !has_code(a72, 0x24),
		      "a72 events/ follows its PMCEID");
		CHECK(a53 && !has_code(a53, 0x1b) && has_code(a53, 0x06), "a53 events/");
		CHECK(a72 && a72->max_khz == 1800000, "a72 clock");
	}
	if (detect("armv6") && (p = platform_find_pmu(&pf, "armv6_1176"))) {
		CHECK(!p->has_events_dir && !p->has_long && p->num_counters == 2,
		      "armv6: no events/, 2 counters");
		CHECK(!platform_wrap_note(p, 2000, buf, sizeof(buf)) &&
			  strstr(buf, "wrap after 4.3 s at 1.0 GHz; interval 2 s ok") &&
			  !strstr(buf, "format/long"),
		      "armv6 2 s: %s", buf);
	}
	if (detect("cortex-a9") && (p = platform_find_pmu(&pf, "armv7_cortex_a9"))) {
		/* the kernel lists inst_retired for every ARMv7 core: not a PMCEID list */
		CHECK(p->has_events_dir && has_code(p, 0x08), "a9 events/ has the fixed list");
		CHECK(!family_events_from_pmceid(p->family) &&
			  family_implements(p->family, 0x08) == 0,
		      "a9: events/ not trusted, 0x08 not implemented");
	}
	if (detect("xscale") && (p = platform_find_pmu(&pf, "armv5_xscale2")))
		CHECK(!platform_wrap_note(p, 1000, buf, sizeof(buf)) &&
			  strstr(buf, "interval 1 s ok below 4.3 GHz"),
		      "xscale: %s", buf);

	/* the probe: growing pinned groups until the kernel refuses */
	if (!detect("armv6") || !(p = platform_find_pmu(&pf, "armv6_1176")))
		return;
	struct fake_open f = {.limit = 2, .refuse_errno = EINVAL};
	struct platform_opener o = {.open = fake_open_fn, .close = fake_close_fn, .arg = &f};
	CHECK_INT(platform_probe_counters(p, 0, &o, why, sizeof(why)), 2);
	CHECK(f.open == 0 && f.max_open == 2 && f.calls == 3 && !f.bad_group,
	      "probe opened %d at most, %d left open, %d calls", f.max_open, f.open, f.calls);
	CHECK(f.first.type == 7 && f.first.config == 0x03 && f.first.pinned && f.first.disabled,
	      "probe leader: type %u config 0x%llx pinned %d", f.first.type,
	      (unsigned long long)f.first.config, f.first.pinned);
	f = (struct fake_open){.limit = 6, .refuse_errno = EINVAL};
	CHECK_INT(platform_probe_counters(p, 0, &o, why, sizeof(why)), 6);
	f = (struct fake_open){.limit = 1000, .refuse_errno = EINVAL};
	CHECK_INT(platform_probe_counters(p, 0, &o, why, sizeof(why)), PLATFORM_PROBE_MAX);
	CHECK(f.open == 0, "all closed");
	f = (struct fake_open){.limit = 0, .refuse_errno = ENOENT};
	CHECK(platform_probe_counters(p, 0, &o, why, sizeof(why)) == -1 &&
		  strstr(why, "armv6_1176") && strstr(why, strerror(ENOENT)),
	      "nothing opens: %s", why);
	/* a probed count shows in the platform line */
	pf.pmus[0].num_counters = 2;
	pf.pmus[0].counters_probed = true;
	platform_describe(&pf);
	CHECK(strstr(pf.capability, "(2 counters + 1 fixed, probed)"), "probed: %s", pf.capability);
}

/* caps/slots (PMMIR_EL1.SLOTS) and the family detection of the top-down trees. */
static void test_slots(void)
{
	const struct platform_pmu *p;

	if (detect("arm-neoverse") && (p = platform_find_pmu(&pf, "armv8_pmuv3_0"))) {
		CHECK_INT(p->slots, 8);
		CHECK(has_code(p, 0x3a) && has_code(p, 0x3b) && has_code(p, 0x3d) &&
			  has_code(p, 0x3e) && has_code(p, 0x3f) && has_code(p, 0x23),
		      "neoverse lists op_retired, op_spec, stall_slot_*, stall_frontend");
		/* armv8_pmuv3 names no core: MIDR 0x411fd401 is part 0xd40, Neoverse V1 (perf's
		 * arm64 mapfile.csv: 0x00000000410fd400 -> arm/neoverse-v1) */
		CHECK(pf.family && strcmp(pf.family->key, "neoverse_v1") == 0, "neoverse family %s",
		      pf.family ? pf.family->key : "none");
	}
	if (detect("arm-neoverse-mixed")) {
		p = platform_find_pmu(&pf, "armv8_neoverse_v1");
		CHECK(p && p->slots == 8, "v1 slots %u", p ? p->slots : 0);
		p = platform_find_pmu(&pf, "armv8_neoverse_n2");
		CHECK(p && p->slots == 5, "n2 slots %u", p ? p->slots : 0);
	}
	if (detect("arm-a53") && (p = platform_find_pmu(&pf, "armv8_cortex_a53"))) {
		CHECK_INT(p->slots, 0); /* no caps/slots before PMUv3p4 */
		CHECK(!has_code(p, 0x3f), "a53 lists no stall_slot");
	}
	static const struct {
		const char *tree, *family;
	} families[] = {{"x86-icelake", "icl"}, {"x86-sapphire", "spr"}, {"x86-zen4", "zen4"}};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (detect(families[i].tree))
			CHECK(pf.family && strcmp(pf.family->key, families[i].family) == 0,
			      "%s: family %s, want %s", families[i].tree,
			      pf.family ? pf.family->key : "none", families[i].family);
}

static void test_describe(void)
{
	if (!detect("x86-skylake"))
		return;
	pf.is_root = true;
	platform_describe(&pf);
	CHECK(strstr(pf.capability, "system-wide counting allowed (root)"), "%s", pf.capability);
	CHECK(!strstr(pf.capability, "setcap"), "%s", pf.capability);
	pf.is_root = false;
	pf.cap_perfmon = true;
	platform_describe(&pf);
	CHECK(strstr(pf.capability, "system-wide counting allowed (CAP_PERFMON)"), "%s",
	      pf.capability);
	pf.cap_perfmon = false;
	pf.paranoid = -99;
	platform_describe(&pf);
	CHECK(strstr(pf.capability, "needs perf_event_paranoid <= 0 (not readable here)"), "%s",
	      pf.capability);
	pf.nmi_watchdog = 0;
	platform_describe(&pf);
	CHECK(!strstr(pf.capability, "NMI watchdog"), "%s", pf.capability);
	/* the root prefix is normalised */
	if (detect("x86-skylake/")) {
		size_t n = strlen(pf.root);

		CHECK(n > 0 && pf.root[n - 1] != '/', "root '%s' keeps a trailing slash", pf.root);
	}
}

static void test_live(void)
{
	char err[512] = "";
	bool has_core;

	CHECK_INT(platform_detect(&pf, "/", err, sizeof(err)), 0);
	CHECK_STR(pf.root, "");
	CHECK_INT(platform_detect(&pf, NULL, err, sizeof(err)), 0);
	fprintf(stderr, "live: %s\n", pf.capability);
	CHECK(cpuset_count(&pf.online) == sysconf(_SC_NPROCESSORS_ONLN), "online %s vs sysconf %ld",
	      setstr(&pf.online), sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(pf.ncpus_possible >= cpuset_count(&pf.online), "ncpus_possible %d",
	      pf.ncpus_possible);
	CHECK(pf.hostname[0] && pf.kernel[0], "hostname '%s' kernel '%s'", pf.hostname, pf.kernel);
	CHECK(pf.is_root == (geteuid() == 0), "is_root %d", pf.is_root);
	CHECK(platform_find_pmu(&pf, "software") != NULL, "no software PMU");
	has_core = pf.core_pmu_count > 0;
	if (has_core) {
		SKIP("this machine has a core PMU (%s, family %s): the no-PMU expectations do not "
		     "apply",
		     pf.pmus[0].name, pf.family->key);
		CHECK(platform_core_pmu_for_cpu(&pf, cpuset_next(&pf.online, 0)) != NULL,
		      "CPU without core PMU");
		return;
	}
	CHECK_STR(pf.family->key, "sw");
	CHECK(platform_find_pmu(&pf, "cpu") == NULL, "cpu PMU");
	/* the msr PMU is x86's: found exactly where this machine's sysfs has it */
	bool msr_here = access("/sys/bus/event_source/devices/msr", F_OK) == 0;
	CHECK((platform_find_pmu(&pf, "msr") != NULL) == msr_here, "msr PMU found %d, in sysfs %d",
	      platform_find_pmu(&pf, "msr") != NULL, msr_here);
	CHECK(strstr(pf.capability, "no `cpu` PMU in /sys/bus/event_source/devices"), "%s",
	      pf.capability);
	CHECK(platform_core_pmu_for_cpu(&pf, 0) == NULL, "core PMU for cpu 0");
	CHECK_STR(platform_core_type(&pf, 0), "");
}

static void test_errors(void)
{
	char err[512] = "", dir[] = "/tmp/pmutop-platform-XXXXXX", file[600];
	FILE *f;

	CHECK_INT(platform_detect(&pf, "/nonexistent/pmutop-root", err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/pmutop-root") && strstr(err, "No such file or directory"),
	      "err '%s'", err);
	if (!mkdtemp(dir)) {
		SKIP("mkdtemp: %s", strerror(errno));
		return;
	}
	/* an empty directory is not a sysfs root */
	err[0] = 0;
	CHECK_INT(platform_detect(&pf, dir, err, sizeof(err)), -1);
	CHECK(strstr(err, "sys/devices/system/cpu/possible") && strstr(err, "sysfs/procfs root"),
	      "err '%s'", err);
	/* a file is not a directory */
	snprintf(file, sizeof(file), "%s/file", dir);
	f = fopen(file, "w");
	if (f)
		fclose(f);
	err[0] = 0;
	CHECK_INT(platform_detect(&pf, file, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a directory"), "err '%s'", err);
	unlink(file);
	/* an unreadable root */
	if (geteuid() == 0) {
		SKIP("running as root: an unreadable directory is still readable");
	} else {
		chmod(dir, 0);
		err[0] = 0;
		CHECK_INT(platform_detect(&pf, dir, err, sizeof(err)), -1);
		CHECK(strstr(err, "Permission denied"), "err '%s'", err);
		chmod(dir, 0700);
	}
	rmdir(dir);
}

/* ---- temp copy for hotplug ---- */

static int copy_tree(const char *src, const char *dst)
{
	char s[4096], d[4096], buf[8192];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int rc = 0;

	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		return -1;
	if (!(dir = opendir(src)))
		return -1;
	while (rc == 0 && (de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
		snprintf(d, sizeof(d), "%s/%s", dst, de->d_name);
		if (stat(s, &st) < 0) {
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = copy_tree(s, d);
		} else {
			FILE *in = fopen(s, "r"), *out = fopen(d, "w");
			size_t n;

			if (!in || !out)
				rc = -1;
			while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
				fwrite(buf, 1, n, out);
			if (in)
				fclose(in);
			if (out)
				fclose(out);
		}
	}
	closedir(dir);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void write_online(const char *root, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	f = fopen(path, "w");
	CHECK(f != NULL, "open %s: %s", path, strerror(errno));
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_read_online(void)
{
	char dir[] = "/tmp/pmutop-online-XXXXXX", root[4096], err[512] = "", path[4200];

	if (!mkdtemp(dir)) {
		SKIP("mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(root, sizeof(root), "%s/root", dir);
	if (copy_tree(tree("x86-offline"), root) < 0) {
		CHECK(0, "copy to %s failed: %s", root, strerror(errno));
		goto out;
	}
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(setstr(&pf.online), "0-1,3");
	CHECK_INT(platform_read_online(&pf), 0);
	write_online(root, "0-3\n");
	CHECK_INT(platform_read_online(&pf), 1);
	CHECK_STR(setstr(&pf.online), "0-3");
	CHECK(!strstr(pf.capability, "offline"), "capability still says offline: %s",
	      pf.capability);
	CHECK_INT(platform_read_online(&pf), 0);
	write_online(root, "0\n");
	CHECK_INT(platform_read_online(&pf), 1);
	CHECK_STR(setstr(&pf.online), "0");
	CHECK(strstr(pf.capability, "CPUs 1-3 offline"), "capability: %s", pf.capability);
	/* garbage or a missing file keeps the last good set */
	write_online(root, "zero\n");
	CHECK_INT(platform_read_online(&pf), -1);
	CHECK_STR(setstr(&pf.online), "0");
	/* through a descriptor kept open: the file rewritten in place is read again, once opened */
	int fd = -1;
	write_online(root, "0\n");
	CHECK_INT(platform_read_online_fd(&pf, &fd), 0);
	CHECK(fd >= 0, "the descriptor is kept: %d", fd);
	int kept = fd;
	write_online(root, "0-2\n");
	CHECK_INT(platform_read_online_fd(&pf, &fd), 1);
	CHECK_STR(setstr(&pf.online), "0-2");
	CHECK_INT(fd, kept);
	CHECK_INT(platform_read_online_fd(&pf, &fd), 0);
	write_online(root, "zero\n");
	CHECK_INT(platform_read_online_fd(&pf, &fd), -1);
	CHECK_STR(setstr(&pf.online), "0-2");
	write_online(root, "0\n");
	CHECK_INT(platform_read_online_fd(&pf, &fd), 1);
	CHECK_STR(setstr(&pf.online), "0");
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	unlink(path);
	CHECK_INT(platform_read_online(&pf), -1);
	CHECK_STR(setstr(&pf.online), "0");
	/* without online, detection fails with the file named */
	err[0] = 0;
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), -1);
	CHECK(strstr(err, "cpu/online"), "err '%s'", err);
out:
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes @text to <root>/<rel>, creating the parent directories. */
static void write_file(const char *root, const char *rel, const char *text)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	CHECK(f != NULL, "open %s: %s", path, strerror(errno));
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Variations of the fixtures made in a temporary copy. */
static void test_mutations(void)
{
	char dir[] = "/tmp/pmutop-mut-XXXXXX", root[4096], err[512] = "", rel[4200];

	if (!mkdtemp(dir)) {
		SKIP("mkdtemp: %s", strerror(errno));
		return;
	}
	/* ARM without cpuinfo: implementer and part from midr_el1 */
	snprintf(root, sizeof(root), "%s/arm", dir);
	CHECK(copy_tree(tree("arm-biglittle"), root) == 0, "copy arm-biglittle");
	write_file(root, "proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 48.00\n\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK(pf.arm_implementer == 0x41 && pf.arm_part == 0xd03,
	      "midr: implementer 0x%x part 0x%x", pf.arm_implementer, pf.arm_part);
	CHECK_STR(pf.cpu_vendor, "ARM");

	/* 40 uncore PMUs sorting before "cpu" cannot push the core PMU out */
	snprintf(root, sizeof(root), "%s/many", dir);
	CHECK(copy_tree(tree("x86-skylake"), root) == 0, "copy x86-skylake");
	for (int i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/amd_uncore_%02d/type", i);
		write_file(root, rel, "20\n");
	}
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_INT(pf.npmus, PLATFORM_MAX_PMUS);
	CHECK_INT(pf.pmus_dropped, 40 + 6 - PLATFORM_MAX_PMUS);
	CHECK_STR(pf.pmus[0].name, "cpu");
	CHECK_STR(pf.family->key, "skl");
	CHECK(strstr(pf.capability, "14 more PMUs not listed"), "%s", pf.capability);

	/* control characters from files never reach the caller; unknown caps name is reported */
	snprintf(root, sizeof(root), "%s/esc", dir);
	CHECK(copy_tree(tree("x86-skylake"), root) == 0, "copy x86-skylake");
	write_file(root, "sys/bus/event_source/devices/cpu/caps/pmu_name", "sky\033[2Jlake\n");
	write_file(root, "sys/hypervisor/type", "xen\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.pmus[0].caps_pmu_name, "sky?[2Jlake");
	CHECK(!strchr(pf.capability, 033), "escape in capability");
	CHECK_STR(pf.family->key, "skl"); /* the CPU model decides; the odd caps name is shown */
	CHECK(strstr(pf.capability,
		     "Intel Skylake PMU (4 counters + 3 fixed) (CPU model 0x5e; caps/pmu_name "
		     "`sky?[2Jlake` where the kernel writes `skylake` for it)"),
	      "%s", pf.capability);
	/* a model the cpuinfo table lacks: caps/pmu_name decides, in any case ("Tremont") */
	write_file(root, "proc/cpuinfo",
		   "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 250\n"
		   "model name\t: future\nflags\t\t: fpu tsc msr\n\n");
	write_file(root, "sys/bus/event_source/devices/cpu/caps/pmu_name", "Tremont\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.family->key, "tmt");
	/* a kernel that does not know the model drives architectural events only */
	write_file(root, "proc/cpuinfo",
		   "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 150\n"
		   "model name\t: ehl\nflags\t\t: fpu tsc msr\n\n");
	write_file(root, "sys/bus/event_source/devices/cpu/caps/pmu_name", "generic_arch_v4\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.family->key, "intel");
	CHECK(strstr(pf.capability, "the kernel does not know CPU model 0x96"), "%s",
	      pf.capability);
	CHECK(pf.hypervisor, "/sys/hypervisor/type not seen");

	/* AMD Zen without caps/pmu_name: family from cpuinfo vendor and family */
	snprintf(rel, sizeof(rel), "%s/sys/bus/event_source/devices/cpu/caps/pmu_name", root);
	unlink(rel);
	write_file(root, "proc/cpuinfo",
		   "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
		   "model name\t: AMD EPYC 9654\nflags\t\t: fpu tsc msr\n\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.family->key, "zen4"); /* family 0x19 model 0x11: Genoa */
	CHECK_STR(pf.cpu_model_name, "AMD EPYC 9654");
	CHECK(strstr(pf.capability, "AMD Zen 4 PMU (6 counters)"), "%s", pf.capability);
	/* family 0x19 model 0x01 (Milan) is Zen 3, with its own tables (perf: amdzen3) */
	write_file(root, "proc/cpuinfo",
		   "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
		   "model name\t: AMD EPYC 7763\nflags\t\t: fpu tsc msr\n\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.family->key, "zen3");
	CHECK(strstr(pf.capability, "AMD Zen 3 PMU (6 counters)"), "%s", pf.capability);
	/* family 0x17 model 0x31 (Rome, Zen 2) shares Zen 1's table (perf: amdzen2) */
	write_file(root, "proc/cpuinfo",
		   "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n"
		   "model name\t: AMD EPYC 7302\nflags\t\t: fpu tsc msr\n\n");
	CHECK_INT(platform_detect(&pf, root, err, sizeof(err)), 0);
	CHECK_STR(pf.family->key, "zen");
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The permission hint: the level each scope needs, the level there is, and never cut short. */
static void test_permission_hint(void)
{
	static const struct {
		int line;
		int paranoid;
		bool root, perfmon, denied;
		enum perf_scope scope;
		const char *want; /* the whole hint */
	} cases[] = {
	    {__LINE__, 2, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting needs perf_event_paranoid <= 0 (it is 2) or "
	     "CAP_PERFMON: "
	     "sysctl kernel.perf_event_paranoid=0, or run as root, or setcap cap_perfmon+ep "
	     "pmutop"},
	    {__LINE__, 1, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting needs perf_event_paranoid <= 0 (it is 1) or "
	     "CAP_PERFMON: "
	     "sysctl kernel.perf_event_paranoid=0, or run as root, or setcap cap_perfmon+ep "
	     "pmutop"},
	    {__LINE__, 0, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting allowed (perf_event_paranoid=0)"},
	    {__LINE__, -1, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting allowed (perf_event_paranoid=-1)"},
	    {__LINE__, 4, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting needs perf_event_paranoid <= 0 (it is 4, no "
	     "unprivileged "
	     "use at all) or CAP_PERFMON: sysctl kernel.perf_event_paranoid=0, or run as root, or "
	     "setcap cap_perfmon+ep pmutop"},
	    {__LINE__, -99, false, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting needs perf_event_paranoid <= 0 (not readable here) or "
	     "CAP_PERFMON: sysctl kernel.perf_event_paranoid=0, or run as root, or setcap "
	     "cap_perfmon+ep pmutop"},
	    {__LINE__, 2, false, false, false, PERF_SCOPE_TASK_USER,
	     "per-task user-space counting allowed (perf_event_paranoid=2)"},
	    {__LINE__, 3, false, false, false, PERF_SCOPE_TASK_USER,
	     "per-task user-space counting needs perf_event_paranoid <= 2 (it is 3, no "
	     "unprivileged "
	     "use at all) or CAP_PERFMON: sysctl kernel.perf_event_paranoid=2, or run as root, or "
	     "setcap cap_perfmon+ep pmutop"},
	    {__LINE__, 1, false, false, false, PERF_SCOPE_TASK_KERNEL,
	     "per-task kernel counting allowed (perf_event_paranoid=1)"},
	    {__LINE__, 2, false, false, false, PERF_SCOPE_TASK_KERNEL,
	     "per-task kernel counting needs perf_event_paranoid <= 1 (it is 2) or CAP_PERFMON: "
	     "sysctl kernel.perf_event_paranoid=1, or run as root, or setcap cap_perfmon+ep "
	     "pmutop"},
	    {__LINE__, 0, false, false, false, PERF_SCOPE_TRACEPOINT,
	     "tracepoint counting needs perf_event_paranoid <= -1 (it is 0) or CAP_PERFMON: sysctl "
	     "kernel.perf_event_paranoid=-1, or run as root, or setcap cap_perfmon+ep pmutop"},
	    {__LINE__, 2, true, false, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting allowed (root)"},
	    {__LINE__, 2, false, true, false, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting allowed (CAP_PERFMON)"},
	    {__LINE__, 0, false, false, true, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting allowed (perf_event_paranoid=0); a denial comes from a "
	     "security policy (SELinux, AppArmor, lockdown) or a container"},
	    {__LINE__, 2, false, false, true, PERF_SCOPE_CPU,
	     "per-CPU system-wide counting needs perf_event_paranoid <= 0 (it is 2) or "
	     "CAP_PERFMON: "
	     "sysctl kernel.perf_event_paranoid=0, or run as root, or setcap cap_perfmon+ep "
	     "pmutop"},
	};
	CHECK_INT(platform_paranoid_needed(PERF_SCOPE_CPU), 0);
	CHECK_INT(platform_paranoid_needed(PERF_SCOPE_TASK_USER), 2);
	CHECK_INT(platform_paranoid_needed(PERF_SCOPE_TASK_KERNEL), 1);
	CHECK_INT(platform_paranoid_needed(PERF_SCOPE_TRACEPOINT), -1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[PLATFORM_NOTE_MAX];
		int n = platform_permission_text(cases[i].paranoid, cases[i].root, cases[i].perfmon,
						 cases[i].scope, cases[i].denied, buf, sizeof(buf));
		CHECK(n >= 0 && (size_t)n < sizeof(buf), "line %d: %d bytes do not fit",
		      cases[i].line, n);
		CHECK(strcmp(buf, cases[i].want) == 0, "line %d:\n got %s\nwant %s", cases[i].line,
		      buf, cases[i].want);
	}
	/* the longest hint of any level, scope and privilege fits a note and a message */
	for (int level = -99; level <= 100000; level = level < 10 ? level + 1 : level * 10)
		for (int scope = PERF_SCOPE_CPU; scope <= PERF_SCOPE_TRACEPOINT; scope++)
			for (int d = 0; d < 2; d++) {
				char buf[PLATFORM_NOTE_MAX];
				int n = platform_permission_text(level, false, false, scope, d, buf,
								 sizeof(buf));
				CHECK(n >= 0 && (size_t)n < sizeof(buf),
				      "level %d scope %d: %d bytes", level, scope, n);
			}
	/* the supplied tree's level, not this machine's: the summary names it in full */
	if (!detect("arm-biglittle"))
		return;
	char want[PLATFORM_NOTE_MAX];
	platform_permission_text(1, false, false, PERF_SCOPE_CPU, false, want, sizeof(want));
	CHECK(strstr(pf.capability, want) != NULL, "%s lacks %s", pf.capability, want);
	CHECK(strstr(pf.capability, "(it is 1)") != NULL, "%s", pf.capability);
	char hint[PLATFORM_NOTE_MAX];
	platform_permission_hint(&pf, PERF_SCOPE_TRACEPOINT, true, hint, sizeof(hint));
	CHECK(strstr(hint, "<= -1 (it is 1)") &&
		  strstr(hint, "sysctl kernel.perf_event_paranoid=-1"),
	      "%s", hint);
	/* every note is complete in the joined summary, however many there are */
	pf.nmi_watchdog = 1;
	pf.pmus_dropped = 3;
	platform_describe(&pf);
	for (int i = 0; i < pf.nnotes; i++)
		CHECK(strstr(pf.capability, pf.notes[i]) != NULL, "note %d cut: %s", i,
		      pf.notes[i]);
}

int main(void)
{
	test_trees();
	test_permission_hint();
	test_percpu();
	test_pmus();
	test_arm_pmus();
	test_slots();
	test_describe();
	test_live();
	test_errors();
	test_read_online();
	test_mutations();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmumachine.c: the machine facts perf's pmu-events library is chosen by (CPUID or MIDR,
 * topology, slots), read from the platform and its sysfs root. */
#include "cpuset.h"
#include "family.h"
#include "linereader.h"
#include "platform.h"
#include "pmuevents.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a small integer file @rel under @root ("/sys/..."); -1 if absent or not a number. */
static long read_num(const char *root, const char *rel)
{
	char path[4400], buf[64];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (lr_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 0);
	return errno || end == buf ? -1 : v;
}

/* The same for "/sys/devices/system/cpu/cpu@cpu/topology/@file". */
static long read_topology(const char *root, int cpu, const char *file)
{
	char rel[160];
	snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	return read_num(root, rel);
}

/* ---- the machine ------------------------------------------------------------------------ */

/* Packages and cores from /proc/cpuinfo's "physical id" and "core id" (x86) where sysfs has no
 * topology/ directories. */
static bool cpuinfo_topology(const char *root, int *ncpu, int *npkg, int *ncore)
{
	char path[4400], err[128];
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	struct linereader *lr = lr_open(path, LR_TEXT_LINE_MAX, LR_NONBLOCK, err, sizeof(err));
	if (!lr)
		return false;
	enum { MAXT = 4096 };
	static long pk[MAXT], co[MAXT];
	int n = 0, p = 0, c = 0;
	long cur_pkg = -1;
	const char *text;
	size_t len;
	while (lr_next(lr, &text, &len, err, sizeof(err)) == LR_LINE && n < MAXT) {
		if (strncmp(text, "physical id", 11) == 0 && strchr(text, ':'))
			cur_pkg = atol(strchr(text, ':') + 1);
		else if (strncmp(text, "core id", 7) == 0 && strchr(text, ':') && cur_pkg >= 0) {
			long core = atol(strchr(text, ':') + 1);
			bool np = true, nc = true;
			for (int i = 0; i < n; i++) {
				np = np && pk[i] != cur_pkg;
				nc = nc && !(pk[i] == cur_pkg && co[i] == core);
			}
			pk[n] = cur_pkg, co[n] = core;
			p += np, c += nc, n++;
			cur_pkg = -1;
		}
	}
	lr_close(lr);
	*ncpu = n, *npkg = p, *ncore = c;
	return n > 0;
}

void platform_pmuev_machine(const struct platform *pf, struct pmuev_machine *m)
{
	memset(m, 0, sizeof(*m));
	const char *root = pf->root;
	bool arm = pf->arm_implementer != 0 || pf->arm_midr != 0;
	snprintf(m->arch, sizeof(m->arch), "%s", arm ? "arm64" : "x86");
	if (arm)
		snprintf(m->cpuid, sizeof(m->cpuid), "0x%016llx", pf->arm_midr);
	else
		snprintf(m->cpuid, sizeof(m->cpuid), "%s-%d-%X-%X", pf->cpu_vendor,
			 pf->cpu_family < 0 ? 0 : pf->cpu_family,
			 (unsigned)(pf->cpu_model < 0 ? 0 : pf->cpu_model),
			 (unsigned)(pf->cpu_stepping < 0 ? 0 : pf->cpu_stepping));
	m->num_cpus = cpuset_count(&pf->present);
	if (m->num_cpus <= 0)
		m->num_cpus = cpuset_count(&pf->possible);
	m->num_online = cpuset_count(&pf->online);
	/* topology: distinct packages, (package, die) and (package, core) of the online CPUs */
	enum { MAXT = 4096 };
	static long pkg[MAXT], die[MAXT], core[MAXT];
	int n = 0, npkg = 0, ndie = 0, ncore = 0;
	bool known = true;
	for (int c = cpuset_next(&pf->online, 0); c >= 0 && n < MAXT;
	     c = cpuset_next(&pf->online, c + 1)) {
		long p = read_topology(root, c, "physical_package_id");
		long d = read_topology(root, c, "die_id");
		long k = read_topology(root, c, "core_id");
		if (p < 0 || k < 0) {
			known = false;
			break;
		}
		pkg[n] = p, die[n] = d < 0 ? 0 : d, core[n] = k;
		bool np = true, nd = true, nc = true;
		for (int i = 0; i < n; i++) {
			np = np && pkg[i] != p;
			nd = nd && !(pkg[i] == p && die[i] == die[n]);
			nc = nc && !(pkg[i] == p && core[i] == k);
		}
		npkg += np, ndie += nd, ncore += nc;
		n++;
	}
	if (!known || !n)
		known = cpuinfo_topology(root, &n, &npkg, &ncore);
	ndie = known && ndie == 0 ? npkg : ndie;
	m->num_packages = known && n ? npkg : -1;
	m->num_dies = known && n ? ndie : -1;
	m->num_cores = known && n ? ncore : -1;
	long smt = read_num(root, "/sys/devices/system/cpu/smt/active");
	m->smt_on = smt >= 0 ? smt != 0 : (known && n ? ncore < n : -1);
	m->slots = -1;
	for (int i = 0; i < pf->npmus && m->ncore_pmus < 4; i++)
		if (pf->pmus[i].is_core)
			snprintf(m->core_pmus[m->ncore_pmus++], sizeof(m->core_pmus[0]), "%s",
				 pf->pmus[i].name);
	static const char *const atoms[] = {"atom", "slm", "glm", "grt"};
	for (size_t i = 0; m->ncore_pmus == 1 && i < sizeof(atoms) / sizeof(atoms[0]); i++)
		m->atom |= family_is_a(pf->family, atoms[i]);
	for (int i = 0; i < pf->npmus; i++)
		if (pf->pmus[i].is_core) {
			char rel[160];
			snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/caps/slots",
				 pf->pmus[i].name);
			long slots = read_num(root, rel);
			m->slots = slots > 0 && slots < 1000 ? (int)slots : -1;
			break;
		}
	const char *at = strstr(pf->cpu_model_name, "@ ");
	if (at && strstr(at, "GHz"))
		m->tsc_ghz = strtod(at + 2, NULL);
}

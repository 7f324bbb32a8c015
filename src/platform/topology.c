/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.c: each CPU's socket, die, cluster, core, last-level cache and core type from sysfs. */
#include "topology.h"
#include "linereader.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A small decimal file under the CPU's directory; -1 when missing or not a number. */
static int read_id(const char *dir, const char *file)
{
	char path[4352], buf[64], *end;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (lr_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	long v = strtol(buf, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == buf || *end || v < 0 || v > 1000000)
		return -1;
	return (int)v;
}

/* The first CPU of a CPU list file ("0-1,8"); -1 when missing or unreadable. */
static int read_first_cpu(const char *dir, const char *file)
{
	char path[4352], buf[8192], e[96];
	struct cpuset s;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (lr_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	if (cpuset_parse(&s, buf, e, sizeof(e)) < 0)
		return -1;
	return cpuset_next(&s, 0);
}

static void note(struct topology *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct topology *t, const char *fmt, ...)
{
	char text[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (int i = 0; i < t->nnotes; i++)
		if (strcmp(t->notes[i], text) == 0)
			return; /* said once */
	if (t->nnotes < TOPOLOGY_MAX_NOTES)
		snprintf(t->notes[t->nnotes++], sizeof(t->notes[0]), "%s", text);
}

static int grow(struct topology *t, int cpu)
{
	if (cpu < t->ncpus)
		return 0;
	struct topo_cpu *p = realloc(t->cpu, (size_t)(cpu + 1) * sizeof(*p));
	if (!p)
		return -1;
	memset(p + t->ncpus, 0, (size_t)(cpu + 1 - t->ncpus) * sizeof(*p));
	t->cpu = p;
	t->ncpus = cpu + 1;
	return 0;
}

/* The last-level cache of the CPU in @dir: the highest level among its data and unified
 * caches (perf's --per-cache default), its id, else the first CPU sharing it. */
static void read_cache(struct topology *t, const char *dir, int cpu, struct topo_cpu *c)
{
	char idx[4400], type[32], path[4500];
	int best = -1;
	for (int i = 0; i < 16; i++) {
		snprintf(idx, sizeof(idx), "%s/cache/index%d", dir, i);
		int level = read_id(idx, "level");
		if (level < 0)
			continue;
		snprintf(path, sizeof(path), "%s/type", idx);
		if (lr_read_small(path, type, sizeof(type)) > 0 &&
		    strncmp(type, "Instruction", 11) == 0)
			continue;
		if (level <= c->cache_level)
			continue;
		c->cache_level = level;
		best = i;
	}
	if (best < 0) {
		note(t, "no cache/index*/level: a cache domain per CPU");
		c->cache = cpu;
		return;
	}
	snprintf(idx, sizeof(idx), "%s/cache/index%d", dir, best);
	c->cache = read_id(idx, "id");
	if (c->cache < 0) {
		c->cache = read_first_cpu(idx, "shared_cpu_list");
		note(t, "no cache id: cache domains named by their first CPU");
	}
	if (c->cache < 0) {
		c->cache = cpu;
		note(t, "no cache shared_cpu_list: a cache domain per CPU");
	}
}

int topology_read(struct topology *t, const char *root, const struct cpuset *cpus,
		  const char *(*type_of)(int cpu, void *arg), void *arg)
{
	memset(t, 0, sizeof(*t));
	if (!root || strcmp(root, "/") == 0)
		root = "";
	struct cpuset unknown;
	cpuset_clear(&unknown);
	for (int cpu = cpuset_next(cpus, 0); cpu >= 0; cpu = cpuset_next(cpus, cpu + 1)) {
		if (grow(t, cpu) < 0)
			return -1;
		struct topo_cpu *c = &t->cpu[cpu];
		char dir[4200], top[4300];
		snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpu%d", root, cpu);
		snprintf(top, sizeof(top), "%s/topology", dir);
		const char *type = type_of ? type_of(cpu, arg) : "";
		snprintf(c->type, sizeof(c->type), "%s", type ? type : "");
		c->socket = read_id(top, "physical_package_id");
		c->core = read_id(top, "core_id");
		if (c->socket < 0 && c->core < 0) {
			cpuset_add(&unknown, cpu);
			c->known = false;
			c->core = cpu;
			c->socket = c->die = c->cluster = 0;
			c->cache = cpu;
			continue;
		}
		c->known = true;
		if (c->socket < 0) {
			note(t, "no physical_package_id: one socket (S0)");
			c->socket = 0;
		}
		c->die = read_id(top, "die_id");
		if (c->die < 0) {
			note(t, "no die_id: a die per socket (D0)");
			c->die = 0;
		}
		c->cluster = read_id(top, "cluster_id");
		if (c->cluster < 0 || c->cluster == 65535) {
			/* absent, or the kernel's "no cluster" (x86 without an L2 id, VMs) */
			note(t, "no cluster_id: a cluster per die (CLS0)");
			c->cluster = 0;
		}
		if (c->core < 0) {
			c->core = read_first_cpu(top, "core_cpus_list");
			if (c->core < 0)
				c->core = read_first_cpu(top, "thread_siblings_list");
			note(t, "no core_id: cores named by their first thread");
			if (c->core < 0) {
				note(t, "no core_cpus_list: a core per CPU");
				c->core = cpu;
			}
		}
		read_cache(t, dir, cpu, c);
	}
	if (cpuset_count(&unknown)) {
		char list[64];
		note(t, "no topology/ for CPU %s: each a row of its own (CPUn)",
		     cpuset_format(&unknown, list, sizeof(list)));
	}
	return 0;
}

int topology_set(struct topology *t, int cpu, const struct topo_cpu *place)
{
	if (cpu < 0 || grow(t, cpu) < 0)
		return -1;
	t->cpu[cpu] = *place;
	return 0;
}

const struct topo_cpu *topology_cpu(const struct topology *t, int cpu)
{
	if (!t || cpu < 0 || cpu >= t->ncpus)
		return NULL;
	return &t->cpu[cpu];
}

void topology_free(struct topology *t)
{
	free(t->cpu);
	memset(t, 0, sizeof(*t));
}

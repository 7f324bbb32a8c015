/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h: where each CPU sits (socket, die, cluster, core, cache domain, core type), from
 * sysfs under a root or from a recording's header. */
#ifndef PMUTOP_TOPOLOGY_H
#define PMUTOP_TOPOLOGY_H
#include "cpuset.h"
#include <stdbool.h>
#include <stddef.h>

#define TOPOLOGY_TYPE_MAX 32 /* bytes of a core type name with its NUL */

/* One CPU's place. Ids are the kernel's (topology/ and cache/index*), never -1 once read: a
 * missing file falls back as struct topology's notes say. */
struct topo_cpu {
	bool known;	 /* the CPU's topology was read (sysfs or recording) */
	int socket;	 /* physical_package_id */
	int die;	 /* die_id; the socket's only die (0) when absent */
	int cluster;	 /* cluster_id; the die's only cluster (0) when absent */
	int core;	 /* core_id; else the first CPU of core_cpus_list / thread_siblings_list;
			  * else the CPU itself */
	int cache_level; /* level of its last-level cache (2, 3), 0 unknown */
	int cache;	 /* that cache's id; else the first CPU of its shared_cpu_list */
	char type[TOPOLOGY_TYPE_MAX]; /* core type ("cpu_core", "armv8_cortex_a53"), "" none */
};

/* What was missing, each said once ("no die_id: a die per socket"). */
#define TOPOLOGY_MAX_NOTES 6
struct topology {
	int ncpus;	      /* entries in cpu[]: the highest CPU read + 1 */
	struct topo_cpu *cpu; /* [cpu number] */
	int nnotes;
	char notes[TOPOLOGY_MAX_NOTES][96];
};

/* Reads the topology of the CPUs in @cpus from <@root>/sys/devices/system/cpu/cpuN ("" or "/"
 * or NULL: the live system); @type_of (may be NULL) names each CPU's core type. A CPU whose
 * topology/ directory is missing is not known (a row of its own). Returns 0, or -1 when out of
 * memory. */
int topology_read(struct topology *t, const char *root, const struct cpuset *cpus,
		  const char *(*type_of)(int cpu, void *arg), void *arg);
/* Sets CPU @cpu's place (a recording's header); grows the table. Returns 0 or -1 (ENOMEM). */
int topology_set(struct topology *t, int cpu, const struct topo_cpu *place);
/* CPU @cpu's place (its type alone when not known), or NULL when it was never read. */
const struct topo_cpu *topology_cpu(const struct topology *t, int cpu);
void topology_free(struct topology *t);

/* The unit a row is keyed by. The topology units group CPUs; later kinds (a task, a cgroup)
 * key rows by other ids with the same struct row_key. */
enum row_unit {
	ROWS_CPU,     /* one row per CPU, "0" (the default) */
	ROWS_CORE,    /* SMT siblings summed, S0-D0-C1 (perf --per-core) */
	ROWS_DIE,     /* S0-D0 (perf --per-die) */
	ROWS_SOCKET,  /* S0 (perf --per-socket) */
	ROWS_CLUSTER, /* S0-D0-CLS0 (perf --per-cluster) */
	ROWS_CACHE,   /* the last-level cache domain, S0-D0-L3-ID0 (perf --per-cache) */
	ROWS_TYPE,    /* core type of a hybrid / big.LITTLE machine, cpu_core */
	ROWS_NUNITS,  /* the units :rows and --rows choose; the kinds below come from what is
		       * counted (target.h: -p, -t, -u, -- CMD, -G) */
	ROWS_TASK = ROWS_NUNITS, /* a process or thread, "comm[pid]" */
	ROWS_CGROUP,		 /* a cgroup v2 group, its path under /sys/fs/cgroup */
	ROWS_NODE,		 /* a NUMA node, N0 (an imported perf stat --per-node capture) */
	ROWS_NKINDS
};

/* One row's key: its kind, an id unique within the kind, and the label outputs print. */
#define ROW_LABEL_MAX 40
struct row_key {
	enum row_unit kind;
	long id;      /* the CPU, or the group's index in row order */
	int tuple[4]; /* the numeric key rows sort by: (socket, die, core) for a core, ... */
	char label[ROW_LABEL_MAX]; /* "3", "S0-D0-C1", "S1", "cpu_atom" */
	int ncpus;     /* CPUs summed into the row (counted this tick, or all when none) */
	int first_cpu; /* its lowest CPU */
};

#endif

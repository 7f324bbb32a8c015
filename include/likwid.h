/* SPDX-License-Identifier: GPL-2.0-or-later */
/* likwid.h: likwid performance groups (<dir>/<arch>/<GROUP>.txt) read as modes likwid:GROUP. */
#ifndef PMUTOP_LIKWID_H
#define PMUTOP_LIKWID_H
#include <stdbool.h>
#include <stddef.h>

struct mode;
struct mode_registry;
struct pmu_family;

#define LIKWID_PREFIX "likwid:"
#define LIKWID_MAX_GROUPS 512 /* group files read from one directory */

/* What translating a group needs to know about the machine. */
struct likwid_env {
	const struct pmu_family *family; /* whose events the groups are mapped to */
	const char *sysfs_root;		 /* for encoding checks ("" = live) */
	int cpu_family, cpu_model;	 /* /proc/cpuinfo (x86), -1 unknown: server parts */
	double nominal_hz;		 /* the nominal clock for inverseClock; 0 = unknown */
	char clock_source[160];		 /* where nominal_hz came from, or why it is unknown */
};

/* Fills env->nominal_hz from <root>/sys/devices/system/cpu/cpu0/cpufreq/base_frequency, else
 * the "@ 3.20GHz" in @model_name (/proc/cpuinfo's model name), else cpufreq cpuinfo_max_freq;
 * 0 with the reason in clock_source when none says. @root NULL: no sysfs (a recorded machine). */
void likwid_env_clock(struct likwid_env *env, const char *root, const char *model_name);

/* What one group gave. */
struct likwid_group_info {
	int events, mapped;    /* EVENTSET lines, and those mapped to an event here */
	int metrics, computed; /* METRICS lines, and those that run here */
	char unmapped[512];    /* "MBOX0C1 DRAM_READS (uncore ...); ..." (first ones) */
};

/* Translates one group file's @text into mode "likwid:@group" for env->family. Events that
 * cannot be mapped and the metrics needing them are named in the mode's help. NULL with
 * "label:line: message" in @err when the file is malformed or nothing in it can run. */
struct mode *likwid_group_parse(const char *label, const char *group, const char *text,
				const struct likwid_env *env, struct likwid_group_info *info,
				char *err, size_t errlen);

/* likwid's name for the arch directory of @fam's machine ("skylake", "silvermont", "arm8"), the
 * first of its family chain that has one; NULL for a family likwid has no groups for. */
const char *likwid_arch_of(const struct pmu_family *fam);

/* What loading a directory did. */
struct likwid_load {
	char dir[4096];	 /* the arch directory read */
	int files;	 /* *.txt files seen */
	int loaded;	 /* groups registered */
	int complete;	 /* of those, groups with every event mapped */
	char **warnings; /* "file:line: message" per group not loaded */
	int nwarnings;
};

/* Reads @dir/<arch>/<GROUP>.txt (arch from env->family and, as likwid tells server parts and
 * Zen generations apart, env->cpu_family/cpu_model), or @dir/<GROUP>.txt when @dir holds group
 * files, and registers each group as a mode (source = the file path). Returns the number of
 * groups loaded, or -1 with a message in @err when no directory fits (naming the family and
 * the arch directories @dir has) or it cannot be read; nothing is registered then. */
int likwid_load_dir(struct mode_registry *r, const char *dir, const struct likwid_env *env,
		    struct likwid_load *out, char *err, size_t errlen);
void likwid_load_free(struct likwid_load *l);

#endif

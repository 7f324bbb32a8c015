/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmuevents.h: perf's pmu-events JSON (tools/perf/pmu-events/arch) as a library of modes. */
#ifndef PMUTOP_PMUEVENTS_H
#define PMUTOP_PMUEVENTS_H
#include <stdbool.h>
#include <stddef.h>

struct mode;
struct mode_registry;
struct pmuev_lib;

#define PMUEV_FILE_MAX (16u << 20) /* bytes: the largest JSON file read (real ones: < 3 MiB) */
#define PMUEV_FORMULA_MAX 4096	   /* bytes: a metric's formula with its references inlined */

/* The machine facts a library is chosen and evaluated by, read under the platform's root. */
struct pmuev_machine {
	char arch[8];	/* "x86" or "arm64" */
	char cpuid[64]; /* "GenuineIntel-6-5E-3" (vendor-family-model-stepping), "0x...410fd034" */
	int num_cpus;	/* present CPUs */
	int num_online; /* online CPUs */
	int num_cores;	/* distinct (package, core); -1 unknown */
	int num_packages;      /* -1 unknown */
	int num_dies;	       /* -1 unknown */
	int smt_on;	       /* 1, 0, -1 unknown */
	int slots;	       /* core PMU caps/slots (x86 top-down slots per cycle), -1 unknown */
	double tsc_ghz;	       /* from the model name ("@ 3.20GHz"), 0 unknown */
	char core_pmus[4][16]; /* the core PMUs ("cpu"; a hybrid part: "cpu_core", "cpu_atom") */
	int ncore_pmus;
	bool atom; /* one core PMU, an Atom core: a hybrid model's Unit cpu_atom metrics apply */
};

/* platform_pmuev_machine (platform.h) fills it from the platform. */

/* Loads the model of @m from @dir (laid out as tools/perf/pmu-events/arch, or its arch/ or
 * arch/<arch>/ directory): picks the model through mapfile.csv (x86: the CPUID regex; arm64: the
 * MIDR without variant and revision), reads its event and metric files. Returns the library, or
 * NULL with a message naming the file in @err (nothing is changed then). */
struct pmuev_lib *pmuevents_open(const char *dir, const struct pmuev_machine *m, char *err,
				 size_t errlen);
void pmuevents_free(struct pmuev_lib *lib);

/* Registers one mode "perf:GROUP" per metric group (source = the metric file), dropping the
 * perf: modes of an earlier library first. A model with metrics per core type (JSON "Unit"
 * cpu_core, cpu_atom) on a machine with those core PMUs gets one mode per group and core type,
 * "perf:cpu_core.GROUP", whose struct mode.pmu names the PMU whose CPUs alone count it; on a
 * machine with one core PMU the core type of its core is used (cpu_atom for an Atom). Returns the
 * number of modes; @summary gets "model skylake (GenuineIntel-6-5E-3): 14 modes, 96 metrics,
 * 90 evaluable" (may be NULL). */
int pmuevents_register(struct pmuev_lib *lib, struct mode_registry *r, char *summary, size_t len);

/* A mode "perf:NAME" for the metric group or metric @name ("TopdownL1", "perf:IPC",
 * "perf:cpu_atom.TopdownL1" per core type): a metric gets a mode with it and the metrics it
 * refers to. Registered in @r (replacing one of that
 * name) and returned, or NULL with the reason in @err. */
const struct mode *pmuevents_mode(struct pmuev_lib *lib, struct mode_registry *r, const char *name,
				  char *err, size_t errlen);

/* -M LIST as perf stat -M: each comma-separated item a whole metric or metric group name, any
 * case; a metric is preferred over a group (tma_frontend_bound is the metric, not
 * tma_frontend_bound_group); an unknown name or a prefix is refused. The mode perf:A[+B...] is
 * registered and returned, or NULL with the reason in @err. */
const struct mode *pmuevents_metrics(struct pmuev_lib *lib, struct mode_registry *r,
				     const char *list, char *err, size_t errlen);

/* Counts for reports and tests. */
struct pmuev_stats {
	char model[64]; /* mapfile.csv's directory ("skylake", "arm/cortex-a53") */
	int events;	/* events read */
	int metrics;	/* metrics read */
	int parsed;	/* metrics whose MetricExpr parses */
	int evaluable;	/* metrics that translate into a formula over core events */
	int groups;	/* metric groups */
	int files;	/* JSON files read */
};
void pmuevents_stats(const struct pmuev_lib *lib, struct pmuev_stats *st);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* family.h: PMU families, the keys mode files use to pick events for a machine. */
#ifndef PMUTOP_FAMILY_H
#define PMUTOP_FAMILY_H
#include <stdbool.h>

/* One PMU family. Families form chains through @parent (e.g. skl -> intel -> generic):
 * a mode's events are looked up for the machine's family first, then each parent. */
struct pmu_family {
	const char *key;       /* "skl", "armv8", "xscale2", ... */
	const char *parent;    /* key of the fallback family, or NULL */
	const char *pfm_model; /* libpfm4 model prefix for "@::EVENT" specs, or NULL */
	const char *desc;      /* human name */
	int counters;	       /* programmable counters per logical CPU (0 = unknown) */
	int fixed;	       /* fixed counters (cycles/instructions/...) */
	bool filters_priv;     /* the PMU accepts exclude_user/kernel bits */
	unsigned counter_bits; /* hardware width of the programmable counters */
	const char *manual;    /* where the core's own event numbers come from ("Cortex-A9 TRM") */
	const unsigned short *implemented; /* event numbers the core has, FAMILY_EVENTS_END-ended;
					    * NULL = not listed (any number may count) */
};

#define FAMILY_EVENTS_END 0xffffu

/* Terminated by an entry whose key is NULL. */
extern const struct pmu_family pmu_families[];

const struct pmu_family *family_find(const char *key);
const struct pmu_family *family_from_caps_name(const char *pmu_name);
/* Family for an x86 CPU from /proc/cpuinfo (vendor_id, cpu family, model), as the kernel and
 * perf's mapfile.csv pick it: GenuineIntel family 6 only; NULL when the model is not in the table.
 * @caps (may be NULL) gets the caps/pmu_name the kernel writes for that model ("Tremont"). */
const struct pmu_family *family_from_x86_model(const char *vendor, int cpu_family, int model,
					       const char **caps);
/* The SMT-on variant of @fam ("skl" -> "skl_smt": top-down in per-core clocks), or NULL. */
const struct pmu_family *family_smt_variant(const struct pmu_family *fam);
/* Family for a sysfs core PMU name: "armv8_cortex_a53" -> cortex_a53, "armv8_pmuv3" -> armv8,
 * "armv7_cortex_a9" -> cortex_a9, "armv6_1176" -> armv6, "armv6_11mpcore" -> arm11mpcore,
 * "armv5_xscale2" -> xscale2; NULL for "cpu" (x86 needs caps or cpuinfo). */
const struct pmu_family *family_from_pmu_name(const char *pmu);
/* Family of an Arm core from its MIDR_EL1 implementer (bits 31:24) and part number (15:4):
 * 0x41/0xd40 -> neoverse_v1; NULL for a core without a table of its own. */
const struct pmu_family *family_from_midr(unsigned implementer, unsigned part);
/* Whether the core of @fam (or the nearest ancestor with a list) implements raw event @code:
 * 1 yes, 0 no, -1 no list to say. */
int family_implements(const struct pmu_family *fam, unsigned code);
/* Architected name of raw event @code on @fam's architecture ("INST_RETIRED"), or NULL. */
const char *family_event_name(const struct pmu_family *fam, unsigned code);
/* Raw code the kernel puts on the dedicated cycle counter (0x11 ARMv8, 0xff ARMv6/ARMv7,
 * 0xfe XScale CCNT), 0 where there is none. */
unsigned family_cycle_code(const struct pmu_family *fam);
/* True for ARMv8 families: their sysfs events/ directory lists the common events the core's
 * PMCEID registers say exist, so a common event missing there is not implemented. */
bool family_events_from_pmceid(const struct pmu_family *fam);
/* True if @code is an ARMv8 common event number (0x00-0x3f, 0x4000-0x403f). */
bool family_is_common_event(unsigned code);
/* True if @key is @fam or one of its ancestors. */
bool family_is_a(const struct pmu_family *fam, const char *key);

#endif

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
};

/* Terminated by an entry whose key is NULL. */
extern const struct pmu_family pmu_families[];

const struct pmu_family *family_find(const char *key);
/* Family for a libpfm4 model name ("skl") or a sysfs caps/pmu_name ("skylake"); NULL if none. */
const struct pmu_family *family_from_pfm_model(const char *model);
const struct pmu_family *family_from_caps_name(const char *pmu_name);
/* Family for a sysfs core PMU name: "armv8_cortex_a53" -> armv8, "armv5_xscale2" -> xscale2,
 * "armv7_cortex_a9" -> armv7; NULL for "cpu" (x86 needs caps or cpuinfo). */
const struct pmu_family *family_from_pmu_name(const char *pmu);
/* True if @key is @fam or one of its ancestors. */
bool family_is_a(const struct pmu_family *fam, const char *key);

#endif

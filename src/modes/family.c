/* family.c: the table of PMU families and how sysfs and libpfm4 names map onto it. */
#include "family.h"
#include <string.h>

const struct pmu_family pmu_families[] = {
    {.key = "sw",
     .desc = "software events (no hardware PMU)",
     .filters_priv = true,
     .counter_bits = 64},
    {.key = "generic",
     .desc = "perf generic hardware events",
     .filters_priv = true,
     .counter_bits = 64},
    {.key = "intel",
     .parent = "generic",
     .pfm_model = "ix86arch",
     .desc = "Intel architectural",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "nhm",
     .parent = "intel",
     .pfm_model = "nhm",
     .desc = "Intel Nehalem",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "wsm",
     .parent = "intel",
     .pfm_model = "wsm",
     .desc = "Intel Westmere",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "snb",
     .parent = "intel",
     .pfm_model = "snb",
     .desc = "Intel Sandy Bridge",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "ivb",
     .parent = "intel",
     .pfm_model = "ivb",
     .desc = "Intel Ivy Bridge",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "hsw",
     .parent = "intel",
     .pfm_model = "hsw",
     .desc = "Intel Haswell",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "bdw",
     .parent = "intel",
     .pfm_model = "bdw",
     .desc = "Intel Broadwell",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "skl",
     .parent = "intel",
     .pfm_model = "skl",
     .desc = "Intel Skylake",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "skx",
     .parent = "intel",
     .pfm_model = "skx",
     .desc = "Intel Skylake-X/Cascade Lake",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "icl",
     .parent = "intel",
     .pfm_model = "icl",
     .desc = "Intel Ice Lake",
     .counters = 8,
     .fixed = 4,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "icx",
     .parent = "intel",
     .pfm_model = "icx",
     .desc = "Intel Ice Lake-SP",
     .counters = 8,
     .fixed = 4,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "spr",
     .parent = "intel",
     .pfm_model = "spr",
     .desc = "Intel Sapphire Rapids",
     .counters = 8,
     .fixed = 4,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "atom",
     .parent = "intel",
     .pfm_model = "atom",
     .desc = "Intel Atom (Bonnell)",
     .counters = 2,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 40},
    {.key = "slm",
     .parent = "intel",
     .pfm_model = "slm",
     .desc = "Intel Atom Silvermont",
     .counters = 2,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 40},
    {.key = "glm",
     .parent = "intel",
     .pfm_model = "glm",
     .desc = "Intel Atom Goldmont",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "amd",
     .parent = "generic",
     .desc = "AMD",
     .counters = 4,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "zen",
     .parent = "amd",
     .pfm_model = "amd64_fam17h_zen1",
     .desc = "AMD Zen",
     .counters = 6,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "armv8",
     .parent = "generic",
     .desc = "ARMv8 PMUv3",
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "armv7",
     .parent = "generic",
     .desc = "ARMv7 Cortex-A",
     .counters = 4,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "xscale",
     .parent = "generic",
     .desc = "Intel XScale",
     .counters = 2,
     .fixed = 1,
     .filters_priv = false,
     .counter_bits = 32},
    {.key = "xscale1",
     .parent = "xscale",
     .desc = "Intel XScale (xscale1: CCNT + 2)",
     .counters = 2,
     .fixed = 1,
     .filters_priv = false,
     .counter_bits = 32},
    {.key = "xscale2",
     .parent = "xscale",
     .desc = "Intel XScale (xscale2: CCNT + 4)",
     .counters = 4,
     .fixed = 1,
     .filters_priv = false,
     .counter_bits = 32},
    {0},
};

/* sysfs caps/pmu_name (set by the kernel's intel_pmu_init) -> family key. */
static const struct {
	const char *caps;
	const char *key;
} caps_names[] = {
    {"nehalem", "nhm"},
    {"westmere", "wsm"},
    {"sandybridge", "snb"},
    {"ivybridge", "ivb"},
    {"haswell", "hsw"},
    {"broadwell", "bdw"},
    {"skylake", "skl"},
    {"icelake", "icl"},
    {"icelake_server", "icx"},
    {"sapphire_rapids", "spr"},
    {"silvermont", "slm"},
    {"goldmont", "glm"},
    {"goldmont_plus", "glm"},
    {"knights-landing", "intel"},
    {"core2", "intel"},
    {"meroml", "intel"},
    {"bonnell", "atom"},
    {"tremont", "glm"},
    {NULL, NULL},
};

const struct pmu_family *family_find(const char *key)
{
	if (!key)
		return NULL;
	for (const struct pmu_family *f = pmu_families; f->key; f++)
		if (strcmp(f->key, key) == 0)
			return f;
	return NULL;
}

const struct pmu_family *family_from_pfm_model(const char *model)
{
	for (const struct pmu_family *f = pmu_families; f->key; f++)
		if (f->pfm_model && strcmp(f->pfm_model, model) == 0)
			return f;
	if (strncmp(model, "amd64_fam1", 10) == 0)
		return family_find("zen");
	return NULL;
}

const struct pmu_family *family_from_caps_name(const char *pmu_name)
{
	for (size_t i = 0; caps_names[i].caps; i++)
		if (strcmp(caps_names[i].caps, pmu_name) == 0)
			return family_find(caps_names[i].key);
	if (strncmp(pmu_name, "generic_arch", 12) == 0)
		return family_find("intel");
	return NULL;
}

const struct pmu_family *family_from_pmu_name(const char *pmu)
{
	if (strncmp(pmu, "armv5_xscale1", 13) == 0 || strcmp(pmu, "xscale1") == 0)
		return family_find("xscale1");
	if (strncmp(pmu, "armv5_xscale2", 13) == 0 || strcmp(pmu, "xscale2") == 0)
		return family_find("xscale2");
	if (strncmp(pmu, "armv8_", 6) == 0 || strncmp(pmu, "armv9_", 6) == 0)
		return family_find("armv8");
	if (strncmp(pmu, "armv7_", 6) == 0 || strncmp(pmu, "armv6_", 6) == 0)
		return family_find("armv7");
	return NULL;
}

bool family_is_a(const struct pmu_family *fam, const char *key)
{
	for (; fam; fam = family_find(fam->parent))
		if (strcmp(fam->key, key) == 0)
			return true;
	return false;
}

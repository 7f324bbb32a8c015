/* SPDX-License-Identifier: GPL-2.0-or-later */
/* family.c: the table of PMU families and how sysfs and libpfm4 names map onto it. */
#include "family.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Event numbers each core implements (its TRM; the kernel's perf_event_v6.c/v7.c maps agree),
 * ended by FAMILY_EVENTS_END. 0xff on ARMv6/ARMv7 is the kernel's code for the cycle counter. */
#define E FAMILY_EVENTS_END
static const unsigned short armv6_events[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09,
					      0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10, 0x11, 0x12, 0x20,
					      0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xff, E};
static const unsigned short arm11mpcore_events[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
						    0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
						    0x0f, 0x10, 0x11, 0x12, 0x13, 0xff, E};
static const unsigned short cortex_a5_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x86, 0x87, 0xc0,
    0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xff, E};
static const unsigned short cortex_a7_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1d, 0x60, 0x61, 0x86,
    0x87, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc7, 0xc8, 0xc9, 0xca, 0xff, E};
static const unsigned short cortex_a8_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
    0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46,
    0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53,
    0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x70, 0x71, 0x72, 0xff, E};
/* No 0x08 (instructions architecturally executed) and no 0x0e: Cortex-A9 TRM, table 11-5. */
static const unsigned short cortex_a9_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10,
    0x11, 0x12, 0x40, 0x41, 0x42, 0x50, 0x51, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,
    0x68, 0x6e, 0x70, 0x71, 0x72, 0x73, 0x74, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x8a,
    0x8b, 0x90, 0x91, 0x92, 0x93, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xff, E};
static const unsigned short cortex_a15_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13,
    0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x40, 0x41, 0x42, 0x43,
    0x46, 0x47, 0x48, 0x4c, 0x4d, 0x50, 0x51, 0x52, 0x53, 0x56, 0x57, 0x58, 0x60, 0x61,
    0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6c, 0x6d, 0x6e, 0x70, 0x71,
    0x72, 0x73, 0x74, 0x75, 0x76, 0x78, 0x79, 0x7a, 0x7c, 0x7d, 0x7e, 0xff, E};
/* Cortex-A12 and Cortex-A17 share their event list (and the kernel's maps). */
static const unsigned short cortex_a17_events[] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
    0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x1d, 0x40, 0x41, 0x50, 0x51, 0x56, 0x57, 0x58, 0x60,
    0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6c, 0x6e, 0x6f, 0x70, 0x71, 0x72,
    0x73, 0x74, 0x75, 0x76, 0x78, 0x79, 0x7a, 0x7c, 0x7d, 0x7e, 0x81, 0x8a, 0xc0, 0xc1, 0xc2,
    0xc3, 0xc4, 0xca, 0xd3, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3,
    0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xff, E};
/* PMCEID0 = 0x67ffbfff, PMCEID1 = 0 (no 0x0e, 0x1b, 0x1c, no STALL_* or LL_CACHE_*), plus
 * the implementation-defined 0x60-0x61, 0x7a, 0x86-0x87, 0xc0-0xd2 and 0xe0-0xe8. */
static const unsigned short cortex_a53_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1d, 0x1e, 0x60, 0x61,
    0x7a, 0x86, 0x87, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb,
    0xcc, 0xd0, 0xd1, 0xd2, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, E};
/* Cortex-A57 and Cortex-A72: no 0x06/0x07, 0x0c-0x0f, no STALL_* or LL_CACHE_*. */
static const unsigned short cortex_a57_events[] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13,
    0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x40, 0x41, 0x42,
    0x43, 0x46, 0x47, 0x48, 0x4c, 0x4d, 0x50, 0x51, 0x52, 0x53, 0x56, 0x57, 0x58, 0x60,
    0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6c, 0x6d, 0x6e, 0x70,
    0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x78, 0x79, 0x7a, 0x7c, 0x7d, 0x7e, 0x81, 0x82,
    0x83, 0x84, 0x86, 0x87, 0x88, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, E};
#undef E

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
    /* SMT on: the same PMU; top-down divides by per-core clocks (perf's snb/ivb/hsw/bdw/skl/skx
     * -metrics.json CORE_CLKS = CPU_CLK_UNHALTED.THREAD_ANY / 2 when #SMT_on) */
    {.key = "snb_smt",
     .parent = "snb",
     .pfm_model = "snb",
     .desc = "Intel Sandy Bridge (SMT on)",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "ivb_smt",
     .parent = "ivb",
     .pfm_model = "ivb",
     .desc = "Intel Ivy Bridge (SMT on)",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "hsw_smt",
     .parent = "hsw",
     .pfm_model = "hsw",
     .desc = "Intel Haswell (SMT on)",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "bdw_smt",
     .parent = "bdw",
     .pfm_model = "bdw",
     .desc = "Intel Broadwell (SMT on)",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "skl_smt",
     .parent = "skl",
     .pfm_model = "skl",
     .desc = "Intel Skylake (SMT on)",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "skx_smt",
     .parent = "skx",
     .pfm_model = "skx",
     .desc = "Intel Skylake-X/Cascade Lake (SMT on)",
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
    /* Tremont: Goldmont's libpfm4 model (libpfm4 4.13 has none of its own), its own TOPDOWN_*
     * events by raw code */
    {.key = "tmt",
     .parent = "glm",
     .pfm_model = "glm",
     .desc = "Intel Atom Tremont",
     .counters = 4,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    /* Alder Lake-N / N100 (E-cores only): libpfm4 4.13 has no model of it; its own raw codes
     * (Intel's alderlake list, Unit cpu_atom) where a mode has them, else architectural and
     * perf generic events */
    {.key = "grt",
     .parent = "intel",
     .desc = "Intel Atom Gracemont (Alder Lake-N)",
     .counters = 6,
     .fixed = 3,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "amd",
     .parent = "generic",
     .desc = "AMD",
     .counters = 4,
     .filters_priv = true,
     .counter_bits = 48},
    /* Zen 1 and Zen 2 (Family 17h) share one table, in libpfm4's Zen 1 names (its Zen 2
     * model lacks some of them); Zen 3 and Zen 4 have tables of their own and fall back to
     * the AMD (generic) ones */
    {.key = "zen",
     .parent = "amd",
     .pfm_model = "amd64_fam17h_zen1",
     .desc = "AMD Zen 1/2 (Family 17h)",
     .counters = 6,
     .filters_priv = true,
     .counter_bits = 48},
    {.key = "zen3",
     .parent = "amd",
     .pfm_model = "amd64_fam19h_zen3",
     .desc = "AMD Zen 3",
     .counters = 6,
     .filters_priv = true,
     .counter_bits = 48},
    /* Zen 4: falls back to the AMD (generic) sections, not to Zen1's event names */
    {.key = "zen4",
     .parent = "amd",
     .pfm_model = "amd64_fam19h_zen4",
     .desc = "AMD Zen 4",
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
    {.key = "cortex_a53",
     .parent = "armv8",
     .desc = "ARM Cortex-A53 (PMUv3)",
     .manual = "Cortex-A53 TRM",
     .implemented = cortex_a53_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a57",
     .parent = "armv8",
     .desc = "ARM Cortex-A57 (PMUv3)",
     .manual = "Cortex-A57 TRM",
     .implemented = cortex_a57_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a72",
     .parent = "armv8",
     .desc = "ARM Cortex-A72 (PMUv3)",
     .manual = "Cortex-A72 TRM",
     .implemented = cortex_a57_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    /* Neoverse cores: found by MIDR part number where the kernel names the PMU armv8_pmuv3
     * (ACPI machines); their common events come from the PMU's events/ (PMCEID). */
    {.key = "neoverse_n1",
     .parent = "armv8",
     .desc = "Arm Neoverse N1 (PMUv3p1)",
     .manual = "Neoverse N1 TRM",
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "neoverse_v1",
     .parent = "armv8",
     .desc = "Arm Neoverse V1 (PMUv3p4, 8 slots)",
     .manual = "Neoverse V1 TRM",
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "neoverse_n2",
     .parent = "armv8",
     .desc = "Arm Neoverse N2 (PMUv3p5, 5 slots)",
     .manual = "Neoverse N2 TRM",
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "neoverse_v2",
     .parent = "armv8",
     .desc = "Arm Neoverse V2 (PMUv3p5, 8 slots)",
     .manual = "Neoverse V2 TRM",
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
    {.key = "cortex_a5",
     .parent = "armv7",
     .desc = "ARM Cortex-A5",
     .manual = "Cortex-A5 TRM",
     .implemented = cortex_a5_events,
     .counters = 2,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a7",
     .parent = "armv7",
     .desc = "ARM Cortex-A7",
     .manual = "Cortex-A7 MPCore TRM",
     .implemented = cortex_a7_events,
     .counters = 4,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a8",
     .parent = "armv7",
     .desc = "ARM Cortex-A8",
     .manual = "Cortex-A8 TRM",
     .implemented = cortex_a8_events,
     .counters = 4,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a9",
     .parent = "armv7",
     .desc = "ARM Cortex-A9",
     .manual = "Cortex-A9 TRM",
     .implemented = cortex_a9_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a12",
     .parent = "armv7",
     .desc = "ARM Cortex-A12",
     .manual = "Cortex-A12 TRM",
     .implemented = cortex_a17_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a15",
     .parent = "armv7",
     .desc = "ARM Cortex-A15",
     .manual = "Cortex-A15 TRM",
     .implemented = cortex_a15_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "cortex_a17",
     .parent = "armv7",
     .desc = "ARM Cortex-A17",
     .manual = "Cortex-A17 TRM",
     .implemented = cortex_a17_events,
     .counters = 6,
     .fixed = 1,
     .filters_priv = true,
     .counter_bits = 32},
    {.key = "armv6",
     .parent = "generic",
     .desc = "ARMv6 ARM1136/ARM1156/ARM1176 (CCNT + 2)",
     .manual = "ARM1176JZF-S TRM",
     .implemented = armv6_events,
     .counters = 2,
     .fixed = 1,
     .filters_priv = false,
     .counter_bits = 32},
    {.key = "arm11mpcore",
     .parent = "generic",
     .desc = "ARMv6 ARM11 MPCore (CCNT + 2)",
     .manual = "ARM11 MPCore TRM",
     .implemented = arm11mpcore_events,
     .counters = 2,
     .fixed = 1,
     .filters_priv = false,
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

/* sysfs caps/pmu_name (set by the kernel's intel_pmu_init; compared ignoring case: the kernel
 * writes "Tremont") -> family key, for a core PMU whose CPU model is not in intel_models. */
static const struct {
	const char *caps;
	const char *key;
} caps_names[] = {
    {"nehalem", "nhm"},	   {"westmere", "wsm"},	 {"sandybridge", "snb"},
    {"ivybridge", "ivb"},  {"haswell", "hsw"},	 {"broadwell", "bdw"},
    {"skylake", "skl"},	   {"icelake", "icl"},	 {"sapphire_rapids", "spr"},
    {"silvermont", "slm"}, {"goldmont", "glm"},	 {"goldmont_plus", "glm"},
    {"tremont", "tmt"},	   {"gracemont", "grt"}, {"knights-landing", "intel"},
    {"core2", "intel"},	   {"core", "intel"},	 {"bonnell", "atom"},
    {NULL, NULL},
};

/* Intel family 6 models (the kernel's asm/intel-family.h, perf's mapfile.csv) -> family key and
 * the caps/pmu_name linux 6.1's intel_pmu_init writes for them. Server parts have their own
 * families where their events differ (Skylake-SP/Cascade Lake 0x55, Ice Lake-SP 0x6a/0x6c). */
static const struct {
	unsigned char model;
	const char *key;
	const char *caps;
} intel_models[] = {
    {0x1a, "nhm", "nehalem"},	      {0x1e, "nhm", "nehalem"},
    {0x1f, "nhm", "nehalem"},	      {0x2e, "nhm", "nehalem"},
    {0x25, "wsm", "westmere"},	      {0x2c, "wsm", "westmere"},
    {0x2f, "wsm", "westmere"},	      {0x2a, "snb", "sandybridge"},
    {0x2d, "snb", "sandybridge"},     {0x3a, "ivb", "ivybridge"},
    {0x3e, "ivb", "ivybridge"},	      {0x3c, "hsw", "haswell"},
    {0x3f, "hsw", "haswell"},	      {0x45, "hsw", "haswell"},
    {0x46, "hsw", "haswell"},	      {0x3d, "bdw", "broadwell"},
    {0x47, "bdw", "broadwell"},	      {0x4f, "bdw", "broadwell"},
    {0x56, "bdw", "broadwell"},	      {0x4e, "skl", "skylake"},
    {0x5e, "skl", "skylake"},	      {0x8e, "skl", "skylake"},
    {0x9e, "skl", "skylake"},	      {0xa5, "skl", "skylake"},
    {0xa6, "skl", "skylake"},	      {0x55, "skx", "skylake"},
    {0x7d, "icl", "icelake"},	      {0x7e, "icl", "icelake"},
    {0x8c, "icl", "icelake"},	      {0x8d, "icl", "icelake"},
    {0xa7, "icl", "icelake"},	      {0x6a, "icx", "icelake"},
    {0x6c, "icx", "icelake"},	      {0x8f, "spr", "sapphire_rapids"},
    {0xcf, "spr", "sapphire_rapids"}, {0x1c, "atom", "bonnell"},
    {0x26, "atom", "bonnell"},	      {0x27, "atom", "bonnell"},
    {0x35, "atom", "bonnell"},	      {0x36, "atom", "bonnell"},
    {0x37, "slm", "silvermont"},      {0x4a, "slm", "silvermont"},
    {0x4c, "slm", "silvermont"},      {0x4d, "slm", "silvermont"},
    {0x5a, "slm", "silvermont"},      {0x5c, "glm", "goldmont"},
    {0x5f, "glm", "goldmont"},	      {0x7a, "glm", "goldmont_plus"},
    {0x86, "tmt", "Tremont"},	      {0x96, "tmt", "Tremont"},
    {0x9c, "tmt", "Tremont"},	      {0xbe, "grt", "gracemont"},
};

const struct pmu_family *family_from_x86_model(const char *vendor, int cpu_family, int model,
					       const char **caps)
{
	if (!vendor || strcmp(vendor, "GenuineIntel") != 0 || cpu_family != 6)
		return NULL;
	for (size_t i = 0; i < sizeof(intel_models) / sizeof(intel_models[0]); i++)
		if (intel_models[i].model == model) {
			if (caps)
				*caps = intel_models[i].caps;
			return family_find(intel_models[i].key);
		}
	return NULL;
}

const struct pmu_family *family_smt_variant(const struct pmu_family *fam)
{
	char key[32];

	if (!fam || strlen(fam->key) + 5 > sizeof(key))
		return NULL;
	snprintf(key, sizeof(key), "%s_smt", fam->key);
	return family_find(key);
}

const struct pmu_family *family_find(const char *key)
{
	if (!key)
		return NULL;
	for (const struct pmu_family *f = pmu_families; f->key; f++)
		if (strcmp(f->key, key) == 0)
			return f;
	return NULL;
}

const struct pmu_family *family_from_caps_name(const char *pmu_name)
{
	for (size_t i = 0; caps_names[i].caps; i++)
		if (strcasecmp(caps_names[i].caps, pmu_name) == 0)
			return family_find(caps_names[i].key);
	if (strncmp(pmu_name, "generic_arch", 12) == 0)
		return family_find("intel");
	return NULL;
}

/* sysfs core PMU names -> family keys; a trailing '*' matches any rest. First match wins. */
static const struct {
	const char *pmu;
	const char *key;
} pmu_names[] = {
    {"armv5_xscale1*", "xscale1"},
    {"xscale1", "xscale1"},
    {"armv5_xscale2*", "xscale2"},
    {"xscale2", "xscale2"},
    {"armv6_11mpcore", "arm11mpcore"},
    {"armv6_*", "armv6"},
    {"armv7_cortex_a5", "cortex_a5"},
    {"armv7_cortex_a7", "cortex_a7"},
    {"armv7_cortex_a8", "cortex_a8"},
    {"armv7_cortex_a9", "cortex_a9"},
    {"armv7_cortex_a12", "cortex_a12"},
    {"armv7_cortex_a15", "cortex_a15"},
    {"armv7_cortex_a17", "cortex_a17"},
    {"armv7_*", "armv7"},
    {"armv8_cortex_a53", "cortex_a53"},
    {"armv8_cortex_a57", "cortex_a57"},
    {"armv8_cortex_a72", "cortex_a72"},
    {"armv8_neoverse_n1", "neoverse_n1"},
    {"armv8_neoverse_v1", "neoverse_v1"},
    {"armv8_neoverse_n2", "neoverse_n2"},
    {"armv8_neoverse_v2", "neoverse_v2"},
    {"armv8_*", "armv8"},
    {"armv9_*", "armv8"},
    {NULL, NULL},
};

const struct pmu_family *family_from_pmu_name(const char *pmu)
{
	for (size_t i = 0; pmu_names[i].pmu; i++) {
		const char *pat = pmu_names[i].pmu;
		size_t n = strlen(pat);
		bool match = pat[n - 1] == '*' ? strncmp(pmu, pat, n - 1) == 0 : !strcmp(pmu, pat);
		if (match)
			return family_find(pmu_names[i].key);
	}
	return NULL;
}

/* MIDR_EL1 implementer and part number -> family key (Arm's TRMs, MIDR_EL1; the kernel's
 * arch/arm64/include/asm/cputype.h and perf's arm64 mapfile.csv agree). */
static const struct {
	unsigned implementer, part;
	const char *key;
} midr_parts[] = {
    {0x41, 0xd03, "cortex_a53"},  {0x41, 0xd07, "cortex_a57"},
    {0x41, 0xd08, "cortex_a72"},  {0x41, 0xd0c, "neoverse_n1"},
    {0x41, 0xd40, "neoverse_v1"}, {0x41, 0xd49, "neoverse_n2"},
    {0x41, 0xd4f, "neoverse_v2"}, {0, 0, NULL},
};

const struct pmu_family *family_from_midr(unsigned implementer, unsigned part)
{
	for (size_t i = 0; midr_parts[i].key; i++)
		if (midr_parts[i].implementer == implementer && midr_parts[i].part == part)
			return family_find(midr_parts[i].key);
	return NULL;
}

int family_implements(const struct pmu_family *fam, unsigned code)
{
	for (; fam; fam = family_find(fam->parent)) {
		if (!fam->implemented)
			continue;
		for (const unsigned short *e = fam->implemented; *e != FAMILY_EVENTS_END; e++)
			if (*e == code)
				return 1;
		return 0;
	}
	return -1;
}

struct event_name {
	unsigned code;
	const char *name;
};

/* ARMv8 PMUv3 common events (Arm ARM D7.10; the kernel's events/ names in lower case). */
static const struct event_name armv8_names[] = {
    {0x00, "SW_INCR"},
    {0x01, "L1I_CACHE_REFILL"},
    {0x02, "L1I_TLB_REFILL"},
    {0x03, "L1D_CACHE_REFILL"},
    {0x04, "L1D_CACHE"},
    {0x05, "L1D_TLB_REFILL"},
    {0x06, "LD_RETIRED"},
    {0x07, "ST_RETIRED"},
    {0x08, "INST_RETIRED"},
    {0x09, "EXC_TAKEN"},
    {0x0a, "EXC_RETURN"},
    {0x0b, "CID_WRITE_RETIRED"},
    {0x0c, "PC_WRITE_RETIRED"},
    {0x0d, "BR_IMMED_RETIRED"},
    {0x0e, "BR_RETURN_RETIRED"},
    {0x0f, "UNALIGNED_LDST_RETIRED"},
    {0x10, "BR_MIS_PRED"},
    {0x11, "CPU_CYCLES"},
    {0x12, "BR_PRED"},
    {0x13, "MEM_ACCESS"},
    {0x14, "L1I_CACHE"},
    {0x15, "L1D_CACHE_WB"},
    {0x16, "L2D_CACHE"},
    {0x17, "L2D_CACHE_REFILL"},
    {0x18, "L2D_CACHE_WB"},
    {0x19, "BUS_ACCESS"},
    {0x1a, "MEMORY_ERROR"},
    {0x1b, "INST_SPEC"},
    {0x1c, "TTBR_WRITE_RETIRED"},
    {0x1d, "BUS_CYCLES"},
    {0x1e, "CHAIN"},
    {0x1f, "L1D_CACHE_ALLOCATE"},
    {0x20, "L2D_CACHE_ALLOCATE"},
    {0x21, "BR_RETIRED"},
    {0x22, "BR_MIS_PRED_RETIRED"},
    {0x23, "STALL_FRONTEND"},
    {0x24, "STALL_BACKEND"},
    {0x25, "L1D_TLB"},
    {0x26, "L1I_TLB"},
    {0x27, "L2I_CACHE"},
    {0x28, "L2I_CACHE_REFILL"},
    {0x29, "L3D_CACHE_ALLOCATE"},
    {0x2a, "L3D_CACHE_REFILL"},
    {0x2b, "L3D_CACHE"},
    {0x2c, "L3D_CACHE_WB"},
    {0x2d, "L2D_TLB_REFILL"},
    {0x2e, "L2I_TLB_REFILL"},
    {0x2f, "L2D_TLB"},
    {0x30, "L2I_TLB"},
    {0x31, "REMOTE_ACCESS"},
    {0x32, "LL_CACHE"},
    {0x33, "LL_CACHE_MISS"},
    {0x34, "DTLB_WALK"},
    {0x35, "ITLB_WALK"},
    {0x36, "LL_CACHE_RD"},
    {0x37, "LL_CACHE_MISS_RD"},
    {0x38, "REMOTE_ACCESS_RD"},
    {0x39, "L1D_CACHE_LMISS_RD"},
    {0x3a, "OP_RETIRED"},
    {0x3b, "OP_SPEC"},
    {0x3c, "STALL"},
    {0x3d, "STALL_SLOT_BACKEND"},
    {0x3e, "STALL_SLOT_FRONTEND"},
    {0x3f, "STALL_SLOT"},
    {0, NULL},
};

/* ARMv7 common events (PMUv1 and the PMUv2 supplement) and the kernel's cycle counter code. */
static const struct event_name armv7_names[] = {
    {0x00, "SW_INCR"},
    {0x01, "L1I_CACHE_REFILL"},
    {0x02, "L1I_TLB_REFILL"},
    {0x03, "L1D_CACHE_REFILL"},
    {0x04, "L1D_CACHE"},
    {0x05, "L1D_TLB_REFILL"},
    {0x06, "LD_RETIRED"},
    {0x07, "ST_RETIRED"},
    {0x08, "INST_RETIRED"},
    {0x09, "EXC_TAKEN"},
    {0x0a, "EXC_RETURN"},
    {0x0b, "CID_WRITE_RETIRED"},
    {0x0c, "PC_WRITE_RETIRED"},
    {0x0d, "BR_IMMED_RETIRED"},
    {0x0e, "BR_RETURN_RETIRED"},
    {0x0f, "UNALIGNED_LDST_RETIRED"},
    {0x10, "BR_MIS_PRED"},
    {0x11, "CPU_CYCLES"},
    {0x12, "BR_PRED"},
    {0x13, "MEM_ACCESS"},
    {0x14, "L1I_CACHE"},
    {0x15, "L1D_CACHE_WB"},
    {0x16, "L2D_CACHE"},
    {0x17, "L2D_CACHE_REFILL"},
    {0x18, "L2D_CACHE_WB"},
    {0x19, "BUS_ACCESS"},
    {0x1a, "MEMORY_ERROR"},
    {0x1b, "INST_SPEC"},
    {0x1c, "TTBR_WRITE_RETIRED"},
    {0x1d, "BUS_CYCLES"},
    {0xff, "CPU_CYCLES (cycle counter)"},
    {0, NULL},
};

/* ARM1136/1156/1176 (ARMv6): the numbers are close to XScale's. */
static const struct event_name armv6_names[] = {
    {0x00, "ICACHE_MISS"},
    {0x01, "IBUF_STALL"},
    {0x02, "DDEP_STALL"},
    {0x03, "ITLB_MISS"},
    {0x04, "DTLB_MISS"},
    {0x05, "BR_EXEC"},
    {0x06, "BR_MISPREDICT"},
    {0x07, "INSTR_EXEC"},
    {0x09, "DCACHE_HIT"},
    {0x0a, "DCACHE_ACCESS"},
    {0x0b, "DCACHE_MISS"},
    {0x0c, "DCACHE_WBACK"},
    {0x0d, "SW_PC_CHANGE"},
    {0x0f, "MAIN_TLB_MISS"},
    {0x10, "EXPL_D_ACCESS"},
    {0x11, "LSU_FULL_STALL"},
    {0x12, "WBUF_DRAINED"},
    {0xff, "CPU_CYCLES (CCNT)"},
    {0, NULL},
};

/* ARM11 MPCore: ARMv6 numbering from 0x06 on differs. */
static const struct event_name arm11mpcore_names[] = {
    {0x00, "ICACHE_MISS"},     {0x01, "IBUF_STALL"},	    {0x02, "DDEP_STALL"},
    {0x03, "ITLB_MISS"},       {0x04, "DTLB_MISS"},	    {0x05, "BR_EXEC"},
    {0x06, "BR_NOTPREDICT"},   {0x07, "BR_MISPREDICT"},	    {0x08, "INSTR_EXEC"},
    {0x0a, "DCACHE_RDACCESS"}, {0x0b, "DCACHE_RDMISS"},	    {0x0c, "DCACHE_WRACCESS"},
    {0x0d, "DCACHE_WRMISS"},   {0x0e, "DCACHE_EVICTION"},   {0x0f, "SW_PC_CHANGE"},
    {0x10, "MAIN_TLB_MISS"},   {0x11, "EXPL_MEM_ACCESS"},   {0x12, "LSU_FULL_STALL"},
    {0x13, "WBUF_DRAINED"},    {0xff, "CPU_CYCLES (CCNT)"}, {0, NULL},
};

/* Implementation-defined events the built-in modes use, per core. */
static const struct {
	const char *family;
	unsigned code;
	const char *name;
} impl_names[] = {
    {"cortex_a9", 0x60, "ICACHE_DEP_STALL_CYCLES"},
    {"cortex_a9", 0x61, "DCACHE_DEP_STALL_CYCLES"},
    {"cortex_a9", 0x68, "INST_OUT_OF_RENAME_STAGE"},
    {"cortex_a8", 0x43, "L2_ACCESS"},
    {"cortex_a8", 0x44, "L2_CACHE_MISS"},
    {"cortex_a8", 0x56, "CYCLES_INST_STALL"},
    {"cortex_a53", 0xe1, "IC_DEP_STALL (DPU IQ empty, I-cache miss)"},
    {"cortex_a53", 0xe7, "LD_DEP_STALL (Wr stage stalled on a load miss)"},
    {NULL, 0, NULL},
};

static const char *name_in(const struct event_name *t, unsigned code)
{
	for (; t->name; t++)
		if (t->code == code)
			return t->name;
	return NULL;
}

const char *family_event_name(const struct pmu_family *fam, unsigned code)
{
	for (size_t i = 0; fam && impl_names[i].family; i++)
		if (impl_names[i].code == code && family_is_a(fam, impl_names[i].family))
			return impl_names[i].name;
	if (family_is_a(fam, "armv8"))
		return name_in(armv8_names, code);
	if (family_is_a(fam, "armv7"))
		return name_in(armv7_names, code);
	if (family_is_a(fam, "armv6"))
		return name_in(armv6_names, code);
	if (family_is_a(fam, "arm11mpcore"))
		return name_in(arm11mpcore_names, code);
	return NULL;
}

unsigned family_cycle_code(const struct pmu_family *fam)
{
	if (family_is_a(fam, "armv8"))
		return 0x11;
	if (family_is_a(fam, "armv7") || family_is_a(fam, "armv6") ||
	    family_is_a(fam, "arm11mpcore"))
		return 0xff;
	if (family_is_a(fam, "xscale"))
		return 0xfe;
	return 0;
}

bool family_events_from_pmceid(const struct pmu_family *fam) { return family_is_a(fam, "armv8"); }

bool family_is_common_event(unsigned code)
{
	return code < 0x40 || (code >= 0x4000 && code < 0x4040);
}

bool family_is_a(const struct pmu_family *fam, const char *key)
{
	for (; fam; fam = family_find(fam->parent))
		if (strcmp(fam->key, key) == 0)
			return true;
	return false;
}

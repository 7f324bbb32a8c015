/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offcore.c: per-model OFFCORE_RESPONSE request bits, kernel-checked config1 and the bit sweep. */
#include "offcore.h"
#include "family.h"
#include "textutil.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define BIT(n) (1ULL << (n))

/* ---- request bits ------------------------------------------------------------------------ */

/* Nehalem/Westmere: request type in bits 7:0 (SDM), bits 15:8 are the response. */
static const struct offcore_bit nhm_bits[] = {
    {0, "DMND_DATA_RD", {0}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {0}, "DMND_RFO", false, "demand reads for ownership"},
    {2, "DMND_IFETCH", {"DMND_CODE_RD"}, "DMND_IFETCH", false, "demand instruction fetches"},
    {3, "WB", {0}, "WB", false, "writebacks"},
    {4, "PF_DATA_RD", {"PF_L2_DATA_RD"}, "PF_DATA_RD", false, "data prefetches"},
    {5, "PF_RFO", {"PF_L2_RFO"}, "PF_RFO", false, "RFO prefetches"},
    {6, "PF_IFETCH", {"PF_CODE_RD"}, "PF_IFETCH", false, "code prefetches"},
    {7, "OTHER", {0}, "OTHER", false, "other requests"},
};

/* Sandy Bridge, Ivy Bridge, Broadwell: bits 0-11 and 15; 12-14 reserved. */
static const struct offcore_bit snb_bits[] = {
    {0, "DMND_DATA_RD", {0}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {0}, "DMND_RFO", false, "demand reads for ownership"},
    {2, "DMND_IFETCH", {"DMND_CODE_RD"}, "DMND_IFETCH", false, "demand code reads"},
    {3, "WB", {0}, "WB", false, "writebacks (modified to exclusive)"},
    {4, "PF_DATA_RD", {"PF_L2_DATA_RD"}, "PF_DATA_RD", false, "L2 prefetcher data reads"},
    {5, "PF_RFO", {"PF_L2_RFO"}, "PF_RFO", false, "L2 prefetcher RFOs"},
    {6,
     "PF_IFETCH",
     {"PF_CODE_RD", "PF_L2_CODE_RD"},
     "PF_IFETCH",
     false,
     "L2 prefetcher code reads"},
    {7,
     "PF_LLC_DATA_RD",
     {"PF_L3_DATA_RD"},
     "PF_LLC_DATA_RD",
     false,
     "prefetches of data into the LLC only"},
    {8, "PF_LLC_RFO", {"PF_L3_RFO"}, "PF_LLC_RFO", false, "RFO prefetches into the LLC only"},
    {9,
     "PF_LLC_IFETCH",
     {"PF_L3_CODE_RD", "PF_L3_IFETCH"},
     "PF_LLC_IFETCH",
     false,
     "code prefetches into the LLC only"},
    {10, "BUS_LOCKS", {"SPLIT_LOCK_UC_LOCK"}, "BUS_LOCKS", false, "bus locks and split locks"},
    {11, "STRM_ST", {"STREAMING_WR"}, "STRM_ST", false, "streaming stores"},
    {15, "OTHER", {0}, "OTHER", false, "other requests (e.g. I/O)"},
};

/* Haswell: the same bits; libpfm4 spells some of them differently. */
static const struct offcore_bit hsw_bits[] = {
    {0, "DMND_DATA_RD", {0}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {0}, "DMND_RFO", false, "demand reads for ownership"},
    {2, "DMND_IFETCH", {"DMND_CODE_RD"}, "DMND_CODE_RD", false, "demand code reads"},
    {3, "WB", {0}, "WB", false, "writebacks (modified to exclusive)"},
    {4, "PF_DATA_RD", {"PF_L2_DATA_RD"}, "PF_DATA_RD", false, "L2 prefetcher data reads"},
    {5, "PF_RFO", {"PF_L2_RFO"}, "PF_RFO", false, "L2 prefetcher RFOs"},
    {6,
     "PF_IFETCH",
     {"PF_CODE_RD", "PF_L2_CODE_RD"},
     "PF_CODE_RD",
     false,
     "L2 prefetcher code reads"},
    {7,
     "PF_LLC_DATA_RD",
     {"PF_L3_DATA_RD"},
     "PF_L3_DATA_RD",
     false,
     "prefetches of data into the L3 only"},
    {8, "PF_LLC_RFO", {"PF_L3_RFO"}, "PF_L3_RFO", false, "RFO prefetches into the L3 only"},
    {9,
     "PF_LLC_IFETCH",
     {"PF_L3_CODE_RD", "PF_L3_IFETCH"},
     "PF_L3_CODE_RD",
     false,
     "code prefetches into the L3 only"},
    {10,
     "BUS_LOCKS",
     {"SPLIT_LOCK_UC_LOCK"},
     "SPLIT_LOCK_UC_LOCK",
     false,
     "bus locks and split locks"},
    {11, "STRM_ST", {"STREAMING_WR"}, "STRM_ST", false, "streaming stores"},
    {15, "OTHER", {0}, "OTHER", false, "other requests (e.g. I/O)"},
};

/* Skylake client: libpfm4 4.13 names only bits 0-2 and 15; the others after Skylake-SP. */
static const struct offcore_bit skl_bits[] = {
    {0, "DMND_DATA_RD", {"DEMAND_DATA_RD"}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {"DEMAND_RFO"}, "DMND_RFO", false, "demand reads for ownership"},
    {2,
     "DMND_CODE_RD",
     {"DMND_IFETCH", "DEMAND_CODE_RD"},
     "DMND_CODE_RD",
     false,
     "demand code reads"},
    {4, "PF_L2_DATA_RD", {"PF_DATA_RD"}, NULL, false, "L2 prefetcher data reads"},
    {5, "PF_L2_RFO", {"PF_RFO"}, NULL, false, "L2 prefetcher RFOs"},
    {7, "PF_L3_DATA_RD", {"PF_LLC_DATA_RD"}, NULL, false, "prefetches of data into the L3 only"},
    {8, "PF_L3_RFO", {"PF_LLC_RFO"}, NULL, false, "RFO prefetches into the L3 only"},
    {10, "PF_L1D_AND_SW", {0}, NULL, false, "L1D hardware and software prefetches"},
    {15, "OTHER", {0}, "OTHER", false, "other requests"},
};

static const struct offcore_bit skx_bits[] = {
    {0, "DMND_DATA_RD", {"DEMAND_DATA_RD"}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {"DEMAND_RFO"}, "DMND_RFO", false, "demand reads for ownership"},
    {2,
     "DMND_CODE_RD",
     {"DMND_IFETCH", "DEMAND_CODE_RD"},
     "DMND_CODE_RD",
     false,
     "demand code reads"},
    {4, "PF_L2_DATA_RD", {"PF_DATA_RD"}, "PF_L2_DATA_RD", false, "L2 prefetcher data reads"},
    {5, "PF_L2_RFO", {"PF_RFO"}, "PF_L2_RFO", false, "L2 prefetcher RFOs"},
    {7,
     "PF_L3_DATA_RD",
     {"PF_LLC_DATA_RD"},
     "PF_L3_DATA_RD",
     false,
     "prefetches of data into the L3 only"},
    {8, "PF_L3_RFO", {"PF_LLC_RFO"}, "PF_L3_RFO", false, "RFO prefetches into the L3 only"},
    {10, "PF_L1D_AND_SW", {0}, "PF_L1D_AND_SW", false, "L1D hardware and software prefetches"},
    {15, "OTHER", {0}, "OTHER", false, "other requests"},
};

/* Ice Lake (-SP): libpfm4 only has combined OCR umasks "<BIT>_<RESPONSE>". */
static const struct offcore_bit icl_bits[] = {
    {0, "DEMAND_DATA_RD", {"DMND_DATA_RD"}, "DEMAND_DATA_RD", false, "demand data reads"},
    {1, "DEMAND_RFO", {"DMND_RFO"}, "DEMAND_RFO", false, "demand RFOs and PREFETCHW"},
    {2,
     "DEMAND_CODE_RD",
     {"DMND_CODE_RD", "DMND_IFETCH"},
     "DEMAND_CODE_RD",
     false,
     "demand code reads"},
    {4,
     "HWPF_L2_DATA_RD",
     {"PF_L2_DATA_RD", "PF_DATA_RD"},
     "HWPF_L2_DATA_RD",
     false,
     "L2 prefetcher data reads"},
    {5, "HWPF_L2_RFO", {"PF_L2_RFO", "PF_RFO"}, "HWPF_L2_RFO", false, "L2 prefetcher RFOs"},
    {10,
     "HWPF_L1D_AND_SWPF",
     {"PF_L1D_AND_SW"},
     "HWPF_L1D_AND_SWPF",
     false,
     "L1D hardware and software prefetches"},
    {11, "STREAMING_WR", {"STRM_ST"}, "STREAMING_WR", false, "streaming stores"},
    {15, "OTHER", {0}, "OTHER", false, "other requests"},
};

/* libpfm4's icx DEMAND_RFO_ANY_RESPONSE is 0x3f3ffc0002, not bit 1 | ANY_RESPONSE, and it has
 * only the combined HWPF_L2 (bits 4-6) and no HWPF_L1D_AND_SWPF ANY_RESPONSE: no names there. */
static const struct offcore_bit icx_bits[] = {
    {0, "DEMAND_DATA_RD", {"DMND_DATA_RD"}, "DEMAND_DATA_RD", false, "demand data reads"},
    {1, "DEMAND_RFO", {"DMND_RFO"}, NULL, false, "demand RFOs and PREFETCHW"},
    {2,
     "DEMAND_CODE_RD",
     {"DMND_CODE_RD", "DMND_IFETCH"},
     "DEMAND_CODE_RD",
     false,
     "demand code reads"},
    {4,
     "HWPF_L2_DATA_RD",
     {"PF_L2_DATA_RD", "PF_DATA_RD"},
     NULL,
     false,
     "L2 prefetcher data reads"},
    {5, "HWPF_L2_RFO", {"PF_L2_RFO", "PF_RFO"}, NULL, false, "L2 prefetcher RFOs"},
    {10,
     "HWPF_L1D_AND_SWPF",
     {"PF_L1D_AND_SW"},
     NULL,
     false,
     "L1D hardware and software prefetches"},
    {11, "STREAMING_WR", {"STRM_ST"}, "STREAMING_WR", false, "streaming stores"},
    {15, "OTHER", {0}, "OTHER", false, "other requests"},
};

/* Sapphire Rapids (same RFO quirk as icx in libpfm4). */
static const struct offcore_bit spr_bits[] = {
    {0, "DEMAND_DATA_RD", {"DMND_DATA_RD"}, "DEMAND_DATA_RD", false, "demand data reads"},
    {1, "DEMAND_RFO", {"DMND_RFO"}, NULL, false, "demand RFOs and PREFETCHW"},
    {2,
     "DEMAND_CODE_RD",
     {"DMND_CODE_RD", "DMND_IFETCH"},
     "DEMAND_CODE_RD",
     false,
     "demand code reads"},
    {3, "COREWB_M", {"WB"}, NULL, false, "writebacks of modified lines from the core"},
    {4,
     "HWPF_L2_DATA_RD",
     {"PF_L2_DATA_RD", "PF_DATA_RD"},
     NULL,
     false,
     "L2 prefetcher data reads"},
    {5, "HWPF_L2_RFO", {"PF_L2_RFO", "PF_RFO"}, NULL, false, "L2 prefetcher RFOs"},
    {10,
     "HWPF_L1D",
     {"HWPF_L1D_AND_SWPF", "PF_L1D_AND_SW"},
     "HWPF_L1D",
     false,
     "L1D hardware prefetches"},
    {11, "STREAMING_WR", {"STRM_ST"}, "STREAMING_WR", false, "streaming stores"},
};

/* Silvermont: SDM Table 18-15 (all 16 bits; bit 15 ANY covers every request). */
static const struct offcore_bit slm_bits[] = {
    {0,
     "DMND_DATA_RD",
     {"DEMAND_DATA_RD"},
     "DMND_DATA_RD",
     false,
     "demand and DCU prefetch data reads"},
    {1, "DMND_RFO", {"DEMAND_RFO"}, "DMND_RFO", false, "demand and DCU prefetch RFOs"},
    {2,
     "DMND_IFETCH",
     {"DMND_CODE_RD", "DEMAND_CODE_RD"},
     "DMND_IFETCH",
     false,
     "demand and DCU prefetch code reads"},
    {3, "WB", {0}, "WB", false, "writebacks (modified to exclusive)"},
    {4, "PF_DATA_RD", {"PF_L2_DATA_RD"}, "PF_L2_DATA_RD", false, "L2 prefetcher data reads"},
    {5, "PF_RFO", {"PF_L2_RFO"}, "PF_RFO", false, "L2 prefetcher RFOs"},
    {6, "PF_IFETCH", {"PF_CODE_RD"}, "PF_IFETCH", false, "L2 prefetcher code reads"},
    {7,
     "PARTIAL_READ",
     {"PARTIAL_READS"},
     "PARTIAL_READ",
     false,
     "demand partial-line reads (incl. UC, WC)"},
    {8,
     "PARTIAL_WRITE",
     {"PARTIAL_WRITES"},
     "PARTIAL_WRITE",
     false,
     "demand partial-line RFOs (incl. UC, WT, WP)"},
    {9, "UC_IFETCH", {"UC_CODE_READS"}, "UC_IFETCH", false, "uncacheable instruction fetches"},
    {10, "BUS_LOCKS", {0}, "BUS_LOCKS", false, "bus locks and split locks"},
    {11, "STRM_ST", {"FULL_STRM_ST"}, "STRM_ST", false, "streaming stores"},
    {12, "SW_PREFETCH", {"SW_PF"}, "SW_PREFETCH", false, "software prefetches"},
    {13, "PF_L1_DATA_RD", {0}, "PF_L1_DATA_RD", false, "DCU hardware prefetcher data reads"},
    {14, "PARTIAL_STRM_ST", {0}, "PARTIAL_STRM_ST", false, "partial streaming stores"},
    {15, "ANY", {"ANY_REQUEST", "OTHER"}, "OTHER", true, "any request that crosses IDI, incl. I/O"},
};

/* Goldmont: the Silvermont frame with bit 6 reserved. */
static const struct offcore_bit glm_bits[] = {
    {0, "DMND_DATA_RD", {"DEMAND_DATA_RD"}, "DMND_DATA_RD", false, "demand data reads"},
    {1, "DMND_RFO", {"DEMAND_RFO"}, "DMND_RFO", false, "demand RFOs"},
    {2,
     "DMND_IFETCH",
     {"DMND_CODE_RD", "DEMAND_CODE_RD"},
     "DMND_CODE_RD",
     false,
     "demand code reads"},
    {3, "COREWB", {"WB"}, "WB", false, "writebacks (MSR_OFFCORE_RSP_0 only)"},
    {4, "PF_DATA_RD", {"PF_L2_DATA_RD"}, "PF_DATA_RD", false, "L2 prefetcher data reads"},
    {5, "PF_RFO", {"PF_L2_RFO"}, "PF_RFO", false, "L2 prefetcher RFOs"},
    {7, "PARTIAL_READ", {"PARTIAL_READS"}, "PARTIAL_READS", false, "partial-line reads"},
    {8, "PARTIAL_WRITE", {"PARTIAL_WRITES"}, "PARTIAL_WRITES", false, "partial-line writes"},
    {9, "UC_IFETCH", {"UC_CODE_READS"}, "UC_CODE_READS", false, "uncacheable code reads"},
    {10, "BUS_LOCKS", {0}, "BUS_LOCKS", false, "bus locks and split locks"},
    {11, "STRM_ST", {"FULL_STRM_ST"}, "FULL_STRM_ST", false, "full-line streaming stores"},
    {12, "SW_PREFETCH", {"SW_PF"}, "SW_PF", false, "software prefetches"},
    {13, "PF_L1_DATA_RD", {0}, "PF_L1_DATA_RD", false, "L1 hardware prefetcher data reads"},
    {14, "PARTIAL_STRM_ST", {0}, "PARTIAL_STRM_ST", false, "partial streaming stores"},
    {15, "ANY", {"ANY_REQUEST", "OTHER"}, "ANY_REQUEST", true, "any request"},
};

/* Tremont (Intel's snowridgex/elkhartlake event lists, OCR.<request>.<response>): its own
 * request bits; bit 15 OTHER is one request type, not an ANY superset; no libpfm4 4.13 names. */
static const struct offcore_bit tmt_bits[] = {
    {0,
     "DEMAND_DATA_RD",
     {"DMND_DATA_RD", "DEMAND_DATA_AND_L1PF_RD"},
     NULL,
     false,
     "demand data reads (with L1 prefetches)"},
    {1, "DEMAND_RFO", {"DMND_RFO"}, NULL, false, "demand RFOs"},
    {2, "DEMAND_CODE_RD", {"DMND_CODE_RD", "DMND_IFETCH"}, NULL, false, "demand code reads"},
    {4,
     "HWPF_L2_DATA_RD",
     {"PF_L2_DATA_RD", "PF_DATA_RD"},
     NULL,
     false,
     "L2 prefetcher data reads"},
    {5, "HWPF_L2_RFO", {"PF_L2_RFO", "PF_RFO"}, NULL, false, "L2 prefetcher RFOs"},
    {6,
     "HWPF_L2_CODE_RD",
     {"PF_L2_CODE_RD", "PF_CODE_RD"},
     NULL,
     false,
     "L2 prefetcher code reads"},
    {10,
     "HWPF_L1D_AND_SWPF",
     {"PF_L1D_AND_SW"},
     NULL,
     false,
     "L1D hardware and software prefetches"},
    {11, "STREAMING_WR", {"STRM_ST"}, NULL, false, "streaming stores"},
    {15, "OTHER", {0}, NULL, false, "other requests"},
};

/* ---- response filters --------------------------------------------------------------------- */

#define SNB_SNP_ANY 0x3f80000000ULL /* snoop bits 31-37 */

static const struct offcore_response nhm_resp[] = {
    {"ANY_RESPONSE", 0xff00, "ANY_RESPONSE", "any response (bits 15:8)"},
    {"L3_HIT", 0x0700, "UNCORE_HIT:OTHER_CORE_HIT_SNP:OTHER_CORE_HITM",
     "served by the local uncore/L3 or another core"},
    {"L3_MISS", 0xf800, "ANY_LLC_MISS", "remote cache, DRAM or non-DRAM"},
    {"DRAM", 0x6000, "ANY_DRAM", "local or remote DRAM"},
};
static const struct offcore_response snb_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3c0000 | SNB_SNP_ANY, "LLC_HITMESF:SNP_ANY", "LLC hit (M/E/S/F), any snoop"},
    {"L3_MISS", BIT(22) | SNB_SNP_ANY, "LLC_MISS_LOCAL:SNP_ANY",
     "LLC miss to local DRAM, any snoop"},
};
static const struct offcore_response hsw_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x1c0000 | SNB_SNP_ANY, "L3_HIT:SNP_ANY", "L3 hit (M/E/S), any snoop"},
    {"L3_MISS", BIT(22) | SNB_SNP_ANY, "L3_MISS:SNP_ANY", "L3 miss to local DRAM, any snoop"},
};
static const struct offcore_response bdw_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3c0000 | SNB_SNP_ANY, "L3_HIT:SNP_ANY", "L3 hit (M/E/S/F), any snoop"},
    {"L3_MISS", BIT(26) | SNB_SNP_ANY, "L3_MISS:SNP_ANY", "L3 miss to local DRAM, any snoop"},
};
/* libpfm4 4.13 skl L3_HIT is 0xc0000 and skl/skx L3_MISS is local DRAM only (bit 26): no
 * equivalent name for the L3 miss of any supplier (bits 26-29, as in the Linux event lists). */
static const struct offcore_response skl_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3c0000 | SNB_SNP_ANY, NULL, "L3 hit, any snoop"},
    {"L3_MISS", 0x3c000000 | SNB_SNP_ANY, NULL, "L3 miss (suppliers 26-29), any snoop"},
};
static const struct offcore_response skx_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3c0000 | SNB_SNP_ANY, "L3_HIT:SNP_ANY", "L3 hit, any snoop"},
    {"L3_MISS", 0x3c000000 | SNB_SNP_ANY, NULL, "L3 miss (suppliers 26-29), any snoop"},
};
/* Combined models: @pfm is the suffix of "<BIT>_<suffix>". libpfm4's other combined umasks
 * (L3_HIT, L3_MISS, DRAM) use masks that vary per request type (STREAMING_WR_L3_MISS is
 * 0x94000800, not 0x3fbfc00800), so only ANY_RESPONSE has an equivalent name. */
static const struct offcore_response icl_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3fc03c0000ULL, NULL, "L3 hit, any snoop"},
    {"L3_MISS", 0x3fffc00000ULL, NULL, "L3 miss"},
    {"DRAM", 0x184000000ULL, NULL, "served by DRAM"},
};
static const struct offcore_response icx_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3f803c0000ULL, NULL, "L3 hit, any snoop"},
    {"L3_MISS", 0x3fbfc00000ULL, NULL, "L3 miss"},
    {"DRAM", 0x73c000000ULL, NULL, "served by local or remote DRAM"},
};
static const struct offcore_response spr_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L3_HIT", 0x3f803c0000ULL, NULL, "L3 hit, any snoop"},
    {"L3_MISS", 0x3fbfc00000ULL, NULL, "L3 miss"},
    {"DRAM", 0x73c000000ULL, NULL, "served by local or remote DRAM"},
};
/* libpfm4's slm SNP_ANY (0x3e80000000) holds bit 35, which the kernel rejects: L2_MISS lists
 * the snoop bits without it; L2_HIT has no snoop bits (libpfm4 would add SNP_ANY). libpfm4
 * adds ANY_RESPONSE (bit 16) to snoop-only masks, so L2_MISS has no libpfm4 name either. */
static const struct offcore_response slm_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L2_HIT", BIT(18), NULL, "L2 hit (supplier bit 18)"},
    {"L2_MISS", 0x3680000000ULL, NULL,
     "L2 miss: snoop bits 31, 33, 34, 36, 37 (not reserved bit 35)"},
};
static const struct offcore_response glm_resp[] = {
    {"ANY_RESPONSE", BIT(16), "ANY_RESPONSE", "any response (bit 16)"},
    {"L2_HIT", BIT(18), NULL, "L2 hit (supplier bit 18)"},
    {"L2_MISS", 0x3600000000ULL, NULL, "L2 miss: snoop bits 33, 34, 36, 37"},
};

/* Tremont: L3 supplier and snoop bits (OCR.*.L3_HIT, .L3_MISS, .DRAM). */
static const struct offcore_response tmt_resp[] = {
    {"ANY_RESPONSE", BIT(16), NULL, "any response (bit 16)"},
    {"L3_HIT", 0x1f803c0000ULL, NULL, "L3 hit, any snoop"},
    {"L3_MISS", 0x2184000000ULL, NULL, "L3 miss"},
    {"DRAM", 0x184000000ULL, NULL, "served by DRAM"},
};

/* ---- models ------------------------------------------------------------------------------- */

#define BITS(a) .bits = a, .nbits = N(a)
#define RESP(a) .responses = a, .nresponses = N(a)

const struct offcore_model offcore_models[] = {
    {.key = "nhm",
     .desc = "Nehalem",
     .pfm_model = "nhm",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0},
     .valid = {0xffff, 0},
     .kernel_table = "intel_nehalem_extra_regs",
     .request_field = 0x00ff,
     BITS(nhm_bits),
     RESP(nhm_resp),
     .slots = 1,
     .slots_note = "one MSR_OFFCORE_RSP_0, shared by the two HT siblings"},
    {.key = "wsm",
     .desc = "Westmere",
     .pfm_model = "wsm",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0xffff, 0xffff},
     .kernel_table = "intel_westmere_extra_regs",
     .request_field = 0x00ff,
     BITS(nhm_bits),
     RESP(nhm_resp),
     .slots = 2,
     .slots_note = "two MSRs shared by the two HT siblings"},
    {.key = "snb",
     .desc = "Sandy Bridge",
     .pfm_model = "snb",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3f807f8fffULL, 0x3f807f8fffULL},
     .kernel_table = "intel_snb_extra_regs",
     .request_field = 0xffff,
     BITS(snb_bits),
     RESP(snb_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "ivb",
     .desc = "Ivy Bridge",
     .pfm_model = "ivb",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3f807f8fffULL, 0x3f807f8fffULL},
     .kernel_table = "intel_snb_extra_regs",
     .request_field = 0xffff,
     BITS(snb_bits),
     RESP(snb_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "hsw",
     .desc = "Haswell",
     .pfm_model = "hsw",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffff8fffULL, 0x3fffff8fffULL},
     .kernel_table = "intel_snbep_extra_regs",
     .request_field = 0xffff,
     BITS(hsw_bits),
     RESP(hsw_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "bdw",
     .desc = "Broadwell",
     .pfm_model = "bdw",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffff8fffULL, 0x3fffff8fffULL},
     .kernel_table = "intel_snbep_extra_regs",
     .request_field = 0xffff,
     BITS(snb_bits),
     RESP(bdw_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "skl",
     .desc = "Skylake",
     .pfm_model = "skl",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffff8fffULL, 0x3fffff8fffULL},
     .kernel_table = "intel_skl_extra_regs",
     .request_field = 0xffff,
     BITS(skl_bits),
     RESP(skl_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "skx",
     .desc = "Skylake-SP",
     .pfm_model = "skx",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffff8fffULL, 0x3fffff8fffULL},
     .kernel_table = "intel_skl_extra_regs",
     .request_field = 0xffff,
     BITS(skx_bits),
     RESP(skx_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "icl",
     .desc = "Ice Lake",
     .pfm_model = "icl",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .pfm_combined = true,
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffffbfffULL, 0x3fffffbfffULL},
     .kernel_table = "intel_icl_extra_regs",
     .request_field = 0xffff,
     BITS(icl_bits),
     RESP(icl_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "icx",
     .desc = "Ice Lake-SP",
     .pfm_model = "icx",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .pfm_combined = true,
     .event = {0x01b7, 0x01bb},
     .valid = {0x3fffffbfffULL, 0x3fffffbfffULL},
     .kernel_table = "intel_icl_extra_regs",
     .request_field = 0xffff,
     BITS(icx_bits),
     RESP(icx_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "spr",
     .desc = "Sapphire Rapids",
     .pfm_model = "spr",
     .pfm_event = "OCR",
     .pfm_combined = true,
     .event = {0x012a, 0x012b},
     .valid = {0x3fffffffffULL, 0x3fffffffffULL},
     .kernel_table = "intel_spr_extra_regs",
     .request_field = 0xffff,
     BITS(spr_bits),
     RESP(spr_resp),
     .slots = 2,
     .slots_note = "two MSRs per logical CPU"},
    {.key = "slm",
     .desc = "Silvermont",
     .pfm_model = "slm",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x02b7},
     .valid = {0x768005ffffULL, 0x368005ffffULL},
     .kernel_table = "intel_slm_extra_regs",
     .request_field = 0xffff,
     BITS(slm_bits),
     RESP(slm_resp),
     .slots = 2,
     .slots_note = "two MSRs shared by the two cores of a module"},
    {.key = "glm",
     .desc = "Goldmont",
     .pfm_model = "glm",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x02b7},
     .valid = {0x760005ffbfULL, 0x360005ffbfULL},
     .kernel_table = "intel_glm_extra_regs",
     .request_field = 0xffff,
     BITS(glm_bits),
     RESP(glm_resp),
     .rsp0_only = 1u << 3,
     .slots = 2,
     .slots_note = "two MSRs"},
    {.key = "tmt",
     .desc = "Tremont",
     .pfm_model = "glm",
     .pfm_event = "OFFCORE_RESPONSE_0",
     .event = {0x01b7, 0x02b7},
     .valid = {0x800ff0ffffff9fffULL, 0xff0ffffff9fffULL},
     .kernel_table = "intel_tnt_extra_regs",
     .request_field = 0xffff,
     BITS(tmt_bits),
     RESP(tmt_resp),
     .slots = 2,
     .slots_note = "two MSRs"},
    {0},
};

const struct offcore_model *offcore_model_find(const char *key)
{
	if (!key)
		return NULL;
	for (const struct offcore_model *m = offcore_models; m->key; m++)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const struct offcore_model *offcore_model_for(const struct pmu_family *family)
{
	for (const struct pmu_family *f = family; f; f = family_find(f->parent)) {
		const struct offcore_model *m = offcore_model_find(f->key);
		if (m)
			return m;
	}
	return NULL;
}

bool offcore_rsp0_only(const struct offcore_model *m, int bit)
{
	return bit >= 0 && bit < OFFCORE_MAX_BITS && (m->rsp0_only >> bit) & 1;
}

const struct offcore_bit *offcore_bit_at(const struct offcore_model *m, int bit)
{
	for (int i = 0; m && i < m->nbits; i++)
		if (m->bits[i].bit == bit)
			return &m->bits[i];
	return NULL;
}

const struct offcore_bit *offcore_bit_find(const struct offcore_model *m, const char *name)
{
	if (!m || !name)
		return NULL;
	for (int i = 0; i < m->nbits; i++)
		if (strcasecmp(m->bits[i].name, name) == 0)
			return &m->bits[i];
	for (int i = 0; i < m->nbits; i++)
		for (int a = 0; a < N(m->bits[i].alias) && m->bits[i].alias[a]; a++)
			if (strcasecmp(m->bits[i].alias[a], name) == 0)
				return &m->bits[i];
	return NULL;
}

const struct offcore_response *offcore_response_find(const struct offcore_model *m,
						     const char *name)
{
	for (int i = 0; m && name && i < m->nresponses; i++)
		if (strcasecmp(m->responses[i].name, name) == 0)
			return &m->responses[i];
	if (m && name && (strcasecmp(name, "any") == 0 || strcasecmp(name, "all") == 0))
		return &m->responses[0];
	return NULL;
}

uint64_t offcore_request_mask(const struct offcore_model *m)
{
	uint64_t mask = 0;
	for (int i = 0; i < m->nbits; i++)
		mask |= BIT(m->bits[i].bit);
	return mask;
}

/* "12-14" / "35" / "35,38": the set bits of @v as ranges. */
static void bits_text(uint64_t v, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int b = 0; b < 64 && n < len; b++) {
		if (!(v & BIT(b)))
			continue;
		int e = b;
		while (e + 1 < 64 && (v & BIT(e + 1)))
			e++;
		int w = e > b ? snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", b, e)
			      : snprintf(buf + n, len - n, "%s%d", n ? "," : "", b);
		if (w < 0)
			break;
		n += (size_t)w;
		b = e;
	}
}

int offcore_check_mask(const struct offcore_model *m, int rsp, uint64_t config1, char *err,
		       size_t errlen)
{
	if (rsp < 0 || rsp >= OFFCORE_MAX_SLOTS || !m->event[rsp]) {
		snprintf(err, errlen, "%s has no MSR_OFFCORE_RSP_%d", m->desc, rsp);
		return -1;
	}
	uint64_t bad = config1 & ~m->valid[rsp];
	if (bad) {
		char bits[96];
		bits_text(bad, bits, sizeof(bits));
		snprintf(err, errlen,
			 "config1 %#llx: bit%s %s outside the kernel's valid mask %#llx for "
			 "MSR_OFFCORE_RSP_%d on %s (%s); the kernel would refuse it (EINVAL)",
			 (unsigned long long)config1, strpbrk(bits, ",-") ? "s" : "", bits,
			 (unsigned long long)m->valid[rsp], rsp, m->desc, m->kernel_table);
		return -1;
	}
	if (!(config1 & m->request_field)) {
		snprintf(err, errlen, "config1 %#llx selects no request type",
			 (unsigned long long)config1);
		return -1;
	}
	return 0;
}

int offcore_config1(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		    uint64_t *config1, char *err, size_t errlen)
{
	if (!resp)
		resp = &m->responses[0];
	if (bit < 0 || bit >= OFFCORE_MAX_BITS || !(m->request_field & BIT(bit))) {
		snprintf(err, errlen,
			 "bit %d is not a request-type bit on %s (request bits are mask %#x%s)",
			 bit, m->desc, m->request_field,
			 m->request_field == 0xff ? "; bits 15:8 select the response" : "");
		return -1;
	}
	if (!offcore_bit_at(m, bit)) {
		snprintf(err, errlen,
			 "request bit %d is reserved on %s (usable request bits %#llx, kernel mask "
			 "%#llx)",
			 bit, m->desc, (unsigned long long)offcore_request_mask(m),
			 (unsigned long long)m->valid[0]);
		return -1;
	}
	uint64_t v = BIT(bit) | resp->mask;
	if (offcore_check_mask(m, 0, v, err, errlen) < 0)
		return -1;
	*config1 = v;
	return 0;
}

int offcore_spec(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		 int rsp, char *buf, size_t len, char *err, size_t errlen)
{
	uint64_t c1;
	if (offcore_config1(m, bit, resp, &c1, err, errlen) < 0)
		return -1;
	if (rsp != 0 && offcore_check_mask(m, rsp, c1, err, errlen) < 0)
		return -1;
	if (rsp != 0 && offcore_rsp0_only(m, bit)) {
		snprintf(err, errlen, "%s (bit %d) counts on MSR_OFFCORE_RSP_0 only on %s",
			 offcore_bit_at(m, bit)->name, bit, m->desc);
		return -1;
	}
	snprintf(buf, len, "r%llx:config1=%#llx", (unsigned long long)m->event[rsp],
		 (unsigned long long)c1);
	return 0;
}

int offcore_pfm_spec(const struct offcore_model *m, int bit, const struct offcore_response *resp,
		     char *buf, size_t len)
{
	const struct offcore_bit *b = offcore_bit_at(m, bit);
	if (!resp)
		resp = &m->responses[0];
	if (!b || !b->pfm_name || !resp->pfm)
		return -1;
	if (m->pfm_combined)
		snprintf(buf, len, "%s::%s:%s_%s", m->pfm_model, m->pfm_event, b->pfm_name,
			 resp->pfm);
	else
		snprintf(buf, len, "%s::%s:%s:%s", m->pfm_model, m->pfm_event, b->pfm_name,
			 resp->pfm);
	return 0;
}

/* ---- selection ---------------------------------------------------------------------------- */

void offcore_selection_all(const struct offcore_model *m, struct offcore_selection *sel)
{
	memset(sel, 0, sizeof(*sel));
	for (int i = 0; i < m->nbits && i < OFFCORE_MAX_BITS; i++)
		sel->bits[sel->nbits++] = m->bits[i].bit;
	sel->response = &m->responses[0];
}

static void names_list(const struct offcore_model *m, bool responses, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	int count = responses ? m->nresponses : m->nbits;
	for (int i = 0; i < count && n < len; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				 responses ? m->responses[i].name : m->bits[i].name);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

/* The first model that has a bit named exactly @name (for error messages). */
static const struct offcore_bit *bit_elsewhere(const char *name, const struct offcore_model **model)
{
	for (const struct offcore_model *o = offcore_models; o->key; o++)
		for (int i = 0; i < o->nbits; i++)
			if (strcasecmp(o->bits[i].name, name) == 0) {
				*model = o;
				return &o->bits[i];
			}
	return NULL;
}

int offcore_parse_selection(const struct offcore_model *m, int argc, char **argv,
			    struct offcore_selection *sel, char *err, size_t errlen)
{
	struct offcore_selection out = {.response = &m->responses[0]};
	uint32_t seen = 0;
	bool all = false;
	char word[96], list[512];
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		text_escape(w, TEXT_NUL_TERMINATED, word, sizeof(word));
		if (strncasecmp(w, "response=", 9) == 0) {
			const struct offcore_response *r = offcore_response_find(m, w + 9);
			if (!r) {
				names_list(m, true, list, sizeof(list));
				snprintf(err, errlen, "unknown response \"%s\" on %s (choose: %s)",
					 word + 9, m->desc, list);
				return -1;
			}
			out.response = r;
			continue;
		}
		if (strcasecmp(w, "all") == 0) {
			all = true;
			continue;
		}
		const struct offcore_bit *b = offcore_bit_find(m, w);
		if (!b && w[0] >= '0' && w[0] <= '9') {
			char *end;
			errno = 0;
			long v = strtol(w, &end, 10);
			if (errno || *end || v < 0 || v >= 64) {
				snprintf(err, errlen, "bad bit number \"%s\"", word);
				return -1;
			}
			b = offcore_bit_at(m, (int)v);
			if (!b) {
				uint64_t c1;
				offcore_config1(m, (int)v, NULL, &c1, err, errlen);
				if (v >= OFFCORE_MAX_BITS)
					snprintf(err, errlen,
						 "bit %ld is not a request-type bit on %s", v,
						 m->desc);
				return -1;
			}
		}
		if (!b) {
			names_list(m, false, list, sizeof(list));
			const struct offcore_model *o;
			const struct offcore_bit *ob = bit_elsewhere(w, &o);
			if (ob)
				snprintf(err, errlen,
					 "request bit %s does not exist on %s (it is bit %d on %s; "
					 "valid: %s)",
					 ob->name, m->desc, ob->bit, o->desc, list);
			else
				snprintf(err, errlen,
					 "unknown offcore request bit \"%s\" on %s (valid: %s)",
					 word, m->desc, list);
			return -1;
		}
		seen |= 1u << b->bit;
	}
	if (all || !seen)
		seen = (uint32_t)offcore_request_mask(m);
	for (int b = 0; b < OFFCORE_MAX_BITS; b++)
		if (seen & (1u << b))
			out.bits[out.nbits++] = b;
	*sel = out;
	return 0;
}

/* ---- sweep -------------------------------------------------------------------------------- */

int offcore_plan_make(const struct offcore_model *m, const struct offcore_selection *sel, int slots,
		      struct offcore_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (slots <= 0)
		slots = m->slots;
	if (slots > OFFCORE_MAX_SLOTS)
		slots = OFFCORE_MAX_SLOTS;
	plan->slots = slots;
	if (sel->nbits <= 0)
		return -1;
	/* slot j of a slice is MSR_OFFCORE_RSP_j: an RSP_0-only bit takes slot 0 of its slice,
	 * moving a bit there to the end, or opens a slice of its own when slot 0 is taken by one */
	int k = 0;
	for (int i = 0; i < sel->nbits && i < OFFCORE_MAX_BITS; i++) {
		bool only0 = offcore_rsp0_only(m, sel->bits[i]);
		if (plan->slice_n[k] == slots) /* full */
			k++;
		int *sb = plan->slice_bits[k];
		if (only0 && plan->slice_n[k] > 0) {
			if (offcore_rsp0_only(m, sb[0])) {
				sb = plan->slice_bits[++k];
			} else {
				sb[plan->slice_n[k]++] = sb[0];
				sb[0] = sel->bits[i];
				plan->nslices = k + 1;
				continue;
			}
		}
		sb[plan->slice_n[k]++] = sel->bits[i];
		plan->nslices = k + 1;
	}
	return plan->nslices;
}

void offcore_sweep_init(struct offcore_sweep *s, const struct offcore_model *m,
			const struct offcore_plan *plan)
{
	memset(s, 0, sizeof(*s));
	s->plan = *plan;
	for (int k = 0; k < plan->nslices; k++)
		for (int j = 0; j < plan->slice_n[k] && s->nstat < OFFCORE_MAX_BITS; j++) {
			struct offcore_bit_stat *st = &s->stat[s->nstat++];
			const struct offcore_bit *b = offcore_bit_at(m, plan->slice_bits[k][j]);
			st->bit = plan->slice_bits[k][j];
			st->superset = b && b->superset;
			st->last_tick = -1;
			st->age = -1;
			st->share = -1;
		}
	s->any_rate = -1;
}

int offcore_sweep_current(const struct offcore_sweep *s, int *bits)
{
	if (s->plan.nslices <= 0)
		return 0;
	int n = s->plan.slice_n[s->slice];
	for (int j = 0; j < n; j++)
		bits[j] = s->plan.slice_bits[s->slice][j];
	return n;
}

static struct offcore_bit_stat *stat_of(struct offcore_sweep *s, int bit)
{
	for (int i = 0; i < s->nstat; i++)
		if (s->stat[i].bit == bit)
			return &s->stat[i];
	return NULL;
}

const struct offcore_bit_stat *offcore_sweep_stat(const struct offcore_sweep *s, int bit)
{
	return stat_of((struct offcore_sweep *)s, bit);
}

void offcore_sweep_tick(struct offcore_sweep *s, const double *rates, int n)
{
	if (s->plan.nslices <= 0)
		return;
	int cur[OFFCORE_MAX_SLOTS];
	int nc = offcore_sweep_current(s, cur);
	for (int j = 0; j < nc && j < n; j++) {
		struct offcore_bit_stat *st = stat_of(s, cur[j]);
		if (!st || isnan(rates[j]))
			continue;
		st->rate = rates[j];
		st->measured = true;
		st->last_tick = s->tick;
	}
	s->total = 0;
	s->any_rate = -1;
	for (int i = 0; i < s->nstat; i++) {
		struct offcore_bit_stat *st = &s->stat[i];
		st->age = st->measured ? s->tick - st->last_tick : -1;
		if (!st->measured)
			continue;
		if (st->superset)
			s->any_rate = st->rate;
		else
			s->total += st->rate;
	}
	for (int i = 0; i < s->nstat; i++) {
		struct offcore_bit_stat *st = &s->stat[i];
		if (!st->measured || st->superset)
			st->share = -1;
		else
			st->share = s->total > 0 ? st->rate / s->total : 0;
	}
	s->tick++;
	s->slice = (s->slice + 1) % s->plan.nslices;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_offcore.c: offcore request-bit encodings vs the SDM and libpfm4, kernel masks, the sweep. */
#include "encode.h"
#include "family.h"
#include "harness.h"
#include "offcore.h"

static char err[512];

static int encode(const char *spec, const char *family, struct event_encoding *enc)
{
	struct encode_ctx ctx = {.sysfs_root = "/",
				 .family = family_find(family),
				 .core_pmu_type = 4,
				 .filters_priv = true};
	err[0] = '\0';
	return event_encode(spec, &ctx, enc, err, sizeof(err));
}

/* libpfm4 is built with its own architecture's tables only: a libpfm4 name is checked where
 * the model is there and skipped with that reason elsewhere. */
static bool model_missing(int line, const char *spec)
{
	char model[32];
	if (!encode_model_missing(spec, NULL, model, sizeof(model)))
		return false;
	SKIP("line %d: %s: libpfm4 here has no %s tables (built for another architecture)", line,
	     spec, model);
	return true;
}

/* Encodes @raw and @pfm and checks both give @config/@config1. Prints what was checked. */
static void check_pair(int line, const char *family, const char *raw, const char *pfm,
		       unsigned long long config, unsigned long long config1)
{
	struct event_encoding a, b;
	int ra = encode(raw, family, &a);
	CHECK(ra == 0, "line %d: %s: %s", line, raw, err);
	if (pfm && model_missing(line, pfm))
		pfm = NULL;
	int rb = pfm ? encode(pfm, family, &b) : 0;
	if (pfm)
		CHECK(rb == 0, "line %d: %s: %s", line, pfm, err);
	if (ra)
		return;
	CHECK(a.attr.type == 4, "line %d: %s type %u", line, raw, a.attr.type);
	CHECK(a.attr.config == config && a.attr.config1 == config1,
	      "line %d: %s -> config %#llx config1 %#llx, want %#llx %#llx", line, raw,
	      (unsigned long long)a.attr.config, (unsigned long long)a.attr.config1, config,
	      config1);
	if (pfm && rb == 0)
		CHECK(b.attr.config == a.attr.config && b.attr.config1 == a.attr.config1,
		      "line %d: %s -> config %#llx config1 %#llx, raw form gives %#llx %#llx", line,
		      pfm, (unsigned long long)b.attr.config, (unsigned long long)b.attr.config1,
		      (unsigned long long)a.attr.config, (unsigned long long)a.attr.config1);
	printf("  %-24s config=%#llx config1=%#-14llx %s\n", raw, (unsigned long long)a.attr.config,
	       (unsigned long long)a.attr.config1, pfm ? pfm : "(no libpfm4 name)");
}

/* Seed 001: Intel SDM Table 18-15, Silvermont MSR_OFFCORE_RSPx request type (bit 13 is printed
 * "PF_DATA_RD" a second time there; its description, DCU prefetcher data reads, is
 * PF_L1_DATA_RD as libpfm4 and the Linux event lists call it). */
static const struct {
	int line;
	const char *name;
	int bit;
} slm_sdm[] = {
    {__LINE__, "DMND_DATA_RD", 0},     {__LINE__, "DMND_RFO", 1},
    {__LINE__, "DMND_IFETCH", 2},      {__LINE__, "WB", 3},
    {__LINE__, "PF_DATA_RD", 4},       {__LINE__, "PF_RFO", 5},
    {__LINE__, "PF_IFETCH", 6},	       {__LINE__, "PARTIAL_READ", 7},
    {__LINE__, "PARTIAL_WRITE", 8},    {__LINE__, "UC_IFETCH", 9},
    {__LINE__, "BUS_LOCKS", 10},       {__LINE__, "STRM_ST", 11},
    {__LINE__, "SW_PREFETCH", 12},     {__LINE__, "PF_L1_DATA_RD", 13},
    {__LINE__, "PARTIAL_STRM_ST", 14}, {__LINE__, "ANY", 15},
};

/* Sandy Bridge (SDM Table 18-36; libpfm4 snb names): bits 0-11 and 15; 12-14 reserved. */
static const struct {
	int line;
	const char *name;
	int bit; /* -1: reserved */
} snb_sdm[] = {
    {__LINE__, "DMND_DATA_RD", 0}, {__LINE__, "DMND_RFO", 1},
    {__LINE__, "DMND_IFETCH", 2},  {__LINE__, "WB", 3},
    {__LINE__, "PF_DATA_RD", 4},   {__LINE__, "PF_RFO", 5},
    {__LINE__, "PF_IFETCH", 6},	   {__LINE__, "PF_LLC_DATA_RD", 7},
    {__LINE__, "PF_LLC_RFO", 8},   {__LINE__, "PF_LLC_IFETCH", 9},
    {__LINE__, "BUS_LOCKS", 10},   {__LINE__, "STRM_ST", 11},
    {__LINE__, NULL, 12},	   {__LINE__, NULL, 13},
    {__LINE__, NULL, 14},	   {__LINE__, "OTHER", 15},
};

static void test_slm(void)
{
	const struct offcore_model *m = offcore_model_find("slm");
	CHECK(m != NULL, "slm table");
	if (!m)
		return;
	printf("slm (SDM Table 18-15), RSP_0 and RSP_1, ANY_RESPONSE:\n");
	CHECK_INT(m->nbits, 16);
	for (size_t i = 0; i < sizeof(slm_sdm) / sizeof(slm_sdm[0]); i++) {
		const struct offcore_bit *b = offcore_bit_find(m, slm_sdm[i].name);
		CHECK(b && b->bit == slm_sdm[i].bit, "line %d: %s -> bit %d", slm_sdm[i].line,
		      slm_sdm[i].name, b ? b->bit : -1);
		if (!b)
			continue;
		uint64_t c1 = 0;
		CHECK(offcore_config1(m, b->bit, NULL, &c1, err, sizeof(err)) == 0, "%s", err);
		CHECK_INT(c1, (1ULL << slm_sdm[i].bit) | 0x10000);
		char raw[64], raw1[64], pfm[160], pfm1[160];
		CHECK(offcore_spec(m, b->bit, NULL, 0, raw, sizeof(raw), err, sizeof(err)) == 0,
		      "%s", err);
		CHECK(offcore_spec(m, b->bit, NULL, 1, raw1, sizeof(raw1), err, sizeof(err)) == 0,
		      "%s", err);
		CHECK(offcore_pfm_spec(m, b->bit, NULL, pfm, sizeof(pfm)) == 0,
		      "slm %s has a libpfm4 name", b->name);
		/* libpfm4 spells bit 4 PF_L2_DATA_RD and bit 15 OTHER */
		snprintf(pfm1, sizeof(pfm1), "slm::OFFCORE_RESPONSE_1:%s:ANY_RESPONSE",
			 b->pfm_name);
		check_pair(slm_sdm[i].line, "slm", raw, pfm, 0x1b7,
			   (1ULL << slm_sdm[i].bit) | 0x10000);
		check_pair(slm_sdm[i].line, "slm", raw1, pfm1, 0x2b7,
			   (1ULL << slm_sdm[i].bit) | 0x10000);
	}
	/* the example of the SDM/Linux event list */
	uint64_t c1 = 0;
	offcore_config1(m, offcore_bit_find(m, "PF_L1_DATA_RD")->bit, NULL, &c1, err, sizeof(err));
	CHECK_INT(c1, 0x12000);
	CHECK(offcore_bit_find(m, "ANY")->superset, "slm ANY is a superset");
	CHECK(offcore_bit_find(m, "any_request") == offcore_bit_find(m, "ANY"),
	      "alias ANY_REQUEST");
	CHECK(offcore_bit_find(m, "dmnd_code_rd") == offcore_bit_find(m, "DMND_IFETCH"), "alias");
}

static void test_snb(void)
{
	const struct offcore_model *m = offcore_model_find("snb");
	printf("snb (SDM Table 18-36 layout), ANY_RESPONSE bit 16:\n");
	CHECK_INT(m->nbits, 13);
	CHECK_INT(offcore_request_mask(m), 0x8fff);
	for (size_t i = 0; i < sizeof(snb_sdm) / sizeof(snb_sdm[0]); i++) {
		uint64_t c1 = 0;
		char raw[64], pfm[160], raw1[64], pfm1[160];
		int bit = snb_sdm[i].name ? snb_sdm[i].bit : snb_sdm[i].bit;
		if (!snb_sdm[i].name) {
			err[0] = '\0';
			CHECK(offcore_config1(m, bit, NULL, &c1, err, sizeof(err)) < 0,
			      "line %d: bit %d accepted", snb_sdm[i].line, bit);
			char want[32];
			snprintf(want, sizeof(want), "bit %d is reserved", bit);
			CHECK(strstr(err, want) && strstr(err, "Sandy Bridge") &&
				  strstr(err, "0x3f807f8fff"),
			      "line %d: error \"%s\"", snb_sdm[i].line, err);
			printf("  bit %-2d rejected: %s\n", bit, err);
			/* and the kernel mask itself rejects it */
			CHECK(offcore_check_mask(m, 0, (1ULL << bit) | 0x10000, err, sizeof(err)) <
				  0,
			      "kernel mask bit %d", bit);
			continue;
		}
		const struct offcore_bit *b = offcore_bit_find(m, snb_sdm[i].name);
		CHECK(b && b->bit == bit, "line %d: %s", snb_sdm[i].line, snb_sdm[i].name);
		CHECK(offcore_config1(m, bit, NULL, &c1, err, sizeof(err)) == 0, "%s", err);
		CHECK_INT(c1, (1ULL << bit) | 0x10000);
		offcore_spec(m, bit, NULL, 0, raw, sizeof(raw), err, sizeof(err));
		offcore_spec(m, bit, NULL, 1, raw1, sizeof(raw1), err, sizeof(err));
		CHECK(offcore_pfm_spec(m, bit, NULL, pfm, sizeof(pfm)) == 0, "snb name");
		snprintf(pfm1, sizeof(pfm1), "snb::OFFCORE_RESPONSE_1:%s:ANY_RESPONSE",
			 snb_sdm[i].name);
		check_pair(snb_sdm[i].line, "snb", raw, pfm, 0x1b7, (1ULL << bit) | 0x10000);
		check_pair(snb_sdm[i].line, "snb", raw1, pfm1, 0x1bb, (1ULL << bit) | 0x10000);
	}
	CHECK(offcore_bit_find(m, "DMND_CODE_RD") && offcore_bit_find(m, "DMND_CODE_RD")->bit == 2,
	      "DMND_CODE_RD alias");
	CHECK(offcore_bit_find(m, "SW_PREFETCH") == NULL, "SW_PREFETCH is not a snb bit");
	CHECK(offcore_bit_at(m, 12) == NULL, "bit 12 reserved");
}

/* Every model, bit and response that claims a libpfm4 name: both forms encode the same. */
static void test_all_models(void)
{
	printf("all models, every bit x response with a libpfm4 name:\n");
	int compared = 0;
	for (const struct offcore_model *m = offcore_models; m->key; m++) {
		for (int i = 0; i < m->nbits; i++)
			for (int r = 0; r < m->nresponses; r++) {
				const struct offcore_response *resp = &m->responses[r];
				uint64_t c1;
				char raw[64], pfm[200];
				int bit = m->bits[i].bit;
				CHECK(offcore_config1(m, bit, resp, &c1, err, sizeof(err)) == 0,
				      "%s %s %s: %s", m->key, m->bits[i].name, resp->name, err);
				CHECK(offcore_check_mask(m, 1 % (m->event[1] ? 2 : 1), c1, err,
							 sizeof(err)) == 0,
				      "%s RSP_1 %s: %s", m->key, resp->name, err);
				if (offcore_pfm_spec(m, bit, resp, pfm, sizeof(pfm)) < 0)
					continue;
				offcore_spec(m, bit, resp, 0, raw, sizeof(raw), err, sizeof(err));
				check_pair(__LINE__, m->key, raw, pfm, m->event[0], c1);
				compared++;
			}
	}
	printf("  %d encodings compared\n", compared);
	CHECK(compared >= 150, "compared %d", compared);
}

static void test_nhm_spr_glm(void)
{
	const struct offcore_model *m = offcore_model_find("nhm");
	uint64_t c1 = 0;
	char spec[64];
	printf("nhm: request bits 7:0, ANY_RESPONSE = 0xff00:\n");
	CHECK_INT(m->nbits, 8);
	CHECK_INT(m->slots, 1);
	CHECK_INT(m->event[1], 0);
	for (int bit = 0; bit < 8; bit++) {
		CHECK(offcore_config1(m, bit, NULL, &c1, err, sizeof(err)) == 0, "%s", err);
		CHECK_INT(c1, (1ULL << bit) | 0xff00);
	}
	CHECK(offcore_config1(m, 9, NULL, &c1, err, sizeof(err)) < 0, "nhm bit 9");
	CHECK(strstr(err, "not a request-type bit") && strstr(err, "15:8"), "%s", err);
	CHECK(offcore_spec(m, 0, NULL, 1, spec, sizeof(spec), err, sizeof(err)) < 0, "nhm RSP_1");
	CHECK(offcore_spec(m, 0, NULL, 0, spec, sizeof(spec), err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(spec, "r1b7:config1=0xff01");
	CHECK_INT(offcore_model_find("wsm")->slots, 2);

	m = offcore_model_find("spr");
	printf("spr: OCR event 0x2a:\n");
	CHECK(offcore_spec(m, 0, NULL, 0, spec, sizeof(spec), err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(spec, "r12a:config1=0x10001");
	check_pair(__LINE__, "spr", spec, "spr::OCR:DEMAND_DATA_RD_ANY_RESPONSE", 0x12a, 0x10001);
	CHECK(offcore_spec(m, 0, NULL, 1, spec, sizeof(spec), err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(spec, "r12b:config1=0x10001");
	/* libpfm4 4.13 quirk: OFFCORE_RESPONSE_1 is an alias of OCR and encodes to 0x12a too */
	struct event_encoding enc;
	if (encode("spr::OFFCORE_RESPONSE_1:DEMAND_DATA_RD_ANY_RESPONSE", "spr", &enc) == 0)
		CHECK_INT(enc.attr.config, 0x12a);

	m = offcore_model_find("glm");
	CHECK(offcore_bit_at(m, 6) == NULL, "glm bit 6 reserved");
	CHECK(offcore_config1(m, 6, NULL, &c1, err, sizeof(err)) < 0 && strstr(err, "bit 6"), "%s",
	      err);
	CHECK(offcore_bit_find(m, "SW_PF") && offcore_bit_find(m, "SW_PF")->bit == 12, "glm SW_PF");
	/* COREWB (bit 3) counts on MSR_OFFCORE_RSP_0 only (Intel's Goldmont list: MSRIndex 0x1a6):
	 * the sweep gives it slot 0, and a spec for RSP_1 is refused */
	CHECK(offcore_spec(m, 3, NULL, 1, spec, sizeof(spec), err, sizeof(err)) < 0 &&
		  strstr(err, "MSR_OFFCORE_RSP_0 only"),
	      "glm COREWB on RSP_1: %s", err);
	struct offcore_selection sel = {.bits = {2, 3}, .nbits = 2, .response = &m->responses[0]};
	struct offcore_plan plan;
	CHECK_INT(offcore_plan_make(m, &sel, 0, &plan), 1);
	CHECK(plan.slice_bits[0][0] == 3 && plan.slice_bits[0][1] == 2, "glm slice 0: %d %d",
	      plan.slice_bits[0][0], plan.slice_bits[0][1]);
}

/* The kernel's valid masks: libpfm4's slm SNP_ANY holds reserved bit 35. */
static void test_kernel_masks(void)
{
	const struct offcore_model *slm = offcore_model_find("slm");
	struct event_encoding enc;
	printf("kernel mask checks:\n");
	if (model_missing(__LINE__, "slm::OFFCORE_RESPONSE_0"))
		return;
	CHECK(encode("slm::OFFCORE_RESPONSE_0:DMND_DATA_RD:L2_HIT", "slm", &enc) == 0, "%s", err);
	CHECK_INT(enc.attr.config1, 0x3e80040001ULL);
	CHECK(offcore_check_mask(slm, 0, enc.attr.config1, err, sizeof(err)) < 0, "bit 35 passes");
	CHECK(strstr(err, "bit 35 ") && strstr(err, "0x768005ffff") &&
		  strstr(err, "intel_slm_extra_regs"),
	      "%s", err);
	printf("  slm L2_HIT from libpfm4: %s\n", err);
	/* our L2_MISS filter leaves bit 35 out and passes on both MSRs */
	const struct offcore_response *miss = offcore_response_find(slm, "l2_miss");
	uint64_t c1 = 0;
	CHECK(miss && offcore_config1(slm, 0, miss, &c1, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(c1, 0x3680000001ULL);
	CHECK(offcore_check_mask(slm, 1, c1, err, sizeof(err)) == 0, "%s", err);
	/* bit 38 (average latency) exists on RSP_0 only */
	CHECK(offcore_check_mask(slm, 0, (1ULL << 38) | 0x10001, err, sizeof(err)) == 0, "%s", err);
	CHECK(offcore_check_mask(slm, 1, (1ULL << 38) | 0x10001, err, sizeof(err)) < 0,
	      "bit 38 on RSP_1");
	CHECK(strstr(err, "bit 38 ") && strstr(err, "0x368005ffff"), "%s", err);
	/* several bits are named as ranges */
	const struct offcore_model *snb = offcore_model_find("snb");
	CHECK(offcore_check_mask(snb, 0, 0x7000 | 0x10000, err, sizeof(err)) < 0, "snb 12-14");
	CHECK(strstr(err, "bits 12-14 ") != NULL, "%s", err);
	printf("  snb 0x17000: %s\n", err);
	/* SNB L3_MISS: supplier bit 22 and snoop bits 31-37, accepted by intel_snb_extra_regs */
	CHECK(offcore_config1(snb, 0, offcore_response_find(snb, "L3_MISS"), &c1, err,
			      sizeof(err)) == 0,
	      "%s", err);
	CHECK_INT(c1, 0x3f80400001ULL);
	CHECK(offcore_check_mask(snb, 0, 0, err, sizeof(err)) < 0 && strstr(err, "no request"),
	      "%s", err);
}

static void test_families(void)
{
	static const struct {
		int line;
		const char *family, *model;
	} cases[] = {
	    {__LINE__, "nhm", "nhm"},  {__LINE__, "wsm", "wsm"},  {__LINE__, "snb", "snb"},
	    {__LINE__, "ivb", "ivb"},  {__LINE__, "hsw", "hsw"},  {__LINE__, "bdw", "bdw"},
	    {__LINE__, "skl", "skl"},  {__LINE__, "skx", "skx"},  {__LINE__, "icl", "icl"},
	    {__LINE__, "icx", "icx"},  {__LINE__, "spr", "spr"},  {__LINE__, "slm", "slm"},
	    {__LINE__, "glm", "glm"},  {__LINE__, "intel", NULL}, {__LINE__, "atom", NULL},
	    {__LINE__, "armv8", NULL}, {__LINE__, "zen", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct offcore_model *m = offcore_model_for(family_find(cases[i].family));
		if (cases[i].model)
			CHECK(m && strcmp(m->key, cases[i].model) == 0, "line %d: %s",
			      cases[i].line, cases[i].family);
		else
			CHECK(m == NULL, "line %d: %s has offcore", cases[i].line, cases[i].family);
	}
	CHECK(offcore_model_for(NULL) == NULL, "NULL family");
}

static void test_plan(void)
{
	struct offcore_selection sel;
	struct offcore_plan plan;
	const struct offcore_model *snb = offcore_model_find("snb");
	offcore_selection_all(snb, &sel);
	CHECK_INT(sel.nbits, 13);
	CHECK_INT(offcore_plan_make(snb, &sel, 0, &plan), 7);
	CHECK_INT(plan.slots, 2);
	static const int snb_slices[7][2] = {{0, 1}, {2, 3},   {4, 5},	{6, 7},
					     {8, 9}, {10, 11}, {15, -1}};
	for (int k = 0; k < 7; k++) {
		CHECK_INT(plan.slice_n[k], k == 6 ? 1 : 2);
		CHECK_INT(plan.slice_bits[k][0], snb_slices[k][0]);
		if (k < 6)
			CHECK_INT(plan.slice_bits[k][1], snb_slices[k][1]);
	}
	const struct offcore_model *nhm = offcore_model_find("nhm");
	offcore_selection_all(nhm, &sel);
	CHECK_INT(offcore_plan_make(nhm, &sel, 0, &plan), 8);
	CHECK_INT(plan.slots, 1);
	for (int k = 0; k < 8; k++)
		CHECK(plan.slice_n[k] == 1 && plan.slice_bits[k][0] == k, "nhm slice %d", k);
	const struct offcore_model *slm = offcore_model_find("slm");
	offcore_selection_all(slm, &sel);
	CHECK_INT(offcore_plan_make(slm, &sel, 0, &plan), 8);

	char *pin[] = {"DMND_DATA_RD", "DMND_RFO"};
	CHECK(offcore_parse_selection(snb, 2, pin, &sel, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(offcore_plan_make(snb, &sel, 0, &plan), 1);
	CHECK(plan.slice_n[0] == 2 && plan.slice_bits[0][0] == 0 && plan.slice_bits[0][1] == 1,
	      "pinned slice");
	sel.nbits = 0;
	CHECK_INT(offcore_plan_make(snb, &sel, 0, &plan), -1);
}

static void test_sweep(void)
{
	const struct offcore_model *slm = offcore_model_find("slm");
	struct offcore_selection sel;
	struct offcore_plan plan;
	struct offcore_sweep s;
	char *words[] = {"any", "dmnd_rfo", "DMND_DATA_RD"};
	CHECK(offcore_parse_selection(slm, 3, words, &sel, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(offcore_plan_make(slm, &sel, 0, &plan), 2); /* {0,1} {15} */
	offcore_sweep_init(&s, slm, &plan);
	int cur[2];
	CHECK_INT(offcore_sweep_current(&s, cur), 2);
	CHECK(cur[0] == 0 && cur[1] == 1, "slice 0 = bits 0,1");
	CHECK_INT(offcore_sweep_stat(&s, 0)->age, -1);

	double t0[] = {300, 100};
	offcore_sweep_tick(&s, t0, 2);
	const struct offcore_bit_stat *rd = offcore_sweep_stat(&s, 0),
				      *rfo = offcore_sweep_stat(&s, 1),
				      *any = offcore_sweep_stat(&s, 15);
	CHECK_INT(s.tick, 1);
	CHECK_NEAR(s.total, 400, 1e-9);
	CHECK_NEAR(rd->share, 0.75, 1e-12);
	CHECK_NEAR(rfo->share, 0.25, 1e-12);
	CHECK(rd->age == 0 && rfo->age == 0 && any->age == -1 && any->share == -1,
	      "ages after tick 0");
	CHECK_NEAR(s.any_rate, -1, 0);
	CHECK_INT(offcore_sweep_current(&s, cur), 1);
	CHECK_INT(cur[0], 15);

	double t1[] = {500};
	offcore_sweep_tick(&s, t1, 1);
	CHECK(rd->age == 1 && rfo->age == 1 && any->age == 0, "ages after tick 1");
	CHECK_NEAR(s.any_rate, 500, 0);
	CHECK_NEAR(any->share, -1, 0); /* ANY is not a share of the others */
	CHECK_NEAR(rd->share, 0.75, 1e-12);
	CHECK_NEAR(s.total, 400, 1e-9);

	double t2[] = {100, 300};
	offcore_sweep_tick(&s, t2, 2);
	CHECK(rd->age == 0 && any->age == 1 && rd->last_tick == 2 && any->last_tick == 1, "tick 2");
	CHECK_NEAR(rd->share, 0.25, 1e-12);
	CHECK_NEAR(rfo->share, 0.75, 1e-12);
	CHECK_NEAR(rfo->rate, 300, 0);

	double t3[] = {NAN};
	offcore_sweep_tick(&s, t3, 1); /* unreadable: keep the old value, let it age */
	CHECK(any->age == 2 && any->rate == 500 && s.any_rate == 500, "NaN keeps value");
	CHECK_INT(s.slice, 0);

	/* full SNB sweep: after 7 ticks every bit has a value; slice k is 6-k ticks old */
	const struct offcore_model *snb = offcore_model_find("snb");
	offcore_selection_all(snb, &sel);
	offcore_plan_make(snb, &sel, 0, &plan);
	offcore_sweep_init(&s, snb, &plan);
	for (int k = 0; k < 7; k++) {
		int n = offcore_sweep_current(&s, cur);
		double r[2] = {10.0 * cur[0], n > 1 ? 10.0 * cur[1] : 0};
		offcore_sweep_tick(&s, r, n);
	}
	double sum = 0;
	for (int b = 0; b < 16; b++)
		sum += offcore_bit_at(snb, b) ? 10.0 * b : 0;
	CHECK_NEAR(s.total, sum, 1e-9); /* 10 * (0+..+11 + 15) = 810 */
	CHECK_NEAR(s.total, 810, 1e-9);
	for (int k = 0; k < 7; k++)
		for (int j = 0; j < plan.slice_n[k]; j++) {
			const struct offcore_bit_stat *st =
			    offcore_sweep_stat(&s, plan.slice_bits[k][j]);
			CHECK(st->age == 6 - k, "bit %d age %ld", st->bit, st->age);
		}
	CHECK_NEAR(offcore_sweep_stat(&s, 15)->share, 150.0 / 810, 1e-12);
	CHECK_INT(s.slice, 0);
	CHECK(offcore_sweep_stat(&s, 12) == NULL, "reserved bit not swept");
}

static void test_parse(void)
{
	const struct offcore_model *snb = offcore_model_find("snb");
	const struct offcore_model *slm = offcore_model_find("slm");
	static const struct {
		int line;
		const char *model;
		const char *words[4];
		int ok;
		int nbits;
		const char *resp; /* expected response, or error substring */
		const char *err2; /* second error substring */
	} cases[] = {
	    {__LINE__, "snb", {NULL}, 1, 13, "ANY_RESPONSE", NULL},
	    {__LINE__, "snb", {"all", "response=l3_miss"}, 1, 13, "L3_MISS", NULL},
	    {__LINE__, "snb", {"response=any"}, 1, 13, "ANY_RESPONSE", NULL},
	    {__LINE__, "snb", {"dmnd_code_rd", "WB", "wb"}, 1, 2, "ANY_RESPONSE", NULL},
	    {__LINE__, "snb", {"15", "0"}, 1, 2, "ANY_RESPONSE", NULL},
	    {__LINE__, "slm", {"PF_L1_DATA_RD", "response=L2_MISS"}, 1, 1, "L2_MISS", NULL},
	    {__LINE__, "snb", {"FOO"}, 0, 0, "unknown offcore request bit \"FOO\"", "DMND_DATA_RD"},
	    {__LINE__,
	     "snb",
	     {"SW_PREFETCH"},
	     0,
	     0,
	     "SW_PREFETCH does not exist on Sandy Bridge (it is bit 12 on Silvermont",
	     NULL},
	    {__LINE__, "snb", {"13"}, 0, 0, "request bit 13 is reserved on Sandy Bridge", "0x8fff"},
	    {__LINE__, "snb", {"16"}, 0, 0, "bit 16 is not a request-type bit", NULL},
	    {__LINE__, "snb", {"99"}, 0, 0, "bad bit number", NULL},
	    {__LINE__, "snb", {"response=L2_HIT"}, 0, 0, "unknown response \"L2_HIT\"", "L3_MISS"},
	    {__LINE__,
	     "nhm",
	     {"BUS_LOCKS"},
	     0,
	     0,
	     "BUS_LOCKS does not exist on Nehalem (it is bit 10 on Sandy Bridge",
	     NULL},
	    {__LINE__, "nhm", {"9"}, 0, 0, "15:8 select the response", NULL},
	    {__LINE__, "snb", {"x\033[2J"}, 0, 0, "\\x1b[2J", NULL},
	};
	(void)slm;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct offcore_model *m = offcore_model_find(cases[i].model);
		int argc = 0;
		while (argc < 4 && cases[i].words[argc])
			argc++;
		struct offcore_selection sel = {.nbits = 99};
		err[0] = '\0';
		int rc = offcore_parse_selection(m, argc, (char **)cases[i].words, &sel, err,
						 sizeof(err));
		CHECK((rc == 0) == cases[i].ok, "line %d: rc %d (%s)", cases[i].line, rc, err);
		if (cases[i].ok && rc == 0) {
			CHECK(sel.nbits == cases[i].nbits, "line %d: %d bits", cases[i].line,
			      sel.nbits);
			CHECK(strcmp(sel.response->name, cases[i].resp) == 0,
			      "line %d: response %s", cases[i].line, sel.response->name);
		} else if (!cases[i].ok && rc != 0) {
			CHECK(strstr(err, cases[i].resp) != NULL, "line %d: error \"%s\"",
			      cases[i].line, err);
			if (cases[i].err2)
				CHECK(strstr(err, cases[i].err2) != NULL, "line %d: error \"%s\"",
				      cases[i].line, err);
			CHECK(sel.nbits == 99, "line %d: selection changed on error",
			      cases[i].line);
			CHECK(!strchr(err, '\033'), "line %d: raw escape in error", cases[i].line);
			printf("  %s\n", err);
		}
	}
	char *w[] = {"dmnd_code_rd", "WB"};
	struct offcore_selection sel;
	offcore_parse_selection(snb, 2, w, &sel, err, sizeof(err));
	CHECK(sel.bits[0] == 2 && sel.bits[1] == 3, "ascending bits");
}

int main(void)
{
	if (encode_init(err, sizeof(err)) < 0) {
		SKIP("libpfm4: %s", err);
		return harness_done();
	}
	test_slm();
	test_snb();
	test_all_models();
	test_nhm_spr_glm();
	test_kernel_masks();
	test_families();
	test_plan();
	test_sweep();
	test_parse();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_encode.c: event spec encodings (libpfm4 models this machine lacks, raw, sysfs syntax). */
#include "encode.h"
#include "family.h"
#include "harness.h"

static const struct {
	int line;
	const char *family;
	int filters; /* ctx.filters_priv */
	const char *spec;
	int ok;
	unsigned type;
	unsigned long long config, config1;
	int any_exclude; /* -1 = don't care */
} cases[] = {
    {__LINE__, "sw", 1, "perf::CYCLES", 1, 0, 0x0, 0, -1},
    {__LINE__, "sw", 1, "cycles", 1, 0, 0x0, 0, -1},
    {__LINE__, "sw", 1, "perf::INSTRUCTIONS", 1, 0, 0x1, 0, -1},
    {__LINE__, "sw", 1, "perf::L1-DCACHE-LOAD-MISSES", 1, 3, 0x10000, 0, -1},
    {__LINE__, "sw", 1, "perf::DTLB-LOAD-MISSES", 1, 3, 0x10003, 0, -1},
    {__LINE__, "sw", 1, "cpu-clock", 1, 1, 0, 0, -1},
    {__LINE__, "sw", 1, "perf::CONTEXT-SWITCHES", 1, 1, 3, 0, -1},
    {__LINE__, "sw", 1, "skl::INST_RETIRED:ANY_P", 1, 4, 0xc0, 0, -1},
    {__LINE__, "skl", 1, "@::INST_RETIRED:ANY_P", 1, 4, 0xc0, 0, -1},
    {__LINE__, "snb", 1, "snb::OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", 1, 4, 0x1b7, 0x10001,
     -1},
    {__LINE__, "slm", 1, "slm::OFFCORE_RESPONSE_1:PARTIAL_STRM_ST:ANY_RESPONSE", 1, 4, 0x2b7,
     0x14000, -1},
    {__LINE__, "spr", 1, "spr::OCR:DEMAND_DATA_RD_ANY_RESPONSE", 1, 4, 0x12a, 0x10001, -1},
    {__LINE__, "nhm", 1, "nhm::OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", 1, 4, 0x1b7, 0xff01,
     -1},
    /* raw codes: XScale/ARM tables; no privilege filtering on XScale */
    {__LINE__, "xscale2", 0, "r07", 1, 4, 0x07, 0, 0},
    {__LINE__, "xscale1", 0, "rfe", 1, 4, 0xfe, 0, 0},
    {__LINE__, "armv8", 1, "r11", 1, 4, 0x11, 0, -1},
    {__LINE__, "snb", 1, "r1b7:config1=0x10001", 1, 4, 0x1b7, 0x10001, -1},
    /* errors */
    {__LINE__, "sw", 1, "perf::NO_SUCH_EVENT", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "@::INST_RETIRED:ANY_P", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "rzz", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "r1b7:bogus=1", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "nopmu/event=1/", 0, 0, 0, 0, -1},
    {__LINE__, "sw", 1, "msr/tsc", 0, 0, 0, 0, -1},
};

int main(void)
{
	char err[256];
	CHECK(encode_init(err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pmu_family *fam = family_find(cases[i].family);
		struct encode_ctx ctx = {.sysfs_root = "/",
					 .family = fam,
					 .core_pmu_type = 4,
					 .filters_priv = cases[i].filters};
		struct event_encoding enc;
		char model[32];
		if (encode_model_missing(cases[i].spec, fam, model, sizeof(model))) {
			SKIP("line %d: %s: libpfm4 here has no %s tables (built for another "
			     "architecture)",
			     cases[i].line, cases[i].spec, model);
			continue;
		}
		err[0] = '\0';
		int rc = event_encode(cases[i].spec, &ctx, &enc, err, sizeof(err));
		CHECK((rc == 0) == cases[i].ok, "line %d: %s -> rc %d (%s)", cases[i].line,
		      cases[i].spec, rc, err);
		if (rc != 0 || !cases[i].ok) {
			if (!cases[i].ok)
				CHECK(err[0], "line %d: error text", cases[i].line);
			continue;
		}
		char desc[160];
		encode_format(&enc, desc, sizeof(desc));
		printf("%-55s %s\n", cases[i].spec, desc);
		CHECK(enc.attr.type == cases[i].type, "line %d: type %u", cases[i].line,
		      enc.attr.type);
		CHECK(enc.attr.config == cases[i].config, "line %d: config %#llx", cases[i].line,
		      (unsigned long long)enc.attr.config);
		CHECK(enc.attr.config1 == cases[i].config1, "line %d: config1 %#llx", cases[i].line,
		      (unsigned long long)enc.attr.config1);
		if (cases[i].any_exclude >= 0) {
			int any = enc.attr.exclude_user | enc.attr.exclude_kernel |
				  enc.attr.exclude_hv | enc.attr.exclude_guest |
				  enc.attr.exclude_host | enc.attr.exclude_idle;
			CHECK(any == cases[i].any_exclude, "line %d: exclude bits", cases[i].line);
		}
	}
	/* sysfs syntax against the live msr PMU (present on x86 VMs and hosts). */
	struct encode_ctx live = {.sysfs_root = "/",
				  .family = family_find("sw"),
				  .core_pmu_type = 4,
				  .filters_priv = true};
	struct event_encoding enc;
	if (event_encode("msr/tsc/", &live, &enc, err, sizeof(err)) == 0) {
		CHECK(enc.attr.config == 0, "msr/tsc config");
		CHECK(!enc.attr.exclude_guest && !enc.attr.exclude_kernel,
		      "msr gets no exclude bits");
		CHECK(!enc.hardware, "msr is not a core counter");
	} else {
		SKIP("no msr PMU on this machine: %s", err);
	}
	/* /proc/stat pseudo-events: no perf event, a field index */
	static const struct {
		const char *spec;
		int ok;
		unsigned long long field;
	} proc_cases[] = {
	    {"proc/busy/", 1, ENCODE_PROC_BUSY},
	    {"proc/idle/", 1, ENCODE_PROC_IDLE},
	    {"proc/irq/", 1, ENCODE_PROC_IRQ},
	    {"proc/steal/", 0, 0},
	    {"proc/busy", 0, 0},
	};
	for (size_t i = 0; i < sizeof(proc_cases) / sizeof(proc_cases[0]); i++) {
		int rc = event_encode(proc_cases[i].spec, &live, &enc, err, sizeof(err));
		CHECK((rc == 0) == proc_cases[i].ok, "%s: rc %d (%s)", proc_cases[i].spec, rc, err);
		if (rc == 0 && proc_cases[i].ok) {
			CHECK(enc.procfs && !enc.hardware, "%s is a procfs event",
			      proc_cases[i].spec);
			CHECK(enc.attr.type == ENCODE_TYPE_PROC &&
				  enc.attr.config == proc_cases[i].field,
			      "%s field %llu", proc_cases[i].spec,
			      (unsigned long long)enc.attr.config);
		}
	}
	char sugg[5][96];
	int n = encode_suggest("perf::CYCLEZ", &live, sugg, 5);
	CHECK(n > 0 && strcmp(sugg[0], "perf::CYCLES") == 0, "suggestion for CYCLEZ: %s",
	      n ? sugg[0] : "none");
	return harness_done();
}

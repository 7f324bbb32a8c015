/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_encode_lazy.c: libpfm4 is mapped only while an encoding needs it, and encodes the same
 * after it was unloaded and loaded again (the kernel's own /proc/self/maps is the witness). */
#include "encode.h"
#include "family.h"
#include "harness.h"
#include <stdio.h>
#include <string.h>

/* Whether a libpfm shared object is mapped into this process, as the kernel lists it. */
static bool pfm_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libpfm.so") != NULL;
	fclose(f);
	return found;
}

static void count_one(void *arg, const char *pmu, const char *event, const char *desc, bool present)
{
	(void)pmu, (void)event, (void)desc, (void)present;
	++*(int *)arg;
}

/* Encodes @spec; the attr's type and config, or type ~0 on error. */
static struct perf_event_attr encode_one(const char *spec)
{
	struct encode_ctx ctx = {
	    .sysfs_root = "/", .family = family_find("sw"), .core_pmu_type = 4, .filters_priv = 1};
	struct event_encoding enc;
	char err[256] = "";
	if (event_encode(spec, &ctx, &enc, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", spec, err);
		enc.attr.type = ~0u;
	}
	return enc.attr;
}

int main(void)
{
	bool dynamic = !encode_loaded(); /* a static build has it linked in from the start */
	if (dynamic)
		CHECK(!pfm_mapped(), "libpfm4 is not mapped before anything is encoded");
	/* software events of perf's generic names need no libpfm4 tables to be right, but are
	 * encoded through libpfm4 first; the values are the kernel's (linux/perf_event.h) */
	struct perf_event_attr a = encode_one("perf::CONTEXT-SWITCHES");
	CHECK(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CONTEXT_SWITCHES,
	      "perf::CONTEXT-SWITCHES -> type %u config %llu", a.type,
	      (unsigned long long)a.config);
	CHECK(encode_loaded(), "libpfm4 is loaded after a libpfm4 encoding");
	if (dynamic) {
		CHECK(pfm_mapped(), "the kernel maps libpfm4 while it is loaded");
		unsigned loads = encode_loads();
		encode_release();
		CHECK(!encode_loaded(), "unloaded by encode_release");
		CHECK(!pfm_mapped(), "the kernel no longer maps libpfm4 after encode_release");
		struct perf_event_attr b = encode_one("perf::CONTEXT-SWITCHES");
		CHECK(memcmp(&a, &b, sizeof(a)) == 0, "the same encoding after a reload");
		CHECK_INT(encode_loads(), loads + 1);
		encode_release();
		encode_release(); /* twice is harmless */
		CHECK(!pfm_mapped(), "unmapped again");
	} else {
		SKIP("libpfm4 is linked statically in this build: it is never unloaded");
	}
	/* listing, suggestions and the model check load it again on their own */
	int n = 0;
	encode_list("perf::*", true, count_one, &n);
	CHECK(n > 0, "encode_list after a release lists %d events", n);
	encode_release();
	char model[32];
	CHECK(!encode_model_missing("perf::CYCLES", NULL, model, sizeof(model)),
	      "libpfm4's perf model is there after a release");
	encode_release();
	struct perf_event_attr c = encode_one("cpu-clock");
	CHECK(c.type == PERF_TYPE_SOFTWARE && c.config == PERF_COUNT_SW_CPU_CLOCK,
	      "cpu-clock -> type %u config %llu", c.type, (unsigned long long)c.config);
	encode_release();
	if (dynamic)
		CHECK(!pfm_mapped(), "nothing left mapped at the end");
	return harness_done();
}

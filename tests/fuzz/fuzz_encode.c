/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_encode.c: event_encode of event specs for a family picked by the first input byte. */
#include <sys/stat.h>

#include "encode.h"
#include "family.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 600000;

#define SPEC_MAX 200 /* bytes of spec tried: libpfm4 lookups are slow on long names */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int nfam;
	static const char *root = "/";
	if (!nfam) {
		char err[256];
		FUZZ_ASSERT(encode_init(err, sizeof(err)) == 0);
		while (pmu_families[nfam].key)
			nfam++;
		/* the x86 sysfs fixture when run from tests/ (ctest, bench/fuzz.sh): fixed PMU
		 * types and formats, so results do not depend on this machine */
		struct stat st;
		if (stat("sysfs/x86-skylake/sys", &st) == 0)
			root = "sysfs/x86-skylake";
	}
	unsigned b = fuzz_take_byte(&data, &size);
	const struct pmu_family *fam = &pmu_families[b % (unsigned)nfam];
	if (size > SPEC_MAX)
		size = SPEC_MAX;
	char *spec = fuzz_strndup(data, size);
	struct encode_ctx ctx = {.sysfs_root = root,
				 .family = fam,
				 .core_pmu_type = (b & 0x80) ? 8 : 4,
				 .filters_priv = fam->filters_priv};
	struct event_encoding enc;
	char err[256] = "";
	memset(&enc, 0x5a, sizeof(enc));
	if (event_encode(spec, &ctx, &enc, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(memchr(enc.pmu, '\0', sizeof(enc.pmu)) &&
			    memchr(enc.fstr, '\0', sizeof(enc.fstr)));
		FUZZ_ASSERT(enc.attr.size == 0 || enc.attr.size >= PERF_ATTR_SIZE_VER0);
		if (!ctx.filters_priv && enc.hardware)
			FUZZ_ASSERT(!enc.attr.exclude_user && !enc.attr.exclude_kernel &&
				    !enc.attr.exclude_hv);
		char desc[256];
		encode_format(&enc, desc, sizeof(desc));
		FUZZ_ASSERT(memchr(desc, '\0', sizeof(desc)) != NULL);
		/* encoding is deterministic */
		struct event_encoding enc2;
		FUZZ_ASSERT(event_encode(spec, &ctx, &enc2, err, sizeof(err)) == 0);
		FUZZ_ASSERT(enc2.attr.type == enc.attr.type &&
			    enc2.attr.config == enc.attr.config &&
			    enc2.attr.config1 == enc.attr.config1);
	} else {
		FUZZ_ASSERT(err[0] && memchr(err, '\0', sizeof(err)));
	}
	free(spec);
	return 0;
}

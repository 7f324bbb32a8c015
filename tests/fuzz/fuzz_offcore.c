/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_offcore.c: offcore_parse_selection of ":offcore" words, then plans, specs and a sweep. */
#include <math.h>

#include "fuzz.h"
#include "offcore.h"

const unsigned long fuzz_default_runs = 1000000;

#define MAX_WORDS 40

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int nmodels;
	if (!nmodels)
		while (offcore_models[nmodels].key)
			nmodels++;
	unsigned b = fuzz_take_byte(&data, &size);
	const struct offcore_model *m = &offcore_models[b % (unsigned)nmodels];
	char *text = fuzz_strndup(data, size);
	char *argv[MAX_WORDS + 1];
	int argc = 0;
	for (char *save = NULL, *w = strtok_r(text, " \t\n", &save); w && argc < MAX_WORDS;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	argv[argc] = NULL;

	struct offcore_selection sel, keep;
	char err[512] = "";
	memset(&sel, 0x77, sizeof(sel));
	memcpy(&keep, &sel, sizeof(sel));
	if (offcore_parse_selection(m, argc, argv, &sel, err, sizeof(err)) != 0) {
		FUZZ_ASSERT(err[0]);
		FUZZ_ASSERT(memcmp(&sel, &keep, sizeof(sel)) == 0);
		goto out;
	}
	FUZZ_ASSERT(sel.nbits >= 0 && sel.nbits <= OFFCORE_MAX_BITS);
	for (int i = 0; i < sel.nbits; i++) {
		FUZZ_ASSERT(sel.bits[i] >= 0 && sel.bits[i] < OFFCORE_MAX_BITS);
		FUZZ_ASSERT(i == 0 || sel.bits[i] > sel.bits[i - 1]);
		FUZZ_ASSERT(offcore_bit_at(m, sel.bits[i]) != NULL);
		uint64_t config1;
		char spec[128], pfm[256];
		if (offcore_config1(m, sel.bits[i], sel.response, &config1, err, sizeof(err)) == 0)
			FUZZ_ASSERT(offcore_check_mask(m, 0, config1, err, sizeof(err)) == 0 ||
				    offcore_check_mask(m, 1, config1, err, sizeof(err)) == 0);
		offcore_spec(m, sel.bits[i], sel.response, (int)(b >> 7), spec, sizeof(spec), err,
			     sizeof(err));
		offcore_pfm_spec(m, sel.bits[i], sel.response, pfm, sizeof(pfm));
	}
	static struct offcore_plan plan;
	int slots = (int)((b >> 4) & 3);
	int n = offcore_plan_make(m, &sel, slots, &plan);
	if (sel.nbits == 0) {
		FUZZ_ASSERT(n == -1);
		goto out;
	}
	FUZZ_ASSERT(n >= 1 && n == plan.nslices);
	int seen = 0;
	for (int k = 0; k < n; k++) {
		FUZZ_ASSERT(plan.slice_n[k] >= 1 && plan.slice_n[k] <= OFFCORE_MAX_SLOTS);
		seen += plan.slice_n[k];
	}
	FUZZ_ASSERT(seen == sel.nbits);
	static struct offcore_sweep sw;
	offcore_sweep_init(&sw, m, &plan);
	for (int t = 0; t < 2 * n + 1; t++) {
		int bits[OFFCORE_MAX_SLOTS];
		int c = offcore_sweep_current(&sw, bits);
		FUZZ_ASSERT(c >= 1 && c <= OFFCORE_MAX_SLOTS);
		double rates[OFFCORE_MAX_SLOTS] = {t % 3 ? 1000.0 * t : NAN, 5.0};
		offcore_sweep_tick(&sw, rates, c);
		FUZZ_ASSERT(!isnan(sw.total));
	}
	for (int i = 0; i < sel.nbits; i++) {
		const struct offcore_bit_stat *s = offcore_sweep_stat(&sw, sel.bits[i]);
		FUZZ_ASSERT(s && (s->share == -1 || (s->share >= 0 && s->share <= 1.0 + 1e-9)));
	}
out:
	free(text);
	return 0;
}

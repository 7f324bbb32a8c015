/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_modefile.c: mode_parse of mode files and mode_define of "define NAME EVENTS METRICS" parts.
 */
#include "family.h"
#include "fuzz.h"
#include "mode.h"

const unsigned long fuzz_default_runs = 250000;

/* Exercises what the app does with a parsed mode on a few families. */
static void use_mode(const struct mode *m)
{
	static const char *const fams[] = {"skl",   "snb",     "armv8", "cortex_a53", "cortex_a9",
					   "armv6", "xscale2", "sw",	"generic"};
	FUZZ_ASSERT(m->name && m->name[0]);
	FUZZ_ASSERT(m->nsets >= 0 && m->nmetrics >= 0 && m->nmetrics <= MODE_MAX_METRICS);
	for (int i = 0; i < m->nsets; i++)
		FUZZ_ASSERT(m->sets[i].nevents >= 0 && m->sets[i].nevents <= MODE_MAX_EVENTS);
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		const struct pmu_family *fam = family_find(fams[f]);
		if (!fam)
			continue;
		struct mode_resolution r;
		if (mode_resolve(m, fam, &r) == 0)
			FUZZ_ASSERT(r.events != NULL);
		struct mode_avail a;
		mode_availability(m, fam, &a);
		static struct mode_plan plan;
		char err[256];
		for (int c = 1; c <= 4; c += 3) {
			int n = mode_plan_sets(m, fam, c, &plan, err, sizeof(err));
			FUZZ_ASSERT(n == -1 || (n >= 0 && n <= MODE_MAX_SETS));
			for (int s = 0; s < n; s++)
				for (int k = 0; k < plan.set[s].n; k++)
					FUZZ_ASSERT(plan.set[s].ev[k] >= 0 &&
						    plan.set[s].ev[k] < plan.events->nevents);
		}
		const struct mode *two[] = {m, m};
		struct mode *mm = mode_merge(two, 2, fam, err, sizeof(err));
		mode_free(mm);
	}
	for (int i = 0; i < m->nmetrics; i++) {
		metric_classify(&m->metrics[i], 0.5);
		metric_classify(&m->metrics[i], 1e300);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned how = fuzz_take_byte(&data, &size);
	char *text = fuzz_strndup(data, size);
	char err[512] = "";
	struct mode *m;
	if (how & 1) {
		/* define NAME EVENTS METRICS: the three parts are lines of the input */
		char *name = text, *events = strchr(name, '\n'), *metrics = NULL;
		if (events) {
			*events++ = '\0';
			metrics = strchr(events, '\n');
			if (metrics)
				*metrics++ = '\0';
		}
		m = mode_define(name, events ? events : "", metrics ? metrics : "", err,
				sizeof(err));
		FUZZ_ASSERT(m || err[0]);
	} else {
		m = mode_parse("fuzz.mode", text, err, sizeof(err));
		FUZZ_ASSERT(m || strncmp(err, "fuzz.mode:", 10) == 0);
	}
	if (m) {
		use_mode(m);
		mode_free(m);
	}
	free(text);
	return 0;
}

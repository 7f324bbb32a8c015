/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_alert.c: alert_rule_parse; the canonical text parses back to the same rule. */
#include <math.h>

#include "alert.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 2000000;

static int lookup(void *ctx, int cpu, const char *metric, double *value)
{
	unsigned *tick = ctx;
	if (metric[0] == 'n')
		return -1;
	*value = (double)((*tick * 7 + (unsigned)cpu * 3) % 11);
	if (*tick % 13 == 12)
		*value = 1e12;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	char err[256] = "";
	struct alert_rule r, r2, keep;
	memset(&r, 0x5a, sizeof(r));
	memcpy(&keep, &r, sizeof(r));
	if (alert_rule_parse(text, &r, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(memchr(r.text, '\0', sizeof(r.text)) &&
			    memchr(r.metric, '\0', sizeof(r.metric)));
		FUZZ_ASSERT(r.kind != ALERT_MAD || (r.k > 0 && r.window >= ALERT_MAD_WINDOW_MIN &&
						    r.window <= ALERT_MAD_WINDOW_MAX));
		err[0] = '\0';
		if (alert_rule_parse(r.text, &r2, err, sizeof(err)) != 0) {
			fprintf(stderr, "[%s] -> canonical [%s] does not parse: %s\n", text, r.text,
				err);
			abort();
		}
		if (strcmp(r.text, r2.text) != 0 || r.kind != r2.kind ||
		    r.all_cpus != r2.all_cpus || strcmp(r.metric, r2.metric) != 0 ||
		    !cpuset_equal(&r.cpus, &r2.cpus) ||
		    (r.kind == ALERT_THRESHOLD && r.op != r2.op)) {
			fprintf(stderr, "[%s] -> [%s] -> [%s]: not the same rule\n", text, r.text,
				r2.text);
			abort();
		}
		/* run it over a few samples */
		struct alert_set s;
		alert_set_init(&s, 4);
		if (r.kind != ALERT_MAD || r.window <= 4096) {
			FUZZ_ASSERT(alert_set_add(&s, text, err, sizeof(err)) == 0);
			struct spike_log log;
			FUZZ_ASSERT(spike_log_init(&log, 8, err, sizeof(err)) == 0);
			for (unsigned tick = 0; tick < 40; tick++)
				for (int cpu = 0; cpu < 4; cpu++)
					alert_set_eval(&s, tick * 0.5, cpu, lookup, &tick, &log);
			FUZZ_ASSERT(log.len <= log.cap);
			spike_log_free(&log);
		}
		alert_set_free(&s);
	} else {
		FUZZ_ASSERT(err[0]);
		FUZZ_ASSERT(memcmp(&r, &keep, sizeof(r)) == 0);
	}
	free(text);
	return 0;
}

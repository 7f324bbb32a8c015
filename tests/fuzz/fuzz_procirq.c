/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_procirq.c: procirq_parse of /proc/interrupts and softirqs text, sums, deltas; /proc/stat. */
#include "fuzz.h"
#include "procirq.h"

const unsigned long fuzz_default_runs = 2000000;

static void check_table(const struct procirq_table *t)
{
	FUZZ_ASSERT(t->ncpu >= 0 && t->ncpu <= CPUSET_MAX);
	for (int cpu = t->ncpu; cpu < CPUSET_MAX; cpu++)
		FUZZ_ASSERT(!cpuset_has(&t->cpus, cpu));
	for (size_t i = 0; i < t->nsrc; i++) {
		const struct procirq_source *s = &t->src[i];
		FUZZ_ASSERT(memchr(s->name, '\0', sizeof(s->name)) && fuzz_printable(s->name));
		FUZZ_ASSERT(memchr(s->desc, '\0', sizeof(s->desc)) && fuzz_printable(s->desc));
		if (!s->per_cpu)
			continue;
		uint64_t sum = 0;
		for (int cpu = 0; cpu < t->ncpu; cpu++)
			sum += procirq_count(t, i, cpu);
		FUZZ_ASSERT(sum == s->total);
	}
	for (int cpu = 0; cpu < t->ncpu; cpu++) {
		uint64_t sum = 0;
		for (size_t i = 0; i < t->nsrc; i++)
			if (t->src[i].per_cpu)
				sum += procirq_count(t, i, cpu);
		FUZZ_ASSERT(sum == t->cpu_total[cpu]);
	}
	FUZZ_ASSERT(memchr(t->skip_msg, '\0', sizeof(t->skip_msg)) && fuzz_printable(t->skip_msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char base_text[] = "           CPU0       CPU1\n"
					"  0:         17          0   IO-APIC   2-edge      timer\n"
					"LOC:      11324      11177   Local timer interrupts\n"
					"ERR:          0\n";
	const char *name = size && (data[0] & 1) ? "softirqs" : "interrupts";
	char *text = fuzz_strndup(data, size);
	char err[512] = "";
	struct procirq_table t, base;
	memset(&t, 0, sizeof(t));
	memset(&base, 0, sizeof(base));
	FUZZ_ASSERT(procirq_parse(&base, base_text, "base", err, sizeof(err)) == 0);
	if (procirq_parse(&t, text, name, err, sizeof(err)) == 0) {
		check_table(&t);
		/* a second parse replaces the contents */
		FUZZ_ASSERT(procirq_parse(&t, text, name, err, sizeof(err)) == 0);
		check_table(&t);
		uint64_t delta[64];
		struct cpuset valid;
		int n = procirq_delta(&t, &t, delta, 64, &valid);
		FUZZ_ASSERT(n >= 0 && n == cpuset_count(&valid));
		for (int cpu = 0; cpu < 64; cpu++)
			FUZZ_ASSERT(delta[cpu] == 0);
		procirq_delta(&base, &t, delta, 64, &valid);
		procirq_delta(&t, &base, delta, 64, &valid);
		struct procirq_top top[8];
		FUZZ_ASSERT(procirq_top(&t, &t, -1, top, 8) == 0);
		size_t k = procirq_top(&base, &t, 0, top, 8);
		for (size_t i = 0; i < k; i++)
			FUZZ_ASSERT(top[i].src < t.nsrc && top[i].delta > 0);
		k = procirq_top(&base, &t, -1, top, 8);
		for (size_t i = 0; i < k; i++)
			FUZZ_ASSERT(top[i].src < t.nsrc &&
				    (i == 0 || top[i].delta <= top[i - 1].delta));
		for (size_t i = 0; i < t.nsrc; i++)
			FUZZ_ASSERT(procirq_find(&t, t.src[i].name) >= 0);
	} else {
		FUZZ_ASSERT(err[0]);
	}
	/* the same bytes as /proc/stat: only CPUs below ncpu, each stored once at most */
	uint64_t st[16 * PROCSTAT_FIELDS];
	bool seen[16] = {false}, want[16];
	for (int c = 0; c < 16; c++)
		want[c] = size > 1 ? (data[1] >> (c % 8)) & 1 : true;
	int n = procirq_stat_parse((const char *)data, size, 16, NULL, st, seen);
	int nseen = 0;
	for (int c = 0; c < 16; c++)
		nseen += seen[c];
	FUZZ_ASSERT(n >= nseen && n >= 0);
	memset(seen, 0, sizeof(seen));
	int m = procirq_stat_parse((const char *)data, size, 16, want, st, seen);
	FUZZ_ASSERT(m >= 0 && m <= n);
	for (int c = 0; c < 16; c++)
		FUZZ_ASSERT(!seen[c] || want[c]);
	procirq_free(&t);
	procirq_free(&base);
	free(text);
	return 0;
}

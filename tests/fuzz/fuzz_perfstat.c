/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_perfstat.c: perfstat_load of perf stat CSV and JSON interval output (and detection). */
#include "fuzz.h"
#include "perfstat.h"

const unsigned long fuzz_default_runs = 40000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum perfstat_format fmts[] = {PERFSTAT_UNKNOWN, PERFSTAT_CSV, PERFSTAT_JSON};
	enum perfstat_format fmt = fmts[fuzz_take_byte(&data, &size) % 3];
	char path[64], err[512] = "";
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	FUZZ_ASSERT(perfstat_format_name(perfstat_detect(path)) != NULL);
	struct rec_file f;
	if (perfstat_load(path, fmt, &f, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(f.nmodes == 1);
		FUZZ_ASSERT(f.modes[0].nevents >= 0 && f.modes[0].nevents <= REC_MAX_EVENTS);
		for (int i = 0; i < f.nticks; i++) {
			const struct rec_tick *t = &f.ticks[i];
			FUZZ_ASSERT(t->mode == 0 && t->nevents == f.modes[0].nevents);
			FUZZ_ASSERT(t->ncpus == f.header.ncpus);
			FUZZ_ASSERT(i == 0 || t->t >= f.ticks[i - 1].t);
			for (int c = 0; c < t->ncpus; c++)
				for (int e = 0; e < t->nevents; e++) {
					const struct rec_counter *k = &t->cpus[c].c[e];
					FUZZ_ASSERT(!k->present ||
						    k->raw.running <= k->raw.enabled);
				}
		}
		/* a per-unit capture: each row keyed by a distinct unit with its CPUs */
		for (int r = 0; f.header.rows[0] && r < f.header.ncpus; r++) {
			FUZZ_ASSERT(f.header.cpus[r].key[0]);
			FUZZ_ASSERT(f.header.cpus[r].key_cpus >= 1 &&
				    f.header.cpus[r].key_cpus < REC_MAX_CPU);
			for (int q = 0; q < r; q++)
				FUZZ_ASSERT(strcmp(f.header.cpus[q].key, f.header.cpus[r].key) !=
					    0);
		}
		for (int i = 0; i < f.nwarnings; i++)
			FUZZ_ASSERT(f.warnings[i] != NULL);
		rec_file_free(&f);
	} else {
		FUZZ_ASSERT(err[0]);
	}
	close(fd);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_recfile.c: rec_load of recordings (with a write + reload round trip) and rec_escape. */
#include "fuzz.h"
#include "recfile.h"

const unsigned long fuzz_default_runs = 80000;

/* rec_escape output is terminated, fits and holds no control byte. */
static void check_escape(const char *s)
{
	static char out[4 * 4096 + 8];
	static const size_t lens[] = {1, 2, 5, 64, sizeof(out)};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(out, 'Z', sizeof(out));
		rec_escape(s, out, lens[i]);
		FUZZ_ASSERT(memchr(out, '\0', lens[i]) != NULL);
		FUZZ_ASSERT(fuzz_printable(out));
	}
}

static void check_file(const struct rec_file *f)
{
	FUZZ_ASSERT(f->nmodes >= 1 || f->nticks == 0);
	for (int i = 0; i < f->nticks; i++) {
		const struct rec_tick *t = &f->ticks[i];
		FUZZ_ASSERT(t->mode >= 0 && t->mode < f->nmodes);
		FUZZ_ASSERT(t->nevents == f->modes[t->mode].nevents);
		FUZZ_ASSERT(t->ncpus >= 0 && t->ncpus <= f->header.ncpus);
		for (int c = 0; c < t->ncpus; c++) {
			FUZZ_ASSERT(t->cpus[c].cpu >= 0 && t->cpus[c].cpu < REC_MAX_CPU);
			for (int k = 0; t->cpus[c].has_ring && k < RING_NCOUNTS; k++)
				FUZZ_ASSERT(t->cpus[c].ring[k] <= (uint64_t)REC_RING_MAX);
		}
	}
	for (int i = 0; i < f->nmodes; i++) {
		FUZZ_ASSERT(f->modes[i].nevents >= 0 && f->modes[i].nevents <= REC_MAX_EVENTS);
		check_escape(f->modes[i].name);
		for (int e = 0; e < f->modes[i].nevents; e++) {
			check_escape(f->modes[i].events[e].name);
			check_escape(f->modes[i].events[e].spec);
		}
	}
	for (int c = 0; c < f->header.ncpus; c++) { /* a task, cgroup or perf stat unit per row */
		FUZZ_ASSERT(f->header.cpus[c].key_cpus >= 0 &&
			    f->header.cpus[c].key_cpus <= REC_MAX_CPU);
		FUZZ_ASSERT(!f->header.cpus[c].key_cpus || f->header.cpus[0].key[0]);
		check_escape(f->header.cpus[c].key);
	}
	check_escape(f->header.rows);
	check_escape(f->header.host);
	check_escape(f->header.model);
	for (int i = 0; i < f->nmarks; i++)
		check_escape(f->marks[i].text);
}

/* Writes @f as a recording and loads it again: the same modes, ticks and counters. */
static void round_trip(const struct rec_file *f)
{
	char path[64], err[512];
	int fd = fuzz_memfile(NULL, 0, path, sizeof(path));
	struct rec_writer *w = rec_writer_open(path, NULL, err, sizeof(err));
	FUZZ_ASSERT(w);
	FUZZ_ASSERT(rec_writer_write_header(w, &f->header, err, sizeof(err)) == 0);
	int ti = 0;
	for (int m = 0; m < f->nmodes; m++) {
		if (rec_writer_write_mode(w, &f->modes[m], err, sizeof(err)) != 0) {
			fprintf(stderr, "write_mode: %s\n", err);
			abort();
		}
		for (; ti < f->nticks && f->ticks[ti].mode == m; ti++)
			if (rec_writer_write_tick(w, &f->ticks[ti], err, sizeof(err)) != 0) {
				fprintf(stderr, "write_tick %d: %s\n", ti, err);
				abort();
			}
	}
	FUZZ_ASSERT(rec_writer_close(w, err, sizeof(err)) == 0);
	if (ti != f->nticks) /* ticks going back to an earlier mode: not in write order */
		goto out;
	struct rec_file g;
	if (rec_load(path, &g, err, sizeof(err)) != 0) {
		fprintf(stderr, "reload of a written recording failed: %s\n", err);
		abort();
	}
	FUZZ_ASSERT(g.nmodes == f->nmodes && g.nticks == f->nticks);
	FUZZ_ASSERT(g.header.ncpus == f->header.ncpus);
	FUZZ_ASSERT(strcmp(g.header.rows, f->header.rows) == 0);
	for (int c = 0; c < f->header.ncpus; c++) {
		FUZZ_ASSERT(strcmp(g.header.cpus[c].key, f->header.cpus[c].key) == 0);
		FUZZ_ASSERT(g.header.cpus[c].key_cpus == f->header.cpus[c].key_cpus);
	}
	for (int m = 0; m < f->nmodes; m++) {
		FUZZ_ASSERT(strcmp(g.modes[m].name, f->modes[m].name) == 0);
		FUZZ_ASSERT(g.modes[m].nevents == f->modes[m].nevents);
	}
	for (int i = 0; i < f->nticks; i++) {
		const struct rec_tick *a = &f->ticks[i], *b = &g.ticks[i];
		FUZZ_ASSERT(a->ncpus == b->ncpus && a->nevents == b->nevents && a->mode == b->mode);
		for (int c = 0; c < a->ncpus; c++) {
			FUZZ_ASSERT(a->cpus[c].cpu == b->cpus[c].cpu);
			FUZZ_ASSERT(a->cpus[c].offline == b->cpus[c].offline);
			FUZZ_ASSERT(a->cpus[c].has_ring == b->cpus[c].has_ring);
			FUZZ_ASSERT(
			    memcmp(a->cpus[c].ring, b->cpus[c].ring, sizeof(a->cpus[c].ring)) == 0);
			for (int e = 0; e < a->nevents && !a->cpus[c].offline; e++) {
				const struct rec_counter *x = &a->cpus[c].c[e],
							 *y = &b->cpus[c].c[e];
				FUZZ_ASSERT(x->present == y->present);
				FUZZ_ASSERT(!x->present || (x->raw.value == y->raw.value &&
							    x->raw.enabled == y->raw.enabled &&
							    x->raw.running == y->raw.running));
			}
		}
	}
	rec_file_free(&g);
out:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512] = "";
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	struct rec_file f;
	if (rec_load(path, &f, err, sizeof(err)) == 0) {
		check_file(&f);
		round_trip(&f);
		rec_file_free(&f);
	} else {
		FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0 || err[0]);
	}
	close(fd);
	char *text = fuzz_strndup(data, size);
	check_escape(text);
	free(text);
	return 0;
}

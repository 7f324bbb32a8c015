/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_tick.c: one batch JSON tick written by pmutop's JSON writer and by jansson, side by side:
 * the same record (CPUS x EVENTS counters, their metrics and window statistics, as -f json
 * writes them; "time" as a real, jansson has no fixed decimals), compared byte for byte, then
 * the CPU time per tick of each in alternating rounds. */
#include "output.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const event_names[] = {"cycles", "instructions", "cache-references",
					  "cache-misses"};
static const char *const metric_names[] = {"cpi", "ipc", "ghz", "miss_ratio"};
static const char *const stat_names[] = {"min", "median", "p99", "max", "dev", "dev_delta"};
#define NEV 4
#define NMET 4
#define NSTAT 6

/* The numbers of one tick: counts near what a 1 s tick holds, values with 6+ digits. */
struct tick {
	int ncpus;
	double *count, *metric, *stat;
};

static double v_count(const struct tick *t, int c, int e) { return t->count[c * NEV + e]; }
static double v_metric(const struct tick *t, int c, int m) { return t->metric[c * NMET + m]; }
static double v_stat(const struct tick *t, int c, int m, int s)
{
	return t->stat[(c * NMET + m) * NSTAT + s];
}

static void make_tick(struct tick *t, int ncpus, unsigned seed)
{
	t->ncpus = ncpus;
	t->count = malloc(sizeof(double) * (size_t)ncpus * NEV);
	t->metric = malloc(sizeof(double) * (size_t)ncpus * NMET);
	t->stat = malloc(sizeof(double) * (size_t)ncpus * NMET * NSTAT);
	srand(seed);
	for (int i = 0; i < ncpus * NEV; i++)
		t->count[i] = (double)(rand() % 2000000000 + 1000);
	for (int i = 0; i < ncpus * NMET; i++)
		t->metric[i] = rand() / (RAND_MAX / 3.0) + 0.01;
	for (int i = 0; i < ncpus * NMET * NSTAT; i++)
		t->stat[i] = rand() / (RAND_MAX / 3.0) - 1.0;
}

/* pmutop's writer: as output.c writes a tick. */
static size_t write_ours(const struct tick *t, struct output_json *w)
{
	w->len = 0;
	w->depth = 0;
	w->skip = 0;
	memset(w->more, 0, sizeof(w->more));
	output_json_object(w, NULL);
	output_json_real(w, "time", 1.0);
	output_json_string(w, "backend", "perf");
	output_json_string(w, "mode", "cpi");
	output_json_int(w, "seq", 1);
	output_json_array(w, "cpus");
	for (int c = 0; c < t->ncpus; c++) {
		output_json_object(w, NULL);
		output_json_int(w, "cpu", c);
		output_json_object(w, "events");
		for (int e = 0; e < NEV; e++) {
			output_json_object(w, event_names[e]);
			output_json_int(w, "value", (long long)v_count(t, c, e));
			output_json_real(w, "running", 1.0);
			output_json_string(w, "state", "ok");
			output_json_end(w);
		}
		output_json_end(w);
		output_json_object(w, "metrics");
		for (int m = 0; m < NMET; m++)
			output_json_real(w, metric_names[m], v_metric(t, c, m));
		output_json_end(w);
		output_json_object(w, "stats");
		for (int m = 0; m < NMET; m++) {
			output_json_object(w, metric_names[m]);
			for (int s = 0; s < NSTAT; s++)
				output_json_real(w, stat_names[s], v_stat(t, c, m, s));
			output_json_int(w, "n", 30);
			output_json_end(w);
		}
		output_json_end(w);
		output_json_end(w);
	}
	output_json_end(w);
	output_json_end(w);
	return w->oom ? 0 : w->len;
}

/* jansson: the same record as a tree, dumped compact with 6 significant digits. */
static size_t write_jansson(const struct tick *t, char *buf, size_t cap)
{
	json_t *root = json_object(), *cpus = json_array();
	json_object_set_new(root, "time", json_real(1.0));
	json_object_set_new(root, "backend", json_string("perf"));
	json_object_set_new(root, "mode", json_string("cpi"));
	json_object_set_new(root, "seq", json_integer(1));
	for (int c = 0; c < t->ncpus; c++) {
		json_t *cpu = json_object(), *events = json_object(), *metrics = json_object(),
		       *stats = json_object();
		json_object_set_new(cpu, "cpu", json_integer(c));
		for (int e = 0; e < NEV; e++) {
			json_t *ev = json_object();
			json_object_set_new(ev, "value",
					    json_integer((json_int_t)v_count(t, c, e)));
			json_object_set_new(ev, "running", json_real(1.0));
			json_object_set_new(ev, "state", json_string("ok"));
			json_object_set_new(events, event_names[e], ev);
		}
		json_object_set_new(cpu, "events", events);
		for (int m = 0; m < NMET; m++)
			json_object_set_new(metrics, metric_names[m], json_real(v_metric(t, c, m)));
		json_object_set_new(cpu, "metrics", metrics);
		for (int m = 0; m < NMET; m++) {
			json_t *st = json_object();
			for (int s = 0; s < NSTAT; s++)
				json_object_set_new(st, stat_names[s],
						    json_real(v_stat(t, c, m, s)));
			json_object_set_new(st, "n", json_integer(30));
			json_object_set_new(stats, metric_names[m], st);
		}
		json_object_set_new(cpu, "stats", stats);
		json_array_append_new(cpus, cpu);
	}
	json_object_set_new(root, "cpus", cpus);
	size_t n = json_dumpb(root, buf, cap, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(root);
	return n;
}

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int ncpus = argc > 1 ? atoi(argv[1]) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 11;
	int ticks = argc > 3 ? atoi(argv[3]) : 2000;
	struct tick t;
	struct output_json w = {0};
	size_t cap = (size_t)ncpus * 4096 + 4096;
	char *jbuf = malloc(cap);
	double ours[64], theirs[64];

	if (ncpus < 1 || rounds < 1 || rounds > 64 || ticks < 1 || !jbuf) {
		fprintf(stderr, "usage: json_tick [CPUS [ROUNDS (1-64) [TICKS]]]\n");
		return 2;
	}
	make_tick(&t, ncpus, 1);
	/* the same work: the two records, byte for byte */
	size_t a = write_ours(&t, &w), b = write_jansson(&t, jbuf, cap);
	int same = a == b && memcmp(w.buf, jbuf, a) == 0;
	size_t diff = 0;
	while (diff < a && diff < b && w.buf[diff] == jbuf[diff])
		diff++;
	printf("record: %d CPUs x %d events, ours %zu bytes, jansson %zu bytes, %s", ncpus, NEV, a,
	       b, same ? "identical\n" : "differ at byte ");
	if (!same)
		printf("%zu: ours \"%.40s\" jansson \"%.40s\"\n", diff, w.buf + diff, jbuf + diff);
	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_ns();
		for (int i = 0; i < ticks; i++)
			write_ours(&t, &w);
		double t1 = cpu_ns();
		for (int i = 0; i < ticks; i++)
			write_jansson(&t, jbuf, cap);
		double t2 = cpu_ns();
		ours[r] = (t1 - t0) / ticks;
		theirs[r] = (t2 - t1) / ticks;
	}
	double ratio[64];
	for (int r = 0; r < rounds; r++)
		ratio[r] = theirs[r] / ours[r];
	qsort(ours, (size_t)rounds, sizeof(double), cmp_d);
	qsort(theirs, (size_t)rounds, sizeof(double), cmp_d);
	qsort(ratio, (size_t)rounds, sizeof(double), cmp_d);
	printf("per tick (median of %d rounds of %d): ours %.1f us, jansson %.1f us; "
	       "jansson / ours = %.2f (rounds %.2f..%.2f)\n",
	       rounds, ticks, ours[rounds / 2] / 1e3, theirs[rounds / 2] / 1e3, ratio[rounds / 2],
	       ratio[0], ratio[rounds - 1]);
	free(w.buf);
	free(jbuf);
	free(t.count), free(t.metric), free(t.stat);
	return 0;
}

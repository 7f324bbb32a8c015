/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_procirq.c: /proc interrupts, softirqs (x86, ARM) and stat; hotplug, deltas, cpufreq. */
#include "cpuset.h"
#include "harness.h"
#include "procirq.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root_buf[4096];

static const char *root(const char *name)
{
	snprintf(root_buf, sizeof(root_buf), "%s/tests/fixtures/proc/%s", harness_src(), name);
	return root_buf;
}

/* Expected per-CPU totals of one fixture file; -1 marks a CPU without a column. */
static const struct {
	int line;
	const char *root;
	enum procirq_file which;
	int ncpu;
	size_t nsrc;
	size_t skipped;
	long long total[6];
} layouts[] = {
    {__LINE__, "x86-a", PROCIRQ_INTERRUPTS, 4, 13, 0, {41598, 64660, 9410, 9120}},
    {__LINE__, "x86-b", PROCIRQ_INTERRUPTS, 4, 14, 0, {41725, -1, 9911, 9220}},
    {__LINE__, "x86-a", PROCIRQ_SOFTIRQS, 4, 10, 0, {22548, 51872, 220, 340}},
    {__LINE__, "x86-b", PROCIRQ_SOFTIRQS, 4, 10, 0, {22615, -1, 280, 341}},
    {__LINE__,
     "arm64",
     PROCIRQ_INTERRUPTS,
     6,
     16,
     0,
     {415003, 413520, 389078, 377969, 523650, 510072}},
    {__LINE__, "arm64", PROCIRQ_SOFTIRQS, 6, 10, 0, {26606, 34200, 42000, 50000, 58000, 66000}},
    {__LINE__, "arm32", PROCIRQ_INTERRUPTS, 2, 12, 0, {132586, 239618}},
    {__LINE__, "ragged", PROCIRQ_INTERRUPTS, 3, 4, 5, {116, 228, 340}},
};

static void check_layouts(void)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		struct procirq_table t = {0};
		char err[256] = "";
		int line = layouts[i].line;
		int rc =
		    procirq_read(&t, root(layouts[i].root), layouts[i].which, err, sizeof(err));
		CHECK(rc == 0, "line %d: %s", line, err);
		if (rc)
			continue;
		CHECK(t.ncpu == layouts[i].ncpu, "line %d: ncpu %d", line, t.ncpu);
		CHECK(t.nsrc == layouts[i].nsrc, "line %d: nsrc %zu", line, t.nsrc);
		CHECK(t.skipped == layouts[i].skipped, "line %d: skipped %zu (%s)", line, t.skipped,
		      t.skip_msg);
		for (int c = 0; c < layouts[i].ncpu; c++) {
			long long want = layouts[i].total[c];
			CHECK(cpuset_has(&t.cpus, c) == (want >= 0), "line %d: cpu %d column", line,
			      c);
			CHECK(t.cpu_total[c] == (uint64_t)(want >= 0 ? want : 0),
			      "line %d: cpu %d total %llu, want %lld", line, c,
			      (unsigned long long)t.cpu_total[c], want);
		}
		CHECK(procirq_bytes(&t) > 0, "line %d: bytes", line);
		procirq_free(&t);
	}
}

static void check_rows(void)
{
	struct procirq_table t = {0};
	char err[256] = "";
	CHECK(procirq_read(&t, root("x86-a"), PROCIRQ_INTERRUPTS, err, sizeof(err)) == 0, "%s",
	      err);
	long i = procirq_find(&t, "24");
	CHECK(i == 1, "row 24 at %ld", i);
	if (i >= 0) {
		CHECK_STR(t.src[i].desc, "IO-APIC 5-edge ACPI:Ged");
		CHECK(t.src[i].per_cpu, "per cpu");
	}
	i = procirq_find(&t, "LOC");
	CHECK(i >= 0, "LOC");
	if (i >= 0) {
		CHECK_STR(t.src[i].desc, "Local timer interrupts");
		CHECK_INT(t.src[i].total, 11324 + 11177 + 9000 + 8000);
		CHECK_INT(procirq_count(&t, (size_t)i, 1), 11177);
		CHECK_INT(procirq_count(&t, (size_t)i, 4), 0);
	}
	i = procirq_find(&t, "MIS");
	CHECK(i >= 0 && !t.src[i].per_cpu && t.src[i].total == 3, "MIS is one global count");
	if (i >= 0)
		CHECK_INT(procirq_count(&t, (size_t)i, 0), 0);
	CHECK(procirq_find(&t, "NOPE") == -1, "unknown row");
	procirq_free(&t);

	CHECK(procirq_read(&t, root("arm64"), PROCIRQ_INTERRUPTS, err, sizeof(err)) == 0, "%s",
	      err);
	i = procirq_find(&t, "IPI3");
	CHECK(i >= 0, "IPI3");
	if (i >= 0)
		CHECK_STR(t.src[i].desc, "CPU stop (for crash dump) interrupts");
	i = procirq_find(&t, "11");
	if (i >= 0)
		CHECK_STR(t.src[i].desc, "GICv3 27 Level arch_timer");
	i = procirq_find(&t, "43");
	if (i >= 0)
		CHECK_STR(t.src[i].desc, "ITS-MSI 524288 Edge nvme0q0");
	i = procirq_find(&t, "Err");
	CHECK(i >= 0 && !t.src[i].per_cpu, "ARM Err is global");
	procirq_free(&t);

	CHECK(procirq_read(&t, root("arm32"), PROCIRQ_INTERRUPTS, err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(procirq_find(&t, "FIQ") == -1, "FIQ without counts is ignored");
	CHECK(procirq_find(&t, "IPI6") >= 0, "IPI6 present");
	procirq_free(&t);

	CHECK(procirq_read(&t, root("ragged"), PROCIRQ_INTERRUPTS, err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(strstr(t.skip_msg, "/ragged/proc/interrupts:3: expected 3 counts, found 2") != NULL,
	      "first skip: %s", t.skip_msg);
	i = procirq_find(&t, "6");
	CHECK(i >= 0, "row 6");
	if (i >= 0)
		CHECK_STR(t.src[i].desc, "evil\\x1b[2Jname");
	CHECK(procirq_find(&t, "4") == -1 && procirq_find(&t, "5") == -1, "bad rows skipped");
	procirq_free(&t);
}

static const struct {
	int line;
	const char *text;
	const char *err; /* NULL: parses */
	int ncpu;
	size_t nsrc, skipped;
} parse_cases[] = {
    {__LINE__, "", "t:1: no header of CPU columns", 0, 0, 0},
    {__LINE__, "\n\n", "t:2: no header of CPU columns", 0, 0, 0},
    {__LINE__, "  0:  1  2\n", "t:1: expected a header of CPU columns (CPU0 CPU1 ...)", 0, 0, 0},
    {__LINE__, "CPU1 CPU0\n", "t:1: expected a header", 0, 0, 0},
    {__LINE__, "CPU0 CPU0\n", "t:1: expected a header", 0, 0, 0},
    {__LINE__, "CPU0 CPUx\n", "t:1: expected a header", 0, 0, 0},
    {__LINE__, "CPU0 CPU4096\n", "t:1: expected a header", 0, 0, 0},
    {__LINE__, "CPU0 CPU1x\n", "t:1: expected a header", 0, 0, 0},
    {__LINE__, "CPU0 CPU1\n", NULL, 2, 0, 0},
    {__LINE__, "\n   CPU0 CPU5\n A: 1 2\n", NULL, 6, 1, 0},
    {__LINE__, "CPU0\n ERR: 5\n X: 5 d\n", NULL, 1, 2, 0},
    {__LINE__, "CPU0 CPU1\n X: 1 2 3 4\n", NULL, 2, 1, 0}, /* extra numbers go to the description */
    {__LINE__, "CPU0 CPU1\n X: 1\n Y: 1 z\n :1 2\n", NULL, 2, 1, 2},
    {__LINE__, "CPU0 CPU1\r\n X: 1 2\r\n", NULL, 2, 1, 0},
    {__LINE__, "CPU0 CPU1\n X: 1 2", NULL, 2, 1, 0}, /* no final newline */
};

static void check_parse(void)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		struct procirq_table t = {0};
		char err[256] = "";
		int line = parse_cases[i].line;
		/* Start from a good table so "unchanged on error" is visible. */
		procirq_parse(&t, "CPU0 CPU1 CPU2\n A: 1 2 3\n B: 4 5 6\n", "seed", err,
			      sizeof(err));
		int rc = procirq_parse(&t, parse_cases[i].text, "t", err, sizeof(err));
		if (parse_cases[i].err) {
			CHECK(rc == -1, "line %d: parsed", line);
			CHECK(strncmp(err, parse_cases[i].err, strlen(parse_cases[i].err)) == 0,
			      "line %d: error \"%s\"", line, err);
			CHECK(t.nsrc == 2 && t.ncpu == 3, "line %d: table changed on error", line);
		} else {
			CHECK(rc == 0, "line %d: %s", line, err);
			CHECK(t.ncpu == parse_cases[i].ncpu, "line %d: ncpu %d", line, t.ncpu);
			CHECK(t.nsrc == parse_cases[i].nsrc, "line %d: nsrc %zu", line, t.nsrc);
			CHECK(t.skipped == parse_cases[i].skipped, "line %d: skipped %zu", line,
			      t.skipped);
		}
		procirq_free(&t);
	}
	struct procirq_table t = {0};
	char err[256];
	CHECK(procirq_parse(&t, "CPU0 CPU1\n X: 1 2 3 4\n", "t", err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(t.src[0].desc, "3 4");
	procirq_free(&t);
	CHECK(procirq_read(&t, root("missing"), PROCIRQ_INTERRUPTS, err, sizeof(err)) == -1,
	      "missing file");
	CHECK(strstr(err, "missing/proc/interrupts") != NULL, "error names the file: %s", err);
}

static void check_deltas(void)
{
	struct procirq_table a = {0}, b = {0};
	char err[256] = "";
	uint64_t d[8];
	struct cpuset valid;
	char list[64];
	procirq_read(&a, root("x86-a"), PROCIRQ_INTERRUPTS, err, sizeof(err));
	procirq_read(&b, root("x86-b"), PROCIRQ_INTERRUPTS, err, sizeof(err));
	/* CPU 1 went offline between the reads: its column is gone, its delta n/a. */
	CHECK_INT(procirq_delta(&a, &b, d, 8, &valid), 3);
	CHECK_STR(cpuset_format(&valid, list, sizeof(list)), "0,2-3");
	CHECK_INT(d[0], 127); /* includes 7 from the new row 44 */
	CHECK_INT(d[1], 0);
	CHECK_INT(d[2], 501);
	CHECK_INT(d[3], 100);
	CHECK_INT(d[4], 0);
	/* And back online: still n/a for CPU 1 (no baseline in the earlier read). */
	CHECK_INT(procirq_delta(&b, &a, d, 4, &valid), 3);
	CHECK(!cpuset_has(&valid, 1), "cpu 1 n/a coming back");
	CHECK_INT(procirq_delta(&a, &a, d, 4, &valid), 4);
	CHECK(d[0] == 0 && d[1] == 0 && d[3] == 0, "no change, no delta");

	struct procirq_top top[8];
	size_t n = procirq_top(&a, &b, -1, top, 3);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(b.src[top[0].src].name, "LOC");
		CHECK_INT(top[0].delta, 610);
		CHECK_STR(b.src[top[1].src].name, "RES");
		CHECK_INT(top[1].delta, 63);
		CHECK_STR(b.src[top[2].src].name, "41");
		CHECK_INT(top[2].delta, 40);
	}
	n = procirq_top(&a, &b, 0, top, 8);
	CHECK_INT(n, 6);
	static const char *const want0[] = {"LOC", "41", "44", "36", "RES", "CAL"};
	static const uint64_t want0d[] = {100, 10, 7, 5, 3, 2};
	for (size_t k = 0; k < n && k < 6; k++) {
		CHECK_STR(b.src[top[k].src].name, want0[k]);
		CHECK_INT(top[k].delta, want0d[k]);
	}
	CHECK_INT(procirq_top(&a, &b, 1, top, 8), 0);
	CHECK_INT(procirq_top(&a, &b, 0, top, 0), 0);
	procirq_free(&a);
	procirq_free(&b);

	procirq_read(&a, root("x86-a"), PROCIRQ_SOFTIRQS, err, sizeof(err));
	procirq_read(&b, root("x86-b"), PROCIRQ_SOFTIRQS, err, sizeof(err));
	CHECK_INT(procirq_delta(&a, &b, d, 4, &valid), 3);
	CHECK_INT(d[0], 67);
	CHECK_INT(d[2], 60);
	CHECK_INT(d[3], 1);
	n = procirq_top(&a, &b, 2, top, 1);
	CHECK(n == 1 && strcmp(b.src[top[0].src].name, "TIMER") == 0 && top[0].delta == 50,
	      "softirq top on cpu 2");
	procirq_free(&a);
	procirq_free(&b);
}

static void check_cpufreq(void)
{
	uint64_t khz = 0;
	char err[512] = "";
	CHECK(procirq_cpufreq_khz(root("x86-a"), 0, &khz, err, sizeof(err)) == 0, "%s", err);
	CHECK_INT(khz, 2400000);
	CHECK(procirq_cpufreq_khz(root("x86-a"), 1, &khz, err, sizeof(err)) == -1, "garbage");
	CHECK(strstr(err, "expected a frequency in kHz") != NULL, "%s", err);
	CHECK(procirq_cpufreq_khz(root("x86-a"), 2, &khz, err, sizeof(err)) == -1, "absent");
	CHECK(strstr(err, "cpu2/cpufreq/scaling_cur_freq") != NULL, "%s", err);
}

/* The live files parse too (when present), with no malformed lines. */
static void check_live(void)
{
	struct procirq_table t = {0};
	char err[256] = "";
	if (procirq_read(&t, "", PROCIRQ_INTERRUPTS, err, sizeof(err)) < 0) {
		SKIP("live /proc/interrupts: %s", err);
		return;
	}
	CHECK(t.nsrc > 0 && t.ncpu > 0, "live interrupts rows");
	CHECK(t.skipped == 0, "live interrupts skipped %zu: %s", t.skipped, t.skip_msg);
	procirq_free(&t);
	if (procirq_read(&t, "", PROCIRQ_SOFTIRQS, err, sizeof(err)) == 0) {
		CHECK(procirq_find(&t, "TIMER") >= 0, "live softirqs TIMER");
		procirq_free(&t);
	}
}

/* --- /proc/stat ------------------------------------------------------------------------------ */

#define ST_CPUS 8

static const struct {
	int line;
	const char *text;
	const bool *want; /* NULL: every CPU */
	int stored;
	long long expect[ST_CPUS][PROCSTAT_FIELDS]; /* -1 in [0]: no line stored for that CPU */
} stat_cases[] = {
    {__LINE__,
     "cpu  10 20 30 40 50 60 70 80 90 100\n"
     "cpu0 1 2 3 4 5 6 7 8 9 10\n"
     "cpu1 11 12 13 14 15 16 17 18 0 0\n"
     "cpu3 31 32 33 34 35 36 37 38 0 0\n" /* cpu2 offline: no line */
     "intr 12345 1 2 3 4 5 6 7 8 9\n"
     "cpu4 41 42 43 44 45 46 47 48 0 0\n" /* after the cpu lines: not read */
     "ctxt 99\n",
     NULL,
     3,
     {{1, 2, 3, 4, 5, 6, 7, 8},
      {11, 12, 13, 14, 15, 16, 17, 18},
      {-1},
      {31, 32, 33, 34, 35, 36, 37, 38},
      {-1},
      {-1},
      {-1},
      {-1}}},
    /* Linux before 2.6.11: no steal; no trailing newline */
    {__LINE__,
     "cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7",
     NULL,
     1,
     {{1, 2, 3, 4, 5, 6, 7, 0}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}}},
    /* malformed lines are skipped, the others kept */
    {__LINE__,
     "cpu  1 2 3 4 5 6 7 8\n"
     "cpu0 1 2 3\n"				    /* too few numbers */
     "cpu1x 1 2 3 4 5 6 7 8\n"			    /* not a CPU number */
     "cpu2 1 2 3 4 5 6 7 99999999999999999999999\n" /* overflow */
     "cpu3 1 2 3 4 5 6 7 8x\n"			    /* not a number */
     "cpu5 5 4 3 2 1 0 9 8\n"
     "cpu9 1 2 3 4 5 6 7 8\n"			    /* beyond ncpu */
     "cpu6 18446744073709551615 0 0 0 0 0 0 0\r\n", /* the largest count; CRLF */
     NULL,
     2,
     {{-1}, {-1}, {-1}, {-1}, {-1}, {5, 4, 3, 2, 1, 0, 9, 8}, {-2}, {-1}}},
    /* @want: only CPUs 1 and 3 */
    {__LINE__,
     "cpu  0 0 0 0 0 0 0 0\ncpu0 1 1 1 1 1 1 1 1\ncpu1 2 2 2 2 2 2 2 2\ncpu3 3 3 3 3 3 3 3 3\n",
     (const bool[ST_CPUS]){false, true, false, true},
     2,
     {{-1}, {2, 2, 2, 2, 2, 2, 2, 2}, {-1}, {3, 3, 3, 3, 3, 3, 3, 3}, {-1}, {-1}, {-1}, {-1}}},
    {__LINE__, "", NULL, 0, {{-1}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}}},
    {__LINE__, "intr 1 2 3\nctxt 4\n", NULL, 0, {{-1}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}, {-1}}},
};

static void check_stat(void)
{
	for (size_t i = 0; i < sizeof(stat_cases) / sizeof(stat_cases[0]); i++) {
		uint64_t out[ST_CPUS * PROCSTAT_FIELDS];
		bool seen[ST_CPUS] = {false};
		memset(out, 0xab, sizeof(out));
		const char *t = stat_cases[i].text;
		int line = stat_cases[i].line;
		int n = procirq_stat_parse(t, strlen(t), ST_CPUS, stat_cases[i].want, out, seen);
		CHECK(n == stat_cases[i].stored, "line %d: stored %d, want %d", line, n,
		      stat_cases[i].stored);
		for (int c = 0; c < ST_CPUS; c++) {
			long long first = stat_cases[i].expect[c][0];
			CHECK(seen[c] == (first != -1), "line %d: cpu %d seen %d", line, c,
			      seen[c]);
			if (first == -2) { /* the largest count */
				CHECK(out[c * PROCSTAT_FIELDS] == UINT64_MAX, "line %d: cpu %d",
				      line, c);
				continue;
			}
			if (first == -1)
				continue;
			for (int f = 0; f < PROCSTAT_FIELDS; f++)
				CHECK(out[c * PROCSTAT_FIELDS + f] ==
					  (uint64_t)stat_cases[i].expect[c][f],
				      "line %d: cpu %d field %d = %llu", line, c, f,
				      (unsigned long long)out[c * PROCSTAT_FIELDS + f]);
		}
	}
}

/* Numbers of every length (1-20 digits, up to UINT64_MAX) at every offset in the line, as printf
 * writes them: /proc/stat's fields are read 8 bytes at a time where 8 bytes remain, one at a time
 * near the end, and each must come out as printed; a 21st digit does not fit (the line is left). */
static void check_stat_digits(void)
{
	enum { NC = 2 };
	static uint64_t out[NC * PROCSTAT_FIELDS];
	bool seen[NC];
	uint64_t seed = 88172645463325252ULL;
	for (int digits = 1; digits <= 20; digits++)
		for (int pad = 1; pad <= 9; pad++) {
			uint64_t v[PROCSTAT_FIELDS];
			char text[600];
			int len = snprintf(text, sizeof(text), "cpu0");
			for (int k = 0; k < PROCSTAT_FIELDS; k++) {
				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				uint64_t lo = 1, x;
				for (int d = 1; d < digits; d++)
					lo *= 10;
				x = digits == 20  ? lo + seed % (UINT64_MAX - lo + 1)
				    : digits == 1 ? seed % 10
						  : lo + seed % (9 * lo);
				if (digits == 20 && k == 0)
					x = UINT64_MAX;
				v[k] = x;
				/* the padding moves each number across the 8-byte reads */
				len += snprintf(text + len, sizeof(text) - (size_t)len, "%*s%llu",
						(k + pad) % 9 + 1, "", (unsigned long long)x);
			}
			memset(seen, 0, sizeof(seen));
			/* no newline: the last number ends the text, read one byte at a time */
			int n = procirq_stat_parse(text, (size_t)len, NC, NULL, out, seen);
			CHECK(n == 1 && seen[0], "%d digits: %.80s", digits, text);
			for (int k = 0; k < PROCSTAT_FIELDS && seen[0]; k++)
				CHECK(out[k] == v[k], "%d digits, field %d: %llu for %llu", digits,
				      k, (unsigned long long)out[k], (unsigned long long)v[k]);
		}
	const char *over = "cpu0 1 2 3 4 5 6 7 184467440737095516160 9 10\n";
	memset(seen, 0, sizeof(seen));
	CHECK(procirq_stat_parse(over, strlen(over), NC, NULL, out, seen) == 0 && !seen[0],
	      "a number past UINT64_MAX is not read");
	const char *near = "cpu0 18446744073709551616 1 2 3 4 5 6 7 8 9\n";
	memset(seen, 0, sizeof(seen));
	CHECK(procirq_stat_parse(near, strlen(near), NC, NULL, out, seen) == 0 && !seen[0],
	      "UINT64_MAX + 1 is not read");
}

/* /proc/stat text with a cpuN line for each CPU of @cpus (in the order given), after the sum line.
 */
static size_t stat_text(char *text, size_t cap, const int *cpus, int n)
{
	size_t len = (size_t)snprintf(text, cap, "cpu  1 2 3 4 5 6 7 8 0 0\n");
	for (int i = 0; i < n && len < cap; i++)
		len +=
		    (size_t)snprintf(text + len, cap - len, "cpu%d 1 2 3 4 5 6 7 8 0 0\n", cpus[i]);
	if (len < cap)
		len += (size_t)snprintf(text + len, cap - len, "intr 5 0 0\nctxt 7\n");
	return len < cap ? len : cap - 1;
}

/* procirq_stat_parse_keyed()'s key of the CPUs with a line: the same set gives the same key
 * whatever is wanted or parsed, another set another key; and the live /proc/stat's key is that of
 * the CPUs the kernel's online list names (/sys/devices/system/cpu/online, the other file it
 * prints from the same mask), which app_tick() relies on. */
static void check_stat_key(void)
{
	enum { NC = 8 };
	static uint64_t out[NC * PROCSTAT_FIELDS];
	bool seen[NC], want[NC] = {false, true};
	char text[4096];
	uint64_t k01, k10, k0, k013, kw, knone = 1;
	stat_text(text, sizeof(text), (const int[]){0, 1}, 2);
	procirq_stat_parse_keyed(text, strlen(text), NC, NULL, out, seen, &k01);
	stat_text(text, sizeof(text), (const int[]){1, 0}, 2);
	procirq_stat_parse_keyed(text, strlen(text), NC, NULL, out, seen, &k10);
	procirq_stat_parse_keyed(text, strlen(text), 1, want, out, seen, &kw);
	stat_text(text, sizeof(text), (const int[]){0}, 1);
	procirq_stat_parse_keyed(text, strlen(text), NC, NULL, out, seen, &k0);
	stat_text(text, sizeof(text), (const int[]){0, 1, 3}, 3);
	procirq_stat_parse_keyed(text, strlen(text), NC, NULL, out, seen, &k013);
	stat_text(text, sizeof(text), NULL, 0);
	procirq_stat_parse_keyed(text, strlen(text), NC, NULL, out, seen, &knone);
	CHECK(k01 != 0 && k01 == k10, "the key of CPUs 0-1 in either order: %llx %llx",
	      (unsigned long long)k01, (unsigned long long)k10);
	CHECK(kw == k01, "the key counts CPUs not wanted or past ncpu: %llx for %llx",
	      (unsigned long long)kw, (unsigned long long)k01);
	CHECK(k0 != k01 && k013 != k01 && k0 != 0 && k013 != 0,
	      "a CPU gone or come changes the key: %llx %llx %llx", (unsigned long long)k0,
	      (unsigned long long)k013, (unsigned long long)k01);
	CHECK(knone == 0, "no cpuN line: key 0 (got %llx)", (unsigned long long)knone);

	/* live: the kernel's two prints of the online mask */
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char list[8192] = "", err[128];
	size_t got = f ? fread(list, 1, sizeof(list) - 1, f) : 0;
	if (f)
		fclose(f);
	list[got] = 0;
	struct cpuset online;
	static char live[1 << 20];
	f = fopen("/proc/stat", "r");
	size_t len = f ? fread(live, 1, sizeof(live) - 1, f) : 0;
	if (f)
		fclose(f);
	live[len] = 0;
	if (!got || !len) {
		SKIP("/sys/devices/system/cpu/online or /proc/stat not readable");
		return;
	}
	list[strcspn(list, "\n")] = 0;
	CHECK(cpuset_parse(&online, list, err, sizeof(err)) == 0, "the online list parses: %s",
	      err);
	static int cpus[CPUSET_MAX];
	int n = 0;
	for (int c = 0; c < CPUSET_MAX; c++)
		if (cpuset_has(&online, c))
			cpus[n++] = c;
	static char built[1 << 20];
	stat_text(built, sizeof(built), cpus, n);
	uint64_t klive, kbuilt;
	static bool live_seen[CPUSET_MAX];
	static uint64_t live_out[(size_t)CPUSET_MAX * PROCSTAT_FIELDS];
	procirq_stat_parse_keyed(live, len, CPUSET_MAX, NULL, live_out, live_seen, &klive);
	procirq_stat_parse_keyed(built, strlen(built), CPUSET_MAX, NULL, live_out, live_seen,
				 &kbuilt);
	CHECK(klive != 0 && klive == kbuilt,
	      "/proc/stat's CPU lines are the online list's CPUs (%s, %d CPUs): %llx %llx", list, n,
	      (unsigned long long)klive, (unsigned long long)kbuilt);
}

/* The live /proc/stat, parsed here and by sscanf. */
static void check_stat_live(void)
{
	static char text[1 << 20];
	FILE *f = fopen("/proc/stat", "r");
	if (!f) {
		SKIP("/proc/stat not readable");
		return;
	}
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	enum { MAXC = 1024 };
	static uint64_t out[MAXC * PROCSTAT_FIELDS];
	static bool seen[MAXC];
	int n = procirq_stat_parse(text, len, MAXC, NULL, out, seen);
	int lines = 0;
	for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		int cpu;
		unsigned long long v[8] = {0};
		if (strncmp(l, "cpu", 3) != 0 || l[3] < '0' || l[3] > '9')
			continue;
		if (sscanf(l + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 8 ||
		    cpu < 0 || cpu >= MAXC)
			continue;
		lines++;
		CHECK(seen[cpu], "cpu %d not parsed", cpu);
		for (int k = 0; k < 8 && seen[cpu]; k++)
			CHECK(out[cpu * PROCSTAT_FIELDS + k] == v[k], "cpu %d field %d", cpu, k);
	}
	CHECK(n == lines && n > 0, "%d lines parsed, sscanf finds %d", n, lines);
}

/* One read of the live /proc/stat against the kernel's own sum line ("cpu ": all CPUs, printed
 * just before the cpuN lines). The cpuN lines never add up to more (each line's ticks are
 * truncated, hence one tick of slack per line), nor to less while every configured CPU has a
 * line (a CPU gone offline keeps its times in the sum line only). Returns 1 within the bounds, 0
 * outside (@why says where), -1 when the file cannot be read. */
static int stat_sum_line(char *why, size_t whylen)
{
	static char text[1 << 20];
	enum { MAXC = 1024 };
	static uint64_t out[MAXC * PROCSTAT_FIELDS];
	static bool seen[MAXC];
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	memset(seen, 0, sizeof(seen));
	int n = procirq_stat_parse(text, len, MAXC, NULL, out, seen);
	unsigned long long sum[8] = {0};
	if (n < 1 || sscanf(text, "cpu  %llu %llu %llu %llu %llu %llu %llu %llu", &sum[0], &sum[1],
			    &sum[2], &sum[3], &sum[4], &sum[5], &sum[6], &sum[7]) != 8) {
		snprintf(why, whylen, "%d cpuN lines; the sum line: %.60s", n, text);
		return 0;
	}
	bool all = n == sysconf(_SC_NPROCESSORS_CONF);
	for (int k = 0; k < 8; k++) {
		unsigned long long add = 0;
		for (int c = 0; c < MAXC; c++)
			add += seen[c] ? out[c * PROCSTAT_FIELDS + k] : 0;
		if (add > sum[k] + (unsigned)n || (all && add + (unsigned)n < sum[k])) {
			snprintf(why, whylen,
				 "field %d: the %d cpuN lines add %llu, the sum line %llu", k, n,
				 add, sum[k]);
			return 0;
		}
	}
	return 1;
}

/* The kernel reads the CPUs' times twice while it prints the file (the sum line, then each CPU's
 * line): on a loaded machine a tick can land between, so up to 5 reads, one within the bounds. */
static void check_stat_sum_line(void)
{
	char why[160] = "";
	int rc = 0;
	for (int i = 0; i < 5 && rc == 0; i++)
		rc = stat_sum_line(why, sizeof(why));
	if (rc < 0) {
		SKIP("/proc/stat not readable");
		return;
	}
	CHECK(rc == 1, "5 reads of /proc/stat, none within one tick a line of its sum line: %s",
	      why);
}

/* Seconds from /proc/uptime (time since boot, suspend included), or NAN. */
static double uptime_s(void)
{
	double up = NAN;
	FILE *f = fopen("/proc/uptime", "r");
	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = NAN;
		fclose(f);
	}
	return up;
}

/* The live /proc/stat, read by procstat_file_read, against the clocks: a CPU's fields are the
 * time it has been online in USER_HZ ticks (getconf CLK_TCK). No CPU has more than /proc/uptime;
 * the one online longest has at least 90 % of CLOCK_MONOTONIC since boot (which stops in
 * suspend, as the CPU times do; uptime does not). */
static void check_stat_clock(void)
{
	enum { MAXC = 1024 };
	static uint64_t out[MAXC * PROCSTAT_FIELDS];
	static bool seen[MAXC];
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec mono;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	struct procstat_file sf = {0};
	long len = procstat_file_read(&sf, NULL);
	int n = len >= 0 ? procirq_stat_parse(sf.buf, (size_t)len, MAXC, NULL, out, seen) : -1;
	procstat_file_close(&sf);
	double up = uptime_s();
	if (n < 0 || isnan(up) || hz <= 0) {
		SKIP("/proc/stat or /proc/uptime not readable here");
		return;
	}
	CHECK(n > 0, "no cpuN line in /proc/stat");
	double most = 0, mono_s = (double)mono.tv_sec + mono.tv_nsec / 1e9;
	for (int c = 0; c < MAXC; c++) {
		if (!seen[c])
			continue;
		uint64_t ticks = 0;
		for (int k = 0; k < PROCSTAT_FIELDS; k++)
			ticks += out[c * PROCSTAT_FIELDS + k];
		double t = (double)ticks / (double)hz;
		CHECK(t <= up + 2.0 / (double)hz, "cpu%d: %.2f s of times, uptime %.2f s", c, t,
		      up);
		most = t > most ? t : most;
	}
	CHECK(most >= 0.9 * mono_s, "the CPU online longest: %.2f s of times, %.2f s since boot",
	      most, mono_s);
	/* the root is a prefix: a tree without proc/stat is an error (ENOENT), nothing kept open */
	errno = 0;
	CHECK(procstat_file_read(&sf, "/nonexistent") == -1 && errno == ENOENT && !sf.open,
	      "missing file: %s", strerror(errno));
	procstat_file_close(&sf);
}

/* procstat_file_read: a tree's file larger than the first buffer is read whole (the last CPU's
 * line is there) and a file replaced in the tree is seen at the next read; this machine's file is
 * read again on one descriptor, each read new (the CPUs' ticks go on), with the CPU lines a read
 * of the file by stdio has. */
static void check_stat_file(void)
{
	enum { NC = 3000 }; /* ~100 KiB of cpu lines: more than the first 64 KiB buffer */
	char root[] = "/tmp/pmutop-procstat-XXXXXX", dir[600], path[700], tmp[720];
	CHECK(mkdtemp(root) != NULL, "mkdtemp");
	snprintf(dir, sizeof(dir), "%s/proc", root);
	CHECK(mkdir(dir, 0700) == 0, "%s", dir);
	snprintf(path, sizeof(path), "%s/stat", dir);
	snprintf(tmp, sizeof(tmp), "%s/stat.new", dir);
	for (int round = 0; round < 2; round++) {
		FILE *f = fopen(tmp, "w");
		CHECK(f != NULL, "%s", tmp);
		if (!f)
			return;
		fprintf(f, "cpu  1 2 3 4 5 6 7 8 0 0\n");
		for (int c = 0; c < NC; c++)
			fprintf(f, "cpu%d %d 0 0 %d 0 0 0 0 0 0\n", c, c + round, 1000 + c);
		fprintf(f, "intr 1 2 3\nctxt 5\n");
		long size = ftell(f);
		fclose(f);
		CHECK(rename(tmp, path) == 0, "rename to %s", path); /* a new file in the tree */
		static struct procstat_file sf;
		long len = procstat_file_read(&sf, root);
		CHECK(len == size, "round %d: read %ld bytes of %ld", round, len, size);
		CHECK(!sf.open, "a tree's file is not kept open");
		static uint64_t out[NC * PROCSTAT_FIELDS];
		static bool seen[NC];
		memset(seen, 0, sizeof(seen));
		int n = len > 0 ? procirq_stat_parse(sf.buf, (size_t)len, NC, NULL, out, seen) : -1;
		CHECK_INT(n, NC);
		CHECK(seen[NC - 1] && out[(NC - 1) * PROCSTAT_FIELDS + PROCSTAT_USER] ==
					  (uint64_t)(NC - 1 + round),
		      "round %d: the last CPU's user time %llu", round,
		      (unsigned long long)out[(NC - 1) * PROCSTAT_FIELDS]);
		if (round == 1)
			procstat_file_close(&sf);
	}
	unlink(path);
	rmdir(dir);
	rmdir(root);

	/* this machine's: one descriptor, a new read each time, the CPUs stdio's read has */
	enum { MAXC = 1024 };
	static uint64_t out[MAXC * PROCSTAT_FIELDS];
	static bool seen_kept[MAXC], seen_stdio[MAXC];
	static char text[1 << 20];
	struct procstat_file live = {0};
	long len = procstat_file_read(&live, NULL);
	FILE *f = fopen("/proc/stat", "r");
	size_t got = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	if (len < 0 || !got) {
		SKIP("/proc/stat not readable here");
		procstat_file_close(&live);
		return;
	}
	int fd = live.fd;
	uint64_t before = 0, after = 0; /* all CPUs' ticks */
	int kept = procirq_stat_parse(live.buf, (size_t)len, MAXC, NULL, out, seen_kept);
	for (size_t i = 0; i < (size_t)MAXC * PROCSTAT_FIELDS; i++)
		before += seen_kept[i / PROCSTAT_FIELDS] ? out[i] : 0;
	int stdio = procirq_stat_parse(text, got, MAXC, NULL, out, seen_stdio);
	CHECK(kept > 0 && kept == stdio && memcmp(seen_kept, seen_stdio, sizeof(seen_kept)) == 0,
	      "the CPU lines of the kept read (%d) and of stdio's (%d)", kept, stdio);
	/* 60 ms: 6 or more ticks of USER_HZ 100 (or 1000) on every online CPU */
	nanosleep(&(struct timespec){0, 60 * 1000 * 1000}, NULL);
	len = procstat_file_read(&live, NULL);
	CHECK(len > 0 && live.open && live.fd == fd,
	      "a second read on the same descriptor (%d, %d)", fd, live.fd);
	memset(seen_kept, 0, sizeof(seen_kept));
	if (len > 0)
		procirq_stat_parse(live.buf, (size_t)len, MAXC, NULL, out, seen_kept);
	for (size_t i = 0; i < (size_t)MAXC * PROCSTAT_FIELDS; i++)
		after += seen_kept[i / PROCSTAT_FIELDS] ? out[i] : 0;
	CHECK(after > before, "the second read is new: %llu ticks, then %llu",
	      (unsigned long long)before, (unsigned long long)after);
	procstat_file_close(&live);
	CHECK(!live.open && !live.buf, "closed");
}

int main(void)
{
	check_stat_file();
	check_stat();
	check_stat_digits();
	check_stat_live();
	check_stat_key();
	check_stat_sum_line();
	check_stat_clock();
	check_layouts();
	check_rows();
	check_parse();
	check_deltas();
	check_cpufreq();
	check_live();
	return harness_done();
}

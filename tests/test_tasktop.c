/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tasktop.c: stat parsing with tricky comm names, escaping, and per-CPU attribution on
 * fixtures. */
#include <unistd.h>

#include "harness.h"
#include "tasktop.h"

#define TAIL " 0 0 20 0 1 0 "

static const struct {
	int line;
	const char *text;
	int ok;
	int tid;
	const char *comm;
	char state;
	unsigned long long utime, stime, start;
	int cpu;
} stat_cases[] = {
    {__LINE__,
     "42 (cat) R 1 2 3 0 -1 4194304 135 0 0 0 7 3" TAIL
     "36402 3133440 407 18446744073709551615 1 2 3 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
     1, 42, "cat", 'R', 7, 3, 36402, 1},
    {__LINE__,
     "101 (a) b) (c) S 1 100 100 0 -1 0 0 0 0 0 2000 5" TAIL
     "510 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 3",
     1, 101, "a) b) (c", 'S', 2000, 5, 510, 3},
    {__LINE__,
     "7 (my prog) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 12 0 0", 1,
     7, "my prog", 'S', 1, 2, 3, 12},
    {__LINE__, "8 () S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 1, 8,
     "", 'S', 1, 2, 3, 0},
    {__LINE__, "9 (x\ny) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 1,
     9, "x\ny", 'S', 1, 2, 3, 0},
    {__LINE__, "9 (x S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0, 0,
     NULL, 0, 0, 0, 0, 0},
    {__LINE__, "x (cat) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9x (cat) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9 (cat) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1", 0, 0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9 (cat) S 1 1 1 0 -1 0 0 0 0 0 x 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9 (cat) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 -1", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9 (cat) SS 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "9 (cat)  S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "", 0, 0, NULL, 0, 0, 0, 0, 0},
    {__LINE__, "0 (cat) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0,
     0, NULL, 0, 0, 0, 0, 0},
};

static const struct {
	int line;
	const char *in;
	const char *out;
} escape_cases[] = {
    {__LINE__, "plain", "plain"},
    {__LINE__, "\x1b[31mred", "\\x1b[31mred"},
    {__LINE__, "new\nline\t", "new\\x0aline\\x09"},
    {__LINE__, "back\\slash", "back\\\\slash"},
    {__LINE__, "\xc3\xbc\xe6\x97\xa5", "\xc3\xbc\xe6\x97\xa5"}, /* valid UTF-8 kept */
    {__LINE__,
     "\xc2\x9b"
     "evil\xff",
     "\\xc2\\x9bevil\\xff"},			   /* C1 control, invalid byte */
    {__LINE__, "\xe6\x97", "\\xe6\\x97"},	   /* truncated sequence */
    {__LINE__, "\xed\xa0\x80", "\\xed\\xa0\\x80"}, /* surrogate */
    {__LINE__, "\x7f", "\\x7f"},
};

static void check_parse(void)
{
	for (size_t i = 0; i < sizeof(stat_cases) / sizeof(stat_cases[0]); i++) {
		struct tasktop_stat st;
		int line = stat_cases[i].line;
		memset(&st, 0x5a, sizeof(st));
		int rc = tasktop_parse_stat(stat_cases[i].text, strlen(stat_cases[i].text), &st);
		CHECK((rc == 0) == stat_cases[i].ok, "line %d: rc %d", line, rc);
		if (rc || !stat_cases[i].ok) {
			CHECK(rc != 0 || st.tid != 0x5a5a5a5a, "line %d", line);
			continue;
		}
		CHECK(st.tid == stat_cases[i].tid, "line %d: tid %d", line, st.tid);
		CHECK(strcmp(st.comm, stat_cases[i].comm) == 0, "line %d: comm \"%s\"", line,
		      st.comm);
		CHECK(st.state == stat_cases[i].state, "line %d: state %c", line, st.state);
		CHECK(st.utime == stat_cases[i].utime && st.stime == stat_cases[i].stime,
		      "line %d: times %llu %llu", line, (unsigned long long)st.utime,
		      (unsigned long long)st.stime);
		CHECK(st.starttime == stat_cases[i].start, "line %d: start", line);
		CHECK(st.processor == stat_cases[i].cpu, "line %d: cpu %d", line, st.processor);
	}
	/* A comm longer than the buffer is cut, not overflowed. */
	char big[512];
	snprintf(
	    big, sizeof(big),
	    "5 (%0100d) S 1 1 1 0 -1 0 0 0 0 0 1 2" TAIL "3 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0", 0);
	struct tasktop_stat st;
	CHECK(tasktop_parse_stat(big, strlen(big), &st) == 0, "long comm");
	CHECK_INT(strlen(st.comm), TASKTOP_RAW_COMM_MAX - 1);

	for (size_t i = 0; i < sizeof(escape_cases) / sizeof(escape_cases[0]); i++) {
		char out[64];
		tasktop_escape(escape_cases[i].in, strlen(escape_cases[i].in), out, sizeof(out));
		CHECK(strcmp(out, escape_cases[i].out) == 0, "line %d: \"%s\"",
		      escape_cases[i].line, out);
	}
	char small[6];
	tasktop_escape("\x1b\x1b", 2, small, sizeof(small));
	CHECK_STR(small, "\\x1b"); /* never a partial escape */
}

/* A temporary root whose proc/ is a symbolic link we can repoint between scans. */
static char tmp_root[] = "/tmp/pmutop-tasktop-XXXXXX";

static int point_to(const char *fixture)
{
	char link[256], target[4096 + 64], src[4096];
	if (!realpath(harness_src(), src))
		return -1;
	snprintf(link, sizeof(link), "%s/proc", tmp_root);
	snprintf(target, sizeof(target), "%s/tests/fixtures/proc/%s/proc", src, fixture);
	unlink(link);
	return symlink(target, link);
}

struct want {
	int cpu, valid, pid, tid;
	const char *comm;
	unsigned long long ticks, total;
	double pct;
};

static void check_fixtures(int exclude, const struct want *w, size_t nw)
{
	struct tasktop t;
	char err[256] = "";
	if (point_to("tasks-a") < 0) {
		SKIP("cannot make a symbolic link under /tmp");
		return;
	}
	CHECK(tasktop_init(&t, tmp_root, 4, 100, exclude, err, sizeof(err)) == 0, "%s", err);
	t.hz = 100;
	CHECK_INT(tasktop_scan(&t, 1000000000ull, err, sizeof(err)), 1);
	CHECK_INT(t.skipped, 1); /* the broken stat of pid 400 */
	for (int c = 0; c < 4; c++)
		CHECK(!tasktop_cpu(&t, c)->valid, "no result after one scan");
	CHECK_INT(t.ncur, exclude ? 6 : 8);
	point_to("tasks-b");
	/* Rate-limited: 50 ms later nothing is read. */
	CHECK_INT(tasktop_scan(&t, 1050000000ull, err, sizeof(err)), 0);
	CHECK_INT(t.ncur, exclude ? 6 : 8);
	CHECK_INT(tasktop_scan(&t, 2000000000ull, err, sizeof(err)), 1);
	CHECK_INT(t.skipped, 0);
	CHECK_INT(t.interval_ns, 1000000000ull);
	for (size_t i = 0; i < nw; i++) {
		const struct tasktop_cpu *r = tasktop_cpu(&t, w[i].cpu);
		CHECK(r && r->valid == (bool)w[i].valid, "cpu %d valid", w[i].cpu);
		if (!r || !r->valid)
			continue;
		CHECK(r->pid == w[i].pid && r->tid == w[i].tid, "cpu %d: pid %d tid %d", w[i].cpu,
		      r->pid, r->tid);
		CHECK(strcmp(r->comm, w[i].comm) == 0, "cpu %d: comm \"%s\"", w[i].cpu, r->comm);
		CHECK(r->ticks == w[i].ticks && r->total_ticks == w[i].total,
		      "cpu %d: ticks %llu/%llu", w[i].cpu, (unsigned long long)r->ticks,
		      (unsigned long long)r->total_ticks);
		CHECK_NEAR(r->share, (double)w[i].ticks / (double)w[i].total, 1e-12);
		CHECK_NEAR(r->cpu_pct, w[i].pct, 1e-9);
	}
	CHECK(tasktop_cpu(&t, 4) == NULL && tasktop_cpu(&t, -1) == NULL, "out of range");
	CHECK(tasktop_bytes(&t) >= 4 * sizeof(struct tasktop_cpu), "bytes");
	tasktop_free(&t);
}

static const struct want excluded[] = {
    {0, 1, 700, 700, "\\xc2\\x9bevil\\xff", 3, 5, 3},
    {1, 1, 100, 100, "my prog", 40, 44, 40},
    {2, 1, 100, 101, "a) b) (c", 60, 90, 60},
    {3, 1, 500, 500, "kworker/u8:2-events_unbound", 7, 7, 7},
};

static const struct want included[] = {
    {3, 1, 300, 300, "pmutop", 50, 97, 50},
    {2, 1, 100, 101, "a) b) (c", 60, 90, 60},
};

static void check_live(void)
{
	struct tasktop t;
	char err[256] = "";
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (tasktop_init(&t, "", (int)(ncpu > 0 ? ncpu : 1), 0, getpid(), err, sizeof(err)) < 0 ||
	    tasktop_scan(&t, 1, err, sizeof(err)) < 0) {
		SKIP("live /proc: %s", err);
		tasktop_free(&t);
		return;
	}
	CHECK(t.ncur > 0, "live tasks found");
	CHECK_INT(t.skipped, 0);
	CHECK_INT(tasktop_scan(&t, 2, err, sizeof(err)), 1);
	for (int c = 0; c < t.ncpu; c++) {
		const struct tasktop_cpu *r = tasktop_cpu(&t, c);
		CHECK(!r->valid || r->pid != getpid(), "own pid excluded");
	}
	tasktop_free(&t);
}

/* The task view's list: utime + stime deltas between the fixtures tasks-a and tasks-b, read off
 * their stat files (fields 14 + 15): 101 +60, 300 +50, 100 +40, 301 +40, 600 +30 (new), 500 +7
 * (new), 251 +4 (a tid reused: start time 655 -> 990), 700 +3 (new), 1 +2; 250 and 77 ran 0. */
static void check_busiest(void)
{
	struct tasktop t;
	char err[256] = "";
	if (point_to("tasks-a") < 0) {
		SKIP("cannot make a symbolic link under /tmp");
		return;
	}
	CHECK(tasktop_init(&t, tmp_root, 4, 0, 0, err, sizeof(err)) == 0, "%s", err);
	struct tasktop_busy b[16];
	size_t seen = 0;
	CHECK_INT(tasktop_scan(&t, 1000000000ull, err, sizeof(err)), 1);
	CHECK_INT(tasktop_busiest(&t, NULL, 0, b, 16, &seen), 0); /* one scan: no deltas yet */
	point_to("tasks-b");
	CHECK_INT(tasktop_scan(&t, 2000000000ull, err, sizeof(err)), 1);
	static const struct {
		int tid;
		unsigned long long ticks;
	} all[] = {{101, 60}, {300, 50}, {100, 40}, {301, 40}, {600, 30},
		   {500, 7},  {251, 4},	 {700, 3},  {1, 2}};
	size_t n = tasktop_busiest(&t, NULL, 0, b, 16, &seen);
	CHECK_INT(n, sizeof(all) / sizeof(all[0])); /* the tasks that ran, no idle one */
	CHECK_INT(seen, t.ncur);
	for (size_t i = 0; i < n && i < sizeof(all) / sizeof(all[0]); i++)
		CHECK(b[i].tid == all[i].tid && b[i].ticks == all[i].ticks,
		      "rank %zu: tid %d ticks %llu", i, b[i].tid, (unsigned long long)b[i].ticks);
	CHECK_STR(b[0].comm, "a) b) (c");
	CHECK_INT(b[0].pid, 100);
	/* the top 3; a kept task wins a tie (301 before 100), an idle kept one comes last */
	int keep[] = {301, 77};
	n = tasktop_busiest(&t, keep, 2, b, 3, &seen);
	CHECK_INT(n, 3);
	CHECK(n == 3 && b[0].tid == 101 && b[1].tid == 300 && b[2].tid == 301,
	      "top 3 with 301 kept");
	n = tasktop_busiest(&t, keep, 2, b, 16, &seen);
	CHECK_INT(n, 10);
	CHECK(n == 10 && b[9].tid == 77 && b[9].ticks == 0, "the idle kept task last");
	tasktop_free(&t);
}

int main(void)
{
	char err[64];
	struct tasktop t;
	CHECK(tasktop_init(&t, "", 0, 0, 0, err, sizeof(err)) == -1, "0 cpus refused");
	check_parse();
	if (!mkdtemp(tmp_root)) {
		SKIP("mkdtemp failed");
	} else {
		check_fixtures(300, excluded, sizeof(excluded) / sizeof(excluded[0]));
		check_fixtures(0, included, sizeof(included) / sizeof(included[0]));
		check_busiest();
		char link[256];
		snprintf(link, sizeof(link), "%s/proc", tmp_root);
		unlink(link);
		rmdir(tmp_root);
	}
	struct tasktop m;
	tasktop_init(&m, "/nonexistent-root", 1, 0, 0, err, sizeof(err));
	CHECK(tasktop_scan(&m, 1, err, sizeof(err)) == -1, "missing root");
	tasktop_free(&m);
	check_live();
	return harness_done();
}

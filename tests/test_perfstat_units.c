/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_perfstat_units.c: hostile perf stat per-unit captures: repeats, changing and many units. */
#include "harness.h"
#include "perfstat.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* One perf stat -I -x, --per-core line: unit @u (S<u/64>-D0-C<u%64>), event ev@e. */
static void line(FILE *f, double t, int u, int e, long value)
{
	fprintf(f, "%.9f,S%d-D0-C%d,2,%ld,,ev%d,2000000000,100.00,,\n", t, u / 64, u % 64, value,
		e);
}

static int load(const char *text, struct rec_file *f, char *err, size_t errlen)
{
	const char *p = tmp_path("t.csv");
	FILE *o = fopen(p, "w");
	if (!o)
		return -2;
	fputs(text, o);
	fclose(o);
	return perfstat_load(p, PERFSTAT_CSV, f, err, errlen);
}

#define L(t, u, ev, v) t ",S0-D0-C" u ",2," v ",," ev ",2000000000,100.00,,\n"

/* A counter repeated in one interval is refused with its line; the same in the next interval,
 * or another unit's in between, is not. */
static void test_repeats(void)
{
	struct rec_file f;
	char err[256] = "";
	CHECK(load(L("1.0", "0", "cycles", "10") L("1.0", "1", "cycles", "20")
		       L("1.0", "0", "instructions", "5") L("1.0", "0", "cycles", "11"),
		   &f, err, sizeof(err)) == -1 &&
		  strstr(err, "t.csv:4: S0-D0-C0 event 'cycles' repeated in one interval"),
	      "%s", err);
	int rc = load(L("1.0", "0", "cycles", "10") L("1.0", "1", "cycles", "20")
			  L("2.0", "0", "cycles", "30") L("2.0", "1", "cycles", "40"),
		      &f, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	if (rc == 0) {
		CHECK_INT(f.nticks, 2);
		CHECK_INT(f.header.ncpus, 2);
		if (f.nticks == 2 && f.header.ncpus == 2) /* cumulative: 10 + 30 */
			CHECK_INT((long)f.ticks[1].cpus[0].c[0].raw.value, 40);
		rec_file_free(&f);
	}
	/* trailing blanks after the unit: the same unit */
	CHECK(
	    load(L("1.0", "0", "cycles", "10") "1.0,S0-D0-C0  ,2,10,,cycles,2000000000,100.00,,\n",
		 &f, err, sizeof(err)) == -1 &&
		strstr(err, "t.csv:2: S0-D0-C0 event 'cycles' repeated"),
	    "%s", err);
}

/* Units that change between intervals: a row for each unit ever seen, absent where not printed. */
static void test_changing_units(void)
{
	struct rec_file f;
	char err[256] = "";
	int rc = load(L("1.0", "0", "cycles", "10") L("1.0", "1", "cycles", "20")
			  L("2.0", "2", "cycles", "30") L("2.0", "3", "cycles", "40"),
		      &f, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	if (rc)
		return;
	CHECK_INT(f.header.ncpus, 4);
	CHECK_INT(f.nticks, 2);
	if (f.header.ncpus == 4 && f.nticks == 2) {
		CHECK_STR(f.header.cpus[2].key, "S0-D0-C2");
		CHECK(f.ticks[0].cpus[0].c[0].present && !f.ticks[0].cpus[2].c[0].present,
		      "unit 2 is absent from the first interval");
		CHECK(f.ticks[1].cpus[3].c[0].present, "unit 3 is in the second interval");
	}
	rec_file_free(&f);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 4000 units x 100 events in one interval (400,000 lines, 26 MB): read in linear time (a scan of
 * the interval per line took minutes) and in memory bounded by the input's size. */
static void test_many_units(void)
{
	enum { UNITS = 4000, EVENTS = 100 };
	const char *p = tmp_path("many.csv");
	FILE *o = fopen(p, "w");
	CHECK(o != NULL, "%s", p);
	if (!o)
		return;
	for (int u = 0; u < UNITS; u++)
		for (int e = 0; e < EVENTS; e++)
			line(o, 1.0, u, e, 1000 + u);
	long size = ftell(o);
	fclose(o);
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	double t0 = now_s();
	struct rec_file f;
	char err[256] = "";
	int rc = perfstat_load(p, PERFSTAT_CSV, &f, err, sizeof(err));
	double secs = now_s() - t0;
	getrusage(RUSAGE_SELF, &r1);
	CHECK(rc == 0, "%s", err);
	/* 0.2 s with the fix on 2 shared CPUs; 37 s with the old scan of the interval per line */
	CHECK(secs < 20, "%d units x %d events read in %.1f s", UNITS, EVENTS, secs);
	long grew_kb = r1.ru_maxrss - r0.ru_maxrss;
#if defined(__SANITIZE_ADDRESS__)
	printf("peak RSS not checked: ASan's shadow and quarantine hold more than the import\n");
#else
	CHECK(grew_kb * 1024 < 4 * size, "peak RSS grew %ld KB for a %ld KB capture", grew_kb,
	      size / 1024);
#endif
	printf("%d units x %d events (%ld KB): %.2f s, peak RSS +%ld KB\n", UNITS, EVENTS,
	       size / 1024, secs, grew_kb);
	if (rc == 0) {
		CHECK_INT(f.header.ncpus, UNITS);
		CHECK_INT(f.modes[0].nevents, EVENTS);
		if (f.header.ncpus == UNITS && f.nticks == 1) {
			CHECK_STR(f.header.cpus[UNITS - 1].key, "S62-D0-C31");
			CHECK_INT((long)f.ticks[0].cpus[UNITS - 1].c[EVENTS - 1].raw.value,
				  1000 + UNITS - 1);
		}
		rec_file_free(&f);
	}
	unlink(p);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_perfstat_units.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_repeats();
	test_changing_units();
	test_many_units();
	unlink(tmp_path("t.csv"));
	rmdir(tmpdir);
	return harness_done();
}

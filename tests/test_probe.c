/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_probe.c: cache probe: step detection, line fit, seed formula, sizes, sysfs, CLI errors, a
 * short real run. */
#include "harness.h"
#include "probe.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#define NG 65 /* 1K .. 64M, 4 per octave */

static double grid[NG];

static void make_grid(void)
{
	for (int k = 0; k < NG; k++)
		grid[k] = 1024 * exp2(k / 4.0);
}

/* Deterministic noise in [-1, 1). */
static double noise_u(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (*s >> 8) / (double)(1u << 24) * 2 - 1;
}

/* Steps at 32K -> 1M -> 8M (exclusive upper ends) with levels 1, 4, 15, 100. */
static double step_curve(double size)
{
	return size <= 32768 ? 1 : size <= 1048576 ? 4 : size <= 8388608 ? 15 : 100;
}

/* Where the midpoint between the grid points at @lo_size and the next is crossed. */
static double expect_cross(double lo_size, double lo_ns, double hi_ns)
{
	double mid = (lo_ns + hi_ns) / 2;
	return lo_size * exp2((mid - lo_ns) / (hi_ns - lo_ns) * 0.25);
}

static void test_clean_steps(void)
{
	double lat[NG];
	struct probe_detect d;

	for (int k = 0; k < NG; k++)
		lat[k] = step_curve(grid[k]);
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 3);
	CHECK_NEAR(d.b[0].size, expect_cross(32768, 1, 4), 1e-6 * 32768);
	CHECK_NEAR(d.b[1].size, expect_cross(1048576, 4, 15), 1e-6 * 1048576);
	CHECK_NEAR(d.b[2].size, expect_cross(8388608, 15, 100), 1e-6 * 8388608);
	CHECK_NEAR(d.b[0].below_ns, 1, 1e-9);
	CHECK_NEAR(d.b[0].above_ns, 4, 1e-9);
	CHECK_NEAR(d.b[1].above_ns, 15, 1e-9);
	CHECK_NEAR(d.b[2].above_ns, 100, 1e-9);
	for (int b = 0; b < 3; b++)
		CHECK_NEAR(d.b[b].confidence, 1, 1e-9);
	CHECK_NEAR(grid[d.b[0].lo], 32768, 1e-6); /* the last point of the L1 plateau */
	CHECK(d.tail_flat, "clean curve ends flat");
	CHECK_INT(d.open_from, -1);
	CHECK_NEAR(d.first_ns, 1, 1e-9);
	CHECK_NEAR(d.last_ns, 100, 1e-9);
}

static void test_noisy_steps(void)
{
	double lat[NG];
	struct probe_detect d;
	uint32_t seed = 12345;

	for (int k = 0; k < NG; k++)
		lat[k] = step_curve(grid[k]) * (1 + 0.03 * noise_u(&seed));
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 3);
	static const double want[] = {32768, 1048576, 8388608};
	for (int b = 0; b < 3 && b < d.nbounds; b++) {
		CHECK(fabs(log2(d.b[b].size / want[b])) <= 0.25,
		      "step %d at %.0f, want %.0f within one step", b, d.b[b].size, want[b]);
		CHECK(d.b[b].confidence >= 0.5, "step %d confidence %.2f", b, d.b[b].confidence);
	}
}

static void test_no_step(void)
{
	double lat[NG];
	struct probe_detect d;
	uint32_t seed = 7;

	for (int k = 0; k < NG; k++)
		lat[k] = 2.0 * (1 + 0.02 * noise_u(&seed));
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 0);
	CHECK(d.tail_flat, "flat curve ends flat");
	CHECK_NEAR(d.first_ns, 2.0, 0.05);
	/* a slow drift of 1.5x over 16 octaves is not a cache level */
	for (int k = 0; k < NG; k++)
		lat[k] = 2.0 * pow(1.5, k / 64.0);
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 0);
}

static void test_hidden_step(void)
{
	double lat[NG];
	struct probe_detect d;
	uint32_t seed = 99;

	/* a 1.2x step under +-20% noise: not reported */
	for (int k = 0; k < NG; k++)
		lat[k] = (grid[k] <= 65536 ? 1.0 : 1.2) * (1 + 0.20 * noise_u(&seed));
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 0);
	/* a clean 1.5x step when the caller says points are 10% noisy: below exp(6*0.1) = 1.82x */
	for (int k = 0; k < NG; k++)
		lat[k] = grid[k] <= 65536 ? 1.0 : 1.5;
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0.10, &d), 0);
	CHECK_NEAR(d.jump_min, exp(0.6), 1e-9);
	/* the same step with quiet points is found */
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0.01, &d), 1);
}

static void test_gradual_and_open(void)
{
	double lat[NG];
	struct probe_detect d;

	/* L2 -> L3 spread over 3 octaves around 2M (the shape measured in a VM): midpoint rule */
	for (int k = 0; k < NG; k++) {
		double x = log2(grid[k] / 2097152.0);
		double t = 1 / (1 + exp(-2.5 * x));
		lat[k] = grid[k] <= 32768 ? 1.4 : 4.7 + (43 - 4.7) * t;
	}
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 2);
	CHECK(fabs(log2(d.b[1].size / 2097152.0)) <= 0.25, "gradual step at %.0f, want 2M",
	      d.b[1].size);
	/* the curve still rising at the end: no step, an open tail from the last plateau */
	for (int k = 0; k < NG; k++)
		lat[k] = grid[k] <= 1048576 ? 4.0 : 4.0 * exp2((log2(grid[k]) - 20) * 0.8);
	CHECK_INT(probe_detect_levels(grid, lat, NG, 0, &d), 0);
	CHECK(d.open_from >= 0, "open tail found");
	if (d.open_from >= 0)
		CHECK_NEAR(grid[d.open_from], 1048576, 1);
	CHECK(!d.tail_flat, "rising tail");
}

static void test_bad_input(void)
{
	double s[8] = {1, 2, 3, 4, 5, 6, 7, 8}, l[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	struct probe_detect d;

	CHECK_INT(probe_detect_levels(s, l, 3, 0, &d), -1);
	CHECK_INT(probe_detect_levels(NULL, l, 8, 0, &d), -1);
	s[3] = 2; /* not ascending */
	CHECK_INT(probe_detect_levels(s, l, 8, 0, &d), -1);
	s[3] = 4;
	l[2] = -1;
	CHECK_INT(probe_detect_levels(s, l, 8, 0, &d), -1);
	l[2] = NAN;
	CHECK_INT(probe_detect_levels(s, l, 8, 0, &d), -1);
	CHECK_INT(d.nbounds, 0);
}

static void test_line_fit(void)
{
	static const int strides[] = {8, 16, 32, 64, 128, 256};
	static const struct {
		int src, line;
		double hit, miss;
		int want;
	} cases[] = {
	    {__LINE__, 64, 1.4, 4.8, 64},
	    {__LINE__, 32, 1.0, 10.0, 32},
	    {__LINE__, 128, 1.1, 5.0, 128},
	    {__LINE__, 64, 1.0, 1.1, 0}, /* no miss cost visible: not found */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		double ns[6], conf;
		for (int i = 0; i < 6; i++)
			ns[i] = cases[c].hit + probe_seed_miss_rate(strides[i], cases[c].line) *
						   (cases[c].miss - cases[c].hit);
		int got = probe_detect_line(strides, ns, 6, &conf);
		CHECK(got == cases[c].want, "line %d: line size %d, want %d", cases[c].src, got,
		      cases[c].want);
		if (cases[c].want)
			CHECK(conf >= 0.9, "line %d: confidence %.2f", cases[c].src, conf);
	}
	/* the walk measured in a VM (adjacent-line prefetch lowers the 64 B point): still 64 */
	double vm[6] = {1.28, 1.46, 1.77, 2.50, 2.19, 2.74}, conf;
	CHECK_INT(probe_detect_line(strides, vm, 6, &conf), 64);
	CHECK(conf >= 0.5, "VM walk confidence %.2f", conf);
}

static void test_seed(void)
{
	/* The seed's table: 32 B line, strides in DWORDs */
	static const struct {
		int src, line, dwords;
		double want;
	} rates[] = {
	    {__LINE__, 32, 8, 1.0},    {__LINE__, 32, 4, 0.5},	{__LINE__, 32, 2, 0.25},
	    {__LINE__, 32, 1, 0.125},  {__LINE__, 32, 16, 1.0}, {__LINE__, 64, 16, 1.0},
	    {__LINE__, 64, 8, 0.5},    {__LINE__, 64, 4, 0.25}, {__LINE__, 64, 2, 0.125},
	    {__LINE__, 64, 1, 0.0625}, {__LINE__, 64, 32, 1.0},
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		double got = probe_seed_miss_rate(4 * rates[i].dwords, rates[i].line);
		CHECK(fabs(got - rates[i].want) < 1e-12, "line %d: %g, want %g", rates[i].src, got,
		      rates[i].want);
	}
	CHECK(isnan(probe_seed_miss_rate(0, 64)), "zero stride");
	/* MISS_RATE*MissTime + (1-MISS_RATE)*HitTime = AccessTime */
	CHECK_NEAR(probe_seed_miss_time(3.0, 1.0, 0.5), 5.0, 1e-12);
	CHECK_NEAR(probe_seed_miss_time(1.5, 1.0, 0.125), 5.0, 1e-12);
	CHECK_NEAR(probe_seed_miss_time(7.0, 1.0, 1.0), 7.0, 1e-12);
	for (int d = 1; d <= 8; d *= 2) {
		double mr = probe_seed_miss_rate(4 * d, 32), access = mr * 9 + (1 - mr) * 2;
		CHECK_NEAR(probe_seed_miss_time(access, 2, mr), 9, 1e-9);
	}
	CHECK(isnan(probe_seed_miss_time(1, 1, 0)), "miss rate 0 has no MissTime");
}

static void test_sizes(void)
{
	static const struct {
		int line;
		const char *in;
		long long want; /* -1 = error */
	} cases[] = {
	    {__LINE__, "64M", 64LL << 20},
	    {__LINE__, "512K", 512LL << 10},
	    {__LINE__, "1G", 1LL << 30},
	    {__LINE__, "4096", 4096},
	    {__LINE__, "2MiB", 2LL << 20},
	    {__LINE__, "1.5K", 1536},
	    {__LINE__, "48k", 48LL << 10},
	    {__LINE__, "64MB", 64LL << 20},
	    {__LINE__, "", -1},
	    {__LINE__, "abc", -1},
	    {__LINE__, "12X", -1},
	    {__LINE__, "-5", -1},
	    {__LINE__, "0", -1},
	    {__LINE__, "1.3", -1},
	    {__LINE__, "64M ", -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t v = 0;
		char err[100] = "";
		int rc = probe_parse_size(cases[i].in, &v, err, sizeof(err));
		if (cases[i].want < 0) {
			CHECK(rc == -1 && strstr(err, "bad size"), "line %d: '%s' accepted",
			      cases[i].line, cases[i].in);
		} else {
			CHECK(rc == 0 && (long long)v == cases[i].want, "line %d: '%s' -> %zu (%s)",
			      cases[i].line, cases[i].in, v, err);
		}
	}
	char b[32];
	CHECK_STR(probe_format_size(2097152, b, sizeof(b)), "2M");
	CHECK_STR(probe_format_size(1536, b, sizeof(b)), "1.5K");
	CHECK_STR(probe_format_size(512, b, sizeof(b)), "512B");
	CHECK_STR(probe_format_size(49152, b, sizeof(b)), "48K");
}

static void test_compare(void)
{
	static const struct {
		int line;
		double measured, sysfs, max;
		enum probe_agree want;
	} cases[] = {
	    {__LINE__, 49152, 49152, 1 << 26, PROBE_AGREE_OK},
	    {__LINE__, 55000, 49152, 1 << 26, PROBE_AGREE_OK},
	    {__LINE__, 32768, 49152, 1 << 26, PROBE_AGREE_NEAR},
	    {__LINE__, 1 << 20, 2 << 20, 1 << 26, PROBE_AGREE_NEAR},
	    {__LINE__, 16 << 20, 480.0 * 1048576, 1 << 30, PROBE_AGREE_MISMATCH},
	    {__LINE__, 10 << 20, 32 << 20, 1 << 26, PROBE_AGREE_MISMATCH},
	    {__LINE__, 0, 32 << 20, 8 << 20, PROBE_AGREE_BEYOND},
	    {__LINE__, 0, 1 << 20, 8 << 20, PROBE_AGREE_NOTFOUND},
	    {__LINE__, 1 << 20, 0, 8 << 20, PROBE_AGREE_NONE},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(probe_compare(cases[i].measured, cases[i].sysfs, cases[i].max) ==
			  cases[i].want,
		      "line %d: got %d", cases[i].line,
		      (int)probe_compare(cases[i].measured, cases[i].sysfs, cases[i].max));
}

static char fixture[1024];

static void test_sysfs(void)
{
	struct probe_sysfs_cache c[PROBE_MAX_SYSFS];
	char err[200] = "";

	int n = probe_sysfs_read(fixture, 0, c, PROBE_MAX_SYSFS);
	CHECK_INT(n, 3); /* the instruction cache is left out */
	if (n == 3) {
		CHECK_INT(c[0].level, 1);
		CHECK_STR(c[0].type, "Data");
		CHECK_NEAR(c[0].size, 49152, 0);
		CHECK_INT(c[0].line, 64);
		CHECK_INT(c[1].level, 2);
		CHECK_NEAR(c[1].size, 2 << 20, 0);
		CHECK_INT(c[2].level, 3);
		CHECK_NEAR(c[2].size, 480.0 * 1048576, 0);
	}
	CHECK_INT(probe_sysfs_read(fixture, 7, c, PROBE_MAX_SYSFS), 0);
	CHECK_INT(probe_check_cpu(fixture, 1, err, sizeof(err)), 0);
	CHECK_INT(probe_check_cpu(fixture, 5, err, sizeof(err)), -1);
	CHECK_STR(err, "CPU 5 is not online (online: 0-1)");
}

/* Runs probe_cli on a NULL-terminated word list; captures both streams. */
static int run_cli(char *out, size_t outlen, char *errs, size_t errlen, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	va_start(ap, errlen);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	FILE *o = tmpfile(), *e = tmpfile();
	int rc = probe_cli(argc, argv, o, e);
	rewind(o);
	rewind(e);
	size_t k = fread(out, 1, outlen - 1, o);
	out[k] = 0;
	k = fread(errs, 1, errlen - 1, e);
	errs[k] = 0;
	fclose(o);
	fclose(e);
	return rc;
}

static void test_cli_errors(void)
{
	static char out[1 << 16], err[4096];
	static const struct {
		int line;
		const char *a1, *a2, *a3;
		int want;
		const char *msg;
	} cases[] = {
	    {__LINE__, "cache", "--bogus", NULL, 2, "unknown option '--bogus'"},
	    {__LINE__, "cache", "--max-size", "12X", 2, "bad size '12X'"},
	    {__LINE__, "cache", "--max-size", NULL, 2, "--max-size needs a size"},
	    {__LINE__, "cache", "--max-size=1K", NULL, 2,
	     "between 8K and "}, /* the cap is the machine's */
	    {__LINE__, "cache", "--cpu", "abc", 2, "bad CPU number 'abc'"},
	    {__LINE__, "cache", "--cpu", NULL, 2, "--cpu needs a CPU number"},
	    {__LINE__, "tlb", NULL, NULL, 2, "unknown probe 'tlb' (known: cache)"},
	    {__LINE__, "cache", "--sysfs-root", NULL, 2, "--sysfs-root needs a directory"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_cli(out, sizeof(out), err, sizeof(err), (char *)cases[i].a1,
				 (char *)cases[i].a2, (char *)cases[i].a3, NULL);
		CHECK(rc == cases[i].want && strstr(err, cases[i].msg),
		      "line %d: rc %d, stderr '%s'", cases[i].line, rc, err);
	}
	/* a CPU the (fixture) sysfs says is offline */
	int rc = run_cli(out, sizeof(out), err, sizeof(err), "cache", "--sysfs-root", fixture,
			 "--cpu", "5", NULL);
	CHECK_INT(rc, 2);
	CHECK(strstr(err, "CPU 5 is not online (online: 0-1)") != NULL, "stderr '%s'", err);
	rc = run_cli(out, sizeof(out), err, sizeof(err), "cache", "--cpu=4000", NULL);
	CHECK_INT(rc, 2);
	CHECK(strstr(err, "CPU 4000") != NULL, "stderr '%s'", err);
	rc = run_cli(out, sizeof(out), err, sizeof(err), NULL);
	CHECK(rc == 2 && strstr(err, "usage:"), "no words: rc %d", rc);
	rc = run_cli(out, sizeof(out), err, sizeof(err), "cache", "--help", NULL);
	CHECK(rc == 0 && strstr(out, "usage: pmutop probe cache") && strstr(out, "--max-size"),
	      "help: rc %d", rc);
}

struct capture {
	char buf[1 << 16];
	size_t len;
	int lines;
};

static void cap_line(void *ctx, const char *line)
{
	struct capture *c = ctx;
	int k = snprintf(c->buf + c->len, sizeof(c->buf) - c->len, "%s\n", line);
	if (k > 0 && c->len + (size_t)k < sizeof(c->buf))
		c->len += (size_t)k;
	c->lines++;
}

/* A short real sweep runs to the end and gives well-formed results; whether its L1d step matches
 * sysfs depends on the machine's load, so bench/probe_bench.sh compares them, not this test. */
static void test_real_run(void)
{
	char err[200];
	struct probe_opts o = {
	    .cpu = -1, .max_size = 512 << 10, .quick = true, .phases = PROBE_SIZES, .rounds = 3};

	struct probe *p = probe_new(&o, err, sizeof(err));
	CHECK(p != NULL, "probe_new: %s", err);
	if (!p)
		return;
	double last = -1;
	int rc, steps = 0;
	bool monotonic = true;
	while ((rc = probe_step(p, 5)) > 0) {
		double f = probe_progress(p);
		if (f < last || f > 1)
			monotonic = false;
		last = f;
		steps++;
	}
	CHECK_INT(rc, 0);
	CHECK(steps >= 1, "ran in %d steps of 5 ms", steps);
	CHECK(monotonic, "progress goes 0..1 without stepping back");
	CHECK_NEAR(probe_progress(p), 1, 0);
	CHECK_INT(probe_step(p, 5), 0);
	const struct probe_result *r = probe_result(p);
	CHECK(r->npoints == 73, "points %d (1K..512K at 8 per octave)", r->npoints);
	CHECK(strncmp(r->counter_msg, "L1D miss counter", 16) == 0, "counter message '%s'",
	      r->counter_msg);
	if (!r->counter_ok)
		CHECK(strstr(r->counter_msg, "unavailable: ") != NULL, "'%s'", r->counter_msg);

	struct capture cap = {.len = 0};
	probe_format_summary(r, cap_line, &cap);
	probe_format_plot(r, 60, 12, cap_line, &cap);
	CHECK(strstr(cap.buf, "level") && strstr(cap.buf, "*") && strstr(cap.buf, "1K"),
	      "formatted output");
	FILE *f = tmpfile();
	CHECK_INT(probe_write_json(r, f), 0);
	rewind(f);
	json_error_t je;
	json_t *j = json_loadf(f, 0, &je);
	CHECK(j && json_is_array(json_object_get(j, "points")) &&
		  json_array_size(json_object_get(j, "points")) == (size_t)r->npoints,
	      "JSON: %s", j ? "points" : je.text);
	json_decref(j);
	fclose(f);

	probe_free(p);
}

/* Levels follow the steps; a latency rise between two steps without a step of its own is a
 * missed level ("not found"), not a reason to give the next step's size to it. */
static void test_assign_levels(void)
{
	static const struct {
		int line;
		int n;
		double below[4], above[4];
		int want_n, want[4];
	} cases[] = {
	    {__LINE__, 2, {1.0, 3.8}, {3.8, 15}, 2, {0, 1}},	 /* L1, L2 */
	    {__LINE__, 2, {1.0, 14}, {3.8, 140}, 3, {0, -1, 1}}, /* L2 missed: 3.8 -> 14 */
	    {__LINE__, 3, {1.0, 3.9, 15}, {3.8, 15, 140}, 3, {0, 1, 2}},
	    {__LINE__, 1, {1.0}, {3.8}, 1, {0}},
	    {__LINE__, 0, {0}, {0}, 0, {0}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_detect d;
		memset(&d, 0, sizeof(d));
		d.nbounds = cases[i].n;
		for (int k = 0; k < cases[i].n; k++) {
			d.b[k].below_ns = cases[i].below[k];
			d.b[k].above_ns = cases[i].above[k];
		}
		int got[PROBE_MAX_LEVELS];
		int n = probe_assign_levels(&d, got, PROBE_MAX_LEVELS);
		CHECK(n == cases[i].want_n, "line %d: %d levels", cases[i].line, n);
		for (int k = 0; k < n && k < cases[i].want_n; k++)
			CHECK(got[k] == cases[i].want[k], "line %d: level %d -> bound %d",
			      cases[i].line, k + 1, got[k]);
	}
}

/* The timing chain's clock against the one the system reports (no dependence on this
 * machine's clock: figures injected, references read from the sysfs trees). */
static void test_clock_check(void)
{
	static const struct {
		int line;
		double chain, max_mhz, cur_mhz, cpuinfo_mhz, want;
		const char *why;
	} cases[] = {
	    /* 19 GHz on a 2.6 GHz machine: the chain ran ~7 steps per cycle */
	    {__LINE__, 19.0, 0, 0, 2600, 0, "not trusted"},
	    {__LINE__, 2.55, 0, 0, 2600, 2.55, "cpu MHz"},
	    {__LINE__, 2.9, 2600, 1200, 1200, 2.9, "cpuinfo_max_freq"}, /* turbo step */
	    {__LINE__, 3.1, 2600, 0, 0, 0, "not trusted"},
	    {__LINE__, 0.4, 2600, 0, 0, 0, "not trusted"}, /* under a fifth of the clock */
	    {__LINE__, 1.0, 2600, 0, 0, 1.0, "cpufreq"},
	    {__LINE__, 2.0, 0, 0, 0, 2.0, "no cpufreq"}, /* nothing to check against */
	    {__LINE__, 19.0, 0, 0, 0, 0, "no core"},
	    {__LINE__, 0, 2600, 0, 0, 0, "not measured"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_clock_ref ref = {cases[i].max_mhz, cases[i].cur_mhz,
					      cases[i].cpuinfo_mhz};
		char why[200];
		double got = probe_clock_check(cases[i].chain, &ref, why, sizeof(why));
		CHECK(fabs(got - cases[i].want) < 1e-12 && strstr(why, cases[i].why),
		      "line %d: %g GHz (%s)", cases[i].line, got, why);
	}
	char root[4400];
	struct probe_clock_ref ref;
	snprintf(root, sizeof(root), "%s/tests/sysfs/arm-neoverse", harness_src());
	probe_clock_reference(root, 0, &ref);
	CHECK(fabs(ref.max_mhz - 2600) < 1e-9 && ref.cpuinfo_mhz == 0,
	      "arm-neoverse: cpufreq max %g MHz, cpu MHz %g", ref.max_mhz, ref.cpuinfo_mhz);
	snprintf(root, sizeof(root), "%s/tests/sysfs/x86-zen3", harness_src());
	probe_clock_reference(root, 2, &ref);
	CHECK(ref.max_mhz == 0 && fabs(ref.cpuinfo_mhz - 2400) < 1e-9,
	      "x86-zen3: cpufreq max %g MHz, cpu MHz %g", ref.max_mhz, ref.cpuinfo_mhz);
}

int main(void)
{
	test_clock_check();
	test_assign_levels();
	make_grid();
	snprintf(fixture, sizeof(fixture), "%s/tests/fixtures/probe", harness_src());
	test_clean_steps();
	test_noisy_steps();
	test_no_step();
	test_hidden_step();
	test_gradual_and_open();
	test_bad_input();
	test_line_fit();
	test_seed();
	test_sizes();
	test_compare();
	test_sysfs();
	test_cli_errors();
	test_real_run();
	return harness_done();
}

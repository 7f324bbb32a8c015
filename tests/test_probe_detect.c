/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_probe_detect.c: cache-level and line-size decisions on recorded and synthetic latency
 * curves (tests/fixtures/probe/curves/NAME.curve), round agreement, the 32-bit working-set cap. */
#include "harness.h"
#include "probe.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>

/* One curve file (the format `pmutop probe cache --dump FILE` writes; docs/probe.md). */
struct curve {
	char name[128];
	struct probe_result r;
	struct probe_point pts[PROBE_MAX_POINTS];
	double samp[PROBE_MAX_ROUNDS * PROBE_MAX_POINTS]; /* [round * npoints + k] */
	double rows[PROBE_MAX_POINTS][PROBE_MAX_ROUNDS];
	int rounds;
	int offsets[PROBE_NLINE];
	double line[PROBE_LINE_ROUNDS * PROBE_NLINE]; /* [round * nline + i] */
	int nline, line_rounds;
	bool recorded; /* measured here (not synth-*): noise the probe reports as unstable */
};

/* Parses @path into @c; returns 0, or -1 with a message in @err. */
static int load_curve(const char *path, struct curve *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	int lineno = 0;

	memset(c, 0, sizeof(*c));
	c->r.points = c->pts;
	if (!f) {
		snprintf(err, errlen, "cannot open %s", path);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *tok[PROBE_MAX_ROUNDS + 4], *save = NULL;
		int nt = 0;
		lineno++;
		if (buf[0] == '#')
			continue;
		for (char *t = strtok_r(buf, " \t\n", &save); t && nt < PROBE_MAX_ROUNDS + 4;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[nt++] = t;
		if (!nt)
			continue;
		if (!strcmp(tok[0], "max_size") && nt == 2) {
			c->r.max_size = atof(tok[1]);
		} else if (!strcmp(tok[0], "cpu") && nt == 2) {
			c->r.cpu = atoi(tok[1]);
		} else if (!strcmp(tok[0], "sysfs") && nt == 5 && c->r.nsysfs < PROBE_MAX_SYSFS) {
			struct probe_sysfs_cache *s = &c->r.sysfs[c->r.nsysfs++];
			s->level = atoi(tok[1]);
			snprintf(s->type, sizeof(s->type), "%s", tok[2]);
			s->size = atof(tok[3]);
			s->line = atoi(tok[4]);
		} else if (!strcmp(tok[0], "rounds") && nt == 2) {
			c->rounds = atoi(tok[1]);
		} else if (!strcmp(tok[0], "size") && nt == 2 + c->rounds &&
			   c->r.npoints < PROBE_MAX_POINTS) {
			int k = c->r.npoints++;
			c->pts[k].size = atof(tok[1]);
			for (int q = 0; q < c->rounds; q++)
				c->rows[k][q] = strcmp(tok[2 + q], "-") ? atof(tok[2 + q]) : NAN;
		} else if (!strcmp(tok[0], "line_rounds") && nt == 2) {
			c->line_rounds = atoi(tok[1]);
		} else if (!strcmp(tok[0], "line") && nt == 2 + c->line_rounds &&
			   c->nline < PROBE_NLINE) {
			c->offsets[c->nline++] = atoi(tok[1]);
		} else {
			snprintf(err, errlen, "%s:%d: bad line", path, lineno);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	/* second pass for the line samples (rounds are columns; the decision wants rows) */
	f = fopen(path, "r");
	int i = 0;
	while (f && fgets(buf, sizeof(buf), f)) {
		char *save = NULL, *t = strtok_r(buf, " \t\n", &save);
		if (!t || strcmp(t, "line"))
			continue;
		strtok_r(NULL, " \t\n", &save);
		for (int q = 0; q < c->line_rounds; q++)
			c->line[q * PROBE_NLINE + i] = atof(strtok_r(NULL, " \t\n", &save));
		i++;
	}
	if (f)
		fclose(f);
	if (c->rounds < 1 || c->rounds > PROBE_MAX_ROUNDS || c->r.npoints < 8 ||
	    !(c->r.max_size > 0)) {
		snprintf(err, errlen, "%s: incomplete curve", path);
		return -1;
	}
	for (int k = 0; k < c->r.npoints; k++)
		for (int q = 0; q < c->rounds; q++)
			c->samp[q * c->r.npoints + k] = c->rows[k][q];
	return 0;
}

/* Median of the points' ns over the grid range [from, to]. */
static double range_min(const struct probe_result *r, int from, int to)
{
	double m = INFINITY;
	for (int k = from; k <= to; k++)
		m = fmin(m, r->points[k].ns);
	return m;
}

static double range_max(const struct probe_result *r, int from, int to)
{
	double m = 0;
	for (int k = from; k <= to; k++)
		m = fmax(m, r->points[k].ns);
	return m;
}

static bool within(double got, double want, double tol)
{
	return got > 0 && want > 0 && fabs(log(got / want)) <= log(1 + tol) + 1e-9;
}

/* Every level: its size against sysfs (L1 15%, L2 30%, deeper 30% or a stated disagreement),
 * and its hit time from its own plateau. */
static void check_levels(const struct curve *c, const struct probe_result *r)
{
	double prev_size = 0, prev_hit = 0;

	for (int L = 1; L <= r->nlevels; L++) {
		const struct probe_level *lv = &r->levels[L - 1];
		double sys = lv->sysfs_size;
		if (sys > 0 && L <= 2) {
			/* within the tolerance; a run recorded here may instead report the
			 * disagreement it measured, with its evidence */
			CHECK(within(lv->size, sys, probe_level_tolerance(L)) ||
				  (c->recorded && strstr(lv->evidence, "disagrees with sysfs") &&
				   strstr(lv->evidence, "evidence: ")),
			      "%s: L%d measured %.0f, sysfs %.0f (tolerance %.0f%%)", c->name, L,
			      lv->size, sys, probe_level_tolerance(L) * 100);
		} else if (sys > 0 && lv->agree != PROBE_AGREE_BEYOND) {
			CHECK(within(lv->size, sys, 0.30) || (strstr(lv->evidence, "evidence: ") &&
							      (lv->agree == PROBE_AGREE_NEAR ||
							       lv->agree == PROBE_AGREE_MISMATCH ||
							       lv->agree == PROBE_AGREE_NOTFOUND)),
			      "%s: L%d measured %.0f, sysfs %.0f, verdict %d, evidence '%s'",
			      c->name, L, lv->size, sys, (int)lv->agree, lv->evidence);
		}
		if (lv->plateau_from < 0)
			continue;
		/* the hit time lies on the level's own plateau, which ends before its size and
		 * starts after the previous level's */
		const struct probe_point *from = &r->points[lv->plateau_from],
					 *to = &r->points[lv->plateau_to];
		CHECK(lv->hit_ns >= range_min(r, lv->plateau_from, lv->plateau_to) &&
			  lv->hit_ns <= range_max(r, lv->plateau_from, lv->plateau_to),
		      "%s: L%d hit %.2f ns outside its plateau %.0f..%.0f", c->name, L, lv->hit_ns,
		      from->size, to->size);
		if (lv->size > 0)
			CHECK(to->size <= lv->size,
			      "%s: L%d plateau ends at %.0f, after its size %.0f", c->name, L,
			      to->size, lv->size);
		CHECK(from->size >= prev_size, "%s: L%d plateau starts at %.0f, inside L%d (%.0f)",
		      c->name, L, from->size, L - 1, prev_size);
		CHECK(lv->hit_ns > prev_hit, "%s: L%d hit %.2f ns not above L%d's %.2f ns", c->name,
		      L, lv->hit_ns, L - 1, prev_hit);
		prev_size = lv->size > 0 ? lv->size : to->size;
		prev_hit = lv->hit_ns;
	}
	if (r->mem_ns > 0 && r->nlevels > 0)
		CHECK(r->mem_ns > r->levels[r->nlevels - 1].hit_ns, "%s: memory %.1f ns", c->name,
		      r->mem_ns);
}

static int fixtures_checked;

static void check_curve(const char *path, const char *name)
{
	static struct curve c;
	char err[1600];

	if (load_curve(path, &c, err, sizeof(err)) < 0) {
		CHECK(0, "%s", err);
		return;
	}
	snprintf(c.name, sizeof(c.name), "%s", name);
	c.recorded = strncmp(name, "synth-", 6) != 0;
	fixtures_checked++;
	struct probe_result *r = &c.r;
	int lo[PROBE_MAX_LEVELS], hi[PROBE_MAX_LEVELS];
	int nun = probe_decide_sizes(r, c.samp, c.rounds, lo, hi);
	CHECK(r->nlevels >= 2, "%s: %d levels", name, r->nlevels);
	check_levels(&c, r);
	for (int w = 0; w < nun; w++)
		CHECK(lo[w] >= 0 && lo[w] < hi[w] && hi[w] < r->npoints, "%s: window %d..%d", name,
		      lo[w], hi[w]);
	printf("%-28s", name);
	for (int L = 1; L <= r->nlevels; L++) {
		char a[32];
		printf(" L%d=%s%s", L,
		       r->levels[L - 1].size > 0 ? probe_format_size(r->levels[L - 1].size, a, 32)
						 : "-",
		       r->levels[L - 1].unstable ? "(unstable)" : "");
	}

	/* The decision does not read sysfs: the same sizes without it. */
	double sizes[PROBE_MAX_LEVELS];
	int nl = r->nlevels;
	for (int L = 0; L < nl; L++)
		sizes[L] = r->levels[L].size;
	struct probe_sysfs_cache keep[PROBE_MAX_SYSFS];
	int nkeep = r->nsysfs;
	memcpy(keep, r->sysfs, sizeof(keep));
	r->nsysfs = 0;
	probe_decide_sizes(r, c.samp, c.rounds, NULL, NULL);
	for (int L = 0; L < nl && L < r->nlevels; L++)
		CHECK(r->levels[L].size == sizes[L], "%s: L%d %.0f with sysfs, %.0f without", name,
		      L + 1, sizes[L], r->levels[L].size);
	r->nsysfs = nkeep;
	memcpy(r->sysfs, keep, sizeof(keep));

	if (c.nline == PROBE_NLINE && c.line_rounds > 0) {
		double ns[PROBE_NLINE], conf;
		int agree;
		bool unstable;
		int line = probe_decide_line(c.offsets, c.line, PROBE_NLINE, c.line_rounds, ns,
					     &conf, &agree, &unstable);
		int want = 0;
		for (int i = 0; i < r->nsysfs; i++)
			if (r->sysfs[i].level == 1)
				want = r->sysfs[i].line;
		CHECK(line == want || (c.recorded && unstable), "%s: line %d, sysfs %d", name, line,
		      want);
		printf(" line=%d%s", line, unstable ? "(unstable)" : "");
	}
	printf("\n");
}

static void test_fixtures(void)
{
	char dir[1024], path[1400];
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/probe/curves", harness_src());
	DIR *d = opendir(dir);
	CHECK(d != NULL, "cannot open %s", dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 7 || strcmp(e->d_name + n - 6, ".curve"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		check_curve(path, e->d_name);
	}
	closedir(d);
	CHECK(fixtures_checked >= 10, "%d curves checked", fixtures_checked);
}

/* A synthetic sweep: L1 32K at 1.2 ns, L2 512K at 4 ns, L3 16M at 15 ns, memory 100 ns. Rounds
 * of @busy_parity (0 even, 1 odd, -1 none) see the last octave of L2 at 3x (a neighbour
 * sharing the cache), which moves their L2 step down to 256K. */
static void sweep_round(struct curve *c, int q, bool busy)
{
	int n = c->r.npoints;
	for (int k = 0; k < n; k++) {
		double s = c->pts[k].size;
		c->samp[q * n + k] = s <= 32768 ? 1.2 : s <= 524288 ? 4 : s <= 16 << 20 ? 15 : 100;
		if (busy && s > 262144 && s <= 524288)
			c->samp[q * n + k] *= 3;
	}
}

static void make_sweep(struct curve *c, int rounds, int busy_parity)
{
	memset(c, 0, sizeof(*c));
	c->r.points = c->pts;
	c->r.max_size = 64 << 20;
	c->rounds = rounds;
	int n = 0;
	for (double s = 1024; s <= c->r.max_size * 1.0001; s *= exp2(0.125))
		c->pts[n++].size = round(s / 64) * 64;
	c->r.npoints = n;
	for (int q = 0; q < rounds; q++)
		sweep_round(c, q, q % 2 == busy_parity);
}

static void test_rounds_agreement(void)
{
	static struct curve c;
	int lo[PROBE_MAX_LEVELS], hi[PROBE_MAX_LEVELS];

	make_sweep(&c, 6, -1);
	CHECK_INT(probe_decide_sizes(&c.r, c.samp, 6, lo, hi), 0);
	CHECK(!c.r.levels[1].unstable, "steady L2");
	CHECK_INT(c.r.levels[1].rounds_agree, 6);
	CHECK(within(c.r.levels[1].size, 524288, 0.15), "L2 %.0f", c.r.levels[1].size);
	/* every round busy in the same place: the minimum over rounds cannot hide it */
	make_sweep(&c, 6, 0);
	for (int q = 1; q < 6; q += 2)
		sweep_round(&c, q, true);
	CHECK_INT(probe_decide_sizes(&c.r, c.samp, 6, lo, hi), 0);
	CHECK(within(c.r.levels[1].size, 262144, 0.15), "busy L2 %.0f", c.r.levels[1].size);
	/* the odd rounds were busy, the even ones not: the halves disagree */
	make_sweep(&c, 6, 1);
	for (int q = 0; q < 6; q += 2)
		sweep_round(&c, q, true); /* all busy ... */
	sweep_round(&c, 0, false);	  /* ... but the first round */
	int n = probe_decide_sizes(&c.r, c.samp, 6, lo, hi);
	CHECK_INT(n, 1);
	CHECK(!c.r.levels[0].unstable && c.r.levels[1].unstable, "L2 unstable, L1 not");
	CHECK(c.r.levels[1].round_max / c.r.levels[1].round_min > 1.5, "halves %.0f..%.0f",
	      c.r.levels[1].round_min, c.r.levels[1].round_max);
	CHECK(strstr(c.r.warning, "L2 unstable") != NULL, "warning '%s'", c.r.warning);
	if (n != 1)
		return;
	/* the window to measure again holds the L2 step and the plateaus beside it */
	CHECK(c.pts[lo[0]].size <= 262144 && c.pts[hi[0]].size > 524288, "window %.0f..%.0f",
	      c.pts[lo[0]].size, c.pts[hi[0]].size);
	/* quiet rounds measured again over that window only settle it */
	int R = 6, N = c.r.npoints;
	for (; R < 8; R++) {
		sweep_round(&c, R, false);
		for (int k = 0; k < N; k++)
			if (k < lo[0] || k > hi[0])
				c.samp[R * N + k] = NAN;
	}
	CHECK_INT(probe_decide_sizes(&c.r, c.samp, R, lo, hi), 0);
	CHECK(!c.r.levels[1].unstable, "settled after re-measuring");
	CHECK(within(c.r.levels[1].size, 524288, 0.15), "L2 %.0f", c.r.levels[1].size);
}

static void test_line_pairs(void)
{
	static const int off[PROBE_NLINE] = {8, 16, 32, 64, 128, 256};
	static const struct {
		int src, line;
		double hit, miss;
	} cases[] = {
	    {__LINE__, 64, 1.3, 3.9},
	    {__LINE__, 32, 1.0, 4.0},
	    {__LINE__, 128, 1.2, 5.0},
	    {__LINE__, 16, 1.0, 3.0},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		double samp[4 * PROBE_NLINE], ns[PROBE_NLINE], conf;
		int agree;
		bool unstable;
		for (int q = 0; q < 4; q++)
			for (int i = 0; i < PROBE_NLINE; i++)
				samp[q * PROBE_NLINE + i] =
				    (cases[c].miss +
				     (off[i] < cases[c].line ? cases[c].hit : cases[c].miss)) /
				    2 * (1 + 0.02 * ((q * 7 + i * 3) % 5) / 4);
		int got =
		    probe_decide_line(off, samp, PROBE_NLINE, 4, ns, &conf, &agree, &unstable);
		CHECK(got == cases[c].line, "line %d: %d", cases[c].src, got);
		CHECK(!unstable && agree == 4 && conf > 0.9, "line %d: agree %d conf %.2f",
		      cases[c].src, agree, conf);
	}
	/* no second-load cost: not found */
	double flat[2 * PROBE_NLINE], ns[PROBE_NLINE], conf;
	int agree;
	bool unstable;
	for (int i = 0; i < 2 * PROBE_NLINE; i++)
		flat[i] = 2.0 + 0.01 * (i % 3);
	CHECK_INT(probe_decide_line(off, flat, PROBE_NLINE, 2, ns, &conf, &agree, &unstable), 0);
}

static void test_working_set_cap(void)
{
	static const struct {
		int line;
		uint64_t ram, size_max, want;
	} cases[] = {
	    {__LINE__, 0, UINT32_MAX, 1023ull << 20},	       /* 32-bit: a quarter of 4G */
	    {__LINE__, 8ull << 30, UINT32_MAX, 1023ull << 20}, /* memory is not the limit */
	    {__LINE__, 1ull << 30, UINT32_MAX, 256ull << 20},  /* armhf board with 1G */
	    {__LINE__, 512ull << 20, UINT32_MAX, 128ull << 20},
	    {__LINE__, 64ull << 30, UINT64_MAX, 4ull << 30}, /* 64-bit: at most 4G */
	    {__LINE__, 2ull << 30, UINT64_MAX, 512ull << 20},
	    {__LINE__, (3ull << 30) + 12345, UINT64_MAX, 768ull << 20},
	    {__LINE__, 0, UINT64_MAX, 4ull << 30},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = probe_max_working_set(cases[i].ram, cases[i].size_max);
		CHECK(got == cases[i].want, "line %d: %llu, want %llu", cases[i].line,
		      (unsigned long long)got, (unsigned long long)cases[i].want);
	}
	/* this process: never more than a quarter of its address space, and at least the 64M
	 * default on any machine with 256M or more */
	size_t here = probe_max_working_set_here();
	CHECK(here > 0 && here <= SIZE_MAX / 4, "cap here %zu", here);
}

int main(void)
{
	test_working_set_cap();
	test_line_pairs();
	test_rounds_agreement();
	test_fixtures();
	return harness_done();
}

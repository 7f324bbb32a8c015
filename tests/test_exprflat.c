/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_exprflat.c: the flat formula program against the recursive tree evaluator, on random
 * formulas over every operator and function and random values (NAN, 0, huge, negative). */
#include "expr.h"
#include "harness.h"
#include <stdbool.h>
#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct buf {
	char s[65536];
	size_t n;
};

static void put(struct buf *b, const char *t)
{
	size_t k = strlen(t);
	if (b->n + k < sizeof(b->s)) {
		memcpy(b->s + b->n, t, k + 1);
		b->n += k;
	}
}

#define NVARS 70 /* more than the 64 a used-mask holds */

/* Appends a random formula of at most @depth levels. */
static void gen(struct buf *b, int depth)
{
	static const char *const nums[] = {"0",	  "1",	   "2",	     "0.5",  "3",  "7",
					   "100", "1e308", "1e-300", "0x10", ".25"};
	static const char *const binops[] = {"+",  "-",	 "*", "/", "%", "<",   ">",  "<=", ">=",
					     "==", "!=", "&", "|", "^", "and", "or", "??"};
	static const char *const funcs[] = {"min", "max", "d_ratio"};
	char tmp[32];
	unsigned pick = depth <= 0 ? rnd(2) : rnd(9);
	switch (pick) {
	case 0:
		put(b, nums[rnd(sizeof(nums) / sizeof(nums[0]))]);
		break;
	case 1: /* mostly the first few variables, so formulas share them */
		snprintf(tmp, sizeof(tmp), "v%u", rnd(4) ? rnd(6) : rnd(NVARS));
		put(b, tmp);
		break;
	case 2:
		put(b, rnd(3) == 0 ? "-" : rnd(2) ? "not " : "!");
		gen(b, depth - 1);
		break;
	case 3:
	case 4:
	case 5:
		put(b, "(");
		gen(b, depth - 1);
		put(b, " ");
		put(b, binops[rnd(sizeof(binops) / sizeof(binops[0]))]);
		put(b, " ");
		gen(b, depth - 1);
		put(b, ")");
		break;
	case 6:
		put(b, funcs[rnd(3)]);
		put(b, "(");
		gen(b, depth - 1);
		put(b, ", ");
		gen(b, depth - 1);
		put(b, ")");
		break;
	case 7:
		put(b, "(");
		gen(b, depth - 1);
		put(b, " if ");
		gen(b, depth - 1);
		put(b, " else ");
		gen(b, depth - 1);
		put(b, ")");
		break;
	default: /* a chain, left-associative, as the metric files write sums */
		put(b, "(");
		gen(b, depth - 1);
		for (unsigned k = 1 + rnd(4); k > 0; k--) {
			put(b, rnd(2) ? " + " : " ?? ");
			gen(b, depth - 1);
		}
		put(b, ")");
		break;
	}
}

static double value(void)
{
	static const double vals[] = {0, 1, -1, 2.5, 3, 1e308, -1e308, 4e-320, 1e9, 0.1, -0.0};
	unsigned k = rnd(16);
	if (k < 3)
		return NAN;
	if (k == 3)
		return INFINITY;
	return vals[k % (sizeof(vals) / sizeof(vals[0]))];
}

/* Both evaluators on one formula and one set of values: the same status, bits and inputs. */
static int same(const struct expr *e, const double *vals, const char *text)
{
	double a = 1, b = 2;
	unsigned long long ua = 1, ub = 2;
	int ra = expr_eval_values(e, vals, &a, &ua);
	int rb = expr_eval_tree(e, vals, &b, &ub);
	double a2 = 3;
	int ra2 = expr_eval_values(e, vals, &a2, NULL);
	bool ok = ra == rb && ra2 == ra && ua == ub && memcmp(&a, &b, sizeof(a)) == 0 &&
		  memcmp(&a, &a2, sizeof(a)) == 0;
	static int shown;
	if (!ok && shown++ < 10) /* the first few */
		fprintf(stderr, "flat %d %.17g %llx, tree %d %.17g %llx: %s\n", ra, a, ua, rb, b,
			ub, text);
	return ok;
}

int main(void)
{
	const char *seed = getenv("PMUTOP_TEST_SEED");
	if (seed && *seed)
		rng = strtoull(seed, NULL, 0) | 1;
	printf("seed 0x%llx\n", (unsigned long long)rng);
	static struct buf b;
	int formulas = 0, evals = 0, bad = 0, finite = 0, nan = 0;
	for (int i = 0; i < 20000; i++) {
		b.n = 0;
		b.s[0] = '\0';
		gen(&b, 1 + (int)rnd(7));
		char err[256];
		struct expr *e = expr_parse(b.s, err, sizeof(err));
		if (!e) {
			CHECK(e != NULL, "\"%s\": %s", b.s, err);
			continue;
		}
		formulas++;
		const char *const *names;
		int nv = expr_vars(e, &names);
		double vals[NVARS];
		for (int round = 0; round < 8; round++) {
			for (int v = 0; v < nv; v++)
				vals[v] = value();
			evals++;
			bad += !same(e, vals, b.s);
			double out;
			unsigned long long used;
			if (expr_eval_values(e, vals, &out, &used) == 0)
				finite++;
			else
				nan++;
		}
		expr_free(e);
	}
	CHECK(bad == 0, "%d of %d evaluations differ", bad, evals);
	CHECK_INT(formulas, 20000);
	/* the random formulas reach both outcomes often enough to mean something */
	CHECK(finite > evals / 10 && nan > evals / 10, "finite %d, n/a %d of %d", finite, nan,
	      evals);
	printf("%d formulas, %d evaluations: %d finite, %d n/a\n", formulas, evals, finite, nan);

	/* a chain longer than 64 variables: the used mask holds the first 64 only */
	b.n = 0;
	b.s[0] = '\0';
	for (int v = 0; v < NVARS; v++) {
		char t[32];
		snprintf(t, sizeof(t), "%sx%d", v ? (v % 7 ? " + " : " ?? ") : "", v);
		put(&b, t);
	}
	char err[256];
	struct expr *e = expr_parse(b.s, err, sizeof(err));
	CHECK(e != NULL, "%s", err);
	if (e) {
		double vals[NVARS];
		for (int round = 0; round < 200; round++) {
			for (int v = 0; v < NVARS; v++)
				vals[v] = rnd(10) ? (double)rnd(1000) : NAN;
			CHECK(same(e, vals, b.s), "long chain, round %d", round);
		}
		expr_free(e);
	}

	/* a deep right-nested formula needs a deep stack */
	b.n = 0;
	b.s[0] = '\0';
	for (int k = 0; k < 150; k++)
		put(&b, k % 3 == 0 ? "v0 - (" : k % 3 == 1 ? "v1 / (" : "(v2 if v0 else v1) ?? (");
	put(&b, "1");
	for (int k = 0; k < 150; k++)
		put(&b, ")");
	e = expr_parse(b.s, err, sizeof(err));
	CHECK(e != NULL, "%s", err);
	if (e) {
		double vals[3];
		for (int round = 0; round < 200; round++) {
			for (int v = 0; v < 3; v++)
				vals[v] = value();
			CHECK(same(e, vals, "deep"), "deep formula, round %d", round);
		}
		expr_free(e);
	}
	return harness_done();
}

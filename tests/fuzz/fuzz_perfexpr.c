/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_perfexpr.c: perf-syntax formulas (EXPR_PERF) printed in pmutop's syntax (expr_format)
 * must parse back and give the same value. */
#include <math.h>

#include "expr.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 300000;

static const double vals[] = {0.0, 1.0, -1.0, 3.5, 1e300, -1e300, 1e-300, 7.0};

/* A value for every name, fixed by its first byte; names starting with 'n' are n/a. */
static int lookup(void *ctx, const char *name, double *out)
{
	(void)ctx;
	if (name[0] == 'n')
		return -1;
	*out = vals[(unsigned char)name[0] % (sizeof(vals) / sizeof(vals[0]))];
	return 0;
}

/* The printed formula's names "xN" stand for the original's N-th name. */
struct names {
	const char *const *v;
	int n;
};

static int rename_x(void *ctx, const char *name, char *out, size_t len, char *err, size_t errlen)
{
	const struct names *nm = ctx;
	for (int i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], name) == 0) {
			snprintf(out, len, "x%d", i);
			return 0;
		}
	snprintf(err, errlen, "unknown name");
	return -1;
}

static int lookup_x(void *ctx, const char *name, double *out)
{
	const struct names *nm = ctx;
	int i = atoi(name + 1);
	FUZZ_ASSERT(name[0] == 'x' && i >= 0 && i < nm->n);
	return lookup(NULL, nm->v[i], out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	char err[256] = "";
	struct expr *e = expr_parse_flags(text, EXPR_PERF, err, sizeof(err));
	if (!e) {
		FUZZ_ASSERT(strncmp(err, "column ", 7) == 0);
		free(text);
		return 0;
	}
	struct names nm;
	nm.n = expr_vars(e, &nm.v);
	static char out[1 << 16];
	double v = 0, w = 0;
	int rc = expr_eval(e, lookup, NULL, &v);
	FUZZ_ASSERT(rc == 0 ? isfinite(v) : (rc == -1 && isnan(v)));
	if (expr_format(e, rename_x, &nm, out, sizeof(out), err, sizeof(err)) >= 0) {
		struct expr *back = expr_parse(out, err, sizeof(err));
		FUZZ_ASSERT(back != NULL); /* what is printed parses */
		int rc2 = expr_eval(back, lookup_x, &nm, &w);
		FUZZ_ASSERT(rc2 == rc);		/* the same n/a */
		FUZZ_ASSERT(rc != 0 || v == w); /* the same value, bit for bit */
		expr_free(back);
	} else {
		FUZZ_ASSERT(strstr(err, "longer than") != NULL);
	}
	expr_free(e);
	free(text);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_expr.c: expr_parse of metric formulas and expr_eval over fixed per-name values. */
#include <math.h>

#include "expr.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 2000000;

/* A value for every name, fixed by its first byte; names starting with 'n' are n/a. */
static int lookup(void *ctx, const char *name, double *out)
{
	(void)ctx;
	static const double vals[] = {0.0,   1.0,    -1.0,   3.5,
				      1e300, -1e300, 1e-300, 18446744073709551615.0};
	if (name[0] == 'n')
		return -1;
	*out = vals[(unsigned char)name[0] % (sizeof(vals) / sizeof(vals[0]))];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	char err[256] = "";
	struct expr *e = expr_parse(text, err, sizeof(err));
	if (e) {
		FUZZ_ASSERT(strcmp(expr_text(e), text) == 0);
		double v = 0;
		int rc = expr_eval(e, lookup, NULL, &v);
		FUZZ_ASSERT(rc == 0 ? isfinite(v) : (rc == -1 && isnan(v)));
		/* evaluation is a pure function of the lookups */
		double v2 = 0;
		FUZZ_ASSERT(expr_eval(e, lookup, NULL, &v2) == rc);
		FUZZ_ASSERT(rc != 0 || v == v2);
		const char *const *names = NULL;
		int n = expr_vars(e, &names);
		FUZZ_ASSERT(n >= 0);
		FUZZ_ASSERT(n == 0 || names != NULL);
		for (int i = 0; i < n; i++) {
			FUZZ_ASSERT(names[i] && names[i][0]);
			FUZZ_ASSERT(strstr(text, names[i]) != NULL);
			for (int j = 0; j < i; j++)
				FUZZ_ASSERT(strcmp(names[i], names[j]) != 0);
		}
		expr_free(e);
	} else {
		FUZZ_ASSERT(strncmp(err, "column ", 7) == 0);
	}
	free(text);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_baseline_hostile.c: Welch's test of the baseline on degenerate samples is n/a, never 0. */
#include "baseline.h"
#include "harness.h"

#include <math.h>

int main(void)
{
	double p, hw;
	/* a variance that overflowed to NaN or inf, or a mean that did (values near DBL_MAX):
	 * no p-value, so no cell is marked significant (p < BASELINE_ALPHA) */
	static const double bad[] = {NAN, INFINITY, -INFINITY};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		baseline_welch(30, 1, bad[i], 30, 2, 1, &p, &hw);
		CHECK(isnan(p) && isnan(hw), "variance %g: p %g half width %g", bad[i], p, hw);
		baseline_welch(30, 1, 1, 30, 2, bad[i], &p, &hw);
		CHECK(isnan(p) && isnan(hw), "reference variance %g: p %g", bad[i], p);
		baseline_welch(30, bad[i], 1, 30, 2, 1, &p, &hw);
		CHECK(isnan(p) && isnan(hw), "mean %g: p %g", bad[i], p);
	}
	/* a negative variance (cancellation) is not a sample's */
	baseline_welch(30, 1, -1, 30, 2, -1, &p, &hw);
	CHECK(isnan(p), "negative variances: p %g", p);
	/* huge finite values still give a test: means 2e200 and 1e200, sd 1e75, far apart */
	baseline_welch(30, 2e200, 1e150, 30, 1e200, 1e150, &p, &hw);
	CHECK(p >= 0 && p < 1e-6, "huge means: p %g", p);
	/* identical constant samples: p 1, not significant */
	baseline_welch(30, 5, 0, 30, 5, 0, &p, &hw);
	CHECK(p == 1, "constant and equal: p %g", p);
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_baseline.c: Student's t p-values and Welch's test against published tables and a worked
 * example; the effective size of autocorrelated windows. */
#include "baseline.h"
#include "harness.h"
#include <math.h>

int main(void)
{
	/* two-sided critical values of Student's t (any statistics table): p = 0.05 and 0.01 */
	static const struct {
		double t, df, p;
	} table[] = {
	    {12.706, 1, 0.05}, {4.303, 2, 0.05},  {2.571, 5, 0.05},   {2.228, 10, 0.05},
	    {2.086, 20, 0.05}, {2.042, 30, 0.05}, {1.960, 1e9, 0.05}, {63.657, 1, 0.01},
	    {3.169, 10, 0.01}, {2.750, 30, 0.01}, {2.576, 1e9, 0.01}, {0, 7, 1.0},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		CHECK_NEAR(baseline_t_p(table[i].t, table[i].df), table[i].p, 2e-4);
	CHECK_NEAR(baseline_t_p(-2.228, 10), 0.05, 2e-4); /* two-sided: the sign does not matter */

	/* Welch's test, worked by hand: n 10, mean 20, var 4 against n 20, mean 18, var 9:
	 * se^2 = 0.4 + 0.45 = 0.85, t = 2 / 0.92195 = 2.1693,
	 * df = 0.85^2 / (0.4^2 / 9 + 0.45^2 / 19) = 0.7225 / 0.0284357 = 25.408 */
	double p, hw;
	baseline_welch(10, 20, 4, 20, 18, 9, &p, &hw);
	CHECK_NEAR(p, baseline_t_p(2.16930, 25.408), 1e-4);
	CHECK(p > 0.03 && p < 0.05, "p %g", p);	   /* t 2.17 with 25 df: between 0.05 and 0.025 */
	CHECK_NEAR(hw, 2.0574 * sqrt(0.85), 0.01); /* t(0.975, 25.4) = 2.057 */
	/* too few values: n/a; two constant samples: equal or not */
	baseline_welch(1, 20, 0, 20, 18, 9, &p, &hw);
	CHECK(isnan(p), "one value: p %g", p);
	baseline_welch(5, 3, 0, 5, 3, 0, &p, &hw);
	CHECK_NEAR(p, 1, 0);
	baseline_welch(5, 3, 0, 5, 4, 0, &p, &hw);
	CHECK_NEAR(p, 0, 0);

	/* the effective size of AR(1) windows for the variance of their mean (e.g. Wilks,
	 * Statistical Methods in the Atmospheric Sciences, eq. 5.12): n (1 - r) / (1 + r) */
	CHECK_NEAR(baseline_n_eff(30, 0), 30, 1e-12);
	CHECK_NEAR(baseline_n_eff(30, 0.5), 10, 1e-12);
	CHECK_NEAR(baseline_n_eff(300, 0.2), 200, 1e-9);
	CHECK_NEAR(baseline_n_eff(30, -0.4), 30, 1e-12); /* never more than n */
	CHECK_NEAR(baseline_n_eff(10, 0.95), 2, 1e-12);	 /* at least 2 */
	return harness_done();
}

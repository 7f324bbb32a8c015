/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_baseline.c: Student's t p-values and Welch's test against published tables and a worked
 * example; the effective size of autocorrelated windows; Holm's adjustment against values worked
 * by hand (and equal to statsmodels' multipletests(method="holm")). */
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

	/* Holm (1979): sort the m p-values, p_(j) times (m - j) for j = 0.., a running maximum,
	 * at most 1. 0.005 0.01 0.03 0.04 0.2 (m 5): 0.025 0.04 0.09 max(0.08, 0.09) 0.2; the n/a
	 * one is left out of m. Stored with a stride of 2 (one metric's column of two). */
	double hp[] = {0.01, -1, 0.04, -1, 0.03, -1, 0.005, -1, NAN, -1, 0.2, -1};
	double hadj[12] = {0};
	baseline_holm(hp, hadj, 6, 2, NULL);
	static const double want[] = {0.04, 0.09, 0.09, 0.025, NAN, 0.2};
	for (int k = 0; k < 6; k++) {
		if (isnan(want[k]))
			CHECK(isnan(hadj[2 * k]), "n/a stays n/a: %g", hadj[2 * k]);
		else
			CHECK_NEAR(hadj[2 * k], want[k], 1e-12);
		CHECK_NEAR(hadj[2 * k + 1], 0, 0); /* the other column untouched */
	}
	/* 0.02 0.02 0.3 0.6: 0.08 0.08 max(0.6, 0.08) min(1, 0.6): flagged alone at 0.05, none
	 * survives the correction */
	double h2[] = {0.3, 0.6, 0.02, 0.02}, a2[4];
	baseline_holm(h2, a2, 4, 1, NULL);
	CHECK_NEAR(a2[0], 0.6, 1e-12);
	CHECK_NEAR(a2[1], 0.6, 1e-12);
	CHECK_NEAR(a2[2], 0.08, 1e-12);
	CHECK_NEAR(a2[3], 0.08, 1e-12);
	/* 0.012 0.013 0.014 0.015: 0.048 0.039 0.028 0.015, the running maximum 0.048 for all:
	 * all four are flagged (Bonferroni's 4 p would flag none) */
	double h3[] = {0.012, 0.013, 0.014, 0.015}, a3[4];
	baseline_holm(h3, a3, 4, 1, NULL);
	for (int k = 0; k < 4; k++)
		CHECK_NEAR(a3[k], 0.048, 1e-12);
	/* a family of one (the all row) is its own p; 0.7 * 3 is clipped at 1 */
	double h4 = 0.5, a4, h5[] = {0.7, 0.8, 0.9}, a5[3];
	baseline_holm(&h4, &a4, 1, 1, NULL);
	CHECK_NEAR(a4, 0.5, 0);
	baseline_holm(h5, a5, 3, 1, NULL);
	for (int k = 0; k < 3; k++)
		CHECK_NEAR(a5[k], 1, 0);
	/* more rows than fit the small array (200 CPUs): the smallest of 0.0001 k gets 200 times
	 * 0.0001; the next (200 - j) 0.0001 (j + 1), rising to j = 49: 151 x 0.005 = 0.755; from
	 * j = 90 on it is above 1: clipped */
	double big[200], abig[200];
	for (int k = 0; k < 200; k++)
		big[199 - k] = 0.0001 * (k + 1);
	baseline_holm(big, abig, 200, 1, NULL);
	CHECK_NEAR(abig[199], 0.02, 1e-12);
	CHECK_NEAR(abig[198], 199 * 0.0002, 1e-12);
	CHECK_NEAR(abig[199 - 49], 0.755, 1e-12);
	CHECK_NEAR(abig[0], 1, 0);
	/* the same with the caller's scratch (as a refresh hands it): the same values */
	struct holm_item scratch[200];
	double abig2[200];
	baseline_holm(big, abig2, 200, 1, scratch);
	for (int k = 0; k < 200; k++)
		CHECK_NEAR(abig2[k], abig[k], 0);
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline.h: a reference for every cell (a recording, or the last seconds of this run), and each
 * cell's change against it with Welch's t-test over the windows (effective sample sizes from
 * the windows' lag-1 autocorrelation). */
#ifndef PMUTOP_BASELINE_H
#define PMUTOP_BASELINE_H
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;

#define BASELINE_RECENT 30     /* windows of this run compared with the reference */
#define BASELINE_MIN_RECENT 10 /* windows of this run before a cell is tested */
/* BASELINE_ALPHA, the significance level: frame.h (the frame carries the p-values) */
#define BASELINE_HISTORY                                                                           \
	600 /* windows kept for ":baseline last DURATION" (fewer on big machines: 8 MB at most) */

/* Registers the "baseline" observer; @path: a recording that becomes the reference once the
 * first mode runs (--baseline FILE), or NULL. Returns 0, or -1 with @err. */
int baseline_attach(struct app_ctx *app, const char *path, char *err, size_t errlen);
/* Bytes of the history of windows laid out now (0: none yet): made when the mode opens for a row
 * per CPU, else by the first frame. */
size_t baseline_history_bytes(const struct app_ctx *app);
/* :baseline FILE | last DURATION | off. Returns 0, or -1 with @err (the baseline unchanged). */
int baseline_command(struct app_ctx *app, const char *arg, char *err, size_t errlen);

/* Welch's test of two samples given as (n, mean, variance): the two-sided p-value and the
 * 95 % half-width of the difference of the means; p NAN when either has fewer than 2 values. */
void baseline_welch(double n1, double m1, double v1, double n2, double m2, double v2, double *p,
		    double *half_width);
/* The two-sided p-value of Student's t with @df degrees of freedom. */
double baseline_t_p(double t, double df);
/* The effective size of @n windows with lag-1 autocorrelation @r1 for the variance of their
 * mean, n (1 - r1) / (1 + r1) (AR(1)); r1 is taken in [0, 0.9] and the result is at least 2. */
double baseline_n_eff(double n, double r1);
/* A slot of baseline_holm's scratch (its caller may hand it @n of them, or NULL). */
struct holm_item {
	double p;
	int k;
};
/* Holm's step-down adjustment of the @n p-values p[k * stride] tested together (one metric's
 * rows of a refresh): adj[k * stride] = min(1, max over j <= rank(k) of (m - j) p_(j)), p_(0)
 * the smallest, m the number of finite p-values; a NAN p (n/a) stays NAN and is not counted.
 * Rejecting where adj < alpha is Holm's test at alpha: the chance that any unchanged row of
 * the family is flagged is alpha at most. @scratch: @n items, or NULL (then up to 64 on the
 * stack, more allocated). */
void baseline_holm(const double *p, double *adj, int n, int stride, struct holm_item *scratch);

#endif

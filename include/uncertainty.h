/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uncertainty.h: error bars from one run: the standard error of each scaled or rotated count and
 * of each metric computed from them, as 95 % half-widths in the frame. */
#ifndef PMUTOP_UNCERTAINTY_H
#define PMUTOP_UNCERTAINTY_H
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;

/* The 95 % two-sided normal quantile: a value's interval is value +- this many standard errors. */
#define UNCERTAINTY_Z 1.959964

/* Registers the "uncertainty" observer (one per run); @on: error bars from the start (--error).
 * With --sim-truth it also gives each value's true figure. Returns 0, or -1 with @err. */
int uncertainty_attach(struct app_ctx *app, bool on, char *err, size_t errlen);
/* Error bars on or off (:set error); 0, or -1 with @err when the observer is not registered. */
int uncertainty_set(struct app_ctx *app, bool on, char *err, size_t errlen);
bool uncertainty_on(const struct app_ctx *app);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h: the one-shot reports: --list-events, --list-modes, --explain. */
#ifndef PMUTOP_REPORT_H
#define PMUTOP_REPORT_H
#include "app.h"
#include <stdio.h>

/* Each returns an exit status (0, 1 runtime, 2 usage) and writes to @out / @errout. */
int report_list_events(struct app_ctx *app, const char *pattern, FILE *out);
int report_list_modes(struct app_ctx *app, FILE *out);
int report_explain(struct app_ctx *app, const char *what, FILE *out, FILE *errout);

#endif

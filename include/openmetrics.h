/* SPDX-License-Identifier: GPL-2.0-or-later */
/* openmetrics.h: OpenMetrics text for a frame, and the per-event counters it carries. */
#ifndef PMUTOP_OPENMETRICS_H
#define PMUTOP_OPENMETRICS_H
#include <stdio.h>

struct app_ctx;
struct frame;

/* Cumulative scaled counts, enabled and running seconds per (mode, event, CPU) since the start,
 * summed from every snapshot (also while the display is paused). At most OM_MAX_SERIES. */
#define OM_MAX_SERIES 65536
struct om_counters;

/* Registers the OpenMetrics observer: the counters fed from every snapshot and, with @listen
 * ("[ADDR:]PORT", NULL: none), the endpoint that serves every frame (also while the screen is
 * paused). Returns 0, or -1 with a message (a bad address, out of memory). */
int om_start(struct app_ctx *app, const char *listen, char *err, size_t errlen);

/* The two text formats scrapers read: OpenMetrics 1.0 (families, # UNIT, # EOF) and the older
 * Prometheus text format 0.0.4 (what a scraper gets when it does not ask for OpenMetrics). */
enum om_flavour { OM_OPENMETRICS, OM_PROMETHEUS };
#define OM_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define OM_CONTENT_TYPE_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"

/* Writes frame @f as one exposition: each event's counter (pmutop_event_total with its enabled
 * and running seconds) per CPU, each metric as a gauge per CPU and for "all"; labels host, mode,
 * cpu, core_type (and event). An n/a value is left out. OpenMetrics ends in "# EOF". Returns 0,
 * or -1 when the stream failed. */
int om_write(FILE *out, const struct frame *f, enum om_flavour flavour);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* watch.h: the observer running the validity guard and the ownership map during a run. */
#ifndef PMUTOP_WATCH_H
#define PMUTOP_WATCH_H
#include "frame.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct app_ctx;
struct owners;

/* The ownership map is read at most this often during a run (ns). */
#define WATCH_OWNERS_NS 2000000000ULL

/* Registers the observer (the guard checks every tick; the map is read when the counters view,
 * a dump or a running-time shortfall asks for it). Returns 0 or -1 + @err. */
int watch_attach(struct app_ctx *app, char *err, size_t errlen);
/* The last map read, or NULL; the guard, or NULL. */
const struct owners *watch_owners(const struct app_ctx *app);
struct guard;
const struct guard *watch_guard(const struct app_ctx *app);
/* A reader wants the map kept fresh (the counters view is shown) or no longer. */
void watch_want_owners(struct app_ctx *app, bool want);
/* Reads the map now unless it was read less than WATCH_OWNERS_NS ago. */
void watch_refresh_owners(struct app_ctx *app);
/* The counters view: the map (source, holders' lines, one line per event) and the counts held
 * invalid, as lines handed to @add (title lines with @title set): the lines of @f, the listing
 * and the flags as the run has them now. */
void watch_lines(const struct app_ctx *app, const struct frame *f,
		 void (*add)(void *ctx, bool title, const char *line), void *ctx);
/* The capability line: @base, then the guard's line and the first holder ("" parts left
 * out). Returns @buf. */
const char *watch_capability(const struct frame *f, const char *base, char *buf, size_t len);
/* Flags the guard raised since the start. */
uint64_t watch_raised(const struct app_ctx *app);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evlist.h: perf-style event lists (name=spec, PMU/term=v,.../, {groups}:mods) split into items. */
#ifndef PMUTOP_EVLIST_H
#define PMUTOP_EVLIST_H
#include <stdbool.h>
#include <stddef.h>

#define EVLIST_NAME_MAX 48
#define EVLIST_SPEC_MAX 256
#define EVLIST_MAX_ITEMS 64

/* One event of a list. */
struct evlist_item {
	char name[EVLIST_NAME_MAX]; /* "ipc" from "ipc=spec" or a name=... term; "" = unnamed */
	char spec[EVLIST_SPEC_MAX]; /* the event as the encoder takes it (group modifiers added) */
	int group;		    /* 0 = ungrouped; {...} groups are numbered 1, 2, ... */
	bool optional;		    /* "name?=spec": the mode runs without it */
	int column;		    /* 1-based column of the spec in the list */
};

/* Splits @list at the commas that are not inside PMU/.../ or {...}:
 *   cycles,instructions            perf generic names, libpfm4 names, rNNNN, PMU/terms/
 *   ipc=cycles, ok?=r3c            a name for an event ("name?=" makes it optional)
 *   cpu/event=0x3c,name=clk/       a name=... term names the event and is removed from it
 *   {cycles,instructions}:u        a group (scheduled together); its modifiers go to each member
 * Returns the number of items (at most @max), or -1 with "column N: reason" in @err and N in
 * *@errcol (1-based; may be NULL). */
int evlist_parse(const char *list, struct evlist_item *items, int max, int *errcol, char *err,
		 size_t errlen);

/* A formula name for @spec: "perf::CYCLES" -> "CYCLES", "msr/tsc/" -> "msr_tsc",
 * "L1-dcache-load-misses" -> "L1_dcache_load_misses"; letters, digits and _ only. */
void evlist_alias(const char *spec, char *alias, size_t len);

/* Writes @items back as a list (name=spec, groups in braces) that evlist_parse reads again.
 * Returns 0, or -1 if it does not fit in @len. */
int evlist_format(const struct evlist_item *items, int n, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonbound.c: JSON parsing whose memory is bounded by a multiple of the input's size. */
#include "jsonbound.h"
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson's allocations, counted by malloc_usable_size (no header: memory jansson took before
 * these functions were installed is freed the same way). One parse at a time (no threads
 * parse JSON). */
static size_t in_use;	   /* bytes jansson holds */
static size_t limit;	   /* 0: none; else in_use may not pass it */
static bool limit_hit;	   /* the last bounded parse was refused an allocation */
static bool malloc_failed; /* ... or malloc itself failed */

static void *counted_malloc(size_t n)
{
	if (limit && (n > limit || in_use > limit - n)) {
		limit_hit = true;
		return NULL;
	}
	void *p = malloc(n);
	if (!p) {
		malloc_failed = true;
		return NULL;
	}
	in_use += malloc_usable_size(p);
	return p;
}

static void counted_free(void *p)
{
	if (!p)
		return;
	size_t n = malloc_usable_size(p);
	in_use = n < in_use ? in_use - n : 0;
	free(p);
}

json_t *jsonb_loadb(const char *buf, size_t len, size_t flags, unsigned factor, json_error_t *jerr,
		    char *why, size_t wl)
{
	static bool installed;
	if (!installed) {
		json_set_alloc_funcs(counted_malloc, counted_free);
		installed = true;
	}
	size_t budget = len > (SIZE_MAX - JSONB_SLACK) / (factor ? factor : 1)
			    ? SIZE_MAX
			    : (size_t)factor * len + JSONB_SLACK;
	limit = in_use > SIZE_MAX - budget ? SIZE_MAX : in_use + budget;
	limit_hit = malloc_failed = false;
	json_t *o = json_loadb(buf, len, flags, jerr);
	limit = 0;
	if (o) {
		if (why && wl)
			why[0] = '\0';
		return o;
	}
	if (!why || !wl)
		return NULL;
	if (limit_hit)
		snprintf(why, wl,
			 "needs more than %zu MiB of memory to parse (%u times its %zu bytes): "
			 "refused",
			 (budget + (1u << 20) - 1) >> 20, factor, len);
	else if (malloc_failed || !jerr->text[0])
		snprintf(why, wl, "out of memory while parsing it (%zu bytes)", len);
	else
		snprintf(why, wl, "%s", jerr->text);
	return NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonbound.h: JSON parsing whose memory is bounded by a multiple of the input's size. */
#ifndef PMUTOP_JSONBOUND_H
#define PMUTOP_JSONBOUND_H
#include <jansson.h>
#include <stddef.h>

/* The memory a parse may take: a factor times the input's bytes, plus this much (bytes). */
#define JSONB_SLACK (1u << 20)
/* Factors, measured with this allocator: perf's pmu-events files take up to 5x their size
 * (small files more, which the slack covers); recording lines with real counts 6.5x, and an
 * idle 256-CPU tick of zero counts 25x (a 24-byte integer per 2 bytes of text), which fits in
 * 16x plus the slack up to lines of 60 KB. Hostile input (a 16 MiB file of {}) takes 75x. */
#define JSONB_FILE_FACTOR 8
#define JSONB_LINE_FACTOR 16

/* json_loadb(@buf, @len, @flags) with its allocations bounded by @factor * @len + JSONB_SLACK
 * bytes. NULL on failure with the reason in @why: jansson's, or "needs more than N MiB to parse
 * (F times its size)" when the bound was hit, or "out of memory" when malloc failed (jansson
 * gives no text then); @jerr as jansson filled it. */
json_t *jsonb_loadb(const char *buf, size_t len, size_t flags, unsigned factor, json_error_t *jerr,
		    char *why, size_t wl);

#endif

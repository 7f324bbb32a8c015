/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counts.c: delta, wrap and multiplex-scaling rules (perf stat's interval rules). */
#include "counts.h"
#include <stdbool.h>
#include <string.h>

static const struct {
	const char *name;
	const char *mark;
} state_table[] = {
    [COUNT_OK] = {"ok", ""},
    [COUNT_SCALED] = {"scaled", "~"},
    [COUNT_NOT_COUNTED] = {"not_counted", "n/c"},
    [COUNT_NOT_SUPPORTED] = {"not_supported", "n/s"},
    [COUNT_OFFLINE] = {"offline", "off"},
    [COUNT_INVALID] = {"invalid", "?"},
};

const char *count_state_name(enum count_state state) { return state_table[state].name; }
const char *count_state_mark(enum count_state state) { return state_table[state].mark; }

int count_state_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(state_table) / sizeof(state_table[0]); i++)
		if (strcmp(state_table[i].name, name) == 0)
			return (int)i;
	return -1;
}

static uint64_t wrap_delta(uint64_t prev, uint64_t cur, unsigned width_bits, int *invalid)
{
	uint64_t mask = width_bits >= 64 ? ~0ULL : (1ULL << width_bits) - 1;
	uint64_t d = (cur - prev) & mask;
	/* A 64-bit kernel count never goes backwards. A narrow counter wraps at most once per
	 * read (the interval is shorter than its wrap, platform_wrap_note), so any delta of its
	 * width is a count: 2^31..2^32-1 on a 32-bit counter is a fast core's second, not a
	 * counter going back (which a wrapping counter cannot show). */
	if (width_bits >= 64 && cur < prev)
		*invalid = 1;
	return d;
}

void count_delta(const struct raw_count *prev, const struct raw_count *cur, unsigned width_bits,
		 struct count *out)
{
	int invalid = 0;
	uint64_t dv = wrap_delta(prev->value, cur->value, width_bits, &invalid);
	if (cur->enabled < prev->enabled || cur->running < prev->running)
		invalid = 1;
	out->value = 0;
	out->running = 0;
	if (invalid) {
		out->state = COUNT_INVALID;
		return;
	}
	uint64_t de = cur->enabled - prev->enabled;
	uint64_t dr = cur->running - prev->running;
	if (dr == 0 || de == 0) {
		out->state = COUNT_NOT_COUNTED;
		return;
	}
	if (dr > de) /* rounding in the kernel can make running a few ns ahead */
		dr = de;
	out->running = (double)dr / (double)de;
	if (dr < de) {
		out->value = (double)dv * (double)de / (double)dr;
		out->state = COUNT_SCALED;
	} else {
		out->value = (double)dv;
		out->state = COUNT_OK;
	}
}

void count_total(const struct count *counts, int nrows, int nevents, int e, const bool *skip,
		 struct count *out)
{
	struct count t = {.state = COUNT_NOT_SUPPORTED};
	int rows = 0, counted = 0;
	double run = 0;
	bool scaled = false, invalid = false;
	for (int r = 0; r < nrows; r++) {
		const struct count *c = &counts[r * nevents + e];
		if (c->state == COUNT_OFFLINE || c->state == COUNT_NOT_SUPPORTED ||
		    (skip && skip[r]))
			continue;
		rows++;
		if (c->state == COUNT_INVALID)
			invalid = true;
		if (c->state == COUNT_OK || c->state == COUNT_SCALED) {
			t.value += c->value;
			run += c->running;
			counted++;
			scaled |= c->state == COUNT_SCALED;
		}
	}
	if (invalid)
		t.state = COUNT_INVALID;
	else if (counted)
		t.state = scaled || counted < rows ? COUNT_SCALED : COUNT_OK;
	else if (rows)
		t.state = COUNT_NOT_COUNTED;
	t.running = counted ? run / rows : 0;
	if (invalid)
		t.value = 0;
	*out = t;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* duration.c: parses durations with units into milliseconds. */
#include "duration.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *suffix;
	double ms; /* milliseconds per unit */
} units[] = {
    {"ms", 1}, {"s", 1000}, {"sec", 1000}, {"m", 60000}, {"min", 60000}, {"h", 3600000},
};

int duration_parse_ms(const char *text, long bare_unit_ms, long *out_ms)
{
	char *end;
	/* decimal only: no sign, blank, hex float, nan or inf */
	if (!text || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.') ||
	    strpbrk(text, "xXpP"))
		return -1;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || !isfinite(v) || v < 0)
		return -1;
	double per = (double)bare_unit_ms;
	if (*end) {
		per = -1;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(end, units[i].suffix) == 0)
				per = units[i].ms;
		if (per < 0)
			return -1;
	}
	double ms = v * per;
	if (ms > (double)LONG_MAX / 2 || fabs(ms - nearbyint(ms)) > 1e-6)
		return -1; /* out of range, or not a whole millisecond */
	*out_ms = (long)nearbyint(ms);
	return 0;
}

int duration_parse_sample(const char *text, long *out_ms, long *out_us)
{
	char *end;
	if (text && text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		long us = strtol(text, &end, 10);
		if (strcmp(end, "us") == 0) {
			if (errno || us < DURATION_SAMPLE_US_MIN || us > DURATION_SAMPLE_US_MAX)
				return -2;
			*out_ms = 1;
			*out_us = us;
			return 0;
		}
	}
	if (duration_parse_ms(text, 1, out_ms) < 0)
		return -1;
	*out_us = 0;
	return 0;
}

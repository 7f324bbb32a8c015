/* SPDX-License-Identifier: GPL-2.0-or-later */
/* duration.h: durations as users type them: "500ms", "1s", "2.5s", "1m", or a bare number. */
#ifndef PMUTOP_DURATION_H
#define PMUTOP_DURATION_H

/* Parses @text into whole milliseconds: a number with an optional unit (ms, s, m, h; a bare
 * number is in @bare_unit_ms milliseconds: 1 for -i, 1000 for -d). Returns 0, or -1 when it is
 * not a duration, not a whole number of milliseconds, or out of range. */
int duration_parse_ms(const char *text, long bare_unit_ms, long *out_ms);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* duration.h: durations as users type them: "500ms", "1s", "2.5s", "1m", or a bare number. */
#ifndef PMUTOP_DURATION_H
#define PMUTOP_DURATION_H

/* Parses @text into whole milliseconds: a number with an optional unit (ms, s, m, h; a bare
 * number is in @bare_unit_ms milliseconds: 1 for -i, 1000 for -d). Returns 0, or -1 when it is
 * not a duration, not a whole number of milliseconds, or out of range. */
int duration_parse_ms(const char *text, long bare_unit_ms, long *out_ms);

/* The shortest refresh interval (-i, :interval), and so an agent's shortest tick (ms) */
#define DURATION_REFRESH_MIN_MS 10
/* Why a sampling cadence below it is refused with --remote (the options' and :sample's words) */
#define DURATION_REMOTE_SAMPLE_WHY "a --remote agent samples at its tick, 10 ms at the shortest"

/* The sampling ring's periods below 1 ms (perfring.h) */
#define DURATION_SAMPLE_US_MIN 50
#define DURATION_SAMPLE_US_MAX 999

/* Parses a sampling cadence (--sample, :sample): microseconds below 1 ms ("100us": *out_us
 * from DURATION_SAMPLE_US_MIN to _MAX, *out_ms 1), or a duration as duration_parse_ms with bare
 * milliseconds (*out_us 0). Returns 0, -1 when it is not a duration, -2 when it is in us but out
 * of that range. The cadence's range against the interval is the caller's. */
int duration_parse_sample(const char *text, long *out_ms, long *out_us);

#endif

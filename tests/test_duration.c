/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_duration.c: durations with units ("500ms", "2.5s", "1m") as -i, -d and :interval read them.
 */
#include "duration.h"
#include "harness.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

int main(void)
{
	static const struct {
		int line;
		const char *text;
		long bare_ms; /* unit of a bare number */
		int rc;
		long ms;
	} cases[] = {
	    {__LINE__, "500", 1, 0, 500},      {__LINE__, "500ms", 1, 0, 500},
	    {__LINE__, "1s", 1, 0, 1000},      {__LINE__, "2.5s", 1, 0, 2500},
	    {__LINE__, "0.5s", 1, 0, 500},     {__LINE__, "1m", 1, 0, 60000},
	    {__LINE__, "1min", 1, 0, 60000},   {__LINE__, "1h", 1, 0, 3600000},
	    {__LINE__, "2", 1000, 0, 2000},    {__LINE__, "0.5", 1000, 0, 500},
	    {__LINE__, "250ms", 1000, 0, 250}, {__LINE__, "1.5", 1, -1, 0},
	    {__LINE__, "2.5ms", 1, -1, 0},     {__LINE__, "0.0001", 1000, -1, 0},
	    {__LINE__, "", 1, -1, 0},	       {__LINE__, "s", 1, -1, 0},
	    {__LINE__, "-1s", 1, -1, 0},       {__LINE__, "+1s", 1, -1, 0},
	    {__LINE__, " 1s", 1, -1, 0},       {__LINE__, "1 s", 1, -1, 0},
	    {__LINE__, "1sec", 1, 0, 1000},    {__LINE__, "1d", 1, -1, 0},
	    {__LINE__, "nan", 1, -1, 0},       {__LINE__, "inf", 1, -1, 0},
	    {__LINE__, "1e300h", 1, -1, 0},    {__LINE__, "0x10", 1, -1, 0},
	};
	for (size_t i = 0; i < N(cases); i++) {
		long ms = -7;
		int rc = duration_parse_ms(cases[i].text, cases[i].bare_ms, &ms);
		CHECK(rc == cases[i].rc, "line %d: \"%s\" -> rc %d", cases[i].line, cases[i].text,
		      rc);
		if (rc == 0 && cases[i].rc == 0)
			CHECK(ms == cases[i].ms, "line %d: \"%s\" -> %ld ms, want %ld",
			      cases[i].line, cases[i].text, ms, cases[i].ms);
		if (rc != 0)
			CHECK(ms == -7, "line %d: a refused duration leaves the output alone",
			      cases[i].line);
	}
	/* sampling cadences: microseconds below 1 ms, or milliseconds as above */
	static const struct {
		int line;
		const char *text;
		int rc;
		long ms, us;
	} samples[] = {
	    {__LINE__, "100us", 0, 1, 100}, {__LINE__, "50us", 0, 1, 50},
	    {__LINE__, "999us", 0, 1, 999}, {__LINE__, "49us", -2, 0, 0},
	    {__LINE__, "1000us", -2, 0, 0}, {__LINE__, "5", 0, 5, 0},
	    {__LINE__, "5ms", 0, 5, 0},	    {__LINE__, "0.5s", 0, 500, 0},
	    {__LINE__, "us", -1, 0, 0},	    {__LINE__, "1.5us", -1, 0, 0},
	    {__LINE__, "-100us", -1, 0, 0}, {__LINE__, "100 us", -1, 0, 0},
	};
	for (size_t i = 0; i < N(samples); i++) {
		long ms = -7, us = -7;
		int rc = duration_parse_sample(samples[i].text, &ms, &us);
		CHECK(rc == samples[i].rc, "line %d: \"%s\" -> rc %d", samples[i].line,
		      samples[i].text, rc);
		if (rc == 0 && samples[i].rc == 0)
			CHECK(ms == samples[i].ms && us == samples[i].us,
			      "line %d: \"%s\" -> %ld ms %ld us", samples[i].line, samples[i].text,
			      ms, us);
	}
	return harness_done();
}

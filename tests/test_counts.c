/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_counts.c: delta, wrap, scaling and state rules, table-driven. */
#include "counts.h"
#include "cpuset.h"
#include "family.h"
#include "harness.h"
#include "platform.h"

static const struct {
	int line;
	struct raw_count prev, cur;
	unsigned width;
	double value, running;
	enum count_state state;
} delta_cases[] = {
    {__LINE__, {100, 1000, 1000}, {300, 2000, 2000}, 64, 200, 1.0, COUNT_OK},
    {__LINE__, {100, 1000, 1000}, {300, 2000, 1500}, 64, 400, 0.5, COUNT_SCALED},
    {__LINE__, {100, 1000, 1000}, {100, 2000, 1000}, 64, 0, 0, COUNT_NOT_COUNTED},
    {__LINE__, {100, 1000, 1000}, {100, 1000, 1000}, 64, 0, 0, COUNT_NOT_COUNTED},
    {__LINE__, {0xfffffff0u, 0, 0}, {0x10, 10, 10}, 32, 0x20, 1.0, COUNT_OK},
    {__LINE__, {0xfffffffffff0ull, 0, 0}, {0x10, 10, 10}, 48, 0x20, 1.0, COUNT_OK},
    {__LINE__, {500, 0, 0}, {400, 10, 10}, 64, 0, 0, COUNT_INVALID},
    /* a 32-bit counter advancing 2^31..2^32-1 in one tick is a count (a 3 GHz core in 1 s
     * counts 3e9 cycles), not a counter going back */
    {__LINE__, {0x10, 0, 0}, {0xfffffff0u, 10, 10}, 32, 0xffffffe0u, 1.0, COUNT_OK},
    {__LINE__, {0, 0, 0}, {3000000000u, 10, 10}, 32, 3e9, 1.0, COUNT_OK},
    {__LINE__, {0x7fffffffu, 0, 0}, {0xffffffffu, 10, 10}, 32, 0x80000000u, 1.0, COUNT_OK},
    {__LINE__, {1, 10, 10}, {2, 5, 5}, 64, 0, 0, COUNT_INVALID},
    {__LINE__, {0, 0, 0}, {10, 100, 101}, 64, 10, 1.0, COUNT_OK},
};

static const struct {
	int line;
	const char *text;
	int ok;
	int count;
	const char *formatted;
} cpulist_cases[] = {
    {__LINE__, "0-3", 1, 4, "0-3"},  {__LINE__, "0-3,8,10-11\n", 1, 7, "0-3,8,10-11"},
    {__LINE__, "", 1, 0, ""},	     {__LINE__, "5", 1, 1, "5"},
    {__LINE__, "1,0", 1, 2, "0-1"},  {__LINE__, "3-1", 0, 0, NULL},
    {__LINE__, "a", 0, 0, NULL},     {__LINE__, "1,,2", 0, 0, NULL},
    {__LINE__, "1-", 0, 0, NULL},    {__LINE__, "99999", 0, 0, NULL},
    {__LINE__, "0 - 1", 0, 0, NULL},
};

int main(void)
{
	for (size_t i = 0; i < sizeof(delta_cases) / sizeof(delta_cases[0]); i++) {
		struct count c;
		count_delta(&delta_cases[i].prev, &delta_cases[i].cur, delta_cases[i].width, &c);
		CHECK(c.state == delta_cases[i].state, "line %d: state %s", delta_cases[i].line,
		      count_state_name(c.state));
		CHECK_NEAR(c.value, delta_cases[i].value, 1e-9);
		CHECK_NEAR(c.running, delta_cases[i].running, 1e-9);
	}
	for (size_t i = 0; i < sizeof(cpulist_cases) / sizeof(cpulist_cases[0]); i++) {
		struct cpuset s;
		char err[128] = "", buf[128];
		int rc = cpuset_parse(&s, cpulist_cases[i].text, err, sizeof(err));
		CHECK((rc == 0) == cpulist_cases[i].ok, "line %d: \"%s\" rc=%d %s",
		      cpulist_cases[i].line, cpulist_cases[i].text, rc, err);
		if (rc == 0 && cpulist_cases[i].ok) {
			CHECK_INT(cpuset_count(&s), cpulist_cases[i].count);
			CHECK_STR(cpuset_format(&s, buf, sizeof(buf)), cpulist_cases[i].formatted);
		}
		if (!cpulist_cases[i].ok)
			CHECK(err[0] != '\0', "line %d: error message set", cpulist_cases[i].line);
	}
	/* the platform line's "interval ok" bound is what count_delta accepts: a 32-bit counter
	 * at 2.6 GHz wraps after 1.65 s; every interval it calls ok gives a valid delta */
	struct platform_pmu p = {.family = family_find("xscale1"), .max_khz = 2600000};
	for (long ms = 100; ms <= 3000; ms += 100) {
		char note[240];
		platform_wrap_note(&p, ms, note, sizeof(note));
		bool said_ok = strstr(note, "s ok") != NULL;
		struct raw_count a = {0x1234, 0, 0}, b = {0, 1000, 1000};
		double cycles = 2.6e9 * (double)ms / 1e3;
		b.value = (a.value + (uint64_t)cycles) & 0xffffffffu;
		struct count c;
		count_delta(&a, &b, 32, &c);
		bool valid = c.state == COUNT_OK && c.value == (double)(uint64_t)cycles;
		CHECK(said_ok == (cycles < 4294967296.0), "%ld ms: %s", ms, note);
		CHECK(!said_ok || valid, "%ld ms called ok, but %.0f cycles read as %s %.0f", ms,
		      cycles, count_state_name(c.state), c.value);
	}
	CHECK_INT(count_state_parse("not_counted"), COUNT_NOT_COUNTED);
	CHECK_INT(count_state_parse("bogus"), -1);
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_counts.c: delta, wrap, scaling and state rules, table-driven. */
#include "counts.h"
#include "cpuset.h"
#include "harness.h"

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
    {__LINE__, {0x10, 0, 0}, {0xfffffff0u, 10, 10}, 32, 0, 0, COUNT_INVALID},
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
	CHECK_INT(count_state_parse("not_counted"), COUNT_NOT_COUNTED);
	CHECK_INT(count_state_parse("bogus"), -1);
	return harness_done();
}

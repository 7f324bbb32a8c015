/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset.h: fixed-size CPU bitmaps and the "0-3,8,10-11" list syntax of sysfs and -C. */
#ifndef PMUTOP_CPUSET_H
#define PMUTOP_CPUSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 4096 /* CPUs */

struct cpuset {
	uint64_t bits[CPUSET_MAX / 64];
};

void cpuset_clear(struct cpuset *s);
void cpuset_add(struct cpuset *s, int cpu);
void cpuset_del(struct cpuset *s, int cpu);
bool cpuset_has(const struct cpuset *s, int cpu);
int cpuset_count(const struct cpuset *s);
/* Next member >= @from, or -1. */
int cpuset_next(const struct cpuset *s, int from);
#define cpuset_for_each(cpu, s)                                                                    \
	for ((cpu) = cpuset_next((s), 0); (cpu) >= 0; (cpu) = cpuset_next((s), (cpu) + 1))
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);

/* Parses "0-3,8,10-11" (whitespace and a trailing newline allowed; "" is empty).
 * Returns 0, or -1 with a message in @err. */
int cpuset_parse(struct cpuset *s, const char *text, char *err, size_t errlen);
/* Writes the list form ("0-3,8"); returns @buf. */
char *cpuset_format(const struct cpuset *s, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset.c: CPU bitmaps and CPU-list parsing. */
#include "cpuset.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpuset_clear(struct cpuset *s) { memset(s, 0, sizeof(*s)); }

void cpuset_add(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < CPUSET_MAX)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

void cpuset_del(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < CPUSET_MAX)
		s->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

bool cpuset_has(const struct cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

int cpuset_count(const struct cpuset *s)
{
	int n = 0;
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int cpuset_next(const struct cpuset *s, int from)
{
	if (from < 0)
		from = 0;
	for (int w = from / 64; w < CPUSET_MAX / 64; w++) {
		uint64_t word = s->bits[w];
		if (w == from / 64)
			word &= ~0ULL << (from % 64);
		if (word)
			return w * 64 + __builtin_ctzll(word);
	}
	return -1;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

static int parse_cpu_number(const char **p, long *out, char *err, size_t errlen)
{
	if (!isdigit((unsigned char)**p)) {
		snprintf(err, errlen, "expected a CPU number at \"%.16s\"", *p);
		return -1;
	}
	char *end;
	errno = 0;
	long v = strtol(*p, &end, 10);
	if (errno || v >= CPUSET_MAX) {
		snprintf(err, errlen, "CPU number out of range (0-%d) at \"%.16s\"", CPUSET_MAX - 1,
			 *p);
		return -1;
	}
	*out = v;
	*p = end;
	return 0;
}

int cpuset_parse(struct cpuset *s, const char *text, char *err, size_t errlen)
{
	struct cpuset tmp;
	cpuset_clear(&tmp);
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0') {
		*s = tmp;
		return 0;
	}
	for (;;) {
		long lo, hi;
		if (parse_cpu_number(&p, &lo, err, errlen) < 0)
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu_number(&p, &hi, err, errlen) < 0)
				return -1;
			if (hi < lo) {
				snprintf(err, errlen, "descending CPU range %ld-%ld", lo, hi);
				return -1;
			}
		}
		for (long c = lo; c <= hi; c++)
			cpuset_add(&tmp, (int)c);
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		if (*p != ',') {
			snprintf(err, errlen, "unexpected \"%c\" in CPU list", *p);
			return -1;
		}
		p++;
	}
	*s = tmp;
	return 0;
}

char *cpuset_format(const struct cpuset *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	int c = cpuset_next(s, 0);
	while (c >= 0 && used < len) {
		int end = c;
		while (cpuset_has(s, end + 1))
			end++;
		int n = (end > c)
			    ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, end)
			    : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		c = cpuset_next(s, end + 1);
	}
	return buf;
}

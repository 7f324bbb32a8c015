/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_cpulist.c: cpuset_parse of CPU lists, and the round trip parse(format(parse(x))) ==
 * parse(x). */
#include "cpuset.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 2000000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	static struct cpuset a, b;
	static char out[CPUSET_MAX * 6], out2[CPUSET_MAX * 6];
	char err[256] = "";
	memset(&a, 0xa5, sizeof(a));
	if (cpuset_parse(&a, text, err, sizeof(err)) == 0) {
		cpuset_format(&a, out, sizeof(out));
		FUZZ_ASSERT(strlen(out) < sizeof(out));
		err[0] = '\0';
		FUZZ_ASSERT(cpuset_parse(&b, out, err, sizeof(err)) == 0);
		FUZZ_ASSERT(cpuset_equal(&a, &b));
		cpuset_format(&b, out2, sizeof(out2));
		FUZZ_ASSERT(strcmp(out, out2) == 0);
		/* count and iteration agree */
		int cpu, n = 0, last = -1;
		cpuset_for_each(cpu, &a)
		{
			FUZZ_ASSERT(cpu > last && cpu < CPUSET_MAX && cpuset_has(&a, cpu));
			last = cpu;
			n++;
		}
		FUZZ_ASSERT(n == cpuset_count(&a));
		/* a short buffer still gets a terminated string */
		char small[8];
		cpuset_format(&a, small, sizeof(small));
		FUZZ_ASSERT(memchr(small, '\0', sizeof(small)) != NULL);
	} else {
		FUZZ_ASSERT(err[0] != '\0');
		FUZZ_ASSERT(memchr(err, '\0', sizeof(err)) != NULL);
	}
	free(text);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c: the probe engine alone, built for a 32-bit address space by tests/e2e_probe32.sh. */
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Usage: probe32 [MAX_SIZE]; prints key=value lines, exit 1 when the probe fails. */
int main(int argc, char **argv)
{
	struct probe_opts o = {.cpu = 0, /* the CPU that stays online while others are unplugged */
			       .quick = true,
			       .phases = PROBE_SIZES | PROBE_LINE,
			       .rounds = 3,
			       .budget_s = 2};
	char err[200];
	size_t max = 0;

	printf("size_t_bits=%zu\n", sizeof(size_t) * 8);
	printf("cap=%zu\n", probe_max_working_set_here());
	/* the memory this program is told of (bytes): under qemu-user a 32-bit sysinfo clamps it */
	printf("ram=%.0f\n", (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE));
	if (argc > 1 && probe_parse_size(argv[1], &max, err, sizeof(err)) < 0) {
		printf("error=%s\n", err);
		return 2;
	}
	o.max_size = max;
	struct probe *p = probe_new(&o, err, sizeof(err));
	if (!p) {
		printf("error=%s\n", err);
		return 1;
	}
	int rc;
	while ((rc = probe_step(p, 50)) > 0)
		;
	const struct probe_result *r = probe_result(p);
	printf("rc=%d\nmax_size=%.0f\nnpoints=%d\nlevels=%d\nline_rounds=%d\n", rc, r->max_size,
	       r->npoints, r->nlevels, r->line_rounds);
	if (rc < 0)
		printf("error=%s\n", probe_error(p));
	probe_free(p);
	return rc < 0;
}

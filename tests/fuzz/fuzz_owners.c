/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_owners.c: owners_parse of ownership dumps; what reads back prints terminal-safe and
 * writes a dump that reads back to the same owners. */
#include "fuzz.h"
#include "owners.h"
#include <math.h>

const unsigned long fuzz_default_runs = 60000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct owners o = {0}, back = {0};
	char err[256];
	if (owners_parse(&o, (const char *)data, size, "fuzz.json", err, sizeof(err)) < 0) {
		FUZZ_ASSERT(strncmp(err, "fuzz.json", 9) == 0);
		FUZZ_ASSERT(o.n == 0);
		return 0;
	}
	FUZZ_ASSERT(o.source == OWNERS_FIXTURE);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FUZZ_ASSERT(f);
	owners_write_text(f, &o);
	char sum[2048];
	owners_summary(&o, "cpi", 0.5, sum, sizeof(sum));
	fputs(sum, f);
	fclose(f);
	for (char *p = text; *p; p++) /* lines apart, every byte is printable */
		if (*p == '\n')
			*p = ' ';
	FUZZ_ASSERT(fuzz_printable(text));
	free(text);
	/* the dump reads back to the same owners */
	text = NULL;
	f = open_memstream(&text, &len);
	FUZZ_ASSERT(f);
	owners_write_json(f, &o);
	fclose(f);
	FUZZ_ASSERT(owners_parse(&back, text, len, "back.json", err, sizeof(err)) == 0);
	FUZZ_ASSERT(back.n == o.n);
	for (int i = 0; i < o.n; i++) {
		FUZZ_ASSERT(back.ev[i].kind == o.ev[i].kind && back.ev[i].pid == o.ev[i].pid &&
			    back.ev[i].cpu == o.ev[i].cpu && back.ev[i].counter == o.ev[i].counter);
		FUZZ_ASSERT(strcmp(back.ev[i].comm, o.ev[i].comm) == 0);
	}
	free(text);
	owners_free(&back);
	owners_free(&o);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_evlist.c: evlist_parse of event lists (-e, :add, define) and the lists it formats back. */
#include "evlist.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 200000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct evlist_item items[EVLIST_MAX_ITEMS], back[EVLIST_MAX_ITEMS];
	char *list = fuzz_strndup(data, size);
	char err[256] = "", text[EVLIST_MAX_ITEMS * (EVLIST_NAME_MAX + EVLIST_SPEC_MAX + 4)];
	int col = -1;
	int n = evlist_parse(list, items, EVLIST_MAX_ITEMS, &col, err, sizeof(err));
	if (n < 0) {
		FUZZ_ASSERT(col >= 1 && (size_t)col <= strlen(list) + 1);
		FUZZ_ASSERT(strncmp(err, "column ", 7) == 0);
	} else {
		FUZZ_ASSERT(n <= EVLIST_MAX_ITEMS);
		for (int i = 0; i < n; i++) {
			FUZZ_ASSERT(memchr(items[i].spec, '\0', sizeof(items[i].spec)));
			FUZZ_ASSERT(items[i].column >= 1 &&
				    (size_t)items[i].column <= strlen(list));
			FUZZ_ASSERT(items[i].group >= 0 && items[i].group <= n);
		}
		/* a list formatted back parses to the same specs and groups */
		if (evlist_format(items, n, text, sizeof(text)) == 0) {
			int m = evlist_parse(text, back, EVLIST_MAX_ITEMS, NULL, err, sizeof(err));
			FUZZ_ASSERT(m == n);
			for (int i = 0; i < n && i < m; i++) {
				FUZZ_ASSERT(strcmp(back[i].spec, items[i].spec) == 0);
				FUZZ_ASSERT((back[i].group != 0) == (items[i].group != 0));
			}
		}
	}
	free(list);
	return 0;
}

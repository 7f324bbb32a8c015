/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tasktop.c: tasktop_parse_stat of /proc/PID/task/TID/stat lines and tasktop_escape. */
#include "fuzz.h"
#include "tasktop.h"

const unsigned long fuzz_default_runs = 1000000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tasktop_stat st;
	memset(&st, 0, sizeof(st));
	const char *line = (const char *)data; /* nothing after the @size bytes (guard page) */
	if (tasktop_parse_stat(line, size, &st) == 0) {
		FUZZ_ASSERT(st.tid > 0);
		FUZZ_ASSERT(memchr(st.comm, '\0', sizeof(st.comm)) != NULL);
		char out[TASKTOP_COMM_MAX];
		tasktop_escape(st.comm, strlen(st.comm), out, sizeof(out));
		FUZZ_ASSERT(memchr(out, '\0', sizeof(out)) && fuzz_printable(out));
	}
	/* escape the raw input at a few output sizes */
	static char out[4 * 4096 + 8];
	static const size_t lens[] = {1, 3, 17, TASKTOP_COMM_MAX, sizeof(out)};
	size_t n = size < 4096 ? size : 4096;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(out, 'Z', sizeof(out));
		tasktop_escape((const char *)data, n, out, lens[i]);
		FUZZ_ASSERT(memchr(out, '\0', lens[i]) && fuzz_printable(out));
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_watchcap.c: the header's capability line (the guard's line, the first owners line, the
 * machine's capability) is the text snprintf makes of the same pieces, cut at every buffer
 * length. */
#include "frame.h"
#include "harness.h"
#include "watch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line as one snprintf per piece makes it (the reference). */
static void reference(const struct frame *f, const char *base, char *buf, size_t len)
{
	size_t u = 0;
	buf[0] = 0;
	if (f && f->guard_line[0])
		u += (size_t)snprintf(buf + u, len - u, "%s", f->guard_line);
	if (f && f->owners_lines[0] && u < len) {
		size_t n = strcspn(f->owners_lines, "\n");
		u += (size_t)snprintf(buf + u, len - u, "%s%.*s%s", u ? "; " : "", (int)n,
				      f->owners_lines, f->owners_lines[n] ? " (more: W)" : "");
	}
	if (base && base[0] && u < len)
		snprintf(buf + u, len - u, "%s%s", u ? "; " : "", base);
}

int main(void)
{
	static const char *const guards[] = {"", "guard: CPU 1 counts 0", "g"};
	static const char *const owners[] = {"", "nmi_watchdog holds a counter",
					     "perf (pid 42) holds 2\nmore lines"};
	static const char *const bases[] = {NULL, "", "per-CPU system-wide counting allowed (root)",
					    "x"};
	static struct frame f;
	int cases = 0, bad = 0;
	for (size_t g = 0; g < 3; g++)
		for (size_t o = 0; o < 3; o++)
			for (size_t b = 0; b < 4; b++)
				for (size_t len = 1; len <= 90; len++) {
					snprintf(f.guard_line, sizeof(f.guard_line), "%s",
						 guards[g]);
					snprintf(f.owners_lines, sizeof(f.owners_lines), "%s",
						 owners[o]);
					char want[96], got[96];
					memset(got, 'Z', sizeof(got));
					reference(g + o ? &f : NULL, bases[b], want, len);
					const char *r =
					    watch_capability(g + o ? &f : NULL, bases[b], got, len);
					cases++;
					if (r != got || strcmp(want, got) != 0) {
						if (bad++ < 5)
							CHECK(0,
							      "guard %zu owners %zu base %zu len "
							      "%zu: "
							      "\"%s\", want \"%s\"",
							      g, o, b, len, got, want);
					}
				}
	CHECK(bad == 0, "%d of %d lines differ", bad, cases);
	return harness_done();
}

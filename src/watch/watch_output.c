/* SPDX-License-Identifier: GPL-2.0-or-later */
/* watch_output.c: the counters view's lines and the capability line of the guard and the map. */
#include "guard.h"
#include "output.h"
#include "owners.h"
#include "textutil.h"
#include "watch.h"
#include <stdlib.h>
#include <string.h>

void watch_lines(const struct app_ctx *app, const struct frame *f,
		 void (*add)(void *ctx, bool title, const char *line), void *ctx)
{
	char line[512];
	/* the listing and the flags as the run has them now (a held frame keeps its lines) */
	const struct owners *o = watch_owners(app);
	const struct guard *g = watch_guard(app);
	/* the counts held invalid first: few lines, and they say which numbers to distrust */
	const struct guard_flag *flags;
	int n = g ? guard_flags(g, &flags) : 0;
	snprintf(line, sizeof(line), "Counts held invalid: %d (%llu raised since the start)", n,
		 g ? (unsigned long long)guard_raised(g) : 0ULL);
	add(ctx, true, line);
	for (int i = 0; i < n; i++) {
		char cpu[16];
		snprintf(cpu, sizeof(cpu), flags[i].cpu < 0 ? "all" : "%d", flags[i].cpu);
		snprintf(line, sizeof(line), "  CPU %-4s %-16s %-10s %s", cpu, flags[i].name,
			 guard_reason_name(flags[i].reason), flags[i].text);
		add(ctx, false, line);
	}
	add(ctx, false, "");
	if (!o) {
		add(ctx, true, "Who holds the counters");
		add(ctx, false,
		    f && (f->caps & SOURCE_CAP_THIS_MACHINE)
			? "  reading the ownership map ..."
			: "  not known: the counts are recorded or simulated (--list-owners on the "
			  "machine itself, or --owners-from FILE)");
	} else {
		snprintf(line, sizeof(line), "Who holds the counters (source %s: %s)",
			 owners_source_name(o->source), o->note);
		add(ctx, true, line);
		for (const char *l = f->owners_lines; *l;) {
			size_t n = strcspn(l, "\n");
			snprintf(line, sizeof(line), "  %.*s", (int)(n < 500 ? n : 500), l);
			add(ctx, false, line);
			l += n + (l[n] == '\n');
		}
		if (!f->owners_lines[0])
			add(ctx, false, "  no other holder: pmutop has the counters to itself");
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			owners_write_text(m, o);
			fclose(m);
		}
		bool first = true;
		for (char *p = text, *save = NULL, *l = p ? strtok_r(p, "\n", &save) : NULL; l;
		     l = strtok_r(NULL, "\n", &save)) {
			if (first) { /* "# owners: source ..." said above */
				first = false;
				continue;
			}
			add(ctx, false, l);
		}
		free(text);
	}
}

const char *watch_capability(const struct frame *f, const char *base, char *buf, size_t len)
{
	/* what the guard and the map found first: they explain the numbers below */
	size_t u = 0;
	buf[0] = 0;
	if (f && f->guard_line[0])
		u += (size_t)snprintf(buf + u, len - u, "%s", f->guard_line);
	if (f && f->owners_lines[0] && u < len) {
		size_t n = strcspn(f->owners_lines, "\n");
		u += (size_t)snprintf(buf + u, len - u, "%s%.*s%s", u ? "; " : "", (int)n,
				      f->owners_lines, f->owners_lines[n] ? " (more: W)" : "");
	}
	if (base && base[0] && u < len) /* snprintf's "%s%s", cut as it cuts (once a frame) */
		text_cat(buf, len, text_cat(buf, len, u, u ? "; " : ""), base);
	return buf;
}

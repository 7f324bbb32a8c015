/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output_watch.c: the guard's invalid counts and the ownership map the frame carries, in batch
 * JSON and text. */
#include "frame.h"
#include "guard.h"
#include "output.h"
#include "owners.h"
#include "textutil.h"
#include <stdlib.h>
#include <string.h>

/* Writes @lines ("a\nb") as array elements. */
static void lines_json(struct output_json *w, const char *lines)
{
	while (lines && *lines) {
		size_t n = strcspn(lines, "\n");
		char one[512];
		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1),
			 lines);
		output_json_string(w, NULL, one);
		lines += n + (lines[n] == '\n');
	}
}

void output_watch_json(struct output_json *w, const struct frame *f)
{
	if (!f)
		return;
	const struct guard_flag *flags;
	int n = f->guard ? guard_flags(f->guard, &flags) : 0;
	if (n > 0) {
		output_json_array(w, "invalid");
		for (int i = 0; i < n; i++) {
			output_json_object(w, NULL);
			if (flags[i].cpu >= 0)
				output_json_int(w, "cpu", flags[i].cpu);
			else
				output_json_string(w, "cpu", "total");
			output_json_string(w, "event", flags[i].name);
			output_json_string(w, "reason", guard_reason_name(flags[i].reason));
			output_json_string(w, "message", flags[i].text);
			output_json_end(w);
		}
		output_json_end(w);
	}
	if (f->owners) {
		output_json_object(w, "owners");
		output_json_string(w, "source", owners_source_name(f->owners->source));
		output_json_int(w, "events", f->owners->n);
		output_json_array(w, "holders");
		lines_json(w, f->owners_lines);
		output_json_end(w);
		output_json_end(w);
	}
}

void output_watch_text(FILE *out, const struct frame *f)
{
	if (!f)
		return;
	if (f->guard_line[0])
		text_fprintf(out, "%s\n", f->guard_line);
	for (const char *l = f->owners_lines; *l;) {
		size_t n = strcspn(l, "\n");
		text_fprintf(out, "owner: %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

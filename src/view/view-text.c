/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view-text.c: the text views (help, messages, the probe's report, spikes): the lines the screen
 * gives (view_input.text), scrolled. */
#include "theme.h"
#include "views.h"

static int draw_text(struct canvas *c, int top, int bottom, const struct view_lines *t,
		     struct view_state *vs)
{
	int room = bottom - top;
	if (vs->scroll > t->n - room)
		vs->scroll = t->n - room;
	if (vs->scroll < 0)
		vs->scroll = 0;
	int y = top;
	for (int i = vs->scroll; i < t->n && y < bottom; i++, y++)
		views_put_line(c, y, t->roles ? t->roles[i] : ROLE_HELP_TEXT, 0, CANVAS_ELLIPSIS,
			       t->lines[i]);
	return y;
}

static void view_text(struct canvas *c, int top, int bottom, const struct view_input *in,
		      struct view_state *vs)
{
	draw_text(c, top, bottom, &in->text, vs);
}

const struct view_def view_help_def = {"help", "commands and keys", view_text};
const struct view_def view_messages_def = {"messages", "the message log", view_text};
const struct view_def view_probe_def = {"probe", "the cache probe's report", view_text};
const struct view_def view_spikes_def = {"spikes", "the spike log", view_text};
const struct view_def view_counters_def = {
    "counters", "who holds the PMU counters per CPU; counts held invalid", view_text};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view-offcore.c: the offcore view: per row, a bar of the shares of the request-type bits; a
 * legend with each bit's rate, share and age. */
#include "output.h"
#include "theme.h"
#include "views.h"
#include <math.h>
#include <stdio.h>

#define CPU_COL key_col /* the key column's width, the separating blank included */

/* The offcore bars: one character per request-type bit, distinct without colour too (mono
 * theme, NO_COLOR); ASCII mode uses the bit's letter. The legend shows the same ones. */
static const char *const bit_glyphs[16] = {"█", "▓", "▒", "░", "▞", "▚", "▙", "▟",
					   "▛", "▜", "▌", "▐", "▖", "▗", "▘", "▝"};

static int draw_offcore(struct canvas *c, int top, int bottom, const struct view_input *in)
{
	if (in->nbits <= 0) {
		canvas_putx(c, 0, top, ROLE_MESSAGE_INFO, 0, -1, CANVAS_ELLIPSIS,
			    "no offcore breakdown in this mode (:mode offcore on Intel; o returns "
			    "to the table)");
		return top + 1;
	}
	int y = top;
	canvas_putx(c, 0, y++, ROLE_TITLE, CANVAS_BOLD, -1, CANVAS_ELLIPSIS,
		    "offcore requests by request-type bit (share of measured requests)");
	const struct snapshot *snap = in->snap;
	int key_col = views_key_width(in);
	int barw = c->w - CPU_COL - 1;
	for (int r = 0; snap && r < snapshot_cpu_rows(snap) && y < bottom - 2; r++) {
		views_put_key(c, y, in, r);
		struct canvas_segment segs[64];
		int n = 0;
		for (int b = 0; b < in->nbits && n < 64; b++) {
			double share = in->row_bit_share ? in->row_bit_share[r * in->nbits + b] : 0;
			segs[n++] =
			    (struct canvas_segment){ROLE_BAR_0 + (b % 16), isnan(share) ? 0 : share,
						    (char)('A' + (b % 26)), bit_glyphs[b % 16]};
		}
		canvas_stacked_bar(c, CPU_COL, y, barw, segs, n);
		y++;
	}
	/* legend with rate and age */
	int x = 0;
	int colw = 44;
	for (int b = 0; b < in->nbits && y < bottom; b++) {
		char line[96], rate[32], age[16], share[16] = "     -";
		output_format_si(in->bit_rate ? in->bit_rate[b] : NAN, rate, sizeof(rate));
		if (!in->bit_age || in->bit_age[b] < 0)
			snprintf(age, sizeof(age), "never");
		else
			snprintf(age, sizeof(age), "%dt ago", in->bit_age[b]);
		/* no share: the ANY bit (it is the whole) or a bit not measured yet */
		if (in->bit_share && !isnan(in->bit_share[b]))
			snprintf(share, sizeof(share), "%5.1f%%", in->bit_share[b] * 100);
		snprintf(line, sizeof(line), "%c %-15.15s %7s/s %s %s", 'A' + (b % 26),
			 in->bit_names[b], rate, share, age);
		char letter[2] = {(char)('A' + (b % 26)), '\0'};
		canvas_put(c, x, y, ROLE_BAR_0 + (b % 16), c->ascii ? letter : bit_glyphs[b % 16]);
		canvas_putx(c, x + 2, y, ROLE_LEGEND, 0, colw - 3, CANVAS_ELLIPSIS, line + 2);
		x += colw;
		if (x + colw > c->w) {
			x = 0;
			y++;
		}
	}
	return y + 1;
}

static void view_offcore(struct canvas *c, int top, int bottom, const struct view_input *in,
			 struct view_state *vs)
{
	(void)vs;
	draw_offcore(c, top, bottom, in);
}

const struct view_def view_offcore_def = {"offcore", "offcore requests by request-type bit",
					  view_offcore};

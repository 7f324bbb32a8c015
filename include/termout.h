/* SPDX-License-Identifier: GPL-2.0-or-later */
/* termout.h: the screen's output: a canvas sent to the terminal as its changed cells, one write. */
#ifndef PMUTOP_TERMOUT_H
#define PMUTOP_TERMOUT_H
#include "canvas.h"
#include <stdbool.h>
#include <stddef.h>

/* How a role is shown: colours (-1: the terminal's default) and enum theme_attr bits. */
struct termout_style {
	int fg, bg;
	unsigned attr;
};

struct termout;

/* Terminfo strings are kept as the bytes tputs made of them the first time, and a changed row
 * is compared from its first to its last changed cell; false: made and compared every time
 * (tests: the bytes sent must be the same). */
extern bool termout_fast_path;

/* Whether the current terminal (set up by curses) can address its cursor: frames are sent as
 * cursor moves, so a terminal without them (TERM=dumb, a printing terminal) cannot show one. */
bool termout_usable(void);
struct termout *termout_new(void);
void termout_free(struct termout *t);
/* The terminal's contents are unknown (a resize, a redraw, a resumed job): the next frame
 * clears the screen and sends every cell. */
void termout_invalidate(struct termout *t);
/* Sends what changed in @c since the last frame (everything after termout_invalidate) to @fd
 * in one write (the cells compared are those written since the last frame, canvas_written; each
 * row sent is marked canvas_sent, so a canvas has one termout): cursor moves, attributes and
 * colours from the terminal's terminfo entry (the current one: curses has set it up), @styles per
 * role (@nstyles of them; a cell's own attr bits are added). Ends with the cursor at (@cur_y,
 * @cur_x) when @cur_y >= 0. Returns the bytes written, or -1 when the write failed (errno set). */
long termout_frame(struct termout *t, struct canvas *c, const struct termout_style *styles,
		   int nstyles, int cur_y, int cur_x, int fd);

#endif

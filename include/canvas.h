/* SPDX-License-Identifier: GPL-2.0-or-later */
/* canvas.h: an in-memory grid of styled character cells that views draw into (curses-free). */
#ifndef PMUTOP_CANVAS_H
#define PMUTOP_CANVAS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Attribute flags of a cell (also used by theme styles). */
enum canvas_attr {
	CANVAS_BOLD = 1 << 0,
	CANVAS_DIM = 1 << 1,
	CANVAS_REVERSE = 1 << 2,
	CANVAS_UNDERLINE = 1 << 3,
	CANVAS_ITALIC = 1 << 4,
};

/* Flags of canvas_putx(). */
enum canvas_put_flags {
	CANVAS_ELLIPSIS = 1 << 0,    /* cut text ends in "…" ("~" in ASCII mode) */
	CANVAS_ALIGN_RIGHT = 1 << 1, /* right-align within @maxw columns */
};

/* A cell's text at most, its NUL included (a character's combining marks past it are dropped). */
#define CANVAS_CELL_BYTES 12
#define CANVAS_CH_BYTES 5  /* text held in the cell itself, its NUL included */
#define CANVAS_LONG '\xff' /* ch[0] of a cell whose text is in the canvas's table */

/* Eight bytes: 200x60 cells are 94 KiB, and a frame's compares and writes touch half the cache
 * lines 16-byte cells did. */
struct canvas_cell {
	char ch[CANVAS_CH_BYTES]; /* UTF-8 of one character (+ combining marks) when shorter than
				     CANVAS_CH_BYTES; "" = right half of a wide character in the
				     cell to the left; CANVAS_LONG, then the 16-bit index (low
				     byte first) of a longer text in the canvas's table: use
				     canvas_cell_text() */
	uint8_t role;		  /* colour role id (enum theme_role, < 256) */
	uint8_t attr;		  /* enum canvas_attr, added to the role's style */
	uint8_t width;		  /* columns: 1, 2 (wide), 0 (continuation) */
};

/* Of a row: the columns [lo, hi) of every cell stored in it since canvas_sent() (lo >= hi: none;
 * every write to a cell widens them, so the cells outside are as last sent), and the column from
 * which its cells are blank (role 0) since it was last blanked. */
struct canvas_written {
	uint16_t lo, hi, end;
};

struct canvas {
	int w, h;		   /* columns, rows */
	bool ascii;		   /* helpers draw ASCII instead of block/box characters */
	struct canvas_cell *cells; /* h rows of w cells */
	unsigned char *used;  /* per row: written since the last clear (only those are cleared) */
	unsigned char *fresh; /* per row: written (or kept) in this frame */
	uint64_t *key;	      /* per row: the key it was drawn with (canvas_keep), 0: none */
	uint64_t *span;	      /* per row, CANVAS_SPANS keys of its spans (canvas_keep_span) */
	struct canvas_written *written; /* per row */
	/* texts too long for a cell (a character with combining marks), each once: a cell holds
	 * its index, so equal cells show equal texts; kept for the canvas's life (resizes too) */
	char (*longs)[CANVAS_CELL_BYTES];
	int nlongs, longs_cap;
};
#define CANVAS_LONGS_MAX 4096 /* texts in the table at most; past it, marks are dropped */
#define CANVAS_SPANS 40	      /* spans of a kept row that can be kept on their own */

/* Segment of a stacked bar: a fraction of the bar's width in a colour role. */
struct canvas_segment {
	int role;
	double frac;	   /* 0..1, of the whole bar */
	char ascii;	   /* character in ASCII mode (0: '#') */
	const char *glyph; /* UTF-8 character otherwise (NULL: a full block) */
};

/* A canvas of w x h blank cells (role 0), or NULL when out of memory. */
struct canvas *canvas_new(int w, int h);
/* Resizes to w x h and clears; returns 0, or -1 (canvas unchanged) when out of memory. */
int canvas_resize(struct canvas *c, int w, int h);
void canvas_free(struct canvas *c);
/* Blank cells, role 0, no attributes; no row is kept. */
void canvas_clear(struct canvas *c);
/*
 * Rows kept between frames. A frame starts with canvas_begin (it blanks the rows written in the
 * last one, except those drawn under a key) and ends with canvas_end (it blanks the kept rows
 * this frame did not draw). A row drawn wholly from some inputs asks canvas_keep(c, y, key),
 * @key a hash of every input (canvas_hash): true means the row holds what those inputs draw
 * (nothing to do); false means the row is blank and to be drawn now, by that code alone. Any
 * other write to a kept row not claimed in this frame blanks it first.
 */
void canvas_begin(struct canvas *c);
void canvas_end(struct canvas *c);
bool canvas_keep(struct canvas *c, int y, uint64_t key);
/* Within a row claimed by canvas_keep in this frame: span @slot (< CANVAS_SPANS; another:
 * never kept), columns @x to @x + @w - 1, drawn from the inputs @key hashes (0: every frame).
 * True: the span holds what they draw; false: the span is blank, to be drawn now, within those
 * columns only. */
bool canvas_keep_span(struct canvas *c, int y, int slot, int x, int w, uint64_t key);
/* canvas_keep_span, and a span not kept is blanks in @role (canvas_fill's), not role 0: a row
 * with a background of its own. */
bool canvas_keep_span_in(struct canvas *c, int y, int slot, int x, int w, uint64_t key, int role);
/* @h (0: a new hash) with @n bytes at @p, or the string @s (NULL differs from ""). */
uint64_t canvas_hash(uint64_t h, const void *p, size_t n);
uint64_t canvas_hash_str(uint64_t h, const char *s);
void canvas_set_ascii(struct canvas *c, bool ascii);
/* The columns of row @y written since canvas_sent(c, y): false when none, else [*lo, *hi). */
static inline bool canvas_written(const struct canvas *c, int y, int *lo, int *hi)
{
	*lo = c->written[y].lo;
	*hi = c->written[y].hi;
	return *lo < *hi;
}
/* Row @y as it is now has reached its one reader (the terminal): nothing written since. */
static inline void canvas_sent(struct canvas *c, int y) { c->written[y].lo = c->written[y].hi = 0; }
/* The cell at (x, y), or NULL outside the grid. */
const struct canvas_cell *canvas_cell(const struct canvas *c, int x, int y);
/* The text of @cell, a cell of @c ("" for the right half of a wide character); *@len its bytes. */
const char *canvas_cell_text(const struct canvas *c, const struct canvas_cell *cell, size_t *len);

/* Writes @text at (x, y) in @role, clipped to the grid; control characters (ESC, C1, DEL),
 * bidirectional controls and invalid UTF-8 show as text_escape_flags() writes them ("\\x1b",
 * "\\u202e"). Returns the columns written (after clipping). */
int canvas_put(struct canvas *c, int x, int y, int role, const char *text);
/* Same, with attributes, at most @maxw columns (< 0: up to the right edge) and flags. */
int canvas_putx(struct canvas *c, int x, int y, int role, unsigned attr, int maxw, unsigned flags,
		const char *text);
int canvas_printf(struct canvas *c, int x, int y, int role, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Printable ASCII strings (and one-character fills) are stored without decoding them, cell for
 * cell as the general path stores them; false: every string takes the general path (tests). */
extern bool canvas_fast_path;
/* Fills the rectangle with the one character @ch (NULL: space) in @role. */
void canvas_fill(struct canvas *c, int x, int y, int w, int h, int role, const char *ch);
/* Sets the role (and adds @attr) of cells in a rectangle without changing their text. */
void canvas_paint(struct canvas *c, int x, int y, int w, int h, int role, unsigned attr);

/* A bar @width columns wide filled to @frac (0..1) with eighth blocks; ASCII: '#'.
 * The unfilled part is left untouched. Returns the filled columns (rounded). */
int canvas_hbar(struct canvas *c, int x, int y, int width, int role, double frac);
/* Stacked bar: each segment gets round(cumulative end) - round(cumulative start) cells,
 * so the segments always add up exactly; the rest of @width is left untouched. */
void canvas_stacked_bar(struct canvas *c, int x, int y, int width,
			const struct canvas_segment *segs, int nsegs);
/* One column per value with ▁▂▃▄▅▆▇█ (ASCII: "_.-:=+*#"); NaN draws a space. When
 * min >= max the range is taken from the values. Draws at most the columns left. */
int canvas_sparkline(struct canvas *c, int x, int y, int role, const double *values, int n,
		     double min, double max);

/* The grid as plain text, one line per row, trailing spaces trimmed. */
void canvas_dump(const struct canvas *c, FILE *f);
/* The role layer: one character per cell, role 0 as ' ', roles 1.. as 1-9a-zA-Z then '+'
 * (trailing spaces trimmed). */
void canvas_dump_roles(const struct canvas *c, FILE *f);

/* UTF-8 helpers shared with the line editor. */
/* Decodes one codepoint from @s (at most @n bytes); returns its length (>= 1) and sets *cp
 * (U+FFFD for an invalid sequence, consuming 1 byte); 0 at the end. */
size_t canvas_utf8_next(const char *s, size_t n, uint32_t *cp);
/* Encodes @cp into @out (4 bytes room); returns the length, 0 for an invalid codepoint. */
size_t canvas_utf8_encode(uint32_t cp, char *out);
/* Columns of a codepoint: wcwidth() in a UTF-8 locale, an East Asian width table otherwise;
 * 0 for combining marks, -1 for control characters. */
int canvas_cp_width(uint32_t cp);
/* Columns of a UTF-8 string (control characters count 1, as they print as '?'). */
int canvas_str_width(const char *s);
#endif

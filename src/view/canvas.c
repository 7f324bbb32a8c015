/* SPDX-License-Identifier: GPL-2.0-or-later */
/* canvas.c: in-memory character grid with clipping, bars and sparklines (curses-free). */
#include "canvas.h"
#include "textutil.h"
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct canvas *canvas_new(int w, int h)
{
	struct canvas *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (canvas_resize(c, w, h) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

int canvas_resize(struct canvas *c, int w, int h)
{
	struct canvas_cell *cells;

	if (w < 0)
		w = 0;
	if (h < 0)
		h = 0;
	if (w > UINT16_MAX)
		w = UINT16_MAX; /* columns as written[] holds them */
	cells = calloc((size_t)w * h + 1, sizeof(*cells));
	unsigned char *used = malloc((size_t)h + 1), *fresh = calloc((size_t)h + 1, 1);
	uint64_t *key = calloc((size_t)h + 1, sizeof(*key));
	uint64_t *span = calloc(((size_t)h + 1) * CANVAS_SPANS, sizeof(*span));
	struct canvas_written *written = calloc((size_t)h + 1, sizeof(*written));
	if (!cells || !used || !fresh || !key || !span || !written) {
		free(written);
		free(cells);
		free(used);
		free(fresh);
		free(key);
		free(span);
		return -1;
	}
	memset(used, 1, (size_t)h + 1); /* every row to be blanked, every cell of it */
	for (int y = 0; y < h; y++)
		written[y].end = (uint16_t)w;
	free(c->cells);
	free(c->used);
	free(c->fresh);
	free(c->key);
	free(c->span);
	free(c->written);
	c->written = written;
	c->cells = cells;
	c->used = used;
	c->fresh = fresh;
	c->key = key;
	c->span = span;
	c->w = w;
	c->h = h;
	canvas_clear(c);
	return 0;
}

void canvas_free(struct canvas *c)
{
	if (!c)
		return;
	free(c->cells);
	free(c->used);
	free(c->fresh);
	free(c->key);
	free(c->span);
	free(c->written);
	free(c->longs);
	free(c);
}

void canvas_set_ascii(struct canvas *c, bool ascii) { c->ascii = ascii; }

static struct canvas_cell *cell_at(const struct canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return NULL;
	return &c->cells[(size_t)y * c->w + x];
}

_Static_assert(sizeof(struct canvas_cell) == 8, "a cell is one 64-bit word");

const char *canvas_cell_text(const struct canvas *c, const struct canvas_cell *cell, size_t *len)
{
	if (cell->ch[0] == CANVAS_LONG) {
		unsigned i = (unsigned char)cell->ch[1] | (unsigned)(unsigned char)cell->ch[2] << 8;
		if (i < (unsigned)c->nlongs) {
			*len = strlen(c->longs[i]);
			return c->longs[i];
		}
		*len = 0;
		return "";
	}
	*len = strnlen(cell->ch, CANVAS_CH_BYTES);
	return cell->ch;
}

/* Sets @cell's text to the @n bytes at @s (n < CANVAS_CELL_BYTES): in the cell when they fit,
 * else as the index of the same text in the table (added when new); false (the cell unchanged)
 * when the table is full or out of memory. */
static bool cell_set_text(struct canvas *c, struct canvas_cell *cell, const char *s, size_t n)
{
	if (n < CANVAS_CH_BYTES) {
		memset(cell->ch, 0, CANVAS_CH_BYTES);
		memcpy(cell->ch, s, n);
		return true;
	}
	int i = 0;
	while (i < c->nlongs && !(strncmp(c->longs[i], s, n) == 0 && c->longs[i][n] == '\0'))
		i++;
	if (i == c->nlongs) {
		if (i >= CANVAS_LONGS_MAX)
			return false;
		if (i == c->longs_cap) {
			int cap = c->longs_cap ? 2 * c->longs_cap : 16;
			void *nl = realloc(c->longs, (size_t)cap * sizeof(*c->longs));
			if (!nl)
				return false;
			c->longs = nl;
			c->longs_cap = cap;
		}
		memcpy(c->longs[i], s, n);
		c->longs[i][n] = '\0';
		c->nlongs++;
	}
	memset(cell->ch, 0, CANVAS_CH_BYTES);
	cell->ch[0] = CANVAS_LONG;
	cell->ch[1] = (char)(i & 0xff);
	cell->ch[2] = (char)(i >> 8);
	return true;
}

static void cell_blank(struct canvas_cell *cell, int role, unsigned attr)
{
	memset(cell, 0, sizeof(*cell));
	cell->ch[0] = ' ';
	cell->role = (uint8_t)role;
	cell->attr = (uint8_t)attr;
	cell->width = 1;
}

/* Columns [@lo, @hi) of row @y are written (0 <= lo < hi <= w). */
static inline void written(struct canvas *c, int y, int lo, int hi)
{
	struct canvas_written *r = &c->written[y];
	if (hi > r->end)
		r->end = (uint16_t)hi;
	if (r->lo >= r->hi) {
		r->lo = (uint16_t)lo;
		r->hi = (uint16_t)hi;
	} else {
		if (lo < r->lo)
			r->lo = (uint16_t)lo;
		if (hi > r->hi)
			r->hi = (uint16_t)hi;
	}
}

/* Blanks row @y (its key goes: it holds nothing a key describes): its cells up to the last one
 * written since it was last blanked (a header line or a short row is not 200 cells). */
static void blank_row(struct canvas *c, int y)
{
	size_t w = c->written[y].end;
	memset(&c->span[(size_t)y * CANVAS_SPANS], 0, CANVAS_SPANS * sizeof(*c->span));
	c->key[y] = 0;
	c->used[y] = 0;
	if (w == 0)
		return;
	written(c, y, 0, (int)w);
	c->written[y].end = 0;
	struct canvas_cell *row = &c->cells[(size_t)y * c->w];
	size_t done = 1;
	cell_blank(&row[0], 0, 0); /* then copies of it, doubling: memcpy, not a loop */
	while (done < w) {
		size_t k = done < w - done ? done : w - done;
		memcpy(&row[done], row, k * sizeof(*row));
		done += k;
	}
}

/* Blanks the rows written since the last clear (a screen of a few table rows leaves most rows
 * blank: at 200x60 the whole canvas is 192 KiB to copy every frame). */
void canvas_clear(struct canvas *c)
{
	for (int y = 0; y < c->h; y++) {
		c->fresh[y] = 0;
		if (c->used[y] || c->key[y])
			blank_row(c, y);
	}
}

/* The first row from @y on that holds something (used), or c->h: unused rows are passed over
 * eight at a time (a screen of a few table rows leaves most of them unused). A kept row is a
 * used row (canvas_keep marks it, blank_row clears both). */
static int next_used(const struct canvas *c, int y)
{
	for (uint64_t w; y + 8 <= c->h && (memcpy(&w, &c->used[y], 8), w == 0);)
		y += 8;
	while (y < c->h && !c->used[y])
		y++;
	return y;
}

void canvas_begin(struct canvas *c)
{
	memset(c->fresh, 0, (size_t)c->h);
	for (int y = next_used(c, 0); y < c->h; y = next_used(c, y + 1))
		if (!c->key[y])
			blank_row(c, y);
}

void canvas_end(struct canvas *c)
{
	for (int y = next_used(c, 0); y < c->h; y = next_used(c, y + 1))
		if (c->key[y] && !c->fresh[y]) /* kept last frame, not drawn in this one */
			blank_row(c, y);
}

/* Row @y is written this frame: a row kept from the last frame and not claimed in this one is
 * blanked first. */
static inline void touch(struct canvas *c, int y, int lo, int hi)
{
	if (c->key[y] && !c->fresh[y])
		blank_row(c, y);
	written(c, y, lo, hi); /* after the blanking: these cells are not blank */
	c->used[y] = 1;
	c->fresh[y] = 1;
}

bool canvas_keep(struct canvas *c, int y, uint64_t key)
{
	if (y < 0 || y >= c->h)
		return true;				     /* nothing of it is shown */
	key = canvas_hash(key, &c->ascii, sizeof(c->ascii)); /* ellipses, bars and marks */
	key += !key;
	if (c->fresh[y]) { /* already written in this frame: not a row one key describes */
		c->key[y] = 0;
		memset(&c->span[(size_t)y * CANVAS_SPANS], 0, CANVAS_SPANS * sizeof(*c->span));
		return false;
	}
	c->fresh[y] = 1;
	if (c->key[y] == key && canvas_fast_path)
		return true;
	if (c->key[y] || c->used[y])
		blank_row(c, y);
	c->key[y] = key;
	c->used[y] = 1;
	return false;
}

/* canvas_keep_span_in; @fill: the span is filled with blanks in @role when not kept (in a kept
 * row, blank cells in @role, as canvas_fill makes them over one-column cells) */
static bool keep_span(struct canvas *c, int y, int slot, int x, int w, uint64_t key, bool fill,
		      int role)
{
	if (y < 0 || y >= c->h || !c->key[y]) { /* not in a kept row: drawn as any text is */
		if (fill)
			canvas_fill(c, x, y, w, 1, role, NULL);
		return false;
	}
	uint64_t *k =
	    slot >= 0 && slot < CANVAS_SPANS ? &c->span[(size_t)y * CANVAS_SPANS + slot] : NULL;
	if (k && key && *k == key && canvas_fast_path)
		return true;
	int from = x < 0 ? 0 : x, to = x + w < c->w ? x + w : c->w;
	struct canvas_cell *row = &c->cells[(size_t)y * c->w];
	struct canvas_cell blank;
	cell_blank(&blank, fill ? role : 0, 0);
	if (from < to)
		written(c, y, from, to);
	for (int col = from; col < to; col++) /* as a new frame's row has it, or filled */
		row[col] = blank;
	if (k)
		*k = key;
	return false;
}

bool canvas_keep_span(struct canvas *c, int y, int slot, int x, int w, uint64_t key)
{
	return keep_span(c, y, slot, x, w, key, false, 0);
}

bool canvas_keep_span_in(struct canvas *c, int y, int slot, int x, int w, uint64_t key, int role)
{
	if (!canvas_fast_path) { /* the general path: blank, then filled as any text is */
		bool kept = keep_span(c, y, slot, x, w, key, false, 0);
		if (!kept)
			canvas_fill(c, x, y, w, 1, role, NULL);
		return kept;
	}
	return keep_span(c, y, slot, x, w, key, true, role);
}

uint64_t canvas_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;
	if (!h)
		h = 0xcbf29ce484222325ull;
	/* eight bytes at a time, each word multiplied in and its high bits folded down (as
	 * FNV-1a does with bytes); the length ends it, so "ab" and "ab\0" differ */
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = n;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)b[i] << (8 * (i + 1));
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

uint64_t canvas_hash_str(uint64_t h, const char *s)
{
	if (!s) /* NULL differs from "" */
		return canvas_hash(h, "\xff\xfe", 2);
	return canvas_hash(h, s, strlen(s) + 1);
}

const struct canvas_cell *canvas_cell(const struct canvas *c, int x, int y)
{
	return cell_at(c, x, y);
}

/* Writes one character of @width (1 or 2) columns; repairs halves of wide characters. */
static void set_cell(struct canvas *c, int x, int y, const char *ch, size_t len, int width,
		     int role, unsigned attr)
{
	struct canvas_cell *cell = cell_at(c, x, y), *next;

	if (!cell)
		return;
	if (width == 1 && cell->width == 1 && len < CANVAS_CH_BYTES) {
		touch(c, y, x, x + 1);
		/* the common case, one column over one column: no half to repair */
		struct canvas_cell n = {.role = (uint8_t)role, .attr = (uint8_t)attr, .width = 1};
		if (len == 1)
			n.ch[0] = ch[0];
		else
			memcpy(n.ch, ch, len);
		*cell = n;
		return;
	}
	/* the cell, a wide character's right half, and the halves repaired on either side */
	touch(c, y, x > 0 ? x - 1 : 0, x + 3 < c->w ? x + 3 : c->w);
	if (width == 2 && x + 1 >= c->w)
		width = 1, ch = " ", len = 1; /* no room for the right half */
	for (int i = 0; i < width; i++) {
		struct canvas_cell *t = cell_at(c, x + i, y);
		if (t->width == 0 && x + i > 0) /* right half: blank the left half */
			cell_blank(t - 1, t[-1].role, t[-1].attr);
		if (t->width == 2 && (next = cell_at(c, x + i + 1, y)))
			cell_blank(next, next->role, next->attr);
	}
	cell_blank(cell, role, attr);
	if (len >= CANVAS_CELL_BYTES)
		len = CANVAS_CELL_BYTES - 1;
	if (!cell_set_text(c, cell, ch, len))
		cell->ch[0] = '?'; /* not reached: one character is at most 4 bytes */
	cell->width = (uint8_t)width;
	if (width == 2) {
		next = cell + 1;
		cell_blank(next, role, attr);
		next->ch[0] = '\0';
		next->width = 0;
	}
}

/* Decodes one codepoint (text_utf8_decode); *valid is false for a malformed sequence (1 byte
 * consumed, U+FFFD). */
static size_t utf8_decode(const char *s, size_t n, uint32_t *cp, bool *valid)
{
	size_t len = text_utf8_decode(s, n, cp);

	*valid = len > 0;
	if (len || !n)
		return len;
	*cp = 0xfffd;
	return 1;
}

size_t canvas_utf8_next(const char *s, size_t n, uint32_t *cp)
{
	bool valid;

	return utf8_decode(s, n, cp, &valid);
}

size_t canvas_utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	} else if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
		return 2;
	} else if (cp < 0x10000) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			return 0;
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return 3;
	} else if (cp <= 0x10ffff) {
		o[0] = 0xf0 | cp >> 18;
		o[1] = 0x80 | (cp >> 12 & 0x3f);
		o[2] = 0x80 | (cp >> 6 & 0x3f);
		o[3] = 0x80 | (cp & 0x3f);
		return 4;
	}
	return 0;
}

/* Ranges of wide (2-column) and zero-width codepoints for non-UTF-8 locales. */
static const struct {
	uint32_t lo, hi;
} wide_ranges[] =
    {
	{0x1100, 0x115f},   {0x2e80, 0x303e},	{0x3041, 0x33ff},   {0x3400, 0x4dbf},
	{0x4e00, 0x9fff},   {0xa000, 0xa4cf},	{0xac00, 0xd7a3},   {0xf900, 0xfaff},
	{0xfe30, 0xfe4f},   {0xff00, 0xff60},	{0xffe0, 0xffe6},   {0x1f300, 0x1f64f},
	{0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
},
  zero_ranges[] = {
      {0x0300, 0x036f}, {0x1ab0, 0x1aff}, {0x1dc0, 0x1dff}, {0x200b, 0x200f},
      {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},
};

static bool in_ranges(uint32_t cp, const void *ranges, size_t n)
{
	const struct {
		uint32_t lo, hi;
	} *r = ranges;

	for (size_t i = 0; i < n; i++)
		if (cp >= r[i].lo && cp <= r[i].hi)
			return true;
	return false;
}

int canvas_cp_width(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return -1;
	if (cp < 0x7f)
		return 1;
	if (MB_CUR_MAX > 1) {
		int w = wcwidth((wchar_t)cp);
		if (w >= 0)
			return w;
		return 1; /* unassigned in this locale: one column, like most terminals */
	}
	if (in_ranges(cp, zero_ranges, sizeof(zero_ranges) / sizeof(zero_ranges[0])))
		return 0;
	if (in_ranges(cp, wide_ranges, sizeof(wide_ranges) / sizeof(wide_ranges[0])))
		return 2;
	return 1;
}

/* Width of one codepoint as the canvas prints it (controls and bad bytes as '?'). */
static int print_width(uint32_t cp, bool valid)
{
	int w = valid ? canvas_cp_width(cp) : 1;

	return w < 0 ? 1 : w;
}

/* Columns of @s, which is safe as it is. */
static int str_width_safe(const char *s)
{
	size_t n = strlen(s), i = 0, len;
	uint32_t cp;
	bool valid;
	int w = 0;

	while (i < n) {
		unsigned char b = (unsigned char)s[i];
		if (b >= 0x20 && b < 0x7f) { /* printable ASCII: one column */
			w++, i++;
			continue;
		}
		if ((len = utf8_decode(s + i, n - i, &cp, &valid)) == 0)
			break;
		w += print_width(cp, valid);
		i += len;
	}
	return w;
}

/* Writes @text from column x up to (not including) column @limit; returns the next column. */
static int put_span(struct canvas *c, int x, int y, int role, unsigned attr, int limit,
		    const char *text, size_t n)
{
	size_t i = 0, len;
	uint32_t cp;
	bool valid;
	int lastx = -1;

	while (i < n) {
		const char *ch = text + i;
		unsigned char b = (unsigned char)*ch;
		int w;
		if (b >= 0x20 && b < 0x7f) { /* printable ASCII: one byte, one column */
			len = 1, cp = b, valid = true, w = 1;
		} else {
			len = utf8_decode(text + i, n - i, &cp, &valid);
			if (len == 0)
				break;
			w = valid ? canvas_cp_width(cp) : 1;
		}

		i += len;
		if (w < 0 || !valid)
			w = 1, ch = "?", len = 1;
		if (w == 0) { /* combining mark: joins the previous character */
			struct canvas_cell *prev = lastx >= 0 ? cell_at(c, lastx, y) : NULL;
			size_t have = 0;
			const char *was = prev ? canvas_cell_text(c, prev, &have) : NULL;
			if (prev && have + len < CANVAS_CELL_BYTES) {
				char joined[CANVAS_CELL_BYTES];
				memcpy(joined, was, have);
				memcpy(joined + have, ch, len);
				cell_set_text(c, prev, joined, have + len);
			}
			continue;
		}
		if (x + w > limit) {
			for (; x < limit; x++) /* a wide character that does not fit */
				if (x >= 0)
					set_cell(c, x, y, " ", 1, 1, role, attr);
			break;
		}
		if (x < 0) {
			if (x + w > 0) /* wide character cut by the left edge */
				set_cell(c, 0, y, " ", 1, 1, role, attr);
			lastx = -1;
		} else {
			set_cell(c, x, y, ch, len, w, role, attr);
			lastx = x;
		}
		x += w;
	}
	return x;
}

/* Draws @text, which text_escape_flags() has made safe (controls shown as "\\x1b"). */
static int putx_safe(struct canvas *c, int x, int y, int role, unsigned attr, int maxw,
		     unsigned flags, const char *text)
{
	int limit = c->w, width, end, start;
	const char *ell = c->ascii ? "~" : "\xe2\x80\xa6";

	if (maxw >= 0 && (long)x + maxw < limit)
		limit = x + maxw;
	width = str_width_safe(text);
	if ((flags & CANVAS_ALIGN_RIGHT) && maxw >= 0 && width < maxw)
		x += maxw - width;
	if (x >= limit)
		return 0;
	start = x;
	if ((flags & CANVAS_ELLIPSIS) && x + width > limit) {
		end = put_span(c, x, y, role, attr, limit - 1, text, strlen(text));
		end = put_span(c, end, y, role, attr, limit, ell, strlen(ell));
	} else {
		end = put_span(c, x, y, role, attr, limit, text, strlen(text));
	}
	if (start < 0)
		start = 0;
	return end > start ? end - start : 0;
}

/* @s as the canvas shows it: @s itself when it is safe, else its escaped form in @buf or in
 * malloc'd memory (free it when it is neither @s nor @buf); NULL when out of memory. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);
	if (text_is_safe(s, n, TEXT_ESC_KEEP_BACKSLASH))
		return s;
	size_t need = text_escape_flags(s, n, NULL, 0, TEXT_ESC_KEEP_BACKSLASH) + 1;
	char *out = need > len ? malloc(need) : buf;
	if (out)
		text_escape_flags(s, n, out, need, TEXT_ESC_KEEP_BACKSLASH);
	return out;
}

static void shown_free(const char *shown, const char *s, const char *buf)
{
	if (shown != s && shown != buf)
		free((char *)shown);
}

/* The length of @s when it is all printable ASCII (0x20-0x7e: one byte, one column, shown as it
 * is), else -1. */
static long ascii_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	for (; u[i]; i++)
		if (u[i] < 0x20 || u[i] >= 0x7f)
			return -1;
	return (long)i;
}

bool canvas_fast_path = true;

/* One printable ASCII character at @cell, column @x of row @y: a plain store over a one-column
 * cell, set_cell (which repairs wide characters) otherwise. */
static inline void put_ascii_cell(struct canvas *c, struct canvas_cell *cell, int x, int y, char ch,
				  const struct canvas_cell *blank)
{
	if (cell->width == 1) {
		*cell = *blank; /* @blank: "" in the role and attributes, one column wide */
		cell->ch[0] = ch;
	} else {
		set_cell(c, x, y, &ch, 1, 1, blank->role, blank->attr);
	}
}

/* The cell put_ascii_cell starts from: no text, @role, @attr, one column. */
static struct canvas_cell ascii_blank(int role, unsigned attr)
{
	return (struct canvas_cell){.role = (uint8_t)role, .attr = (uint8_t)attr, .width = 1};
}

/* putx_safe for @n bytes of printable ASCII: the same cells, without decoding them. */
static int putx_ascii(struct canvas *c, int x, int y, int role, unsigned attr, int maxw,
		      unsigned flags, const char *text, int n)
{
	int limit = c->w;
	if (maxw >= 0 && (long)x + maxw < limit)
		limit = x + maxw;
	if ((flags & CANVAS_ALIGN_RIGHT) && maxw >= 0 && n < maxw)
		x += maxw - n;
	if (x >= limit)
		return 0;
	bool ellipsis = (flags & CANVAS_ELLIPSIS) && x + n > limit;
	int stop = ellipsis ? limit - 1 : limit; /* the text's columns end before this one */
	int end = x + n < stop ? x + n : stop;
	int from = x < 0 ? 0 : x;
	if (from < end) {
		struct canvas_cell *row = &c->cells[(size_t)y * c->w];
		struct canvas_cell blank = ascii_blank(role, attr);
		touch(c, y, from, end);
		for (int col = from; col < end; col++)
			put_ascii_cell(c, &row[col], col, y, text[col - x], &blank);
	}
	if (ellipsis) {
		const char *ell = c->ascii ? "~" : "\xe2\x80\xa6";
		end = put_span(c, end, y, role, attr, limit, ell, strlen(ell));
	}
	return end > from ? end - from : 0;
}

int canvas_str_width(const char *s)
{
	long n = canvas_fast_path ? ascii_len(s) : -1;
	if (n >= 0)
		return (int)n;
	char buf[1024];
	const char *safe = shown(s, buf, sizeof(buf));
	int w = safe ? str_width_safe(safe) : 0;
	shown_free(safe, s, buf);
	return w;
}

/* canvas_putx of a text that is not plain ASCII (or on the general path), in a frame of its own:
 * the 1 KiB buffer is not reserved below each ASCII text put (on the stack's lines a frame
 * touches). */
__attribute__((noinline)) static int putx_general(struct canvas *c, int x, int y, int role,
						  unsigned attr, int maxw, unsigned flags,
						  const char *text)
{
	char buf[1024];
	const char *safe = shown(text, buf, sizeof(buf));
	int w = safe ? putx_safe(c, x, y, role, attr, maxw, flags, safe) : 0;
	shown_free(safe, text, buf);
	return w;
}

int canvas_putx(struct canvas *c, int x, int y, int role, unsigned attr, int maxw, unsigned flags,
		const char *text)
{
	if (!text || y < 0 || y >= c->h)
		return 0;
	long n = canvas_fast_path ? ascii_len(text) : -1;
	if (n >= 0 && n <= INT_MAX / 2)
		return putx_ascii(c, x, y, role, attr, maxw, flags, text, (int)n);
	return putx_general(c, x, y, role, attr, maxw, flags, text);
}

int canvas_put(struct canvas *c, int x, int y, int role, const char *text)
{
	return canvas_putx(c, x, y, role, 0, -1, 0, text);
}

int canvas_printf(struct canvas *c, int x, int y, int role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_put(c, x, y, role, buf);
}

void canvas_fill(struct canvas *c, int x, int y, int w, int h, int role, const char *ch)
{
	uint32_t cp;
	bool valid;
	size_t len;
	int cw;

	if (!ch || !*ch)
		ch = " ";
	if (canvas_fast_path && ch[0] >= 0x20 && ch[0] < 0x7f && !ch[1]) {
		for (int row = y < 0 ? 0 : y; row < y + h && row < c->h; row++) {
			int from = x < 0 ? 0 : x, to = x + w < c->w ? x + w : c->w;
			struct canvas_cell *cells = &c->cells[(size_t)row * c->w];
			if (from < to)
				touch(c, row, from, to);
			struct canvas_cell blank = ascii_blank(role, 0);
			for (int col = from; col < to; col++)
				put_ascii_cell(c, &cells[col], col, row, ch[0], &blank);
		}
		return;
	}
	len = utf8_decode(ch, strlen(ch), &cp, &valid);
	cw = valid ? canvas_cp_width(cp) : -1;
	if (cw < 1)
		ch = "?", len = 1, cw = 1;
	for (int row = y; row < y + h; row++) {
		if (row < 0 || row >= c->h)
			continue;
		for (int col = x; col + cw <= x + w; col += cw)
			if (col >= 0 && col < c->w)
				set_cell(c, col, row, ch, len, cw, role, 0);
	}
}

void canvas_paint(struct canvas *c, int x, int y, int w, int h, int role, unsigned attr)
{
	for (int row = y; row < y + h; row++)
		for (int col = x; col < x + w; col++) {
			struct canvas_cell *cell = cell_at(c, col, row);
			if (cell) {
				touch(c, row, col, col + 1);
				cell->role = (uint8_t)role;
				cell->attr |= (uint8_t)attr;
			}
		}
}

/* Eighth blocks: index n is n/8 of a cell. */
static const char *const eighths[] = {
    " ",
    "\xe2\x96\x8f",
    "\xe2\x96\x8e",
    "\xe2\x96\x8d",
    "\xe2\x96\x8c",
    "\xe2\x96\x8b",
    "\xe2\x96\x8a",
    "\xe2\x96\x89",
    "\xe2\x96\x88",
};

static double clamp01(double v)
{
	if (isnan(v) || v < 0)
		return 0;
	return v > 1 ? 1 : v;
}

int canvas_hbar(struct canvas *c, int x, int y, int width, int role, double frac)
{
	frac = clamp01(frac);
	if (width <= 0)
		return 0;
	if (c->ascii) {
		int n = (int)lround(frac * width);
		for (int i = 0; i < n; i++)
			canvas_put(c, x + i, y, role, "#");
		return n;
	}
	long e = lround(frac * width * 8);
	int full = (int)(e / 8), rem = (int)(e % 8);
	for (int i = 0; i < full; i++)
		canvas_put(c, x + i, y, role, eighths[8]);
	if (rem)
		canvas_put(c, x + full, y, role, eighths[rem]);
	return (int)lround(frac * width);
}

void canvas_stacked_bar(struct canvas *c, int x, int y, int width,
			const struct canvas_segment *segs, int nsegs)
{
	double cum = 0;
	int prev = 0;

	for (int i = 0; i < nsegs && width > 0; i++) {
		cum = clamp01(cum + clamp01(segs[i].frac));
		int end = (int)lround(cum * width);
		char a[2] = {segs[i].ascii ? segs[i].ascii : '#', '\0'};
		for (int col = prev; col < end; col++)
			canvas_put(c, x + col, y, segs[i].role,
				   c->ascii	   ? a
				   : segs[i].glyph ? segs[i].glyph
						   : eighths[8]);
		prev = end;
	}
}

int canvas_sparkline(struct canvas *c, int x, int y, int role, const double *values, int n,
		     double min, double max)
{
	static const char ascii_levels[] = "_.-:=+*#";
	int drawn = 0;

	if (!(min < max)) {
		min = INFINITY, max = -INFINITY;
		for (int i = 0; i < n; i++)
			if (!isnan(values[i])) {
				min = fmin(min, values[i]);
				max = fmax(max, values[i]);
			}
	}
	for (int i = 0; i < n && x + i < c->w; i++) {
		double v = values[i];
		char a[2] = " ";
		const char *g = " ";
		if (!isnan(v)) {
			int lvl = max > min ? (int)floor((v - min) / (max - min) * 8) : 0;
			lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
			a[0] = ascii_levels[lvl];
			g = a;
			if (!c->ascii) {
				static const char *const bars[] = {
				    "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
				    "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
				};
				g = bars[lvl];
			}
		}
		canvas_put(c, x + i, y, role, g);
		drawn++;
	}
	return drawn;
}

static void dump_trimmed(FILE *f, char *line, size_t len)
{
	while (len > 0 && line[len - 1] == ' ')
		len--;
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

void canvas_dump(const struct canvas *c, FILE *f)
{
	size_t cap = (size_t)c->w * CANVAS_CELL_BYTES + 1;
	char *line = malloc(cap);

	if (!line)
		return;
	for (int y = 0; y < c->h; y++) {
		size_t len = 0;
		for (int x = 0; x < c->w; x++) {
			const struct canvas_cell *cell = cell_at(c, x, y);
			if (cell->width == 0)
				continue;
			size_t n;
			const char *text = canvas_cell_text(c, cell, &n);
			if (n == 0)
				line[len++] = ' ';
			memcpy(line + len, text, n);
			len += n;
		}
		dump_trimmed(f, line, len);
	}
	free(line);
}

/* The character canvas_dump_roles() uses for @role. */
static char canvas_role_char(int role)
{
	static const char digits[] =
	    "123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

	if (role <= 0)
		return ' ';
	if (role <= (int)sizeof(digits) - 1)
		return digits[role - 1];
	return '+';
}

void canvas_dump_roles(const struct canvas *c, FILE *f)
{
	char *line = malloc((size_t)c->w + 1);

	if (!line)
		return;
	for (int y = 0; y < c->h; y++) {
		for (int x = 0; x < c->w; x++)
			line[x] = canvas_role_char(cell_at(c, x, y)->role);
		dump_trimmed(f, line, (size_t)c->w);
	}
	free(line);
}

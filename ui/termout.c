/* SPDX-License-Identifier: GPL-2.0-or-later */
/* termout.c: the screen's output: the canvas's changed cells as terminfo sequences, one write. */
#include "termout.h"
#include "theme.h"
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

/* Curses sends a cursor move as a write of its own (ncurses 6.4 flushes after each one: some
 * 15 writes a refresh for a table of 2 CPUs). This module keeps what the terminal shows (one
 * canvas), compares row by row and sends the changed cells, the moves between them and their
 * attributes in one buffer and one write. Curses keeps the terminal's modes and the keyboard. */
#define TERMOUT_CACHED 256 /* cursor moves kept ready-made, by distance */

#define TERMOUT_COLOURS 256 /* colours whose sequences are kept */
/* cursor addresses kept, by position, direct-mapped: 2048 keeps the top ten rows of a
 * 200-column screen (where the table's numbers change) without two in one slot (56 KiB) */
#define TERMOUT_ADDRS 2048

/* A terminfo string's bytes as tputs sends them (len 0: not made yet). */
struct memo {
	unsigned char len;
	char s[23];
};

/* The terminfo strings without parameters that frames use. */
enum cap_id {
	CAP_SGR0,
	CAP_ORIG_PAIR,
	CAP_BOLD,
	CAP_DIM,
	CAP_REVERSE,
	CAP_UNDERLINE,
	CAP_ITALIC,
	CAP_CLEAR,
	CAP_COUNT
};

struct termout {
	struct canvas_cell *shown; /* what the terminal shows: h rows of w cells */
	const struct canvas *src;  /* the canvas they came from (a long text's index is its) */
	unsigned char *blank;	   /* per row: the terminal's row is known to be blank cells */
	int w, h;
	bool full; /* the terminal's contents are unknown */
	char *buf; /* this frame's bytes */
	size_t len, cap;
	bool oom;
	int cy, cx; /* the terminal's cursor (-1: not known) */
	bool style_known;
	struct termout_style style; /* the terminal's current attributes and colours */
	bool ax;		    /* SGR 39/49 give the default colours (terminfo AX) */
	/* the bytes of terminfo strings, made (tiparm, tputs) on first use: moves right by
	 * count, the attribute strings, colours, and cursor addresses by position */
	struct memo moves[TERMOUT_CACHED];
	struct memo caps[CAP_COUNT];
	struct memo fg[TERMOUT_COLOURS], bg[TERMOUT_COLOURS];
	struct memo addr[TERMOUT_ADDRS];
	int addr_pos[TERMOUT_ADDRS]; /* y * w + x + 1 of each addr memo, 0: none */
};

/* The module writing through tputs (which takes a function without a context). */
static struct termout *emitting;

static void put(struct termout *t, const char *s, size_t n)
{
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->len + n)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (!nb) {
			t->oom = true;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static int put_char(int ch)
{
	char c = (char)ch;
	put(emitting, &c, 1);
	return ch;
}

static bool have(const char *cap) { return cap && cap != (const char *)-1; }

bool termout_usable(void) { return have(cursor_address); }

/* A terminfo string (padding removed by tputs). */
static void put_cap(struct termout *t, const char *cap)
{
	if (!have(cap))
		return;
	emitting = t;
	tputs(cap, 1, put_char);
}

bool termout_fast_path = true;

/* Sends @m's bytes; false when they are not made yet (or the fast path is off). */
static bool put_memo(struct termout *t, const struct memo *m)
{
	if (!m->len || !termout_fast_path)
		return false;
	put(t, m->s, m->len);
	return true;
}

/* Sends @cap (already made with its parameters) and keeps its bytes in @m. */
static void put_cap_memo(struct termout *t, struct memo *m, const char *cap)
{
	size_t at = t->len;
	put_cap(t, cap);
	size_t n = t->len - at;
	if (!t->oom && n > 0 && n <= sizeof(m->s)) {
		memcpy(m->s, t->buf + at, n);
		m->len = (unsigned char)n;
	}
}

/* The terminfo string of @id (NULL or -1 when the terminal has none). */
static const char *cap_string(enum cap_id id)
{
	switch (id) {
	case CAP_SGR0:
		return exit_attribute_mode;
	case CAP_ORIG_PAIR:
		return orig_pair;
	case CAP_BOLD:
		return enter_bold_mode;
	case CAP_DIM:
		return enter_dim_mode;
	case CAP_REVERSE:
		return enter_reverse_mode;
	case CAP_UNDERLINE:
		return enter_underline_mode;
	case CAP_ITALIC:
		return enter_italics_mode;
	case CAP_CLEAR:
		return clear_screen;
	default:
		return NULL;
	}
}

static void put_id(struct termout *t, enum cap_id id)
{
	if (!put_memo(t, &t->caps[id]))
		put_cap_memo(t, &t->caps[id], cap_string(id));
}

static void move_to(struct termout *t, int y, int x)
{
	if (t->cy == y && t->cx == x)
		return;
	int right = x - t->cx;
	if (t->cy == y && t->cx >= 0 && x > t->cx && have(parm_right_cursor)) {
		if (right >= TERMOUT_CACHED)
			put_cap(t, tiparm(parm_right_cursor, right));
		else if (!put_memo(t, &t->moves[right])) /* "\e[5C" */
			put_cap_memo(t, &t->moves[right], tiparm(parm_right_cursor, right));
	} else if (have(cursor_address)) {
		int pos = y * t->w + x + 1;
		unsigned slot = (unsigned)pos % TERMOUT_ADDRS;
		if (t->addr_pos[slot] != pos) {
			t->addr[slot].len = 0;
			t->addr_pos[slot] = pos;
		}
		if (!put_memo(t, &t->addr[slot]))
			put_cap_memo(t, &t->addr[slot], tiparm(cursor_address, y, x));
	}
	t->cy = y;
	t->cx = x;
}

static void set_colour(struct termout *t, const char *a, const char *plain, int c, bool bg)
{
	struct memo *m = c < TERMOUT_COLOURS ? (bg ? &t->bg[c] : &t->fg[c]) : NULL;
	if (m && put_memo(t, m))
		return;
	const char *s = tiparm(have(a) ? a : plain, c);
	if (m)
		put_cap_memo(t, m, s);
	else
		put_cap(t, s);
}

/* The terminal's own colour for the foreground (@bg false) or the background. */
static void default_colour(struct termout *t, bool bg)
{
	if (t->ax) { /* the AX extension: SGR 39 and 49 */
		put(t, bg ? "\033[49m" : "\033[39m", 5);
		return;
	}
	put_id(t, CAP_ORIG_PAIR); /* both: the other one is set again below */
	if (bg)
		t->style.fg = -1;
	else
		t->style.bg = -1;
}

/* Changes the terminal's attributes and colours to @s: sgr0 only when an attribute is to go,
 * then the attributes and colours that differ. */
static void set_style(struct termout *t, const struct termout_style *s)
{
	if (t->style_known && t->style.fg == s->fg && t->style.bg == s->bg &&
	    t->style.attr == s->attr)
		return;
	if (!t->style_known || (t->style.attr & ~s->attr)) {
		bool coloured = !t->style_known || t->style.fg >= 0 || t->style.bg >= 0;
		put_id(t, CAP_SGR0);
		/* sgr0 may leave colours set: back to the terminal's own pair */
		if (coloured && (s->fg < 0 || s->bg < 0))
			put_id(t, CAP_ORIG_PAIR);
		t->style = (struct termout_style){-1, -1, 0};
		t->style_known = true;
	}
	unsigned on = s->attr & ~t->style.attr;
	if (on & THEME_BOLD)
		put_id(t, CAP_BOLD);
	if (on & THEME_DIM)
		put_id(t, CAP_DIM);
	if (on & THEME_REVERSE)
		put_id(t, CAP_REVERSE);
	if (on & THEME_UNDERLINE)
		put_id(t, CAP_UNDERLINE);
	if (on & THEME_ITALIC)
		put_id(t, CAP_ITALIC);
	if (s->fg != t->style.fg && s->fg < 0)
		default_colour(t, false);
	if (s->bg != t->style.bg && s->bg < 0)
		default_colour(t, true);
	if (s->fg != t->style.fg && s->fg >= 0 && (have(set_a_foreground) || have(set_foreground)))
		set_colour(t, set_a_foreground, set_foreground, s->fg, false);
	if (s->bg != t->style.bg && s->bg >= 0 && (have(set_a_background) || have(set_background)))
		set_colour(t, set_a_background, set_background, s->bg, true);
	t->style = *s;
}

struct termout *termout_new(void)
{
	struct termout *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->full = true;
	int ax = tigetflag("AX");
	t->ax = ax > 0;
	return t;
}

void termout_free(struct termout *t)
{
	if (!t)
		return;
	free(t->shown);
	free(t->blank);
	free(t->buf);
	free(t);
}

void termout_invalidate(struct termout *t) { t->full = true; }

static bool same_cell(const struct canvas_cell *a, const struct canvas_cell *b)
{
	_Static_assert(sizeof(*a) == 8, "a cell is one 64-bit word");
	uint64_t a0, b0; /* one load each, not a call */
	memcpy(&a0, a, 8), memcpy(&b0, b, 8);
	return a0 == b0;
}

static struct termout_style style_of(const struct canvas_cell *cell,
				     const struct termout_style *styles, int nstyles)
{
	struct termout_style s = styles[cell->role < nstyles ? cell->role : 0];
	s.attr |= cell->attr;
	return s;
}

static bool same_style(const struct termout_style *a, const struct termout_style *b)
{
	return a->fg == b->fg && a->bg == b->bg && a->attr == b->attr;
}

/* unchanged cells sent again rather than moved over (a move is 4-8 bytes) */
#define TERMOUT_GAP 4

/* True when a changed cell follows @x within TERMOUT_GAP cells of one column each that are
 * in the terminal's current style: sending them again is shorter than a cursor move. */
static bool short_gap(const struct termout *t, const struct canvas_cell *row,
		      const struct canvas_cell *shown, int x, int w,
		      const struct termout_style *styles, int nstyles)
{
	for (int i = x; i < w && i <= x + TERMOUT_GAP; i++) {
		if (!same_cell(&row[i], &shown[i]))
			return i > x;
		struct termout_style s = style_of(&row[i], styles, nstyles);
		if (row[i].width != 1 || !same_style(&s, &t->style))
			return false;
	}
	return false;
}

/* Cells compared at once (one memcmp of 512 bytes) while looking for a changed one; a call
 * costs about as much as comparing 8 cells one by one, so shorter runs go cell by cell. */
#define TERMOUT_BLOCK 64

/* The first cell in [@x, @hi) that differs from what the terminal shows, or @hi. */
static int first_diff(const struct canvas_cell *row, const struct canvas_cell *shown, int x, int hi)
{
	while (x + TERMOUT_BLOCK <= hi &&
	       memcmp(&row[x], &shown[x], TERMOUT_BLOCK * sizeof(*row)) == 0)
		x += TERMOUT_BLOCK;
	while (x < hi && same_cell(&row[x], &shown[x]))
		x++;
	return x;
}

/* One past the last cell in [@lo, @hi) that differs from what the terminal shows, or @lo. */
static int last_diff(const struct canvas_cell *row, const struct canvas_cell *shown, int lo, int hi)
{
	while (hi - TERMOUT_BLOCK >= lo &&
	       memcmp(&row[hi - TERMOUT_BLOCK], &shown[hi - TERMOUT_BLOCK],
		      TERMOUT_BLOCK * sizeof(*row)) == 0)
		hi -= TERMOUT_BLOCK;
	while (hi > lo && same_cell(&row[hi - 1], &shown[hi - 1]))
		hi--;
	return hi;
}

/* Appends the cells of row @y that differ from what the terminal shows (all of them when
 * @all), and records them as shown; on the fast path only cells in [@lo, @hi) differ. */
static void send_row(struct termout *t, const struct canvas *c, int y, bool all, int lo, int hi,
		     const struct termout_style *styles, int nstyles)
{
	const struct canvas_cell *row = c->cells + (size_t)y * c->w;
	struct canvas_cell *shown = t->shown + (size_t)y * c->w;
	bool fast = !all && termout_fast_path;
	if (!fast)
		lo = 0, hi = c->w;
	if (fast) {
		lo = first_diff(row, shown, lo, hi);
		hi = last_diff(row, shown, lo, hi);
		if (lo > 0) /* the left half of a wide character whose right half changed */
			lo--;
		if (t->cy == y && t->cx >= 0 && t->cx < lo)
			lo = t->cx; /* from the cursor, unchanged cells may be sent (short_gap) */
	}
	/* the role and attributes of the last cell sent: its style is the terminal's */
	int last_role = -1;
	unsigned last_attr = 0;
	for (int x = lo; x < hi; x++) {
		const struct canvas_cell *cell = &row[x];
		if (cell->width == 0)
			continue; /* the right half of a wide character: sent with its left half */
		bool wide = cell->width == 2 && x + 1 < c->w;
		bool at_cursor = t->cy == y && t->cx == x;
		if (!all && same_cell(cell, &shown[x])) {
			if (fast && !wide && !at_cursor) {
				/* unchanged up to the next changed cell: go there at once, but stop
				 * at the cursor (short_gap) and at a wide character (its right half
				 * may have changed) */
				int next = first_diff(row, shown, x + 1, hi);
				if (t->cy == y && t->cx > x && t->cx < next)
					next = t->cx;
				if (next - 1 > x && row[next - 1].width == 2)
					next--;
				x = next - 1;
				continue;
			}
			if ((!wide || same_cell(&row[x + 1], &shown[x + 1])) &&
			    !(at_cursor && short_gap(t, row, shown, x, c->w, styles, nstyles)))
				continue;
		}
		/* the bottom-right cell cannot be written without scrolling on some terminals */
		if (y == c->h - 1 && x + cell->width >= c->w) {
			shown[x] = *cell;
			continue;
		}
		if (!at_cursor)
			move_to(t, y, x);
		if (!fast || cell->role != last_role || cell->attr != last_attr) {
			struct termout_style s = style_of(cell, styles, nstyles);
			set_style(t, &s);
			last_role = cell->role;
			last_attr = cell->attr;
		}
		if (cell->ch[0] != CANVAS_LONG && cell->ch[0] && !cell->ch[1] &&
		    t->len < t->cap) { /* one byte: ASCII */
			t->buf[t->len++] = cell->ch[0];
		} else {
			size_t n;
			const char *text = canvas_cell_text(c, cell, &n);
			put(t, n ? text : " ", n ? n : 1);
		}
		shown[x] = *cell;
		if (wide)
			shown[x + 1] = row[x + 1];
		t->cx = x + (wide ? 2 : 1);
		if (t->cx >= c->w)
			t->cx = -1; /* at the margin: where the next character goes depends on the
				       terminal */
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pfd = {.fd = fd, .events = POLLOUT};
				if (poll(&pfd, 1, 1000) > 0)
					continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

long termout_frame(struct termout *t, struct canvas *c, const struct termout_style *styles,
		   int nstyles, int cur_y, int cur_x, int fd)
{
	if (c != t->src) /* another canvas: its long texts' indices are not those shown */
		t->full = true;
	t->src = c;
	if (c->w != t->w || c->h != t->h || !t->shown) {
		free(t->shown);
		free(t->blank);
		t->shown = calloc((size_t)c->w * c->h + 1, sizeof(*t->shown));
		t->blank = calloc((size_t)c->h + 1, 1);
		bool ok = t->shown && t->blank;
		t->w = ok ? c->w : 0;
		t->h = ok ? c->h : 0;
		t->full = true;
		memset(t->addr_pos, 0, sizeof(t->addr_pos)); /* positions of the old size */
		if (!ok) {
			free(t->shown), free(t->blank);
			t->shown = NULL, t->blank = NULL;
			return -1;
		}
	}
	t->len = 0;
	t->oom = false;
	bool all = t->full;
	if (all) {
		t->style_known = false;
		struct termout_style plain = {-1, -1, 0};
		set_style(t, &plain);
		put_id(t, CAP_CLEAR);
		t->cy = t->cx = -1;
	}
	for (int y = 0; y < c->h; y++) {
		/* a row the canvas left blank this frame, already blank on the terminal: nothing to
		 * compare (most rows of a screen with a few CPUs; passed eight at a time) */
		uint64_t used8, blank8;
		while (!all && y + 8 <= c->h &&
		       (memcpy(&used8, &c->used[y], 8), memcpy(&blank8, &t->blank[y], 8),
			used8 == 0 && blank8 == 0x0101010101010101ull))
			y += 8;
		if (y >= c->h)
			break;
		bool blank = !c->used[y];
		if (!all && blank && t->blank[y]) {
			canvas_sent(c, y);
			continue;
		}
		t->blank[y] = blank;
		/* the cells written since the row was last sent (the others are as sent: the
		 * canvas widens the range on every write); the general path compares them all */
		int lo = 0, hi = c->w;
		if (!all && termout_fast_path && !canvas_written(c, y, &lo, &hi))
			continue;
		if (!all &&
		    memcmp(c->cells + (size_t)y * c->w + lo, t->shown + (size_t)y * c->w + lo,
			   (size_t)(hi - lo) * sizeof(*c->cells)) == 0) {
			canvas_sent(c, y);
			continue;
		}
		send_row(t, c, y, all, lo, hi, styles, nstyles);
		canvas_sent(c, y);
	}
	if (cur_y >= 0)
		move_to(t, cur_y, cur_x);
	if (t->oom) { /* what was sent is not known: the next frame in full */
		t->full = true;
		return -1;
	}
	t->full = false;
	if (t->len == 0)
		return 0;
	if (write_all(fd, t->buf, t->len) < 0) {
		t->full = true;
		return -1;
	}
	return (long)t->len;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_termout.c: the bytes termout sends with its kept terminfo strings and its changed-range
 * scan are the bytes it sends making every string with tiparm/tputs and comparing every cell:
 * random frames (text, wide characters, roles, attributes), theme changes, resizes, cursor
 * positions, on xterm-256color's and vt100's terminfo entries. */
#include "canvas.h"
#include "harness.h"
#include "termout.h"
#include "theme.h"
#include <curses.h>
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <term.h>
#include <unistd.h>

#define NROLES 6

static uint64_t rng = 0x2545f4914f6cdd1dull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const words[] = {
    "cpi",
    "0.512",
    "  all",
    "n/a",
    "#42",
    "\xe4\xb8\x96",
    "\xe2\x96\x88",
    "ab cd",
    "12345678",
    "x",
    "e\xcc\x81\xcc\x82", /* longer than a cell holds: texts in the canvas's table */
    "\xe4\xb8\xad\xcc\x81"};

static void random_styles(struct termout_style *st)
{
	static const int colours[] = {-1, 0, 1, 7, 8, 15, 33, 200, 255};
	for (int r = 0; r < NROLES; r++)
		st[r] = (struct termout_style){
		    .fg = colours[rnd(sizeof(colours) / sizeof(colours[0]))],
		    .bg = colours[rnd(sizeof(colours) / sizeof(colours[0]))],
		    .attr = rnd(32),
		};
}

/* A frame that keeps most of the last one (as ticks do) and changes some cells. */
static void random_frame(struct canvas *c, unsigned seed)
{
	uint64_t keep = rng;
	rng = 0x9e3779b97f4a7c15ull ^ (seed / 4); /* four frames alike, then another layout */
	canvas_clear(c);
	for (int i = 0; i < 12; i++)
		canvas_putx(c, (int)rnd((unsigned)c->w), (int)rnd((unsigned)c->h), (int)rnd(NROLES),
			    rnd(32), -1, 0, words[rnd(sizeof(words) / sizeof(words[0]))]);
	rng = keep;
	for (int i = 0; i < 3; i++) /* the values that change from tick to tick */
		canvas_putx(c, (int)rnd((unsigned)c->w), (int)rnd((unsigned)c->h), (int)rnd(NROLES),
			    0, -1, 0, words[rnd(sizeof(words) / sizeof(words[0]))]);
}

/* A table as the screen draws it on a wide canvas: the same labels every frame and numbers that
 * change in place, some next to each other, some far apart, a wide character before one of them
 * (the compare skips runs of unchanged cells in blocks). */
static void table_frame(struct canvas *c, unsigned f)
{
	canvas_clear(c);
	canvas_put(c, 0, 0, 1, "CPU        cpi        ipc    ghz GHz     util %");
	canvas_put(c, c->w - 9, 0, 2, "SIMULATED");
	for (int y = 1; y < c->h - 1; y++) {
		char num[16];
		snprintf(num, sizeof(num), "%4d", y - 1);
		canvas_put(c, 0, y, 3, num);
		for (int k = 0; k < 6; k++) {
			unsigned v = (f * (unsigned)(y + 3 * k + 1) * 2654435761u) >> (k * 3);
			snprintf(num, sizeof(num), "%u.%03u", v % 7, v % 1000);
			if (rnd(8) == 0)
				canvas_put(c, 6 + k * 30 - 2, y, 4, "\xe4\xb8\x96");
			canvas_putx(c, 6 + k * 30, y, v % 4 ? 1 : 2, 0, 9, CANVAS_ALIGN_RIGHT, num);
			if (rnd(5) == 0) /* right next to it: a short gap */
				canvas_put(c, 6 + k * 30 + 10 + (int)rnd(4), y, 5,
					   rnd(2) ? "^" : "*");
		}
	}
	canvas_fill(c, 0, c->h - 1, c->w, 1, 5, NULL);
	canvas_put(c, 1, c->h - 1, 5, f % 3 ? " all" : "total");
}

/* A frame as the views draw one: rows kept under keys (canvas_keep) and spans in them kept on
 * their own (canvas_keep_span, _in), the others drawn anew, and every other way to write a cell:
 * text over wide characters, fills, paints, combining marks, writes to kept rows not claimed.
 * Only the cells written since the last frame are compared on the fast path: a write the canvas
 * did not record shows as bytes the general path sends and the fast one does not. */
static void kept_frame(struct canvas *c, unsigned f)
{
	canvas_begin(c);
	for (int y = 0; y < c->h; y++) {
		unsigned r = rnd(16);
		if (r < 2)
			continue; /* not drawn: a kept row goes blank */
		uint64_t key = canvas_hash(0, &y, sizeof(y)) + (r < 4 ? f : f / 8);
		if (r < 12 && canvas_keep(c, y, key))
			goto spans;
		canvas_put(c, 0, y, 1, y % 3 ? "label" : "\xe4\xb8\x96 wide");
		canvas_fill(c, 10, y, 5, 1, 2, rnd(2) ? NULL : "\xe2\x96\x88");
	spans:
		if (r >= 12) { /* a row not kept: text over what is there */
			canvas_put(c, (int)rnd((unsigned)c->w), y, 3,
				   words[rnd(sizeof(words) / sizeof(words[0]))]);
			continue;
		}
		for (int k = 0; k < 4; k++) {
			int x = 16 + k * 12;
			uint64_t sk = (uint64_t)(k + 1) * 977 + (rnd(4) ? f / 4 : f);
			char num[16];
			snprintf(num, sizeof(num), "%u", (f * (unsigned)(y + k + 1)) % 9973);
			bool kept = k == 3 ? canvas_keep_span_in(c, y, k, x, 10, sk, 4)
					   : canvas_keep_span(c, y, k, x, 10, sk);
			if (!kept)
				canvas_putx(c, x, y, 1 + k % 3, 0, 10, CANVAS_ALIGN_RIGHT,
					    rnd(5) ? num
						   : "\xe4\xb8\xad\xcc\x81"
						     "e\xcc\x81");
		}
		if (rnd(6) == 0) /* a mark painted over a kept row's cells */
			canvas_paint(c, (int)rnd((unsigned)c->w), y, 3, 1, 5, CANVAS_BOLD);
	}
	canvas_end(c);
}

/* The bytes of one frame sent to a temporary file. */
static size_t frame_bytes(struct termout *t, struct canvas *c, const struct termout_style *st,
			  int cy, int cx, int fd, char *out, size_t len)
{
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	long n = termout_frame(t, c, st, NROLES, cy, cx, fd);
	if (n <= 0)
		return 0;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 0;
	ssize_t got = read(fd, out, len);
	return got > 0 ? (size_t)got : 0;
}

/* One frame of @c sent by @fast with termout's fast path and by @slow with the general one:
 * true when both send the same bytes; counts a frame that sent any in @sent. */
static bool both_paths_same(struct termout *fast, struct termout *slow, struct canvas *c,
			    const struct termout_style *st, int cy, int cx, int fd, int *sent)
{
	static char a[1 << 17], b[1 << 17];
	termout_fast_path = true;
	size_t na = frame_bytes(fast, c, st, cy, cx, fd, a, sizeof(a));
	termout_fast_path = false;
	size_t nb = frame_bytes(slow, c, st, cy, cx, fd, b, sizeof(b));
	termout_fast_path = true;
	*sent += na > 0;
	if (na == nb && memcmp(a, b, na) == 0)
		return true;
	CHECK(0, "%zu bytes on the fast path, %zu on the general one", na, nb);
	return false;
}

static void run(const char *term)
{
	int err = 0;
	int null = open("/dev/null", O_WRONLY);
	if (setupterm((char *)term, null, &err) != OK) {
		SKIP("no terminfo entry for %s here", term);
		close(null);
		return;
	}
	char path[] = "/tmp/test_termout.XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	struct canvas *c = canvas_new(60, 12);
	struct termout *fast = termout_new(), *slow = termout_new();
	struct termout_style st[NROLES];
	random_styles(st);
	int bad = 0, sent = 0;
	for (int f = 0; f < 400 && bad < 3; f++) {
		if (f % 37 == 36) { /* a theme change: new styles, everything again */
			random_styles(st);
			termout_invalidate(fast), termout_invalidate(slow);
		}
		if (f % 53 == 52) /* a resize */
			canvas_resize(c, 30 + (int)rnd(60), 5 + (int)rnd(15));
		random_frame(c, (unsigned)f);
		int cy = rnd(3) ? -1 : (int)rnd((unsigned)c->h), cx = (int)rnd((unsigned)c->w);
		if (!both_paths_same(fast, slow, c, st, cy, cx, fd, &sent)) {
			CHECK(0, "%s frame %d differs", term, f);
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %d frames differ", term, bad);
	CHECK(sent > 300, "%s: %d frames sent something", term, sent);
	/* a wide table whose numbers change in place */
	canvas_resize(c, 200, 9);
	st[1] = st[0]; /* numbers in the blank cells' style: unchanged blanks may be sent again */
	termout_invalidate(fast), termout_invalidate(slow);
	bad = 0, sent = 0;
	for (int f = 0; f < 200 && bad < 3; f++) {
		if (f == 100) /* taller: cursor addresses that share a kept slot */
			canvas_resize(c, 200, 24);
		table_frame(c, (unsigned)f);
		/* the cursor left among a row's unchanged cells, a few before a number */
		int cy = rnd(2) ? -1 : (int)rnd((unsigned)c->h),
		    cx = 6 + 30 * (int)rnd(6) + (int)rnd(9);
		if (!both_paths_same(fast, slow, c, st, cy, cx, fd, &sent)) {
			CHECK(0, "%s table frame %d differs", term, f);
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %d table frames differ", term, bad);
	CHECK(sent > 150, "%s: %d table frames sent something", term, sent);
	/* kept rows and spans: the fast path compares only the cells written since */
	canvas_resize(c, 80, 16);
	termout_invalidate(fast), termout_invalidate(slow);
	bad = 0, sent = 0;
	for (int f = 0; f < 300 && bad < 3; f++) {
		kept_frame(c, (unsigned)f);
		int cy = rnd(2) ? -1 : (int)rnd((unsigned)c->h), cx = (int)rnd((unsigned)c->w);
		if (!both_paths_same(fast, slow, c, st, cy, cx, fd, &sent)) {
			CHECK(0, "%s kept frame %d differs", term, f);
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %d kept frames differ", term, bad);
	CHECK(sent > 250, "%s: %d kept frames sent something", term, sent);
	termout_free(fast), termout_free(slow);
	canvas_free(c);
	close(fd);
	close(null);
	del_curterm(cur_term); /* the next entry gets one of its own */
}

/* Long texts (a character with combining marks, kept in the canvas's table) reach the terminal
 * as their UTF-8, and one replaced by another in the same cell is sent again. */
static void long_texts(void)
{
	int err = 0, null = open("/dev/null", O_WRONLY);
	if (setupterm((char *)"xterm-256color", null, &err) != OK) {
		SKIP("no terminfo entry for xterm-256color here");
		close(null);
		return;
	}
	char path[] = "/tmp/test_termout.XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	struct canvas *c = canvas_new(20, 3);
	struct termout *t = termout_new();
	struct termout_style st[NROLES] = {{-1, -1, 0}};
	static char out[1 << 14];
	const char *a = "e\xcc\x81\xcc\x82", *b = "o\xcc\x83\xcc\x84";
	canvas_put(c, 4, 1, 0, a);
	size_t n = frame_bytes(t, c, st, -1, 0, fd, out, sizeof(out));
	CHECK(n > 0 && memmem(out, n, a, strlen(a)), "the first frame sends the long text");
	canvas_put(c, 4, 1, 0, b);
	n = frame_bytes(t, c, st, -1, 0, fd, out, sizeof(out));
	CHECK(n > 0 && memmem(out, n, b, strlen(b)) && !memmem(out, n, a, strlen(a)),
	      "another long text in the same cell is sent, the first is not");
	n = frame_bytes(t, c, st, -1, 0, fd, out, sizeof(out));
	CHECK_INT((int)n, 0);
	termout_free(t);
	canvas_free(c);
	close(fd);
	close(null);
	del_curterm(cur_term);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	run("xterm-256color");
	run("vt100");
	long_texts();
	return harness_done();
}

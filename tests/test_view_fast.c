/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_view_fast.c: the screen's fast paths against the general ones: the canvas's
 * printable-ASCII path stores the cells the general path stores (random strings of ASCII, UTF-8,
 * wide, combining and control characters over random canvases; clipping, right alignment,
 * ellipsis, fills and widths), and the table's number formatting gives printf's bytes. */
#include "canvas.h"
#include "harness.h"
#include "output.h"
#include "views.h"
#include <locale.h>
#include <stdint.h>

#define W 23
#define H 3

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Pieces of strings: mostly plain ASCII, sometimes what the fast path must leave alone. */
static const char *const pieces[] = {
    "a",
    "Z",
    "7",
    " ",
    ".",
    "%",
    "\\",
    "~",
    "#",
    "ab",
    "n/a",
    "\xc3\xa9",	    /* é */
    "\xe4\xb8\x96", /* 世: two columns */
    "\xcc\x81",	    /* a combining acute */
    "\x1b",	    /* ESC */
    "\x7f",	    /* DEL */
    "\t",	    /* a control */
    "\xff",	    /* invalid UTF-8 */
    "\xe2\x80\xae", /* a bidirectional control */
    "\xe2\x96\x88", /* a full block */
};
#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))

/* A random string; @ascii: printable ASCII pieces only. */
static void random_text(char *buf, size_t len, bool ascii)
{
	int n = (int)rnd(14);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *p = pieces[rnd(ascii ? 11 : NPIECES)];
		if (strlen(buf) + strlen(p) + 1 < len)
			strcat(buf, p);
	}
}

/* The same random background on both canvases (wide characters included, to be repaired). */
static void background(struct canvas *a, struct canvas *b)
{
	canvas_clear(a), canvas_clear(b);
	bool fast = canvas_fast_path;
	canvas_fast_path = false;
	for (int k = 0; k < 6; k++) {
		char t[64];
		random_text(t, sizeof(t), false);
		int x = (int)rnd(W), y = (int)rnd(H), role = (int)rnd(5);
		canvas_put(a, x, y, role, t);
		canvas_put(b, x, y, role, t);
	}
	canvas_fast_path = fast;
}

static bool same(const struct canvas *a, const struct canvas *b)
{
	if (memcmp(a->cells, b->cells, sizeof(*a->cells) * W * H) != 0)
		return false;
	for (int y = 0; y < H; y++)
		if (a->used[y] != b->used[y])
			return false;
	return true;
}

static char *dump(const struct canvas *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	canvas_dump(c, f);
	fclose(f);
	return buf;
}

static void test_putx(bool ascii_mode, bool ascii_text)
{
	struct canvas *fast = canvas_new(W, H), *slow = canvas_new(W, H);
	canvas_set_ascii(fast, ascii_mode), canvas_set_ascii(slow, ascii_mode);
	int bad = 0;
	for (int i = 0; i < 4000 && bad < 3; i++) {
		background(fast, slow);
		char t[64];
		random_text(t, sizeof(t), ascii_text);
		int x = (int)rnd(W + 10) - 6, y = (int)rnd(H + 2) - 1;
		int maxw = (int)rnd(W + 4) - 1, role = (int)rnd(9);
		unsigned flags = rnd(4), attr = rnd(32);
		canvas_fast_path = true;
		int rf = canvas_putx(fast, x, y, role, attr, maxw, flags, t);
		int wf = canvas_str_width(t);
		canvas_fast_path = false;
		int rs = canvas_putx(slow, x, y, role, attr, maxw, flags, t);
		int ws = canvas_str_width(t);
		canvas_fast_path = true;
		if (rf != rs || wf != ws || !same(fast, slow)) {
			char *df = dump(fast), *ds = dump(slow);
			CHECK(0,
			      "putx(x %d, y %d, maxw %d, flags %u, \"%s\"): %d/%d columns, "
			      "width %d/%d, fast:\n%sgeneral:\n%s",
			      x, y, maxw, flags, t, rf, rs, wf, ws, df, ds);
			free(df), free(ds);
			bad++;
		}
	}
	CHECK(bad == 0, "%d cases differ (ascii mode %d)", bad, ascii_mode);
	canvas_free(fast), canvas_free(slow);
}

static void test_fill(void)
{
	struct canvas *fast = canvas_new(W, H), *slow = canvas_new(W, H);
	static const char *const chars[] = {
	    " ", ".", "#", "\\", NULL, "", "\xe4\xb8\x96", "\x1b", "\xe2\x96\x88"};
	int bad = 0;
	for (int i = 0; i < 2000; i++) {
		background(fast, slow);
		const char *ch = chars[rnd(sizeof(chars) / sizeof(chars[0]))];
		int x = (int)rnd(W + 6) - 3, y = (int)rnd(H + 2) - 1;
		int w = (int)rnd(W + 6) - 1, h = (int)rnd(H + 1), role = (int)rnd(9);
		canvas_fast_path = true;
		canvas_fill(fast, x, y, w, h, role, ch);
		canvas_fast_path = false;
		canvas_fill(slow, x, y, w, h, role, ch);
		canvas_fast_path = true;
		if (!same(fast, slow))
			bad++;
	}
	CHECK(bad == 0, "%d fills differ", bad);
	canvas_free(fast), canvas_free(slow);
}

/* A few cases spelled out, so a fast path that breaks both paths alike still fails. */
static void test_known(void)
{
	struct canvas *c = canvas_new(8, 1);
	canvas_fill(c, 0, 0, 8, 1, 0, ".");
	CHECK_INT(canvas_putx(c, 0, 0, 1, 0, 6, CANVAS_ALIGN_RIGHT, "12.5"), 4);
	CHECK_INT(canvas_putx(c, 5, 0, 1, 0, -1, CANVAS_ELLIPSIS, "abcdef"), 3);
	char *d = dump(c);
	CHECK_STR(d, "..12.ab\xe2\x80\xa6\n");
	free(d);
	canvas_fill(c, 0, 0, 8, 1, 0, ".");
	canvas_put(c, 2, 0, 0,
		   "\xe4\xb8\x96"); /* a wide character, then ASCII over its right half */
	CHECK_INT(canvas_put(c, 3, 0, 2, "x\\"), 2);
	d = dump(c);
	CHECK_STR(d, ".. x\\...\n");
	free(d);
	CHECK_INT(canvas_cell(c, 2, 0)->width, 1);
	CHECK_INT(canvas_cell(c, 3, 0)->role, 2);
	canvas_free(c);
}

/* output_format_metric as it was made with snprintf: the reference (n/a and SI prefixes are
 * output_format_value's, unchanged). */
static void ref_format_metric(double v, double resolution, char *buf, size_t len)
{
	int d = -1;
	if (resolution > 0) {
		d = (int)floor(-log10(resolution) + 0.5);
		d = d < 0 ? 0 : d > 3 ? 3 : d;
	}
	if (d >= 0 && !isnan(v))
		snprintf(buf, len, "%.*f", d, v);
	else if (isnan(v) || fabs(v) >= 1e15)
		output_format_value(v, buf, len);
	else if (v == floor(v) || fabs(v) >= 1e7)
		snprintf(buf, len, "%.0f", v);
	else if (v != 0 && fabs(v) < 1e-3)
		snprintf(buf, len, "%.3g", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

/* output_format_metric (numfmt) against snprintf, on values of every magnitude and resolution
 * the table shows, halfway cases included, and into short buffers (cut as snprintf cuts). */
static void test_format(void)
{
	/* steps at and next to the bounds 10^(0.5 - d) between d and d - 1 decimals */
	static const double res[] = {0,
				     1,
				     0.5,
				     0.25,
				     0.1,
				     0.0099,
				     0.01,
				     0.001,
				     1e-5,
				     2,
				     100,
				     -1,
				     0.31622776601683794,
				     0.3162277660168379,
				     0.316227766016838,
				     0.3162277,
				     0.3162278,
				     0.031622776601683794,
				     0.03162277660168379,
				     0.0031622776601683794,
				     0.003162277660168379,
				     0.0031622,
				     3.1622776601683795,
				     0.032,
				     0.0032};
	static const double fixed[] = {
	    0,	       -0.0,	 0.5,	    1.5,      2.5,    0.0005, 0.0015, 999.9995,	 1000,
	    1e7 - 0.5, 1e7,	 123456.5,  1e15 - 1, 1e15,   -2.5,   1e-3,   9.9995e-4, 1e-300,
	    NAN,       INFINITY, -INFINITY, 0.125,    0.0625, 99.95,  100,    2.596,	 64303.4};
	int bad = 0, n = 0;
	for (size_t r = 0; r < sizeof(res) / sizeof(res[0]); r++) {
		for (int i = 0; i < 4000 + (int)(sizeof(fixed) / sizeof(fixed[0])); i++) {
			double v;
			if (i < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
				v = fixed[i];
			} else { /* random magnitudes from 1e-8 to 1e16, both signs, some exact
				    halves */
				double m = (double)rnd(1000000) / 1000.0;
				v = m * pow(10, (int)rnd(25) - 9) * (rnd(4) ? 1 : -1);
				if (rnd(5) == 0)
					v = floor(v) + 0.5;
			}
			char want[48], got[48];
			size_t len = i % 7 == 6 ? 1 + rnd(12) : sizeof(want);
			ref_format_metric(v, res[r], want, len);
			output_format_metric(v, res[r], got, len);
			n++;
			if (strcmp(want, got) != 0 && bad++ < 5)
				CHECK(0, "%.17g at resolution %g: \"%s\", want \"%s\"", v, res[r],
				      got, want);
		}
	}
	CHECK(bad == 0, "%d of %d values differ", bad, n);
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		fprintf(stderr, "C.UTF-8 locale missing: using the built-in width table\n");
	test_known();
	for (int m = 0; m < 2; m++) {
		test_putx(m, true);
		test_putx(m, false);
	}
	test_fill();
	test_format();
	return harness_done();
}

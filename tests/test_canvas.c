/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_canvas.c: clipping at every edge, UTF-8 and wide cells, bars, sparklines, dumps. */
#include "canvas.h"
#include "harness.h"
#include <locale.h>
#include <math.h>

static char *dump(const struct canvas *c, int roles)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (roles)
		canvas_dump_roles(c, f);
	else
		canvas_dump(c, f);
	fclose(f);
	return buf;
}

/* Each case: write @text at (x, y) with @maxw/@flags onto a 6x3 canvas pre-filled with '.'. */
static const struct {
	int line;
	int x, y, maxw;
	unsigned flags;
	const char *text;
	int ret;
	const char *want;
} put_cases[] = {
    {__LINE__, 0, 0, -1, 0, "abc", 3, "abc...\n......\n......\n"},
    {__LINE__, 4, 1, -1, 0, "abc", 2, "......\n....ab\n......\n"},
    {__LINE__, -2, 2, -1, 0, "abcd", 2, "......\n......\ncd....\n"},
    {__LINE__, -9, 0, -1, 0, "abc", 0, "......\n......\n......\n"},
    {__LINE__, 6, 0, -1, 0, "abc", 0, "......\n......\n......\n"},
    {__LINE__, 0, -1, -1, 0, "abc", 0, "......\n......\n......\n"},
    {__LINE__, 0, 3, -1, 0, "abc", 0, "......\n......\n......\n"},
    {__LINE__, 1, 0, 2, 0, "abcdef", 2, ".ab...\n......\n......\n"},
    {__LINE__, 0, 0, -1, CANVAS_ELLIPSIS, "abcdefgh", 6, "abcde\xe2\x80\xa6\n......\n......\n"},
    {__LINE__, 1, 0, 3, CANVAS_ELLIPSIS, "abcdefgh", 3, ".ab\xe2\x80\xa6..\n......\n......\n"},
    {__LINE__, 0, 0, -1, CANVAS_ELLIPSIS, "abcdef", 6, "abcdef\n......\n......\n"},
    {__LINE__, 0, 0, 5, CANVAS_ALIGN_RIGHT, "ab", 2, "...ab.\n......\n......\n"},
    {__LINE__, 0, 0, -1, 0, "\xc3\xa9t\xc3\xa9", 3, "\xc3\xa9t\xc3\xa9...\n......\n......\n"},
    {__LINE__, 0, 0, -1, 0, "a\tb\x1b", 6, "a\\x09b\n......\n......\n"},
    {__LINE__, 0, 0, -1, 0,
     "a\xff"
     "b",
     6, "a\\xffb\n......\n......\n"},
    /* a bidirectional override and a C1 CSI (as UTF-8) show escaped, never raw */
    {__LINE__, 0, 0, -1, 0, "\xe2\x80\xae", 6, "\\u202e\n......\n......\n"},
    {__LINE__, 0, 0, -1, 0, "\xc2\x9b", 6, "\\xc2\\x\n......\n......\n"},
    /* wide characters: two columns; one that does not fit leaves a blank */
    {__LINE__, 0, 0, -1, 0, "\xe4\xb8\xad\xe6\x96\x87", 4,
     "\xe4\xb8\xad\xe6\x96\x87..\n......\n......\n"},
    {__LINE__, 3, 0, -1, 0, "\xe4\xb8\xad\xe6\x96\x87", 3, "...\xe4\xb8\xad\n......\n......\n"},
    {__LINE__, -1, 0, -1, 0,
     "\xe4\xb8\xad"
     "a",
     2, " a....\n......\n......\n"},
    /* combining mark joins the previous cell */
    {__LINE__, 0, 0, -1, 0, "e\xcc\x81x", 2, "e\xcc\x81x....\n......\n......\n"},
    /* texts longer than a cell holds: a wide character with a mark, a character with marks up
     * to CANVAS_CELL_BYTES - 1 bytes (the sixth mark is dropped) */
    {__LINE__, 0, 0, -1, 0, "\xe4\xb8\xad\xcc\x81x", 3,
     "\xe4\xb8\xad\xcc\x81x...\n......\n......\n"},
    {__LINE__, 1, 0, -1, 0, "e\xcc\x81\xcc\x82\xcc\x83\xcc\x84\xcc\x85\xcc\x86x", 2,
     ".e\xcc\x81\xcc\x82\xcc\x83\xcc\x84\xcc\x85x...\n......\n......\n"},
};

static void test_put(void)
{
	for (size_t i = 0; i < sizeof(put_cases) / sizeof(put_cases[0]); i++) {
		struct canvas *c = canvas_new(6, 3);
		canvas_fill(c, 0, 0, 6, 3, 0, ".");
		int r = canvas_putx(c, put_cases[i].x, put_cases[i].y, 1, 0, put_cases[i].maxw,
				    put_cases[i].flags, put_cases[i].text);
		char *got = dump(c, 0);
		CHECK(strcmp(got, put_cases[i].want) == 0, "line %d: got\n%swant\n%s",
		      put_cases[i].line, got, put_cases[i].want);
		CHECK(r == put_cases[i].ret, "line %d: returned %d, want %d", put_cases[i].line, r,
		      put_cases[i].ret);
		free(got);
		canvas_free(c);
	}
}

/* Texts too long for a cell: each kept once (equal cells, equal texts), read back through
 * canvas_cell_text, kept over a resize, and overwritten as any cell is. */
static void test_long_texts(void)
{
	const char *a = "e\xcc\x81\xcc\x82", *b = "\xe4\xb8\xad\xcc\x81";
	struct canvas *c = canvas_new(8, 2);
	canvas_put(c, 0, 0, 1, a);
	canvas_put(c, 3, 1, 2, a);
	canvas_put(c, 5, 0, 1, b);
	CHECK_INT(c->nlongs, 2);
	const struct canvas_cell *x = canvas_cell(c, 0, 0), *y = canvas_cell(c, 3, 1);
	CHECK(memcmp(x->ch, y->ch, sizeof(x->ch)) == 0, "the same text: the same cell text bytes");
	size_t n;
	const char *t = canvas_cell_text(c, x, &n);
	CHECK(n == strlen(a) && memcmp(t, a, n) == 0, "the first long text read back");
	t = canvas_cell_text(c, canvas_cell(c, 5, 0), &n);
	CHECK(n == strlen(b) && memcmp(t, b, n) == 0, "the wide one read back");
	CHECK_INT(canvas_cell(c, 5, 0)->width, 2);
	t = canvas_cell_text(c, canvas_cell(c, 6, 0), &n);
	CHECK_INT((int)n, 0);
	canvas_put(c, 0, 0, 1, "z");
	t = canvas_cell_text(c, canvas_cell(c, 0, 0), &n);
	CHECK(n == 1 && t[0] == 'z', "a long text overwritten");
	canvas_resize(c, 9, 3);
	canvas_put(c, 0, 2, 1, b);
	CHECK_INT(c->nlongs, 2);
	t = canvas_cell_text(c, canvas_cell(c, 0, 2), &n);
	CHECK(n == strlen(b) && memcmp(t, b, n) == 0, "after a resize");
	canvas_free(c);
}

static void test_wide_overwrite(void)
{
	struct canvas *c = canvas_new(6, 1);
	char *got;

	canvas_put(c, 0, 0, 0, "\xe4\xb8\xad\xe6\x96\x87"); /* 中文 */
	canvas_put(c, 1, 0, 0, "x");			    /* right half of 中 */
	got = dump(c, 0);
	CHECK_STR(got, " x\xe6\x96\x87\n");
	free(got);
	canvas_put(c, 2, 0, 0, "y"); /* left half of 文 */
	got = dump(c, 0);
	CHECK_STR(got, " xy\n");
	free(got);
	/* a wide character at the last column does not fit */
	canvas_clear(c);
	canvas_put(c, 5, 0, 0, "\xe4\xb8\xad");
	CHECK(canvas_cell(c, 5, 0)->width == 1 && canvas_cell(c, 5, 0)->ch[0] == ' ', "last col");
	CHECK(canvas_cell(c, 6, 0) == NULL, "outside is NULL");
	canvas_free(c);
}

static void test_golden(void)
{
	struct canvas *c = canvas_new(20, 4);
	const struct canvas_segment segs[] = {
	    {3, 0.25, 'a', NULL}, {4, 0.5, 'b', NULL}, {5, 0.1, 'c', NULL}};
	const double spark[] = {0, 1, 2, 3, 4, 5, 6, 7, NAN, 7};
	char *got;

	canvas_printf(c, 0, 0, 1, "CPU %2d %5.1f%%", 3, 42.25);
	canvas_hbar(c, 0, 1, 10, 2, 0.55);
	canvas_stacked_bar(c, 0, 2, 20, segs, 3);
	canvas_sparkline(c, 0, 3, 6, spark, 10, 0, 7);
	got = dump(c, 0);
	CHECK_STR(got, "CPU  3  42.2%\n"
		       "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8c\n"
		       "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"
		       "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"
		       "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"
		       "\xe2\x96\x88\xe2\x96\x88\n"
		       "\xe2\x96\x81\xe2\x96\x82\xe2\x96\x83\xe2\x96\x84\xe2\x96\x85\xe2\x96\x86"
		       "\xe2\x96\x87\xe2\x96\x88 \xe2\x96\x88\n");
	free(got);
	got = dump(c, 1);
	CHECK_STR(got, "1111111111111\n222222\n33333444444444455\n6666666666\n");
	free(got);

	canvas_clear(c);
	canvas_set_ascii(c, true);
	canvas_hbar(c, 0, 1, 10, 2, 0.55);
	canvas_stacked_bar(c, 0, 2, 20, segs, 3);
	canvas_sparkline(c, 0, 3, 6, spark, 10, 0, 7);
	canvas_putx(c, 0, 0, 1, 0, 4, CANVAS_ELLIPSIS, "abcdef");
	got = dump(c, 0);
	CHECK_STR(got, "abc~\n######\naaaaabbbbbbbbbbcc\n_.-:=+*# #\n");
	free(got);
	/* a segment's own character (the stacked bar of a mode's shares reads without colour) */
	const struct canvas_segment own[] = {{3, 0.2, '#', "\xe2\x96\x93"},
					     {4, 0.3, '=', "\xe2\x96\x91"}};
	canvas_clear(c);
	canvas_stacked_bar(c, 0, 0, 10, own, 2);
	got = dump(c, 0);
	CHECK_STR(got, "##===\n\n\n\n");
	free(got);
	canvas_set_ascii(c, false);
	canvas_clear(c);
	canvas_stacked_bar(c, 0, 0, 10, own, 2);
	got = dump(c, 0);
	CHECK_STR(got, "\xe2\x96\x93\xe2\x96\x93\xe2\x96\x91\xe2\x96\x91\xe2\x96\x91\n\n\n\n");
	free(got);
	canvas_set_ascii(c, true);

	/* auto range, clipping at the right edge */
	canvas_clear(c);
	canvas_sparkline(c, 17, 0, 6, spark, 10, 0, 0);
	got = dump(c, 0);
	CHECK_STR(got, "                 _.-\n\n\n\n");
	free(got);
	canvas_free(c);
}

static void test_fill_paint_resize(void)
{
	struct canvas *c = canvas_new(4, 2);
	char *got;

	canvas_fill(c, -1, -1, 3, 2, 7, "#");
	canvas_fill(c, 2, 1, 10, 10, 8, "\xe4\xb8\xad");
	canvas_paint(c, 3, 0, 5, 1, 9, CANVAS_BOLD);
	got = dump(c, 0);
	CHECK_STR(got, "##\n  \xe4\xb8\xad\n");
	free(got);
	got = dump(c, 1);
	CHECK_STR(got, "77 9\n  88\n");
	free(got);
	CHECK(canvas_cell(c, 3, 0)->attr == CANVAS_BOLD, "paint adds attributes");
	CHECK_INT(canvas_resize(c, 3, 5), 0);
	CHECK(c->w == 3 && c->h == 5, "resized");
	got = dump(c, 0);
	CHECK_STR(got, "\n\n\n\n\n");
	free(got);
	CHECK_INT(canvas_resize(c, 0, 0), 0);
	CHECK_INT(canvas_put(c, 0, 0, 1, "x"), 0);
	canvas_free(c);
}

static const struct {
	int line;
	const char *s;
	int width;
} width_cases[] = {
    {__LINE__, "", 0},		{__LINE__, "abc", 3},
    {__LINE__, "\xc3\xa9", 1},	{__LINE__, "\xe4\xb8\xad\xe6\x96\x87", 4},
    {__LINE__, "e\xcc\x81", 1}, {__LINE__, "\x01\xff", 8}, /* shown "\\x01\\xff" */
};

static void test_utf8(void)
{
	for (size_t i = 0; i < sizeof(width_cases) / sizeof(width_cases[0]); i++)
		CHECK(canvas_str_width(width_cases[i].s) == width_cases[i].width,
		      "line %d: width %d", width_cases[i].line, canvas_str_width(width_cases[i].s));
	char buf[4];
	uint32_t cp;
	const uint32_t cps[] = {0x41, 0xe9, 0x4e2d, 0x1f600, 0x10ffff};
	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		size_t n = canvas_utf8_encode(cps[i], buf);
		CHECK(n > 0 && canvas_utf8_next(buf, n, &cp) == n && cp == cps[i], "round trip %x",
		      (unsigned)cps[i]);
	}
	CHECK_INT(canvas_utf8_encode(0xd800, buf), 0);
	CHECK_INT(canvas_utf8_next("\xe4\xb8", 2, &cp), 1);
	CHECK_INT(cp, 0xfffd);
	CHECK_INT(canvas_utf8_next("\xc0\x80", 2, &cp), 1); /* overlong */
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		fprintf(stderr, "C.UTF-8 locale missing: using the built-in width table\n");
	test_put();
	test_long_texts();
	test_wide_overwrite();
	test_golden();
	test_fill_paint_resize();
	test_utf8();
	/* the built-in width table agrees on the cases above */
	setlocale(LC_ALL, "C");
	test_put();
	test_utf8();
	return harness_done();
}

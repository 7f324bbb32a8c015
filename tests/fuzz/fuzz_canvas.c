/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_canvas.c: canvas_putx of input text at positions/widths from the input; cell invariants. */
#include "canvas.h"
#include "fuzz.h"

const unsigned long fuzz_default_runs = 500000;

static void check(const struct canvas *c)
{
	for (int y = 0; y < c->h; y++)
		for (int x = 0; x < c->w; x++) {
			const struct canvas_cell *cell = canvas_cell(c, x, y);
			FUZZ_ASSERT(cell);
			size_t n;
			const char *text = canvas_cell_text(c, cell, &n);
			FUZZ_ASSERT(n < CANVAS_CELL_BYTES && text[n] == '\0');
			FUZZ_ASSERT(cell->width <= 2);
			if (cell->width == 0) {
				/* the right half of a wide character */
				const struct canvas_cell *l = canvas_cell(c, x - 1, y);
				FUZZ_ASSERT(l && l->width == 2);
			} else if (cell->width == 2) {
				const struct canvas_cell *r = canvas_cell(c, x + 1, y);
				FUZZ_ASSERT(r && r->width == 0);
			}
			if (cell->width) {
				FUZZ_ASSERT(n > 0);
				FUZZ_ASSERT(fuzz_printable(text));
			}
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	int w = (int)fuzz_take_byte(&data, &size) % 40 + 1;
	int h = (int)fuzz_take_byte(&data, &size) % 6 + 1;
	struct canvas *c = canvas_new(w, h);
	FUZZ_ASSERT(c);
	canvas_set_ascii(c, size & 1);
	int ops = 0;
	while (size >= 6 && ops++ < 32) {
		int x = (int8_t)fuzz_take_byte(&data, &size) % 48;
		int y = (int8_t)fuzz_take_byte(&data, &size) % 8;
		int maxw = (int8_t)fuzz_take_byte(&data, &size) % 50;
		unsigned fl = fuzz_take_byte(&data, &size);
		int role = (int)(fl >> 4);
		unsigned attr = fl & 0x1f;
		size_t n = fuzz_take_byte(&data, &size) % 64;
		if (n > size)
			n = size;
		char *text = fuzz_strndup(data, n);
		data += n;
		size -= n;
		int r = canvas_putx(c, x, y, role, attr, maxw, fl & 3, text);
		FUZZ_ASSERT(r >= 0 && r <= w);
		if (maxw >= 0)
			FUZZ_ASSERT(r <= maxw);
		check(c);
		FUZZ_ASSERT(canvas_str_width(text) >= 0);
		free(text);
	}
	/* whatever is left, written at the origin */
	char *rest = fuzz_strndup(data, size);
	canvas_put(c, 0, 0, 1, rest);
	check(c);
	free(rest);
	canvas_dump(c, null);
	canvas_dump_roles(c, null);
	canvas_free(c);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_lineedit.c: input bytes as keys of the ':' prompt editor; its invariants after every key. */
#include "canvas.h"
#include "fuzz.h"
#include "keys.h"
#include "lineedit.h"

const unsigned long fuzz_default_runs = 100000;

/* True when @off is where a codepoint starts (as canvas_utf8_next walks the text) or the end. */
static int boundary(const struct lineedit *le, size_t off)
{
	size_t p = 0;
	uint32_t cp;
	while (p < off) {
		size_t n = canvas_utf8_next(le->buf + p, le->len - p, &cp);
		if (!n)
			break;
		p += n;
	}
	return p == off;
}

static void check(const struct lineedit *le)
{
	FUZZ_ASSERT(le->buf != NULL || le->len == 0);
	if (!le->buf)
		return;
	FUZZ_ASSERT(le->len < le->cap);
	FUZZ_ASSERT(strlen(le->buf) == le->len);
	FUZZ_ASSERT(le->cursor <= le->len);
	FUZZ_ASSERT(le->scroll <= le->len);
	FUZZ_ASSERT(boundary(le, le->cursor));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int specials[] = {KEYS_UP,	    KEYS_DOWN,	 KEYS_LEFT,	 KEYS_RIGHT,
				       KEYS_HOME,   KEYS_END,	 KEYS_PGUP,	 KEYS_PGDN,
				       KEYS_INSERT, KEYS_DELETE, KEYS_BACKSPACE, KEYS_F1,
				       KEYS_RESIZE, KEYS_ENTER,	 KEYS_ESC,	 KEYS_TAB};
	struct lineedit le;
	lineedit_init(&le);
	check(&le);
	size_t i = 0;
	if (size > 512)
		size = 512; /* each check walks the line: keep a run linear-ish */
	while (i < size) {
		uint8_t b = data[i++];
		if (b >= 0xf8) {
			/* 0xf8..0xff: an operation with an argument byte */
			uint8_t arg = i < size ? data[i++] : 0;
			switch (b) {
			case 0xf8: {
				int width = arg % 40 - 2;
				struct lineedit_view v = lineedit_view(&le, width);
				FUZZ_ASSERT(v.start <= le.len && v.len <= le.len - v.start);
				/* the slice starts and ends on codepoints */
				FUZZ_ASSERT(boundary(&le, v.start) &&
					    boundary(&le, v.start + v.len));
				if (width > 0)
					FUZZ_ASSERT(le.cursor >= v.start &&
						    le.cursor <= v.start + v.len);
				FUZZ_ASSERT(v.cursor_col >= 0);
				if (width > 0)
					FUZZ_ASSERT(v.cursor_col <= width);
				break;
			}
			case 0xf9: {
				/* the next @arg bytes as a string, set or inserted */
				size_t n = arg % 64;
				if (n > size - i)
					n = size - i;
				char *s = fuzz_strndup(data + i, n);
				i += n;
				size_t before = le.len;
				if (arg & 0x80) {
					FUZZ_ASSERT(lineedit_set(&le, s) == 0); /* n < 64 fits */
				} else if (lineedit_insert_str(&le, s) == 0) {
					/* a bad byte becomes U+FFFD (3 bytes) */
					FUZZ_ASSERT(le.len >= before && le.len <= before + 3 * n);
				} else {
					/* refused only at the documented limit: the next
					 * codepoint (up to 4 bytes) did not fit */
					FUZZ_ASSERT(le.len + 4 > LINEEDIT_MAX);
				}
				free(s);
				break;
			}
			case 0xfa:
				lineedit_key(
				    &le, specials[arg % (sizeof(specials) / sizeof(specials[0]))]);
				break;
			case 0xfb:
				lineedit_insert(&le, (uint32_t)arg << 12 |
							 arg); /* far codepoints, surrogates */
				break;
			case 0xfc:
				lineedit_word_left(&le);
				break;
			case 0xfd:
				lineedit_word_right(&le);
				break;
			case 0xfe:
				lineedit_clear(&le);
				FUZZ_ASSERT(le.len == 0 && le.cursor == 0);
				break;
			default:
				lineedit_kill_word(&le);
				lineedit_yank(&le);
				break;
			}
		} else if (b >= 0xc0) {
			/* a UTF-8 lead byte: decode a codepoint from the input and type it */
			uint32_t cp;
			size_t n = canvas_utf8_next((const char *)data + i - 1, size - i + 1, &cp);
			i += n - 1;
			lineedit_key(&le, (int)cp);
		} else {
			lineedit_key(&le, b);
		}
		check(&le);
		FUZZ_ASSERT(le.len <= LINEEDIT_MAX);
	}
	lineedit_free(&le);
	return 0;
}

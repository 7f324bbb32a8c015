/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lineedit.c: the prompt's line buffer: UTF-8 editing, kill/yank and horizontal scrolling. */
#include "lineedit.h"
#include "canvas.h"
#include "keys.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void lineedit_init(struct lineedit *le) { memset(le, 0, sizeof(*le)); }

void lineedit_free(struct lineedit *le)
{
	free(le->buf);
	free(le->kill);
	memset(le, 0, sizeof(*le));
}

static int reserve(struct lineedit *le, size_t extra)
{
	if (le->len + extra + 1 <= le->cap)
		return 0;
	size_t cap = le->cap ? le->cap : 64;
	while (cap < le->len + extra + 1)
		cap *= 2;
	char *b = realloc(le->buf, cap);
	if (!b)
		return -1;
	if (!le->buf)
		b[0] = '\0';
	le->buf = b;
	le->cap = cap;
	return 0;
}

void lineedit_clear(struct lineedit *le)
{
	le->len = le->cursor = le->scroll = 0;
	if (le->buf)
		le->buf[0] = '\0';
}

int lineedit_set(struct lineedit *le, const char *text)
{
	lineedit_clear(le);
	return lineedit_insert_str(le, text);
}

static bool is_cont(char c) { return ((unsigned char)c & 0xc0) == 0x80; }

/* Offsets of the codepoint before / after @pos. */
static size_t prev_cp(const struct lineedit *le, size_t pos)
{
	if (pos == 0)
		return 0;
	pos--;
	while (pos > 0 && is_cont(le->buf[pos]))
		pos--;
	return pos;
}

static size_t next_cp(const struct lineedit *le, size_t pos)
{
	uint32_t cp;

	if (pos >= le->len)
		return le->len;
	return pos + canvas_utf8_next(le->buf + pos, le->len - pos, &cp);
}

static int insert_bytes(struct lineedit *le, const char *s, size_t n)
{
	if (le->len + n > LINEEDIT_MAX)
		return -1;
	if (reserve(le, n) < 0)
		return -1;
	memmove(le->buf + le->cursor + n, le->buf + le->cursor, le->len - le->cursor + 1);
	memcpy(le->buf + le->cursor, s, n);
	le->len += n;
	le->cursor += n;
	return 0;
}

int lineedit_insert(struct lineedit *le, uint32_t cp)
{
	char u[4];
	size_t n;

	if (canvas_cp_width(cp) < 0 || !(n = canvas_utf8_encode(cp, u)))
		return -1;
	return insert_bytes(le, u, n);
}

int lineedit_insert_str(struct lineedit *le, const char *s)
{
	size_t n = strlen(s), i = 0, len;
	uint32_t cp;

	if (reserve(le, 0) < 0)
		return -1;
	while ((len = canvas_utf8_next(s + i, n - i, &cp)) > 0) {
		if (canvas_cp_width(cp) >= 0 && lineedit_insert(le, cp) < 0)
			return -1;
		i += len;
	}
	return 0;
}

/* Removes bytes [from, to), saving them as the kill text when @kill is set. */
static void cut(struct lineedit *le, size_t from, size_t to, bool kill)
{
	if (to <= from)
		return;
	if (kill) {
		char *k = malloc(to - from + 1);
		if (k) {
			memcpy(k, le->buf + from, to - from);
			k[to - from] = '\0';
			free(le->kill);
			le->kill = k;
		}
	}
	memmove(le->buf + from, le->buf + to, le->len - to + 1);
	le->len -= to - from;
	le->cursor = from;
	if (le->scroll > le->cursor)
		le->scroll = le->cursor;
}

void lineedit_left(struct lineedit *le) { le->cursor = prev_cp(le, le->cursor); }
static void lineedit_right(struct lineedit *le) { le->cursor = next_cp(le, le->cursor); }
void lineedit_home(struct lineedit *le) { le->cursor = 0; }
static void lineedit_end(struct lineedit *le) { le->cursor = le->len; }

static bool blank_at(const struct lineedit *le, size_t pos)
{
	return le->buf[pos] == ' ' || le->buf[pos] == '\t';
}

static size_t word_start(const struct lineedit *le)
{
	size_t p = le->cursor;

	while (p > 0 && blank_at(le, prev_cp(le, p)))
		p = prev_cp(le, p);
	while (p > 0 && !blank_at(le, prev_cp(le, p)))
		p = prev_cp(le, p);
	return p;
}

void lineedit_word_left(struct lineedit *le) { le->cursor = word_start(le); }

void lineedit_word_right(struct lineedit *le)
{
	while (le->cursor < le->len && blank_at(le, le->cursor))
		le->cursor = next_cp(le, le->cursor);
	while (le->cursor < le->len && !blank_at(le, le->cursor))
		le->cursor = next_cp(le, le->cursor);
}

static void lineedit_backspace(struct lineedit *le)
{
	if (le->len)
		cut(le, prev_cp(le, le->cursor), le->cursor, false);
}

static void lineedit_delete(struct lineedit *le)
{
	if (le->len)
		cut(le, le->cursor, next_cp(le, le->cursor), false);
}

static void lineedit_kill_end(struct lineedit *le)
{
	if (le->len)
		cut(le, le->cursor, le->len, true);
}

static void lineedit_kill_start(struct lineedit *le)
{
	if (le->len)
		cut(le, 0, le->cursor, true);
}

void lineedit_kill_word(struct lineedit *le)
{
	if (le->len)
		cut(le, word_start(le), le->cursor, true);
}

void lineedit_yank(struct lineedit *le)
{
	if (le->kill)
		insert_bytes(le, le->kill, strlen(le->kill));
}

enum lineedit_result lineedit_key(struct lineedit *le, int key)
{
	switch (key) {
	case KEYS_LEFT:
	case KEYS_CTRL('b'):
		lineedit_left(le);
		break;
	case KEYS_RIGHT:
	case KEYS_CTRL('f'):
		lineedit_right(le);
		break;
	case KEYS_HOME:
	case KEYS_CTRL('a'):
		lineedit_home(le);
		break;
	case KEYS_END:
	case KEYS_CTRL('e'):
		lineedit_end(le);
		break;
	case KEYS_CTRL('k'):
		lineedit_kill_end(le);
		break;
	case KEYS_CTRL('u'):
		lineedit_kill_start(le);
		break;
	case KEYS_CTRL('w'):
		lineedit_kill_word(le);
		break;
	case KEYS_CTRL('y'):
		lineedit_yank(le);
		break;
	case KEYS_BACKSPACE:
	case KEYS_CTRL('h'):
	case 0x7f:
		lineedit_backspace(le);
		break;
	case KEYS_DELETE:
	case KEYS_CTRL('d'):
		lineedit_delete(le);
		break;
	default:
		if (key < 0x20 || key >= KEYS_SPECIAL || canvas_cp_width((uint32_t)key) < 0)
			return LINEEDIT_UNHANDLED;
		lineedit_insert(le, (uint32_t)key);
	}
	return LINEEDIT_HANDLED;
}

static int cols(const struct lineedit *le, size_t from, size_t to)
{
	int w = 0;

	while (from < to) {
		uint32_t cp;
		from += canvas_utf8_next(le->buf + from, to - from, &cp);
		int cw = canvas_cp_width(cp);
		w += cw < 0 ? 1 : cw;
	}
	return w;
}

struct lineedit_view lineedit_view(struct lineedit *le, int width)
{
	struct lineedit_view v = {0, 0, 0};
	size_t end;

	if (width < 1 || !le->buf)
		return v;
	if (le->scroll > le->cursor)
		le->scroll = le->cursor;
	/* an edit left of the scroll position may have left it inside a character */
	while (le->scroll > 0 && ((unsigned char)le->buf[le->scroll] & 0xc0) == 0x80)
		le->scroll--;
	/* the cursor needs its own column: one past the text at the end of the line */
	int need = cols(le, le->scroll, le->cursor) + 1;
	if (le->cursor < le->len) {
		uint32_t cp;
		canvas_utf8_next(le->buf + le->cursor, le->len - le->cursor, &cp);
		int cw = canvas_cp_width(cp);
		need += (cw > 1 ? cw : 1) - 1;
	}
	/* drop characters on the left until the cursor fits (linear in the line) */
	while (need > width && le->scroll < le->cursor) {
		size_t next = next_cp(le, le->scroll);
		need -= cols(le, le->scroll, next);
		le->scroll = next;
	}
	end = le->scroll;
	int w = 0;
	while (end < le->len) {
		uint32_t cp;
		size_t n = canvas_utf8_next(le->buf + end, le->len - end, &cp);
		int cw = canvas_cp_width(cp);
		cw = cw < 0 ? 1 : cw;
		if (w + cw > width)
			break;
		w += cw;
		end += n;
	}
	v.start = le->scroll;
	v.len = end - le->scroll;
	v.cursor_col = cols(le, le->scroll, le->cursor);
	return v;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lineedit.h: editing state of the ':' prompt, UTF-8 aware, emacs keys (curses-free). */
#ifndef PMUTOP_LINEEDIT_H
#define PMUTOP_LINEEDIT_H
#include <stddef.h>
#include <stdint.h>

#define LINEEDIT_MAX 4096 /* bytes of one command line; longer input is refused */

struct lineedit {
	char *buf;  /* UTF-8, NUL-terminated */
	size_t len; /* bytes */
	size_t cap;
	size_t cursor; /* byte offset, always on a codepoint boundary */
	size_t scroll; /* byte offset of the first visible codepoint */
	char *kill;    /* last killed text, for C-y */
};

/* The visible slice for a given width. */
struct lineedit_view {
	size_t start, len; /* bytes of buf shown */
	int cursor_col;	   /* column of the cursor within the slice */
};

void lineedit_init(struct lineedit *le);
void lineedit_free(struct lineedit *le);
/* Replaces the text; cursor at the end. Returns 0 or -1 (out of memory). */
int lineedit_set(struct lineedit *le, const char *text);
void lineedit_clear(struct lineedit *le);
/* Inserts one codepoint (control characters are refused); 0 or -1. */
int lineedit_insert(struct lineedit *le, uint32_t cp);
/* Inserts UTF-8 text at the cursor (control characters dropped); 0 or -1. */
int lineedit_insert_str(struct lineedit *le, const char *s);
void lineedit_left(struct lineedit *le);
void lineedit_home(struct lineedit *le);
void lineedit_word_left(struct lineedit *le);
void lineedit_word_right(struct lineedit *le);
void lineedit_kill_word(struct lineedit *le); /* C-w: blanks, then the word before */
void lineedit_yank(struct lineedit *le);      /* C-y */

enum lineedit_result {
	LINEEDIT_UNHANDLED, /* not an editing key: Enter, Esc, Tab, Up, Down are the caller's */
	LINEEDIT_HANDLED,
};
/* Applies a key (a codepoint or enum keys_special): printable characters, Left/Right,
 * Home/End, C-a C-e C-b C-f C-k C-u C-w C-y C-d (delete), Backspace (also C-h, DEL),
 * Delete. */
enum lineedit_result lineedit_key(struct lineedit *le, int key);
/* The slice of the text to show in @width columns with the cursor visible (keeps the
 * horizontal scroll position stable while the cursor stays inside it). */
struct lineedit_view lineedit_view(struct lineedit *le, int width);
#endif

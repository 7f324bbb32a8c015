/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h: key codes and names (curses-free), and the key-binding table. */
#ifndef PMUTOP_KEYS_H
#define PMUTOP_KEYS_H
#include <stddef.h>

/* A key: a Unicode codepoint (C-a..C-z are 1..26, Tab 9, Enter 13, Esc 27) or one of these. */
enum keys_special {
	KEYS_SPECIAL = 0x110000,
	KEYS_UP = KEYS_SPECIAL,
	KEYS_DOWN,
	KEYS_LEFT,
	KEYS_RIGHT,
	KEYS_HOME,
	KEYS_END,
	KEYS_PGUP,
	KEYS_PGDN,
	KEYS_INSERT,
	KEYS_DELETE,
	KEYS_BACKSPACE,
	KEYS_F1, /* .. KEYS_F1 + 11 for F12 */
	KEYS_F12 = KEYS_F1 + 11,
	KEYS_RESIZE,
	KEYS_END_OF_SPECIAL
};

#define KEYS_CTRL(c) ((c)&0x1f)
#define KEYS_TAB 9
#define KEYS_ENTER 13
#define KEYS_ESC 27
/* Esc is no binding: what it does, for the help's key list and the man page */
#define KEYS_ESC_HELP "leave a text view (help, messages, probe, spikes) or the command line"

/* Parses a key name: one printable character ("q", "<", "é"), "space", "C-l" (Ctrl),
 * "F1".."F12", "up", "down", "left", "right", "home", "end", "pgup", "pgdn", "insert",
 * "delete", "backspace", "tab", "enter", "esc". Returns the code, or -1 with a cause. */
int keys_parse(const char *name, char *err, size_t errlen);
/* The canonical name of @key (as keys_parse accepts it); returns @buf. */
const char *keys_name(int key, char *buf, size_t len);

struct keymap_entry {
	int key;
	char *command;
};

struct keymap {
	struct keymap_entry *v;
	size_t n;
};

/* The default bindings (q quit, space toggle-pause, m/M mode next/prev, ...). */
int keys_map_init(struct keymap *km);
void keys_map_free(struct keymap *km);
/* Binds @keyname to @command after checking both; an empty command or "none" unbinds.
 * Returns 0, or -1 with a cause (map unchanged). */
int keys_bind(struct keymap *km, const char *keyname, const char *command, char *err,
	      size_t errlen);
/* The command bound to @key, or NULL. */
const char *keys_lookup(const struct keymap *km, int key);
/* Binds the keys of a replay (. , tick, [ ] rate, g G start/end, ' next mark) over @km. */
void keys_bind_replay(struct keymap *km);
/* The @i-th key a replay adds (its name and command), or -1 past the last. */
int keys_replay_at(size_t i, const char **key, const char **command);
#endif

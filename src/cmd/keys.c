/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.c: key names <-> codes, and the key-binding table with its defaults. */
#include "keys.h"
#include "canvas.h"
#include "command.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	int key;
} named_keys[] = {
    {"space", ' '},	     {"tab", KEYS_TAB},	      {"enter", KEYS_ENTER},
    {"esc", KEYS_ESC},	     {"up", KEYS_UP},	      {"down", KEYS_DOWN},
    {"left", KEYS_LEFT},     {"right", KEYS_RIGHT},   {"home", KEYS_HOME},
    {"end", KEYS_END},	     {"pgup", KEYS_PGUP},     {"pgdn", KEYS_PGDN},
    {"insert", KEYS_INSERT}, {"delete", KEYS_DELETE}, {"backspace", KEYS_BACKSPACE},
};

/* Default bindings; every command here must pass command_check() (tested). */
static const struct {
	const char *key, *command;
} default_bindings[] = {
    /* clang-format off */
    {"q", "quit"},
    {"space", "toggle-pause"},
    {"m", "mode next"},
    {"M", "mode prev"},
    {"<", "sort prev"},
    {">", "sort next"},
    {"+", "interval +"},
    {"-", "interval -"},
    {"t", "theme next"},
    {"o", "view offcore"},
    {"F", "freeze"},
    {"S", "view spikes"},
    {"W", "view counters"},
    {"T", "view tasks"},
    {"?", "help"},
    {"F1", "help"},
    {"h", "help"},
    {"F10", "quit"},
    {":", "command-line"},
    {"C-l", "redraw"},
    {"up", "select up"},
    {"down", "select down"},
    {"pgup", "select pgup"},
    {"pgdn", "select pgdn"},
    {"home", "select top"},
    {"end", "select bottom"},
    {"enter", "drill"},
    {"backspace", "drill up"},
    {"left", "select left"},
    {"right", "select right"},
    /* clang-format on */
};

/* Keys a replay adds: , and . step a tick, [ and ] change the speed, g/G start/end, ' next mark. */
static const struct {
	const char *key, *command;
} replay_bindings[] = {
    {".", "tick"},	 {",", "tick -1"},  {"]", "rate +"},	{"[", "rate -"},
    {"g", "jump start"}, {"G", "jump end"}, {"'", "jump mark"},
};

void keys_bind_replay(struct keymap *km)
{
	char err[128];
	for (size_t i = 0; i < sizeof(replay_bindings) / sizeof(replay_bindings[0]); i++)
		keys_bind(km, replay_bindings[i].key, replay_bindings[i].command, err, sizeof(err));
}

int keys_replay_at(size_t i, const char **key, const char **command)
{
	if (i >= sizeof(replay_bindings) / sizeof(replay_bindings[0]))
		return -1;
	*key = replay_bindings[i].key;
	*command = replay_bindings[i].command;
	return 0;
}

int keys_parse(const char *name, char *err, size_t errlen)
{
	uint32_t cp;
	size_t n = strlen(name), len;

	for (size_t i = 0; i < sizeof(named_keys) / sizeof(named_keys[0]); i++)
		if (strcasecmp(name, named_keys[i].name) == 0)
			return named_keys[i].key;
	if ((name[0] == 'F' || name[0] == 'f') && name[1] >= '1' && name[1] <= '9') {
		char *end;
		long f = strtol(name + 1, &end, 10);
		if (!*end && f >= 1 && f <= 12)
			return KEYS_F1 + (int)f - 1;
	}
	if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' && n == 3) {
		char c = name[2];
		if (c >= 'a' && c <= 'z')
			return c - 'a' + 1;
		if (c >= 'A' && c <= 'Z')
			return c - 'A' + 1;
		if (strchr("@[\\]^_", c))
			return KEYS_CTRL(c);
	}
	len = canvas_utf8_next(name, n, &cp);
	if (n > 0 && len == n && cp != 0xfffd && canvas_cp_width(cp) > 0 && cp != ' ')
		return (int)cp;
	snprintf(err, errlen,
		 "bad key name '%.40s' (a character, space, C-x, F1-F12, up, down, left, right, "
		 "home, end, pgup, pgdn, insert, delete, backspace, tab, enter, esc)",
		 n && canvas_str_width(name) == (int)n && !strpbrk(name, "\x1b") ? name : "?");
	return -1;
}

const char *keys_name(int key, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(named_keys) / sizeof(named_keys[0]); i++)
		if (named_keys[i].key == key) {
			snprintf(buf, len, "%s", named_keys[i].name);
			return buf;
		}
	if (key >= KEYS_F1 && key <= KEYS_F12)
		snprintf(buf, len, "F%d", key - KEYS_F1 + 1);
	else if (key >= 0 && key < 0x20)
		snprintf(buf, len, "C-%c", key >= 1 && key <= 26 ? key + 'a' - 1 : key + '@');
	else if (key > 0x20 && key < KEYS_SPECIAL && key != 0x7f) {
		char u[5] = "";
		size_t n = canvas_utf8_encode((uint32_t)key, u);
		u[n] = '\0';
		snprintf(buf, len, "%s", u);
	} else
		snprintf(buf, len, "key-%d", key);
	return buf;
}

void keys_map_free(struct keymap *km)
{
	for (size_t i = 0; i < km->n; i++)
		free(km->v[i].command);
	free(km->v);
	km->v = NULL;
	km->n = 0;
}

static int set_binding(struct keymap *km, int key, const char *command)
{
	char *copy = NULL;
	size_t i;

	for (i = 0; i < km->n; i++)
		if (km->v[i].key == key)
			break;
	if (!command) { /* unbind */
		if (i < km->n) {
			free(km->v[i].command);
			memmove(&km->v[i], &km->v[i + 1], (km->n - i - 1) * sizeof(km->v[0]));
			km->n--;
		}
		return 0;
	}
	if (!(copy = strdup(command)))
		return -1;
	if (i < km->n) {
		free(km->v[i].command);
		km->v[i].command = copy;
		return 0;
	}
	struct keymap_entry *v = realloc(km->v, (km->n + 1) * sizeof(*v));
	if (!v) {
		free(copy);
		return -1;
	}
	km->v = v;
	v[km->n].key = key;
	v[km->n++].command = copy;
	return 0;
}

int keys_map_init(struct keymap *km)
{
	char err[256];

	km->v = NULL;
	km->n = 0;
	for (size_t i = 0; i < sizeof(default_bindings) / sizeof(default_bindings[0]); i++)
		if (keys_bind(km, default_bindings[i].key, default_bindings[i].command, err,
			      sizeof(err)) < 0) {
			keys_map_free(km);
			return -1;
		}
	return 0;
}

int keys_bind(struct keymap *km, const char *keyname, const char *command, char *err, size_t errlen)
{
	int key = keys_parse(keyname, err, errlen);
	char cerr[256];
	bool unbind;

	if (key < 0)
		return -1;
	while (*command == ' ' || *command == '\t')
		command++;
	unbind = !*command || strcmp(command, "none") == 0;
	if (!unbind && command_check(command, cerr, sizeof(cerr)) < 0) {
		snprintf(err, errlen, "bind %s: %s", keyname, cerr);
		return -1;
	}
	if (set_binding(km, key, unbind ? NULL : command) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

const char *keys_lookup(const struct keymap *km, int key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->v[i].key == key)
			return km->v[i].command;
	return NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_keys.c: keys_parse of key names (keys_name round trip) and keys_bind of "KEY COMMAND". */
#include "fuzz.h"
#include "keys.h"
#include "ui.h"

const unsigned long fuzz_default_runs = 400000;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	char err[256] = "", name[64];
	int key = keys_parse(text, err, sizeof(err));
	if (key >= 0) {
		FUZZ_ASSERT(key < KEYS_END_OF_SPECIAL);
		keys_name(key, name, sizeof(name));
		int again = keys_parse(name, err, sizeof(err));
		if (again != key) {
			fprintf(stderr, "[%s] -> key %d -> name [%s] -> %d (%s)\n", text, key, name,
				again, err);
			abort();
		}
	} else {
		FUZZ_ASSERT(key == -1 && err[0]);
	}
	/* "KEY COMMAND..." bound into the default map (which names the screen's commands) */
	ui_add_commands();
	struct keymap km;
	FUZZ_ASSERT(keys_map_init(&km) == 0);
	char *sp = strchr(text, ' ');
	if (sp) {
		*sp = '\0';
		size_t before = km.n;
		if (keys_bind(&km, text, sp + 1, err, sizeof(err)) == 0) {
			int k = keys_parse(text, err, sizeof(err));
			FUZZ_ASSERT(k >= 0);
			const char *cmd = keys_lookup(&km, k);
			FUZZ_ASSERT(cmd == NULL || strcmp(cmd, sp + 1) == 0 || cmd[0]);
		} else {
			FUZZ_ASSERT(km.n == before);
		}
	}
	keys_map_free(&km);
	/* every name we can produce for a code is parseable */
	int code = 0;
	for (size_t i = 0; i < size && i < 3; i++)
		code = code << 8 | data[i];
	code %= KEYS_END_OF_SPECIAL;
	keys_name(code, name, sizeof(name));
	FUZZ_ASSERT(memchr(name, '\0', sizeof(name)) != NULL);
	free(text);
	return 0;
}

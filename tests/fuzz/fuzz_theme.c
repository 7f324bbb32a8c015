/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_theme.c: theme_parse of theme files; every resolved style stays a valid colour. */
#include "fuzz.h"
#include "theme.h"

const unsigned long fuzz_default_runs = 200000;

static int colour_ok(int32_t c)
{
	return c == THEME_DEFAULT || (c >= 0 && c <= 255) || (c >= 0x1000000 && c <= 0x1ffffff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	static struct theme t;
	theme_init_default(&t);
	FUZZ_ASSERT(theme_parse(&t, text, "fuzz.theme") == 0);
	for (size_t i = 0; i < t.nwarnings; i++)
		FUZZ_ASSERT(strncmp(t.warnings[i], "fuzz.theme:", 11) == 0);
	for (int r = 0; r < ROLE_COUNT; r++) {
		FUZZ_ASSERT(colour_ok(t.styles[r].fg) && colour_ok(t.styles[r].bg));
		for (int d = THEME_MONO; d <= THEME_DIRECT; d++) {
			struct theme_style s = theme_resolve(&t, r, (enum theme_depth)d);
			FUZZ_ASSERT(colour_ok(s.fg) && colour_ok(s.bg));
			if (d == THEME_MONO)
				FUZZ_ASSERT(s.fg == THEME_DEFAULT && s.bg == THEME_DEFAULT);
			if (d == THEME_8 || d == THEME_16)
				FUZZ_ASSERT(s.fg < (d == THEME_8 ? 8 : 16) &&
					    s.bg < (d == THEME_8 ? 8 : 16));
			if (d == THEME_256)
				FUZZ_ASSERT(s.fg <= 255 && s.bg <= 255);
		}
	}
	theme_free(&t);
	/* the whole input as one colour and as one style */
	int32_t c;
	if (theme_parse_colour(text, &c) == 0)
		FUZZ_ASSERT(colour_ok(c));
	struct theme_style st;
	char err[256];
	if (theme_parse_style(text, NULL, NULL, 0, &st, err, sizeof(err)) == 0)
		FUZZ_ASSERT(colour_ok(st.fg) && colour_ok(st.bg));
	free(text);
	return 0;
}

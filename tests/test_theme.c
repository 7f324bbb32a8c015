/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_theme.c: role table, theme-file parsing and warnings, search order, degradation. */
#include "harness.h"
#include "theme.h"
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	int line;
	const char *text;
	int ok;
	int32_t want;
} colour_cases[] = {
    {__LINE__, "red", 1, 1},
    {__LINE__, "brightblue", 1, 12},
    {__LINE__, "grey", 1, 8},
    {__LINE__, "default", 1, THEME_DEFAULT},
    {__LINE__, "0", 1, 0},
    {__LINE__, "255", 1, 255},
    {__LINE__, "256", 0, 0},
    {__LINE__, "-1", 0, 0},
    {__LINE__, "#ff8000", 1, THEME_RGB(255, 128, 0)},
    {__LINE__, "#FF8000", 1, THEME_RGB(255, 128, 0)},
    {__LINE__, "#ff800", 0, 0},
    {__LINE__, "#gg0000", 0, 0},
    {__LINE__, "reddish", 0, 0},
    {__LINE__, "12x", 0, 0},
    {__LINE__, "", 0, 0},
};

static const struct {
	int line;
	const char *text;
	int ok;
	int32_t fg, bg;
	unsigned attr;
	const char *err;
} style_cases[] = {
    {__LINE__, "", 1, THEME_DEFAULT, THEME_DEFAULT, 0, NULL},
    {__LINE__, "fg=red bg=#000000 bold", 1, 1, THEME_RGB(0, 0, 0), THEME_BOLD, NULL},
    {__LINE__, "  dim\treverse underline italic ", 1, THEME_DEFAULT, THEME_DEFAULT,
     THEME_DIM | THEME_REVERSE | THEME_UNDERLINE | THEME_ITALIC, NULL},
    {__LINE__, "fg=accent", 1, 33, THEME_DEFAULT, 0, NULL},
    {__LINE__, "fg=purple", 0, 0, 0, 0, "unknown colour 'purple'"},
    {__LINE__, "blink", 0, 0, 0, 0,
     "unknown style word 'blink' (fg=COLOUR bg=COLOUR bold dim reverse underline italic)"},
    {__LINE__, "fg=\x1b[31m", 0, 0, 0, 0, "unknown colour '\\x1b[31m'"},
};

static void test_parse_units(void)
{
	const char *pal_names[] = {"accent"};
	const int32_t pal_values[] = {33};

	for (size_t i = 0; i < N(colour_cases); i++) {
		int32_t c = -5;
		int r = theme_parse_colour(colour_cases[i].text, &c);
		CHECK((r == 0) == colour_cases[i].ok, "line %d: rc %d", colour_cases[i].line, r);
		if (colour_cases[i].ok)
			CHECK(c == colour_cases[i].want, "line %d: got %d", colour_cases[i].line,
			      c);
	}
	for (size_t i = 0; i < N(style_cases); i++) {
		struct theme_style st;
		char err[200] = "";
		int r = theme_parse_style(style_cases[i].text, pal_names, pal_values, 1, &st, err,
					  sizeof(err));
		CHECK((r == 0) == style_cases[i].ok, "line %d: rc %d (%s)", style_cases[i].line, r,
		      err);
		if (style_cases[i].ok)
			CHECK(st.fg == style_cases[i].fg && st.bg == style_cases[i].bg &&
				  st.attr == style_cases[i].attr,
			      "line %d: %d %d %u", style_cases[i].line, st.fg, st.bg, st.attr);
		else
			CHECK(strcmp(err, style_cases[i].err) == 0, "line %d: err '%s'",
			      style_cases[i].line, err);
	}
}

static void test_role_table(void)
{
	struct theme t;

	theme_init_default(&t);
	for (int i = 0; i < ROLE_COUNT; i++) {
		struct theme_style st;
		char err[200];
		CHECK(theme_roles[i].key && theme_roles[i].help, "role %d has a key and help", i);
		if (!theme_roles[i].key)
			continue;
		CHECK(theme_role_find(theme_roles[i].key) == i, "role %s unique",
		      theme_roles[i].key);
		CHECK(theme_parse_style(theme_roles[i].default_style, NULL, NULL, 0, &st, err,
					sizeof(err)) == 0,
		      "role %s default style: %s", theme_roles[i].key, err);
	}
	CHECK_INT(theme_role_find("bar_15"), ROLE_BAR_15);
	CHECK_INT(theme_role_find("nope"), -1);
	CHECK_INT(t.styles[ROLE_CELL_BAD].fg, 9);
	CHECK_INT(t.styles[ROLE_CELL_BAD].attr, THEME_BOLD);
	theme_free(&t);
}

static const char bad_theme[] = "# a theme with mistakes\n"
				"header = fg=red\n" /* 2: outside a section */
				"[palette]\n"
				"accent = #0087af\n"
				"dull = nocolour\n" /* 5 */
				"bad name = red\n"  /* 6 */
				"[roles]\n"
				"title = fg=accent bold\n"
				"cell_good = fg=green blink\n" /* 9 */
				"no_such_role = fg=red\n"      /* 10 */
				"just words\n"		       /* 11 */
				"[colours]\n"		       /* 12 */
				"cell = fg=blue\n"	       /* ignored: unknown section */
				"[roles\n"		       /* 14 */
				"cell_bad = fg=#ff0000 reverse\n";

static void test_bad_lines(void)
{
	static const char *const want[] = {
	    "bad.theme:2: 'header' outside a section",
	    "bad.theme:5: unknown colour 'nocolour' (a name, 0-255 or #rrggbb)",
	    "bad.theme:6: bad palette name 'bad name'",
	    "bad.theme:9: cell_good: unknown style word 'blink' (fg=COLOUR bg=COLOUR bold dim "
	    "reverse underline italic)",
	    "bad.theme:10: unknown role 'no_such_role'",
	    "bad.theme:11: expected 'key = value', got 'just words'",
	    "bad.theme:12: unknown section [colours] (want [theme], [palette] or [roles])",
	    "bad.theme:14: bad section line (want [palette] or [roles])",
	};
	struct theme t, def;

	theme_init_default(&t);
	theme_init_default(&def);
	CHECK_INT(theme_parse(&t, bad_theme, "bad.theme"), 0);
	CHECK_INT(t.nwarnings, N(want));
	for (size_t i = 0; i < N(want) && i < t.nwarnings; i++)
		CHECK_STR(t.warnings[i], want[i]);
	/* good lines applied, bad lines ignored, missing roles keep the default */
	CHECK(t.styles[ROLE_TITLE].fg == THEME_RGB(0, 0x87, 0xaf) &&
		  t.styles[ROLE_TITLE].attr == THEME_BOLD,
	      "title");
	CHECK(memcmp(&t.styles[ROLE_CELL_GOOD], &def.styles[ROLE_CELL_GOOD],
		     sizeof(struct theme_style)) == 0,
	      "bad line leaves the role unchanged");
	CHECK(memcmp(&t.styles[ROLE_CELL], &def.styles[ROLE_CELL], sizeof(struct theme_style)) == 0,
	      "unknown section ignored");
	/* after "[roles" (bad) the section stays [colours]: cell_bad is not applied */
	CHECK_INT(t.styles[ROLE_CELL_BAD].fg, 9);
	theme_free(&t);
	theme_free(&def);
}

static char tmpdir[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_load(void)
{
	static const char *const shipped[] = {"default", "mono", "light", "high-contrast"};
	char path[256], err[512];
	struct theme t, def;

	theme_init_default(&def);
	for (size_t i = 0; i < N(shipped); i++) {
		CHECK(theme_load(&t, shipped[i], err, sizeof(err)) == 0, "load %s: %s", shipped[i],
		      err);
		CHECK(t.nwarnings == 0, "%s: %zu warnings, first %s", shipped[i], t.nwarnings,
		      t.nwarnings ? t.warnings[0] : "");
		CHECK_STR(t.name, shipped[i]);
		CHECK(strncmp(t.source, "built-in:themes/", 16) == 0, "%s from %s", shipped[i],
		      t.source);
		if (i == 0) /* default.theme must agree with the role table */
			for (int r = 0; r < ROLE_COUNT; r++)
				CHECK(memcmp(&t.styles[r], &def.styles[r], sizeof(def.styles[r])) ==
					  0,
				      "default.theme role %s differs from the table",
				      theme_roles[r].key);
		theme_free(&t);
	}
	theme_load(&t, "light", err, sizeof(err));
	CHECK_INT(t.styles[ROLE_CELL_BAD].fg, THEME_RGB(0xc0, 0, 0)); /* via the palette */
	theme_free(&t);

	/* user directory first; a user theme with only one role keeps the other defaults */
	snprintf(path, sizeof(path), "%s/pmutop", tmpdir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/pmutop/themes", tmpdir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/pmutop/themes/mine.theme", tmpdir);
	write_file(path, "[roles]\ncell = fg=#123456\nbogus = x\n");
	snprintf(path, sizeof(path), "%s/pmutop/themes/mono.theme", tmpdir);
	write_file(path, "[roles]\ncell = fg=red\n");
	CHECK_INT(theme_load(&t, "mine", err, sizeof(err)), 0);
	CHECK_INT(t.styles[ROLE_CELL].fg, THEME_RGB(0x12, 0x34, 0x56));
	CHECK(memcmp(&t.styles[ROLE_TITLE], &def.styles[ROLE_TITLE], sizeof(def.styles[0])) == 0,
	      "missing role falls back to the default");
	CHECK_INT(t.nwarnings, 1);
	if (t.nwarnings)
		CHECK(strstr(t.warnings[0], "mine.theme:3: unknown role 'bogus'") != NULL, "%s",
		      t.warnings[0]);
	theme_free(&t);
	CHECK_INT(theme_load(&t, "mono", err, sizeof(err)), 0);
	CHECK_INT(t.styles[ROLE_CELL].fg, 1); /* user copy shadows the built-in one */
	theme_free(&t);
	/* a path loads that file */
	snprintf(path, sizeof(path), "%s/pmutop/themes/mine.theme", tmpdir);
	CHECK_INT(theme_load(&t, path, err, sizeof(err)), 0);
	CHECK_STR(t.name, "mine");
	theme_free(&t);

	/* unknown names list the themes there are */
	static const struct {
		int line;
		const char *name;
		const char *err;
	} unknown[] = {
	    {__LINE__, "nosuch",
	     "unknown theme 'nosuch' (themes: default, high-contrast, light, "
	     "mine, mono)"},
	    {__LINE__, "../x", NULL},
	    {__LINE__, ".hidden",
	     "unknown theme '.hidden' (themes: default, high-contrast, "
	     "light, mine, mono)"},
	    {__LINE__, "a\x1b",
	     "unknown theme 'a\\x1b' (themes: default, high-contrast, light, "
	     "mine, mono)"},
	};
	for (size_t i = 0; i < N(unknown); i++) {
		err[0] = '\0';
		CHECK(theme_load(&t, unknown[i].name, err, sizeof(err)) == -1, "line %d fails",
		      unknown[i].line);
		if (unknown[i].err)
			CHECK(strcmp(err, unknown[i].err) == 0, "line %d: %s", unknown[i].line,
			      err);
		theme_free(&t);
	}
	char **names;
	size_t n = theme_list(&names);
	CHECK_INT(n, 5);
	theme_list_free(names, n);

	/* a unique prefix names a theme, as with commands; an ambiguous one says so */
	static const struct {
		int line;
		const char *name, *full, *err;
	} prefixes[] = {
	    {__LINE__, "hi", "high-contrast", NULL},
	    {__LINE__, "mi", "mine", NULL},
	    {__LINE__, "l", "light", NULL},
	    {__LINE__, "mono", "mono", NULL},
	    {__LINE__, "m", NULL,
	     "theme 'm' is ambiguous (themes: default, high-contrast, light, "
	     "mine, mono)"},
	    {__LINE__, "mx", NULL, "unknown theme 'mx'"},
	};
	for (size_t i = 0; i < N(prefixes); i++) {
		err[0] = '\0';
		int rc = theme_load(&t, prefixes[i].name, err, sizeof(err));
		if (prefixes[i].full) {
			CHECK(rc == 0 && strcmp(t.name, prefixes[i].full) == 0,
			      "line %d: %s -> %s (%s)", prefixes[i].line, prefixes[i].name, t.name,
			      err);
		} else {
			CHECK(rc == -1 &&
				  strncmp(err, prefixes[i].err, strlen(prefixes[i].err)) == 0,
			      "line %d: %s", prefixes[i].line, err);
		}
		theme_free(&t);
	}
	theme_free(&def);
}

static void test_degrade(void)
{
	static const struct {
		int line, r, g, b, idx;
	} rgb[] = {
	    {__LINE__, 255, 0, 0, 196},	    {__LINE__, 0, 0, 0, 16},
	    {__LINE__, 255, 255, 255, 231}, {__LINE__, 128, 128, 128, 244},
	    {__LINE__, 0, 95, 135, 24},	    {__LINE__, 18, 52, 86, 23},
	    {__LINE__, 200, 200, 205, 251},
	};
	static const struct {
		int line, idx, n, want;
	} basic[] = {
	    {__LINE__, 196, 8, 1},  {__LINE__, 21, 8, 4},    {__LINE__, 46, 8, 2},
	    {__LINE__, 9, 8, 1},    {__LINE__, 9, 16, 9},    {__LINE__, 15, 8, 7},
	    {__LINE__, 3, 8, 3},    {__LINE__, 232, 8, 0},   {__LINE__, 255, 8, 7},
	    {__LINE__, 196, 16, 9}, {__LINE__, 226, 16, 11},
	};
	static const struct {
		int line, colors;
		const char *colorterm, *no_color;
		enum theme_depth want;
	} depth[] = {
	    {__LINE__, 256, NULL, NULL, THEME_256},
	    {__LINE__, 256, "truecolor", NULL, THEME_DIRECT},
	    {__LINE__, 256, "24bit", "", THEME_DIRECT},
	    {__LINE__, 256, "truecolor", "1", THEME_MONO},
	    {__LINE__, 8, NULL, NULL, THEME_8},
	    {__LINE__, 16, NULL, NULL, THEME_16},
	    {__LINE__, 0, NULL, NULL, THEME_MONO},
	    {__LINE__, -1, NULL, NULL, THEME_MONO},
	    {__LINE__, 16777216, NULL, NULL, THEME_DIRECT},
	};
	for (size_t i = 0; i < N(rgb); i++)
		CHECK(theme_rgb_to_256(rgb[i].r, rgb[i].g, rgb[i].b) == rgb[i].idx, "line %d: %d",
		      rgb[i].line, theme_rgb_to_256(rgb[i].r, rgb[i].g, rgb[i].b));
	for (size_t i = 0; i < N(basic); i++)
		CHECK(theme_256_to_basic(basic[i].idx, basic[i].n) == basic[i].want, "line %d: %d",
		      basic[i].line, theme_256_to_basic(basic[i].idx, basic[i].n));
	for (size_t i = 0; i < N(depth); i++)
		CHECK(theme_depth_for(depth[i].colors, depth[i].colorterm, depth[i].no_color) ==
			  depth[i].want,
		      "line %d", depth[i].line);

	struct theme t;
	theme_init_default(&t);
	t.styles[ROLE_CELL] =
	    (struct theme_style){THEME_RGB(255, 0, 0), THEME_RGB(0, 0, 0), THEME_BOLD};
	struct theme_style s = theme_resolve(&t, ROLE_CELL, THEME_DIRECT);
	CHECK(s.fg == THEME_RGB(255, 0, 0) && s.bg == THEME_RGB(0, 0, 0), "direct keeps rgb");
	s = theme_resolve(&t, ROLE_CELL, THEME_256);
	CHECK(s.fg == 196 && s.bg == 16 && s.attr == THEME_BOLD, "256: %d %d", s.fg, s.bg);
	s = theme_resolve(&t, ROLE_CELL, THEME_8);
	CHECK(s.fg == 1 && s.bg == 0, "8: %d %d", s.fg, s.bg);
	s = theme_resolve(&t, ROLE_CELL_BAD, THEME_MONO);
	CHECK(s.fg == THEME_DEFAULT && s.bg == THEME_DEFAULT &&
		  s.attr == (THEME_BOLD | THEME_REVERSE),
	      "mono uses the fallback attributes");
	/* colours that collapse onto each other fall back to attributes */
	t.styles[ROLE_CELL_WARN] = (struct theme_style){THEME_RGB(250, 0, 0), 196, 0};
	s = theme_resolve(&t, ROLE_CELL_WARN, THEME_256);
	CHECK(s.fg == THEME_DEFAULT && s.attr == THEME_BOLD, "invisible text avoided");
	s = theme_resolve(&t, ROLE_COUNT, THEME_256);
	CHECK(s.fg == THEME_DEFAULT && s.attr == 0, "out-of-range role is plain");
	/* NO_COLOR from the environment, as the UI would read it */
	setenv("NO_COLOR", "1", 1);
	s = theme_resolve(&t, ROLE_CELL,
			  theme_depth_for(256, getenv("COLORTERM"), getenv("NO_COLOR")));
	CHECK(s.fg == THEME_DEFAULT && s.attr == 0, "NO_COLOR: mono");
	unsetenv("NO_COLOR");
	theme_free(&t);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmutop-theme-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	setenv("PMUTOP_DATADIR", "/nonexistent/pmutop", 1);
	test_parse_units();
	test_role_table();
	test_bad_lines();
	test_load();
	test_degrade();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return harness_done();
}

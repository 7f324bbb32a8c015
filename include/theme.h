/* SPDX-License-Identifier: GPL-2.0-or-later */
/* theme.h: colour roles (one table), theme files, and degradation to the terminal's colours. */
#ifndef PMUTOP_THEME_H
#define PMUTOP_THEME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Colour roles; a view adds a row here and in theme_roles[] (src/theme.c), no theme edit. */
enum theme_role {
	ROLE_NORMAL, /* 0: plain text, also the canvas's blank cells */
	ROLE_HEADER,
	ROLE_HEADER_VALUE,
	ROLE_TITLE,
	ROLE_COLUMN_HEADER,
	ROLE_CELL,
	ROLE_CELL_GOOD,
	ROLE_CELL_WARN,
	ROLE_CELL_BAD,
	ROLE_CELL_NA,
	ROLE_CELL_SCALED,
	ROLE_TOTAL_ROW,
	ROLE_SELECTED_ROW,
	ROLE_SPARKLINE,
	ROLE_BAR_0, /* offcore request-type bits 0..15 */
	ROLE_BAR_15 = ROLE_BAR_0 + 15,
	ROLE_LEGEND,
	ROLE_MESSAGE_INFO,
	ROLE_MESSAGE_WARN,
	ROLE_MESSAGE_ERROR,
	ROLE_PROMPT,
	ROLE_HELP_KEY,
	ROLE_HELP_TEXT,
	ROLE_STATUS_PAUSED,
	ROLE_SIMULATED_BANNER,
	ROLE_REPLAY_BANNER,
	ROLE_STACK_0, /* segments of a mode's stacked bar ("stack ="), in the metrics' order */
	ROLE_STACK_7 = ROLE_STACK_0 + 7,
	ROLE_STACK_TOP, /* the largest share of a row */
	ROLE_COUNT
};

/* Style attributes: the same bits as enum canvas_attr. */
enum theme_attr {
	THEME_BOLD = 1 << 0,
	THEME_DIM = 1 << 1,
	THEME_REVERSE = 1 << 2,
	THEME_UNDERLINE = 1 << 3,
	THEME_ITALIC = 1 << 4,
};

/* A colour: THEME_DEFAULT (the terminal's own), 0..255 (palette index) or THEME_RGB(). */
#define THEME_DEFAULT (-1)
#define THEME_RGB(r, g, b) ((int32_t)(0x1000000 | (r) << 16 | (g) << 8 | (b)))
#define THEME_IS_RGB(c) ((c) >= 0x1000000)

struct theme_style {
	int32_t fg, bg;
	unsigned attr; /* enum theme_attr */
};

struct theme_role_info {
	const char *key;	   /* name in theme files */
	const char *help;	   /* one line */
	unsigned mono;		   /* attributes on a monochrome terminal */
	const char *default_style; /* the built-in style, theme-file syntax */
};

/* Indexed by enum theme_role. */
extern const struct theme_role_info theme_roles[ROLE_COUNT];

/* Colour capability of a terminal, worst to best. */
enum theme_depth { THEME_MONO, THEME_8, THEME_16, THEME_256, THEME_DIRECT };

#define THEME_NAME_MAX 64

struct theme {
	char name[THEME_NAME_MAX];
	char source[4096]; /* file it came from, "built-in:themes/x.theme" or "built-in" */
	struct theme_style styles[ROLE_COUNT];
	char **warnings; /* "file:line: message", for bad lines that were ignored */
	size_t nwarnings;
};

/* The role whose key is @key, or -1. */
int theme_role_find(const char *key);
/* The built-in styles of the role table. */
void theme_init_default(struct theme *t);
void theme_free(struct theme *t);
/* Parses a colour ("red", "brightblue", "default", "0".."255", "#rrggbb"); -1 if bad. */
int theme_parse_colour(const char *s, int32_t *out);
/* Parses a style ("fg=NAME bg=NAME bold dim reverse underline italic"); palette names are
 * looked up in @pal_names/@pal_values (@npal entries). Returns 0, or -1 with a cause. */
int theme_parse_style(const char *s, const char *const *pal_names, const int32_t *pal_values,
		      size_t npal, struct theme_style *out, char *err, size_t errlen);
/* Applies theme-file text on top of @t (roles it does not name keep their style). Bad lines
 * become warnings "@filename:line: message" and are skipped. Returns 0, -1 out of memory. */
int theme_parse(struct theme *t, const char *text, const char *filename);
/* Loads theme @name (or a path with '/'): user dir, installed dir, built-in copy; missing
 * roles keep the built-in default. Returns 0, or -1 (t is left as defaults) with a cause
 * that lists the themes there are. */
int theme_load(struct theme *t, const char *name, char *err, size_t errlen);
/* Sorted, duplicate-free names of every theme found; returns the count (*out to free with
 * theme_list_free). */
size_t theme_list(char ***out);
void theme_list_free(char **names, size_t n);

/* Colour depth from the terminal's colour count and COLORTERM; a non-empty @no_color
 * (the NO_COLOR variable) forces THEME_MONO. */
enum theme_depth theme_depth_for(int colors, const char *colorterm, const char *no_color);
/* Nearest xterm 256-colour index (16..255) of an RGB colour. */
int theme_rgb_to_256(int r, int g, int b);
/* Nearest of the first @n (8 or 16) colours of a 0..255 index. */
int theme_256_to_basic(int index, int n);
/* The style of @role for a terminal of @depth: colours degraded, or the role's monochrome
 * attributes on THEME_MONO (or when the colours would make the text invisible). */
struct theme_style theme_resolve(const struct theme *t, int role, enum theme_depth depth);
#endif

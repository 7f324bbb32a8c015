/* SPDX-License-Identifier: GPL-2.0-or-later */
/* theme.c: the colour role table, theme-file parsing, search order and colour degradation. */
#include "theme.h"
#include "embedded.h"
#include "linereader.h"
#include "paths.h"
#include "textutil.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define B THEME_BOLD
#define D THEME_DIM
#define R THEME_REVERSE
#define U THEME_UNDERLINE

_Static_assert(ROLE_COUNT <= 256, "a canvas cell holds a role in one byte");

const struct theme_role_info theme_roles[ROLE_COUNT] = {
    [ROLE_NORMAL] = {"normal", "plain text and background", 0, ""},
    [ROLE_HEADER] = {"header", "summary lines at the top", 0, "fg=cyan"},
    [ROLE_HEADER_VALUE] = {"header_value", "values in the summary lines", B, "fg=brightwhite bold"},
    [ROLE_TITLE] = {"title", "mode title", B | U, "fg=brightyellow bold"},
    [ROLE_COLUMN_HEADER] = {"column_header", "table column names", R, "fg=black bg=cyan"},
    [ROLE_CELL] = {"cell", "table values", 0, ""},
    [ROLE_CELL_GOOD] = {"cell_good", "values within the good threshold", 0, "fg=green"},
    [ROLE_CELL_WARN] = {"cell_warn", "values past the warn threshold", B, "fg=yellow bold"},
    [ROLE_CELL_BAD] = {"cell_bad", "values past the bad threshold", B | R, "fg=brightred bold"},
    [ROLE_CELL_NA] = {"cell_na", "n/s and n/c (not supported, not counted)", D, "fg=brightblack"},
    [ROLE_CELL_SCALED] = {"cell_scaled", "values scaled by multiplexing", U, "fg=magenta"},
    [ROLE_TOTAL_ROW] = {"total_row", "the aggregated row", B, "bold"},
    [ROLE_SELECTED_ROW] = {"selected_row", "the selected row", R, "reverse"},
    [ROLE_SPARKLINE] = {"sparkline", "history sparklines", 0, "fg=brightcyan"},
    [ROLE_BAR_0 + 0] = {"bar_0", "offcore bit 0 (demand data read)", 0, "fg=red"},
    [ROLE_BAR_0 + 1] = {"bar_1", "offcore bit 1 (demand RFO)", 0, "fg=green"},
    [ROLE_BAR_0 + 2] = {"bar_2", "offcore bit 2 (demand code read)", 0, "fg=yellow"},
    [ROLE_BAR_0 + 3] = {"bar_3", "offcore bit 3 (writeback)", 0, "fg=blue"},
    [ROLE_BAR_0 + 4] = {"bar_4", "offcore bit 4 (prefetch data read)", 0, "fg=magenta"},
    [ROLE_BAR_0 + 5] = {"bar_5", "offcore bit 5 (prefetch RFO)", 0, "fg=cyan"},
    [ROLE_BAR_0 + 6] = {"bar_6", "offcore bit 6 (prefetch code read)", 0, "fg=white"},
    [ROLE_BAR_0 + 7] = {"bar_7", "offcore bit 7", 0, "fg=brightred"},
    [ROLE_BAR_0 + 8] = {"bar_8", "offcore bit 8", 0, "fg=brightgreen"},
    [ROLE_BAR_0 + 9] = {"bar_9", "offcore bit 9", 0, "fg=brightyellow"},
    [ROLE_BAR_0 + 10] = {"bar_10", "offcore bit 10", 0, "fg=brightblue"},
    [ROLE_BAR_0 + 11] = {"bar_11", "offcore bit 11", 0, "fg=brightmagenta"},
    [ROLE_BAR_0 + 12] = {"bar_12", "offcore bit 12", 0, "fg=brightcyan"},
    [ROLE_BAR_0 + 13] = {"bar_13", "offcore bit 13", 0, "fg=208"},
    [ROLE_BAR_0 + 14] = {"bar_14", "offcore bit 14", 0, "fg=135"},
    [ROLE_BAR_0 + 15] = {"bar_15", "offcore bit 15 (other)", 0, "fg=244"},
    [ROLE_LEGEND] = {"legend", "legends of bars and charts", D, "fg=brightblack"},
    [ROLE_MESSAGE_INFO] = {"message_info", "informational messages", 0, ""},
    [ROLE_MESSAGE_WARN] = {"message_warn", "warnings", B, "fg=yellow bold"},
    [ROLE_MESSAGE_ERROR] = {"message_error", "errors", B | R, "fg=brightwhite bg=red bold"},
    [ROLE_PROMPT] = {"prompt", "the : command line", B, "bold"},
    [ROLE_HELP_KEY] = {"help_key", "keys and commands in help", B, "fg=brightyellow bold"},
    [ROLE_HELP_TEXT] = {"help_text", "explanations in help", 0, ""},
    [ROLE_STATUS_PAUSED] = {"status_paused", "the PAUSED indicator", R | B,
			    "fg=black bg=yellow bold"},
    [ROLE_SIMULATED_BANNER] = {"simulated_banner", "the SIMULATED banner", R | B,
			       "fg=brightwhite bg=magenta bold"},
    [ROLE_REPLAY_BANNER] = {"replay_banner", "the REPLAY banner", R | B,
			    "fg=black bg=brightblue bold"},
    [ROLE_STACK_0 + 0] = {"stack_0", "stacked bar: first share (top-down: frontend)", 0,
			  "fg=magenta"},
    [ROLE_STACK_0 + 1] = {"stack_1", "stacked bar: second share (bad speculation)", D, "fg=red"},
    [ROLE_STACK_0 + 2] = {"stack_2", "stacked bar: third share (backend)", 0, "fg=yellow"},
    [ROLE_STACK_0 + 3] = {"stack_3", "stacked bar: fourth share (retiring)", D, "fg=green"},
    [ROLE_STACK_0 + 4] = {"stack_4", "stacked bar: fifth share", 0, "fg=blue"},
    [ROLE_STACK_0 + 5] = {"stack_5", "stacked bar: sixth share", D, "fg=cyan"},
    [ROLE_STACK_0 + 6] = {"stack_6", "stacked bar: seventh share", 0, "fg=208"},
    [ROLE_STACK_0 + 7] = {"stack_7", "stacked bar: eighth share", D, "fg=135"},
    [ROLE_STACK_TOP] = {"stack_top", "the largest share of a row (also bold, marked >)", B | U,
			"fg=brightwhite bold underline"},
};

#undef B
#undef D
#undef R
#undef U

static const char *const basic_names[16] = {
    "black",	  "red",	   "green",	  "yellow",	 "blue",	"magenta",
    "cyan",	  "white",	   "brightblack", "brightred",	 "brightgreen", "brightyellow",
    "brightblue", "brightmagenta", "brightcyan",  "brightwhite",
};

/* xterm's default RGB for indices 0..15. */
static const unsigned char basic_rgb[16][3] = {
    {0, 0, 0},	   {205, 0, 0},	    {0, 205, 0},     {205, 205, 0},   {0, 0, 238}, {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0},     {0, 255, 0}, {255, 255, 0},
    {92, 92, 255}, {255, 0, 255},   {0, 255, 255},   {255, 255, 255},
};

static const int cube_levels[6] = {0, 95, 135, 175, 215, 255};

static const struct {
	const char *name;
	unsigned attr;
} attr_names[] = {
    {"bold", THEME_BOLD},
    {"dim", THEME_DIM},
    {"reverse", THEME_REVERSE},
    {"underline", THEME_UNDERLINE},
    {"italic", THEME_ITALIC},
    {"none", 0},
    {"normal", 0},
};

int theme_role_find(const char *key)
{
	for (int i = 0; i < ROLE_COUNT; i++)
		if (strcmp(theme_roles[i].key, key) == 0)
			return i;
	return -1;
}

int theme_parse_colour(const char *s, int32_t *out)
{
	char *end;

	if (strcmp(s, "default") == 0) {
		*out = THEME_DEFAULT;
		return 0;
	}
	for (int i = 0; i < 16; i++)
		if (strcmp(s, basic_names[i]) == 0) {
			*out = i;
			return 0;
		}
	if (strcmp(s, "grey") == 0 || strcmp(s, "gray") == 0) {
		*out = 8;
		return 0;
	}
	if (s[0] == '#') {
		if (strlen(s) != 7 || strspn(s + 1, "0123456789abcdefABCDEF") != 6)
			return -1;
		unsigned long v = strtoul(s + 1, NULL, 16);
		*out = THEME_RGB((int)(v >> 16), (int)(v >> 8 & 255), (int)(v & 255));
		return 0;
	}
	if (isdigit((unsigned char)s[0])) {
		errno = 0;
		long v = strtol(s, &end, 10);
		if (*end || errno || v > 255)
			return -1;
		*out = (int32_t)v;
		return 0;
	}
	return -1;
}

static int lookup_colour(const char *s, const char *const *pal_names, const int32_t *pal_values,
			 size_t npal, int32_t *out)
{
	for (size_t i = 0; i < npal; i++)
		if (strcmp(pal_names[i], s) == 0) {
			*out = pal_values[i];
			return 0;
		}
	return theme_parse_colour(s, out);
}

int theme_parse_style(const char *s, const char *const *pal_names, const int32_t *pal_values,
		      size_t npal, struct theme_style *out, char *err, size_t errlen)
{
	struct theme_style st = {THEME_DEFAULT, THEME_DEFAULT, 0};
	char word[128], esc[160];

	while (*s) {
		size_t n = strcspn(s, " \t");
		if (n == 0) {
			s++;
			continue;
		}
		if (n >= sizeof(word)) {
			snprintf(err, errlen, "word too long");
			return -1;
		}
		memcpy(word, s, n);
		word[n] = '\0';
		s += n;
		text_escape(word, TEXT_NUL_TERMINATED, esc, sizeof(esc));
		if (strncmp(word, "fg=", 3) == 0 || strncmp(word, "bg=", 3) == 0) {
			int32_t *dst = word[0] == 'f' ? &st.fg : &st.bg;
			if (lookup_colour(word + 3, pal_names, pal_values, npal, dst) < 0) {
				snprintf(err, errlen, "unknown colour '%s'", esc + 3);
				return -1;
			}
			continue;
		}
		size_t i;
		for (i = 0; i < sizeof(attr_names) / sizeof(attr_names[0]); i++)
			if (strcmp(word, attr_names[i].name) == 0)
				break;
		if (i == sizeof(attr_names) / sizeof(attr_names[0])) {
			snprintf(err, errlen,
				 "unknown style word '%s' (fg=COLOUR bg=COLOUR bold dim reverse "
				 "underline italic)",
				 esc);
			return -1;
		}
		st.attr |= attr_names[i].attr;
	}
	*out = st;
	return 0;
}

void theme_init_default(struct theme *t)
{
	char err[128];

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "default");
	snprintf(t->source, sizeof(t->source), "built-in");
	for (int i = 0; i < ROLE_COUNT; i++)
		if (theme_parse_style(theme_roles[i].default_style, NULL, NULL, 0, &t->styles[i],
				      err, sizeof(err)) < 0)
			t->styles[i] = (struct theme_style){THEME_DEFAULT, THEME_DEFAULT, 0};
}

void theme_free(struct theme *t)
{
	for (size_t i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	t->warnings = NULL;
	t->nwarnings = 0;
}

static int add_warning(struct theme *t, const char *file, int line, const char *msg)
{
	char buf[512], **w;

	snprintf(buf, sizeof(buf), "%s:%d: %s", file, line, msg);
	w = realloc(t->warnings, (t->nwarnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	t->warnings = w;
	if (!(w[t->nwarnings] = strdup(buf)))
		return -1;
	t->nwarnings++;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool valid_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

enum section { SEC_NONE, SEC_THEME, SEC_PALETTE, SEC_ROLES, SEC_UNKNOWN };

#define PALETTE_MAX 256

int theme_parse(struct theme *t, const char *text, const char *filename)
{
	char *pal_names[PALETTE_MAX];
	int32_t pal_values[PALETTE_MAX];
	size_t npal = 0;
	enum section sec = SEC_NONE;
	char *copy = strdup(text), *save = NULL, *line, msg[600], esc[200], err[300];
	int lineno = 0, rc = 0;

	if (!copy)
		return -1;
	for (char *p = copy; p; p = save) {
		save = strchr(p, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		line = trim(p);
		msg[0] = '\0';
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (*line == '[') {
			char *end = strchr(line, ']');
			if (!end || end[1]) {
				snprintf(msg, sizeof(msg),
					 "bad section line (want [palette] or [roles])");
			} else {
				*end = '\0';
				char *name = trim(line + 1);
				sec = strcmp(name, "theme") == 0     ? SEC_THEME
				      : strcmp(name, "palette") == 0 ? SEC_PALETTE
				      : strcmp(name, "roles") == 0   ? SEC_ROLES
								     : SEC_UNKNOWN;
				if (sec == SEC_UNKNOWN) {
					text_escape(name, TEXT_NUL_TERMINATED, esc, sizeof(esc));
					snprintf(msg, sizeof(msg),
						 "unknown section [%s] (want [theme], [palette] or "
						 "[roles])",
						 esc);
				}
			}
			goto next;
		}
		char *eq = strchr(line, '=');
		if (!eq) {
			text_escape(line, TEXT_NUL_TERMINATED, esc, sizeof(esc));
			snprintf(msg, sizeof(msg), "expected 'key = value', got '%s'", esc);
			goto next;
		}
		*eq = '\0';
		char *key = trim(line), *val = trim(eq + 1);
		text_escape(key, TEXT_NUL_TERMINATED, esc, sizeof(esc));
		switch (sec) {
		case SEC_NONE:
			snprintf(msg, sizeof(msg), "'%s' outside a section", esc);
			break;
		case SEC_UNKNOWN:
			break; /* already reported at the section line */
		case SEC_THEME:
			if (strcmp(key, "name") != 0 && strcmp(key, "description") != 0)
				snprintf(msg, sizeof(msg), "unknown key '%s' in [theme]", esc);
			break;
		case SEC_PALETTE: {
			int32_t col;
			if (!valid_word(key)) {
				snprintf(msg, sizeof(msg), "bad palette name '%s'", esc);
			} else if (lookup_colour(val, (const char *const *)pal_names, pal_values,
						 npal, &col) < 0) {
				text_escape(val, TEXT_NUL_TERMINATED, esc, sizeof(esc));
				snprintf(msg, sizeof(msg),
					 "unknown colour '%s' (a name, 0-255 or #rrggbb)", esc);
			} else if (npal == PALETTE_MAX) {
				snprintf(msg, sizeof(msg), "too many palette entries");
			} else if (!(pal_names[npal] = strdup(key))) {
				rc = -1;
			} else {
				pal_values[npal++] = col;
			}
			break;
		}
		case SEC_ROLES: {
			int role = theme_role_find(key);
			struct theme_style st;
			if (role < 0)
				snprintf(msg, sizeof(msg), "unknown role '%s'", esc);
			else if (theme_parse_style(val, (const char *const *)pal_names, pal_values,
						   npal, &st, err, sizeof(err)) < 0)
				snprintf(msg, sizeof(msg), "%s: %s", esc, err);
			else
				t->styles[role] = st;
			break;
		}
		}
	next:
		if (msg[0] && add_warning(t, filename, lineno, msg) < 0)
			rc = -1;
	}
	for (size_t i = 0; i < npal; i++)
		free(pal_names[i]);
	free(copy);
	return rc;
}

/* The installed theme directory, <data directory>/themes; -1 when there is none (the user's is
 * paths_user(PATHS_CONFIG, "themes")). */
static int theme_data_dir(char *buf, size_t len) { return paths_data_subdir("themes", buf, len); }

static bool valid_name(const char *name)
{
	return name[0] != '.' && valid_word(name + (name[0] == '.')) &&
	       strlen(name) < THEME_NAME_MAX;
}

/* A theme file: small text, bounded lines and size, no hang on a FIFO. NULL with @err. */
static char *read_file(const char *path, char *err, size_t errlen)
{
	return lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, err, errlen);
}

static int load_text(struct theme *t, const char *name, const char *text, const char *source,
		     const char *label)
{
	theme_init_default(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->source, sizeof(t->source), "%s", source);
	return theme_parse(t, text, label);
}

static void list_to_string(char *buf, size_t len)
{
	char **names;
	size_t n = theme_list(&names), o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", names[i]);
	theme_list_free(names, n);
}

/* As commands do, a unique prefix names a theme ("hi" -> "high-contrast"). Returns 0 when
 * @name is a theme's full name or no theme's prefix, 1 with the full name in @full, or the
 * number of themes it is a prefix of (> 1: ambiguous). */
static int expand_prefix(const char *name, char *full, size_t len)
{
	char **names;
	size_t n = theme_list(&names), len_name = strlen(name);
	int hits = 0;
	bool exact = false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], name) == 0)
			exact = true;
		else if (strncmp(names[i], name, len_name) == 0 && hits++ == 0)
			snprintf(full, len, "%s", names[i]);
	}
	theme_list_free(names, n);
	return exact ? 0 : hits;
}

int theme_load(struct theme *t, const char *name, char *err, size_t errlen)
{
	char dirs[2][1024], path[1024 + THEME_NAME_MAX + 8], esc[200], list[1024];
	const struct embedded_file *ef;
	char *text;
	int ndirs = 0, rc;

	theme_init_default(t);
	if (strchr(name, '/')) {
		const char *base = strrchr(name, '/') + 1;
		char stem[THEME_NAME_MAX];
		if (!(text = read_file(name, err, errlen)))
			return -1;
		snprintf(stem, sizeof(stem), "%.*s", (int)strcspn(base, "."), base);
		rc = load_text(t, stem, text, name, name);
		free(text);
		return rc;
	}
	text_escape(name, TEXT_NUL_TERMINATED, esc, sizeof(esc));
	char full[THEME_NAME_MAX];
	int pr = valid_name(name) ? expand_prefix(name, full, sizeof(full)) : 0;
	if (pr > 1) {
		list_to_string(list, sizeof(list));
		snprintf(err, errlen, "theme '%s' is ambiguous (themes: %s)", esc, list);
		return -1;
	}
	if (pr == 1)
		name = full;
	if (valid_name(name)) {
		if (paths_user(PATHS_CONFIG, "themes", dirs[ndirs], sizeof(dirs[0])) == 0)
			ndirs++;
		if (theme_data_dir(dirs[ndirs], sizeof(dirs[0])) == 0)
			ndirs++;
		for (int i = 0; i < ndirs; i++) {
			if (snprintf(path, sizeof(path), "%s/%s.theme", dirs[i], name) >=
			    (int)sizeof(path))
				continue;
			if (access(path, F_OK) != 0)
				continue;
			if (!(text = read_file(path, err, errlen)))
				return -1;
			rc = load_text(t, name, text, path, path);
			free(text);
			return rc;
		}
		char epath[THEME_NAME_MAX + 16], src[THEME_NAME_MAX + 32];
		snprintf(epath, sizeof(epath), "themes/%s.theme", name);
		if ((ef = embedded_find(epath))) {
			snprintf(src, sizeof(src), "built-in:%s", epath);
			return load_text(t, name, ef->text, src, src);
		}
	}
	list_to_string(list, sizeof(list));
	snprintf(err, errlen, "unknown theme '%s' (themes: %s)", esc, list);
	return -1;
}

static int add_name(char ***names, size_t *n, const char *file)
{
	size_t len = strlen(file);
	char stem[THEME_NAME_MAX], **v;

	if (len <= 6 || strcmp(file + len - 6, ".theme") != 0 || len - 6 >= sizeof(stem))
		return 0;
	memcpy(stem, file, len - 6);
	stem[len - 6] = '\0';
	if (!valid_name(stem))
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], stem) == 0)
			return 0;
	v = realloc(*names, (*n + 1) * sizeof(*v));
	if (!v)
		return -1;
	*names = v;
	if (!(v[*n] = strdup(stem)))
		return -1;
	(*n)++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t theme_list(char ***out)
{
	char dirs[2][1024];
	char **names = NULL;
	size_t n = 0;
	int ndirs = 0;

	if (paths_user(PATHS_CONFIG, "themes", dirs[ndirs], sizeof(dirs[0])) == 0)
		ndirs++;
	if (theme_data_dir(dirs[ndirs], sizeof(dirs[0])) == 0)
		ndirs++;
	for (int i = 0; i < ndirs; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		if (!d)
			continue;
		while ((e = readdir(d)))
			add_name(&names, &n, e->d_name);
		closedir(d);
	}
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (strncmp(f->path, "themes/", 7) == 0)
			add_name(&names, &n, f->path + 7);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	return n;
}

void theme_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

enum theme_depth theme_depth_for(int colors, const char *colorterm, const char *no_color)
{
	if (no_color && *no_color)
		return THEME_MONO;
	if (colorterm && (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0))
		return colors >= 8 ? THEME_DIRECT : THEME_MONO;
	if (colors >= 0x1000000)
		return THEME_DIRECT;
	if (colors >= 256)
		return THEME_256;
	if (colors >= 16)
		return THEME_16;
	if (colors >= 8)
		return THEME_8;
	return THEME_MONO;
}

/* RGB of a palette index in the xterm default palette. */
static void theme_256_to_rgb(int index, int *r, int *g, int *b)
{
	if (index < 0 || index > 255)
		index = 0;
	if (index < 16) {
		*r = basic_rgb[index][0], *g = basic_rgb[index][1], *b = basic_rgb[index][2];
	} else if (index < 232) {
		int i = index - 16;
		*r = cube_levels[i / 36], *g = cube_levels[i / 6 % 6], *b = cube_levels[i % 6];
	} else {
		*r = *g = *b = 8 + 10 * (index - 232);
	}
}

static long dist2(int r1, int g1, int b1, int r2, int g2, int b2)
{
	long dr = r1 - r2, dg = g1 - g2, db = b1 - b2;

	return dr * dr + dg * dg + db * db;
}

static int cube_index(int v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; }

int theme_rgb_to_256(int r, int g, int b)
{
	int ci = 16 + 36 * cube_index(r) + 6 * cube_index(g) + cube_index(b);
	int avg = (r + g + b) / 3;
	int gi = avg > 238 ? 23 : avg < 8 ? 0 : (avg - 3) / 10;
	int gidx = 232 + (gi > 23 ? 23 : gi);
	int cr, cg, cb, gr, gg, gb;

	theme_256_to_rgb(ci, &cr, &cg, &cb);
	theme_256_to_rgb(gidx, &gr, &gg, &gb);
	return dist2(r, g, b, gr, gg, gb) < dist2(r, g, b, cr, cg, cb) ? gidx : ci;
}

int theme_256_to_basic(int index, int n)
{
	int r, g, b, best = 0;
	long bestd = -1;

	if (index < 16)
		return index < n ? index : index - 8;
	theme_256_to_rgb(index, &r, &g, &b);
	for (int i = 0; i < n; i++) {
		long d = dist2(r, g, b, basic_rgb[i][0], basic_rgb[i][1], basic_rgb[i][2]);
		if (bestd < 0 || d < bestd)
			bestd = d, best = i;
	}
	return best;
}

static int32_t degrade(int32_t c, enum theme_depth depth)
{
	if (c == THEME_DEFAULT || depth == THEME_DIRECT)
		return c;
	if (THEME_IS_RGB(c))
		c = theme_rgb_to_256(c >> 16 & 255, c >> 8 & 255, c & 255);
	if (depth == THEME_256)
		return c;
	return theme_256_to_basic(c, depth == THEME_16 ? 16 : 8);
}

struct theme_style theme_resolve(const struct theme *t, int role, enum theme_depth depth)
{
	struct theme_style mono = {THEME_DEFAULT, THEME_DEFAULT, 0}, st;

	if (role < 0 || role >= ROLE_COUNT)
		return mono;
	mono.attr = theme_roles[role].mono;
	if (depth == THEME_MONO)
		return mono;
	st = t->styles[role];
	st.fg = degrade(st.fg, depth);
	st.bg = degrade(st.bg, depth);
	if (st.fg != THEME_DEFAULT && st.fg == st.bg)
		return mono; /* the colours would hide the text */
	return st;
}

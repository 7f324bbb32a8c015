/* SPDX-License-Identifier: GPL-2.0-or-later */
/* complete.c: prompt completion: the command splitter finds the word, sources give candidates. */
#include "complete.h"
#include "command.h"
#include "rows.h"
#include "theme.h"
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int complete_list_add(struct complete_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(s)))
		return -1;
	l->n++;
	return 0;
}

static void complete_list_free(struct complete_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Files and directories (these with a trailing '/') whose path starts with @prefix; at most 256,
 * hidden ones only when @prefix names a hidden one. */
static void complete_path(const char *prefix, struct complete_list *out)
{
	char dir[4096], path[8192];
	snprintf(dir, sizeof(dir), "%s", prefix);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? prefix + (slash - dir) + 1 : prefix;
	size_t keep = slash ? (size_t)(slash - dir) + 1 : 0, blen = strlen(base);
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	DIR *d = opendir(slash ? dir : ".");
	if (!d)
		return;
	int n = 0;
	for (struct dirent *de; (de = readdir(d)) && n < 256;) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (de->d_name[0] == '.' && base[0] != '.') ||
		    strncmp(de->d_name, base, blen) != 0)
			continue;
		struct stat st;
		snprintf(path, sizeof(path), "%.*s%s", (int)keep, prefix, de->d_name);
		bool is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (is_dir && strlen(path) + 1 < sizeof(path))
			strcat(path, "/");
		complete_list_add(out, path);
		n++;
	}
	closedir(d);
}

static const char *const select_moves[] = {"up", "down", "pgup", "pgdn", "top", "bottom"};
static const char *const key_names[] = {"space", "tab",	 "enter",  "esc",    "up",
					"down",	 "left", "right",  "home",   "end",
					"pgup",	 "pgdn", "insert", "delete", "backspace"};

/* The values of "set NAME": the setting's row says (options.h): literal words are added here,
 * "@themes" and "@modes" are completed as those arguments are. */
static enum command_arg setting_values(int argc, const char *const *argv, struct complete_list *out)
{
	const struct option_def *s;
	char err[256];

	if (argc < 2 || !(s = command_setting_find(argv[1], err, sizeof(err))) || !s->complete)
		return ARG_NONE;
	if (strcmp(s->complete, "@themes") == 0)
		return ARG_THEME;
	if (strcmp(s->complete, "@modes") == 0)
		return ARG_MODE;
	for (const char *w = s->complete; *w && *w != '@';) {
		size_t n = strcspn(w, " ");
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)n, w);
		complete_list_add(out, word);
		w += n + (w[n] == ' ');
	}
	return ARG_NONE;
}

void complete_commands(void *user, int word, int argc, const char *const *argv,
		       struct complete_list *out)
{
	const struct complete_kinds *kinds = user;
	const struct command *c;
	char err[256], buf[8];
	enum command_arg kind;

	if (word < 0)
		return;
	if (word == 0) {
		for (size_t i = 0; (c = command_at(i)); i++)
			complete_list_add(out, c->name);
		return;
	}
	if (argc < 1 || !(c = command_find(argv[0], err, sizeof(err))))
		return;
	if (c->max_args >= 0 && word > c->max_args)
		return;
	int last = 0;
	while (last + 1 < COMMAND_ARGS_MAX && c->args[last + 1] != ARG_NONE)
		last++;
	kind = c->args[word - 1 < last ? word - 1 : last];
	if (word - 1 > last && c->args[last] == ARG_COMMAND)
		kind = ARG_NONE; /* the bound command's own arguments: not completed */
	if (kind == ARG_VALUE)
		kind = setting_values(argc, argv, out);
	switch (kind) {
	case ARG_NONE:
		return;
	case ARG_COMMAND:
		for (size_t i = 0; (c = command_at(i)); i++)
			complete_list_add(out, c->name);
		return;
	case ARG_THEME: {
		char **names;
		size_t n = theme_list(&names);
		for (size_t i = 0; i < n; i++)
			complete_list_add(out, names[i]);
		theme_list_free(names, n);
		complete_list_add(out, "next");
		complete_list_add(out, "prev");
		return;
	}
	case ARG_KEY:
		for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
			complete_list_add(out, key_names[i]);
		for (int f = 1; f <= 12; f++) {
			snprintf(buf, sizeof(buf), "F%d", f);
			complete_list_add(out, buf);
		}
		return;
	case ARG_OFFCORE_BIT:
		for (int b = 0; b < 16; b++) {
			snprintf(buf, sizeof(buf), "%d", b);
			complete_list_add(out, buf);
		}
		break;
	case ARG_PROBE:
		complete_list_add(out, "cache");
		return;
	case ARG_ROWS:
		for (int u = 0; u < ROWS_NUNITS; u++)
			complete_list_add(out, rows_unit_name((enum row_unit)u));
		return;
	case ARG_DRILL:
		complete_list_add(out, "down");
		complete_list_add(out, "up");
		return;
	case ARG_FILE:
		complete_path(word < argc ? argv[word] : "", out);
		return;
	case ARG_SELECT:
		for (size_t i = 0; i < sizeof(select_moves) / sizeof(select_moves[0]); i++)
			complete_list_add(out, select_moves[i]);
		break;
	case ARG_MODE:
	case ARG_COLUMN:
		complete_list_add(out, "next");
		complete_list_add(out, "prev");
		break;
	default:
		break;
	}
	if (kinds && kinds->fn)
		kinds->fn(kinds->user, kind, out);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Byte offset where the word that ends at @cursor starts (quotes and backslashes aware). */
static size_t raw_word_start(const char *line, size_t cursor)
{
	size_t start = 0;
	char quote = 0;

	for (size_t i = 0; i < cursor; i++) {
		char ch = line[i];
		if (quote) {
			if (ch == quote)
				quote = 0;
			else if (ch == '\\' && quote == '"' && i + 1 < cursor)
				i++;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '\\') {
			i++;
		} else if (ch == ' ' || ch == '\t' || ch == ';') {
			start = i + 1;
		}
	}
	return start;
}

/* @s with blanks, quotes and backslashes escaped by backslashes; malloc'd. */
static char *quote_word(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (strchr(" \t\"'\\#;", *s))
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

static int replace(struct complete_result *res, const char *line, size_t from, size_t to,
		   const char *word, bool space)
{
	char *q = quote_word(word);
	size_t lq, tail = strlen(line + to);
	bool add_space = space && line[to] != ' ';

	if (!q)
		return -1;
	lq = strlen(q);
	res->line = malloc(from + lq + 1 + tail + 1);
	if (!res->line) {
		free(q);
		return -1;
	}
	memcpy(res->line, line, from);
	memcpy(res->line + from, q, lq);
	res->cursor = from + lq;
	if (add_space)
		res->line[res->cursor++] = ' ';
	else if (space)
		res->cursor++; /* step over the existing space */
	memcpy(res->line + from + lq + add_space, line + to, tail + 1);
	free(q);
	return 0;
}

int complete_line(const char *line, size_t cursor, complete_fn fn, void *user,
		  struct complete_result *res)
{
	size_t len = strlen(line);
	char **words = NULL, *head, err[128];
	const char **argv;
	int argc, cw, rc = 0;
	struct complete_list all = {0};
	char *prefix = NULL;

	memset(res, 0, sizeof(*res));
	if (cursor > len)
		cursor = len;
	/* the words up to the cursor, split as the command line runs them (command_split) */
	if (!(head = strndup(line, cursor)))
		return -1;
	if (command_split(head, &argc, &words, err, sizeof(err)) != 0) {
		/* unterminated quote: nothing sensible to complete */
		free(head);
		res->line = strdup(line);
		res->cursor = cursor;
		return res->line ? 0 : -1;
	}
	free(head);
	/* after a blank, a ';' (or at the start) the cursor begins a new, empty word */
	char before = cursor ? line[cursor - 1] : ' ';
	bool sep = before == ';' && argc && strcmp(words[argc - 1], ";") == 0 &&
		   !(cursor > 1 && line[cursor - 2] == '\\');
	bool fresh = before == ' ' || before == '\t' || sep || argc == 0;
	/* complete within the statement the cursor is in: the words after the last ';' */
	int stmt = 0;
	for (int i = 0; i < argc; i++)
		if (strcmp(words[i], ";") == 0 && (i + 1 < argc || fresh))
			stmt = i + 1;
	argv = (const char **)(words + stmt);
	argc -= stmt;
	cw = fresh ? argc : argc - 1;
	prefix = strdup(fresh ? "" : argv[cw]);
	res->word = cw;
	if (!prefix)
		goto oom;
	fn(user, cw, argc, argv, &all);
	for (size_t i = 0; i < all.n; i++)
		if (strncmp(all.v[i], prefix, strlen(prefix)) == 0 &&
		    complete_list_add(&res->matches, all.v[i]) < 0)
			goto oom;
	complete_list_free(&all);
	if (res->matches.n)
		qsort(res->matches.v, res->matches.n, sizeof(char *), cmp_str);
	size_t from = fresh ? cursor : raw_word_start(line, cursor);
	if (res->matches.n == 0) {
		res->status = COMPLETE_NONE;
		if (!(res->line = strdup(line)))
			goto oom;
		res->cursor = cursor;
	} else if (res->matches.n == 1) {
		res->status = COMPLETE_UNIQUE;
		const char *only = res->matches.v[0];
		bool dir = *only && only[strlen(only) - 1] == '/'; /* a directory: go on inside */
		if (replace(res, line, from, cursor, only, !dir) < 0)
			goto oom;
		complete_list_free(&res->matches);
	} else {
		size_t lcp = strlen(res->matches.v[0]);
		for (size_t i = 1; i < res->matches.n; i++) {
			size_t k = 0;
			while (k < lcp && res->matches.v[i][k] == res->matches.v[0][k])
				k++;
			lcp = k;
		}
		char *common = strndup(res->matches.v[0], lcp);
		if (!common)
			goto oom;
		res->status = lcp > strlen(prefix) ? COMPLETE_PARTIAL : COMPLETE_SEVERAL;
		if (res->status == COMPLETE_PARTIAL)
			rc = replace(res, line, from, cursor, common, false);
		else if ((res->line = strdup(line)))
			res->cursor = cursor;
		else
			rc = -1;
		free(common);
		if (rc < 0)
			goto oom;
	}
	free(prefix);
	command_free_words(-1, words);
	return 0;
oom:
	complete_list_free(&all);
	free(prefix);
	command_free_words(-1, words);
	complete_result_free(res);
	return -1;
}

void complete_result_free(struct complete_result *res)
{
	free(res->line);
	complete_list_free(&res->matches);
	memset(res, 0, sizeof(*res));
}

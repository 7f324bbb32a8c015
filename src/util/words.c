/* SPDX-License-Identifier: GPL-2.0-or-later */
/* words.c: the one quoting-aware word splitter (commands, rc files, completion, the remote
 * transport and agent command lines). */
#include "words.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int words_push(struct words *w, char *s, bool sep)
{
	if (w->n + 2 > w->cap) {
		int cap = w->cap ? w->cap * 2 : 8;
		char **v = realloc(w->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		w->v = v;
		bool *sp = realloc(w->sep, (size_t)cap * sizeof(*sp));
		if (!sp)
			return -1;
		w->sep = sp;
		w->cap = cap;
	}
	w->sep[w->n] = sep;
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return 0;
}

void words_free(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	free(w->sep);
	memset(w, 0, sizeof(*w));
}

int words_split(const char *line, struct words *w, char *err, size_t errlen)
{
	size_t len = strlen(line), o = 0;
	char *cur = malloc(len + 1), quote = 0;
	bool inword = false, assign = false; /* assign: the word holds an unquoted '=' */

	memset(w, 0, sizeof(*w));
	if (!cur || words_push(w, NULL, false) < 0)
		goto oom;
	w->n = 0;
	for (const char *p = line;; p++) {
		char ch = *p;
		if (quote) {
			if (!ch) {
				snprintf(err, errlen, "unterminated %s quote",
					 quote == '"' ? "double" : "single");
				goto fail;
			}
			if (ch == quote) {
				quote = 0;
			} else if (ch == '\\' && quote == '"' && p[1]) {
				cur[o++] = *++p;
			} else {
				cur[o++] = ch;
			}
			continue;
		}
		/* a ';' between two characters of a word holding '=' belongs to it: define's
		 * METRICS "a=x;b=y"; elsewhere it separates commands */
		if (ch == ';' && inword && assign && p[1] && !strchr(" \t\n\r;#", p[1])) {
			cur[o++] = ch;
			continue;
		}
		if (!ch || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ';' ||
		    (ch == '#' && !inword)) {
			if (inword) {
				cur[o] = '\0';
				char *s = strdup(cur);
				if (!s || words_push(w, s, false) < 0) {
					free(s);
					goto oom;
				}
				o = 0;
				inword = false;
				assign = false;
			}
			if (ch == ';') {
				char *s = strdup(";");
				if (!s || words_push(w, s, true) < 0) {
					free(s);
					goto oom;
				}
			}
			if (!ch || ch == '#')
				break;
			continue;
		}
		inword = true;
		assign |= ch == '=';
		if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '\\') {
			if (!p[1]) {
				snprintf(err, errlen, "backslash at the end of the line");
				goto fail;
			}
			cur[o++] = *++p;
		} else {
			cur[o++] = ch;
		}
	}
	free(cur);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(cur);
	words_free(w);
	return -1;
}

int words_argv(const char *line, int *argc, char ***argv, char *err, size_t errlen)
{
	struct words w;

	if (words_split(line, &w, err, errlen) < 0)
		return -1;
	free(w.sep);
	*argc = w.n;
	*argv = w.v;
	return 0;
}

void words_argv_free(int argc, char **argv)
{
	if (!argv)
		return;
	for (int i = 0; argc < 0 ? argv[i] != NULL : i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* words.h: the one quoting-aware word splitter. */
#ifndef PMUTOP_WORDS_H
#define PMUTOP_WORDS_H
#include <stdbool.h>
#include <stddef.h>

/* A growing list of words, NULL-terminated; sep[i] marks an unquoted ';'. */
struct words {
	char **v;
	bool *sep;
	int n, cap;
};

/* Splits @line into words: blanks separate, "double" and 'single' quotes group, a
 * backslash escapes the next character (outside single quotes), an unquoted '#' at the
 * start of a word starts a comment, an unquoted ';' ends a statement and is returned as
 * the word ";" (sep set; quote it to use it literally: ';' or \;). Returns 0, or -1 with a
 * cause ("unterminated double quote") and nothing held. */
int words_split(const char *line, struct words *w, char *err, size_t errlen);
void words_free(struct words *w);
/* The same as a NULL-terminated *argv (free with words_argv_free). */
int words_argv(const char *line, int *argc, char ***argv, char *err, size_t errlen);
/* Frees @argc words of @argv (all up to the NULL when @argc < 0) and @argv. */
void words_argv_free(int argc, char **argv);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* complete.h: Tab completion of the ':' prompt, with libedit's tokenizer finding the word. */
#ifndef PMUTOP_COMPLETE_H
#define PMUTOP_COMPLETE_H
#include "command.h"
#include <stddef.h>

struct complete_list {
	char **v;
	size_t n, cap;
};

int complete_list_add(struct complete_list *l, const char *s);

/* Adds every candidate for word @word (0 = the command) of @argv; the completer filters
 * them by the prefix typed and removes duplicates. */
typedef void (*complete_fn)(void *user, int word, int argc, const char *const *argv,
			    struct complete_list *out);

/* Supplies the values of one argument kind (modes, options, events, columns, ...). */
typedef void (*complete_kind_fn)(void *user, enum command_arg kind, struct complete_list *out);

/* Ready-made source: word 0 from the command table; later words by the command's argument
 * kind: themes (theme_list), keys, commands, offcore bits, probe kinds and selection moves
 * here, everything else from the kind_fn in @user (a struct complete_kinds, may be NULL). */
struct complete_kinds {
	complete_kind_fn fn;
	void *user;
};
void complete_commands(void *user, int word, int argc, const char *const *argv,
		       struct complete_list *out);

enum complete_status {
	COMPLETE_NONE,	  /* no candidate (or an unterminated quote) */
	COMPLETE_UNIQUE,  /* completed, followed by a space */
	COMPLETE_PARTIAL, /* extended to the longest common prefix; see matches */
	COMPLETE_SEVERAL, /* nothing to add; see matches */
};

struct complete_result {
	enum complete_status status;
	char *line;		      /* the new line (malloc'd) */
	size_t cursor;		      /* its cursor, bytes */
	int word;		      /* index of the word completed */
	struct complete_list matches; /* sorted candidates when there were several */
};

/* Completes the word under @cursor (bytes) of @line. Returns 0, or -1 when out of memory. */
int complete_line(const char *line, size_t cursor, complete_fn fn, void *user,
		  struct complete_result *res);
void complete_result_free(struct complete_result *res);
#endif

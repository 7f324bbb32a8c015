/* command.h: the command table, word splitting, lookup, and running lines, -c and rc files. */
#ifndef PMUTOP_COMMAND_H
#define PMUTOP_COMMAND_H
#include <stddef.h>

struct app_ctx; /* the application's state, defined by the UI */
struct keymap;

typedef int (*command_fn)(struct app_ctx *ctx, int argc, char **argv, char *err, size_t errlen);

/* What an argument is, for completion. */
enum command_arg {
	ARG_NONE,
	ARG_COMMAND,
	ARG_MODE,
	ARG_NUMBER,
	ARG_CPUS,
	ARG_COLUMN,
	ARG_METRIC,
	ARG_THEME,
	ARG_OFFCORE_BIT,
	ARG_EVENT,
	ARG_OPTION,
	ARG_VALUE,
	ARG_KEY,
	ARG_FILE,
	ARG_TEXT,
	ARG_VIEW,
	ARG_PROBE,
	ARG_RULE,
	ARG_SELECT,
	ARG_KIND_COUNT
};

#define COMMAND_ARGS_MAX 4  /* completion kinds listed; the last repeats */
#define COMMAND_VARIADIC -1 /* max_args: no limit */

struct command {
	const char *name;
	const char *alias; /* NULL: none */
	const char *usage; /* "mode NAME|next|prev" */
	int min_args, max_args;
	enum command_arg args[COMMAND_ARGS_MAX];
	command_fn handler; /* NULL: the fallback handler (command_set_fallback) */
	const char *help;
};

/* The table, terminated by an entry whose name is NULL. */
extern const struct command *const command_table;

/* Sets the handler of command @name; returns 0, or -1 for an unknown name. */
int command_set_handler(const char *name, command_fn fn);
/* Handler for commands without their own; argv[0] is always the full command name. */
void command_set_fallback(command_fn fn);

/* Finds a command by exact name or alias, else by unique prefix. NULL with a message:
 * "ambiguous command 'p': pause, probe", "unknown command 'mdoe' (did you mean 'mode'?)". */
const struct command *command_find(const char *word, char *err, size_t errlen);
/* Levenshtein distance (bytes). */
int command_distance(const char *a, const char *b);

/* Splits @line into words: blanks separate, "double" and 'single' quotes group, a
 * backslash escapes the next character (outside single quotes), an unquoted '#' at the
 * start of a word starts a comment, an unquoted ';' ends a statement and is returned as
 * the word ";" (quote it to use it literally: ';' or \;). Returns 0 and a NULL-terminated
 * *argv (free with command_free_words), or -1 ("unterminated double quote"). */
int command_split(const char *line, int *argc, char ***argv, char *err, size_t errlen);
void command_free_words(int argc, char **argv);
/* Joins words with spaces, quoting those that need it; malloc'd. */
char *command_join(int argc, char *const *argv);

/* Checks that @line parses: known commands, argument counts. 0 or -1 with a cause. */
int command_check(const char *line, char *err, size_t errlen);
/* Runs every statement of @line (stops at the first error). An empty line does nothing.
 * Returns 0, or -1 with a cause (usage errors are "usage: mode NAME|next|prev"). */
int command_execute(struct app_ctx *ctx, const char *line, char *err, size_t errlen);

/* Errors collected while running a script. */
struct command_errors {
	char **msgs; /* "file:line: message" */
	size_t n;
};
void command_errors_free(struct command_errors *e);
/* Runs @text line by line ('#' comments), as the rc file or -c; errors go to @errs as
 * "@name:line: message" and the next line runs. Returns the number of errors. */
int command_run_text(struct app_ctx *ctx, const char *text, const char *name,
		     struct command_errors *errs);
/* Same for a file; -1 (message in @errs) when it cannot be read. */
int command_run_file(struct app_ctx *ctx, const char *path, struct command_errors *errs);

/* Help lines generated from the tables: commands, then the key bindings of @km (if given).
 * NULL-terminated, malloc'd; free with command_free_words(-1, lines). */
char **command_help_lines(const struct keymap *km);
/* Detailed help of one command (usage, alias, text); -1 if unknown. */
char **command_help_for(const char *name, char *err, size_t errlen);
#endif

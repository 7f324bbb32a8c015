/* SPDX-License-Identifier: GPL-2.0-or-later */
/* command.h: the command tables, word splitting, lookup, running lines, -c and the rc file. */
#ifndef PMUTOP_COMMAND_H
#define PMUTOP_COMMAND_H
#include "options.h"
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;
struct keymap;

/* Who runs a command line. */
enum command_origin {
	COMMAND_USER,	 /* the : prompt, a key binding */
	COMMAND_RC,	 /* the rc file */
	COMMAND_ARG,	 /* -c on the command line */
	COMMAND_CONTROL, /* a control line on the agent's stdin (remote.h) */
};

/* What a handler is told about the run it works on. */
struct command_ctx {
	struct app_ctx *app;
	bool screen; /* a screen shows the run (the observer "ui"): screen commands work */
	enum command_origin origin;
};

/* Runs one statement; argv[0] is the full command name, argv[argc] is NULL. Returns 0, -1
 * with a cause, or COMMAND_SCREEN_ONLY (-2) when what was asked needs the screen. */
typedef int (*command_fn)(const struct command_ctx *ctx, int argc, char **argv, char *err,
			  size_t errlen);
#define COMMAND_SCREEN_ONLY -2

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
	ARG_DRILL,
	ARG_ROWS,
	ARG_KIND_COUNT
};

#define COMMAND_ARGS_MAX 4  /* completion kinds listed; the last repeats */
#define COMMAND_VARIADIC -1 /* max_args: no limit */

/* Flags of a command (a setting's are OPTION_*, options.h). */
#define COMMAND_SCREEN 0x1u  /* only on the screen: refused in batch mode */
#define COMMAND_CONTROL 0x2u /* accepted on the agent's control input */

/* One command: each lives in its own file (src/cmd/cmd-*.c, ui/cmd-*.c) beside its handler. */
struct command {
	const char *name;
	const char *alias; /* NULL: none */
	const char *usage; /* "mode NAME|next|prev" */
	int min_args, max_args;
	enum command_arg args[COMMAND_ARGS_MAX];
	unsigned flags;
	command_fn exec;
	const char *help;
};

/* The core's table (src/cmd/cmd-table.c): NULL-terminated, always there. */
extern const struct command *const command_core_table[];

/* Adds a table of commands (NULL-terminated), as the screen does with its own. Adding the same
 * table again does nothing. Returns 0, or -1 when a name is taken already or there is no room. */
int command_add_table(const struct command *const *commands);
/* The @i-th command of all tables (core first), or the @i-th setting (the option table's
 * OPTION_SET rows, options.h); NULL past the end. */
const struct command *command_at(size_t i);
const struct option_def *command_setting_at(size_t i);

/* Finds a command by exact name or alias, else by unique prefix. NULL with a message:
 * "ambiguous command 'p': pause, probe", "unknown command 'mdoe' (did you mean 'mode'?)". */
const struct command *command_find(const char *word, char *err, size_t errlen);
/* Levenshtein distance (bytes). */
int command_distance(const char *a, const char *b);
/* Finds a setting by name; NULL with "unknown option ... (options: ...)". */
const struct option_def *command_setting_find(const char *name, char *err, size_t errlen);
/* "on", "yes", "1", "true" / "off", "no", "0", "false"; -1 with a cause otherwise. */
int command_parse_bool(const char *value, bool *out, char *err, size_t errlen);
/* A duration in milliseconds ("500", "500ms", "2.5s"; duration.h); -1 with a cause otherwise. */
int command_parse_ms(const char *value, long *out, char *err, size_t errlen);
/* A confirmation for whoever typed the command: logged when a screen shows it (batch mode
 * and the agent stay quiet; what a command is asked to list is logged with app_log). */
void command_note(const struct command_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
/* The note after a command opened a mode ("mode cpi opened; its first full tick arrives in
 * 1000 ms"); the screen resets its sort, sparkline and history itself (an app hook). */
void command_note_mode(const struct command_ctx *ctx);

/* words_argv (words.h): the one splitter; *argv is freed with command_free_words. */
int command_split(const char *line, int *argc, char ***argv, char *err, size_t errlen);
void command_free_words(int argc, char **argv);
/* Joins words with spaces, quoting those that need it; malloc'd. */
char *command_join(int argc, char *const *argv);

/* Checks that @line parses: known commands, argument counts. 0 or -1 with a cause. */
int command_check(const char *line, char *err, size_t errlen);
/* Runs every statement of @line as the user's (stops at the first error); a screen exists
 * when a screen (the observer "ui") is registered. An empty line does nothing. Returns 0, -1 with a
 * cause (usage errors are "usage: mode NAME|next|prev"), or COMMAND_SCREEN_ONLY without a screen
 * ("sort: only on the screen, not in batch mode"). */
int command_execute(struct app_ctx *app, const char *line, char *err, size_t errlen);
/* The same from @origin: a control line runs only COMMAND_CONTROL commands (others are
 * "unknown command \"record\" (mode, interval, cpus, mark, quit)"). */
int command_execute_from(struct app_ctx *app, enum command_origin origin, const char *line,
			 char *err, size_t errlen);
/* Runs one control line as the agent receives it (a COMMAND_CONTROL command: mode, interval,
 * cpus, mark, quit). Returns 0, or -1 with "control: message". */
int command_control(struct app_ctx *app, const char *line, char *err, size_t errlen);

/* Errors collected while running a script. */
struct command_errors {
	char **msgs; /* "file:line: message" */
	size_t n;
};
void command_errors_free(struct command_errors *e);
/* Runs @text line by line ('#' comments), as the rc file; errors go to @errs as
 * "@name:line: message" and the next line runs. Returns the number of errors. */
int command_run_text(struct app_ctx *app, const char *text, const char *name,
		     struct command_errors *errs);
/* Same for a file; -1 (message in @errs) when it cannot be read. */
int command_run_file(struct app_ctx *app, const char *path, struct command_errors *errs);

/* Start-up, before the first tick: the rc file (unless --no-rc; a missing one is fine), then
 * every -c in order. On the screen (the observer "ui" registered) every line runs and errors are
 * collected. In batch mode everything is checked first and nothing runs when a line is wrong; the
 * rc file's screen commands are skipped, a screen command in -c is an error, and the first failing
 * command ends the start-up. Errors are "FILE:LINE: message" and "-c:N: message" (N: which -c, from
 * 1). Returns the number of errors. */
int command_startup(struct app_ctx *app, struct command_errors *errs);

/* Help lines generated from the tables: commands, then the key bindings of @km (if given).
 * NULL-terminated, malloc'd; free with command_free_words(-1, lines). */
char **command_help_lines(const struct keymap *km);
/* Detailed help of one command (usage, alias, text); -1 if unknown. */
char **command_help_for(const char *name, char *err, size_t errlen);
#endif

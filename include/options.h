/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.h: the command-line option table, its parser and the values it fills. */
#ifndef PMUTOP_OPTIONS_H
#define PMUTOP_OPTIONS_H
#include "run_options.h"
#include <stdbool.h>
#include <stdio.h>

/* The two programs built from the same table: pmutop, and the board agent without the
 * screen (its --help, man page and parser leave the screen's options out). */
enum options_program { OPTIONS_PMUTOP, OPTIONS_AGENT };

struct command_ctx;
typedef int (*option_set_fn)(const struct command_ctx *ctx, const char *value, char *err,
			     size_t errlen);
typedef void (*option_show_fn)(const struct command_ctx *ctx, char *buf, size_t len);

/* Flags of an option row. */
#define OPTION_CLI 0x1u	   /* a command-line option (getopt, --help, man page, completion) */
#define OPTION_SCREEN 0x2u /* the screen's: not in the agent; :set refused in batch mode */
#define OPTION_SET 0x4u	   /* a setting: :set NAME VALUE, :show, the rc file, :help */

/* How a command-line argument lands in struct options (the row's field). */
enum option_apply { APPLY_FN, APPLY_FLAG, APPLY_STR, APPLY_LIST };

/* One option: its row in the table (src/cmd/options.c) is all there is to it. */
struct option_def {
	const char *name; /* --NAME, and :set NAME */
	int id;		  /* the short letter; 0: long only */
	const char *arg;  /* NULL: no argument; "[X]" (all in brackets): optional */
	const char *help; /* --help and the man page (and :help unless set_help) */
	unsigned flags;	  /* OPTION_* */
	enum option_apply kind;
	size_t off, count_off; /* the field in struct options (LIST: and its count) */
	/* checks (and for APPLY_FN stores) the argument: -1 with a cause in @err */
	int (*fn)(struct options *o, const char *arg, char *err, size_t errlen);
	/* bash completion of the argument: "@modes", "@groups", "@themes", "@events",
	 * "@formats", "@backends", "@files", "@dirs", "@hosts", or literal words ("on off");
	 * in help, "@formats" and "@backends" are spelled out from their tables */
	const char *complete;
	option_set_fn set; /* OPTION_SET of the core; the screen binds its own */
	option_show_fn show;
	const char *set_help; /* :help and the man page's settings; NULL: help */
};

/* The core's settings (src/cmd/cmd-set.c), named by their rows. */
int setting_interval_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_interval_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_mode_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_mode_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_cpus_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_cpus_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_attrib_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_attrib_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_error_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_error_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_stat_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_stat_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_self_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_self_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_flight_files_set(const struct command_ctx *ctx, const char *v, char *err,
			     size_t errlen);
void setting_flight_files_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_flight_bytes_set(const struct command_ctx *ctx, const char *v, char *err,
			     size_t errlen);
void setting_flight_bytes_show(const struct command_ctx *ctx, char *b, size_t l);

/* The @i-th row of the table; NULL past the end. */
const struct option_def *options_at(size_t i);
/* A setting's handlers: the row's, or those the screen bound; NULL without a screen. */
option_set_fn options_setter(const struct option_def *d);
option_show_fn options_shower(const struct option_def *d);
/* The screen gives its settings (OPTION_SCREEN | OPTION_SET rows) their handlers; -1 when
 * no such row is named @name. */
int options_bind_screen(const char *name, option_set_fn set, option_show_fn show);
/* --completion SHELL: the completion script of @prog's options; -1 with a cause. */
int options_completion(FILE *out, const char *shell, enum options_program prog, char *err,
		       size_t errlen);

/* Fills @o from argv. Returns 0, or -1 with a message in @err (exit status 2). */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);
int options_parse_program(struct options *o, enum options_program prog, int argc, char **argv,
			  char *err, size_t errlen);
void options_usage(FILE *out, enum options_program prog);
void options_version(FILE *out, enum options_program prog);
/* The option table as man-page (roff) paragraphs. */
void options_roff(FILE *out, enum options_program prog);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* command.c: the command tables, lookup, scripts, start-up, help. */
#include "command.h"
#include "app.h"
#include "duration.h"
#include "keys.h"
#include "linereader.h"
#include "paths.h"
#include "textutil.h"
#include "words.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TABLES 4
#define MAX_COMMANDS 128 /* of all tables */

/* The core's table first, then those added (the screen's). */
static const struct command *const *tables[MAX_TABLES] = {command_core_table};
static size_t ntables = 1;

const struct command *command_at(size_t i)
{
	for (size_t t = 0; t < ntables; t++) {
		size_t n = 0;
		while (tables[t][n])
			n++;
		if (i < n)
			return tables[t][i];
		i -= n;
	}
	return NULL;
}

const struct option_def *command_setting_at(size_t i)
{
	const struct option_def *d;

	/* the core's first, then the screen's */
	for (unsigned screen = 0; screen <= OPTION_SCREEN; screen += OPTION_SCREEN)
		for (size_t r = 0; (d = options_at(r)); r++)
			if ((d->flags & OPTION_SET) && (d->flags & OPTION_SCREEN) == screen &&
			    i-- == 0)
				return d;
	return NULL;
}

static bool name_taken(const char *name)
{
	const struct command *c;

	for (size_t i = 0; (c = command_at(i)); i++)
		if (strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0))
			return true;
	return false;
}

int command_add_table(const struct command *const *commands)
{
	size_t n = 0;

	for (size_t t = 0; t < ntables; t++)
		if (tables[t] == commands)
			return 0;
	if (ntables == MAX_TABLES)
		return -1;
	for (const struct command *const *c = commands; *c; c++, n++)
		if (name_taken((*c)->name) || ((*c)->alias && name_taken((*c)->alias)))
			return -1;
	for (size_t i = 0; command_at(i); i++)
		n++;
	if (n > MAX_COMMANDS)
		return -1;
	tables[ntables] = commands;
	ntables++;
	return 0;
}

int command_distance(const char *a, const char *b) { return text_distance(a, b, 0); }

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_flags(const struct command *c, unsigned need) { return (c->flags & need) == need; }

/* The lookup among the commands with the flags @need; a control line (@need set) is told
 * the commands it may use instead of a guess. */
static const struct command *find(const char *word, unsigned need, char *err, size_t errlen)
{
	const char *matches[MAX_COMMANDS];
	const struct command *c, *hit = NULL;
	size_t n = 0, len = strlen(word), o;
	char esc[128];
	const char *best = NULL;
	int bestd = 1 << 30;

	for (size_t i = 0; (c = command_at(i)); i++)
		if (has_flags(c, need) &&
		    (strcmp(c->name, word) == 0 || (c->alias && strcmp(c->alias, word) == 0)))
			return c;
	for (size_t i = 0; (c = command_at(i)) && n < MAX_COMMANDS; i++)
		if (has_flags(c, need) && len && strncmp(c->name, word, len) == 0) {
			matches[n++] = c->name;
			hit = c;
		}
	if (n == 1)
		return hit;
	text_escape(word, TEXT_NUL_TERMINATED, esc, sizeof(esc));
	if (n > 1) {
		qsort(matches, n, sizeof(matches[0]), cmp_str);
		o = (size_t)snprintf(err, errlen, "ambiguous command '%s':", esc);
		for (size_t i = 0; i < n && o < errlen; i++)
			o += (size_t)snprintf(err + o, errlen - o, "%s %s", i ? "," : "",
					      matches[i]);
		return NULL;
	}
	if (need) {
		o = (size_t)snprintf(err, errlen, "unknown command \"%s\" (", esc);
		n = 0;
		for (size_t i = 0; (c = command_at(i)) && o < errlen; i++)
			if (has_flags(c, need))
				o += (size_t)snprintf(err + o, errlen - o, "%s%s", n++ ? ", " : "",
						      c->name);
		if (o < errlen)
			snprintf(err + o, errlen - o, ")");
		return NULL;
	}
	for (size_t i = 0; (c = command_at(i)); i++) {
		int d = command_distance(word, c->name);
		if (d < bestd)
			bestd = d, best = c->name;
	}
	if (best && len > 1 && (bestd <= 2 || (size_t)bestd * 2 <= len) && (size_t)bestd < len)
		snprintf(err, errlen, "unknown command '%s' (did you mean '%s'?)", esc, best);
	else
		snprintf(err, errlen, "unknown command '%s' (type 'help' for the list)", esc);
	return NULL;
}

const struct command *command_find(const char *word, char *err, size_t errlen)
{
	return find(word, 0, err, errlen);
}

const struct option_def *command_setting_find(const char *name, char *err, size_t errlen)
{
	const struct option_def *s;
	char list[256] = "";

	for (size_t i = 0; (s = command_setting_at(i)); i++)
		if (strcmp(s->name, name) == 0)
			return s;
	for (size_t i = 0; (s = command_setting_at(i)); i++) {
		size_t u = strlen(list);
		snprintf(list + u, sizeof(list) - u, "%s%s", u ? ", " : "", s->name);
	}
	snprintf(err, errlen, "unknown option \"%s\" (options: %s)", name, list);
	return NULL;
}

int command_parse_bool(const char *v, bool *out, char *err, size_t errlen)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		*out = false;
	else {
		snprintf(err, errlen, "\"%s\" is not on or off", v);
		return -1;
	}
	return 0;
}

int command_parse_ms(const char *v, long *out, char *err, size_t errlen)
{
	if (duration_parse_ms(v, 1, out) < 0) {
		snprintf(err, errlen,
			 "\"%s\" is not a duration (milliseconds, or with a unit: 500ms, 2.5s)", v);
		return -1;
	}
	return 0;
}

void command_note(const struct command_ctx *ctx, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!ctx->screen)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	app_log(ctx->app, MSG_INFO, "%s", buf);
}

int command_control(struct app_ctx *app, const char *line, char *err, size_t errlen)
{
	char why[512] = "";
	if (command_execute_from(app, COMMAND_CONTROL, line, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "control: %s", why[0] ? why : "command failed");
	return -1;
}

int command_split(const char *line, int *argc, char ***argv, char *err, size_t errlen)
{
	return words_argv(line, argc, argv, err, errlen);
}

void command_free_words(int argc, char **argv) { words_argv_free(argc, argv); }

char *command_join(int argc, char *const *argv)
{
	size_t len = 1;
	char *out, *o;

	for (int i = 0; i < argc; i++)
		len += 2 * strlen(argv[i]) + 3;
	if (!(o = out = malloc(len)))
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (i)
			*o++ = ' ';
		if (*s && !strpbrk(s, " \t\n\r\"'\\#;")) {
			o = stpcpy(o, s);
		} else if (!strchr(s, '\'')) {
			*o++ = '\'';
			o = stpcpy(o, s);
			*o++ = '\'';
		} else {
			*o++ = '"';
			for (; *s; s++) {
				if (*s == '"' || *s == '\\')
					*o++ = '\\';
				*o++ = *s;
			}
			*o++ = '"';
		}
	}
	*o = '\0';
	return out;
}

/* How a line runs: with ctx.app NULL or exec false only looked up and counted. */
struct run {
	struct command_ctx ctx;
	bool exec;
	int screen;	  /* 1 a screen, 0 none (batch mode), -1 not known (command_check) */
	bool skip_screen; /* statements that need the screen are passed over (the rc in batch) */
	unsigned need;	  /* flags every command must have (COMMAND_CONTROL on a control line) */
};

/* Looks up and checks one statement; argv[0] becomes the full name. */
static const struct command *resolve(int argc, char **argv, unsigned need, char *err, size_t errlen)
{
	const struct command *c = find(argv[0], need, err, errlen);
	char *name;

	if (!c)
		return NULL;
	if (argc - 1 < c->min_args || (c->max_args >= 0 && argc - 1 > c->max_args)) {
		snprintf(err, errlen, "usage: %s", c->usage);
		return NULL;
	}
	if (strcmp(argv[0], c->name) != 0) {
		if (!(name = strdup(c->name))) {
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		free(argv[0]);
		argv[0] = name;
	}
	return c;
}

/* One statement: 0, -1, or COMMAND_SCREEN_ONLY. */
static int run_statement(const struct run *r, int argc, char **argv, char *err, size_t errlen)
{
	const struct command *c = resolve(argc, argv, r->need, err, errlen);
	int rc;

	if (!c)
		return -1;
	if ((c->flags & COMMAND_SCREEN) && r->screen == 0) {
		snprintf(err, errlen, "%s: only on the screen, not in batch mode", c->name);
		return COMMAND_SCREEN_ONLY;
	}
	if (!r->exec || !r->ctx.app)
		return 0;
	rc = c->exec(&r->ctx, argc, argv, err, errlen);
	return rc == 0 || rc == COMMAND_SCREEN_ONLY ? rc : -1;
}

/* Runs (or checks) each statement of @line; stops at the first error. */
static int run_line(const struct run *r, const char *line, char *err, size_t errlen)
{
	struct words w;
	int rc = 0, start = 0;

	if (words_split(line, &w, err, errlen) < 0)
		return -1;
	for (int i = 0; i <= w.n && rc == 0; i++) {
		if (i < w.n && !w.sep[i])
			continue;
		int argc = i - start;
		char **argv = w.v + start, *saved = argc > 0 ? argv[argc] : NULL;
		if (argc > 0) {
			argv[argc] = NULL; /* handlers see a NULL-terminated statement */
			rc = run_statement(r, argc, argv, err, errlen);
			if (rc == COMMAND_SCREEN_ONLY && r->skip_screen)
				rc = 0;
			argv[argc] = saved;
		}
		start = i + 1;
	}
	words_free(&w);
	return rc;
}

int command_check(const char *line, char *err, size_t errlen)
{
	struct run r = {.screen = -1};

	return run_line(&r, line, err, errlen);
}

int command_execute_from(struct app_ctx *app, enum command_origin origin, const char *line,
			 char *err, size_t errlen)
{
	bool screen = app && app_observer_state(app, "ui");
	struct run r = {.ctx = {.app = app, .screen = screen, .origin = origin},
			.exec = true,
			.screen = screen,
			.need = origin == COMMAND_CONTROL ? COMMAND_CONTROL : 0};

	return run_line(&r, line, err, errlen);
}

int command_execute(struct app_ctx *app, const char *line, char *err, size_t errlen)
{
	return command_execute_from(app, COMMAND_USER, line, err, errlen);
}

void command_errors_free(struct command_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->msgs[i]);
	free(e->msgs);
	e->msgs = NULL;
	e->n = 0;
}

static void add_error(struct command_errors *e, const char *name, int line, const char *msg)
{
	char buf[1024], **v;

	if (!name) /* the message names its file already */
		snprintf(buf, sizeof(buf), "%s", msg);
	else if (line > 0)
		snprintf(buf, sizeof(buf), "%s:%d: %s", name, line, msg);
	else
		snprintf(buf, sizeof(buf), "%s: %s", name, msg);
	if (!(v = realloc(e->msgs, (e->n + 1) * sizeof(*v))))
		return;
	e->msgs = v;
	if ((v[e->n] = strdup(buf)))
		e->n++;
}

/* A script: the rc file, one -c, or a text of lines. */
struct script {
	const char *name;
	int number; /* >0: every error is "name:number:" (which -c); 0: the line's number */
	struct run run;
	bool stop; /* at the first error */
};

static int run_script(const char *text, const struct script *s, struct command_errors *errs)
{
	char *copy = strdup(text), *save, err[512];
	int lineno = 0, nerr = 0;

	if (!copy) {
		add_error(errs, s->name, 0, "out of memory");
		return 1;
	}
	for (char *p = copy; p && !(nerr && s->stop); p = save) {
		save = strchr(p, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		err[0] = '\0';
		if (run_line(&s->run, p, err, sizeof(err)) < 0) {
			add_error(errs, s->name, s->number ? s->number : lineno,
				  err[0] ? err : "command failed");
			nerr++;
		}
	}
	free(copy);
	return nerr;
}

static struct script text_script(struct app_ctx *app, const char *name)
{
	bool screen = app && app_observer_state(app, "ui");

	return (struct script){.name = name,
			       .run = {.ctx = {.app = app, .screen = screen, .origin = COMMAND_RC},
				       .exec = true,
				       .screen = screen}};
}

int command_run_text(struct app_ctx *app, const char *text, const char *name,
		     struct command_errors *errs)
{
	struct script s = text_script(app, name);

	return run_script(text, &s, errs);
}

/* Reads a script file (bounded lines and size, text only, no hang on a FIFO); -1 with the
 * reason in @errs. */
static int read_script(const char *path, char **text, struct command_errors *errs)
{
	char why[512];
	*text = lr_slurp(path, LR_TEXT_LINE_MAX, LR_TEXT_FILE_MAX, LR_TEXT, NULL, why, sizeof(why));
	if (!*text) {
		add_error(errs, NULL, 0, why);
		return -1;
	}
	return 0;
}

int command_run_file(struct app_ctx *app, const char *path, struct command_errors *errs)
{
	char *text;
	int rc = read_script(path, &text, errs);
	struct script s = text_script(app, path);

	if (rc < 0)
		return -1;
	rc += run_script(text, &s, errs);
	free(text);
	return rc;
}

/* The rc files in the order they run: the system-wide one, then the user's. */
#define RC_FILES 2

/* An rc file runs commands (record FILE writes files): as ssh does with its configuration, it
 * is read only when owned by this user or root and not writable by group or others (a device
 * such as /dev/zero is data, not commands, and is only held to the owner rule). NULL when it
 * may be read, else why not. */
static const char *rc_untrusted(const char *path, char *why, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL; /* the reader says what is wrong */
	uid_t me = geteuid();
	if (st.st_uid != me && st.st_uid != 0) {
		snprintf(why, len, "owned by uid %u, not by you (uid %u) or root",
			 (unsigned)st.st_uid, (unsigned)me);
		return why;
	}
	if ((S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, len, "writable by %s (mode %04o; chmod go-w to use it)",
			 st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return why;
	}
	return NULL;
}

int command_startup(struct app_ctx *app, struct command_errors *errs)
{
	bool screen = app_observer_state(app, "ui") != NULL;
	char paths[RC_FILES][4096];
	char *texts[RC_FILES] = {NULL};
	struct script rcs[RC_FILES];
	int nrc = 0, nerr = 0;

	if (!app->opt.no_rc) {
		int have[RC_FILES] = {
		    paths_system_rc(paths[0], sizeof(paths[0])),
		    paths_user(PATHS_CONFIG, "pmutoprc", paths[1], sizeof(paths[1]))};
		for (int i = 0; i < RC_FILES; i++) {
			if (have[i] != 0 || access(paths[i], F_OK) != 0)
				continue;
			char why[160];
			if (rc_untrusted(paths[i], why, sizeof(why))) {
				app_log(app, MSG_WARN, "rc file %s skipped: %s", paths[i], why);
				continue;
			}
			int r = read_script(paths[i], &texts[nrc], errs);
			if (r != 0)
				nerr++;
			if (r < 0 && !screen)
				goto out;
			if (!texts[nrc])
				continue;
			rcs[nrc] = (struct script){
			    .name = paths[i],
			    .run = {.ctx = {.app = app, .screen = screen, .origin = COMMAND_RC},
				    .screen = screen,
				    .skip_screen = !screen}};
			nrc++;
		}
	}
	struct script arg = {.name = "-c",
			     .run = {.ctx = {.app = app, .screen = screen, .origin = COMMAND_ARG},
				     .screen = screen}};
	if (!screen) {
		/* batch mode: nothing runs when a line is wrong */
		for (int i = 0; i < nrc; i++)
			nerr += run_script(texts[i], &rcs[i], errs);
		for (int i = 0; i < app->opt.ncommands; i++) {
			arg.number = i + 1;
			nerr += run_script(app->opt.commands[i], &arg, errs);
		}
		if (nerr)
			goto out;
		for (int i = 0; i < nrc; i++)
			rcs[i].stop = true;
		arg.stop = true;
	}
	for (int i = 0; i < nrc; i++) {
		rcs[i].run.exec = true;
		nerr += run_script(texts[i], &rcs[i], errs);
	}
	arg.run.exec = true;
	for (int i = 0; i < app->opt.ncommands && !(nerr && !screen); i++) {
		arg.number = i + 1;
		nerr += run_script(app->opt.commands[i], &arg, errs);
	}
out:
	for (int i = 0; i < RC_FILES; i++)
		free(texts[i]);
	return nerr;
}

static int push_line(char ***lines, size_t *n, const char *s)
{
	char **v = realloc(*lines, (*n + 2) * sizeof(*v));

	if (!v)
		return -1;
	*lines = v;
	if (!(v[*n] = strdup(s)))
		return -1;
	v[++*n] = NULL;
	return 0;
}

#define HELP_USAGE_W 34 /* the help's usage column, characters */

static int push_commands(char ***lines, size_t *n, bool screen)
{
	const struct command *c;
	char buf[256];
	int rc = 0;

	for (size_t i = 0; (c = command_at(i)); i++) {
		if (!(c->flags & COMMAND_SCREEN) != !screen)
			continue;
		/* a usage longer than its column has a line of its own, the text under the
		 * others' */
		bool long_usage = strlen(c->usage) > HELP_USAGE_W;
		if (long_usage) {
			snprintf(buf, sizeof(buf), "  %s", c->usage);
			rc |= push_line(lines, n, buf);
		}
		int o = snprintf(buf, sizeof(buf), "  %-*s %s", HELP_USAGE_W,
				 long_usage ? "" : c->usage, c->help);
		if (c->alias && o > 0 && (size_t)o < sizeof(buf))
			snprintf(buf + o, sizeof(buf) - (size_t)o, " (alias %s)", c->alias);
		rc |= push_line(lines, n, buf);
	}
	return rc;
}

char **command_help_lines(const struct keymap *km)
{
	char **lines = NULL, buf[256], key[32];
	const struct command *c;
	size_t n = 0;
	int rc = 0;
	bool any_screen = false;

	for (size_t i = 0; (c = command_at(i)); i++)
		any_screen |= (c->flags & COMMAND_SCREEN) != 0;
	rc |= push_line(&lines, &n, "Commands (type ':' first; a unique prefix is enough):");
	rc |= push_commands(&lines, &n, false);
	if (any_screen) {
		rc |= push_line(&lines, &n, "Screen commands (not in batch mode):");
		rc |= push_commands(&lines, &n, true);
	}
	if (km) {
		rc |= push_line(&lines, &n, "");
		rc |= push_line(&lines, &n, "Keys:");
		for (size_t i = 0; i < km->n; i++) {
			snprintf(buf, sizeof(buf), "  %-10s %s",
				 keys_name(km->v[i].key, key, sizeof(key)), km->v[i].command);
			rc |= push_line(&lines, &n, buf);
		}
		snprintf(buf, sizeof(buf), "  %-10s %s", "esc", KEYS_ESC_HELP);
		rc |= push_line(&lines, &n, buf);
	}
	if (rc) {
		command_free_words(-1, lines);
		return NULL;
	}
	return lines;
}

static const char *const kind_names[ARG_KIND_COUNT] = {
    [ARG_NONE] = "",	     [ARG_COMMAND] = "command", [ARG_MODE] = "mode",
    [ARG_NUMBER] = "number", [ARG_CPUS] = "CPU list",	[ARG_COLUMN] = "column",
    [ARG_METRIC] = "metric", [ARG_THEME] = "theme",	[ARG_OFFCORE_BIT] = "offcore bit",
    [ARG_EVENT] = "event",   [ARG_OPTION] = "option",	[ARG_VALUE] = "value",
    [ARG_KEY] = "key",	     [ARG_FILE] = "file",	[ARG_TEXT] = "text",
    [ARG_VIEW] = "view",     [ARG_PROBE] = "probe",	[ARG_RULE] = "rule",
    [ARG_SELECT] = "row",    [ARG_DRILL] = "direction", [ARG_ROWS] = "unit",
};

char **command_help_for(const char *name, char *err, size_t errlen)
{
	const struct command *c = command_find(name, err, errlen);
	char **lines = NULL, buf[256];
	size_t n = 0;
	int rc = 0;

	if (!c)
		return NULL;
	snprintf(buf, sizeof(buf), "usage: %s", c->usage);
	rc |= push_line(&lines, &n, buf);
	rc |= push_line(&lines, &n, c->help);
	if (c->alias) {
		snprintf(buf, sizeof(buf), "alias: %s", c->alias);
		rc |= push_line(&lines, &n, buf);
	}
	if (c->max_args != 0 && c->args[0] != ARG_NONE) {
		size_t o = (size_t)snprintf(buf, sizeof(buf), "arguments:");
		for (int i = 0; i < COMMAND_ARGS_MAX && c->args[i] != ARG_NONE; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %s",
					      kind_names[c->args[i]]);
		rc |= push_line(&lines, &n, buf);
	}
	if (c->flags & COMMAND_SCREEN)
		rc |= push_line(&lines, &n, "only on the screen (not in batch mode)");
	if (c->flags & COMMAND_CONTROL)
		rc |= push_line(&lines, &n, "also a control line of the agent (docs/remote.md)");
	if (rc) {
		command_free_words(-1, lines);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return lines;
}

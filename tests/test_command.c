/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_command.c: command tables, lookup, splitting, quoting, usage errors, rc, start-up, keys. */
#include "app.h"
#include "command.h"
#include "harness.h"
#include "keys.h"
#include "paths.h"
#include "ui.h"
#include "views.h"
#include <ctype.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The test's own commands (a table of their own, as the screen adds one): a log of the calls. */
static char calls[2048];

static int record(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	char *j = command_join(argc, argv);
	size_t o = strlen(calls);

	(void)ctx;
	snprintf(calls + o, sizeof(calls) - o, "%s%s", o ? "|" : "", j);
	free(j);
	if (argv[argc] != NULL) {
		snprintf(err, errlen, "argv not NULL-terminated");
		return -1;
	}
	return 0;
}

static int failing(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)ctx;
	snprintf(err, errlen, "no such thing '%s'", argc > 1 ? argv[1] : "");
	return -1;
}

static const struct command t_echo = {.name = "echo",
				      .usage = "echo [WORD...]",
				      .max_args = COMMAND_VARIADIC,
				      .exec = record,
				      .help = "log the words"};
static const struct command t_fail = {
    .name = "fail", .usage = "fail [WHAT]", .max_args = 1, .exec = failing, .help = "fail"};
static const struct command t_screen = {.name = "tscreen",
					.usage = "tscreen",
					.flags = COMMAND_SCREEN,
					.exec = record,
					.help = "a screen command"};
static const struct command t_control = {.name = "tcontrol",
					 .usage = "tcontrol",
					 .flags = COMMAND_CONTROL,
					 .exec = record,
					 .help = "a control command"};
static const struct command *const test_table[] = {&t_echo, &t_fail, &t_screen, &t_control, NULL};
static const struct command t_clash = {.name = "mode", .usage = "mode", .help = "taken"};
static const struct command *const clash_table[] = {&t_clash, NULL};

static struct app_ctx app; /* zero: no screen, nothing running (no core handler is reached) */

static const struct {
	int line;
	const char *word, *name, *err;
} find_cases[] = {
    {__LINE__, "mode", "mode", NULL},
    {__LINE__, "mo", "mode", NULL},
    {__LINE__, "q", "quit", NULL}, /* alias beats the prefix */
    {__LINE__, "?", "help", NULL},
    {__LINE__, "int", "interval", NULL},
    {__LINE__, "stop", "stop", NULL}, /* exact match wins */
    {__LINE__, "p", NULL, "ambiguous command 'p': pause, perf-events, probe"},
    {__LINE__, "re", NULL, "ambiguous command 're': record, redraw, refresh, remove, resume"},
    {__LINE__, "s", NULL, "ambiguous command 's': sample, select, set, show, sort, spark, stop"},
    {__LINE__, "mdoe", NULL, "unknown command 'mdoe' (did you mean 'mode'?)"},
    {__LINE__, "intervall", NULL, "unknown command 'intervall' (did you mean 'interval'?)"},
    {__LINE__, "qiut", NULL, "unknown command 'qiut' (did you mean 'quit'?)"},
    {__LINE__, "xyzzy", NULL, "unknown command 'xyzzy' (type 'help' for the list)"},
    {__LINE__, "foo\x1b[2J", NULL, "unknown command 'foo\\x1b[2J' (type 'help' for the list)"},
    {__LINE__, "", NULL, "unknown command '' (type 'help' for the list)"},
};

static const struct {
	int line;
	const char *text;
	int ok;
	const char *joined; /* words joined with '|' */
	const char *err;
} split_cases[] = {
    {__LINE__, "mode cpi", 1, "mode|cpi", NULL},
    {__LINE__, "  mode\t  cpi  ", 1, "mode|cpi", NULL},
    {__LINE__, "", 1, "", NULL},
    {__LINE__, "   # only a comment", 1, "", NULL},
    {__LINE__, "mark \"two words\" 'and \"more\"'", 1, "mark|two words|and \"more\"", NULL},
    {__LINE__, "mark a\\ b \"q\\\"x\" 'x\\y'", 1, "mark|a b|q\"x|x\\y", NULL},
    {__LINE__, "mark \"\" ''", 1, "mark||", NULL},
    {__LINE__, "mark a#b # comment", 1, "mark|a#b", NULL},
    {__LINE__, "pause; resume", 1, "pause|;|resume", NULL},
    {__LINE__, "mark 'a;b' a\\;b", 1, "mark|a;b|a;b", NULL},
    /* define's METRICS as :help shows them: a ';' inside a word holding '=' is the word's */
    {__LINE__, "define m c=cycles x=c/2;y=c/4", 1, "define|m|c=cycles|x=c/2;y=c/4", NULL},
    {__LINE__, "define m c=cycles x=c/2;y=c/4; mode cpi", 1,
     "define|m|c=cycles|x=c/2;y=c/4|;|mode|cpi", NULL},
    {__LINE__, "pause;resume", 1, "pause|;|resume", NULL},
    {__LINE__, "mark a=b; pause", 1, "mark|a=b|;|pause", NULL},
    {__LINE__, "mark ab\"cd ef\"gh", 1, "mark|abcd efgh", NULL},
    {__LINE__, "mark \"open", 0, NULL, "unterminated double quote"},
    {__LINE__, "mark 'open", 0, NULL, "unterminated single quote"},
    {__LINE__, "mark end\\", 0, NULL, "backslash at the end of the line"},
    {__LINE__, "mark \xe4\xb8\xad\xe6\x96\x87", 1, "mark|\xe4\xb8\xad\xe6\x96\x87", NULL},
};

static void test_find_split(void)
{
	char err[256];

	for (size_t i = 0; i < N(find_cases); i++) {
		err[0] = '\0';
		const struct command *c = command_find(find_cases[i].word, err, sizeof(err));
		if (find_cases[i].name)
			CHECK(c && strcmp(c->name, find_cases[i].name) == 0, "line %d: %s",
			      find_cases[i].line, c ? c->name : err);
		else
			CHECK(!c && strcmp(err, find_cases[i].err) == 0, "line %d: got '%s'",
			      find_cases[i].line, err);
	}
	for (size_t i = 0; i < N(split_cases); i++) {
		int argc = -1;
		char **argv = NULL, joined[256] = "";
		int r = command_split(split_cases[i].text, &argc, &argv, err, sizeof(err));
		CHECK((r == 0) == split_cases[i].ok, "line %d: rc %d", split_cases[i].line, r);
		if (r < 0) {
			CHECK(strcmp(err, split_cases[i].err) == 0, "line %d: err '%s'",
			      split_cases[i].line, err);
			continue;
		}
		for (int a = 0; a < argc; a++)
			snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
				 a ? "|" : "", argv[a]);
		CHECK(argv[argc] == NULL, "line %d: NULL-terminated", split_cases[i].line);
		CHECK(strcmp(joined, split_cases[i].joined) == 0, "line %d: got '%s'",
		      split_cases[i].line, joined);
		/* join then split gives the same words */
		char *j = command_join(argc, argv);
		int argc2;
		char **argv2;
		CHECK(command_split(j, &argc2, &argv2, err, sizeof(err)) == 0 && argc2 == argc,
		      "line %d: rejoin '%s'", split_cases[i].line, j);
		for (int a = 0; a < argc && a < argc2; a++)
			if (strcmp(argv[a], ";") != 0)
				CHECK(strcmp(argv[a], argv2[a]) == 0, "line %d: word %d '%s'",
				      split_cases[i].line, a, argv2[a]);
		command_free_words(argc2, argv2);
		free(j);
		command_free_words(argc, argv);
	}
}

static const struct {
	int line;
	const char *text;
	int rc;
	const char *log, *err;
} exec_cases[] = {
    {__LINE__, "echo cpi", 0, "echo cpi", NULL},
    {__LINE__, "ec cpi", 0, "echo cpi", NULL},
    {__LINE__, "", 0, "", NULL},
    {__LINE__, "echo ; ech 500;;", 0, "echo|echo 500", NULL},
    {__LINE__, "echo 'hello world'", 0, "echo 'hello world'", NULL},
    {__LINE__, "echo a b c", 0, "echo a b c", NULL},
    {__LINE__, "echo 0 1 2 3 4 5 6 7 8", 0, "echo 0 1 2 3 4 5 6 7 8", NULL},
    {__LINE__, "mode a b c", -1, "", "usage: mode [NAME|next|prev]"},
    {__LINE__, "mode a b", -1, "", "usage: mode [NAME|next|prev]"},
    {__LINE__, "q now", -1, "", "usage: quit"},
    {__LINE__, "define x a=r04", -1, "", "usage: define NAME EVENTS METRICS"},
    {__LINE__, "set interval", -1, "", "usage: set OPTION VALUE"},
    {__LINE__, "echo a; mode a b", -1, "echo a", "usage: mode [NAME|next|prev]"},
    {__LINE__, "p", -1, "", "ambiguous command 'p': pause, perf-events, probe"},
    {__LINE__, "foo", -1, "", "unknown command 'foo' (type 'help' for the list)"},
    {__LINE__, "echo \"x", -1, "", "unterminated double quote"},
    {__LINE__, "fail nosuch; echo", -1, "", "no such thing 'nosuch'"}, /* handler's error */
    /* no screen (app.ui NULL): the screen's commands and settings say so */
    {__LINE__, "tscreen", COMMAND_SCREEN_ONLY, "",
     "tscreen: only on the screen, not in batch mode"},
    {__LINE__, "sort cpu", COMMAND_SCREEN_ONLY, "", "sort: only on the screen, not in batch mode"},
    {__LINE__, "echo 1; theme mono; echo 2", COMMAND_SCREEN_ONLY, "echo 1",
     "theme: only on the screen, not in batch mode"},
    {__LINE__, "set theme mono", COMMAND_SCREEN_ONLY, "",
     "set theme: only on the screen, not in batch mode"},
    {__LINE__, "show ascii", COMMAND_SCREEN_ONLY, "",
     "show ascii: only on the screen, not in batch mode"},
    {__LINE__, "set nosuch 1", -1, "",
     "unknown option \"nosuch\" (options: interval, mode, cpus, attrib, error, stat, "
     "flight-files, flight-bytes, self, theme, running, group, ascii, tasks)"},
};

/* Control lines (the agent's stdin) reach only the commands marked for them. */
static const struct {
	int line;
	const char *text;
	int rc;
	const char *log, *err;
} control_cases[] = {
    {__LINE__, "tcontrol", 0, "tcontrol", NULL},
    {__LINE__, "tcon", 0, "tcontrol", NULL},
    {__LINE__, "echo x", -1, "",
     "unknown command \"echo\" (mode, interval, cpus, mark, quit, tcontrol)"},
    {__LINE__, "bogus", -1, "",
     "unknown command \"bogus\" (mode, interval, cpus, mark, quit, tcontrol)"},
    {__LINE__, "m x", -1, "", "ambiguous command 'm': mark, mode"},
    {__LINE__, "interval", -1, "", "usage: interval DURATION|+|-"},
};

static void test_execute(void)
{
	char err[256];
	const struct command *c;

	CHECK_INT(command_add_table(test_table), 0);
	CHECK_INT(command_add_table(test_table), 0); /* again: nothing */
	CHECK_INT(command_add_table(clash_table), -1);
	for (size_t i = 0; i < N(exec_cases); i++) {
		calls[0] = '\0';
		err[0] = '\0';
		int r = command_execute(&app, exec_cases[i].text, err, sizeof(err));
		CHECK(r == exec_cases[i].rc, "line %d: rc %d (%s)", exec_cases[i].line, r, err);
		CHECK(strcmp(calls, exec_cases[i].log) == 0, "line %d: log '%s'",
		      exec_cases[i].line, calls);
		if (exec_cases[i].rc)
			CHECK(strcmp(err, exec_cases[i].err) == 0, "line %d: err '%s'",
			      exec_cases[i].line, err);
	}
	for (size_t i = 0; i < N(control_cases); i++) {
		calls[0] = '\0';
		err[0] = '\0';
		int r = command_execute_from(&app, COMMAND_CONTROL, control_cases[i].text, err,
					     sizeof(err));
		CHECK(r == control_cases[i].rc, "line %d: rc %d (%s)", control_cases[i].line, r,
		      err);
		CHECK(strcmp(calls, control_cases[i].log) == 0, "line %d: log '%s'",
		      control_cases[i].line, calls);
		if (control_cases[i].rc)
			CHECK(strcmp(err, control_cases[i].err) == 0, "line %d: err '%s'",
			      control_cases[i].line, err);
	}
	/* with a screen the screen's commands run */
	app_observe(&app, &(struct observer){.name = "ui", .state = &app}); /* tscreen ignores it */
	calls[0] = '\0';
	CHECK(command_execute(&app, "tscreen", err, sizeof(err)) == 0, "%s", err);
	CHECK_STR(calls, "tscreen");
	app_unobserve(&app, "ui");
	/* a command check knows no screen: screen commands pass (key bindings) */
	CHECK(command_check("sort cpu; tscreen", err, sizeof(err)) == 0, "%s", err);
	/* every command: a usage that starts with its name, help, counts, a handler, one owner */
	for (size_t i = 0; (c = command_at(i)); i++) {
		CHECK(strncmp(c->usage, c->name, strlen(c->name)) == 0, "%s usage", c->name);
		CHECK(c->help && *c->help, "%s help", c->name);
		CHECK(c->max_args < 0 || c->max_args >= c->min_args, "%s counts", c->name);
		CHECK(c->exec != NULL, "%s has no handler", c->name);
	}
	for (size_t i = 0; command_core_table[i]; i++)
		CHECK(!(command_core_table[i]->flags & COMMAND_SCREEN), "core %s is the screen's",
		      command_core_table[i]->name);
}

/* The screen's table (ui/cmd-table.c) is all screen commands and settings. */
static void test_screen_table(void)
{
	const struct command *c;
	const struct option_def *s;
	size_t ncore = 0, nall = 0, screen = 0;

	while (command_core_table[ncore])
		ncore++;
	for (size_t i = 0; (c = command_at(i)); i++, nall++)
		screen += (c->flags & COMMAND_SCREEN) != 0;
	CHECK_INT((int)nall, (int)ncore + 15 + 4); /* the screen's 15, the test's 4 */
	CHECK_INT((int)screen, 15 + 1);
	/* every setting has handlers: the core's in its row, the screen's bound by the screen */
	for (size_t i = 0; (s = command_setting_at(i)); i++) {
		CHECK((s->set != NULL) == !(s->flags & OPTION_SCREEN), "setting %s", s->name);
		CHECK(options_setter(s) && options_shower(s), "setting %s has no handlers",
		      s->name);
	}
}

/* README.md's text (at most 1 MiB), NUL-terminated; NULL when it cannot be read (said). */
static char *readme_text(void)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/README.md", harness_src());
	FILE *f = fopen(path, "r");
	CHECK(f != NULL, "%s", path);
	if (!f)
		return NULL;
	char *text = calloc(1, 1 << 20);
	size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (text)
		text[n] = '\0';
	return text;
}

/* README's command table names every command of the tables. */
static void test_readme(void)
{
	const struct command *c;
	char *text = readme_text();
	if (!text)
		return;
	char *start = strstr(text, "| command | what it does |");
	char *end = start ? strstr(start, "\n\n") : NULL;
	CHECK(start && end, "README has no command table");
	if (start && end) {
		*end = '\0';
		for (size_t i = 0; (c = command_at(i)); i++) {
			if (c == &t_echo || c == &t_fail || c == &t_screen || c == &t_control)
				continue;
			char a[64], b[64];
			snprintf(a, sizeof(a), "`%s ", c->name);
			snprintf(b, sizeof(b), "`%s`", c->name);
			CHECK(strstr(start, a) || strstr(start, b), "README does not list %s",
			      c->name);
			/* the usage's literal words (lower case: next, left, on...) are in
			 * README's cell for the command */
			char *cell = strstr(start, a) ? strstr(start, a) : strstr(start, b);
			char *cell_end = cell ? strchr(cell + 1, '`') : NULL;
			for (const char *u = c->usage; cell && cell_end && *u;) {
				size_t wl =
				    *u == '-' ? 0 : strspn(u, "abcdefghijklmnopqrstuvwxyz-");
				if (wl == 0) {
					u++;
					continue;
				}
				char word[64];
				snprintf(word, sizeof(word), "%.*s", (int)wl, u);
				char *hit = strstr(cell, word);
				CHECK(hit && hit < cell_end, "README's %s cell lacks \"%s\" of %s",
				      c->name, word, c->usage);
				u += wl;
			}
		}
	}
	free(text);
}

static void test_rc(void)
{
	static const char rc[] = "# pmutop rc\n"
				 "echo cpi\n"
				 "\n"
				 "modee tlb\n" /* 4 */
				 "echo 250   # fast\n"
				 "echo \"unterminated\n" /* 6 */
				 "theme\n"		 /* 7 */
				 "echo x 'mode tlb'\n";
	static const char *const want[] = {
	    "test.rc:4: unknown command 'modee' (did you mean 'mode'?)",
	    "test.rc:6: unterminated double quote",
	    "test.rc:7: usage: theme NAME|next|prev",
	};
	struct command_errors errs = {0};

	calls[0] = '\0';
	CHECK_INT(command_run_text(&app, rc, "test.rc", &errs), 3);
	CHECK_INT(errs.n, 3);
	for (size_t i = 0; i < N(want) && i < errs.n; i++)
		CHECK_STR(errs.msgs[i], want[i]);
	CHECK_STR(calls, "echo cpi|echo 250|echo x 'mode tlb'");
	command_errors_free(&errs);

	char path[] = "/tmp/pmutop-rc-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs("echo\nbogus\n", f);
	fclose(f);
	calls[0] = '\0';
	CHECK_INT(command_run_file(&app, path, &errs), 1);
	CHECK_INT(errs.n, 1);
	if (errs.n) {
		char want1[128];
		snprintf(want1, sizeof(want1),
			 "%s:2: unknown command 'bogus' (type 'help' for the list)", path);
		CHECK_STR(errs.msgs[0], want1);
	}
	command_errors_free(&errs);
	unlink(path);
	CHECK_INT(command_run_file(&app, path, &errs), -1);
	CHECK(errs.n == 1 && strstr(errs.msgs[0], "No such file") != NULL, "missing rc file");
	command_errors_free(&errs);
}

/* Start-up: the rc file, then every -c; batch mode checks first and stops at an error. */
static const struct {
	int line;
	const char *rc; /* NULL: no rc file */
	const char *c[3];
	bool screen;
	int nerr;
	const char *log, *err; /* the first error */
} startup_cases[] = {
    {__LINE__, NULL, {"echo a", "echo b; echo c"}, false, 0, "echo a|echo b|echo c", NULL},
    {__LINE__, "echo rc\n", {"echo a"}, false, 0, "echo rc|echo a", NULL},
    /* nothing runs when a line is wrong: -c:N counts the -c options */
    {__LINE__,
     NULL,
     {"echo a", "bogus"},
     false,
     1,
     "",
     "-c:2: unknown command 'bogus' (type 'help' for the list)"},
    {__LINE__,
     NULL,
     {"tscreen"},
     false,
     1,
     "",
     "-c:1: tscreen: only on the screen, not in batch mode"},
    {__LINE__,
     NULL,
     {"echo a", "sort cpu"},
     false,
     1,
     "",
     "-c:2: sort: only on the screen, not in batch mode"},
    {__LINE__,
     "echo 1\nmodee x\n",
     {"echo a"},
     false,
     1,
     "",
     "RC:2: unknown command 'modee' (did you mean 'mode'?)"},
    /* the rc file's screen lines (commands and settings) are the screen's business */
    {__LINE__,
     "tscreen\nset theme mono; echo 1\nbind x quit\n",
     {"echo a"},
     false,
     0,
     "echo 1|echo a",
     NULL},
    /* a command that fails when it runs ends the start-up */
    {__LINE__, NULL, {"echo a", "fail x", "echo b"}, false, 1, "echo a", "-c:2: no such thing 'x'"},
    /* on the screen every line runs and the errors are collected */
    {__LINE__,
     "bogus\necho rc\n",
     {"echo a", "fail x", "tscreen"},
     true,
     2,
     "echo rc|echo a|tscreen",
     "RC:1: unknown command 'bogus' (type 'help' for the list)"},
};

static void test_startup(void)
{
	char dir[] = "/tmp/pmutop-startup-XXXXXX", rcdir[1100], rcpath[1200], buf[1300];
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(rcdir, sizeof(rcdir), "%s/pmutop", dir);
	mkdir(rcdir, 0700);
	snprintf(rcpath, sizeof(rcpath), "%s/pmutoprc", rcdir);
	setenv("XDG_CONFIG_HOME", dir, 1);
	CHECK(paths_user(PATHS_CONFIG, "pmutoprc", buf, sizeof(buf)) == 0 &&
		  strcmp(buf, rcpath) == 0,
	      "rc path %s", buf);
	for (size_t i = 0; i < N(startup_cases); i++) {
		struct command_errors errs = {0};
		unlink(rcpath);
		if (startup_cases[i].rc) {
			FILE *f = fopen(rcpath, "w");
			fputs(startup_cases[i].rc, f);
			fclose(f);
		}
		memset(&app.opt, 0, sizeof(app.opt));
		for (int k = 0; k < 3 && startup_cases[i].c[k]; k++)
			app.opt.commands[app.opt.ncommands++] = startup_cases[i].c[k];
		if (startup_cases[i].screen)
			app_observe(&app, &(struct observer){.name = "ui", .state = &app});
		calls[0] = '\0';
		int n = command_startup(&app, &errs);
		app_unobserve(&app, "ui");
		CHECK(n == startup_cases[i].nerr && (int)errs.n == n, "line %d: %d errors",
		      startup_cases[i].line, n);
		CHECK(strcmp(calls, startup_cases[i].log) == 0, "line %d: log '%s'",
		      startup_cases[i].line, calls);
		if (errs.n && startup_cases[i].err) {
			const char *want = startup_cases[i].err;
			if (strncmp(want, "RC:", 3) == 0) {
				snprintf(buf, sizeof(buf), "%s:%s", rcpath, want + 3);
				want = buf;
			}
			CHECK(strcmp(errs.msgs[0], want) == 0, "line %d: '%s'",
			      startup_cases[i].line, errs.msgs[0]);
		}
		command_errors_free(&errs);
	}
	/* --no-rc */
	struct command_errors errs = {0};
	FILE *f = fopen(rcpath, "w");
	fputs("bogus\n", f);
	fclose(f);
	memset(&app.opt, 0, sizeof(app.opt));
	app.opt.no_rc = true;
	CHECK_INT(command_startup(&app, &errs), 0);
	command_errors_free(&errs);
	unlink(rcpath);
	rmdir(rcdir);
	rmdir(dir);
	memset(&app.opt, 0, sizeof(app.opt));
}

static const struct {
	int line;
	const char *name;
	int key;
	const char *canon;
} key_cases[] = {
    {__LINE__, "q", 'q', "q"},
    {__LINE__, "M", 'M', "M"},
    {__LINE__, "space", ' ', "space"},
    {__LINE__, "SPACE", ' ', "space"},
    {__LINE__, "<", '<', "<"},
    {__LINE__, "C-l", 12, "C-l"},
    {__LINE__, "C-L", 12, "C-l"},
    {__LINE__, "c-a", 1, "C-a"},
    {__LINE__, "C-_", 31, "C-_"},
    {__LINE__, "F1", KEYS_F1, "F1"},
    {__LINE__, "F12", KEYS_F12, "F12"},
    {__LINE__, "up", KEYS_UP, "up"},
    {__LINE__, "pgdn", KEYS_PGDN, "pgdn"},
    {__LINE__, "tab", 9, "tab"},
    {__LINE__, "esc", 27, "esc"},
    {__LINE__, "\xc3\xa9", 0xe9, "\xc3\xa9"},
    {__LINE__, "F13", -1, NULL},
    {__LINE__, "F0", -1, NULL},
    {__LINE__, "C-", -1, NULL},
    {__LINE__, "C-1", -1, NULL},
    {__LINE__, "qq", -1, NULL},
    {__LINE__, "", -1, NULL},
    {__LINE__, " ", -1, NULL},
    {__LINE__, "\x01", -1, NULL},
    {__LINE__, "\xff", -1, NULL},
};

static void test_keys(void)
{
	char err[512], buf[32];
	struct keymap km;

	for (size_t i = 0; i < N(key_cases); i++) {
		int k = keys_parse(key_cases[i].name, err, sizeof(err));
		CHECK(k == key_cases[i].key, "line %d: %d", key_cases[i].line, k);
		if (k >= 0)
			CHECK(strcmp(keys_name(k, buf, sizeof(buf)), key_cases[i].canon) == 0,
			      "line %d: name %s", key_cases[i].line, buf);
		else
			CHECK(strncmp(err, "bad key name", 12) == 0, "line %d: %s",
			      key_cases[i].line, err);
	}
	CHECK_INT(keys_map_init(&km), 0);
	CHECK_STR(keys_lookup(&km, 'q'), "quit");
	CHECK_STR(keys_lookup(&km, ' '), "toggle-pause");
	CHECK_STR(keys_lookup(&km, 'm'), "mode next");
	CHECK_STR(keys_lookup(&km, 'M'), "mode prev");
	CHECK_STR(keys_lookup(&km, 't'), "theme next");
	CHECK_STR(keys_lookup(&km, KEYS_F1), "help");
	CHECK(keys_lookup(&km, 'z') == NULL, "z unbound");

	static const struct {
		int line;
		const char *key, *cmd;
		int ok;
		const char *err;
	} bind_cases[] = {
	    {__LINE__, "z", "mode tlb", 1, NULL},
	    {__LINE__, "q", "pause; mark 'paused by q'", 1, NULL},
	    {__LINE__, "C-x", "quit", 1, NULL},
	    {__LINE__, "zz", "quit", 0, "bad key name 'zz' (a character"},
	    {__LINE__, "y", "frobnicate", 0,
	     "bind y: unknown command 'frobnicate' (type 'help' for the list)"},
	    {__LINE__, "y", "mode a b", 0, "bind y: usage: mode [NAME|next|prev]"},
	    {__LINE__, "y", "mark \"x", 0, "bind y: unterminated double quote"},
	    {__LINE__, "t", "none", 1, NULL},
	};
	for (size_t i = 0; i < N(bind_cases); i++) {
		err[0] = '\0';
		int r = keys_bind(&km, bind_cases[i].key, bind_cases[i].cmd, err, sizeof(err));
		CHECK((r == 0) == bind_cases[i].ok, "line %d: %s", bind_cases[i].line, err);
		if (!bind_cases[i].ok)
			CHECK(strncmp(err, bind_cases[i].err, strlen(bind_cases[i].err)) == 0,
			      "line %d: err '%s'", bind_cases[i].line, err);
	}
	CHECK_STR(keys_lookup(&km, 'z'), "mode tlb");
	CHECK_STR(keys_lookup(&km, 'q'), "pause; mark 'paused by q'");
	CHECK(keys_lookup(&km, 'y') == NULL, "failed bind leaves y unbound");
	CHECK(keys_lookup(&km, 't') == NULL, "none unbinds");

	/* help lines come from the tables */
	char **lines = command_help_lines(&km);
	int found_mode = 0, found_key = 0, found_esc = 0, n = 0;
	for (; lines && lines[n]; n++) {
		found_esc += strncmp(lines[n], "  esc ", 6) == 0 && strstr(lines[n], "text view");
		if (strstr(lines[n], "mode [NAME|next|prev]") &&
		    strstr(lines[n], "switch to event"))
			found_mode++;
		if (strstr(lines[n], "C-x") && strstr(lines[n], "quit"))
			found_key++;
	}
	CHECK(found_mode == 1 && found_key == 1 && found_esc == 1, "help lines: %d %d %d",
	      found_mode, found_key, found_esc);
	int ncmd = 0;
	for (size_t i = 0; command_at(i); i++)
		ncmd += strlen(command_at(i)->usage) > 34 ? 2 : 1; /* a long usage: a line more */
	/* the title, the commands, the screen's title, the keys' blank line and title, the keys
	 * and Esc */
	CHECK(n == 1 + ncmd + 1 + 2 + (int)km.n + 1, "help line count %d", n);
	command_free_words(-1, lines);
	lines = command_help_for("q", err, sizeof(err));
	CHECK(lines && strcmp(lines[0], "usage: quit") == 0 && strcmp(lines[2], "alias: q") == 0,
	      "help for q");
	command_free_words(-1, lines);
	lines = command_help_for("bind", err, sizeof(err));
	CHECK(lines && strcmp(lines[2], "arguments: key command") == 0, "help for bind: %s",
	      lines ? lines[2] : err);
	CHECK(lines && lines[3] && strstr(lines[3], "only on the screen"), "bind is the screen's");
	command_free_words(-1, lines);
	CHECK(command_help_for("zzz", err, sizeof(err)) == NULL, "help for unknown");
	keys_map_free(&km);
}

/* True when @word stands in @text as a word of its own (no letter, digit or '%' on either
 * side: "cpu" is not in "cpu%"). */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; (p = strstr(p, word)); p++) {
		bool before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '%');
		if (before && !(isalnum((unsigned char)p[n]) || p[n] == '%'))
			return true;
	}
	return false;
}

/* Every word :sort accepts is in its usage or help: the words are the literals its handler
 * (exec_sort in ui/cmd-sort.c) compares its argument with, and the suffixes it strips. */
static void test_sort_help(void)
{
	char path[1024], text[1 << 16], err[256];
	snprintf(path, sizeof(path), "%s/ui/cmd-sort.c", harness_src());
	FILE *f = fopen(path, "r");
	CHECK(f != NULL, "%s", path);
	if (!f)
		return;
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	char *body = strstr(text, "static int exec_sort(");
	char *end = body ? strstr(body, "\n}\n") : NULL;
	CHECK(body && end, "%s: no exec_sort", path);
	if (!body || !end)
		return;
	*end = '\0';
	char **lines = command_help_for("sort", err, sizeof(err));
	CHECK(lines && lines[0] && lines[1], "help for sort: %s", err);
	if (!lines || !lines[0] || !lines[1])
		return;
	char help[1024];
	snprintf(help, sizeof(help), "%s %s", lines[0], lines[1]);
	command_free_words(-1, lines);
	int words = 0, suffixes = 0;
	/* strcmp(NAME, "word") */
	for (char *p = body; (p = strstr(p, "strcmp(")); p++) {
		char *q = strchr(p, '"'), *close = strchr(p, ')');
		if (!q || !close || q > close)
			continue;
		char *qe = strchr(q + 1, '"');
		if (!qe)
			break;
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int)(qe - q - 1), q + 1);
		CHECK(has_word(help, word), ":sort accepts \"%s\", its help does not say so: %s",
		      word, help);
		words++;
	}
	/* name[len - 1] == '+': a suffix of COLUMN */
	for (char *p = body; (p = strstr(p, "[len - 1] == '")); p++) {
		char c = p[14], a[16];
		snprintf(a, sizeof(a), "COLUMN%c", c);
		bool said = strstr(help, a) != NULL;
		if (!said) { /* in the usage's bracket: COLUMN[+|-] */
			char *br = strstr(help, "COLUMN[");
			char *be = br ? strchr(br, ']') : NULL;
			said = br && be && memchr(br, c, (size_t)(be - br));
		}
		CHECK(said, ":sort accepts COLUMN%c, its help does not say so: %s", c, help);
		suffixes++;
	}
	/* next, prev, cpu, run%, cpu%; + and - */
	CHECK(words >= 5 && suffixes >= 2, "exec_sort compares with %d words, %d suffixes", words,
	      suffixes);
}

/* The help's commands: each text starts in column 37, under a usage too long for its column. */
static void test_help_column(void)
{
	char **lines = command_help_lines(NULL);
	int cmds = 0;
	CHECK(lines != NULL, "no help lines");
	for (int i = 0; lines && lines[i]; i++) {
		const char *l = lines[i];
		if (strncmp(l, "  ", 2) != 0)
			continue;
		size_t usage = strcspn(l + 2, " ") + 2; /* the first word's end */
		if (strspn(l, " ") == 37)		/* the text under a long usage */
			continue;
		if (lines[i + 1] && strspn(lines[i + 1], " ") == 37) { /* a long usage */
			CHECK(strlen(l) > 36, "help: a usage that fits on a line of its own: %s",
			      l);
			continue;
		}
		CHECK(l[36] == ' ' && l[37] != ' ' && usage <= 36,
		      "help line out of its column: %s", l);
		cmds++;
	}
	CHECK(cmds >= 30, "help: %d command lines", cmds);
	command_free_words(-1, lines);
}

/* Every view :view accepts (the view table) is named in its help and in README's row. */
static void test_view_help(void)
{
	char err[256], help[1024];
	char **lines = command_help_for("view", err, sizeof(err));
	CHECK(lines && lines[0] && lines[1], "help for view: %s", err);
	if (!lines || !lines[0] || !lines[1])
		return;
	snprintf(help, sizeof(help), "%s %s", lines[0], lines[1]);
	command_free_words(-1, lines);
	char *text = readme_text();
	if (!text)
		return;
	char *row = strstr(text, "| `view NAME` |");
	char *eol = row ? strchr(row, '\n') : NULL;
	CHECK(row && eol, "README has no view NAME row");
	if (eol)
		*eol = '\0';
	int nviews = 0;
	for (int i = 0; views_at(i); i++, nviews++) {
		CHECK(has_word(help, views_at(i)->name), ":view %s: its help does not say so: %s",
		      views_at(i)->name, help);
		CHECK(row && has_word(row + 14, views_at(i)->name),
		      ":view %s: README's view NAME row does not say so", views_at(i)->name);
	}
	CHECK(nviews >= 10, "the view table has %d views", nviews);
	free(text);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	ui_add_commands(); /* the screen's commands, as the screen and batch mode add them */
	test_find_split();
	test_execute();
	test_screen_table();
	test_readme();
	test_sort_help();
	test_view_help();
	test_help_column();
	test_rc();
	test_startup();
	test_keys();
	return harness_done();
}

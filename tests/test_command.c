/* test_command.c: command lookup, splitting and quoting, usage errors, rc files, bindings. */
#include "command.h"
#include "harness.h"
#include "keys.h"
#include <locale.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The test's application context: a log of the commands run. */
struct app_ctx {
	char log[2048];
	int calls;
};

static int record(struct app_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	char *j = command_join(argc, argv);
	size_t o = strlen(ctx->log);

	snprintf(ctx->log + o, sizeof(ctx->log) - o, "%s%s", o ? "|" : "", j);
	free(j);
	ctx->calls++;
	if (argv[argc] != NULL) {
		snprintf(err, errlen, "argv not NULL-terminated");
		return -1;
	}
	return 0;
}

static int failing(struct app_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	(void)ctx;
	snprintf(err, errlen, "no mode '%s'", argc > 1 ? argv[1] : "");
	return -1;
}

static const struct {
	int line;
	const char *word, *name, *err;
} find_cases[] = {
	{__LINE__, "mode", "mode", NULL},
	{__LINE__, "mo", "mode", NULL},
	{__LINE__, "q", "quit", NULL},   /* alias beats the prefix */
	{__LINE__, "?", "help", NULL},
	{__LINE__, "int", "interval", NULL},
	{__LINE__, "stop", "stop", NULL}, /* exact match wins */
	{__LINE__, "p", NULL, "ambiguous command 'p': pause, probe"},
	{__LINE__, "re", NULL, "ambiguous command 're': record, redraw, refresh, remove, resume"},
	{__LINE__, "s", NULL,
	 "ambiguous command 's': sample, select, set, show, sort, spark, stop"},
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
	int ok;
	const char *log, *err;
} exec_cases[] = {
	{__LINE__, "mode cpi", 1, "mode cpi", NULL},
	{__LINE__, "mo cpi", 1, "mode cpi", NULL},
	{__LINE__, "", 1, "", NULL},
	{__LINE__, "pause ; int 500;;", 1, "pause|interval 500", NULL},
	{__LINE__, "mark 'hello world'", 1, "mark 'hello world'", NULL},
	{__LINE__, "mark a b c", 1, "mark a b c", NULL},
	{__LINE__, "offcore", 1, "offcore", NULL},
	{__LINE__, "offcore 0 1 2 3 4 5 6 7 8", 1, "offcore 0 1 2 3 4 5 6 7 8", NULL},
	{__LINE__, "mode", 0, "", "usage: mode NAME|next|prev"},
	{__LINE__, "mode a b", 0, "", "usage: mode NAME|next|prev"},
	{__LINE__, "q now", 0, "", "usage: quit"},
	{__LINE__, "define x a=r04", 0, "", "usage: define NAME EVENTS METRICS"},
	{__LINE__, "set interval", 0, "", "usage: set OPTION VALUE"},
	{__LINE__, "pause; mode", 0, "pause", "usage: mode NAME|next|prev"},
	{__LINE__, "p", 0, "", "ambiguous command 'p': pause, probe"},
	{__LINE__, "foo", 0, "", "unknown command 'foo' (type 'help' for the list)"},
	{__LINE__, "mark \"x", 0, "", "unterminated double quote"},
	{__LINE__, "theme nosuch", 0, "", "no mode 'nosuch'"}, /* handler's error */
};

static void test_execute(void)
{
	char err[256];

	command_set_fallback(record);
	CHECK_INT(command_set_handler("theme", failing), 0);
	CHECK_INT(command_set_handler("nosuch", failing), -1);
	for (size_t i = 0; i < N(exec_cases); i++) {
		struct app_ctx ctx = {.log = ""};
		err[0] = '\0';
		int r = command_execute(&ctx, exec_cases[i].text, err, sizeof(err));
		CHECK((r == 0) == exec_cases[i].ok, "line %d: rc %d (%s)", exec_cases[i].line, r,
		      err);
		CHECK(strcmp(ctx.log, exec_cases[i].log) == 0, "line %d: log '%s'",
		      exec_cases[i].line, ctx.log);
		if (!exec_cases[i].ok)
			CHECK(strcmp(err, exec_cases[i].err) == 0, "line %d: err '%s'",
			      exec_cases[i].line, err);
	}
	/* every command's usage starts with its name and fits its argument counts */
	for (const struct command *c = command_table; c->name; c++) {
		CHECK(strncmp(c->usage, c->name, strlen(c->name)) == 0, "%s usage", c->name);
		CHECK(c->help && *c->help, "%s help", c->name);
		CHECK(c->max_args < 0 || c->max_args >= c->min_args, "%s counts", c->name);
	}
	command_set_handler("theme", NULL);
	command_set_fallback(NULL);
	struct app_ctx ctx = {.log = ""};
	CHECK(command_execute(&ctx, "pause", err, sizeof(err)) == -1 &&
		      strcmp(err, "command 'pause' is not available") == 0,
	      "no handler: %s", err);
	command_set_fallback(record);
}

static void test_rc(void)
{
	static const char rc[] = "# pmutop rc\n"
				 "mode cpi\n"
				 "\n"
				 "modee tlb\n"               /* 4 */
				 "interval 250   # fast\n"
				 "mark \"unterminated\n"      /* 6 */
				 "theme\n"                   /* 7 */
				 "bind x 'mode tlb'\n";
	static const char *const want[] = {
		"test.rc:4: unknown command 'modee' (did you mean 'mode'?)",
		"test.rc:6: unterminated double quote",
		"test.rc:7: usage: theme NAME|next|prev",
	};
	struct app_ctx ctx = {.log = ""};
	struct command_errors errs = {0};

	CHECK_INT(command_run_text(&ctx, rc, "test.rc", &errs), 3);
	CHECK_INT(errs.n, 3);
	for (size_t i = 0; i < N(want) && i < errs.n; i++)
		CHECK_STR(errs.msgs[i], want[i]);
	CHECK_STR(ctx.log, "mode cpi|interval 250|bind x 'mode tlb'");
	command_errors_free(&errs);

	char path[] = "/tmp/pmutop-rc-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs("pause\nbogus\n", f);
	fclose(f);
	ctx.log[0] = '\0';
	CHECK_INT(command_run_file(&ctx, path, &errs), 1);
	CHECK_INT(errs.n, 1);
	if (errs.n) {
		char want1[128];
		snprintf(want1, sizeof(want1), "%s:2: unknown command 'bogus' (type 'help' for the list)",
			 path);
		CHECK_STR(errs.msgs[0], want1);
	}
	command_errors_free(&errs);
	unlink(path);
	CHECK_INT(command_run_file(&ctx, path, &errs), -1);
	CHECK(errs.n == 1 && strstr(errs.msgs[0], "No such file") != NULL, "missing rc file");
	command_errors_free(&errs);
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
			CHECK(strncmp(err, "bad key name", 12) == 0, "line %d: %s", key_cases[i].line,
			      err);
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
		{__LINE__, "y", "mode", 0, "bind y: usage: mode NAME|next|prev"},
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
	int found_mode = 0, found_key = 0, n = 0;
	for (; lines && lines[n]; n++) {
		if (strstr(lines[n], "mode NAME|next|prev") && strstr(lines[n], "switch to event"))
			found_mode++;
		if (strstr(lines[n], "C-x") && strstr(lines[n], "quit"))
			found_key++;
	}
	CHECK(found_mode == 1 && found_key == 1, "help lines: %d %d", found_mode, found_key);
	int ncmd = 0;
	for (const struct command *c = command_table; c->name; c++)
		ncmd++;
	CHECK(n == 1 + ncmd + 2 + (int)km.n, "help line count %d", n);
	command_free_words(-1, lines);
	lines = command_help_for("q", err, sizeof(err));
	CHECK(lines && strcmp(lines[0], "usage: quit") == 0 && strcmp(lines[2], "alias: q") == 0,
	      "help for q");
	command_free_words(-1, lines);
	lines = command_help_for("bind", err, sizeof(err));
	CHECK(lines && strcmp(lines[2], "arguments: key command") == 0, "help for bind: %s",
	      lines ? lines[2] : err);
	command_free_words(-1, lines);
	CHECK(command_help_for("zzz", err, sizeof(err)) == NULL, "help for unknown");
	keys_map_free(&km);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	test_find_split();
	test_execute();
	test_rc();
	test_keys();
	return harness_done();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_lineedit.c: prompt editing by key, UTF-8 codepoints, kill/yank and the visible slice. */
#include "harness.h"
#include "history.h"
#include "keys.h"
#include "lineedit.h"
#include "paths.h"
#include <locale.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define C(x) KEYS_CTRL(x)

/* "ab|c": text with the cursor at '|'. */
static void set_marked(struct lineedit *le, const char *marked)
{
	const char *bar = strchr(marked, '|');
	char before[256];

	snprintf(before, sizeof(before), "%.*s", (int)(bar - marked), marked);
	lineedit_set(le, before);
	lineedit_insert_str(le, bar + 1);
	le->cursor = strlen(before);
}

static void get_marked(const struct lineedit *le, char *out, size_t len)
{
	snprintf(out, len, "%.*s|%s", (int)le->cursor, le->buf ? le->buf : "",
		 le->buf ? le->buf + le->cursor : "");
}

#define E_ACUTE 0xe9 /* é, 2 bytes */
#define ZHONG 0x4e2d /* 中, 3 bytes, 2 columns */

static const struct {
	int line;
	const char *before;
	int keys[8]; /* 0-terminated */
	const char *after;
} cases[] = {
    {__LINE__, "|", {'a', 'b', 'c'}, "abc|"},
    {__LINE__, "ac|", {KEYS_LEFT, 'b'}, "ab|c"},
    {__LINE__,
     "|",
     {E_ACUTE, ZHONG, 'x'},
     "\xc3\xa9\xe4\xb8\xad"
     "x|"},
    {__LINE__, "\xc3\xa9\xe4\xb8\xad|", {KEYS_LEFT}, "\xc3\xa9|\xe4\xb8\xad"},
    {__LINE__, "\xc3\xa9\xe4\xb8\xad|", {KEYS_LEFT, KEYS_LEFT, KEYS_LEFT}, "|\xc3\xa9\xe4\xb8\xad"},
    {__LINE__, "|\xc3\xa9\xe4\xb8\xad", {KEYS_RIGHT}, "\xc3\xa9|\xe4\xb8\xad"},
    {__LINE__,
     "|\xc3\xa9\xe4\xb8\xad",
     {KEYS_RIGHT, KEYS_RIGHT, KEYS_RIGHT},
     "\xc3\xa9\xe4\xb8\xad|"},
    {__LINE__, "\xc3\xa9\xe4\xb8\xad|", {KEYS_BACKSPACE}, "\xc3\xa9|"},
    {__LINE__, "\xc3\xa9|\xe4\xb8\xad", {KEYS_BACKSPACE}, "|\xe4\xb8\xad"},
    {__LINE__, "\xc3\xa9|\xe4\xb8\xad", {KEYS_DELETE}, "\xc3\xa9|"},
    {__LINE__, "\xc3\xa9|\xe4\xb8\xad", {C('d'), C('d')}, "\xc3\xa9|"},
    {__LINE__, "|", {KEYS_BACKSPACE, KEYS_DELETE, KEYS_LEFT, KEYS_RIGHT}, "|"},
    {__LINE__, "ab|cd", {C('a')}, "|abcd"},
    {__LINE__, "ab|cd", {KEYS_HOME, 'x'}, "x|abcd"},
    {__LINE__, "ab|cd", {C('e')}, "abcd|"},
    {__LINE__, "ab|cd", {KEYS_END, 'x'}, "abcdx|"},
    {__LINE__, "ab|cd", {C('k')}, "ab|"},
    {__LINE__, "ab|cd", {C('u')}, "|cd"},
    {__LINE__, "ab|cd", {C('k'), C('a'), C('y')}, "cd|ab"},
    {__LINE__, "mode cpi|", {C('w')}, "mode |"},
    {__LINE__, "mode cpi  |", {C('w')}, "mode |"},
    {__LINE__, "mode cp|i", {C('w')}, "mode |i"},
    {__LINE__, "mode \xc3\xa9\xe4\xb8\xad|", {C('w'), C('w')}, "|"},
    {__LINE__, "a b|", {C('w'), C('w'), C('y')}, "a |"}, /* yank gives the last kill */
    {__LINE__, "ab|", {C('b'), C('b'), C('f')}, "a|b"},
    {__LINE__, "ab|", {0x7f}, "a|"},
    {__LINE__, "ab|", {C('h')}, "a|"},
    {__LINE__, "ab|", {C('c'), 0x9b, KEYS_F1}, "ab|"}, /* ignored */
};

static void test_keys(void)
{
	struct lineedit le;
	char got[256];

	for (size_t i = 0; i < N(cases); i++) {
		lineedit_init(&le);
		set_marked(&le, cases[i].before);
		for (int k = 0; cases[i].keys[k]; k++)
			lineedit_key(&le, cases[i].keys[k]);
		get_marked(&le, got, sizeof(got));
		CHECK(strcmp(got, cases[i].after) == 0, "line %d: got '%s' want '%s'",
		      cases[i].line, got, cases[i].after);
		CHECK(le.len == strlen(le.buf), "line %d: len", cases[i].line);
		lineedit_free(&le);
	}
	lineedit_init(&le);
	CHECK_INT(lineedit_key(&le, KEYS_ENTER), LINEEDIT_UNHANDLED);
	CHECK_INT(lineedit_key(&le, KEYS_UP), LINEEDIT_UNHANDLED);
	CHECK_INT(lineedit_key(&le, KEYS_TAB), LINEEDIT_UNHANDLED);
	CHECK_INT(lineedit_key(&le, KEYS_ESC), LINEEDIT_UNHANDLED);
	CHECK_INT(lineedit_key(&le, 'x'), LINEEDIT_HANDLED);
	CHECK_INT(lineedit_insert(&le, 0x1b), -1);
	CHECK_INT(lineedit_insert_str(&le, "a\x1b[2Jb"), 0);
	CHECK_STR(le.buf, "xa[2Jb");
	/* a long line grows the buffer */
	for (int i = 0; i < 1000; i++)
		lineedit_insert(&le, ZHONG);
	CHECK_INT(le.len, 6 + 3000);
	lineedit_free(&le);
}

/* View of @text (cursor at '|') in @width columns: the shown slice with the cursor as '|'. */
static const struct {
	int line;
	const char *text;
	int width;
	const char *shown;
	int col;
} view_cases[] = {
    {__LINE__, "abc|", 10, "abc", 3},
    {__LINE__, "abcdefgh|", 5, "efgh", 4},
    {__LINE__, "abcdefgh|", 8, "bcdefgh", 7},
    {__LINE__, "|abcdefgh", 5, "abcde", 0},
    {__LINE__, "abc|defgh", 5, "abcde", 3},
    {__LINE__, "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad|", 5, "\xe4\xb8\xad\xe4\xb8\xad", 4},
    {__LINE__, "\xe4\xb8\xad\xe4\xb8\xad|\xe4\xb8\xad", 5, "\xe4\xb8\xad\xe4\xb8\xad",
     2}, /* 2nd, 3rd */
    {__LINE__, "ab|\xe4\xb8\xad\xe4\xb8\xad", 4, "ab\xe4\xb8\xad", 2},
    {__LINE__, "ab|", 1, "", 0},
    {__LINE__, "|", 3, "", 0},
};

static void test_view(void)
{
	for (size_t i = 0; i < N(view_cases); i++) {
		struct lineedit le;
		lineedit_init(&le);
		set_marked(&le, view_cases[i].text);
		struct lineedit_view v = lineedit_view(&le, view_cases[i].width);
		char shown[64];
		snprintf(shown, sizeof(shown), "%.*s", (int)v.len, le.buf + v.start);
		CHECK(strcmp(shown, view_cases[i].shown) == 0 && v.cursor_col == view_cases[i].col,
		      "line %d: shown '%s' col %d", view_cases[i].line, shown, v.cursor_col);
		lineedit_free(&le);
	}
	/* the scroll position stays while the cursor moves inside the window */
	struct lineedit le;
	lineedit_init(&le);
	lineedit_set(&le, "0123456789");
	struct lineedit_view v = lineedit_view(&le, 5);
	CHECK_INT(v.start, 6);
	lineedit_left(&le);
	lineedit_left(&le);
	v = lineedit_view(&le, 5);
	CHECK(v.start == 6 && v.cursor_col == 2, "stable scroll: %zu %d", v.start, v.cursor_col);
	lineedit_home(&le);
	v = lineedit_view(&le, 5);
	CHECK(v.start == 0 && v.len == 5 && v.cursor_col == 0, "home scrolls back");
	lineedit_free(&le);
}

/* History: Up/Down walk keeping the typed line, persistence under XDG_STATE_HOME. */
static void test_history(void)
{
	char dir[] = "/tmp/pmutop-hist-XXXXXX", path[128], err[256] = "", want[128];
	struct hist *h;

	if (!mkdtemp(dir)) {
		SKIP("mkdtemp failed");
		return;
	}
	setenv("XDG_STATE_HOME", dir, 1);
	CHECK_INT(paths_user(PATHS_STATE, "history", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/pmutop/history", dir);
	CHECK_STR(path, want);
	h = hist_open(NULL, 100, err, sizeof(err));
	CHECK(h != NULL, "open: %s", err);
	if (!h)
		return;
	CHECK(hist_prev(h, "typed") == NULL, "empty history");
	hist_add(h, "mode cpi");
	hist_add(h, "  ");
	hist_add(h, "interval 500");
	hist_add(h, "interval 500");
	hist_add(h, "theme \xe4\xb8\xad \"quoted\"");
	CHECK_INT(hist_count(h), 3);
	CHECK_STR(hist_prev(h, "half-typ"), "theme \xe4\xb8\xad \"quoted\"");
	CHECK_STR(hist_prev(h, "ignored"), "interval 500");
	CHECK_STR(hist_prev(h, "ignored"), "mode cpi");
	CHECK(hist_prev(h, "ignored") == NULL, "oldest reached");
	CHECK_STR(hist_next(h), "interval 500");
	CHECK_STR(hist_next(h), "theme \xe4\xb8\xad \"quoted\"");
	CHECK_STR(hist_next(h), "half-typ"); /* the line being typed comes back */
	CHECK(hist_next(h) == NULL, "walk ended");
	CHECK_INT(hist_close(h, err, sizeof(err)), 0);
	struct stat st;
	CHECK(stat(want, &st) == 0, "history file written");

	h = hist_open(NULL, 100, err, sizeof(err));
	CHECK_INT(hist_count(h), 3);
	CHECK_STR(hist_prev(h, ""), "theme \xe4\xb8\xad \"quoted\"");
	hist_reset(h);
	CHECK_STR(hist_prev(h, ""), "theme \xe4\xb8\xad \"quoted\"");
	hist_close(h, err, sizeof(err));
	/* a history that is no small text file is not read (libedit's reader is unbounded) */
	unlink(want);
	CHECK(symlink("/dev/zero", want) == 0, "symlink");
	err[0] = '\0';
	h = hist_open(NULL, 100, err, sizeof(err));
	CHECK(h && hist_count(h) == 0 && strstr(err, "not a regular file"), "/dev/zero: %s", err);
	if (h)
		hist_close(h, path, sizeof(path)); /* its save may fail: not checked here */
	unlink(want);
	FILE *f = fopen(want, "w");
	for (int i = 0; f && i < 70000; i++)
		fputc('x', f);
	if (f)
		fclose(f);
	err[0] = '\0';
	h = hist_open(NULL, 100, err, sizeof(err));
	CHECK(h && hist_count(h) == 0 && strstr(err, ":1: line longer than 65536 bytes"),
	      "long line: %s", err);
	if (h)
		hist_close(h, path, sizeof(path));
	unlink(want);
	snprintf(path, sizeof(path), "%s/pmutop", dir);
	rmdir(path);
	rmdir(dir);
}

/* A symbolic link planted where the history is saved is replaced, never written through. */
static void test_history_link(void)
{
	char dir[] = "/tmp/pmutop-hist-XXXXXX", path[128], target[128], err[256] = "", buf[64];
	if (!mkdtemp(dir)) {
		SKIP("mkdtemp failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/history", dir);
	snprintf(target, sizeof(target), "%s/precious", dir);
	FILE *f = fopen(target, "w");
	CHECK(f && fputs("precious\n", f) >= 0 && fclose(f) == 0, "target written");
	CHECK_INT(symlink(target, path), 0);
	struct hist *h =
	    hist_open(path, 100, err, sizeof(err)); /* loads through the link: a read */
	CHECK(h != NULL, "open: %s", err);
	if (!h)
		return;
	hist_add(h, "mode sw");
	CHECK_INT(hist_close(h, err, sizeof(err)), 0);
	f = fopen(target, "r");
	CHECK(f && fgets(buf, sizeof(buf), f) && strcmp(buf, "precious\n") == 0 &&
		  !fgets(buf, sizeof(buf), f),
	      "the link's target is untouched");
	if (f)
		fclose(f);
	struct stat st;
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0,
	      "the history is a private regular file now");
	h = hist_open(path, 100, err, sizeof(err));
	CHECK(h && hist_count(h) == 1 && strcmp(hist_prev(h, ""), "mode sw") == 0,
	      "the saved history loads");
	hist_close(h, err, sizeof(err));
	unlink(path);
	unlink(target);
	rmdir(dir);
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		fprintf(stderr, "no C.UTF-8 locale: using the built-in width table\n");
	test_keys();
	test_view();
	test_history();
	test_history_link();
	setlocale(LC_ALL, "C");
	test_view();
	return harness_done();
}

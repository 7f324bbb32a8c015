/* SPDX-License-Identifier: GPL-2.0-or-later */
/* screen.c: the ncurses front end: one poll loop, canvas blit with one doupdate, keys, prompt. */
#include "app.h"
#include "canvas.h"
#include "command.h"
#include "complete.h"
#include "frame.h"
#include "keys.h"
#include "run.h"
#include "textutil.h"
#include "theme.h"
#include "ui.h"
#include "uistate.h"
#include "views.h"
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define MAX_PAIRS 256

struct pair_cache {
	int fg, bg;
};

static struct pair_cache pairs[MAX_PAIRS];
static int npairs = 1;

/* The terminal went away (hangup without SIGHUP, EIO): the run ends; nothing is drawn again. */
static bool terminal_lost;

/* True when the terminal on @fd is gone: a hung-up tty fails ioctls with EIO (ENXIO, EBADF when
 * the descriptor itself is gone). */
static bool terminal_gone(int fd)
{
	struct termios t;
	if (tcgetattr(fd, &t) == 0)
		return false;
	return errno == EIO || errno == ENXIO || errno == EBADF || errno == ENOTTY;
}

/* A curses colour pair for (fg, bg), created on first use; 0 when the terminal runs out. */
static int pair_for(int fg, int bg)
{
	if (!has_colors())
		return 0;
	if (fg == THEME_DEFAULT && bg == THEME_DEFAULT)
		return 0;
	for (int i = 1; i < npairs; i++)
		if (pairs[i].fg == fg && pairs[i].bg == bg)
			return i;
	if (npairs >= MAX_PAIRS || npairs >= COLOR_PAIRS)
		return 0;
	if (fg >= COLORS || bg >= COLORS)
		return 0;
	init_pair((short)npairs, (short)fg, (short)bg);
	pairs[npairs] = (struct pair_cache){fg, bg};
	return npairs++;
}

static attr_t curses_attr(unsigned a)
{
	attr_t r = A_NORMAL;
	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_DIM)
		r |= A_DIM;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
#ifdef A_ITALIC
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

/* Style cache per role, rebuilt when the theme changes. */
static void build_styles(struct ui_state *u)
{
	npairs = 1;
	for (int r = 0; r < ROLE_COUNT; r++) {
		struct theme_style st = theme_resolve(&u->theme, r, u->depth);
		u->role_pair[r] = pair_for(st.fg, st.bg);
		u->role_attr[r] = st.attr;
	}
}

/* A 64-bit hash of @n cells (their bytes as 64-bit words, mixed as in splitmix64). */
static uint64_t row_hash(const struct canvas_cell *cells, int n)
{
	const unsigned char *p = (const unsigned char *)cells;
	size_t len = (size_t)n * sizeof(*cells);
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h ^= w;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
		h *= 0x94d049bb133111ebULL;
		h ^= h >> 29;
	}
	for (size_t i = len & ~(size_t)7; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Copies the rows that changed since the last frame into stdscr. The last frame is kept as
 * one hash per row (480 bytes at 60 rows) rather than a second canvas (192 KiB at 200x60):
 * a row whose hash is unchanged (most rows between two frames) is skipped; a changed row is
 * written whole, and curses' own comparison with the terminal keeps the output to what
 * changed. */
static void blit(struct ui_state *u)
{
	struct canvas *c = u->canvas;
	bool full = !u->row_hash || u->hash_w != c->w || u->hash_h != c->h || u->force_full;
	if (u->hash_w != c->w || u->hash_h != c->h) {
		free(u->row_hash);
		u->row_hash = c->h > 0 ? calloc((size_t)c->h, sizeof(*u->row_hash)) : NULL;
		u->hash_w = u->row_hash ? c->w : -1; /* out of memory: the next frame in full */
		u->hash_h = c->h;
	}
	for (int y = 0; y < c->h; y++) {
		uint64_t hash = c->w > 0 ? row_hash(canvas_cell(c, 0, y), c->w) : 0;
		if (!full && u->row_hash[y] == hash)
			continue;
		if (u->row_hash)
			u->row_hash[y] = hash;
		for (int x = 0; x < c->w; x++) {
			const struct canvas_cell *cell = canvas_cell(c, x, y);
			if (cell->width == 0)
				continue; /* right half of a wide character */
			int role = cell->role < ROLE_COUNT ? cell->role : 0;
			attr_t a = curses_attr(u->role_attr[role] | cell->attr);
			attrset(a | COLOR_PAIR(u->role_pair[role]));
			/* the bottom-right cell cannot be written without scrolling on some
			 * terminals */
			if (y == c->h - 1 && x == c->w - 1)
				continue;
			mvaddstr(y, x, cell->ch[0] ? cell->ch : " ");
		}
	}
	attrset(A_NORMAL);
	u->force_full = false;
}

/* Draws now. */
static void ui_redraw(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);
	int h, w;
	if (terminal_lost)
		return;
	getmaxyx(stdscr, h, w);
	if (!u->canvas || u->canvas->w != w || u->canvas->h != h) {
		if (!u->canvas)
			u->canvas = canvas_new(w, h);
		else
			canvas_resize(u->canvas, w, h);
		if (!u->canvas)
			return;
	}
	canvas_set_ascii(u->canvas, u->ascii);
	int prompt_row = ui_state_draw(app, u->canvas);
	blit(u);
	if (u->prompting) {
		curs_set(1);
		move(prompt_row, u->cursor_col < w ? u->cursor_col : w - 1);
	} else {
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	if (doupdate() == ERR && terminal_gone(STDOUT_FILENO))
		terminal_lost = true;
}

/* Maps an ncurses key to the keys.h code space. */
static int map_key(int status, wint_t ch)
{
	if (status == KEY_CODE_YES) {
		switch (ch) {
		case KEY_UP:
			return KEYS_UP;
		case KEY_DOWN:
			return KEYS_DOWN;
		case KEY_LEFT:
			return KEYS_LEFT;
		case KEY_RIGHT:
			return KEYS_RIGHT;
		case KEY_HOME:
			return KEYS_HOME;
		case KEY_END:
			return KEYS_END;
		case KEY_PPAGE:
			return KEYS_PGUP;
		case KEY_NPAGE:
			return KEYS_PGDN;
		case KEY_IC:
			return KEYS_INSERT;
		case KEY_DC:
			return KEYS_DELETE;
		case KEY_BACKSPACE:
			return KEYS_BACKSPACE;
		case KEY_ENTER:
			return KEYS_ENTER;
		case KEY_RESIZE:
			return KEYS_RESIZE;
		default:
			if (ch >= (wint_t)KEY_F(1) && ch <= (wint_t)KEY_F(12))
				return KEYS_F1 + (int)(ch - KEY_F(1));
			return -1;
		}
	}
	if (ch == 127 || ch == 8)
		return KEYS_BACKSPACE;
	if (ch == '\n' || ch == '\r')
		return KEYS_ENTER;
	return (int)ch;
}

static void resize(struct app_ctx *app)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	struct ui_state *u = ui_state_of(app);
	u->force_full = true;
	ui_redraw(app);
}

static void read_keys(struct app_ctx *app)
{
	wint_t ch;
	int status;
	while ((status = get_wch(&ch)) != ERR) {
		int key = map_key(status, ch);
		if (key == KEYS_RESIZE) {
			/* queued by resizeterm() itself: the size is already applied */
			ui_state_of(app)->force_full = true;
			continue;
		}
		if (key < 0)
			continue;
		ui_state_key(app, key);
		if (app->quit)
			return;
	}
}

/* True when curses holds buffered input (typeahead it already read from the terminal). */
static bool getch_pending(void)
{
	int ch = getch();
	if (ch == ERR)
		return false;
	ungetch(ch);
	return true;
}

static int start_curses(void)
{
	/* the character set only (UTF-8 for ncursesw): numbers are printed and parsed (":interval
	 * 0.5") with the C locale's decimal point as in batch output, and the other categories'
	 * files are not mapped (some 50 KiB) */
	setlocale(LC_CTYPE, "");
	/* newterm on the controlling streams: a clear message instead of an exit on a bad TERM */
	SCREEN *s = newterm(NULL, stdout, stdin);
	if (!s)
		return -1;
	set_term(s);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
	}
	return 0;
}

/* The screen as the run loop's front end. */
static int screen_frame(void *ctx, const struct frame *f)
{
	struct app_ctx *app = ctx;
	ui_state_frame(app, f);
	ui_redraw(app);
	return 0;
}

static void screen_change(void *ctx) { ui_redraw(ctx); }

static void screen_stdin(void *ctx, bool hangup)
{
	struct app_ctx *app = ctx;
	/* A terminal that went away polls as POLLHUP/POLLERR and fails FIONREAD with EIO; one that
	 * closed reads as end of file (readable, nothing to read). Either ends the run instead of
	 * spinning on a descriptor that is always ready. */
	int avail = 0;
	if (hangup || ioctl(STDIN_FILENO, FIONREAD, &avail) < 0 ||
	    (avail == 0 && !getch_pending())) {
		terminal_lost = true;
		return;
	}
	read_keys(app);
}

static int screen_ended(void *ctx)
{
	(void)ctx;
	return terminal_lost ? RUN_EXIT_TERMINAL_LOST : 0;
}

static void screen_resize(void *ctx) { resize(ctx); }

static void screen_after_tick(void *ctx) { ui_state_after_tick(ctx); }

int ui_run(struct app_ctx *app)
{
	char err[512];
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		text_fprintf(stderr,
			     "pmutop: the screen needs a terminal; use -b for batch output\n");
		return 2;
	}
	const char *term = getenv("TERM");
	if (!term || !*term) {
		text_fprintf(stderr, "pmutop: TERM is not set; use -b for batch output\n");
		return 2;
	}
	struct ui_state *u = ui_state_new(app, err, sizeof(err));
	if (!u) {
		text_fprintf(stderr, "pmutop: %s\n", err);
		return 2;
	}
	if (start_curses() < 0) {
		text_fprintf(stderr, "pmutop: cannot initialise the terminal \"%s\"\n", term);
		ui_state_free(app);
		return 1;
	}
	int colors = has_colors() ? COLORS : 0;
	ui_state_set_depth(app, colors);
	build_styles(u);
	u->rebuild_styles = build_styles;
	ui_state_startup(app);	  /* rc file and -c commands, history */
	app_want_self(app, true); /* the header's cadence line */
	struct run_frontend fe = {
	    .ctx = app,
	    .on_frame = screen_frame,
	    .on_change = screen_change,
	    .on_stdin = screen_stdin,
	    .on_resize = screen_resize,
	    .after_tick = screen_after_tick,
	    .ended = screen_ended,
	};
	terminal_lost = false;
	int rc = run_loop(app, &fe);
	if (!terminal_lost)
		endwin(); /* a terminal that is gone has nothing to restore */
	ui_state_free(app);
	return rc;
}

/* Before the screen starts, while a streamed recording has not sent its header: says what it
 * waits for and reads the terminal without echo; q (or Ctrl-C) gives up. NULL: the wait is
 * over, the terminal is put back. */
bool ui_stream_wait(struct app_ctx *app, const char *what)
{
	static struct termios saved;
	static bool raw, told;
	(void)app;
	if (!what) {
		if (raw)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved);
		raw = told = false;
		return false;
	}
	if (!raw && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
		struct termios t = saved;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	}
	if (!told) {
		fprintf(stderr, "pmutop: %s (q quits)\n", what);
		told = true;
	}
	char c;
	while (raw && read(STDIN_FILENO, &c, 1) == 1)
		if (c == 'q' || c == 'Q' || c == 3)
			return true;
	return false;
}

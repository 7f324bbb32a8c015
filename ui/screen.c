/* SPDX-License-Identifier: GPL-2.0-or-later */
/* screen.c: the ncurses front end: one poll loop, canvas blit with one doupdate, keys, prompt. */
#include "app.h"
#include "canvas.h"
#include "command.h"
#include "complete.h"
#include "frame.h"
#include "keys.h"
#include "run.h"
#include "termout.h"
#include "textutil.h"
#include "theme.h"
#include "ui.h"
#include "uistate.h"
#include "views.h"
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
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
/* The terminal's cursor is visible (the prompt is open). */
static bool cursor_shown;
/* The terminal's size: curses' own screens are kept at 1x1 (termout sends the frames; at
 * 200x60 its three screens took 1 MiB). */
static int term_h, term_w;

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

/* Style per role, rebuilt when the theme changes: the colours a curses pair would get (the
 * terminal's own when it has too few colours or pairs). */
static void build_styles(struct ui_state *u)
{
	npairs = 1;
	for (int r = 0; r < ROLE_COUNT; r++) {
		struct theme_style st = theme_resolve(&u->theme, r, u->depth);
		int pair = pair_for(st.fg, st.bg);
		u->role_style[r] = (struct termout_style){
		    .fg = pair ? pairs[pair].fg : -1,
		    .bg = pair ? pairs[pair].bg : -1,
		    .attr = st.attr,
		};
	}
	u->force_full = true;
}

/* Set by SIGCONT: curses repainted its own (empty) copy of the screen on resuming a stopped
 * job, so the next frame is sent in full. */
static volatile sig_atomic_t resumed;

static void on_sigcont(int sig)
{
	(void)sig;
	resumed = 1;
}

/* Draws now. */
static void ui_redraw(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);
	int h = term_h, w = term_w;
	if (terminal_lost)
		return;
	if (!u->canvas || u->canvas->w != w || u->canvas->h != h) {
		if (!u->canvas)
			u->canvas = canvas_new(w, h);
		else
			canvas_resize(u->canvas, w, h);
		if (!u->canvas)
			return;
	}
	canvas_set_ascii(u->canvas, u->ascii);
	if (!u->out && !(u->out = termout_new()))
		return;
	if (u->force_full || resumed) {
		/* a repaint (Ctrl-L, :redraw, after a stop) draws every row again, kept ones too,
		 * and sends every cell */
		resumed = 0;
		u->force_full = false;
		canvas_clear(u->canvas);
		termout_invalidate(u->out);
	}
	int prompt_row = ui_state_draw(app, u->canvas);
	int cy = -1, cx = 0;
	if (u->prompting) {
		cy = prompt_row;
		cx = u->cursor_col < w ? u->cursor_col : w - 1;
	} else if (cursor_shown) {
		curs_set(0);
		cursor_shown = false;
	}
	if (termout_frame(u->out, u->canvas, u->role_style, ROLE_COUNT, cy, cx, STDOUT_FILENO) <
		0 &&
	    terminal_gone(STDOUT_FILENO)) {
		terminal_lost = true;
		return;
	}
	if (u->prompting && !cursor_shown) {
		curs_set(1);
		cursor_shown = true;
	}
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
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		term_h = ws.ws_row;
		term_w = ws.ws_col;
	}
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
			/* curses saw a resize: the run loop has the size (SIGWINCH); a full frame
			 */
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
	/* refused before anything is sent: its cells would show run together */
	if (!termout_usable()) {
		endwin();
		delscreen(s);
		return -2;
	}
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
	/* curses clears the screen once; from here on the frames go out through termout, and
	 * curses' own window stays untouched (a read of a key would otherwise refresh it) and
	 * 1x1 (resize_term does not queue a KEY_RESIZE); its screens' memory goes back */
	refresh();
	term_h = LINES;
	term_w = COLS;
	resize_term(1, 1);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	cursor_shown = false;
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
	int started = start_curses();
	if (started == -2) {
		text_fprintf(stderr,
			     "pmutop: the terminal \"%s\" cannot move its cursor; use -b for batch "
			     "output, or a TERM that can (xterm, vt100, linux)\n",
			     term);
		ui_state_free(app);
		return 2;
	}
	if (started < 0) {
		text_fprintf(stderr, "pmutop: cannot initialise the terminal \"%s\"\n", term);
		ui_state_free(app);
		return 1;
	}
	/* bars and marks are UTF-8 glyphs: a terminal in another character set (LANG=C on a
	 * serial console) gets their ASCII forms unless the rc file says otherwise */
	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		u->ascii = true;
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
	struct sigaction cont = {.sa_handler = on_sigcont}, old_cont;
	sigemptyset(&cont.sa_mask);
	sigaction(SIGCONT, &cont, &old_cont);
	int rc = run_loop(app, &fe);
	sigaction(SIGCONT, &old_cont, NULL);
	if (!terminal_lost) { /* a terminal that is gone has nothing to restore */
		/* normal attributes, and curses told where the cursor is (it moves it to the last
		 * line from there) */
		char *sgr0 = tigetstr("sgr0");
		if (sgr0 && sgr0 != (char *)-1)
			putp(sgr0);
		resize_term(term_h, term_w);
		mvcur(-1, -1, term_h - 1, 0);
		endwin();
	}
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

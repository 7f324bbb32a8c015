/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uistate.h: the screen's state and behaviour (keys, prompt, commands, views), without curses. */
#ifndef PMUTOP_UISTATE_H
#define PMUTOP_UISTATE_H
#include "canvas.h"
#include "frame.h"
#include "keys.h"
#include "lineedit.h"
#include "termout.h"
#include "theme.h"
#include "views.h"
#include <stdbool.h>
#include <stdint.h>

#define UI_MAX_DRILLS 8 /* drill-downs remembered for the way back */

struct app_ctx;
struct hist;
struct probe;

struct ui_state {
	struct canvas *canvas;
	struct termout *out; /* what the terminal shows; sends the changes */
	bool force_full;
	struct theme theme;
	enum theme_depth depth;
	int colors;
	struct termout_style role_style[ROLE_COUNT]; /* colours and attributes per role */
	void (*rebuild_styles)(struct ui_state *u);
	struct view_state vs;
	struct view_history hist;
	struct keymap km;
	struct lineedit le;
	bool prompting;
	int cursor_col;
	struct hist *history;
	char **text; /* lines of the current text view */
	int *text_roles;
	int ntext;
	bool ascii;
	int selected; /* first row shown (select up/down) */
	char prompt_buf[1024];
	struct probe *probe; /* the cache probe running in steps, or NULL */
	bool probe_done;
	/* the frame the screen shows: its own copy, held while paused (newer frames go on being
	 * built for the other readers); shown.snap NULL before the first */
	struct frame shown;
	struct frame_store *shown_store;
	/* what the screen last saw of the run (its app hook reacts to changes) */
	int seen_rows;		 /* the row unit of the history (enum row_unit) */
	char seen_metrics[1024]; /* metric names: sort and sparkline hold while they do */
	char seen_offcore[160];	 /* the offcore selection: a new one shows the breakdown */
	/* drill-downs taken (drill, enter), newest last: the way back (drill up, backspace) */
	struct ui_drill {
		char from[SESSION_MODE_NAME], to[SESSION_MODE_NAME];
	} drills[UI_MAX_DRILLS];
	int ndrills;
	double *task_cpu; /* the task view's cpu% per row shown (vs.task_cpu) */
	int task_cpu_cap;
};

/* The screen's state, registered as the run's observer "ui" (its own state). */
struct ui_state *ui_state_new(struct app_ctx *app, char *err, size_t errlen);
/* The screen's state, or NULL without a screen. */
struct ui_state *ui_state_of(const struct app_ctx *app);
void ui_state_free(struct app_ctx *app);
/* Colour depth from the terminal's colour count, COLORTERM and NO_COLOR. */
void ui_state_set_depth(struct app_ctx *app, int colors);
/* Runs the rc file and -c commands (command_startup); their errors go to the message log. */
void ui_state_startup(struct app_ctx *app);
/* A new frame: the screen copies it (the frame it shows) and its sparkline history follows. */
void ui_state_frame(struct app_ctx *app, const struct frame *f);
/* After every tick: stepwise work (the cache probe). */
void ui_state_after_tick(struct app_ctx *app);
void ui_state_key(struct app_ctx *app, int key);
/* Draws the screen into @c; returns the prompt row. */
int ui_state_draw(struct app_ctx *app, struct canvas *c);
/* Runs one command line as typed at the prompt; errors go to the message line. */
int ui_state_command(struct app_ctx *app, const char *line);
/* Lines of the text views (help, messages, probe, spikes). */
void ui_text_clear(struct ui_state *u);
void ui_text_add(struct ui_state *u, int role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Loads theme @name (or the next/prev one). */
int ui_theme_set(struct app_ctx *app, const char *name, char *err, size_t errlen);
/* :view tasks, cgroups, cpus (or table): the task or cgroup list (again: back to the CPUs), or
 * the CPUs counted again (ui/cmd-tasks.c). */
int ui_taskview_show(struct app_ctx *app, int view, char *err, size_t errlen);
/* Esc in the task or cgroup view: from one per CPU back to the list, from the list to the CPUs.
 * True when it was the task view's. */
bool ui_taskview_back(struct app_ctx *app);
/* Enter in the task or cgroup list: the selected row per CPU. True when it was the list's. */
bool ui_taskview_enter(struct app_ctx *app, char *err, size_t errlen, int *rc);
/* Before a draw: the task view's run% and cpu% columns for the rows shown (vs.task_cpu), or
 * none outside it. */
void ui_taskview_columns(struct app_ctx *app);
/* Binds :set tasks to the screen. */
void ui_taskview_bind(void);
/* Runs a slice of a running cache probe (after a tick). */
void ui_probe_advance(struct app_ctx *app);

#endif

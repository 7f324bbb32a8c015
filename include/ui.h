/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ui.h: the full-screen monitor (ncurses), a thin layer over views and commands. */
#ifndef PMUTOP_UI_H
#define PMUTOP_UI_H
#include <stdbool.h>

struct app_ctx;

/* Runs the screen until quit (or -n ticks). Returns the exit status. */
int ui_run(struct app_ctx *app);
/* Adds the screen's commands and settings (ui/cmd-*.c) to the command table, so the prompt
 * runs them and batch mode names them as screen commands. Again: nothing. */
void ui_add_commands(void);
/* app->stream_wait for the screen: "waiting for a recording on FIFO (q quits)", q gives up. */
bool ui_stream_wait(struct app_ctx *app, const char *what);

#endif

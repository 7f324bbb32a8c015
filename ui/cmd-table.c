/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-table.c: the screen's command table and settings' handlers, added to the core's. */
#include "app.h"
#include "command.h"
#include "ui.h"
#include "uistate.h"
#include <stdio.h>

extern const struct command ui_cmd_view_entry, ui_cmd_sort_entry, ui_cmd_spark_entry,
    ui_cmd_pause_entry, ui_cmd_resume_entry, ui_cmd_toggle_pause_entry, ui_cmd_theme_entry,
    ui_cmd_bind_entry, ui_cmd_select_entry, ui_cmd_redraw_entry, ui_cmd_command_line_entry,
    ui_cmd_messages_entry, ui_cmd_probe_entry, ui_cmd_help_entry, ui_cmd_drill_entry;

/* In the order :help lists them (after the core's). */
static const struct command *const ui_command_table[] = {
    &ui_cmd_view_entry,	    &ui_cmd_sort_entry,
    &ui_cmd_spark_entry,    &ui_cmd_pause_entry,
    &ui_cmd_resume_entry,   &ui_cmd_toggle_pause_entry,
    &ui_cmd_theme_entry,    &ui_cmd_bind_entry,
    &ui_cmd_select_entry,   &ui_cmd_drill_entry,
    &ui_cmd_redraw_entry,   &ui_cmd_command_line_entry,
    &ui_cmd_messages_entry, &ui_cmd_probe_entry,
    &ui_cmd_help_entry,	    NULL,
};

/* --- the screen's settings ------------------------------------------------------------------- */

#define UI(ctx) ui_state_of((ctx)->app)

static int set_flag(bool *flag, const char *v, char *err, size_t errlen)
{
	return command_parse_bool(v, flag, err, errlen);
}

static int set_running(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	return set_flag(&UI(ctx)->vs.show_running, v, err, errlen);
}

static void show_running(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", UI(ctx)->vs.show_running ? "on" : "off");
}

static int set_group(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	return set_flag(&UI(ctx)->vs.group_by_type, v, err, errlen);
}

static void show_group(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", UI(ctx)->vs.group_by_type ? "on" : "off");
}

static int set_ascii(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	int rc = set_flag(&UI(ctx)->ascii, v, err, errlen);

	UI(ctx)->force_full = true;
	return rc;
}

static void show_ascii(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", UI(ctx)->ascii ? "on" : "off");
}

static int set_theme(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	return ui_theme_set(ctx->app, v, err, errlen);
}

static void show_theme(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", UI(ctx)->theme.name);
}

void ui_add_commands(void)
{
	/* the names are fixed at build time: a clash is a bug that test_command catches */
	(void)command_add_table(ui_command_table);
	/* the handlers of the screen's settings: their rows are in the option table */
	(void)options_bind_screen("theme", set_theme, show_theme);
	(void)options_bind_screen("running", set_running, show_running);
	(void)options_bind_screen("group", set_group, show_group);
	(void)options_bind_screen("ascii", set_ascii, show_ascii);
	ui_taskview_bind();
}

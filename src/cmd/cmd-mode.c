/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-mode.c: "mode [NAME|next|prev]", the event mode switch and the list of modes. */
#include "app.h"
#include "command.h"
#include "mode.h"
#include <stdio.h>
#include <string.h>

void command_note_mode(const struct command_ctx *ctx)
{
	command_note(ctx, "mode %s opened; its first full tick arrives in %ld ms",
		     ctx->app->mode_name, ctx->app->interval_ms);
}

/* The next (or previous) mode that opens here; in a replay, one whose events were recorded. */
static int step_mode(struct app_ctx *app, int step, char *err, size_t errlen)
{
	int n = app->modes->n, cur = 0;

	for (int i = 0; i < n; i++)
		if (strcmp(app->modes->modes[i]->name, app->mode_name) == 0)
			cur = i;
	for (int k = 1; k < n; k++) {
		const struct mode *m = app->modes->modes[((cur + step * k) % n + n) % n];
		struct mode_avail a;
		if (app_mode_availability(app, m, &a) == 0 &&
		    app_set_mode(app, m->name, err, errlen) == 0)
			return 0;
	}
	snprintf(err, errlen, "no other mode is available here");
	return -1;
}

/* Logs every mode with its status: the title, or why it cannot run here (the missing event). */
static void list_modes(struct app_ctx *app)
{
	for (int i = 0; i < app->modes->n; i++) {
		const struct mode *m = app->modes->modes[i];
		struct mode_avail a;
		if (app_mode_availability(app, m, &a) == 0)
			app_log(app, MSG_INFO, "mode %s%s: %s%s%s", m->name,
				strcmp(m->name, app->mode_name) == 0 ? " (running)" : "",
				m->title ? m->title : "", a.note ? " -- " : "",
				a.note ? a.note : "");
		else
			app_log(app, MSG_INFO, "mode %s: n/a here: %s", m->name, a.reason);
	}
}

static int exec_mode(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	int rc;

	if (argc < 2) {
		list_modes(ctx->app);
		return 0;
	}
	const char *name = argv[1];
	if (strcmp(name, "next") == 0 || strcmp(name, "prev") == 0)
		rc = step_mode(ctx->app, name[0] == 'n' ? 1 : -1, err, errlen);
	else
		rc = app_set_mode(ctx->app, name, err, errlen);
	if (rc < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

const struct command cmd_mode_entry = {
    .name = "mode",
    .usage = "mode [NAME|next|prev]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_MODE},
    .flags = COMMAND_CONTROL,
    .exec = exec_mode,
    .help = "switch to event mode NAME or the next/previous one; alone: list why any is n/a",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-theme.c: "theme NAME|next|prev", the colour theme (also ":set theme"). */
#include "app.h"
#include "command.h"
#include "uistate.h"
#include <stdio.h>
#include <string.h>

static int load_theme(struct app_ctx *app, const char *name, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(app);
	struct theme t;

	theme_init_default(&t);
	if (theme_load(&t, name, err, errlen) < 0) {
		theme_free(&t);
		return -1;
	}
	for (size_t i = 0; i < t.nwarnings; i++)
		app_log(app, MSG_WARN, "%s", t.warnings[i]);
	theme_free(&u->theme);
	u->theme = t;
	u->force_full = true;
	if (u->rebuild_styles)
		u->rebuild_styles(u);
	return 0;
}

int ui_theme_set(struct app_ctx *app, const char *v, char *err, size_t errlen)
{
	struct ui_state *u = ui_state_of(app);

	if (strcmp(v, "next") != 0 && strcmp(v, "prev") != 0)
		return load_theme(app, v, err, errlen);
	char **names;
	size_t n = theme_list(&names), cur = 0;
	if (n == 0) {
		snprintf(err, errlen, "no themes found");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], u->theme.name) == 0)
			cur = i;
	size_t next = v[0] == 'n' ? (cur + 1) % n : (cur + n - 1) % n;
	int rc = load_theme(app, names[next], err, errlen);
	theme_list_free(names, n);
	return rc;
}

static int exec_theme(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	(void)argc;
	if (ui_theme_set(ctx->app, argv[1], err, errlen) < 0)
		return -1;
	command_note(ctx, "theme %s", ui_state_of(ctx->app)->theme.name);
	return 0;
}

const struct command ui_cmd_theme_entry = {
    .name = "theme",
    .usage = "theme NAME|next|prev",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_THEME},
    .flags = COMMAND_SCREEN,
    .exec = exec_theme,
    .help = "switch the colour theme",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-uncertainty.c: the "error" setting (:set error on|off): error bars on every value. */
#include "command.h"
#include "options.h"
#include "uncertainty.h"
#include <stdio.h>

int setting_error_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	bool on;

	if (command_parse_bool(v, &on, err, errlen) < 0)
		return -1;
	return uncertainty_set(ctx->app, on, err, errlen);
}

void setting_error_show(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", uncertainty_on(ctx->app) ? "on" : "off");
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness_app.h: pmutop started in-process for a test: its arguments parsed, the app set up. */
#ifndef HARNESS_APP_H
#define HARNESS_APP_H
#include "app.h"
#include "harness.h"
#include "options.h"
#include <string.h>

/* Clears @app, parses "pmutop" and the words of @args (split at blanks, no quoting) and sets
 * the app up; -1 with the reason in @err. The words live in a static buffer the options may
 * point into: one app at a time per test program. */
static inline int harness_app_start(struct app_ctx *app, const char *args, char *err, size_t errlen)
{
	static char buf[8192];
	char *argv[HARNESS_MAX_ARGS];
	int argc = harness_argv(args, buf, sizeof(buf), argv);
	memset(app, 0, sizeof(*app));
	if (options_parse(&app->opt, argc, argv, err, errlen) < 0)
		return -1;
	return app_init(app, err, errlen) != 0 ? -1 : 0;
}
#endif

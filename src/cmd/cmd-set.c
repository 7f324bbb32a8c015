/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-set.c: "set OPTION VALUE", "show [OPTION]", the core's settings (the screen adds more). */
#include "app.h"
#include "command.h"
#include "cpuset.h"
#include "jitter.h"
#include "options.h"
#include "recorder.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the core's settings (their rows are in the option table, src/cmd/options.c)
 * ------------------ */

void setting_interval_show(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%ldms", ctx->app->interval_ms); /* with its unit, as :set takes it */
}

int setting_interval_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	long ms;

	if (command_parse_ms(v, &ms, err, errlen) < 0) {
		snprintf(err, errlen, "interval: \"%s\" is not a duration (500, 500ms, 2.5s)", v);
		return -1;
	}
	return app_set_interval(ctx->app, ms, err, errlen);
}

void setting_mode_show(const struct command_ctx *ctx, char *b, size_t l)
{
	snprintf(b, l, "%s", ctx->app->mode_name);
}

int setting_mode_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	return app_set_mode(ctx->app, v, err, errlen);
}

void setting_cpus_show(const struct command_ctx *ctx, char *b, size_t l)
{
	struct cpuset s;

	cpuset_clear(&s);
	for (int i = 0; i < ctx->app->ncpus; i++)
		cpuset_add(&s, ctx->app->cpus[i]);
	cpuset_format(&s, b, l);
}

int setting_cpus_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	return app_set_cpus(ctx->app, strcmp(v, "all") == 0 ? NULL : v, err, errlen);
}

int setting_attrib_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	bool on;

	if (command_parse_bool(v, &on, err, errlen) < 0)
		return -1;
	return jitter_get(ctx->app) ? jitter_set_attrib(ctx->app, on, err, errlen) : 0;
}

void setting_attrib_show(const struct command_ctx *ctx, char *b, size_t l)
{
	const struct jitter *j = jitter_get(ctx->app);

	snprintf(b, l, "%s", j && j->attrib_on ? "on" : "off");
}

int setting_stat_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	struct jitter *j = jitter_get(ctx->app);
	int st = jitter_stat_parse(v);

	if (st < 0 || !j) {
		snprintf(err, errlen, "stat: \"%s\" is not value, min, median, p99, max or dev", v);
		return -1;
	}
	jitter_set_stat(ctx->app, (enum jitter_stat)st);
	return 0;
}

void setting_stat_show(const struct command_ctx *ctx, char *b, size_t l)
{
	const struct jitter *j = jitter_get(ctx->app);

	snprintf(b, l, "%s", jitter_stat_name(j ? j->stat : JITTER_VALUE));
}

void setting_self_show(const struct command_ctx *ctx, char *b, size_t l)
{
	jitter_status_line(ctx->app, b, l);
}

int setting_self_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	(void)ctx, (void)v;
	snprintf(err, errlen, "self is read-only");
	return -1;
}

int setting_flight_files_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n < 1 || n > 10000) {
		snprintf(err, errlen, "flight-files: \"%s\" is not a number of files 1..10000", v);
		return -1;
	}
	if (jitter_set_flight_bounds(ctx->app, (int)n, 0) < 0) {
		snprintf(err, errlen, "flight-files: the jitter tools are off here");
		return -1;
	}
	return 0;
}

void setting_flight_files_show(const struct command_ctx *ctx, char *b, size_t l)
{
	const struct jitter *j = jitter_get(ctx->app);
	snprintf(b, l, "%d", j ? j->max_files : JITTER_FLIGHT_FILES);
}

int setting_flight_bytes_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen)
{
	uint64_t n;
	if (recorder_parse_size(v, &n) < 0 || n < 65536) {
		snprintf(err, errlen,
			 "flight-bytes: \"%s\" is not a size of 64k or more (500k, 64M, 2G)", v);
		return -1;
	}
	if (jitter_set_flight_bounds(ctx->app, 0, n) < 0) {
		snprintf(err, errlen, "flight-bytes: the jitter tools are off here");
		return -1;
	}
	return 0;
}

void setting_flight_bytes_show(const struct command_ctx *ctx, char *b, size_t l)
{
	const struct jitter *j = jitter_get(ctx->app);
	/* as :set takes it back (64M, not 67108864) */
	recorder_format_size(j ? j->max_bytes : JITTER_FLIGHT_BYTES, b, l);
}

/* --- set and show ---------------------------------------------------------------------------- */

/* The setting @name, if this run has what it needs. */
static const struct option_def *usable(const struct command_ctx *ctx, const char *cmd,
				       const char *name, int *rc, char *err, size_t errlen)
{
	const struct option_def *s = command_setting_find(name, err, errlen);

	*rc = -1;
	if (s && (((s->flags & OPTION_SCREEN) && !ctx->screen) || !options_setter(s))) {
		snprintf(err, errlen, "%s %s: only on the screen, not in batch mode", cmd, s->name);
		*rc = COMMAND_SCREEN_ONLY;
		return NULL;
	}
	return s;
}

static int exec_set(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	int rc;
	const struct option_def *s = usable(ctx, argv[0], argv[1], &rc, err, errlen);

	(void)argc;
	return s ? options_setter(s)(ctx, argv[2], err, errlen) : rc;
}

static int exec_show(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	const struct option_def *s;
	char line[1024] = "", val[256];
	int rc;

	if (argc > 1) {
		if (!(s = usable(ctx, argv[0], argv[1], &rc, err, errlen)))
			return rc;
		options_shower(s)(ctx, val, sizeof(val));
		app_log(ctx->app, MSG_INFO, "%s = %s", s->name, val);
		return 0;
	}
	for (size_t i = 0; (s = command_setting_at(i)); i++) {
		if (((s->flags & OPTION_SCREEN) && !ctx->screen) || !options_shower(s))
			continue;
		options_shower(s)(ctx, val, sizeof(val));
		size_t u = strlen(line);
		snprintf(line + u, sizeof(line) - u, "%s%s=%s", u ? "  " : "", s->name, val);
	}
	app_log(ctx->app, MSG_INFO, "%s", line);
	return 0;
}

const struct command cmd_set_entry = {
    .name = "set",
    .usage = "set OPTION VALUE",
    .min_args = 2,
    .max_args = 2,
    .args = {ARG_OPTION, ARG_VALUE},
    .exec = exec_set,
    .help = "set an option",
};

const struct command cmd_show_entry = {
    .name = "show",
    .usage = "show [OPTION]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_OPTION},
    .exec = exec_show,
    .help = "show one option, or all",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-jitter.c: "sample", "refresh", "alert", "export spikes", "freeze": jitter triage. */
#include "app.h"
#include "command.h"
#include "duration.h"
#include "jitter.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The jitter statistics of the run; NULL with a cause when there are none. */
static struct jitter *need_jitter(const struct command_ctx *ctx, const char *cmd, char *err,
				  size_t errlen)
{
	struct jitter *j = jitter_get(ctx->app);

	if (!j)
		snprintf(err, errlen, "%s: this run keeps no jitter statistics", cmd);
	return j;
}

static int exec_sample(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	long ms, us;

	(void)argc;
	int parsed = duration_parse_sample(argv[1], &ms, &us);
	if (parsed == -2) {
		snprintf(err, errlen, "sample cadence \"%s\" is not from %dus to %dus", argv[1],
			 DURATION_SAMPLE_US_MIN, DURATION_SAMPLE_US_MAX);
		return -1;
	}
	if (parsed < 0)
		return command_parse_ms(argv[1], &ms, err, errlen); /* its message */
	if (ms < 1) { /* app_set_sample takes 0 as "no sampling": the command does not */
		snprintf(err, errlen,
			 "sample cadence \"%s\" is out of range (1 ms to the interval, %ld ms)",
			 argv[1], ctx->app->interval_ms);
		return -1;
	}
	if (app_set_sample(ctx->app, ms, us, err, errlen) < 0)
		return -1;
	command_note(ctx, "sampling every %g ms, refresh every %ld ms",
		     (double)app_tick_ns(ctx->app) / 1e6, ctx->app->interval_ms);
	return 0;
}

static int exec_refresh(const struct command_ctx *ctx, int argc, char **argv, char *err,
			size_t errlen)
{
	long ms;

	(void)argc;
	if (command_parse_ms(argv[1], &ms, err, errlen) < 0 ||
	    app_set_interval(ctx->app, ms, err, errlen) < 0)
		return -1;
	command_note(ctx, "sampling every %g ms, refresh every %ld ms",
		     (double)app_tick_ns(ctx->app) / 1e6, ctx->app->interval_ms);
	return 0;
}

static int exec_alert(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct jitter *j = need_jitter(ctx, argv[0], err, errlen);

	if (!j)
		return -1;
	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < j->rules.n; i++)
			app_log(app, MSG_INFO, "alert %zu: %s%s", i + 1, j->rules.rules[i].text,
				j->user_rules ? "" : " (default)");
		if (!j->rules.n)
			app_log(app, MSG_INFO, "no alert rules");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "clear") == 0) {
		jitter_clear_rules(app);
		command_note(ctx, "alert rules cleared; the default rule per metric is back");
		return 0;
	}
	/* the rule's words joined by single blanks */
	size_t len = 1;
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *plain = malloc(len);
	if (!plain) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	plain[0] = '\0';
	for (int i = 1; i < argc; i++) {
		strcat(plain, argv[i]);
		if (i + 1 < argc)
			strcat(plain, " ");
	}
	int rc = jitter_add_rule(app, plain, err, errlen);
	if (rc == 0)
		command_note(ctx, "alert: %s", j->rules.rules[j->rules.n - 1].text);
	free(plain);
	return rc;
}

static int exec_export(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	struct jitter *j = need_jitter(ctx, argv[0], err, errlen);

	(void)argc;
	if (!j)
		return -1;
	if (strcmp(argv[1], "spikes") != 0) {
		snprintf(err, errlen,
			 "export: only \"spikes\" can be exported (export spikes FILE)");
		return -1;
	}
	if (jitter_export_spikes(ctx->app, argv[2], err, errlen) < 0)
		return -1;
	command_note(ctx, "%zu spikes written to %s", j->log.len, argv[2]);
	return 0;
}

static int exec_freeze(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct jitter *j = need_jitter(ctx, argv[0], err, errlen);

	if (!j)
		return -1;
	bool off = argc > 1 && strcmp(argv[1], "off") == 0;
	if (argc > 1 && !off && strcmp(argv[1], "on") != 0) {
		snprintf(err, errlen, "freeze: expected on or off, got \"%s\"", argv[1]);
		return -1;
	}
	if (off || (argc == 1 && (j->frozen || j->freeze_pending))) {
		jitter_unfreeze(app);
		command_note(ctx, "view follows the samples again");
		return 0;
	}
	j->freeze_held_off = false; /* the user freezes: rules may freeze the view again */
	const struct snapshot *s = session_snapshot(app->session);
	if (jitter_trigger(app, s ? s->time_s : 0, "freeze (key or :freeze)", err, errlen) < 0) {
		if (j->flight)
			return -1;
		jitter_freeze_view(app); /* freeze without a recording */
	}
	command_note(ctx, "frozen at %.3f s%s (:freeze again to follow)", s ? s->time_s : 0,
		     j->flight ? "; writing the flight recording" : "");
	return 0;
}

const struct command cmd_sample_entry = {
    .name = "sample",
    .usage = "sample MS|USus",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_NUMBER},
    .exec = exec_sample,
    .help = "read the counters every MS ms, or US us below 1 ms (jitter history)",
};

const struct command cmd_refresh_entry = {
    .name = "refresh",
    .usage = "refresh MS",
    .min_args = 1,
    .max_args = 1,
    .args = {ARG_NUMBER},
    .exec = exec_refresh,
    .help = "redraw the screen every MS milliseconds",
};

const struct command cmd_alert_entry = {
    .name = "alert",
    .usage = "alert RULE...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_RULE},
    .exec = exec_alert,
    .help = "spike rule RULE (cpi > 2 on 1-3, mad ipc 6), list or clear",
};

const struct command cmd_export_entry = {
    .name = "export",
    .usage = "export spikes FILE",
    .min_args = 2,
    .max_args = 2,
    .args = {ARG_TEXT, ARG_FILE},
    .exec = exec_export,
    .help = "write the spike log to FILE (CSV, or JSON Lines for .jsonl)",
};

const struct command cmd_freeze_entry = {
    .name = "freeze",
    .usage = "freeze [on|off]",
    .min_args = 0,
    .max_args = 1,
    .args = {ARG_VALUE},
    .exec = exec_freeze,
    .help = "freeze the view and write the flight recording around now; again to follow",
};

/* cmd-events.c: "add EVENT...", "remove EVENT...", "define NAME EVENTS METRICS": ad hoc modes. */
#include "app.h"
#include "command.h"
#include "mode.h"
#include <stdio.h>
#include <string.h>

/* Adds "EVENT" or "ALIAS=EVENT" to @m. */
static int add_event(struct app_ctx *app, struct session_mode *m, const char *arg, char *err,
		     size_t errlen)
{
	char alias[48], spec[192];
	const char *eq = strchr(arg, '=');

	if (eq && (size_t)(eq - arg) < sizeof(alias)) {
		memcpy(alias, arg, (size_t)(eq - arg));
		alias[eq - arg] = '\0';
		snprintf(spec, sizeof(spec), "%s", eq + 1);
	} else {
		snprintf(spec, sizeof(spec), "%s", arg);
		app_event_alias(arg, alias, sizeof(alias));
	}
	if (app_check_event(app, spec, err, errlen) < 0)
		return -1;
	for (int e = 0; e < m->nevents; e++)
		if (strcmp(m->events[e].name, alias) == 0) {
			snprintf(err, errlen, "event %s is already counted", alias);
			return -1;
		}
	if (m->nevents >= SESSION_MAX_EVENTS) {
		snprintf(err, errlen, "at most %d events", SESSION_MAX_EVENTS);
		return -1;
	}
	struct backend_event *be = &m->events[m->nevents++];
	memset(be, 0, sizeof(*be));
	snprintf(be->name, sizeof(be->name), "%s", alias);
	snprintf(be->spec, sizeof(be->spec), "%s", spec);
	return 0;
}

/* Drops the event named (or with the spec) @arg from @m, and the metrics that used it. */
static int remove_event(struct session_mode *m, const char *arg, char *err, size_t errlen)
{
	int found = -1, keep = 0;

	for (int e = 0; e < m->nevents; e++)
		if (strcmp(m->events[e].name, arg) == 0 || strcmp(m->events[e].spec, arg) == 0)
			found = e;
	if (found < 0) {
		snprintf(err, errlen, "event %s is not counted in this mode", arg);
		return -1;
	}
	if (m->nevents == 1) {
		snprintf(err, errlen, "cannot remove the last event");
		return -1;
	}
	memmove(&m->events[found], &m->events[found + 1],
		(size_t)(m->nevents - found - 1) * sizeof(m->events[0]));
	m->nevents--;
	/* metric inputs point at event indices: re-map, dropping metrics that used it */
	for (int k = 0; k < m->nmetrics; k++) {
		struct session_metric sm = m->metrics[k];
		bool uses = false;
		for (int j = 0; j < sm.ninputs; j++) {
			if (sm.inputs[j] == found)
				uses = true;
			else if (sm.inputs[j] > found)
				sm.inputs[j]--;
		}
		if (!uses)
			m->metrics[keep++] = sm;
	}
	m->nmetrics = keep;
	return 0;
}

/* Builds a mode from the running one plus/minus events, and switches to it. */
static int change_events(const struct command_ctx *ctx, int argc, char **argv, bool add, char *err,
			 size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct session_mode m = app->mode;

	for (int i = 1; i < argc; i++)
		if ((add ? add_event(app, &m, argv[i], err, errlen)
			 : remove_event(&m, argv[i], err, errlen)) < 0)
			return -1;
	m.nsets = 0;
	if (app_run_mode(app, &m, err, errlen) < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

static int exec_add(const struct command_ctx *ctx, int argc, char **argv, char *err, size_t errlen)
{
	return change_events(ctx, argc, argv, true, err, errlen);
}

static int exec_remove(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	return change_events(ctx, argc, argv, false, err, errlen);
}

static int exec_define(const struct command_ctx *ctx, int argc, char **argv, char *err,
		       size_t errlen)
{
	struct app_ctx *app = ctx->app;
	char metrics[1024];

	(void)argc;
	/* METRICS as "a=EXPR,b=EXPR" or "a=EXPR;b=EXPR" */
	snprintf(metrics, sizeof(metrics), "%s", argv[3]);
	struct mode *m = mode_define(argv[1], argv[2], metrics, err, errlen);
	if (!m)
		return -1;
	const struct mode *old = mode_find(app->modes, argv[1]);
	if (old && strcmp(old->name, argv[1]) == 0 && old->source &&
	    strcmp(old->source, "define") != 0) {
		mode_free(m);
		snprintf(err, errlen,
			 "mode %s already exists (built-in or from a file); choose another name",
			 argv[1]);
		return -1;
	}
	mode_register(app->modes, m);
	if (app_set_mode(app, argv[1], err, errlen) < 0)
		return -1;
	command_note_mode(ctx);
	return 0;
}

const struct command cmd_add_entry = {
    .name = "add",
    .usage = "add EVENT...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_EVENT},
    .exec = exec_add,
    .help = "add events to the current mode",
};

const struct command cmd_remove_entry = {
    .name = "remove",
    .usage = "remove EVENT...",
    .min_args = 1,
    .max_args = COMMAND_VARIADIC,
    .args = {ARG_EVENT},
    .exec = exec_remove,
    .help = "remove events from the current mode",
};

const struct command cmd_define_entry = {
    .name = "define",
    .usage = "define NAME EVENTS METRICS",
    .min_args = 3,
    .max_args = 3,
    .args = {ARG_TEXT, ARG_EVENT, ARG_TEXT},
    .exec = exec_define,
    .help = "define mode NAME: EVENTS a=EV,b=EV; METRICS name=FORMULA,...",
};

/* main.c: pmutop entry point: options, one-shot reports, batch mode or the screen. */
#include "app.h"
#include "command.h"
#include "jitter.h"
#include "output.h"
#include "probe.h"
#include "recorder.h"
#include "remote.h"
#include "replay.h"
#include "report.h"
#ifndef PMUTOP_NO_UI
#include "ui.h"
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Prints the app messages logged since the last call (batch: the log goes to stderr). */
static void flush_messages(struct app_ctx *app, int *head)
{
	int n = (app->message_head - *head + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
	for (int i = 0; i < n; i++)
		fprintf(stderr, "pmutop: %s\n", app->messages[(*head + i) % APP_MAX_MESSAGES].text);
	*head = app->message_head;
}

static int batch_tick(struct app_ctx *app, char *err, size_t errlen)
{
	return app->replay ? replay_app_tick(app, err, errlen) : app_tick(app, err, errlen);
}

/* Writes the snapshot. Returns 0, 1 when the reader went away (a clean end), -1 on error. */
static int emit(struct app_ctx *app)
{
	if (app->opt.record && strcmp(app->opt.record, "-") == 0)
		return 0; /* stdout carries the recording (the agent) */
	const struct backend *b = session_backend(app->session);
	struct output_meta meta = {.backend = b->ops->name, .mode = app->mode_name,
				   .simulated = b->simulated, .replay = app->replay != NULL,
				   .source = app->opt.replay ? app->opt.replay : app->opt.remote};
	jitter_output_meta(app, &meta);
	const struct snapshot *snap = jitter_snapshot(app);
	if (!snap)
		snap = session_snapshot(app->session);
	if (output_snapshot(stdout, app->opt.format, &meta, snap) < 0) {
		if (errno == EPIPE)
			return 1;
		fprintf(stderr, "pmutop: writing output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* -b -R FILE: every recorded tick as fast as possible. */
static int run_replay_batch(struct app_ctx *app)
{
	char err[512];
	int head = 0;
	long done = 0;
	signal(SIGPIPE, SIG_IGN);
	flush_messages(app, &head);
	while (!app->quit && replay_app_pending(app) > 0) {
		uint64_t windows = jitter_windows(app);
		int rc = replay_app_tick(app, err, sizeof(err));
		flush_messages(app, &head);
		if (rc < 0) {
			fprintf(stderr, "pmutop: %s\n", err);
			return 1;
		}
		if (rc == 0 || jitter_windows(app) == windows)
			continue;
		if ((rc = emit(app)) != 0)
			return rc < 0 ? 1 : 0;
		if (++done >= app->opt.iterations && app->opt.iterations)
			break;
	}
	if (!done && !app->quit)
		fprintf(stderr, "pmutop: %s: no interval to show (it takes two ticks of one mode)\n",
			app->opt.replay);
	return 0;
}

static int run_batch(struct app_ctx *app)
{
	char err[512];
	if (app->replay && !app->remote)
		return run_replay_batch(app);
	if (loop_init(&app->loop, (uint64_t)app_tick_ms(app) * 1000000ULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	app->loop_ready = true;
	bool agent = remote_agent_wanted(app);
	if (agent)
		loop_watch(&app->loop, STDIN_FILENO);
	remote_app_attach(app);
	if (batch_tick(app, err, sizeof(err)) < 0) { /* priming read */
		fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	const struct backend *b = session_backend(app->session);
	int head = 0;
	flush_messages(app, &head);
	if (b->simulated)
		fprintf(stderr, "pmutop: SIMULATED counters (sim backend); no number is from hardware\n");
	long done = 0;
	while (!app->quit) {
		struct loop_event ev;
		if (loop_wait(&app->loop, &ev) < 0)
			break;
		if (ev.kind == LOOP_SIGNAL) {
			if (ev.signo == SIGWINCH)
				continue;
			break; /* SIGINT, SIGTERM, SIGHUP, SIGPIPE end the run cleanly */
		}
		int ticks = 0;
		if (ev.kind == LOOP_INPUT) {
			if (agent && ev.fd == STDIN_FILENO)
				remote_agent_input(app, ev.fd);
			else if (app->remote)
				ticks = remote_app_input(app, ev.fd) > 0 ? replay_app_pending(app) : 0;
		} else if (ev.kind == LOOP_TICK) {
			app->overruns += ev.overruns;
			jitter_loop_tick(app, &ev);
			ticks = app->remote ? replay_app_pending(app) + 1 : 1;
		}
		for (int i = 0; i < ticks && !app->quit; i++) {
			uint64_t windows = jitter_windows(app);
			int rc = batch_tick(app, err, sizeof(err));
			flush_messages(app, &head);
			if (rc < 0) {
				fprintf(stderr, "pmutop: %s\n", err);
				return 1;
			}
			if (rc == 0 || jitter_windows(app) == windows)
				continue; /* output at the refresh cadence */
			if ((rc = emit(app)) != 0)
				return rc < 0 ? 1 : 0;
			if (app->opt.iterations && ++done >= app->opt.iterations)
				return 0;
		}
		flush_messages(app, &head);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct app_ctx app;
	char err[1024];
	if (argc >= 2 && strcmp(argv[1], "probe") == 0)
		return probe_cli(argc - 2, argv + 2, stdout, stderr);
	if (options_parse(&app.opt, argc, argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		return 2;
	}
	if (app.opt.help) {
		options_usage(stdout);
		return 0;
	}
	if (app.opt.version) {
		printf("pmutop %s\n", PMUTOP_VERSION);
		return 0;
	}
	int rc = app_init(&app, err, sizeof(err));
	if (rc == 0 && app.opt.list_events)
		rc = report_list_events(&app, app.opt.list_pattern, stdout) + 100;
	else if (rc == 0 && app.opt.list_modes)
		rc = report_list_modes(&app, stdout) + 100;
	else if (rc == 0 && app.opt.explain)
		rc = report_explain(&app, app.opt.explain, stdout, stderr) + 100;
	else if (rc != 0 && (app.opt.list_events || app.opt.list_modes || app.opt.explain) &&
		 app.modes && rc == 1) {
		/* reports still work when no counter opens here */
		rc = app.opt.list_events ? report_list_events(&app, app.opt.list_pattern, stdout)
		     : app.opt.list_modes ? report_list_modes(&app, stdout)
					  : report_explain(&app, app.opt.explain, stdout, stderr);
		rc += 100;
	}
	if (rc >= 100) {
		app_free(&app);
		return rc - 100;
	}
	if (rc != 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		if (rc == 1 && app.pf.capability[0])
			fprintf(stderr, "pmutop: platform: %s\n", app.pf.capability);
		app_free(&app);
		return rc;
	}
	if (jitter_attach(&app, err, sizeof(err)) < 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		app_free(&app);
		return 2;
	}
	/* a recording that cannot be written is reported; monitoring goes on */
	if (app.opt.record && recorder_start(&app, app.opt.record, err, sizeof(err)) < 0)
		app_log(&app, MSG_ERROR, "recording: %s", err);
	if (app.opt.batch) {
#ifndef PMUTOP_NO_UI
		ui_add_commands(); /* -c can then say a command is the screen's */
#endif
		/* the rc file and -c before the first tick; a bad line is a usage error */
		struct command_errors errs = {0};
		rc = command_startup(&app, &errs) ? 2 : run_batch(&app);
		for (size_t i = 0; i < errs.n; i++)
			fprintf(stderr, "pmutop: %s\n", errs.msgs[i]);
		command_errors_free(&errs);
	} else
#ifdef PMUTOP_NO_UI
	{
		fprintf(stderr, "pmutop: this is the board agent, built without the screen: use -b "
				"(and -r - for pmutop --remote)\n");
		rc = 2;
	}
#else
		rc = ui_run(&app);
#endif
	app_free(&app);
	return rc;
}

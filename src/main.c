/* main.c: pmutop entry point: options, one-shot reports, batch mode or the screen. */
#include "app.h"
#include "command.h"
#include "frame.h"
#include "jitter.h"
#include "output.h"
#include "probe.h"
#include "recorder.h"
#include "remote.h"
#include "report.h"
#include "run.h"
#ifndef PMUTOP_NO_UI
#include "ui.h"
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Batch mode: prints each frame; the log goes to stderr. */
struct batch {
	struct app_ctx *app;
	int head; /* messages printed so far */
	bool agent;
};

static void flush_messages(struct batch *bt)
{
	struct app_ctx *app = bt->app;
	int n = (app->message_head - bt->head + APP_MAX_MESSAGES) % APP_MAX_MESSAGES;
	for (int i = 0; i < n; i++)
		fprintf(stderr, "pmutop: %s\n",
			app->messages[(bt->head + i) % APP_MAX_MESSAGES].text);
	bt->head = app->message_head;
}

static void batch_after_tick(void *ctx) { flush_messages(ctx); }

/* Writes the frame. Returns 0, 1 when the reader went away (a clean end), -1 on error. */
static int batch_frame(void *ctx, const struct frame *f)
{
	struct batch *bt = ctx;
	struct app_ctx *app = bt->app;
	flush_messages(bt);
	if (app->opt.record && strcmp(app->opt.record, "-") == 0)
		return 0; /* stdout carries the recording (the agent) */
	if (output_frame(stdout, app->opt.format, f) < 0) {
		if (errno == EPIPE)
			return 1;
		fprintf(stderr, "pmutop: writing output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The agent's control lines on stdin. */
static void batch_stdin(void *ctx, bool hangup)
{
	(void)hangup; /* the agent reads the end of its input as the client going away */
	struct batch *bt = ctx;
	remote_agent_input(bt->app, STDIN_FILENO);
	flush_messages(bt);
}

static int run_batch(struct app_ctx *app)
{
	struct batch bt = {.app = app, .agent = remote_agent_wanted(app)};
	app->frame_wants_self = app->opt.format == OUTPUT_TEXT; /* text prints the self line */
	signal(SIGPIPE, SIG_IGN);
	flush_messages(&bt);
	if (source_has(&app->source, SOURCE_CAP_SIMULATED))
		fprintf(stderr,
			"pmutop: SIMULATED counters (sim backend); no number is from hardware\n");
	struct run_frontend fe = {
	    .ctx = &bt,
	    .on_frame = batch_frame,
	    .on_stdin = bt.agent ? batch_stdin : NULL,
	    .after_tick = batch_after_tick,
	    .unpaced = true,
	    .errors_end_run = true,
	};
	int rc = run_loop(app, &fe);
	flush_messages(&bt);
	return rc;
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
		rc = app.opt.list_events  ? report_list_events(&app, app.opt.list_pattern, stdout)
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

/* main.c: pmutop entry point: options, one-shot reports, batch mode or the screen. */
#include "app.h"
#include "jitter.h"
#include "output.h"
#include "probe.h"
#include "report.h"
#include "ui.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static int run_batch(struct app_ctx *app)
{
	char err[512];
	if (loop_init(&app->loop, (uint64_t)app_tick_ms(app) * 1000000ULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	app->loop_ready = true;
	if (app_tick(app, err, sizeof(err)) < 0) { /* priming read */
		fprintf(stderr, "pmutop: %s\n", err);
		return 1;
	}
	const struct backend *b = session_backend(app->session);
	for (int i = 0; i < app->nmessages; i++)
		fprintf(stderr, "pmutop: %s\n", app->messages[i].text);
	if (b->simulated)
		fprintf(stderr, "pmutop: SIMULATED counters (sim backend); no number is from hardware\n");
	long done = 0;
	int seen = app->message_head;
	while (!app->quit) {
		struct loop_event ev;
		if (loop_wait(&app->loop, &ev) < 0)
			break;
		if (ev.kind == LOOP_SIGNAL) {
			if (ev.signo == SIGWINCH)
				continue;
			break; /* SIGINT, SIGTERM, SIGHUP, SIGPIPE end the run cleanly */
		}
		if (ev.kind != LOOP_TICK)
			continue;
		app->overruns += ev.overruns;
		jitter_loop_tick(app, &ev);
		uint64_t windows = jitter_windows(app);
		int rc = app_tick(app, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "pmutop: %s\n", err);
			return 1;
		}
		for (; seen != app->message_head; seen = (seen + 1) % APP_MAX_MESSAGES)
			fprintf(stderr, "pmutop: %s\n", app->messages[seen].text);
		if (rc == 0 || jitter_windows(app) == windows)
			continue; /* output at the refresh cadence */
		struct output_meta meta = {.backend = session_backend(app->session)->ops->name,
					   .mode = app->mode_name,
					   .simulated = session_backend(app->session)->simulated};
		jitter_output_meta(app, &meta);
		if (output_snapshot(stdout, app->opt.format, &meta, jitter_snapshot(app)) < 0) {
			if (errno == EPIPE)
				return 0; /* the reader went away: a clean end */
			fprintf(stderr, "pmutop: writing output: %s\n", strerror(errno));
			return 1;
		}
		if (app->opt.iterations && ++done >= app->opt.iterations)
			break;
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
		app_free(&app);
		return rc;
	}
	if (jitter_attach(&app, err, sizeof(err)) < 0) {
		fprintf(stderr, "pmutop: %s\n", err);
		app_free(&app);
		return 2;
	}
	if (app.opt.batch)
		rc = run_batch(&app);
	else
		rc = ui_run(&app);
	app_free(&app);
	return rc;
}

/* run.c: the one loop of a run (screen, batch, replay batch): ticks -> pipeline -> frames. */
#include "run.h"
#include "app.h"
#include "jitter.h"
#include "remote.h"
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

struct run {
	struct app_ctx *app;
	const struct run_frontend *fe;
	long frames; /* handed to the front end */
	int status;  /* exit status once done */
	bool done;
};

/* One tick through the pipeline; a closed refresh window becomes a frame for the front end. */
static void one_tick(struct run *r)
{
	struct app_ctx *app = r->app;
	char err[512];
	int rc = app_next(app, err, sizeof(err));
	if (r->fe->after_tick)
		r->fe->after_tick(r->fe->ctx);
	if (rc < 0) {
		app_log(app, MSG_ERROR, "%s", err);
		if (r->fe->errors_end_run) { /* batch: a read error ends the run */
			r->status = 1;
			r->done = true;
		}
		return;
	}
	if (rc == 0 || !app_refresh_due(app) || app->display_paused)
		return; /* paused: the screen keeps its frame; counting and recording went on */
	const struct frame *f = app_frame_build(app);
	if (!f)
		return;
	int out = r->fe->on_frame(r->fe->ctx, f);
	if (out != 0) {
		r->status = out < 0 ? 1 : 0;
		r->done = true;
		return;
	}
	if (++r->frames >= app->opt.iterations && app->opt.iterations)
		r->done = true;
}

/* Every tick a recorded source has ready (a remote stream's new ticks). */
static void drain(struct run *r)
{
	while (!r->done && !r->app->quit && app_pending(r->app) > 0)
		one_tick(r);
}

static int run_unpaced(struct run *r)
{
	struct app_ctx *app = r->app;
	while (!r->done && !app->quit && app_pending(app) > 0)
		one_tick(r);
	if (!r->frames && !app->quit && r->status == 0)
		app_log(app, MSG_WARN, "%s: no interval to show (it takes two ticks of one mode)",
			app->opt.replay ? app->opt.replay : "the recording");
	return r->status;
}

int run_loop(struct app_ctx *app, const struct run_frontend *fe)
{
	struct run r = {.app = app, .fe = fe};
	char err[512];
	if (fe->unpaced && app_pending(app) >= 0 && !source_has(&app->source, SOURCE_CAP_STREAM))
		return run_unpaced(&r);
	if (loop_init(&app->loop, app_period_ns(app), err, sizeof(err)) < 0) {
		app_log(app, MSG_ERROR, "%s", err);
		return 1;
	}
	app->loop_ready = true;
	if (fe->on_stdin)
		loop_watch(&app->loop, STDIN_FILENO);
	remote_app_attach(app);
	one_tick(&r); /* the priming read */
	if (fe->on_change)
		fe->on_change(fe->ctx);
	while (!app->quit && !r.done) {
		struct loop_event ev;
		if (loop_wait(&app->loop, &ev) < 0)
			break;
		switch (ev.kind) {
		case LOOP_SIGNAL:
			if (ev.signo == SIGWINCH) {
				if (fe->on_resize)
					fe->on_resize(fe->ctx);
			} else {
				app->quit =
				    true; /* SIGINT, SIGTERM, SIGHUP, SIGPIPE end the run cleanly */
			}
			break;
		case LOOP_INPUT:
			if (ev.fd == STDIN_FILENO && fe->on_stdin)
				fe->on_stdin(fe->ctx, ev.hangup);
			else if (app->remote && remote_app_input(app, ev.fd) > 0)
				drain(&r);
			if (fe->on_change)
				fe->on_change(fe->ctx);
			break;
		case LOOP_TICK:
			app->overruns += ev.overruns;
			app->last_lateness_ms = (double)ev.lateness_ns / 1e6;
			jitter_loop_tick(app, &ev);
			if (app->display_paused && source_has(&app->source, SOURCE_CAP_SEEK))
				break; /* a paused replay holds its place: nothing is being counted
					*/
			if (app->remote) {
				remote_app_poll(app);
				drain(&r);
			} else {
				one_tick(&r);
			}
			break;
		default:
			break;
		}
		int end = fe->ended ? fe->ended(fe->ctx) : 0;
		if (end) {
			r.status = end;
			r.done = true;
		}
	}
	return r.status;
}

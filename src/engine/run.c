/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run.c: the one loop of a run (screen, batch, replay batch): ticks -> pipeline -> frames. */
#include "run.h"
#include "app.h"
#include "encode.h"
#include "playback.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct run {
	struct app_ctx *app;
	const struct run_frontend *fe;
	long frames; /* handed to the front end */
	int status;  /* exit status once done */
	bool done;
};

/* Whether an observer serves readers outside the run at its pace (observer.h: paced). */
static bool paced(const struct app_ctx *app)
{
	for (int i = 0; i < app->nobservers; i++)
		if (app->observers[i]->paced)
			return true;
	return false;
}

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
	if (rc == 0 || !app_refresh_due(app))
		return;
	const struct frame *f = app_frame_build(app);
	if (!f)
		return;
	for (int i = 0; i < app->nobservers; i++) /* e.g. the endpoint: paused screen or not */
		if (app->observers[i]->on_frame)
			app->observers[i]->on_frame(app->observers[i], app, f);
	if (app->display_paused)
		return; /* the screen holds the frame it shows; counting and recording go on */
	int out = r->fe->on_frame(r->fe->ctx, f);
	if (out != 0) {
		r->status = out < 0 ? 1 : 0;
		r->done = true;
		return;
	}
	if (++r->frames >= app->opt.iterations && app->opt.iterations)
		r->done = true;
}

/* Ticks one after another, no timer, until the run is done: with @recorded, only while the
 * recorded source has one ready (a replay, a remote stream's new ticks); without, the sim's
 * virtual ticks (--sim-unpaced) to -n frames. */
static void ticks_flat_out(struct run *r, bool recorded)
{
	while (!r->done && !r->app->quit && (!recorded || app_pending(r->app) > 0))
		one_tick(r);
}

/* Every tick a recorded source has ready (a remote stream's new ticks). */
static void drain(struct run *r) { ticks_flat_out(r, true); }

/* A streamed recording is readable: new ticks go through; at its end a batch run is done
 * (status 2 when the stream was bad), the screen keeps what it shows. */
static void stream_input(struct run *r, int *fd)
{
	struct app_ctx *app = r->app;
	int n = playback_input(app);
	drain(r); /* also what came before the end */
	if (n >= 0)
		return;
	loop_unwatch(&app->loop, *fd);
	*fd = -1;
	if (r->fe->errors_end_run) {
		r->status = n == -2 ? 2 : r->status;
		r->done = true;
	}
	if (r->fe->after_tick)
		r->fe->after_tick(r->fe->ctx); /* batch: the end's message now */
}

static int run_unpaced(struct run *r)
{
	struct app_ctx *app = r->app;
	ticks_flat_out(r, true);
	if (!r->frames && !app->quit && r->status == 0)
		app_log(app, MSG_WARN, "%s: no interval to show (it takes two ticks of one mode)",
			app->opt.replay ? app->opt.replay : "the recording");
	return r->status;
}

/* --sim-unpaced: the sim's ticks one after another, the priming read first, to -n frames. */
static int run_sim_unpaced(struct run *r)
{
	struct app_ctx *app = r->app;
	if (!r->fe->unpaced || !source_has(&app->source, SOURCE_CAP_VIRTUAL_TIME) ||
	    source_has(&app->source, SOURCE_CAP_RECORDED) || !app->opt.iterations || paced(app)) {
		app_log(
		    app, MSG_ERROR,
		    "--sim-unpaced: a batch run (-b) of --backend sim with -n N and no endpoint");
		return 2;
	}
	ticks_flat_out(r, false);
	return r->status;
}

int run_loop(struct app_ctx *app, const struct run_frontend *fe)
{
	struct run r = {.app = app, .fe = fe};
	char err[512];
	if (app->opt.sim.unpaced)
		return run_sim_unpaced(&r);
	/* a batch replay runs flat out, unless an endpoint serves it to scrapers at its pace */
	if (fe->unpaced && !paced(app) && app_pending(app) >= 0 &&
	    !source_has(&app->source, SOURCE_CAP_STREAM))
		return run_unpaced(&r);
	if (app->opt.realtime) {
		if (loop_realtime(err, sizeof(err)) < 0) {
			app_log(app, MSG_ERROR, "%s", err);
			return 2;
		}
		app_log(app, MSG_INFO, "pmutop runs at SCHED_FIFO priority 1 (--realtime)");
	}
	if (loop_init(&app->loop, app_period_ns(app), err, sizeof(err)) < 0) {
		app_log(app, MSG_ERROR, "%s", err);
		return 1;
	}
	app->loop_ready = true;
	if (fe->on_stdin)
		loop_watch(&app->loop, STDIN_FILENO);
	for (int i = 0; i < app->nobservers; i++)
		if (app->observers[i]->attach &&
		    app->observers[i]->attach(app->observers[i], app, &app->loop) < 0)
			return 1;
	int stream_fd = playback_stream_fd(app); /* -R - or a FIFO */
	if (stream_fd >= 0)
		loop_watch(&app->loop, stream_fd);
	one_tick(&r); /* the priming read */
	/* samples in rings count from the priming read: the refresh that drains them starts
	 * there, so each drain finds its window's last sample already written */
	if (app_queued(app) >= 0)
		loop_set_period(&app->loop, app_period_ns(app));
	if (fe->on_change)
		fe->on_change(fe->ctx);
	while (!app->quit && !r.done) {
		struct loop_event ev;
		encode_release(); /* libpfm4 again only when a command or mode encodes with it */
		int queued;
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
		case LOOP_INPUT: {
			int taken = 0; /* an observer's descriptor: a scraper, the agent's pipes */
			for (int i = 0; i < app->nobservers && !taken; i++)
				if (app->observers[i]->on_input)
					taken = app->observers[i]->on_input(app->observers[i], app,
									    ev.fd);
			if (taken == 1)
				break;	  /* nothing changes on the screen */
			if (taken == 3) { /* what is counted ended: its last counts, the end */
				one_tick(&r);
				r.done = true;
				break;
			}
			if (taken == 2)
				drain(&r); /* ticks of a streamed source arrived */
			else if (ev.fd == STDIN_FILENO && fe->on_stdin)
				fe->on_stdin(fe->ctx, ev.hangup);
			else if (ev.fd == stream_fd && stream_fd >= 0)
				stream_input(&r, &stream_fd);
			if (fe->on_change)
				fe->on_change(fe->ctx);
			break;
		}
		case LOOP_TICK:
			app->overruns += ev.overruns;
			app->last_lateness_ms = (double)ev.lateness_ns / 1e6;
			for (int i = 0; i < app->nobservers; i++)
				if (app->observers[i]->on_timer)
					app->observers[i]->on_timer(app->observers[i], app, &ev);
			if (app->display_paused && source_has(&app->source, SOURCE_CAP_SEEK))
				break; /* a paused replay holds its place: nothing is being counted
					*/
			if (stream_fd >= 0) {
				stream_input(&r, &stream_fd); /* ticks come as the stream is read */
			} else if (source_has(&app->source, SOURCE_CAP_STREAM)) {
				drain(&r);
			} else if ((queued = app_queued(app)) >= 0) {
				/* a sampling source: every sample its rings hold, one tick each */
				for (; queued > 0 && !r.done && !app->quit; queued--)
					one_tick(&r);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-probe.c: "probe cache [full|stop]": the cache-geometry probe, run in steps between ticks. */
#include "app.h"
#include "command.h"
#include "probe.h"
#include "uistate.h"
#include <stdio.h>
#include <string.h>

static void probe_line(void *ctx, const char *line)
{
	ui_text_add(ctx, ROLE_HELP_TEXT, "%s", line);
}

/* Rebuilds the probe view's lines from its progress or result. */
static void probe_text(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);

	if (!u->probe)
		return;
	ui_text_clear(u);
	if (!u->probe_done) {
		ui_text_add(
		    u, ROLE_TITLE,
		    "cache probe: %s %3.0f%%  (the probe loads one CPU; :probe stop ends it)",
		    probe_phase_name(u->probe), probe_progress(u->probe) * 100);
		return;
	}
	const char *perr = probe_error(u->probe);
	if (perr && perr[0]) {
		ui_text_add(u, ROLE_MESSAGE_ERROR, "cache probe failed: %s", perr);
		return;
	}
	const struct probe_result *r = probe_result(u->probe);
	ui_text_add(u, ROLE_TITLE, "cache probe results (Esc returns; up/down scroll)");
	probe_format_summary(r, probe_line, u);
	probe_format_table(r, probe_line, u);
	int w = u->canvas ? u->canvas->w - 2 : 78;
	probe_format_plot(r, w > 100 ? 100 : w, 16, probe_line, u);
	probe_format_tlb(r, probe_line, u);
	probe_format_seed(r, probe_line, u);
}

void ui_probe_advance(struct app_ctx *app)
{
	struct ui_state *u = ui_state_of(app);

	if (!u->probe || u->probe_done)
		return;
	/* at most a quarter of the interval, up to 250 ms */
	double budget = (double)app->interval_ms / 4;
	if (budget > 250)
		budget = 250;
	int rc = probe_step(u->probe, budget);
	if (rc <= 0) {
		u->probe_done = true;
		app_log(app, rc < 0 ? MSG_ERROR : MSG_INFO, "cache probe %s",
			rc < 0 ? "failed" : "finished");
	}
	probe_text(app);
}

static int exec_probe(const struct command_ctx *ctx, int argc, char **argv, char *err,
		      size_t errlen)
{
	struct app_ctx *app = ctx->app;
	struct ui_state *u = ui_state_of(app);

	if (strcmp(argv[1], "cache") != 0 && strcmp(argv[1], "stop") != 0) {
		snprintf(err, errlen, "unknown probe \"%s\" (cache)", argv[1]);
		return -1;
	}
	bool stop = strcmp(argv[1], "stop") == 0 || (argc > 2 && strcmp(argv[2], "stop") == 0);
	if (stop) {
		if (!u->probe) {
			snprintf(err, errlen, "no probe is running");
			return -1;
		}
		probe_free(u->probe);
		u->probe = NULL;
		ui_text_clear(u);
		u->vs.view = VIEW_TABLE;
		command_note(ctx, "cache probe stopped");
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "full") != 0 && strcmp(argv[2], "quick") != 0) {
		snprintf(err, errlen, "usage: probe cache [full|stop]");
		return -1;
	}
	struct probe_opts opts = {.cpu = -1,
				  .quick = !(argc > 2 && strcmp(argv[2], "full") == 0),
				  .sysfs_root = app->pf.root[0] ? app->pf.root : "/"};
	struct probe *p = probe_new(&opts, err, errlen);
	if (!p)
		return -1;
	if (u->probe)
		probe_free(u->probe);
	u->probe = p;
	u->probe_done = false;
	u->vs.view = VIEW_PROBE;
	u->vs.scroll = 0;
	probe_text(app);
	command_note(ctx, "cache probe started (%s); it runs between ticks",
		     opts.quick ? "quick" : "full");
	return 0;
}

const struct command ui_cmd_probe_entry = {
    .name = "probe",
    .usage = "probe cache [full|stop]",
    .min_args = 1,
    .max_args = 2,
    .args = {ARG_PROBE, ARG_TEXT},
    .flags = COMMAND_SCREEN,
    .exec = exec_probe,
    .help = "measure cache sizes, line size and TLB reach by timing (quick; 'full' to 64M)",
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* app-target.c: a run that counts tasks or cgroups: its rows, the command run under -- (started
 * once its counters are open, its end ending the run) and the summary perf stat prints. */
#include "app.h"
#include "loop.h"
#include "replay.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The command's end: the pidfd (or, without one, the timer) ends the run after one last tick. */
static int command_attach(struct observer *o, struct app_ctx *app, struct loop *loop)
{
	(void)o;
	if (app->target.pidfd >= 0)
		loop_watch(loop, app->target.pidfd);
	return 0;
}

static int command_input(struct observer *o, struct app_ctx *app, int fd)
{
	(void)o;
	if (fd != app->target.pidfd || fd < 0)
		return 0;
	loop_unwatch(&app->loop, fd);
	target_reap(&app->target);
	return 3; /* one last tick (the counts the command left), then the end */
}

static void command_timer(struct observer *o, struct app_ctx *app, const struct loop_event *ev)
{
	(void)o, (void)ev;
	if (target_reap(&app->target))
		app_quit(app); /* this tick is read, then the run ends */
}

int app_target_init(struct app_ctx *app, char *err, size_t errlen)
{
	const struct options *o = &app->opt;
	bool wanted = o->pids || o->tids || o->user || o->command || o->cgroups || o->each_cgroup;
	/* a run without a command has no command descriptors (0 is stdin) */
	app->target.go_fd = app->target.pidfd = -1;
	if (o->sim.tasks || o->sim.task_churn) { /* --sim-tasks: the sim's own tasks */
		if (!source_has(&app->source, SOURCE_CAP_VIRTUAL_TIME) ||
		    source_has(&app->source, SOURCE_CAP_RECORDED)) {
			snprintf(err, errlen,
				 "--sim-tasks and --sim-task-churn: with --backend sim");
			return 2;
		}
		if (wanted || o->cpus) {
			snprintf(
			    err, errlen,
			    "--sim-tasks: the sim's tasks are the rows; not with -p, -t, -u, -G, "
			    "-C or -- CMD");
			return 2;
		}
		if (!o->sim.tasks || o->sim.task_churn > o->sim.tasks) {
			snprintf(err, errlen,
				 "--sim-task-churn %d: of at most --sim-tasks (%d) tasks",
				 o->sim.task_churn, o->sim.tasks);
			return 2;
		}
		if (target_sim(&app->target, o->sim.tasks, SIM_TASK_PID0, err, errlen) < 0)
			return 2;
	} else if (!wanted)
		return 0;
	if (source_has(&app->source, SOURCE_CAP_RECORDED)) {
		snprintf(err, errlen,
			 "-p, -t, -u, -G and -- CMD count this machine's tasks: not with -R or "
			 "--remote");
		return 2;
	}
	if (o->cpus && !(o->cgroups || o->each_cgroup)) {
		snprintf(err, errlen, "-C picks CPUs: tasks are counted wherever they run");
		return 2;
	}
	if (!o->sim.tasks &&
	    target_init(&app->target, o, app->pf.root, app->cpus, app->ncpus, err, errlen) < 0)
		return 2;
	struct target *t = &app->target;
	int cpu0 = app->ncpus ? app->cpus[0] : 0;
	for (int r = 0; r < t->nrows; r++) /* a task row encodes for the first CPU's core PMU */
		app->cpus[r] = t->kind == TARGET_TASKS ? cpu0 : t->row_cpu[r];
	app->ncpus = t->nrows;
	if (t->kind == TARGET_TASKS) /* cgroups follow CPUs that come online (app_follow_online) */
		app->cpus_all = false;
	if (t->skipped[0])
		app_log(app, MSG_WARN, "%s", t->skipped);
	if (t->child) {
		app->exec_pending = true;
		struct observer ob = {.name = "command",
				      .attach = command_attach,
				      .on_input = command_input,
				      .on_timer = command_timer};
		if (!app_observe(app, &ob)) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
	}
	return 0;
}

int app_target_from_recording(struct app_ctx *app)
{
	const struct replay *rp =
	    source_has(&app->source, SOURCE_CAP_RECORDED) ? app->replay : NULL;
	if (!rp || !rp->f.header.ncpus || !rp->f.header.cpus[0].key[0])
		return 0;
	const struct rec_header *h = &rp->f.header;
	struct target *t = &app->target;
	/* tasks, cgroups, or the units of an imported perf stat --per-core, ... capture: groups of
	 * CPUs, as cgroups are */
	enum row_unit kind = ROWS_TASK;
	for (int u = ROWS_CORE; u < ROWS_NKINDS; u++)
		if (u != ROWS_TYPE && strcmp(h->rows, rows_unit_name((enum row_unit)u)) == 0)
			kind = (enum row_unit)u;
	memset(t, 0, sizeof(*t));
	t->go_fd = t->pidfd = -1;
	t->kind = kind == ROWS_TASK ? TARGET_TASKS : TARGET_CGROUPS;
	t->row_key = calloc((size_t)h->ncpus, sizeof(int));
	t->keys = calloc((size_t)h->ncpus, sizeof(*t->keys));
	t->row_ncpus =
	    kind == ROWS_TASK || kind == ROWS_CGROUP
		? NULL
		: calloc((size_t)(app->ncpus > h->ncpus ? app->ncpus : h->ncpus), sizeof(int));
	if (!t->row_key || !t->keys || (kind != ROWS_TASK && kind != ROWS_CGROUP && !t->row_ncpus))
		return -1;
	/* the rows in the order the source gives them (app->cpus: the header's row numbers) */
	for (int r = 0; r < app->ncpus; r++) {
		const char *label = "";
		int key_cpus = 0;
		for (int k = 0; k < h->ncpus; k++)
			if (h->cpus[k].cpu == app->cpus[r])
				label = h->cpus[k].key, key_cpus = h->cpus[k].key_cpus;
		int key = 0;
		while (key < t->nkeys && strcmp(t->keys[key].label, label) != 0)
			key++;
		if (key == t->nkeys) {
			struct row_key *rk = &t->keys[t->nkeys++];
			rk->kind = kind;
			rk->id = key;
			rk->tuple[0] = key;
			rk->ncpus = key_cpus;
			snprintf(rk->label, sizeof(rk->label), "%.*s", (int)sizeof(rk->label) - 1,
				 label);
		}
		t->row_key[r] = key;
		if (t->row_ncpus)
			t->row_ncpus[r] = key_cpus > 0 ? key_cpus : 1;
	}
	t->nrows = app->ncpus;
	return 0;
}

void app_target_release(struct app_ctx *app)
{
	if (!app->exec_pending)
		return;
	app->exec_pending = false; /* later modes enable at once */
	target_release(&app->target);
}

/* A value scaled by enabled / running (multiplexed), as perf stat prints it. */
static double scaled(const struct raw_count *c)
{
	if (!c->running)
		return 0;
	return c->running < c->enabled ? (double)c->value * (double)c->enabled / (double)c->running
				       : (double)c->value;
}

void app_target_summary(struct app_ctx *app, FILE *out)
{
	const struct target *t = &app->target;
	if (!t->child || !app->session)
		return;
	struct session_raw raw;
	session_raw(app->session, &raw);
	fprintf(out, "\n Performance counter stats for '%s':\n\n", t->command);
	for (int e = 0; e < raw.nevents; e++) {
		double sum = 0;
		bool any = false;
		for (int r = 0; r < raw.nrows; r++)
			if (raw.cur_present[r * raw.nevents + e]) {
				sum += scaled(&raw.cur[r * raw.nevents + e]);
				any = true;
			}
		const char *name = app->mode.events[e].name;
		bool clock = strcasestr(app->mode.events[e].spec, "task-clock") ||
			     strcasestr(app->mode.events[e].spec, "cpu-clock");
		if (!any)
			fprintf(out, "%18s      %s\n", "<not counted>", name);
		else if (clock)
			fprintf(out, "%18.2f msec %s\n", sum / 1e6, name);
		else
			fprintf(out, "%18.0f      %s\n", sum, name);
	}
	if (target_reap(&app->target))
		fprintf(out, "\n %s exited with status %d\n\n", t->command, target_exit_status(t));
	else /* the run ended first (-n, a signal): the command is stopped, not ended */
		fprintf(out,
			"\n %s was still running when counting stopped: ended with SIGTERM\n\n",
			t->command);
}

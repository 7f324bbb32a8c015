/* SPDX-License-Identifier: GPL-2.0-or-later */
/* app-rows.c: the run's row unit (:rows, --per-core, ...) and the topology it groups CPUs by. */
#include "app.h"
#include "replay.h"
#include <stdio.h>
#include <string.h>

static const char *sysfs_type(int cpu, void *arg)
{
	return platform_core_type((const struct platform *)arg, cpu);
}

/* The topology rows group by: the recording's for a recorded source, else sysfs under the
 * sysfs root (this machine, or the tree the sim stands for). -1 with @err when there is none. */
static int load_topology(struct app_ctx *app, char *err, size_t errlen)
{
	struct rows_choice *rc = &app->rows;
	if (rc->have_topology)
		return 0;
	struct topology *t = &rc->topology;
	memset(t, 0, sizeof(*t));
	if (source_has(&app->source, SOURCE_CAP_RECORDED)) {
		const struct replay *rp = app->replay;
		int known = 0;
		for (int k = 0; rp && k < rp->f.header.ncpus; k++) {
			const struct rec_cpu_info *ci = &rp->f.header.cpus[k];
			struct topo_cpu c = {.known = ci->has_topology,
					     .socket = ci->socket,
					     .die = ci->die,
					     .cluster = ci->cluster,
					     .core = ci->core,
					     .cache_level = ci->cache_level,
					     .cache = ci->cache};
			snprintf(c.type, sizeof(c.type), "%.*s", (int)sizeof(c.type) - 1,
				 ci->core_type);
			if (topology_set(t, ci->cpu, &c) < 0) {
				topology_free(t);
				snprintf(err, errlen, "rows: out of memory");
				return -1;
			}
			known += ci->has_topology;
		}
		if (!known) {
			topology_free(t);
			snprintf(err, errlen,
				 "rows: the recording has no CPU topology (an older recording or "
				 "perf stat output); rows stay per CPU");
			return -1;
		}
	} else {
		struct cpuset cpus = app->pf.possible;
		for (int r = 0; r < app->ncpus; r++)
			cpuset_add(&cpus, app->cpus[r]);
		const char *root = app->pf.root[0] ? app->pf.root : "/";
		if (topology_read(t, root, &cpus, sysfs_type, &app->pf) < 0) {
			snprintf(err, errlen, "rows: out of memory");
			return -1;
		}
	}
	rc->have_topology = true;
	return 0;
}

void app_rows_cpus_changed(struct app_ctx *app)
{
	if (!app->rows.have_topology)
		return; /* read when first needed */
	topology_free(&app->rows.topology);
	app->rows.have_topology = false;
	char err[256];
	load_topology(app, err, sizeof(err)); /* none: rows stay per CPU, as at the start */
}

const struct topology *app_rows_topology(struct app_ctx *app)
{
	char err[256];
	return load_topology(app, err, sizeof(err)) == 0 ? &app->rows.topology : NULL;
}

int app_set_rows(struct app_ctx *app, enum row_unit unit, char *err, size_t errlen)
{
	if (app->target.kind != TARGET_CPUS) {
		enum row_unit have = app->target.nkeys ? app->target.keys[0].kind : ROWS_TASK;
		if (have == unit)
			return 0; /* already so */
		if (have != ROWS_TASK && have != ROWS_CGROUP)
			snprintf(err, errlen,
				 "rows: the capture's rows are perf stat's sums per %s",
				 rows_unit_name(have));
		else
			snprintf(err, errlen, "rows: this run's rows are the %s it counts",
				 app->target.kind == TARGET_TASKS ? "tasks" : "cgroups");
		return -1;
	}
	if (unit < 0 || unit >= ROWS_NUNITS) {
		snprintf(err, errlen, "rows: unknown unit (units: %s)", rows_unit_list());
		return -1;
	}
	if (unit != ROWS_CPU) {
		const struct source_machine *m = &app->machine;
		if (m->aggregated_cpus) {
			snprintf(err, errlen,
				 "rows %s: the capture's one row is already the sum of its CPUs",
				 rows_unit_name(unit));
			return -1;
		}
		if (load_topology(app, err, errlen) < 0)
			return -1;
		const struct topology *t = &app->rows.topology;
		for (int i = 0; !app->rows.notes_said && i < t->nnotes; i++) /* said once */
			app_log(app, MSG_INFO, "topology: %s", t->notes[i]);
		app->rows.notes_said = true;
	}
	app->rows.unit = unit;
	return 0;
}

const struct snapshot *app_rows_snapshot(struct app_ctx *app, const struct snapshot *live,
					 const struct row_key **keys)
{
	*keys = NULL;
	if (app->target.kind != TARGET_CPUS) { /* threads into processes, CPUs into cgroups */
		const struct target *t = &app->target;
		const struct snapshot *s =
		    rows_aggregate_keys(&app->rows.agg, live, t->keys, t->nkeys, t->row_key, keys);
		return s ? s : live;
	}
	if (app->rows.unit == ROWS_CPU || !app->rows.have_topology)
		return live;
	const struct snapshot *s =
	    rows_aggregate(&app->rows.agg, live, app->rows.unit, &app->rows.topology, keys);
	return s ? s : live;
}

const int *app_rows_group_of(const struct app_ctx *app)
{
	if (app->target.kind == TARGET_CPUS &&
	    (app->rows.unit == ROWS_CPU || !app->rows.have_topology))
		return NULL;
	return rows_group_of(app->rows.agg);
}

void app_rows_free(struct app_ctx *app)
{
	rows_agg_free(app->rows.agg);
	app->rows.agg = NULL;
	topology_free(&app->rows.topology);
	app->rows.have_topology = false;
	app->rows.notes_said = false;
}

int app_rows_init(struct app_ctx *app, char *err, size_t errlen)
{
	enum row_unit u;
	if (app_target_from_recording(app) < 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (app->target.kind != TARGET_CPUS) {
		enum row_unit have = app->target.nkeys ? app->target.keys[0].kind : ROWS_TASK;
		if (app->opt.rows && strcmp(app->opt.rows, "cpu") != 0 &&
		    strcmp(app->opt.rows, rows_unit_name(have)) != 0) {
			if (have != ROWS_TASK && have != ROWS_CGROUP)
				snprintf(err, errlen,
					 "--rows %s: the capture's rows are perf stat's sums per "
					 "%s, not its CPUs",
					 app->opt.rows, rows_unit_name(have));
			else
				snprintf(err, errlen,
					 "--rows %s: this run's rows are the tasks or cgroups "
					 "it counts",
					 app->opt.rows);
			return 2;
		}
		app->rows.unit = app->target.nkeys		    ? app->target.keys[0].kind
				 : app->target.kind == TARGET_TASKS ? ROWS_TASK
								    : ROWS_CGROUP;
		return 0;
	}
	if (app->opt.rows) { /* --rows UNIT, --per-core, ... */
		char why[256];
		if (rows_unit_parse(app->opt.rows, &u, err, errlen) < 0)
			return 2;
		if (app_set_rows(app, u, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--rows %s: %s", app->opt.rows, why);
			return 2;
		}
		return 0;
	}
	const struct replay *rp =
	    source_has(&app->source, SOURCE_CAP_RECORDED) ? app->replay : NULL;
	if (rp && rp->f.header.rows[0]) { /* the recording's own rows, as it was recorded */
		char why[256];
		if (rows_unit_parse(rp->f.header.rows, &u, why, sizeof(why)) < 0 ||
		    app_set_rows(app, u, why, sizeof(why)) < 0)
			app_log(app, MSG_WARN, "recording: %s", why);
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rows.h: what a table row stands for (a CPU, a core, a die, a socket, ...) and the rows of a
 * snapshot summed by that key. */
#ifndef PMUTOP_ROWS_H
#define PMUTOP_ROWS_H
#include "session.h"
#include "topology.h"
#include <stdbool.h>

/* enum row_unit and struct row_key: topology.h */

/* "cpu", "core", "die", "socket", "cluster", "cache", "type". */
const char *rows_unit_name(enum row_unit u);
/* One line on what the unit groups, for --help, :help and the man page. */
const char *rows_unit_help(enum row_unit u);
/* Parses a unit name (an exact name or a unique prefix); -1 with a message listing them. */
int rows_unit_parse(const char *name, enum row_unit *out, char *err, size_t errlen);
/* "cpu|core|die|socket|cluster|cache|type". */
const char *rows_unit_list(void);

/* Sums of one snapshot by unit, owned storage reused from one frame to the next. */
struct rows_agg;
/*
 * The rows of @s (a per-CPU snapshot with its program) keyed by @unit over topology @t: the
 * counts of each group's CPUs are summed (count_total: values add, running is their mean) and
 * then every metric is computed from the sums by snapshot_compute, with ncpus the group's CPUs;
 * the all row stays the per-CPU snapshot's own. Returns the aggregated snapshot and its keys
 * (one per row, in @*keys), valid until the next call; NULL for ROWS_CPU, for an aggregated
 * capture (rows already sums), or when out of memory.
 */
const struct snapshot *rows_aggregate(struct rows_agg **agg, const struct snapshot *s,
				      enum row_unit unit, const struct topology *t,
				      const struct row_key **keys);
/*
 * The rows of @s summed by @row_keys[r] (each counter row's key, ids 0..@nkeys-1 in row order):
 * a process's threads, a cgroup's CPUs. As rows_aggregate otherwise; the keys returned are
 * @row_keys' with the CPUs counted. NULL when out of memory.
 */
const struct snapshot *rows_aggregate_keys(struct rows_agg **agg, const struct snapshot *s,
					   const struct row_key *keys, int nkeys,
					   const int *row_key, const struct row_key **out);
/* The key of CPU @cpu's row under @unit (label "S0-D0-C1"); an unknown CPU keeps its own
 * ("CPU5"). */
void rows_key_of(const struct topology *t, enum row_unit unit, int cpu, struct row_key *out);
void rows_agg_free(struct rows_agg *agg);
/* The row of the last summed snapshot each row of its input went into ([input row]), valid
 * until the next call; NULL before the first. */
const int *rows_group_of(const struct rows_agg *agg);

/* The run's choice of rows (the engine's): the unit, the topology it groups by (read when a
 * unit first needs it) and the sums' storage. */
struct rows_choice {
	enum row_unit unit;
	bool have_topology;
	bool notes_said; /* what the topology lacks was logged (the first unit other than cpu) */
	struct topology topology;
	struct rows_agg *agg;
};
struct app_ctx;
/* :rows UNIT, --per-core, --rows UNIT: chooses the unit rows are keyed by. The topology comes
 * from the recording for a recorded source (refused when it has none), else from sysfs under
 * the sysfs root; what it lacks is said once. Returns 0, or -1 with @err (nothing changes). */
int app_set_rows(struct app_ctx *app, enum row_unit unit, char *err, size_t errlen);
/* The rows of the frame: @live keyed by the chosen unit, or @live itself (keys NULL). */
const struct snapshot *app_rows_snapshot(struct app_ctx *app, const struct snapshot *live,
					 const struct row_key **keys);
/* The row of app_rows_snapshot's last summed snapshot each of its input's rows went into
 * ([input row]), or NULL when it returned the input itself. */
const int *app_rows_group_of(const struct app_ctx *app);
/* The topology rows group by (loaded when first asked), or NULL when there is none (a recording
 * without one): what a recording's header keeps. */
const struct topology *app_rows_topology(struct app_ctx *app);
/* The CPU set changed (a CPU came online, a stream named more CPUs): a topology already loaded
 * is read again, so the new CPUs have their places in the rows. */
void app_rows_cpus_changed(struct app_ctx *app);
/* The rows the run starts with: --rows / --per-* (exit status 2 with @err when they cannot be
 * had), else a recording's "rows". Returns 0. */
int app_rows_init(struct app_ctx *app, char *err, size_t errlen);
void app_rows_free(struct app_ctx *app);

#endif

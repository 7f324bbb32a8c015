/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.c: the one option table: getopt_long, --help, the man page, :set/:show and bash
 * completion are generated from its rows. */
#include "options.h"
#include "alert.h"
#include "cpuset.h"
#include "duration.h"
#include "endpoint.h"
#include "manpage.h"
#include "output.h"
#include "perfring.h"
#include "recorder.h"
#include "rows.h"
#include "textutil.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Short options are their letter; the rest need no id (0). */
#define LONG_ONLY 0

/* --- how each option's argument lands in struct options --------------------------------------- */

#define FIELD(f) offsetof(struct options, f)
#define FLAG(f) .kind = APPLY_FLAG, .off = FIELD(f)
#define STR(f) .kind = APPLY_STR, .off = FIELD(f)
#define LIST(f) .kind = APPLY_LIST, .off = FIELD(f), .count_off = FIELD(n##f)
#define FN(h) .kind = APPLY_FN, .fn = h

static int parse_long(const char *text, long lo, long hi, const char *what, long *out, char *err,
		      size_t errlen)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < lo || v > hi) {
		snprintf(err, errlen, "%s: \"%s\" is not a number from %ld to %ld", what, text, lo,
			 hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* A refresh cadence: 10 ms .. 1 h, bare numbers in @bare_unit_ms ("500", "500ms", "2.5s"). */
static int parse_duration(const char *text, long bare_unit_ms, const char *what, long *out,
			  char *err, size_t errlen)
{
	long ms;
	if (duration_parse_ms(text, bare_unit_ms, &ms) < 0 || ms < DURATION_REFRESH_MIN_MS ||
	    ms > 3600000) {
		snprintf(err, errlen, "%s: \"%s\" is not a duration from 10ms to 1h (%s)", what,
			 text,
			 bare_unit_ms == 1 ? "500 = 500ms, 2.5s, 1m" : "seconds: 0.5, 2; or 500ms");
		return -1;
	}
	*out = ms;
	return 0;
}

static int parse_double(const char *text, double lo, double hi, const char *what, double *out,
			char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= lo && v <= hi)) {
		snprintf(err, errlen, "%s: \"%s\" is not a number from %g to %g", what, text, lo,
			 hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* The handlers of the options a plain field cannot take: (options, argument, err, errlen). */
#define HANDLER(name) static int name(struct options *o, const char *arg, char *err, size_t errlen)
/* A handler that parses a whole number from @lo to @hi into o->@field (left as it was on error). */
#define LONG_HANDLER(name, what, lo, hi, field)                                                    \
	HANDLER(name)                                                                              \
	{                                                                                          \
		long v;                                                                            \
		int rc = parse_long(arg, lo, hi, what, &v, err, errlen);                           \
		if (rc == 0)                                                                       \
			o->field = v;                                                              \
		return rc;                                                                         \
	}

HANDLER(apply_iterations)
{
	return parse_long(arg, 1, LONG_MAX, "-n", &o->iterations, err, errlen);
}
HANDLER(apply_interval) { return parse_duration(arg, 1, "-i", &o->interval_ms, err, errlen); }
HANDLER(apply_delay) { return parse_duration(arg, 1000, "-d", &o->interval_ms, err, errlen); }

/* The names of a table (output formats, sources) joined by @sep, the last by @last. */
static void join_names(const char *(*name_at)(size_t), const char *sep, const char *last, char *buf,
		       size_t len)
{
	const char *n;
	size_t count = 0;
	while (name_at(count))
		count++;
	buf[0] = '\0';
	for (size_t i = 0; (n = name_at(i)); i++) {
		size_t u = strlen(buf);
		snprintf(buf + u, len - u, "%s%s", i == 0 ? "" : i + 1 == count ? last : sep, n);
	}
}

HANDLER(apply_format)
{
	int f = output_format_parse(arg);
	if (f < 0) {
		char names[128];
		join_names(output_format_name, ", ", ", ", names, sizeof(names));
		snprintf(err, errlen, "-f: unknown format \"%s\" (%s)", arg, names);
		return -1;
	}
	o->format = f;
	return 0;
}

HANDLER(apply_backend)
{
	if (!source_find(arg)) {
		char names[128];
		join_names(source_name_at, ", ", ", ", names, sizeof(names));
		snprintf(err, errlen, "--backend: unknown backend \"%s\" (%s)", arg, names);
		return -1;
	}
	o->backend = arg;
	return 0;
}

/* A row's help with "@formats" and "@backends" spelled out ("text, csv, json or openmetrics"). */
static void row_help(const struct option_def *d, char *buf, size_t len)
{
	static const struct {
		const char *tag;
		const char *(*name_at)(size_t);
	} lists[] = {{"@formats", output_format_name}, {"@backends", source_name_at}};
	snprintf(buf, len, "%s", d->help);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char *at = strstr(buf, lists[i].tag), names[128], tail[512];
		if (!at)
			continue;
		join_names(lists[i].name_at, ", ", " or ", names, sizeof(names));
		snprintf(tail, sizeof(tail), "%s", at + strlen(lists[i].tag));
		snprintf(at, len - (size_t)(at - buf), "%s%s", names, tail);
	}
}

LONG_HANDLER(apply_sim_cpus, "--sim-cpus", 1, 4096, sim.ncpus)

LONG_HANDLER(apply_seed, "--seed", 0, LONG_MAX, sim.seed)

LONG_HANDLER(apply_sim_width, "--sim-width", 16, 64, sim.counter_bits)

HANDLER(apply_sim_mux)
{
	return parse_double(arg, 0.01, 1.0, "--sim-mux", &o->sim.mux_fraction, err, errlen);
}

LONG_HANDLER(apply_sim_fail, "--sim-fail-event", 0, 1000, sim.fail_event)

HANDLER(apply_sim_offline)
{
	int cpu, from, to, used = 0;
	if (sscanf(arg, "%d:%d-%d%n", &cpu, &from, &to, &used) != 3 || arg[used] || cpu < 0 ||
	    from < 0 || to < from) {
		snprintf(err, errlen, "--sim-offline: expected CPU:FROM-TO, e.g. 1:3-5, got \"%s\"",
			 arg);
		return -1;
	}
	o->sim.offline_cpu = cpu;
	o->sim.offline_from = from;
	o->sim.offline_to = to;
	return 0;
}

HANDLER(apply_sim_spike)
{
	int cpu, every, used = 0;
	double factor = 4.0;
	int n = sscanf(arg, "%d:%d%n:%lf%n", &cpu, &every, &used, &factor, &used);
	if (n < 2 || arg[used] || cpu < 0 || every < 1 || !(factor > 0 && factor < 1e6)) {
		snprintf(err, errlen,
			 "--sim-spike: expected CPU:EVERY[:FACTOR], e.g. 1:10:5, got \"%s\"", arg);
		return -1;
	}
	o->sim.spike_cpu = cpu;
	o->sim.spike_every = every;
	o->sim.spike_factor = factor;
	return 0;
}

HANDLER(apply_sim_shift)
{
	int cpu, used = 0;
	double factor;
	long tick;
	if (sscanf(arg, "%d:%lf@%ld%n", &cpu, &factor, &tick, &used) != 3 || arg[used] || cpu < 0 ||
	    !(factor > 0 && factor < 1e6) || tick < 0) {
		snprintf(err, errlen,
			 "--sim-shift: expected CPU:FACTOR@TICK, e.g. 2:1.05@60, got \"%s\"", arg);
		return -1;
	}
	o->sim.shift_cpu = cpu;
	o->sim.shift_factor = factor;
	o->sim.shift_tick = tick;
	return 0;
}

LONG_HANDLER(apply_sim_tasks, "--sim-tasks", 1, 4096, sim.tasks)

LONG_HANDLER(apply_tasks_top, "--tasks-top", 1, 256, tasks_top)

LONG_HANDLER(apply_sim_task_churn, "--sim-task-churn", 0, 4096, sim.task_churn)

HANDLER(apply_list_events)
{
	(void)err, (void)errlen;
	o->list_events = true;
	o->list_pattern = arg;
	return 0;
}

HANDLER(apply_record_max)
{
	if (recorder_parse_size(arg, &o->record_max) < 0 || o->record_max < 4096) {
		snprintf(err, errlen, "--record-max: \"%s\" is not a size of 4k or more (e.g. 64M)",
			 arg);
		return -1;
	}
	return 0;
}

LONG_HANDLER(apply_record_keep, "--record-keep", 1, 1000, record_keep)

HANDLER(apply_speed) { return parse_double(arg, 0.5, 16, "--speed", &o->speed, err, errlen); }

HANDLER(apply_sample)
{
	/* below 1 ms in us ("100us"): the sampling ring's periods (perfring.h); its windows are cut
	 * by time, and the kernel's throttling is counted, so a late or throttled CPU shortens a
	 * window's sample count, never its interval */
	int rc = duration_parse_sample(arg, &o->sample_ms, &o->sample_us);
	if (rc == -2) {
		snprintf(err, errlen, "--sample: \"%s\" is not from %dus to %dus", arg,
			 DURATION_SAMPLE_US_MIN, DURATION_SAMPLE_US_MAX);
		return -1;
	}
	if (rc < 0 || o->sample_ms < 1 || o->sample_ms > 3600000) {
		snprintf(err, errlen,
			 "--sample: \"%s\" is not a duration from 1ms to 1h (e.g. 5, 5ms, 0.5s)",
			 arg);
		return -1;
	}
	return 0;
}

HANDLER(apply_sample_path)
{
	int p = perfring_path_parse(arg);
	if (p < 0) {
		snprintf(err, errlen, "--sample-path: \"%s\" is not ring, read or auto", arg);
		return -1;
	}
	o->sample_path = p;
	return 0;
}

/* --pin CPU: a CPU this process may run on (the real machine's, whatever --sysfs-root says) */
HANDLER(apply_pin)
{
	long v;
	cpu_set_t set;
	if (parse_long(arg, 0, CPU_SETSIZE - 1, "--pin", &v, err, errlen) < 0)
		return -1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && !CPU_ISSET((int)v, &set)) {
		struct cpuset may;
		char list[128];
		cpuset_clear(&may);
		for (int c = 0; c < CPU_SETSIZE && c < CPUSET_MAX; c++)
			if (CPU_ISSET(c, &set))
				cpuset_add(&may, c);
		snprintf(err, errlen, "--pin %ld: CPU %ld is not one pmutop may run on (%s)", v, v,
			 cpuset_format(&may, list, sizeof(list)));
		return -1;
	}
	o->pin_cpu = (int)v;
	return 0;
}

HANDLER(apply_refresh)
{
	if (parse_duration(arg, 1, "--refresh", &o->refresh_ms, err, errlen) < 0)
		return -1;
	o->interval_ms = o->refresh_ms;
	return 0;
}

HANDLER(apply_alert)
{
	struct alert_rule rule;
	char why[160];
	(void)o;
	if (alert_rule_parse(arg, &rule, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--alert \"%s\": %s", arg, why);
		return -1;
	}
	return 1; /* valid: the row's list takes it */
}

HANDLER(apply_flight)
{
	return parse_double(arg, 0, 3600, "--flight (s)", &o->flight_s, err, errlen);
}

HANDLER(apply_listen)
{
	char host[64], port[8];
	if (endpoint_parse(arg, host, sizeof(host), port, sizeof(port), err, errlen) < 0)
		return -1;
	o->listen = arg;
	return 0;
}

HANDLER(apply_reconnect)
{
	long v;
	if (strcmp(arg, "forever") == 0) {
		o->reconnect = OPTIONS_RECONNECT_FOREVER;
		return 0;
	}
	if (parse_long(arg, 0, 1000000, "--reconnect", &v, err, errlen) < 0)
		return -1;
	o->reconnect = (int)v;
	return 0;
}

HANDLER(apply_rows)
{
	enum row_unit u;
	if (rows_unit_parse(arg, &u, err, errlen) < 0)
		return -1;
	o->rows = rows_unit_name(u);
	return 0;
}

/* perf stat's -x SEP: CSV (pmutop's separator is the comma). */
HANDLER(apply_field_sep)
{
	if (strcmp(arg, ",") != 0) {
		snprintf(err, errlen,
			 "-x \"%s\": pmutop writes CSV with commas only: use -x, or -f csv", arg);
		return -1;
	}
	o->format = output_format_parse("csv");
	return 0;
}

/* perf stat's -j: JSON output. */
HANDLER(apply_json)
{
	(void)arg, (void)err, (void)errlen;
	o->format = output_format_parse("json");
	return 0;
}

/* perf stat's -a and -A: every CPU, a row each: what pmutop counts when no task is named. */
HANDLER(apply_all_cpus)
{
	(void)arg;
	if (o->pids || o->tids || o->user || o->cgroups || o->each_cgroup) {
		snprintf(err, errlen,
			 "-a counts every CPU: it cannot be combined with -p, -t, -u "
			 "or -G");
		return -1;
	}
	return 0;
}

/* -I MS: perf stat's interval in ms (pmutop's -i). */
HANDLER(apply_interval_print) { return parse_duration(arg, 1, "-I", &o->interval_ms, err, errlen); }

/* --per-core .. --per-type: the option takes no argument; the unit is the handler's. */
#define PER_UNIT(name, unit)                                                                       \
	HANDLER(name)                                                                              \
	{                                                                                          \
		(void)arg, (void)err, (void)errlen;                                                \
		o->rows = rows_unit_name(unit);                                                    \
		return 0;                                                                          \
	}
PER_UNIT(apply_per_core, ROWS_CORE)
PER_UNIT(apply_per_die, ROWS_DIE)
PER_UNIT(apply_per_socket, ROWS_SOCKET)
PER_UNIT(apply_per_cluster, ROWS_CLUSTER)
PER_UNIT(apply_per_cache, ROWS_CACHE)
PER_UNIT(apply_per_type, ROWS_TYPE)
PER_UNIT(apply_no_aggr, ROWS_CPU)

/* Shown in the agent's completion and help only where it has the option (no OPTION_SCREEN). The
 * completion words (OPTION_COMPLETE_*) are listed in options.h. Order: as --help lists them. */
static const struct option_def option_table[] = {
    {"batch", 'b', NULL, "batch mode: print one record per tick, no screen", OPTION_CLI,
     FLAG(batch)},
    {"iterations", 'n', "N", "stop after N ticks (also ends the screen; for smoke tests)",
     OPTION_CLI, FN(apply_iterations)},
    {"interval", 'i', "DURATION",
     "refresh interval: 500 (ms), 500ms, 2.5s, 1m (10ms to 1h; default 1s)",
     OPTION_CLI | OPTION_SET, FN(apply_interval), .set = setting_interval_set,
     .show = setting_interval_show, .set_help = "sampling interval in ms (10..3600000)"},
    {"delay", 'd', "SECONDS", "refresh interval in seconds, as in top (0.5, 2)", OPTION_CLI,
     FN(apply_delay)},
    {"mode", 'm', "MODE", "event mode (see --list-modes); default cpi, or sw without a PMU",
     OPTION_CLI | OPTION_SET, STR(mode), .complete = "@modes", .set = setting_mode_set,
     .show = setting_mode_show, .set_help = "the event mode"},
    {"cpus", 'C', "LIST", "CPUs to monitor, e.g. 0-3,8 (default: all online)",
     OPTION_CLI | OPTION_SET, STR(cpus), .set = setting_cpus_set, .show = setting_cpus_show,
     .set_help = "monitored CPUs (list or all)"},
    {"rows", LONG_ONLY, "UNIT",
     "what a row is: cpu (default), core (SMT siblings summed), die, socket, cluster, cache "
     "(last-level cache domain) or type (core type); counts are summed, then the formulas "
     "applied",
     OPTION_CLI, FN(apply_rows), .complete = "cpu core die socket cluster cache type"},
    {"per-core", LONG_ONLY, NULL, "a row per core, S0-D0-C1 (as perf stat --per-core)", OPTION_CLI,
     FN(apply_per_core)},
    {"per-die", LONG_ONLY, NULL, "a row per die, S0-D0 (as perf stat --per-die)", OPTION_CLI,
     FN(apply_per_die)},
    {"per-socket", LONG_ONLY, NULL, "a row per socket, S0 (as perf stat --per-socket)", OPTION_CLI,
     FN(apply_per_socket)},
    {"per-cluster", LONG_ONLY, NULL,
     "a row per CPU cluster, S0-D0-CLS0 (as perf stat --per-cluster)", OPTION_CLI,
     FN(apply_per_cluster)},
    {"per-cache", LONG_ONLY, NULL,
     "a row per last-level cache domain, S0-D0-L3-ID0 (as perf stat --per-cache)", OPTION_CLI,
     FN(apply_per_cache)},
    {"per-type", LONG_ONLY, NULL, "a row per core type (hybrid, big.LITTLE): cpu_core, ...",
     OPTION_CLI, FN(apply_per_type)},
    {"pid", 'p', "PID[,PID...]",
     "count these processes (all their threads), a row each, on whichever CPU they run (as "
     "perf stat -p)",
     OPTION_CLI, STR(pids)},
    {"tid", 't', "TID[,TID...]", "count these threads, a row each (as perf stat -t)", OPTION_CLI,
     STR(tids)},
    {"uid", 'u', "USER", "count the processes of USER (name or uid), a row each", OPTION_CLI,
     STR(user)},
    {"cgroup", 'G', "CGROUP[,...]",
     "count these cgroups (paths under perf's cgroup mount: a v1 perf_event hierarchy, else v2), "
     "a row each, one counter group per CPU (as perf stat -G)",
     OPTION_CLI, STR(cgroups)},
    {"for-each-cgroup", LONG_ONLY, "PATTERN",
     "count every cgroup whose path (under the cgroup mount -G uses) matches the regular "
     "expression PATTERN, a row "
     "each (as perf stat --for-each-cgroup)",
     OPTION_CLI, STR(each_cgroup)},
    {"tasks-top", LONG_ONLY, "N",
     "batch: count the busiest N tasks (1..256) as the task view does, a row each; the set "
     "follows the busiest every 5 ticks (held while -r records)",
     OPTION_CLI, FN(apply_tasks_top)},
    {"all-cpus", 'a', NULL,
     "every CPU (as perf stat -a): what pmutop counts when no task or cgroup is named", OPTION_CLI,
     FN(apply_all_cpus)},
    {"no-aggr", 'A', NULL, "a row per CPU (as perf stat -A): pmutop's default rows (--rows cpu)",
     OPTION_CLI, FN(apply_no_aggr)},
    {"interval-print", 'I', "MS", "as perf stat -I MS: the interval in milliseconds (same as -i)",
     OPTION_CLI, FN(apply_interval_print)},
    {"field-separator", 'x', "SEP", "as perf stat -x,: CSV output (same as -f csv; commas only)",
     OPTION_CLI, FN(apply_field_sep)},
    {"json", 'j', NULL, "as perf stat -j: JSON output (same as -f json)", OPTION_CLI,
     FN(apply_json)},
    {"output", 'o', "FILE", "batch mode: write the records to FILE instead of stdout", OPTION_CLI,
     STR(output), .complete = "@files"},
    {"format", 'f', "FMT", "batch format: @formats (json: one object per line)", OPTION_CLI,
     FN(apply_format), .complete = "@formats"},
    {"events", 'e', "LIST",
     "count an ad hoc event list in perf's syntax (cycles,cpu/event=0x3c/,{a,b}:u,n=r3c) instead "
     "of a mode",
     OPTION_CLI, STR(events), .complete = "@events"},
    {"backend", LONG_ONLY, "NAME", "counter backend: @backends (default perf)", OPTION_CLI,
     FN(apply_backend), .complete = "@backends"},
    {"sim-cpus", LONG_ONLY, "N", "sim: number of simulated CPUs (default 4)", OPTION_CLI,
     FN(apply_sim_cpus)},
    {"seed", LONG_ONLY, "S", "sim: random seed (default 1)", OPTION_CLI, FN(apply_seed)},
    {"sim-width", LONG_ONLY, "BITS", "sim: counter width, 32 wraps as on ARMv7/XScale (default 64)",
     OPTION_CLI, FN(apply_sim_width)},
    {"sim-mux", LONG_ONLY, "FRACTION", "sim: force multiplexing, each event counts this fraction",
     OPTION_CLI, FN(apply_sim_mux)},
    {"sim-shift", LONG_ONLY, "CPU:FACTOR@TICK",
     "sim: from tick TICK on, CPU retires FACTOR times the instructions (an IPC shift)", OPTION_CLI,
     FN(apply_sim_shift)},
    {"sim-truth", LONG_ONLY, NULL,
     "sim: rates also wander within a tick and JSON gives each value's true figure (\"truth\")",
     OPTION_CLI, FLAG(sim.truth)},
    {"sim-fail-event", LONG_ONLY, "INDEX", "sim: the event at INDEX never opens", OPTION_CLI,
     FN(apply_sim_fail)},
    {"sim-offline", LONG_ONLY, "CPU:FROM-TO", "sim: CPU goes offline for ticks FROM..TO",
     OPTION_CLI, FN(apply_sim_offline)},
    {"sim-spike", LONG_ONLY, "CPU:EVERY[:FACTOR]", "sim: inject spikes on CPU every N ticks",
     OPTION_CLI, FN(apply_sim_spike)},
    {"sim-tasks", LONG_ONLY, "N",
     "sim: count N simulated tasks, a row each (each a share of the CPU it runs on; hardware "
     "modes per task)",
     OPTION_CLI, FN(apply_sim_tasks)},
    {"sim-task-churn", LONG_ONLY, "K",
     "sim: the last K of --sim-tasks come and go (one in two ends early, the others start late)",
     OPTION_CLI, FN(apply_sim_task_churn)},
    {"sim-unpaced", LONG_ONLY, NULL,
     "sim: a batch run (-b -n N) reads its ticks without waiting, each standing for the interval "
     "(long simulated runs in seconds)",
     OPTION_CLI, FLAG(sim.unpaced)},
    {"sim-family", LONG_ONLY, "FAMILY",
     "sim: PMU family whose events are simulated (default generic)", OPTION_CLI, STR(sim_family)},
    {"sysfs-root", LONG_ONLY, "DIR",
     "read sysfs/procfs under DIR (a tree standing for another machine)", OPTION_CLI,
     STR(sysfs_root), .complete = "@dirs"},
    {"list-events", LONG_ONLY, "[PATTERN]", "list the events libpfm4 knows for this machine",
     OPTION_CLI, FN(apply_list_events), .complete = "@events"},
    {"explain", LONG_ONLY, "MODE|EVENTS",
     "show each event's encoding (per core type on big.LITTLE) and whether it opens, then exit",
     OPTION_CLI, STR(explain), .complete = "@modes"},
    {"list-modes", LONG_ONLY, NULL,
     "list modes: available here (or the event the core lacks), counters needed/there, "
     "multiplexing, counter width, where each mode came from",
     OPTION_CLI, FLAG(list_modes)},
    {"mode-file", LONG_ONLY, "FILE", "load extra modes from FILE (repeatable)", OPTION_CLI,
     LIST(mode_files), .complete = "@files"},
    {"perf-events", LONG_ONLY, "DIR",
     "perf's pmu-events JSON (tools/perf/pmu-events/arch): this CPU's metric groups become "
     "modes perf:GROUP (hybrid: perf:cpu_core.GROUP, perf:cpu_atom.GROUP, each on its core "
     "type's CPUs)",
     OPTION_CLI, STR(perf_events), .complete = "@dirs"},
    {"metrics", 'M', "NAME[,NAME...]",
     "as perf stat -M: whole metric or metric group names of --perf-events in any case, a "
     "metric before a group of a longer name; runs the mode perf:NAME[+NAME...]",
     OPTION_CLI, STR(perf_metric), .complete = "@groups"},
    {"likwid-groups", LONG_ONLY, "DIR",
     "likwid performance groups as modes likwid:GROUP, from DIR/<arch>/*.txt (arch of this "
     "machine, e.g. /usr/share/likwid/perfgroups) or DIR/*.txt",
     OPTION_CLI, STR(likwid_groups), .complete = "@dirs"},
    {"record", 'r', "FILE", "write a recording (JSON Lines); - writes to stdout", OPTION_CLI,
     STR(record), .complete = "@files"},
    {"record-max", LONG_ONLY, "SIZE", "rotate the recording when it would pass SIZE (e.g. 64M)",
     OPTION_CLI, FN(apply_record_max)},
    {"record-keep", LONG_ONLY, "N", "rotated recordings kept: FILE.1 .. FILE.N (default 1)",
     OPTION_CLI, FN(apply_record_keep)},
    {"force", LONG_ONLY, NULL,
     "write -r, -o, :record and :export FILE even when it is a symbolic link, FIFO or device "
     "(refused otherwise)",
     OPTION_CLI, FLAG(force)},
    {"replay", 'R', "FILE",
     "replay a recording or perf stat CSV/JSON output (per CPU, total, or per core, socket, "
     "die, node, cache, cluster); - (stdin) or a FIFO is followed live",
     OPTION_CLI, STR(replay), .complete = "@files"},
    {"speed", LONG_ONLY, "X", "replay speed 0.5 to 16 (default 1; batch replays run flat out)",
     OPTION_CLI, FN(apply_speed)},
    {"theme", LONG_ONLY, "NAME", "colour theme (default, mono, light, high-contrast)",
     OPTION_CLI | OPTION_SCREEN | OPTION_SET, STR(theme), .complete = "@themes",
     .set_help = "colour theme"},
    {"command", 'c', "CMD", "run a : command at start-up (repeatable)", OPTION_CLI, LIST(commands)},
    {"no-rc", LONG_ONLY, NULL, "do not read /etc/pmutoprc or ~/.config/pmutop/pmutoprc", OPTION_CLI,
     FLAG(no_rc)},
    {"remote", LONG_ONLY, "[USER@]HOST",
     "monitor a remote board (USER@ optional; no leading '-') through its pmutop agent",
     OPTION_CLI | OPTION_SCREEN, STR(remote), .complete = "@hosts"},
    {"transport", LONG_ONLY, "CMD",
     "reaches the host as CMD -- HOST WORDS... (default \"ssh -T\"; WORDS shell-quoted)",
     OPTION_CLI | OPTION_SCREEN, STR(transport)},
    {"reconnect", LONG_ONLY, "N|forever",
     "--remote: reconnect attempts after the link drops, then an error (default 5 in batch "
     "mode, forever on the screen)",
     OPTION_CLI | OPTION_SCREEN, FN(apply_reconnect), .complete = "forever"},
    {"agent", LONG_ONLY, "CMD",
     "the agent command on the remote host (default pmutop-agent, else pmutop)",
     OPTION_CLI | OPTION_SCREEN, STR(agent)},
    {"sample", LONG_ONLY, "DURATION",
     "fine sampling cadence for jitter statistics (1ms and up, or 50us to 999us)", OPTION_CLI,
     FN(apply_sample)},
    {"sample-path", LONG_ONLY, "ring|read|auto",
     "how --sample counts on the perf source: ring (a cpu-clock leader per CPU writes its "
     "group's counts into an mmap ring, no cross-CPU read), read (a read() of every CPU's group "
     "per sample), auto (default: ring below 5ms); on the ring, samples lost and the time the "
     "kernel throttled each CPU's group (it then counts nothing) are shown per CPU",
     OPTION_CLI, FN(apply_sample_path), .complete = "ring read auto"},
    {"pin", LONG_ONLY, "CPU", "pin pmutop itself to CPU", OPTION_CLI, FN(apply_pin)},
    {"realtime", LONG_ONLY, NULL,
     "run pmutop (not a counted command) at SCHED_FIFO priority 1 so ticks come on time on "
     "loaded CPUs; exit 2 if the kernel refuses (needs root or CAP_SYS_NICE); without it the "
     "sampling line says (try --realtime) while the ticks' p99 lateness is over 1 ms",
     OPTION_CLI, FLAG(realtime)},
    {"refresh", LONG_ONLY, "DURATION", "redraw/output cadence (same as -i)", OPTION_CLI,
     FN(apply_refresh)},
    {"alert", LONG_ONLY, "RULE",
     "spike rule, e.g. \"cpi > 2.5 on 2-3\" or \"mad ipc 6\" (repeatable)", OPTION_CLI,
     LIST(alerts), .fn = apply_alert},
    {"flight", LONG_ONLY, "SECONDS",
     "flight recorder: keep SECONDS of samples in RAM (default 30, 0 off)", OPTION_CLI,
     FN(apply_flight)},
    {"flight-out", LONG_ONLY, "PREFIX",
     "flight recordings go to PREFIX-N.jsonl (default pmutop-flight)", OPTION_CLI, STR(flight_out)},
    {"attrib", LONG_ONLY, NULL,
     "attribution columns: switches, migrations, irqs, SMIs, MHz, busiest task",
     OPTION_CLI | OPTION_SET, FLAG(attrib), .complete = "on off", .set = setting_attrib_set,
     .show = setting_attrib_show,
     .set_help = "on: attribution columns (switches, irqs, SMIs, MHz, task)"},
    {"error", LONG_ONLY, NULL,
     "error bars: each scaled or rotated value's 95 % interval (1.32+-0.04), 0 when counted whole; "
     "a summed row (--per-core, --per-socket, ..., a task, a cgroup, the all row) adds its CPUs' "
     "variances, taken as independent, and propagates its metrics from the summed counts",
     OPTION_CLI | OPTION_SET, FLAG(error), .complete = "on off", .set = setting_error_set,
     .show = setting_error_show,
     .set_help = "on: each value's 95 % interval from its multiplexing (value+-half-width)"},
    {"baseline", LONG_ONLY, "FILE",
     "compare every cell with the recording FILE: change and Welch's t-test over the windows, "
     "Holm-corrected over a metric's rows",
     OPTION_CLI, STR(baseline), .complete = "@files"},
    {"listen", LONG_ONLY, "PORT|ADDR:PORT",
     "serve OpenMetrics at http://ADDR:PORT/metrics (address default 127.0.0.1)", OPTION_CLI,
     FN(apply_listen)},
    {"list-themes", LONG_ONLY, NULL, "list the colour themes (built-in and installed)",
     OPTION_CLI | OPTION_SCREEN, FLAG(list_themes)},
    {"list-owners", LONG_ONLY, NULL,
     "list who holds or competes for the PMUs per CPU (other perf users, the NMI watchdog, KVM "
     "guests), from a BPF iterator or /proc; -f json for JSON; opens no counter",
     OPTION_CLI, FLAG(list_owners)},
    {"owners-from", LONG_ONLY, "FILE",
     "read the ownership map from FILE (a --list-owners -f json dump) instead of this machine",
     OPTION_CLI, STR(owners_from), .complete = "@files"},
    {"help-roff", LONG_ONLY, "TEMPLATE",
     "write the manual page: TEMPLATE with these option, command and key tables filled in",
     OPTION_CLI, STR(help_roff), .complete = "@files"},
    {"completion", LONG_ONLY, "SHELL",
     "write the completion script for SHELL (bash), from this table", OPTION_CLI, STR(completion),
     .complete = "bash"},
    {"help", 'h', NULL, "show this help", OPTION_CLI, FLAG(help)},
    {"version", 'V', NULL, "show the version and the licence", OPTION_CLI, FLAG(version)},
    /* settings only (:set NAME VALUE, :show, the rc file) */
    {"stat", LONG_ONLY, NULL, "window statistic in the table: value min median p99 max dev",
     OPTION_SET, .set = setting_stat_set, .show = setting_stat_show,
     .complete = "value min median p99 max dev"},
    {"flight-files", LONG_ONLY, NULL,
     "flight recordings kept, 1..10000 (default 10; the oldest is removed)", OPTION_SET,
     .set = setting_flight_files_set, .show = setting_flight_files_show},
    {"flight-bytes", LONG_ONLY, NULL,
     "bytes of flight recordings kept, e.g. 64M (default 64M; oldest removed)", OPTION_SET,
     .set = setting_flight_bytes_set, .show = setting_flight_bytes_show},
    {"self", LONG_ONLY, NULL,
     "pmutop's own cadence, lateness (\"try --realtime\" while its p99 is over 1 ms), CPU use "
     "and memory (read-only)",
     OPTION_SET, .set = setting_self_set, .show = setting_self_show},
    {"running", LONG_ONLY, NULL, "on: show the running % of scaled values",
     OPTION_SCREEN | OPTION_SET, .complete = "on off"},
    {"group", LONG_ONLY, NULL, "on: group rows by core type (hybrid, big.LITTLE)",
     OPTION_SCREEN | OPTION_SET, .complete = "on off"},
    {"ascii", LONG_ONLY, NULL,
     "on: ASCII bars and sparklines (serial consoles; on in a non-UTF-8 locale)",
     OPTION_SCREEN | OPTION_SET, .complete = "on off"},
    {"tasks", LONG_ONLY, NULL,
     "tasks or cgroups the task view (T, :view tasks) lists: 1..256, 0 as many as fit",
     OPTION_SCREEN | OPTION_SET, .complete = "0 10 20 50 100 200"},
};
#define NOPTIONS (sizeof(option_table) / sizeof(option_table[0]))

/* The screen's settings get their handlers from the screen (options_bind_screen). */
static struct {
	option_set_fn set;
	option_show_fn show;
} bound[NOPTIONS];

static bool in_program(const struct option_def *d, enum options_program prog)
{
	return prog != OPTIONS_AGENT || !(d->flags & OPTION_SCREEN);
}

const struct option_def *options_at(size_t i) { return i < NOPTIONS ? &option_table[i] : NULL; }

option_set_fn options_setter(const struct option_def *d)
{
	return d->set ? d->set : bound[d - option_table].set;
}

option_show_fn options_shower(const struct option_def *d)
{
	return d->show ? d->show : bound[d - option_table].show;
}

int options_bind_screen(const char *name, option_set_fn set, option_show_fn show)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if ((option_table[i].flags & (OPTION_SET | OPTION_SCREEN)) ==
			(OPTION_SET | OPTION_SCREEN) &&
		    strcmp(option_table[i].name, name) == 0) {
			bound[i].set = set;
			bound[i].show = show;
			return 0;
		}
	return -1;
}

/* Is the argument "--NAME[=...]" one of the screen's options? */
static bool screen_only(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return false;
	size_t len = strcspn(arg + 2, "=");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if ((d->flags & OPTION_CLI) && !in_program(d, OPTIONS_AGENT) &&
		    strlen(d->name) == len && strncmp(d->name, arg + 2, len) == 0)
			return true;
	}
	return false;
}

static void option_left(const struct option_def *d, char *buf, size_t len)
{
	if (d->id)
		snprintf(buf, len, "-%c, --%s%s%s", d->id, d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
	else
		snprintf(buf, len, "    --%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
}

void options_usage(FILE *out, enum options_program prog)
{
	if (prog == OPTIONS_AGENT)
		text_fprintf(
		    out, "usage: pmutop-agent -b [options]      batch output, no screen\n"
			 "       pmutop-agent -b -r - [options] the stream pmutop --remote reads\n"
			 "       pmutop-agent probe cache [...] measure cache sizes, line size and "
			 "TLB reach\n\n"
			 "options:\n");
	else
		text_fprintf(
		    out,
		    "usage: pmutop [options]            live per-CPU counter monitor\n"
		    "       pmutop [options] -- CMD ... count CMD and its children from its exec "
		    "(as perf stat)\n"
		    "       pmutop -b -n N [options]    batch output\n"
		    "       pmutop probe cache [...]    measure cache sizes, line size and TLB "
		    "reach\n\n"
		    "options:\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		char left[64];
		if (!(d->flags & OPTION_CLI) || !in_program(d, prog))
			continue;
		char help[512];
		option_left(d, left, sizeof(left));
		row_help(d, help, sizeof(help));
		text_fprintf(out, "  %-34s %s\n", left, help);
	}
	if (prog == OPTIONS_AGENT)
		text_fprintf(
		    out, "\nThe board agent is pmutop without the screen; see pmutop-agent(1).\n");
	else
		text_fprintf(out,
			     "\nIn the screen, press ? or type :help for keys and commands.\n");
	text_fprintf(
	    out,
	    "Under a low open-file limit (ulimit -n) the loop and two spare descriptors come "
	    "first;\n"
	    "events that do not fit are dropped with a message naming them and RLIMIT_NOFILE.\n"
	    "Per-CPU counting needs kernel.perf_event_paranoid <= 0 (tracepoints -1), root or\n"
	    "CAP_PERFMON (setcap cap_perfmon+ep pmutop); the header names the level there is.\n"
	    "Exit status: 0 ok, 1 nothing could be counted or a runtime failure, 2 bad usage,\n"
	    "3 the screen's terminal went away (the recording is finished and closed first).\n");
}

void options_version(FILE *out, enum options_program prog)
{
	fprintf(out,
		"%s %s\n"
		"Copyright (C) the pmutop authors.\n"
		"License GPL-2.0-or-later: GNU GPL version 2 or later "
		"<https://www.gnu.org/licenses/old-licenses/gpl-2.0.html>.\n"
		"This is free software: you are free to change and redistribute it.\n"
		"There is NO WARRANTY, to the extent permitted by law.\n",
		prog == OPTIONS_AGENT ? "pmutop-agent" : "pmutop", PMUTOP_VERSION);
}

void options_roff(FILE *out, enum options_program prog)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!(d->flags & OPTION_CLI) || !in_program(d, prog))
			continue;
		/* .BR alternates bold and roman: "-b" ", " "--batch" " MODE" */
		fputs(".TP\n.BR ", out);
		if (d->id)
			text_fprintf(out, "\\-%c \", \" ", d->id);
		fputs("\\-\\-", out);
		manpage_text(out, d->name);
		if (d->arg) {
			fputs(" \" \\fI", out);
			manpage_text(out, d->arg);
			fputs("\\fR\"", out);
		}
		fputc('\n', out);
		char help[512];
		row_help(d, help, sizeof(help));
		manpage_text(out, help);
		fputc('\n', out);
	}
}

/* The bash words of one completion class; literal words are the row's own. */
static void completion_words(FILE *out, const char *prog, const char *what)
{
	if (strcmp(what, "@formats") == 0 || strcmp(what, "@backends") == 0) {
		char names[256];
		join_names(what[1] == 'f' ? output_format_name : source_name_at, " ", " ", names,
			   sizeof(names));
		fprintf(out, "mapfile -t COMPREPLY < <(compgen -W \"%s\" -- \"$cur\")", names);
	} else if (strcmp(what, "@files") == 0)
		fputs("mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")", out);
	else if (strcmp(what, "@dirs") == 0)
		fputs("mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")", out);
	else if (strcmp(what, "@hosts") == 0)
		fputs("mapfile -t COMPREPLY < <(compgen -A hostname -- \"$cur\")", out);
	else if (what[0] == '@')
		fprintf(out,
			"mapfile -t COMPREPLY < <(compgen -W \"$(_%s_words \"$prog\" %s "
			"\"${lib[@]}\")\" -- \"$cur\")",
			prog, what + 1);
	else
		fprintf(out, "mapfile -t COMPREPLY < <(compgen -W \"%s\" -- \"$cur\")", what);
}

int options_completion(FILE *out, const char *shell, enum options_program prog, char *err,
		       size_t errlen)
{
	const char *p = prog == OPTIONS_AGENT ? "pmutop_agent" : "pmutop";
	if (strcmp(shell, "bash") != 0) {
		snprintf(err, errlen, "--completion: no completion for \"%s\" (bash)", shell);
		return -1;
	}
	fprintf(out,
		"# bash completion for %s, written by %s --completion bash from its option table.\n"
		"# SPDX-License-Identifier: GPL-2.0-or-later\n\n",
		prog == OPTIONS_AGENT ? "pmutop-agent" : "pmutop",
		prog == OPTIONS_AGENT ? "pmutop-agent" : "pmutop");
	/* the lists that depend on the machine and on earlier options: asked of the program */
	fprintf(out,
		"_%s_words() {\n"
		"\tlocal prog=$1 what=$2\n"
		"\tshift 2\n"
		"\tcase $what in\n"
		"\tmodes) \"$prog\" \"$@\" --list-modes 2>/dev/null | awk '!/^#/ && NF && $1 != "
		"\"MODE\" { print $1 }' ;;\n"
		"\tgroups) \"$prog\" \"$@\" --list-modes 2>/dev/null | awk '$1 ~ /^perf:/ { print "
		"substr($1, 6) }' ;;\n"
		"\tthemes) \"$prog\" --list-themes 2>/dev/null ;;\n"
		"\tevents) \"$prog\" --list-events 2>/dev/null | awk '$1 ~ /::/ { print $1 }' ;;\n"
		"\tesac\n"
		"}\n\n",
		p);
	/* --perf-events DIR and --sysfs-root DIR given earlier decide the perf: modes */
	fprintf(out,
		"_%s_lib_args() {\n"
		"\tlocal i\n"
		"\tfor ((i = 1; i + 1 < COMP_CWORD; i++)); do\n"
		"\t\tcase ${COMP_WORDS[i]} in\n"
		"\t\t--perf-events | --sysfs-root) printf '%%s\\n%%s\\n' \"${COMP_WORDS[i]}\" "
		"\"${COMP_WORDS[i + 1]}\" ;;\n"
		"\t\tesac\n"
		"\tdone\n"
		"}\n\n",
		p);
	fprintf(out,
		"_%s() {\n"
		"\tlocal cur prev prog=${COMP_WORDS[0]} lib\n"
		"\tmapfile -t lib < <(_%s_lib_args)\n"
		"\tcur=${COMP_WORDS[COMP_CWORD]}\n"
		"\tprev=${COMP_WORDS[COMP_CWORD - 1]}\n"
		"\tCOMPREPLY=()\n"
		"\tcase $prev in\n",
		p, p);
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!(d->flags & OPTION_CLI) || !in_program(d, prog) || !d->arg)
			continue;
		fputc('\t', out);
		if (d->id)
			fprintf(out, "-%c | ", d->id);
		fprintf(out, "--%s)\n\t\t", d->name);
		if (d->complete)
			completion_words(out, p, d->complete);
		else /* a value to type: offer nothing */
			fputs(":", out);
		fputs("\n\t\treturn ;;\n", out);
	}
	fputs("\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tmapfile -t COMPREPLY < <(compgen -W \"",
	      out);
	bool first = true;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!(d->flags & OPTION_CLI) || !in_program(d, prog))
			continue;
		if (d->id)
			fprintf(out, "%s-%c", first ? "" : " ", d->id);
		fprintf(out, "%s--%s", first && !d->id ? "" : " ", d->name);
		first = false;
	}
	fprintf(out,
		"\" -- \"$cur\")\n"
		"\telif [[ $COMP_CWORD -eq 1 ]]; then\n"
		"\t\tmapfile -t COMPREPLY < <(compgen -W \"probe\" -- \"$cur\")\n"
		"\tfi\n"
		"}\n\n"
		"complete -F _%s %s\n",
		p, prog == OPTIONS_AGENT ? "pmutop-agent" : "pmutop");
	return ferror(out) ? -1 : 0;
}

/* One option's argument into @o, as its row says. */
static int apply(struct options *o, const struct option_def *d, const char *arg, char *err,
		 size_t errlen)
{
	char *base = (char *)o;
	int rc = d->fn ? d->fn(o, arg, err, errlen) : 0;
	if (rc < 0)
		return -1;
	switch (d->kind) {
	case APPLY_FLAG:
		*(bool *)(base + d->off) = true;
		break;
	case APPLY_STR:
		*(const char **)(base + d->off) = arg;
		break;
	case APPLY_LIST: {
		const char **list = (const char **)(base + d->off);
		int *n = (int *)(base + d->count_off);
		if (*n >= OPTIONS_MAX_LIST) {
			snprintf(err, errlen, "--%s: at most %d (repeatable up to %d times)",
				 d->name, OPTIONS_MAX_LIST, OPTIONS_MAX_LIST);
			return -1;
		}
		list[(*n)++] = arg;
		break;
	}
	case APPLY_FN:
		break;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
	return options_parse_program(o, OPTIONS_PMUTOP, argc, argv, err, errlen);
}

int options_parse_program(struct options *o, enum options_program prog, int argc, char **argv,
			  char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->interval_ms = 1000;
	o->format = 0; /* the format table's first row: text */
	o->backend = "perf";
	o->sysfs_root = "/";
	o->transport = "ssh -T";
	o->pin_cpu = -1;
	o->speed = 1;
	o->agent = NULL; /* pmutop-agent where the board has it, else pmutop */
	o->flight_s = 30;
	o->flight_out = "pmutop-flight";
	o->reconnect = OPTIONS_RECONNECT_DEFAULT;
	sim_opts_default(&o->sim);

	struct option longopts[NOPTIONS + 1];
	char shortopts[3 * NOPTIONS + 2];
	size_t sp = 0;
	shortopts[sp++] = ':'; /* report missing arguments distinctly */
	size_t nlong = 0;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!(d->flags & OPTION_CLI) || !in_program(d, prog))
			continue;
		int has = !d->arg ? no_argument
			  : d->arg[0] == '[' && d->arg[strlen(d->arg) - 1] == ']'
			      ? optional_argument
			      : required_argument;
		/* getopt_long returns the short letter, or 256 + the row */
		longopts[nlong++] =
		    (struct option){d->name, has, NULL, d->id ? d->id : 256 + (int)i};
		if (d->id) {
			shortopts[sp++] = (char)d->id;
			if (has == required_argument)
				shortopts[sp++] = ':';
		}
	}
	longopts[nlong] = (struct option){0};
	shortopts[sp] = '\0';
	optind =
	    0; /* 0, not 1: getopt forgets the previous scan (its permutation of another argv) */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				snprintf(err, errlen, "unknown option -%c (see --help)", optopt);
			else if (screen_only(argv[optind - 1]))
				snprintf(
				    err, errlen,
				    "%s: the board agent has no screen and no remote viewer (use "
				    "pmutop)",
				    argv[optind - 1]);
			else
				snprintf(err, errlen, "unknown option %s (see --help)",
					 argv[optind - 1]);
			return -1;
		}
		if (c == ':') {
			snprintf(err, errlen, "option %s needs an argument (see --help)",
				 argv[optind - 1]);
			return -1;
		}
		const struct option_def *d = NULL;
		for (size_t i = 0; i < NOPTIONS && !d; i++)
			if (c == (option_table[i].id ? option_table[i].id : 256 + (int)i))
				d = &option_table[i];
		if (!d) {
			snprintf(err, errlen, "internal: unhandled option %d", c);
			return -1;
		}
		const char *arg = optarg;
		/* an optional argument as a separate word too: "--list-events PATTERN" */
		if (d->arg && d->arg[0] == '[' && d->arg[strlen(d->arg) - 1] == ']' && !arg &&
		    optind < argc && argv[optind][0] != '-')
			arg = argv[optind++];
		if (apply(o, d, arg, err, errlen) < 0)
			return -1;
	}
	if (optind < argc && optind > 0 && strcmp(argv[optind - 1], "--") == 0) {
		/* pmutop [OPTIONS] -- CMD [ARGS]: counted from its exec, as perf stat -- CMD */
		o->command = argv + optind;
		o->ncommand = argc - optind;
	} else if (optind < argc) {
		snprintf(err, errlen,
			 "unexpected argument \"%s\" (see --help; a command to count goes after "
			 "--: pmutop -- CMD ARGS)",
			 argv[optind]);
		return -1;
	}
	if (o->command && (o->pids || o->tids || o->user || o->cgroups || o->each_cgroup)) {
		snprintf(err, errlen,
			 "-- CMD counts the command: it cannot be combined with -p, -t, "
			 "-u or -G");
		return -1;
	}
	if ((o->pids || o->tids || o->user) && (o->cgroups || o->each_cgroup)) {
		snprintf(err, errlen,
			 "tasks (-p, -t, -u) and cgroups (-G, --for-each-cgroup) are "
			 "counted in separate runs");
		return -1;
	}
	if (o->replay && o->record && strcmp(o->replay, o->record) == 0) {
		snprintf(err, errlen, "-r and -R name the same file \"%s\"", o->record);
		return -1;
	}
	if (o->replay && o->remote) {
		snprintf(err, errlen, "-R and --remote cannot be combined");
		return -1;
	}
	if (o->refresh_ms) /* --refresh wins over -i */
		o->interval_ms = o->refresh_ms;
	if (o->remote && o->sample_ms && o->sample_ms < o->interval_ms &&
	    o->sample_ms < DURATION_REFRESH_MIN_MS) {
		snprintf(err, errlen, "--sample below %d ms: %s", DURATION_REFRESH_MIN_MS,
			 DURATION_REMOTE_SAMPLE_WHY);
		return -1;
	}
	if (o->sample_ms && o->sample_ms > o->interval_ms) {
		snprintf(err, errlen, "--sample %ld ms is longer than the %s %ld ms", o->sample_ms,
			 o->refresh_ms ? "refresh cadence" : "interval", o->interval_ms);
		return -1;
	}
	return 0;
}

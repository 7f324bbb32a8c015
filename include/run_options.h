/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run_options.h: struct options, what the command line and the rc file ask of a run: the option
 * table (options.h) fills it, the engine and its plug-ins read it. */
#ifndef PMUTOP_RUN_OPTIONS_H
#define PMUTOP_RUN_OPTIONS_H
#include "source.h"
#include <stdbool.h>
#include <stdint.h>

#define OPTIONS_MAX_LIST 16

struct options {
	bool batch;
	long iterations;  /* -n, 0 = forever */
	long interval_ms; /* -i */
	const char *mode; /* -m, NULL = default for the machine */
	const char *cpus; /* -C list, NULL = all online */
	int format;	  /* -f: a row of the output format table (output_format_name), 0 = text */
	const char *backend;	/* perf, sim */
	const char *sim_family; /* family whose events the sim backend pretends to count */
	struct sim_opts sim;
	const char *sysfs_root;
	bool list_events;
	const char *list_pattern;
	const char *explain;
	bool list_modes;
	const char *perf_events; /* --perf-events DIR: perf's pmu-events JSON */
	const char *perf_metric; /* -M GROUP|METRIC: the mode perf:GROUP */
	const char *mode_files[OPTIONS_MAX_LIST];
	int nmode_files;
	/* --likwid-groups DIR: likwid performance groups as modes likwid:GROUP */
	const char *likwid_groups;
	const char *events;   /* -e: an ad hoc event list */
	const char *record;   /* -r FILE */
	const char *replay;   /* -R FILE */
	uint64_t record_max;  /* --record-max bytes, 0 = no limit */
	unsigned record_keep; /* --record-keep rotated files */
	double speed;	      /* --speed: replay speed 0.5 .. 16 */
	const char *agent; /* --agent: the agent command on the remote host; NULL = the default */
	const char *theme;
	const char *commands[OPTIONS_MAX_LIST]; /* -c */
	int ncommands;
	bool no_rc;
	const char *remote;
	const char *transport;
	int reconnect; /* --reconnect: attempts after a lost link, or one of these: */
#define OPTIONS_RECONNECT_FOREVER (-1)
#define OPTIONS_RECONNECT_DEFAULT (-2) /* 5 in batch mode, forever on the screen */
	long sample_ms;		       /* --sample, 0 = same as interval */
	int pin_cpu;		       /* --pin, -1 none */
	long refresh_ms; /* --refresh, 0 = not given (then -i is the refresh cadence) */
	const char *alerts[OPTIONS_MAX_LIST]; /* --alert RULE */
	int nalerts;
	double flight_s;	 /* --flight SECONDS of samples kept in RAM, 0 = off */
	const char *flight_out;	 /* --flight-out PREFIX of flight recordings */
	bool attrib;		 /* --attrib: attribution columns */
	bool list_themes;	 /* --list-themes */
	bool list_owners;	 /* --list-owners: the PMU ownership map, then exit */
	const char *owners_from; /* --owners-from FILE: the map from a dump (fixture) */
	const char *listen;	 /* --listen [ADDR:]PORT: the OpenMetrics endpoint */
	const char *output;	 /* -o FILE: batch records go there instead of stdout */
	bool error;		 /* --error: error bars (each value's 95 % interval) */
	const char *baseline;	 /* --baseline FILE: the recording each cell is compared with */
	const char *rows;	 /* --rows UNIT, --per-core, ...: a unit name (rows.h), NULL */
	const char *help_roff;	 /* --help-roff TEMPLATE: write the manual page */
	bool force;		 /* --force: -r, :record and :export FILE may be symbolic links */
	const char *completion;	 /* --completion SHELL: write the completion script */
	const char *pids;	 /* -p PID[,PID...]: processes (all their threads) */
	const char *tids;	 /* -t TID[,TID...]: threads */
	const char *user;	 /* -u USER: the processes of a user (name or uid) */
	const char *cgroups;	 /* -G CGROUP[,...]: cgroup v2 paths under /sys/fs/cgroup */
	const char *each_cgroup; /* --for-each-cgroup PATTERN (a regular expression) */
	char **command;		 /* after --: the command counted from its exec, NULL none */
	int ncommand;
	bool help, version;
	bool realtime;	 /* --realtime: SCHED_FIFO priority 1 (loop_realtime) */
	int sample_path; /* --sample-path: enum perfring_path (0 auto) */
	long sample_us;	 /* --sample below 1 ms (50..999 us; sample_ms is then 1), 0 none */
	int tasks_top;	 /* --tasks-top N: batch counts the busiest N tasks, 0 none */
};

#endif

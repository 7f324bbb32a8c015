/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.h: the command-line option table, its parser and the values it fills. */
#ifndef PMUTOP_OPTIONS_H
#define PMUTOP_OPTIONS_H
#include "output.h"
#include "source.h"
#include <stdbool.h>
#include <stdio.h>

#define OPTIONS_MAX_LIST 16

struct options {
	bool batch;
	long iterations;  /* -n, 0 = forever */
	long interval_ms; /* -i */
	const char *mode; /* -m, NULL = default for the machine */
	const char *cpus; /* -C list, NULL = all online */
	enum output_format format;
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
	long sample_ms;	 /* --sample, 0 = same as interval */
	int pin_cpu;	 /* --pin, -1 none */
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
	const char *help_roff;	 /* --help-roff TEMPLATE: write the manual page */
	bool force;		 /* --force: -r, :record and :export FILE may be symbolic links */
	bool help, version;
};

/* The two programs built from the same table: pmutop, and the board agent without the
 * screen (its --help, man page and parser leave the screen's options out). */
enum options_program { OPTIONS_PMUTOP, OPTIONS_AGENT };

/* Fills @o from argv. Returns 0, or -1 with a message in @err (exit status 2). */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);
int options_parse_program(struct options *o, enum options_program prog, int argc, char **argv,
			  char *err, size_t errlen);
void options_usage(FILE *out, enum options_program prog);
void options_version(FILE *out, enum options_program prog);
/* The option table as man-page (roff) paragraphs. */
void options_roff(FILE *out, enum options_program prog);

#endif

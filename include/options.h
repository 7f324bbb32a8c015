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
	double flight_s;	/* --flight SECONDS of samples kept in RAM, 0 = off */
	const char *flight_out; /* --flight-out PREFIX of flight recordings */
	bool attrib;		/* --attrib: attribution columns */
	bool list_themes;	/* --list-themes */
	const char *listen;	/* --listen [ADDR:]PORT: the OpenMetrics endpoint */
	const char *output;	/* -o FILE: batch records go there instead of stdout */
	const char *rows;	/* --rows UNIT, --per-core, ...: a unit name (rows.h), NULL */
	const char *help_roff;	/* --help-roff TEMPLATE: write the manual page */
	bool force;		/* --force: -r, :record and :export FILE may be symbolic links */
	const char *completion; /* --completion SHELL: write the completion script */
	/* what is counted (target.h): -p, -t, -u, -G, --for-each-cgroup, -- CMD [ARGS] */
	const char *pids;	 /* -p PID[,PID...]: processes (all their threads) */
	const char *tids;	 /* -t TID[,TID...]: threads */
	const char *user;	 /* -u USER: the processes of a user (name or uid) */
	const char *cgroups;	 /* -G CGROUP[,...]: cgroup v2 paths under /sys/fs/cgroup */
	const char *each_cgroup; /* --for-each-cgroup PATTERN (a regular expression) */
	char **command;		 /* after --: the command counted from its exec, NULL none */
	int ncommand;
	bool help, version;
};

/* The two programs built from the same table: pmutop, and the board agent without the
 * screen (its --help, man page and parser leave the screen's options out). */
enum options_program { OPTIONS_PMUTOP, OPTIONS_AGENT };

struct command_ctx;
typedef int (*option_set_fn)(const struct command_ctx *ctx, const char *value, char *err,
			     size_t errlen);
typedef void (*option_show_fn)(const struct command_ctx *ctx, char *buf, size_t len);

/* Flags of an option row. */
#define OPTION_CLI 0x1u	   /* a command-line option (getopt, --help, man page, completion) */
#define OPTION_SCREEN 0x2u /* the screen's: not in the agent; :set refused in batch mode */
#define OPTION_SET 0x4u	   /* a setting: :set NAME VALUE, :show, the rc file, :help */

/* How a command-line argument lands in struct options (the row's field). */
enum option_apply { APPLY_FN, APPLY_FLAG, APPLY_STR, APPLY_LIST };

/* One option: its row in the table (src/options.c) is all there is to it. */
struct option_def {
	const char *name; /* --NAME, and :set NAME */
	int id;		  /* the short letter; 0: long only */
	const char *arg;  /* NULL: no argument; "[X]": optional */
	const char *help; /* --help and the man page (and :help unless set_help) */
	unsigned flags;	  /* OPTION_* */
	enum option_apply kind;
	size_t off, count_off; /* the field in struct options (LIST: and its count) */
	/* checks (and for APPLY_FN stores) the argument: -1 with a cause in @err */
	int (*fn)(struct options *o, const char *arg, char *err, size_t errlen);
	/* bash completion of the argument: "@modes", "@groups", "@themes", "@events",
	 * "@formats", "@backends", "@files", "@dirs", "@hosts", or literal words ("on off");
	 * in help, "@formats" and "@backends" are spelled out from their tables */
	const char *complete;
	option_set_fn set; /* OPTION_SET of the core; the screen binds its own */
	option_show_fn show;
	const char *set_help; /* :help and the man page's settings; NULL: help */
};

/* The core's settings (src/cmd/cmd-set.c), named by their rows. */
int setting_interval_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_interval_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_mode_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_mode_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_cpus_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_cpus_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_attrib_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_attrib_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_stat_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_stat_show(const struct command_ctx *ctx, char *b, size_t l);
int setting_self_set(const struct command_ctx *ctx, const char *v, char *err, size_t errlen);
void setting_self_show(const struct command_ctx *ctx, char *b, size_t l);

/* The @i-th row of the table; NULL past the end. */
const struct option_def *options_at(size_t i);
/* A setting's handlers: the row's, or those the screen bound; NULL without a screen. */
option_set_fn options_setter(const struct option_def *d);
option_show_fn options_shower(const struct option_def *d);
/* The screen gives its settings (OPTION_SCREEN | OPTION_SET rows) their handlers; -1 when
 * no such row is named @name. */
int options_bind_screen(const char *name, option_set_fn set, option_show_fn show);
/* --completion SHELL: the completion script of @prog's options; -1 with a cause. */
int options_completion(FILE *out, const char *shell, enum options_program prog, char *err,
		       size_t errlen);

/* Fills @o from argv. Returns 0, or -1 with a message in @err (exit status 2). */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);
int options_parse_program(struct options *o, enum options_program prog, int argc, char **argv,
			  char *err, size_t errlen);
void options_usage(FILE *out, enum options_program prog);
void options_version(FILE *out, enum options_program prog);
/* The option table as man-page (roff) paragraphs. */
void options_roff(FILE *out, enum options_program prog);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.c: one table of command-line options; getopt_long and --help are generated from it. */
#include "options.h"
#include "alert.h"
#include "duration.h"
#include "endpoint.h"
#include "manpage.h"
#include "recorder.h"
#include "textutil.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum option_id {
	OPT_BATCH = 'b',
	OPT_ITER = 'n',
	OPT_INTERVAL = 'i',
	OPT_MODE = 'm',
	OPT_CPUS = 'C',
	OPT_FORMAT = 'f',
	OPT_EVENTS = 'e',
	OPT_RECORD = 'r',
	OPT_REPLAY = 'R',
	OPT_COMMAND = 'c',
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_BACKEND = 256,
	OPT_SIM_CPUS,
	OPT_SEED,
	OPT_SIM_WIDTH,
	OPT_SIM_MUX,
	OPT_SIM_FAIL,
	OPT_SIM_OFFLINE,
	OPT_SIM_SPIKE,
	OPT_SIM_FAMILY,
	OPT_SYSFS_ROOT,
	OPT_LIST_EVENTS,
	OPT_EXPLAIN,
	OPT_LIST_MODES,
	OPT_MODE_FILE,
	OPT_LIKWID_GROUPS,
	OPT_THEME,
	OPT_NO_RC,
	OPT_REMOTE,
	OPT_TRANSPORT,
	OPT_SAMPLE,
	OPT_PIN,
	OPT_RECORD_MAX,
	OPT_RECORD_KEEP,
	OPT_SPEED,
	OPT_AGENT,
	OPT_REFRESH,
	OPT_ALERT,
	OPT_FLIGHT,
	OPT_FLIGHT_OUT,
	OPT_ATTRIB,
	OPT_LIST_THEMES,
	OPT_HELP_ROFF,
	OPT_LISTEN,
	OPT_PERF_EVENTS,
	OPT_LIST_OWNERS,
	OPT_OWNERS_FROM,
	OPT_PERF_METRIC = 'M',
	OPT_DELAY = 'd',
	OPT_OUTPUT = 'o',
	OPT_FORCE,
};

struct option_def {
	const char *name;
	int id;
	const char *arg; /* NULL: no argument; "[X]": optional */
	const char *help;
};

static const struct option_def option_table[] = {
    {"batch", OPT_BATCH, NULL, "batch mode: print one record per tick, no screen"},
    {"iterations", OPT_ITER, "N", "stop after N ticks (also ends the screen; for smoke tests)"},
    {"interval", OPT_INTERVAL, "DURATION",
     "refresh interval: 500 (ms), 500ms, 2.5s, 1m (10ms to 1h; default 1s)"},
    {"delay", OPT_DELAY, "SECONDS", "refresh interval in seconds, as in top (0.5, 2)"},
    {"mode", OPT_MODE, "MODE", "event mode (see --list-modes); default cpi, or sw without a PMU"},
    {"cpus", OPT_CPUS, "LIST", "CPUs to monitor, e.g. 0-3,8 (default: all online)"},
    {"output", OPT_OUTPUT, "FILE", "batch mode: write the records to FILE instead of stdout"},
    {"format", OPT_FORMAT, "FMT",
     "batch format: text, csv, json (one object per line) or openmetrics"},
    {"events", OPT_EVENTS, "LIST",
     "count an ad hoc event list in perf's syntax (cycles,cpu/event=0x3c/,{a,b}:u,n=r3c) instead "
     "of a mode"},
    {"backend", OPT_BACKEND, "NAME", "counter backend: perf (default) or sim"},
    {"sim-cpus", OPT_SIM_CPUS, "N", "sim: number of simulated CPUs (default 4)"},
    {"seed", OPT_SEED, "S", "sim: random seed (default 1)"},
    {"sim-width", OPT_SIM_WIDTH, "BITS",
     "sim: counter width, 32 wraps as on ARMv7/XScale (default 64)"},
    {"sim-mux", OPT_SIM_MUX, "FRACTION",
     "sim: force multiplexing, each event counts this fraction"},
    {"sim-fail-event", OPT_SIM_FAIL, "INDEX", "sim: the event at INDEX never opens"},
    {"sim-offline", OPT_SIM_OFFLINE, "CPU:FROM-TO", "sim: CPU goes offline for ticks FROM..TO"},
    {"sim-spike", OPT_SIM_SPIKE, "CPU:EVERY[:FACTOR]", "sim: inject spikes on CPU every N ticks"},
    {"sim-family", OPT_SIM_FAMILY, "FAMILY",
     "sim: PMU family whose events are simulated (default generic)"},
    {"sysfs-root", OPT_SYSFS_ROOT, "DIR",
     "read sysfs/procfs under DIR (a tree standing for another machine)"},
    {"list-events", OPT_LIST_EVENTS, "[PATTERN]", "list the events libpfm4 knows for this machine"},
    {"explain", OPT_EXPLAIN, "MODE|EVENTS",
     "show each event's encoding (per core type on big.LITTLE) and whether it opens, then exit"},
    {"list-modes", OPT_LIST_MODES, NULL,
     "list modes: available here (or the event the core lacks), counters needed/there, "
     "multiplexing, counter width, where each mode came from"},
    {"mode-file", OPT_MODE_FILE, "FILE", "load extra modes from FILE (repeatable)"},
    {"perf-events", OPT_PERF_EVENTS, "DIR",
     "perf's pmu-events JSON (tools/perf/pmu-events/arch): this CPU's metric groups become "
     "modes perf:GROUP"},
    {"metrics", OPT_PERF_METRIC, "GROUP",
     "as perf stat -M: run the perf:GROUP mode (a metric group or one metric) of --perf-events"},
    {"likwid-groups", OPT_LIKWID_GROUPS, "DIR",
     "likwid performance groups as modes likwid:GROUP, from DIR/<arch>/*.txt (arch of this "
     "machine, e.g. /usr/share/likwid/perfgroups) or DIR/*.txt"},
    {"record", OPT_RECORD, "FILE", "write a recording (JSON Lines); - writes to stdout"},
    {"record-max", OPT_RECORD_MAX, "SIZE",
     "rotate the recording when it would pass SIZE (e.g. 64M)"},
    {"record-keep", OPT_RECORD_KEEP, "N", "rotated recordings kept: FILE.1 .. FILE.N (default 1)"},
    {"force", OPT_FORCE, NULL,
     "write -r, :record and :export FILE even when it is a symbolic link (refused otherwise)"},
    {"replay", OPT_REPLAY, "FILE",
     "replay a recording or perf stat CSV/JSON output; - (stdin) or a FIFO is followed live"},
    {"speed", OPT_SPEED, "X", "replay speed 0.5 to 16 (default 1; batch replays run flat out)"},
    {"theme", OPT_THEME, "NAME", "colour theme (default, mono, light, high-contrast)"},
    {"command", OPT_COMMAND, "CMD", "run a : command at start-up (repeatable)"},
    {"no-rc", OPT_NO_RC, NULL, "do not read /etc/pmutoprc or ~/.config/pmutop/pmutoprc"},
    {"remote", OPT_REMOTE, "USER@HOST",
     "monitor a remote board (USER@ optional; no leading '-') through its pmutop agent"},
    {"transport", OPT_TRANSPORT, "CMD",
     "reaches the host as CMD -- HOST WORDS... (default \"ssh -T\"; WORDS shell-quoted)"},
    {"agent", OPT_AGENT, "CMD",
     "the agent command on the remote host (default pmutop-agent, else pmutop)"},
    {"sample", OPT_SAMPLE, "DURATION", "fine sampling cadence for jitter statistics (1ms and up)"},
    {"pin", OPT_PIN, "CPU", "pin pmutop itself to CPU"},
    {"refresh", OPT_REFRESH, "DURATION", "redraw/output cadence (same as -i)"},
    {"alert", OPT_ALERT, "RULE",
     "spike rule, e.g. \"cpi > 2.5 on 2-3\" or \"mad ipc 6\" (repeatable)"},
    {"flight", OPT_FLIGHT, "SECONDS",
     "flight recorder: keep SECONDS of samples in RAM (default 30, 0 off)"},
    {"flight-out", OPT_FLIGHT_OUT, "PREFIX",
     "flight recordings go to PREFIX-N.jsonl (default pmutop-flight)"},
    {"attrib", OPT_ATTRIB, NULL,
     "attribution columns: switches, migrations, irqs, SMIs, MHz, busiest task"},
    {"listen", OPT_LISTEN, "PORT|ADDR:PORT",
     "serve OpenMetrics at http://ADDR:PORT/metrics (address default 127.0.0.1)"},
    {"list-themes", OPT_LIST_THEMES, NULL, "list the colour themes (built-in and installed)"},
    {"list-owners", OPT_LIST_OWNERS, NULL,
     "list who holds or competes for the PMUs per CPU (other perf users, the NMI watchdog, KVM "
     "guests), from a BPF iterator or /proc; -f json for JSON; opens no counter"},
    {"owners-from", OPT_OWNERS_FROM, "FILE",
     "read the ownership map from FILE (a --list-owners -f json dump) instead of this machine"},
    {"help-roff", OPT_HELP_ROFF, "TEMPLATE",
     "write the manual page: TEMPLATE with these option, command and key tables filled in"},
    {"help", OPT_HELP, NULL, "show this help"},
    {"version", OPT_VERSION, NULL, "show the version and the licence"},
};
#define NOPTIONS (sizeof(option_table) / sizeof(option_table[0]))

/* Options of the screen and of the remote viewer: the board agent has neither. */
static const int screen_only_options[] = {OPT_THEME, OPT_REMOTE, OPT_TRANSPORT, OPT_AGENT,
					  OPT_LIST_THEMES};

static bool in_program(const struct option_def *d, enum options_program prog)
{
	if (prog != OPTIONS_AGENT)
		return true;
	for (size_t i = 0; i < sizeof(screen_only_options) / sizeof(screen_only_options[0]); i++)
		if (screen_only_options[i] == d->id)
			return false;
	return true;
}

/* Is the argument "--NAME[=...]" one of the screen's options? */
static bool screen_only(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return false;
	size_t len = strcspn(arg + 2, "=");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!in_program(d, OPTIONS_AGENT) && strlen(d->name) == len &&
		    strncmp(d->name, arg + 2, len) == 0)
			return true;
	}
	return false;
}

static void option_left(const struct option_def *d, char *buf, size_t len)
{
	if (d->id < 256)
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
		    "       pmutop -b -n N [options]    batch output\n"
		    "       pmutop probe cache [...]    measure cache sizes, line size and TLB "
		    "reach\n\n"
		    "options:\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		char left[64];
		if (!in_program(d, prog))
			continue;
		option_left(d, left, sizeof(left));
		text_fprintf(out, "  %-34s %s\n", left, d->help);
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
		if (!in_program(d, prog))
			continue;
		/* .BR alternates bold and roman: "-b" ", " "--batch" " MODE" */
		fputs(".TP\n.BR ", out);
		if (d->id < 256)
			text_fprintf(out, "\\-%c \", \" ", d->id);
		fputs("\\-\\-", out);
		manpage_text(out, d->name);
		if (d->arg) {
			fputs(" \" \\fI", out);
			manpage_text(out, d->arg);
			fputs("\\fR\"", out);
		}
		fputc('\n', out);
		manpage_text(out, d->help);
		fputc('\n', out);
	}
}

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
	if (duration_parse_ms(text, bare_unit_ms, &ms) < 0 || ms < 10 || ms > 3600000) {
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

static int parse_sim_offline(struct options *o, const char *arg, char *err, size_t errlen)
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

static int parse_sim_spike(struct options *o, const char *arg, char *err, size_t errlen)
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

static int apply(struct options *o, int id, const char *arg, char *err, size_t errlen)
{
	long v;
	double d;
	switch (id) {
	case OPT_BATCH:
		o->batch = true;
		return 0;
	case OPT_ITER:
		return parse_long(arg, 1, LONG_MAX, "-n", &o->iterations, err, errlen);
	case OPT_INTERVAL:
		return parse_duration(arg, 1, "-i", &o->interval_ms, err, errlen);
	case OPT_DELAY:
		return parse_duration(arg, 1000, "-d", &o->interval_ms, err, errlen);
	case OPT_MODE:
		o->mode = arg;
		return 0;
	case OPT_CPUS:
		o->cpus = arg;
		return 0;
	case OPT_FORMAT: {
		int f = output_format_parse(arg);
		if (f < 0) {
			snprintf(err, errlen,
				 "-f: unknown format \"%s\" (text, csv, json, openmetrics)", arg);
			return -1;
		}
		o->format = (enum output_format)f;
		return 0;
	}
	case OPT_EVENTS:
		o->events = arg;
		return 0;
	case OPT_BACKEND:
		if (strcmp(arg, "perf") != 0 && strcmp(arg, "sim") != 0) {
			snprintf(err, errlen, "--backend: unknown backend \"%s\" (perf, sim)", arg);
			return -1;
		}
		o->backend = arg;
		return 0;
	case OPT_SIM_CPUS:
		if (parse_long(arg, 1, 4096, "--sim-cpus", &v, err, errlen) < 0)
			return -1;
		o->sim.ncpus = (int)v;
		return 0;
	case OPT_SEED:
		if (parse_long(arg, 0, LONG_MAX, "--seed", &v, err, errlen) < 0)
			return -1;
		o->sim.seed = (uint64_t)v;
		return 0;
	case OPT_SIM_WIDTH:
		if (parse_long(arg, 16, 64, "--sim-width", &v, err, errlen) < 0)
			return -1;
		o->sim.counter_bits = (unsigned)v;
		return 0;
	case OPT_SIM_MUX:
		if (parse_double(arg, 0.01, 1.0, "--sim-mux", &d, err, errlen) < 0)
			return -1;
		o->sim.mux_fraction = d;
		return 0;
	case OPT_SIM_FAIL:
		if (parse_long(arg, 0, 1000, "--sim-fail-event", &v, err, errlen) < 0)
			return -1;
		o->sim.fail_event = (int)v;
		return 0;
	case OPT_SIM_OFFLINE:
		return parse_sim_offline(o, arg, err, errlen);
	case OPT_SIM_SPIKE:
		return parse_sim_spike(o, arg, err, errlen);
	case OPT_SIM_FAMILY:
		o->sim_family = arg;
		return 0;
	case OPT_SYSFS_ROOT:
		o->sysfs_root = arg;
		return 0;
	case OPT_LIST_EVENTS:
		o->list_events = true;
		o->list_pattern = arg;
		return 0;
	case OPT_EXPLAIN:
		o->explain = arg;
		return 0;
	case OPT_LIST_MODES:
		o->list_modes = true;
		return 0;
	case OPT_PERF_EVENTS:
		o->perf_events = arg;
		return 0;
	case OPT_PERF_METRIC:
		o->perf_metric = arg;
		return 0;
	case OPT_MODE_FILE:
		if (o->nmode_files >= OPTIONS_MAX_LIST) {
			snprintf(err, errlen, "--mode-file: at most %d files", OPTIONS_MAX_LIST);
			return -1;
		}
		o->mode_files[o->nmode_files++] = arg;
		return 0;
	case OPT_LIKWID_GROUPS:
		o->likwid_groups = arg;
		return 0;
	case OPT_RECORD:
		o->record = arg;
		return 0;
	case OPT_REPLAY:
		o->replay = arg;
		return 0;
	case OPT_RECORD_MAX:
		if (recorder_parse_size(arg, &o->record_max) < 0 || o->record_max < 4096) {
			snprintf(err, errlen,
				 "--record-max: \"%s\" is not a size of 4k or more (e.g. 64M)",
				 arg);
			return -1;
		}
		return 0;
	case OPT_RECORD_KEEP:
		if (parse_long(arg, 1, 1000, "--record-keep", &v, err, errlen) < 0)
			return -1;
		o->record_keep = (unsigned)v;
		return 0;
	case OPT_SPEED:
		return parse_double(arg, 0.5, 16, "--speed", &o->speed, err, errlen);
	case OPT_AGENT:
		o->agent = arg;
		return 0;
	case OPT_THEME:
		o->theme = arg;
		return 0;
	case OPT_COMMAND:
		if (o->ncommands >= OPTIONS_MAX_LIST) {
			snprintf(err, errlen, "-c: at most %d commands", OPTIONS_MAX_LIST);
			return -1;
		}
		o->commands[o->ncommands++] = arg;
		return 0;
	case OPT_NO_RC:
		o->no_rc = true;
		return 0;
	case OPT_REMOTE:
		o->remote = arg;
		return 0;
	case OPT_TRANSPORT:
		o->transport = arg;
		return 0;
	case OPT_SAMPLE:
		if (duration_parse_ms(arg, 1, &o->sample_ms) < 0 || o->sample_ms < 1 ||
		    o->sample_ms > 3600000) {
			snprintf(err, errlen,
				 "--sample: \"%s\" is not a duration from 1ms to 1h (e.g. 5, 5ms, "
				 "0.5s)",
				 arg);
			return -1;
		}
		return 0;
	case OPT_PIN:
		if (parse_long(arg, 0, 4095, "--pin", &v, err, errlen) < 0)
			return -1;
		o->pin_cpu = (int)v;
		return 0;
	case OPT_REFRESH:
		if (parse_duration(arg, 1, "--refresh", &o->refresh_ms, err, errlen) < 0)
			return -1;
		o->interval_ms = o->refresh_ms;
		return 0;
	case OPT_ALERT: {
		struct alert_rule rule;
		char why[160];
		if (o->nalerts >= OPTIONS_MAX_LIST) {
			snprintf(err, errlen, "--alert: at most %d rules", OPTIONS_MAX_LIST);
			return -1;
		}
		if (alert_rule_parse(arg, &rule, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--alert \"%s\": %s", arg, why);
			return -1;
		}
		o->alerts[o->nalerts++] = arg;
		return 0;
	}
	case OPT_FLIGHT:
		return parse_double(arg, 0, 3600, "--flight (s)", &o->flight_s, err, errlen);
	case OPT_FLIGHT_OUT:
		o->flight_out = arg;
		return 0;
	case OPT_FORCE:
		o->force = true;
		return 0;
	case OPT_ATTRIB:
		o->attrib = true;
		return 0;
	case OPT_OUTPUT:
		o->output = arg;
		return 0;
	case OPT_LISTEN: {
		char host[64], port[8];
		if (endpoint_parse(arg, host, sizeof(host), port, sizeof(port), err, errlen) < 0)
			return -1;
		o->listen = arg;
		return 0;
	}
	case OPT_LIST_THEMES:
		o->list_themes = true;
		return 0;
	case OPT_LIST_OWNERS:
		o->list_owners = true;
		return 0;
	case OPT_OWNERS_FROM:
		o->owners_from = arg;
		return 0;
	case OPT_HELP_ROFF:
		o->help_roff = arg;
		return 0;
	case OPT_HELP:
		o->help = true;
		return 0;
	case OPT_VERSION:
		o->version = true;
		return 0;
	}
	snprintf(err, errlen, "internal: unhandled option %d", id);
	return -1;
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
	o->format = OUTPUT_TEXT;
	o->backend = "perf";
	o->sysfs_root = "/";
	o->transport = "ssh -T";
	o->pin_cpu = -1;
	o->speed = 1;
	o->agent = NULL; /* pmutop-agent where the board has it, else pmutop */
	o->flight_s = 30;
	o->flight_out = "pmutop-flight";
	sim_opts_default(&o->sim);

	struct option longopts[NOPTIONS + 1];
	char shortopts[3 * NOPTIONS + 2];
	size_t sp = 0;
	shortopts[sp++] = ':'; /* report missing arguments distinctly */
	size_t nlong = 0;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_table[i];
		if (!in_program(d, prog))
			continue;
		int has = !d->arg	     ? no_argument
			  : d->arg[0] == '[' ? optional_argument
					     : required_argument;
		longopts[nlong++] = (struct option){d->name, has, NULL, d->id};
		if (d->id < 256) {
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
		const char *arg = optarg;
		/* "--list-events PATTERN" as well as "--list-events=PATTERN" */
		if (c == OPT_LIST_EVENTS && !arg && optind < argc && argv[optind][0] != '-')
			arg = argv[optind++];
		if (apply(o, c, arg, err, errlen) < 0)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument \"%s\" (see --help)", argv[optind]);
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
	if (o->sample_ms && o->sample_ms > o->interval_ms) {
		snprintf(err, errlen, "--sample %ld ms is longer than the %s %ld ms", o->sample_ms,
			 o->refresh_ms ? "refresh cadence" : "interval", o->interval_ms);
		return -1;
	}
	return 0;
}

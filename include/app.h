/* SPDX-License-Identifier: GPL-2.0-or-later */
/* app.h: the engine of one pmutop run: its source, session, cadence, observers and frames. */
#ifndef PMUTOP_APP_H
#define PMUTOP_APP_H
#include "encode.h"
#include "frame.h"
#include "loop.h"
#include "observer.h"
#include "platform.h"
#include "rows.h"
#include "run_options.h"
#include "session.h"
#include "target.h"
#include <stdarg.h>
#include <stdbool.h>

#define APP_MAX_MESSAGES 256
#define APP_MAX_ROWS 4096

struct app_message {
	double time_s;
	enum message_level level;
	char text[256];
};

struct mode_registry;
struct app_ctx;
struct replay;

/*
 * One run. Who owns what (docs/architecture.md):
 * - the source (where ticks come from) and the machine it describes: set by app_init;
 * - the running mode: app->mode, a value copy; the session holds the compiled copy it runs;
 * - the cadence (interval, sample, replay rate): only app_set_interval, app_set_sample and
 *   app_set_speed write it, and only they reprogram the loop's timer;
 * - the CPU set: app_set_cpus;
 * - the frame: app_frame_build, once per refresh; every output reads it;
 * - the display pause: app_set_paused; the end of the run: app_quit.
 * Plug-ins (recorder, jitter, OpenMetrics, endpoint, remote, agent, screen) are observers
 * (observer.h) with their own state: the engine has no slot for any of them.
 */
struct mode;
struct mode_avail;
struct pmuev_lib;

struct app_ctx {
	struct options opt;		 /* as given on the command line: initial values only */
	struct platform pf;		 /* the machine pmutop runs on */
	struct source source;		 /* where ticks come from */
	struct source_machine machine;	 /* the machine the numbers come from */
	const struct pmu_family *family; /* family used to resolve modes (the source's) */
	struct mode_registry *modes;
	struct pmuev_lib *perfev; /* the perf pmu-events library loaded (--perf-events), or NULL */
	struct session *session;
	struct session_mode mode; /* the mode running now */
	char mode_name[SESSION_MODE_NAME];
	int ncpus;
	int *cpus;		   /* [APP_MAX_ROWS]: CPU number per row */
	int *core_type;		   /* [APP_MAX_ROWS]: core PMU type per row, 0 = none */
	struct cpuset cpus_chosen; /* the CPUs asked for; a mode of one core type (mode.pmu)
				    * counts on those of its PMU (app->cpus) */
	struct loop loop;
	bool loop_ready;
	bool display_paused; /* the screen shows the last frame; counting goes on */
	bool quit;
	/* Set by the screen before app_init: called every 200 ms while a streamed recording
	 * (-R - or a FIFO) has not started, with what is awaited; returns true to give up (the
	 * user pressed q). NULL (batch): the wait is bounded by LR_WAIT_MS. Called once more with
	 * NULL when the wait is over. */
	bool (*stream_wait)(struct app_ctx *app, const char *what);
	/* the cadence: written only through app_set_interval / app_set_sample / app_set_speed */
	long interval_ms;  /* refresh cadence: output and redraw */
	long sample_ms;	   /* loop cadence (--sample, :sample); 0 = the interval */
	long sample_us;	   /* --sample below 1 ms (us, sample_ms 1); 0 = sample_ms */
	double speed;	   /* replay pace, 0.5 .. 16 */
	uint64_t ticks;	   /* snapshots produced */
	uint64_t overruns; /* missed deadlines */
	double last_lateness_ms;
	struct app_message *messages; /* [APP_MAX_MESSAGES] ring, allocated by the first app_log */
	int nmessages, message_head;
	int warnings;		    /* warnings and errors logged */
	char optional_missing[256]; /* the running mode's optional inputs that do not open here,
				     * said in the capability line ("" = none) */
	char status[256];	    /* the message line */
	uint64_t mode_started_tick; /* tick at which the current mode was opened */
	uint64_t mode_changes;	 /* sessions installed so far (a mode, its events, CPUs, cgroups) */
	bool cpus_all;		 /* no CPU list given: rows follow the CPUs that come online */
	uint64_t online_read_ns; /* when the online CPUs were last read (monotonic ns) */
	uint64_t online_stat_key; /* the backend's stat_cpus_key at that read (0: none) */
	bool online_stat_ok;	  /* /proc/stat and the online list are both this machine's */
	int online_fd;		  /* <root>/sys/devices/system/cpu/online kept open, -1 */
	uint64_t start_ns;	  /* monotonic time the run started */
	double
	    start_unix_s; /* wall-clock time of the numbers' time 0 (unix seconds); NAN unknown */
	struct observer *observers[APP_MAX_OBSERVERS]; /* in the order registered */
	int nobservers;
	/* where observers[] point: the registered copies side by side, which every tick reads
	 * (a slot is free while its name is NULL) */
	struct observer observer_slots[APP_MAX_OBSERVERS];
	/* offcore breakdown: the user's selection (bits, response) */
	struct offcore_choice {
		bool set; /* false: every bit */
		int bits[16];
		int nbits;
		char response[32]; /* "" = the model's default */
	} offcore_choice;
	/* a recorded source's instance: the recording (replay.h), read by playback.c */
	struct replay *replay;
	struct rows_choice rows; /* what a row stands for (rows.h): app_set_rows */
	struct target target;	 /* tasks or cgroups counted (target.h); TARGET_CPUS: the CPUs */
	bool exec_pending;	 /* -- CMD waits for its exec until its counters are open */
	struct frame frame;	 /* the last frame built */
	bool frame_wants_self;	 /* the front end reads frame.self: only app_want_self */
	struct frame_store *frame_store; /* what the frame points to */
	uint64_t frames;		 /* frames built */
	uint64_t refresh_seen;		 /* windows (or ticks) already turned into a frame */
};

/* The rows mode @m (NULL: any) counts on, into @cpus[APP_MAX_ROWS]: the CPUs asked for, or of
 * those only the ones of its core PMU for a mode of one core type (mode.pmu); the run's own
 * rows when it counts tasks or cgroups. Returns their number, or -1 with the reason in @err. */
int app_mode_rows(const struct app_ctx *app, const struct mode *m, int *cpus, char *err,
		  size_t errlen);
/* ":offcore [BIT...] [response=NAME]": chooses the bits and switches to the offcore mode. */
int app_set_offcore(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen);
/* --likwid-groups DIR, :likwid-groups DIR: registers likwid's performance groups for the
 * source's family as modes likwid:GROUP (a group file that does not load is a warning). Returns
 * the number loaded, or -1 + @err when DIR has no groups for this family (nothing changes). */
int app_load_likwid(struct app_ctx *app, const char *dir, char *err, size_t errlen);

/* Pauses or resumes the display: frames go on being built for the other readers, the screen
 * holds the one it shows; a recording that can seek holds its place. */
void app_set_paused(struct app_ctx *app, bool paused);
/* The front end reads the frame's cadence line (frame.self): the screen's header, batch text. */
void app_want_self(struct app_ctx *app, bool wanted);

/* app_log, app_quit, app_core_type, app_facts and the observers: observer.h. */
/* Sets up platform, modes, CPUs and the session from the options. Returns 0, or the exit
 * status (1 runtime, 2 usage) with a message in @err, or APP_INIT_QUIT when the user gave up
 * waiting for a streamed recording. */
#define APP_INIT_QUIT 200
int app_init(struct app_ctx *app, char *err, size_t errlen);
/* Switches to mode @name; the old mode keeps running when the new one fails. */
/* Loads perf's pmu-events library from @dir for this machine (model through mapfile.csv under
 * --sysfs-root) and registers its metric groups as perf:GROUP modes, replacing an earlier
 * library. Returns the number of modes, or -1 with the reason (nothing changed). */
int app_load_perf_events(struct app_ctx *app, const char *dir, char *err, size_t errlen);
int app_set_mode(struct app_ctx *app, const char *name, char *err, size_t errlen);
/* How events encode for this run: the sysfs root, family and the first row's core PMU. */
struct encode_ctx app_encode_ctx(const struct app_ctx *app);
/* Whether mode @m runs here: on every core type of the selected CPUs (the family tables,
 * each core PMU's sysfs events/ and counters) when this machine is counted, else on the
 * source's family; all core types must use the same events. Returns 0 or -1 (reason in
 * @a->reason, naming the core type on big.LITTLE). */
int app_mode_availability(const struct app_ctx *app, const struct mode *m, struct mode_avail *a);
/* What the first monitored core PMU says it can count (its events/, counters), for
 * mode_resolve_on; false when the counts do not come from this machine's PMU. */
struct mode_event_support;
bool app_event_support(const struct app_ctx *app, struct mode_event_support *sup);
/* A formula-friendly alias for an event spec: "perf::L1-DCACHE-LOADS" -> "L1_DCACHE_LOADS". */
void app_event_alias(const char *spec, char *alias, size_t len);
/* Adds metric ALIAS_ps of event @e of @m: its rate per second of each CPU (a column). */
void app_add_rate_metric(struct session_mode *m, int e);
/* :add EVENT... / :remove EVENT...: the running mode plus or minus events ("alias=spec" or a
 * spec); an added event gets a rate column (ALIAS_ps, per second per CPU), a removed one takes
 * the metrics that read it. The old mode keeps running when the new one fails. */
int app_edit_events(struct app_ctx *app, bool add, int argc, char **argv, char *err, size_t errlen);
/* Resolves mode @name for this machine (events, generated offcore events, metrics) without
 * opening anything. */
int app_resolve_mode(struct app_ctx *app, const char *name, struct session_mode *out, char *err,
		     size_t errlen);
/* Runs an already resolved mode (ad hoc edits of the running one: add/remove events). */
int app_run_mode(struct app_ctx *app, const struct session_mode *mode, char *err, size_t errlen);
/* Changes the interval (10 ms .. 1 h); a remote source asks its agent. */
int app_set_interval(struct app_ctx *app, long ms, char *err, size_t errlen);
/* The loop's tick in ms: the sample cadence, or the interval without one. */
long app_tick_ms(const struct app_ctx *app);
/* The same in ns: below 1 ms with --sample in us (app_tick_ms rounds it up to 1). */
uint64_t app_tick_ns(const struct app_ctx *app);
/* Ticks a sampling source has ready (its rings drained, without blocking); -1 when the source
 * is read once per tick. */
int app_queued(struct app_ctx *app);
/* Sets the sample cadence (1 ms .. the interval; 0: the interval), or below 1 ms with @us > 0
 * (duration_parse_sample's range; @ms is then ignored). */
int app_set_sample(struct app_ctx *app, long ms, long us, char *err, size_t errlen);
/* Replay pace: "2", "x2", "+", "-" (0.5 .. 16); only sources that can seek have one. */
int app_set_speed(struct app_ctx *app, const char *arg, char *err, size_t errlen);
/* The loop timer's period (ns): the tick, divided by the replay pace. */
uint64_t app_period_ns(const struct app_ctx *app);
/* Restricts the monitored CPUs (NULL: all online ones, and those that come online later). */
int app_set_cpus(struct app_ctx *app, const char *list, char *err, size_t errlen);
/* Counting all CPUs of this machine (no CPU list), reads the online CPUs and adds a row for
 * each one that has none (a CPU offline when pmutop started): the counters are reopened on the
 * new set, rows of CPUs that went offline stay (shown offline). Returns 1 when rows were added,
 * 0 when nothing changed, -1 when the online list cannot be read or the reopen failed (the old
 * set keeps counting). app_tick() calls it once every APP_ONLINE_READ_NS; where the backend
 * reads /proc/stat each tick on this machine (its stat_cpus_key), when the CPUs that have a
 * line there change, and at least once every APP_ONLINE_CHECK_NS. */
#define APP_ONLINE_READ_NS 1000000000ULL
#define APP_ONLINE_CHECK_NS 10000000000ULL
int app_follow_online(struct app_ctx *app, char *err, size_t errlen);
/* One tick: read, compute, record. Returns 1 with a new snapshot, 0 priming, -1 error. */
int app_tick(struct app_ctx *app, char *err, size_t errlen);
/* The next tick from whatever the source is: a recorded source follows its recording (mode
 * switches, marks) first. Same returns as app_tick; 0 also when a recording has no tick left. */
int app_next(struct app_ctx *app, char *err, size_t errlen);
/* Ticks a recorded source can serve now without waiting (-1: a live source, always ready). */
int app_pending(const struct app_ctx *app);
/* True when the last tick closed a refresh window (a frame is due). */
bool app_refresh_due(struct app_ctx *app);
/* Builds app->frame from the last refresh: every output reads it. Returns it, or NULL before
 * the first full tick. */
const struct frame *app_frame_build(struct app_ctx *app);
/* Hands the newest frame (app->frame) to a reader that keeps it: @dst and its storage *@store
 * become the reader's, the reader's old storage (or none) is where the next frame is built; no
 * copy. The observers' live parts (extras, counters) are left out, as in frame_copy. */
void app_frame_take(struct app_ctx *app, struct frame *dst, struct frame_store **store);
/* Builds the frame of the tick a replay was moved to (:tick, :jump): marked stepped, so a paused
 * screen takes it. */
const struct frame *app_frame_step(struct app_ctx *app);
void app_free(struct app_ctx *app);

#endif

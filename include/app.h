/* app.h: the state of one pmutop run shared by batch mode, the screen and the commands. */
#ifndef PMUTOP_APP_H
#define PMUTOP_APP_H
#include "loop.h"
#include "options.h"
#include "platform.h"
#include "session.h"
#include <stdarg.h>
#include <stdbool.h>

#define APP_MAX_MESSAGES 256
#define APP_MAX_ROWS 4096

enum message_level { MSG_INFO, MSG_WARN, MSG_ERROR };

struct app_message {
	double time_s;
	enum message_level level;
	char text[256];
};

struct mode_registry;
struct app_ctx;

/* Observers of the run (recorder, jitter statistics, remote agent): called in order. */
struct app_hook {
	const char *name;
	/* after every snapshot (not for the priming read of a mode) */
	void (*on_snapshot)(struct app_ctx *app, const struct snapshot *snap, void *arg);
	/* after a mode (or CPU set) was opened; the session's backend has the new events */
	void (*on_mode)(struct app_ctx *app, void *arg);
	/* at the end of the run */
	void (*on_close)(struct app_ctx *app, void *arg);
	void *arg;
};
#define APP_MAX_HOOKS 8

/* The command handlers' context (forward-declared as struct app_ctx by the command table). */
struct app_ctx {
	struct options opt;
	struct platform pf;
	const struct pmu_family *family;  /* family used to resolve modes (the sim's or the machine's) */
	struct mode_registry *modes;
	struct session *session;
	struct session_mode mode;          /* the mode running now */
	char mode_name[32];
	int ncpus;
	int cpus[APP_MAX_ROWS];
	int core_type[APP_MAX_ROWS];
	struct loop loop;
	bool loop_ready;
	bool paused;
	bool quit;
	long interval_ms;      /* refresh cadence: output and redraw */
	long sample_ms;        /* loop cadence (--sample, :sample); 0 = the interval */
	void *jitter;          /* jitter statistics, spikes, flight recorder (jitter.h), or NULL */
	uint64_t ticks;        /* snapshots produced */
	uint64_t overruns;     /* missed deadlines */
	double last_lateness_ms;
	struct app_message messages[APP_MAX_MESSAGES];
	int nmessages, message_head; /* ring */
	int warnings;                /* warnings and errors logged */
	char status[256];            /* the message line */
	uint64_t mode_started_tick;  /* tick at which the current mode was opened */
	uint64_t start_ns;           /* monotonic time the run started */
	void *ui;                    /* the screen's state, when there is one */
	void *recorder;              /* the recording writer, when recording */
	char record_path[1024];
	struct app_hook hooks[APP_MAX_HOOKS];
	int nhooks;
	/* offcore breakdown: the user's selection (bits, response) */
	bool offcore_sel_set;
	int offcore_sel_bits[16];
	int offcore_sel_nbits;
	char offcore_response[32];
	/* the request bits of the running offcore mode (NULL in other modes); a mode being
	 * resolved fills the other map, so a switch that fails leaves the running one intact */
	struct offcore_map {
		int nbits;
		char names[16][32]; /* event and share-metric name of each bit */
		bool superset[16];  /* Atom's ANY bit: not part of the shares */
		struct offcore_share_ctx {
			const struct offcore_map *map;
			int bit;
		} ctx[16];
	} offcore_maps[2];
	const struct offcore_map *offcore;
	/* Replay and remote (replay.h, remote.h): the source, the agent link, and a filter of
	 * "mode"/"interval"/"cpus" changes: returns 1 to go on locally, else 0 or -1 (+ @err). */
	void *replay;
	void *remote;
	int (*intercept)(struct app_ctx *app, const char *what, const char *arg, char *err,
			 size_t errlen);
};

/* ":offcore [BIT...] [response=NAME]": chooses the bits and switches to the offcore mode. */
int app_set_offcore(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen);

/* Registers an observer; returns 0, or -1 when the table is full. */
int app_add_hook(struct app_ctx *app, const struct app_hook *hook);
/* Removes the observer named @name. */
void app_remove_hook(struct app_ctx *app, const char *name);

/* Logs a message (also shown on the message line). */
void app_log(struct app_ctx *app, enum message_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sets up platform, modes, CPUs and the session from the options. Returns 0, or the exit
 * status (1 runtime, 2 usage) with a message in @err. */
int app_init(struct app_ctx *app, char *err, size_t errlen);
/* Switches to mode @name; the old mode keeps running when the new one fails. */
int app_set_mode(struct app_ctx *app, const char *name, char *err, size_t errlen);
/* Checks that @spec encodes for this machine; -1 with the reason and the closest event names
 * ("unknown event ... (did you mean perf::CYCLES)") otherwise. */
int app_check_event(const struct app_ctx *app, const char *spec, char *err, size_t errlen);
/* A formula-friendly alias for an event spec: "perf::L1-DCACHE-LOADS" -> "L1_DCACHE_LOADS". */
void app_event_alias(const char *spec, char *alias, size_t len);
/* Switches to an ad hoc event list ("cycles=perf::CYCLES,r03", names optional). Returns 0, -2
 * when an event name is unknown (bad input), or -1 when the events cannot be counted. */
int app_set_events(struct app_ctx *app, const char *name, const char *list, char *err, size_t errlen);
/* Resolves mode @name for this machine (events, generated offcore events, metrics) without
 * opening anything. */
int app_resolve_mode(struct app_ctx *app, const char *name, struct session_mode *out, char *err,
		     size_t errlen);
/* Runs an already resolved mode (ad hoc edits of the running one: add/remove events). */
int app_run_mode(struct app_ctx *app, const struct session_mode *mode, char *err, size_t errlen);
/* Changes the interval (10 ms .. 1 h). */
int app_set_interval(struct app_ctx *app, long ms, char *err, size_t errlen);
/* The loop's tick in ms: the sample cadence, or the interval without one. */
long app_tick_ms(const struct app_ctx *app);
/* Sets the sample cadence (1 ms .. the interval; 0: the interval). */
int app_set_sample(struct app_ctx *app, long ms, char *err, size_t errlen);
/* Restricts the monitored CPUs. */
int app_set_cpus(struct app_ctx *app, const char *list, char *err, size_t errlen);
/* One tick: read, compute, record. Returns 1 with a new snapshot, 0 priming, -1 error. */
int app_tick(struct app_ctx *app, char *err, size_t errlen);
/* Names of the modes in order (for m/M, completion and :help). */
int app_mode_names(const struct app_ctx *app, const char **names, int max);
void app_free(struct app_ctx *app);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* observer.h: what a plug-in of a run gives the engine: one table of callbacks and its state. */
#ifndef PMUTOP_OBSERVER_H
#define PMUTOP_OBSERVER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app_ctx;
struct frame;
struct frame_store;
struct loop;
struct loop_event;
struct replay;
struct snapshot;

/*
 * An observer of the run: the recorder, the jitter statistics (window sums, spike rules, the
 * flight recorder), OpenMetrics and its endpoint, the remote client, the agent, a replay and the
 * screen each register one (app_observe) and keep their state in it. The engine calls them in
 * the order registered and names none of them; every callback may be NULL.
 */
struct observer {
	const char *name; /* unique: "recorder", "jitter", "openmetrics", ... */
	void *state;	  /* the observer's own */
	/* Serves readers outside the run at its pace (the --listen endpoint): a batch replay is
	 * then read at its pace, not flat out. */
	bool paced;
	/* A plug-in that is the run's source (the remote client): opens it when the engine opens
	 * its source (app_init); *@replay is the live recording it feeds, the source's instance
	 * (set also on failure). Returns 0, or an exit status (1, 2 bad usage) with @err. */
	int (*open_source)(struct observer *o, struct app_ctx *app, struct replay **replay,
			   char *err, size_t errlen);
	/* A source that forwards changes (SOURCE_CAP_FORWARD): sends the control line @line
	 * ("mode cpi", "interval 500") to where the numbers come from. 0, or -1 with @err. */
	int (*forward)(struct observer *o, struct app_ctx *app, const char *line, char *err,
		       size_t errlen);
	/* A mode (or CPU set) was opened; the session's backend has the new events. */
	void (*on_mode)(struct observer *o, struct app_ctx *app);
	/* After every snapshot (not for the priming read of a mode). */
	void (*on_tick)(struct observer *o, struct app_ctx *app, const struct snapshot *snap);
	/* A windowing observer (one per run): the numbers of its last closed window, and in
	 * *@closed how many windows closed so far; NULL before the first. Frames follow its
	 * windows instead of the ticks. */
	const struct snapshot *(*window)(struct observer *o, uint64_t *closed);
	/* The frame being built: copy the observer's contribution into @f (its arrays into
	 * @fs, frame.h: frame_store_cols). */
	void (*fill_frame)(struct observer *o, struct app_ctx *app, struct frame *f,
			   struct frame_store *fs);
	/* A frame was built (every refresh, also while the screen is paused). */
	void (*on_frame)(struct observer *o, struct app_ctx *app, const struct frame *f);
	/* A recorded source passed a mark (a gap of a remote link, a replayed :mark): @text at
	 * the source's time @t_s (s, on its clock), for the readers that keep marks (the
	 * recorder). */
	void (*on_mark)(struct observer *o, struct app_ctx *app, double t_s, const char *text);
	/* The run loop starts: put the observer's descriptors under @loop's watch. Returns 0, or
	 * -1 with a message logged (the run ends with status 1). */
	int (*attach)(struct observer *o, struct app_ctx *app, struct loop *loop);
	/* @fd is readable: 0 when it is not the observer's, 1 when it was read, 2 when it was and
	 * ticks of a streamed source are waiting, 3 when what is counted ended (-- CMD): one last
	 * tick, then the run ends. */
	int (*on_input)(struct observer *o, struct app_ctx *app, int fd);
	/* The loop's timer fired (@ev: its lateness and overruns), before the tick is read. */
	void (*on_timer)(struct observer *o, struct app_ctx *app, const struct loop_event *ev);
	/* The end of the run (or app_unobserve): flush and free the state. */
	void (*close)(struct observer *o, struct app_ctx *app);
};

#define APP_MAX_OBSERVERS 12

/* --- what a plug-in may ask of the engine (it never includes app.h) ------------------------ */

struct options;
struct session;
struct session_mode;
struct source_machine;

/* The run as the engine has it now, read-only: valid until the run changes (a mode, CPU set or
 * interval switch, the end). */
struct run_facts {
	const struct options *opt;	      /* as given on the command line */
	struct session *session;	      /* NULL before the first mode */
	const struct session_mode *mode;      /* the running mode */
	const char *mode_name;		      /* "" before the first mode */
	const struct source_machine *machine; /* the machine the numbers come from */
	const char *family_key;		      /* "skl", ""; unknown */
	const char *source_name;	      /* "perf", "sim", "replay", "remote" */
	unsigned caps;			      /* enum source_cap */
	long interval_ms;
	int ncpus;
	const int *cpus; /* CPU number per row */
	int rows_unit;	 /* what a row stands for: enum row_unit (rows.h) */
	/* a task or cgroup run (target.h): the key each row sums into, its label; NULL else */
	const int *row_key;
	const struct row_key *keys;
	struct loop *loop; /* the run loop, NULL until it runs */
};
void app_facts(const struct app_ctx *app, struct run_facts *f);

enum message_level { MSG_INFO, MSG_WARN, MSG_ERROR };
/* Logs a message (also shown on the message line). */
void app_log(struct app_ctx *app, enum message_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* Ends the run after the current event (:quit, the agent's client went away, -r - in batch
 * when its reader is gone). */
void app_quit(struct app_ctx *app);
/* The core type of @cpu ("cpu_atom", "" if none): the recording's for a recorded source,
 * this machine's sysfs for one that counts it, "" for the sim. */
const char *app_core_type(const struct app_ctx *app, int cpu);

/* A recorded source whose CPUs grew (a remote board's CPU came online): rows for the new ones
 * too, time and seq going on. Returns 1 when rows were added, 0 when none, -1 on failure. */
int app_follow_source_cpus(struct app_ctx *app, char *err, size_t errlen);
/* A fact the frame shows changed without a tick (a remote link went down): the newest tick's
 * frame is built again for the screen (not while it is paused; batch output prints only ticks). */
void app_frame_again(struct app_ctx *app);
/* Registers a copy of @o; returns it, or NULL when the table is full, out of memory or the name
 * is taken. */
struct observer *app_observe(struct app_ctx *app, const struct observer *o);
/* Removes the observer named @name without calling its close (its owner stopped it). */
void app_unobserve(struct app_ctx *app, const char *name);
/* The state of the observer named @name, or NULL when none is registered. */
void *app_observer_state(const struct app_ctx *app, const char *name);

#endif

/* replay.h: replays a recording, a perf stat import or a remote agent's stream as a backend. */
#ifndef PMUTOP_REPLAY_H
#define PMUTOP_REPLAY_H
#include "backend.h"
#include "recfile.h"
#include <stdbool.h>
#include <stddef.h>

struct app_ctx;
struct cpuset;

/*
 * The replay backend ("replay") serves the ticks of a struct replay through the normal backend
 * ops: read() returns the next tick's cumulative triples for the requested events (matched by
 * event name, or by the spec for modes made of recorded event names) and the tick's time, so
 * the session computes deltas, scaling and metrics exactly as it did live. Replay time is
 * virtual: the measured interval is the recorded one.
 */
extern const struct backend_ops backend_replay_ops;

struct replay {
	struct rec_file f;
	int cap_ticks, cap_modes, cap_marks;
	char source[256];  /* escaped, for the screen ("file.jsonl", "remote board") */
	char origin[1024]; /* as given (batch JSON "replay" member) */
	int pos;	   /* next tick to serve */
	int served;	   /* last tick served, -1 none */
	int applied_mode;  /* index of the recorded mode the display follows */
	double speed;	   /* 0.5 .. 16 */
	bool live;	   /* a remote stream: more ticks may come */
	bool following;	   /* the driver is switching modes (no rewind) */
	bool end_told;
	int dropped;	   /* live: ticks dropped from the front (memory bound) */
	/* live only (remote.c): called on every timer tick, and to send a control line */
	void (*poll)(struct app_ctx *app);
	int (*send)(struct app_ctx *app, const char *line, char *err, size_t errlen);
};

/* Loads @path: a pmutop recording, or perf stat CSV/JSON (detected). Imports get a zero tick
 * first so their first interval shows. Returns 0, or -1 with "path:line: message". */
int replay_load(struct replay *r, const char *path, char *err, size_t errlen);
/* An empty live source (remote stream) named @name. */
void replay_init_live(struct replay *r, const char *name);
/* Appends records (ownership moves into @r); -1 on ENOMEM. */
int replay_append_tick(struct replay *r, struct rec_tick *t);
int replay_append_mode(struct replay *r, struct rec_mode *m);
int replay_append_mark(struct replay *r, const struct rec_mark *m);
void replay_free(struct replay *r);
/* The backend serves @r from now on (NULL: none). */
void replay_bind(struct replay *r);
/* True when an event called @name was recorded in any mode. */
bool replay_has_event(const struct replay *r, const char *name);

/* ---- the app side: -R FILE, stepping, seeking, speed (also used by the remote client) ---- */

/* Loads app->opt.replay (unless app->replay is already set up by the remote client), takes
 * family, CPUs, host and interval from its header and routes the app's mode switches through
 * the recording. Returns 0, or an exit status (2: unreadable or corrupt file) with @err. */
int replay_app_open(struct app_ctx *app, char *err, size_t errlen);
/* The recorded CPUs (for app_set_cpus). */
void replay_app_cpus(const struct app_ctx *app, struct cpuset *out);
/* The mode to start with: the first recorded one. */
const char *replay_app_default_mode(struct app_ctx *app);
/* Ticks left to serve. */
int replay_app_pending(const struct app_ctx *app);
/* Serves the next tick (following the recording's mode switches, logging markers). Returns
 * 1 with a snapshot, 0 for none (priming, end of the recording), -1 on error. */
int replay_app_tick(struct app_ctx *app, char *err, size_t errlen);
/* Shows recorded tick @index (0-based; rebuilt from the tick before it). */
int replay_app_seek(struct app_ctx *app, int index, char *err, size_t errlen);
/* :tick [N], :jump TIME|+S|-S|start|end|mark [TEXT], :rate X|+|- */
int replay_app_step(struct app_ctx *app, int n, char *err, size_t errlen);
int replay_app_seek_arg(struct app_ctx *app, int argc, char **argv, char *err, size_t errlen);
int replay_app_speed(struct app_ctx *app, const char *arg, char *err, size_t errlen);
/* Banner ("REPLAY file") and position line ("tick 12/300  t 12.0 of 300.0 s  x2"). */
void replay_app_banner(const struct app_ctx *app, char *buf, size_t len);
void replay_app_status(const struct app_ctx *app, char *buf, size_t len);
void replay_app_free(struct app_ctx *app);

#endif

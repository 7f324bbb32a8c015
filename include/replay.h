/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.h: the replay and remote sources: a recording, a perf stat import or an agent's stream. */
#ifndef PMUTOP_REPLAY_H
#define PMUTOP_REPLAY_H
#include "recfile.h"
#include "source.h"
#include <stdbool.h>
#include <stddef.h>

/*
 * The replay source serves the ticks of a struct replay (its instance) through the source
 * ops: read() returns the next tick's cumulative triples for the requested events (matched by
 * event name, or by the spec for modes made of recorded event names) and the tick's time, so
 * the session computes deltas, scaling and metrics exactly as it did live. Replay time is
 * virtual: the measured interval is the recorded one.
 */
struct replay {
	struct rec_file f;
	int cap_ticks, cap_modes, cap_marks;
	char source[256];  /* escaped, for the screen ("file.jsonl", "remote board") */
	char origin[1024]; /* as given (batch JSON "replay" member) */
	int pos;	   /* next tick to serve */
	int served;	   /* last tick served, -1 none */
	int applied_mode;  /* index of the recorded mode the display follows */
	bool live;	   /* a remote stream: more ticks may come */
	bool following;	   /* the driver is switching modes (no rewind) */
	bool end_told;
	int dropped;	       /* live: ticks dropped from the front (memory bound) */
	int warned;	       /* warnings already logged */
	struct linereader *lr; /* a stream being read (-R - or a FIFO), else NULL */
	struct rec_reader *rd;
};

/* -R PATH: a file is loaded whole (returns 0, as replay_load); a pipe, FIFO or socket is
 * opened without waiting for a writer and followed as a live stream (returns 1): the caller
 * waits on replay_stream_fd() and calls replay_stream_read() until replay_stream_started()
 * (a header and a mode arrived). A stream that starts with perf stat output is imported whole
 * on the first read. -1 with a message. */
int replay_open_input(struct replay *r, const char *path, char *err, size_t errlen);
int replay_stream_fd(const struct replay *r); /* -1: not (or no longer) a stream */
bool replay_stream_started(const struct replay *r);
/* Reads what the stream has without waiting. Returns the number of new ticks, or -1 once it
 * ended: @err is empty at a clean end of file, else says why ("-:3: line longer than N
 * bytes"). Skipped lines become warnings in r->f.warnings. */
int replay_stream_read(struct replay *r, char *err, size_t errlen);
/* An empty live source (remote stream) named @name. */
void replay_init_live(struct replay *r, const char *name);
/* Appends records (ownership moves into @r); -1 on ENOMEM. */
int replay_append_tick(struct replay *r, struct rec_tick *t);
int replay_append_mode(struct replay *r, struct rec_mode *m);
int replay_append_mark(struct replay *r, const struct rec_mark *m);
void replay_free(struct replay *r);
/* True when @e (by name, or by a spec that is a recorded name) was recorded in any mode. */
bool replay_recorded(const struct replay *r, const struct backend_event *e);

#endif

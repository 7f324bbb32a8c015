/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.h: the single-threaded event loop: a timer on absolute deadlines, a signalfd, poll(). */
#ifndef PMUTOP_LOOP_H
#define PMUTOP_LOOP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum loop_event_kind { LOOP_TICK, LOOP_SIGNAL, LOOP_INPUT, LOOP_ERROR };

struct loop_event {
	enum loop_event_kind kind;
	int signo;	     /* LOOP_SIGNAL */
	int fd;		     /* LOOP_INPUT: which watched fd is readable */
	bool hangup;	     /* LOOP_INPUT: POLLHUP, POLLERR or POLLNVAL on it (peer gone) */
	uint64_t overruns;   /* LOOP_TICK: deadlines that passed unserved (0 = on time) */
	int64_t lateness_ns; /* LOOP_TICK: wake time - deadline */
	uint64_t deadline_ns;
};

#define LOOP_MAX_WATCH 12 /* watched inputs: stdin, a remote pipe, the endpoint and its clients */

struct loop {
	timer_t timer; /* its expirations are signals read through signal_fd */
	bool have_timer;
	int signal_fd;
	int tick_signo; /* the timer's signal (SIGRTMIN, a libc call: read once) */
	uint64_t period_ns;
	uint64_t t0_ns;	      /* first deadline */
	uint64_t deadline_ns; /* next deadline */
	uint64_t ticks;
	int watch[LOOP_MAX_WATCH];
	int nwatch;
	bool open; /* the descriptors were created (loop_open) */
};

/* Creates the signalfd and the timer, nothing armed or blocked yet: a run opens them before
 * any counter, so the open-file limit never leaves the loop without them. Again: nothing.
 * Returns 0 or -1 with @err. */
int loop_open(struct loop *l, char *err, size_t errlen);
/* Opens the loop if loop_open did not, blocks SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE (writes
 * then fail with EPIPE) and the timer's signal, reads them through the signalfd and arms the
 * timer: the first deadline is one period from now. Returns 0 or -1 with @err. */
int loop_init(struct loop *l, uint64_t period_ns, char *err, size_t errlen);
/* Changes the period; the next deadline is one new period from now. */
int loop_set_period(struct loop *l, uint64_t period_ns);
/* Adds a file descriptor to watch for input (stdin, a remote agent's pipe). Returns 0, or -1
 * when LOOP_MAX_WATCH are watched already. */
int loop_watch(struct loop *l, int fd);
void loop_unwatch(struct loop *l, int fd);
/* Waits for the next event: one blocking read of the signalfd, poll() first only while inputs
 * are watched. A keypress never moves the next deadline. */
int loop_wait(struct loop *l, struct loop_event *ev);
void loop_close(struct loop *l);
/* --realtime: this process (not its children) under SCHED_FIFO priority 1, so a tick preempts
 * ordinary tasks on a loaded CPU. Returns 0, or -1 + @err when the kernel refuses. */
int loop_realtime(char *err, size_t errlen);
uint64_t loop_now_ns(void);

#endif

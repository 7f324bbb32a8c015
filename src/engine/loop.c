/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c: a POSIX timer on absolute CLOCK_MONOTONIC deadlines whose signal, like the others, is
 * read through one signalfd: one read() a tick, poll() only while inputs are watched. */
#include "loop.h"
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id /* the kernel's name; the C library may only have the union's */
#define sigev_notify_thread_id _sigev_un._tid
#endif

uint64_t loop_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / 1000000000ULL),
				 .tv_nsec = (long)(ns % 1000000000ULL)};
}

/* The timer's signal (a tick): the first real-time signal the C library leaves free. */
static int tick_signal(void) { return SIGRTMIN; }

/* Arms the timer on the loop's deadline and period. A tick of the old schedule still queued is
 * dropped first (the timer stopped, so none can follow it): the new schedule starts clean. */
static int arm(struct loop *l)
{
	struct itimerspec off = {{0, 0}, {0, 0}};
	if (timer_settime(l->timer, 0, &off, NULL) < 0)
		return -1;
	sigset_t tick;
	sigemptyset(&tick);
	sigaddset(&tick, tick_signal());
	struct timespec zero = {0, 0};
	while (sigtimedwait(&tick, NULL, &zero) >= 0 || errno == EINTR)
		;
	struct itimerspec its = {.it_value = ns_to_ts(l->deadline_ns),
				 .it_interval = ns_to_ts(l->period_ns)};
	return timer_settime(l->timer, TIMER_ABSTIME, &its, NULL);
}

/* The loop's signals: blocked, then read through the signalfd. */
static void loop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGWINCH);
	sigaddset(set, SIGPIPE);
	sigaddset(set, tick_signal());
}

int loop_open(struct loop *l, char *err, size_t errlen)
{
	if (l->open)
		return 0;
	memset(l, 0, sizeof(*l));
	sigset_t set;
	loop_signals(&set);
	/* blocking: with no input watched, loop_wait reads it without a poll() first */
	l->signal_fd = signalfd(-1, &set, SFD_CLOEXEC);
	l->tick_signo = tick_signal();
	l->open = true;
	if (l->signal_fd < 0) {
		snprintf(err, errlen, "signalfd: %s", strerror(errno));
		loop_close(l);
		return -1;
	}
	/* the tick goes to this thread, the one that blocks the signal and reads the signalfd */
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = tick_signal();
	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &l->timer) < 0) {
		snprintf(err, errlen, "timer_create: %s", strerror(errno));
		loop_close(l);
		return -1;
	}
	l->have_timer = true;
	return 0;
}

int loop_init(struct loop *l, uint64_t period_ns, char *err, size_t errlen)
{
	if (loop_open(l, err, errlen) < 0)
		return -1;
	sigset_t set;
	loop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
		snprintf(err, errlen, "sigprocmask: %s", strerror(errno));
		loop_close(l);
		return -1;
	}
	/* the timer fires within 1 ns of its deadline instead of the default 50 us of slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	l->period_ns = period_ns;
	l->t0_ns = loop_now_ns() + period_ns;
	l->deadline_ns = l->t0_ns;
	l->ticks = 0;
	if (arm(l) < 0) {
		snprintf(err, errlen, "timer_settime: %s", strerror(errno));
		loop_close(l);
		return -1;
	}
	return 0;
}

int loop_set_period(struct loop *l, uint64_t period_ns)
{
	l->period_ns = period_ns;
	l->t0_ns = loop_now_ns() + period_ns;
	l->deadline_ns = l->t0_ns;
	l->ticks = 0;
	return arm(l);
}

int loop_watch(struct loop *l, int fd)
{
	if (l->nwatch >= LOOP_MAX_WATCH)
		return -1;
	l->watch[l->nwatch++] = fd;
	return 0;
}

void loop_unwatch(struct loop *l, int fd)
{
	for (int i = 0; i < l->nwatch; i++)
		if (l->watch[i] == fd) {
			l->watch[i] = l->watch[--l->nwatch];
			return;
		}
}

/* One signal read from the signalfd as an event: a tick of the timer (its overrun count gives
 * the deadlines missed) or a signal. False for a tick signal the timer did not send. */
static bool take_signal(struct loop *l, const struct signalfd_siginfo *si, struct loop_event *ev)
{
	if ((int)si->ssi_signo != l->tick_signo) {
		ev->kind = LOOP_SIGNAL;
		ev->signo = (int)si->ssi_signo;
		return true;
	}
	if (si->ssi_code != SI_TIMER)
		return false;
	uint64_t expirations = 1 + (uint64_t)si->ssi_overrun;
	uint64_t now = loop_now_ns();
	/* The deadline served is the latest that expired; earlier ones are overruns. */
	uint64_t served = l->deadline_ns + (expirations - 1) * l->period_ns;
	ev->kind = LOOP_TICK;
	ev->overruns = expirations - 1;
	ev->deadline_ns = served;
	ev->lateness_ns = (int64_t)(now - served);
	l->ticks += expirations;
	l->deadline_ns = served + l->period_ns;
	return true;
}

int loop_wait(struct loop *l, struct loop_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	for (;;) {
		struct signalfd_siginfo si;
		if (l->nwatch == 0) {
			/* nothing but ticks and signals: one blocking read, no poll() */
			ssize_t got = read(l->signal_fd, &si, sizeof(si));
			if (got < 0 && errno != EINTR) {
				ev->kind = LOOP_ERROR;
				return -1;
			}
			if (got == (ssize_t)sizeof(si) && take_signal(l, &si, ev))
				return 0;
			continue;
		}
		struct pollfd pfd[1 + LOOP_MAX_WATCH];
		int n = 0;
		pfd[n++] = (struct pollfd){.fd = l->signal_fd, .events = POLLIN};
		for (int i = 0; i < l->nwatch; i++)
			pfd[n++] = (struct pollfd){.fd = l->watch[i], .events = POLLIN};
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			ev->kind = LOOP_ERROR;
			return -1;
		}
		if ((pfd[0].revents & POLLIN) &&
		    read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
		    take_signal(l, &si, ev))
			return 0;
		for (int i = 1; i < n; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
				ev->kind = LOOP_INPUT;
				ev->fd = pfd[i].fd;
				ev->hangup = (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
				return 0;
			}
	}
}

int loop_realtime(char *err, size_t errlen)
{
	struct sched_param sp = {.sched_priority = 1};
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
		snprintf(err, errlen,
			 "--realtime: the kernel refused SCHED_FIFO: %s (it needs root, "
			 "CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more)",
			 strerror(errno));
		return -1;
	}
	return 0;
}

void loop_close(struct loop *l)
{
	if (!l->open)
		return;
	if (l->have_timer)
		timer_delete(l->timer);
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	l->signal_fd = -1;
	l->have_timer = false;
	l->open = false;
}

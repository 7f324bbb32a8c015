/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c: timerfd on absolute CLOCK_MONOTONIC deadlines, a signalfd and one poll(). */
#include "loop.h"
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

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

static int arm(struct loop *l)
{
	struct itimerspec its = {.it_value = ns_to_ts(l->deadline_ns),
				 .it_interval = ns_to_ts(l->period_ns)};
	return timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
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
}

int loop_open(struct loop *l, char *err, size_t errlen)
{
	if (l->open)
		return 0;
	memset(l, 0, sizeof(*l));
	sigset_t set;
	loop_signals(&set);
	l->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	l->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	l->open = true;
	if (l->signal_fd < 0 || l->timer_fd < 0) {
		snprintf(err, errlen, "timerfd/signalfd: %s", strerror(errno));
		loop_close(l);
		return -1;
	}
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
		snprintf(err, errlen, "timerfd_settime: %s", strerror(errno));
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

int loop_wait(struct loop *l, struct loop_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	for (;;) {
		struct pollfd pfd[2 + LOOP_MAX_WATCH];
		int n = 0;
		pfd[n++] = (struct pollfd){.fd = l->signal_fd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = l->timer_fd, .events = POLLIN};
		for (int i = 0; i < l->nwatch; i++)
			pfd[n++] = (struct pollfd){.fd = l->watch[i], .events = POLLIN};
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			ev->kind = LOOP_ERROR;
			return -1;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			if (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				ev->kind = LOOP_SIGNAL;
				ev->signo = (int)si.ssi_signo;
				return 0;
			}
		}
		if (pfd[1].revents & POLLIN) {
			uint64_t expirations = 0;
			if (read(l->timer_fd, &expirations, sizeof(expirations)) ==
				(ssize_t)sizeof(expirations) &&
			    expirations > 0) {
				uint64_t now = loop_now_ns();
				/* The deadline served is the latest that expired; earlier ones are
				 * overruns. */
				uint64_t served = l->deadline_ns + (expirations - 1) * l->period_ns;
				ev->kind = LOOP_TICK;
				ev->overruns = expirations - 1;
				ev->deadline_ns = served;
				ev->lateness_ns = (int64_t)(now - served);
				l->ticks += expirations;
				l->deadline_ns = served + l->period_ns;
				return 0;
			}
		}
		for (int i = 2; i < n; i++)
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
	if (l->timer_fd >= 0)
		close(l->timer_fd);
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	l->timer_fd = l->signal_fd = -1;
	l->open = false;
}

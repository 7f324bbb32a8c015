/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tickwait.c: what the system calls of a batch tick cost on this machine, in the caller's own
 * CPU time: three ways to wait for a periodic tick (timerfd after poll(), a timerfd read
 * alone, a POSIX timer's signal read through a signalfd), and one call each of the rest of a
 * tick (a cpu-clock counter read on this CPU and on another, the /proc/stat pread, a record's
 * write to /dev/null, the process CPU clock). usage: bench_tickwait WAIT|CALLS TICKS PERIOD_US */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static double thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Thread CPU time per tick (us) of waiting @ticks ticks of @period_ns the way @how says. */
static double wait_cost(int how, int ticks, long period_ns)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | (how == 0 ? SFD_NONBLOCK : 0));
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct itimerspec its = {{0, period_ns}, {now.tv_sec + 1, now.tv_nsec}};
	int tfd = -1;
	timer_t timer;
	if (how < 2) {
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | (how == 0 ? TFD_NONBLOCK : 0));
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	} else {
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGRTMIN;
		sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
		timer_create(CLOCK_MONOTONIC, &sev, &timer);
		timer_settime(timer, TIMER_ABSTIME, &its, NULL);
	}
	double t0 = 0;
	for (int i = 0; i < ticks + 5; i++) {
		if (i == 5)
			t0 = thread_ns();
		uint64_t expirations;
		struct signalfd_siginfo si;
		if (how == 0) {
			struct pollfd p[2] = {{sfd, POLLIN, 0}, {tfd, POLLIN, 0}};
			if (poll(p, 2, -1) < 0 || read(tfd, &expirations, 8) != 8)
				exit(1);
		} else if (how == 1) {
			if (read(tfd, &expirations, 8) != 8)
				exit(1);
		} else if (read(sfd, &si, sizeof(si)) != sizeof(si)) {
			exit(1);
		}
	}
	return (thread_ns() - t0) / ticks / 1e3;
}

static int counter(int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

/* Thread CPU time per call (us) of each of a tick's other calls, @n calls each. */
static void call_costs(int n)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	int here = counter(0), there = counter(1);
	int stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	static char buf[65536], rec[3000];
	memset(rec, 'x', sizeof(rec));
	const char *names[] = {"counter read, this CPU",
			       "counter read, another CPU (IPI)",
			       "pread /proc/stat",
			       "write 3000 B to /dev/null",
			       "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)",
			       "clock_gettime(CLOCK_MONOTONIC) (vDSO)"};
	for (int k = 0; k < 6; k++) {
		if ((k == 0 && here < 0) || (k == 1 && there < 0)) {
			printf("  %-40s n/a (perf_event_open: no such CPU or not allowed)\n",
			       names[k]);
			continue;
		}
		double t0 = thread_ns();
		for (int i = 0; i < n; i++) {
			struct timespec ts;
			ssize_t r = 0;
			if (k == 0)
				r = read(here, buf, 24);
			else if (k == 1)
				r = read(there, buf, 24);
			else if (k == 2)
				r = pread(stat, buf, sizeof(buf), 0);
			else if (k == 3)
				r = write(null, rec, sizeof(rec));
			else if (k == 4)
				clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
			else
				clock_gettime(CLOCK_MONOTONIC, &ts);
			if (r < 0)
				exit(1);
		}
		printf("  %-40s %7.2f us/call\n", names[k], (thread_ns() - t0) / n / 1e3);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bench_tickwait WAIT|CALLS TICKS PERIOD_US\n");
		return 2;
	}
	int ticks = atoi(argv[2]);
	long period_ns = atol(argv[3]) * 1000;
	if (ticks < 1 || period_ns < 1000)
		return 2;
	if (strcmp(argv[1], "CALLS") == 0) {
		call_costs(ticks);
		return 0;
	}
	const char *names[] = {"timerfd after poll()", "timerfd read alone",
			       "POSIX timer, signalfd read"};
	int how = atoi(argv[1]);
	if (how < 0 || how > 2)
		return 2;
	printf("  %-28s %7.2f us/tick\n", names[how], wait_cost(how, ticks, period_ns));
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tasktop.h: the busiest task on each CPU between two scans of <root>/proc/[pid]/task/[tid]/stat.
 */
#ifndef PMUTOP_TASKTOP_H
#define PMUTOP_TASKTOP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TASKTOP_RAW_COMM_MAX 64	    /* bytes of comm kept from stat (kernel workers exceed 16) */
#define TASKTOP_COMM_MAX 260	    /* bytes of escaped comm, with the NUL (4 per raw byte) */
#define TASKTOP_MAX_TASKS 65536	    /* default cap on tasks per scan */
#define TASKTOP_MIN_INTERVAL_MS 500 /* default rate limit */

/* The fields of one /proc/.../stat line that tasktop uses. */
struct tasktop_stat {
	int tid;			 /* field 1 */
	char comm[TASKTOP_RAW_COMM_MAX]; /* field 2, raw bytes between the first '(' and the last
					    ')' */
	char state;			 /* field 3 */
	uint64_t utime, stime;		 /* fields 14, 15: clock ticks */
	uint64_t starttime;		 /* field 22: clock ticks after boot */
	int processor;			 /* field 39: CPU it last ran on */
};

/* Parses one stat line (the comm may hold spaces, '(' and ')'). Returns 0, or -1 when malformed. */
int tasktop_parse_stat(const char *text, size_t len, struct tasktop_stat *out);

/* Copies @n bytes of @in into @out for display: control bytes, DEL, C1 controls, invalid UTF-8
 * and '\\' become \xNN or "\\\\"; valid UTF-8 text is kept. Always NUL-terminates. */
void tasktop_escape(const char *in, size_t n, char *out, size_t outlen);

/* The result for one CPU. */
struct tasktop_cpu {
	bool valid; /* some task time was attributed to this CPU in the last interval */
	int pid, tid;
	char comm[TASKTOP_COMM_MAX]; /* escaped, ready to print */
	uint64_t ticks;		     /* busiest task's utime + stime delta, clock ticks */
	uint64_t total_ticks;	     /* all task time attributed to this CPU, clock ticks */
	double share;		     /* ticks / total_ticks, 0..1 */
	double cpu_pct; /* ticks as % of the elapsed interval (may exceed 100 by tick rounding) */
};

struct tasktop_task; /* one task as scanned (private) */

/*
 * Scanner state. Each scan reads every task's utime + stime; the delta since the previous scan
 * (matched by tid and start time; a task not seen before counts from 0) is attributed to the CPU
 * the task last ran on (field 39). A task that migrated mid-interval is attributed wholly to its
 * last CPU: this is an approximation, good for "who was busy here".
 */
struct tasktop {
	char root[1024];
	int ncpu;
	unsigned min_interval_ms;
	int exclude_pid; /* its threads are skipped; 0: none */
	long hz;	 /* clock ticks per second (sysconf(_SC_CLK_TCK)); tests may set it */
	size_t max_tasks;
	struct tasktop_task *prev, *cur;
	size_t nprev, ncur, cap;
	unsigned long long scans;
	uint64_t last_ns;	  /* time of the last scan (the caller's monotonic clock) */
	uint64_t interval_ns;	  /* between the last two scans */
	struct tasktop_cpu *cpus; /* [ncpu] */
	size_t skipped;		  /* stat files that were malformed in the last scan */
	size_t truncated;	  /* tasks beyond max_tasks in the last scan */
};

/* @root "" is the live system. Returns 0, or -1 with a cause. */
int tasktop_init(struct tasktop *t, const char *root, int ncpu, unsigned min_interval_ms,
		 int exclude_pid, char *err, size_t errlen);
void tasktop_free(struct tasktop *t);
/* Scans when at least min_interval_ms passed since the last scan (@now_ns: CLOCK_MONOTONIC).
 * Returns 1 when it scanned (results updated; after the first scan they are all invalid), 0 when
 * rate-limited (results unchanged), -1 with a cause when <root>/proc cannot be read. */
int tasktop_scan(struct tasktop *t, uint64_t now_ns, char *err, size_t errlen);
/* The result for @cpu, or NULL when out of range. */
const struct tasktop_cpu *tasktop_cpu(const struct tasktop *t, int cpu);
size_t tasktop_bytes(const struct tasktop *t);

/* One task of the last scan with its CPU time since the scan before. */
struct tasktop_busy {
	int pid, tid;
	uint64_t ticks;			 /* utime + stime delta, clock ticks */
	char comm[TASKTOP_RAW_COMM_MAX]; /* raw (escape before printing) */
};
/* The busiest tasks of the last scan, at most @max into @out, most ticks first: those that ran
 * since the scan before, and of the rest those in @keep (tids; the same count first). Ties keep
 * @keep's tasks first, then the lower tid. Returns how many; *@seen gets the tasks scanned. */
size_t tasktop_busiest(const struct tasktop *t, const int *keep, size_t nkeep,
		       struct tasktop_busy *out, size_t max, size_t *seen);

#endif

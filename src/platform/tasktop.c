/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tasktop.c: the busiest task on each CPU between two scans of <root>/proc/[pid]/task/[tid]/stat.
 */
#include "tasktop.h"
#include "textutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tasktop_task {
	int pid, tid;
	int cpu;
	uint64_t start; /* clock ticks after boot */
	uint64_t ticks; /* utime + stime */
	char comm[TASKTOP_RAW_COMM_MAX];
};

void tasktop_escape(const char *in, size_t n, char *out, size_t outlen)
{
	text_escape(in, n, out, outlen);
}

int tasktop_parse_stat(const char *text, size_t len, struct tasktop_stat *out)
{
	struct tasktop_stat st;
	const char *open = memchr(text, '(', len), *close = NULL;
	memset(&st, 0, sizeof(st));
	for (size_t i = len; i > 0; i--) {
		if (text[i - 1] == ')') {
			close = text + i - 1;
			break;
		}
	}
	if (!open || !close || close < open)
		return -1;
	/* Field 1: the tid, alone before the '('. */
	char *end;
	errno = 0;
	long tid = strtol(text, &end, 10);
	if (end == text || errno || tid <= 0 || tid > 0x7fffffff || end + 1 != open || *end != ' ')
		return -1;
	st.tid = (int)tid;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(st.comm))
		clen = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, clen);
	st.comm[clen] = 0;
	/* Fields 3 onwards, blank separated, after ") ". */
	const char *p = close + 1, *lim = text + len;
	int field = 2;
	while (p < lim && field < 39) {
		if (*p != ' ')
			return -1;
		p++;
		field++;
		const char *tok = p;
		while (p < lim && *p != ' ' && *p != '\n')
			p++;
		if (p == tok)
			return -1;
		if (field == 3) {
			if (p - tok != 1)
				return -1;
			st.state = *tok;
			continue;
		}
		if (field != 14 && field != 15 && field != 22 && field != 39)
			continue;
		/* digits up to the token's end: the text need not be NUL-terminated */
		unsigned long long v = 0;
		for (const char *d = tok; d < p; d++) {
			if (!isdigit((unsigned char)*d) || v > (ULLONG_MAX - 9) / 10)
				return -1;
			v = v * 10 + (unsigned)(*d - '0');
		}
		if (field == 14)
			st.utime = v;
		else if (field == 15)
			st.stime = v;
		else if (field == 22)
			st.starttime = v;
		else if (v < 0x7fffffff)
			st.processor = (int)v;
		else
			return -1;
	}
	if (field < 39)
		return -1;
	*out = st;
	return 0;
}

int tasktop_init(struct tasktop *t, const char *root, int ncpu, unsigned min_interval_ms,
		 int exclude_pid, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (!root)
		root = "";
	if (ncpu <= 0) {
		text_errorf(err, errlen, "tasktop: the number of CPUs must be positive");
		return -1;
	}
	if (strlen(root) >= sizeof(t->root) - 64) {
		text_errorf(err, errlen, "tasktop: root path too long");
		return -1;
	}
	t->cpus = calloc((size_t)ncpu, sizeof(*t->cpus));
	if (!t->cpus) {
		text_errorf(err, errlen, "tasktop: out of memory");
		return -1;
	}
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->ncpu = ncpu;
	t->min_interval_ms = min_interval_ms;
	t->exclude_pid = exclude_pid;
	t->hz = sysconf(_SC_CLK_TCK);
	if (t->hz <= 0)
		t->hz = 100;
	t->max_tasks = TASKTOP_MAX_TASKS;
	return 0;
}

void tasktop_free(struct tasktop *t)
{
	free(t->prev);
	free(t->cur);
	free(t->cpus);
	memset(t, 0, sizeof(*t));
}

size_t tasktop_bytes(const struct tasktop *t)
{
	return 2 * t->cap * sizeof(struct tasktop_task) +
	       (size_t)t->ncpu * sizeof(struct tasktop_cpu);
}

const struct tasktop_cpu *tasktop_cpu(const struct tasktop *t, int cpu)
{
	if (cpu < 0 || cpu >= t->ncpu)
		return NULL;
	return &t->cpus[cpu];
}

/* A directory entry name that is a positive decimal number, or -1. */
static long entry_num(const char *name)
{
	if (!isdigit((unsigned char)name[0]))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(name, &end, 10);
	return *end || errno || v <= 0 || v > 0x7fffffff ? -1 : v;
}

/* Appends one task to t->cur. Returns -1 when out of memory. */
static int add_task(struct tasktop *t, int pid, const struct tasktop_stat *st)
{
	if (t->ncur >= t->max_tasks) {
		t->truncated++;
		return 0;
	}
	if (t->ncur == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct tasktop_task *a = realloc(t->cur, ncap * sizeof(*a));
		if (!a)
			return -1;
		t->cur = a;
		struct tasktop_task *b = realloc(t->prev, ncap * sizeof(*b));
		if (!b)
			return -1;
		t->prev = b;
		t->cap = ncap;
	}
	struct tasktop_task *k = &t->cur[t->ncur++];
	k->pid = pid;
	k->tid = st->tid;
	k->cpu = st->processor;
	k->start = st->starttime;
	k->ticks = st->utime + st->stime;
	memcpy(k->comm, st->comm, sizeof(k->comm));
	return 0;
}

static void scan_process(struct tasktop *t, int pid, char *path, size_t pathlen)
{
	snprintf(path, pathlen, "%s/proc/%d/task", t->root, pid);
	DIR *d = opendir(path);
	if (!d)
		return; /* the process exited */
	struct dirent *de;
	while ((de = readdir(d))) {
		long tid = entry_num(de->d_name);
		if (tid < 0)
			continue;
		snprintf(path, pathlen, "%s/proc/%d/task/%ld/stat", t->root, pid, tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread exited */
		char buf[1024];
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		if (n >= 0)
			buf[n] = '\0';
		close(fd);
		if (n <= 0)
			continue;
		struct tasktop_stat st;
		if (tasktop_parse_stat(buf, (size_t)n, &st) < 0 || st.tid != tid) {
			t->skipped++;
			continue;
		}
		if (add_task(t, pid, &st) < 0) {
			t->truncated++;
			break;
		}
	}
	closedir(d);
}

static int cmp_task(const void *a, const void *b)
{
	const struct tasktop_task *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static const struct tasktop_task *find_prev(const struct tasktop *t, int tid)
{
	size_t lo = 0, hi = t->nprev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->prev[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nprev && t->prev[lo].tid == tid ? &t->prev[lo] : NULL;
}

static void attribute(struct tasktop *t)
{
	for (int c = 0; c < t->ncpu; c++)
		memset(&t->cpus[c], 0, sizeof(t->cpus[c]));
	for (size_t i = 0; i < t->ncur; i++) {
		const struct tasktop_task *k = &t->cur[i];
		if (k->cpu < 0 || k->cpu >= t->ncpu)
			continue;
		const struct tasktop_task *p = find_prev(t, k->tid);
		uint64_t d;
		if (p && p->start == k->start)
			d = k->ticks >= p->ticks ? k->ticks - p->ticks : 0;
		else
			d = k->ticks; /* born during the interval (or a reused tid) */
		if (d == 0)
			continue;
		struct tasktop_cpu *r = &t->cpus[k->cpu];
		r->total_ticks += d;
		if (d > r->ticks || (d == r->ticks && k->tid < r->tid)) {
			r->ticks = d;
			r->pid = k->pid;
			r->tid = k->tid;
			tasktop_escape(k->comm, strlen(k->comm), r->comm, sizeof(r->comm));
		}
	}
	double interval_ticks = (double)t->interval_ns * (double)t->hz / 1e9;
	for (int c = 0; c < t->ncpu; c++) {
		struct tasktop_cpu *r = &t->cpus[c];
		if (!r->total_ticks)
			continue;
		r->valid = true;
		r->share = (double)r->ticks / (double)r->total_ticks;
		r->cpu_pct = interval_ticks > 0 ? 100.0 * (double)r->ticks / interval_ticks : 0;
	}
}

int tasktop_scan(struct tasktop *t, uint64_t now_ns, char *err, size_t errlen)
{
	if (t->scans && now_ns - t->last_ns < (uint64_t)t->min_interval_ms * 1000000u)
		return 0;
	char path[1280];
	snprintf(path, sizeof(path), "%s/proc", t->root);
	DIR *d = opendir(path);
	if (!d) {
		text_errorf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The previous scan becomes the baseline. */
	struct tasktop_task *tmp = t->prev;
	t->prev = t->cur;
	t->nprev = t->ncur;
	t->cur = tmp;
	t->ncur = 0;
	t->skipped = 0;
	t->truncated = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid = entry_num(de->d_name);
		if (pid < 0 || pid == t->exclude_pid)
			continue;
		scan_process(t, (int)pid, path, sizeof(path));
	}
	closedir(d);
	qsort(t->cur, t->ncur, sizeof(*t->cur), cmp_task);
	t->interval_ns = t->scans ? now_ns - t->last_ns : 0;
	if (t->scans) {
		attribute(t);
	} else {
		for (int c = 0; c < t->ncpu; c++)
			memset(&t->cpus[c], 0, sizeof(t->cpus[c]));
	}
	t->last_ns = now_ns;
	t->scans++;
	return 1;
}

static bool kept(const int *keep, size_t nkeep, int tid)
{
	for (size_t i = 0; i < nkeep; i++)
		if (keep[i] == tid)
			return true;
	return false;
}

/* More ticks first, then a kept task, then the lower tid. */
static bool busier(const struct tasktop_busy *a, bool akept, const struct tasktop_busy *b,
		   bool bkept)
{
	if (a->ticks != b->ticks)
		return a->ticks > b->ticks;
	if (akept != bkept)
		return akept;
	return a->tid < b->tid;
}

size_t tasktop_busiest(const struct tasktop *t, const int *keep, size_t nkeep,
		       struct tasktop_busy *out, size_t max, size_t *seen)
{
	size_t n = 0;
	bool out_kept[max ? max : 1];
	*seen = t->ncur;
	for (size_t i = 0; i < t->ncur && max; i++) {
		const struct tasktop_task *k = &t->cur[i];
		const struct tasktop_task *p = t->scans > 1 ? find_prev(t, k->tid) : NULL;
		uint64_t d = 0;
		if (p && p->start == k->start)
			d = k->ticks >= p->ticks ? k->ticks - p->ticks : 0;
		else if (t->scans > 1)
			d = k->ticks; /* born during the interval */
		bool kk = kept(keep, nkeep, k->tid);
		if (!d && !kk)
			continue;
		struct tasktop_busy b = {.pid = k->pid, .tid = k->tid, .ticks = d};
		memcpy(b.comm, k->comm, sizeof(b.comm));
		/* insertion into the sorted top @max */
		size_t at = n;
		while (at > 0 && busier(&b, kk, &out[at - 1], out_kept[at - 1]))
			at--;
		if (at >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		memmove(&out[at + 1], &out[at], (last - at) * sizeof(out[0]));
		memmove(&out_kept[at + 1], &out_kept[at], (last - at) * sizeof(out_kept[0]));
		out[at] = b;
		out_kept[at] = kk;
		if (n < max)
			n++;
	}
	return n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* app-taskview.c: the task and cgroup view's counting: the busiest tasks from /proc (tasktop) or
 * cgroup v2 groups by cpu.stat usage, counted as a run's target that follows the busiest set. */
#include "app.h"
#include "loop.h"
#include "mode.h"
#include "tasktop.h"
#include "taskview.h"
#include "textutil.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* One cgroup of a scan: its path under the root and its cpu.stat usage_usec. */
struct cg_usage {
	char rel[256];
	uint64_t usec;	/* cumulative, us */
	uint64_t delta; /* since the scan before, us */
};

struct taskview {
	enum taskview_kind kind;
	bool filtered;	/* one task or cgroup per CPU */
	long filter_id; /* its key id */
	char filter_label[ROW_LABEL_MAX];
	int want;	   /* :set tasks N, 0: fit */
	int fit;	   /* rows the screen has for the list */
	struct tasktop tt; /* the /proc scanner (tasks) */
	bool tt_ready;
	/* what is counted, busiest first: tids or cgroup paths */
	int n;
	int tid[TASKVIEW_MAX];
	char cg[TASKVIEW_MAX][256];
	size_t seen;	/* tasks or cgroups in the last scan */
	int limit;	/* the list's length after the descriptor budget */
	char note[200]; /* the budget's cut, "" none */
	struct cg_usage *cgs, *cgs_prev;
	size_t ncgs, ncgs_prev, cgs_cap;
	unsigned scans;
	bool held;	     /* the set stays (a recording runs) */
	unsigned since_scan; /* frames since the list was last scanned */
	long budget;	     /* descriptors a set may use, read at each scan */
	/* each listed row's CPU time at the last frame, for its cpu% (tasks: schedstat's
	 * run time; cgroups: cpu.stat usage): by name ("tid" or the cgroup's path) */
	struct tv_share {
		char name[256];
		long id;
		uint64_t ns;  /* cumulative CPU time, ns */
		double share; /* over the last frame, 0..1; NAN: first seen */
	} sh[TASKVIEW_MAX];
	int nsh;
	uint64_t sh_t;	 /* when read, CLOCK_MONOTONIC ns */
	uint64_t sh_seq; /* the frame they are of */
	int saved_unit;	 /* the row unit before the view */
	bool saved_all;	 /* cpus_all before the view */
};

static void tv_close(struct observer *o, struct app_ctx *app)
{
	(void)app;
	struct taskview *tv = o->state;
	if (!tv)
		return;
	if (tv->tt_ready)
		tasktop_free(&tv->tt);
	free(tv->cgs), free(tv->cgs_prev);
	free(tv);
	o->state = NULL;
}

static void tv_frame(struct observer *o, struct app_ctx *app, const struct frame *f);

static struct taskview *tv_get(struct app_ctx *app, bool create)
{
	struct taskview *tv = app_observer_state(app, "taskview");
	if (tv || !create)
		return tv;
	tv = calloc(1, sizeof(*tv));
	if (!tv)
		return NULL;
	struct observer ob = {
	    .name = "taskview", .state = tv, .on_frame = tv_frame, .close = tv_close};
	if (!app_observe(app, &ob)) {
		free(tv);
		return NULL;
	}
	return tv;
}

/* Descriptors a new set may use: the soft limit less those open now (the running counters'
 * are given back when the set is swapped) and a spare. */
static long fd_budget(const struct app_ctx *app)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1L << 20;
	long open_now = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	while (d && (de = readdir(d)))
		open_now += de->d_name[0] != '.';
	if (d)
		closedir(d);
	long ours = (long)app->ncpus * app->mode.nevents;
	long left = (long)rl.rlim_cur - open_now + ours - TASKVIEW_FD_SPARE;
	return left > 0 ? left : 0;
}

/* How many tasks or cgroups the list shows: :set tasks, else the screen's rows, then as many
 * as the descriptors allow (said in the note). */
static int list_limit(struct app_ctx *app, struct taskview *tv)
{
	int n = tv->want > 0 ? tv->want : tv->fit > 0 ? tv->fit : TASKVIEW_DEFAULT;
	n = n > TASKVIEW_MAX ? TASKVIEW_MAX : n;
	int cpus = cpuset_count(&app->cpus_chosen);
	long per = (long)(app->mode.nevents ? app->mode.nevents : 1) *
		   (tv->kind == TASKVIEW_CGROUPS ? (cpus ? cpus : 1) : 1);
	long rows_per = tv->kind == TASKVIEW_CGROUPS ? (cpus ? cpus : 1) : 1;
	long budget = tv->budget, fit = budget / per;
	if (fit > TARGET_MAX_ROWS / rows_per)
		fit = TARGET_MAX_ROWS / rows_per;
	tv->note[0] = '\0';
	if (fit < n) {
		snprintf(tv->note, sizeof(tv->note),
			 "%ld of %d %s counted: %ld descriptors each, %ld left under RLIMIT_NOFILE "
			 "(ulimit -n)",
			 fit, n, tv->kind == TASKVIEW_CGROUPS ? "cgroups" : "tasks", per, budget);
		n = (int)fit;
	}
	tv->limit = n;
	return n;
}

/* --- cgroups: every directory under the root with a cpu.stat, its usage_usec -------------- */

static int cg_add(struct taskview *tv, const char *rel, uint64_t usec)
{
	if (tv->ncgs == tv->cgs_cap) {
		size_t cap = tv->cgs_cap ? tv->cgs_cap * 2 : 64;
		struct cg_usage *g = realloc(tv->cgs, cap * sizeof(*g));
		if (!g)
			return -1;
		tv->cgs = g, tv->cgs_cap = cap;
	}
	struct cg_usage *g = &tv->cgs[tv->ncgs++];
	snprintf(g->rel, sizeof(g->rel), "%s", rel);
	g->usec = usec;
	g->delta = 0;
	return 0;
}

static void cg_walk(struct taskview *tv, const char *root, const char *rel, int depth)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.2000s/%.2000s", root, rel);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		char sub[256];
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
				     de->d_name) >= sizeof(sub))
			continue; /* a path too long to show */
		char stat[PATH_MAX], line[128];
		snprintf(stat, sizeof(stat), "%.2000s/%.300s/cpu.stat", root, sub);
		FILE *f = fopen(stat, "re");
		uint64_t usec = 0;
		bool have = false;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "usage_usec %" SCNu64, &usec) == 1)
				have = true;
		if (f)
			fclose(f);
		if (have && cg_add(tv, sub, usec) < 0)
			break;
		if (depth < 16)
			cg_walk(tv, root, sub, depth + 1);
	}
	closedir(d);
}

static void cg_scan(struct taskview *tv)
{
	struct cg_usage *t = tv->cgs_prev;
	size_t tcap = tv->ncgs_prev;
	tv->cgs_prev = tv->cgs, tv->ncgs_prev = tv->ncgs;
	tv->cgs = t, tv->ncgs = 0, tv->cgs_cap = t ? tcap : 0;
	if (t && tv->cgs_cap == 0) {
		free(t);
		tv->cgs = NULL;
	}
	cg_walk(tv, target_cgroup_root(), "", 0);
	for (size_t i = 0; i < tv->ncgs; i++)
		for (size_t k = 0; k < tv->ncgs_prev; k++)
			if (strcmp(tv->cgs[i].rel, tv->cgs_prev[k].rel) == 0) {
				uint64_t a = tv->cgs_prev[k].usec, b = tv->cgs[i].usec;
				tv->cgs[i].delta = b > a ? b - a : 0;
				break;
			}
	tv->seen = tv->ncgs;
	tv->scans++;
}

/* The busiest cgroups into tv's list (those counted now stay on ties, an idle one stays while
 * there is room). */
static int cg_choose(struct taskview *tv, int limit, char (*out)[256])
{
	int n = 0;
	bool *used = calloc(tv->ncgs ? tv->ncgs : 1, sizeof(bool));
	if (!used)
		return 0;
	while (n < limit) {
		long best = -1;
		bool best_kept = false;
		for (size_t i = 0; i < tv->ncgs; i++) {
			if (used[i])
				continue;
			bool kept = false;
			for (int k = 0; k < tv->n && !kept; k++)
				kept = strcmp(tv->cg[k], tv->cgs[i].rel) == 0;
			if (!tv->cgs[i].delta && !kept)
				continue;
			if (best < 0 || tv->cgs[i].delta > tv->cgs[best].delta ||
			    (tv->cgs[i].delta == tv->cgs[best].delta && kept && !best_kept))
				best = (long)i, best_kept = kept;
		}
		if (best < 0)
			break;
		used[best] = true;
		snprintf(out[n++], 256, "%s", tv->cgs[best].rel);
	}
	free(used);
	return n;
}

/* --- the target of a list, or of one entry per CPU ----------------------------------------- */

static int target_alloc(struct target *t, enum target_kind kind, int rows, int keys)
{
	memset(t, 0, sizeof(*t));
	t->go_fd = t->pidfd = -1;
	t->kind = kind;
	t->row_pid = calloc((size_t)rows, sizeof(int));
	t->row_cgroup = calloc((size_t)rows, sizeof(int));
	t->row_cpu = calloc((size_t)rows, sizeof(int));
	t->row_key = calloc((size_t)rows, sizeof(int));
	t->keys = calloc((size_t)(keys ? keys : 1), sizeof(*t->keys));
	if (t->row_pid && t->row_cgroup && t->row_cpu && t->row_key && t->keys)
		return 0;
	target_free(t);
	return -1;
}

static void set_key(struct target *t, int k, enum row_unit kind, long id, const char *label)
{
	struct row_key *rk = &t->keys[k];
	memset(rk, 0, sizeof(*rk));
	rk->kind = kind;
	rk->id = id;
	rk->tuple[0] = k;
	snprintf(rk->label, sizeof(rk->label), "%s", label);
	if (t->nkeys <= k)
		t->nkeys = k + 1;
}

static void add_row(struct target *t, int pid, int cgfd, int cpu, int key)
{
	t->row_pid[t->nrows] = pid;
	t->row_cgroup[t->nrows] = cgfd;
	t->row_cpu[t->nrows] = cpu;
	t->row_key[t->nrows] = key;
	t->nrows++;
}

static void task_label(const struct tasktop_busy *b, char *out, size_t len)
{
	char esc[TASKTOP_COMM_MAX], tid[16];
	tasktop_escape(b->comm, strlen(b->comm), esc, sizeof(esc));
	int tl = snprintf(tid, sizeof(tid), "[%d]", b->tid);
	snprintf(out, len, "%.*s%s", (int)(len - 1 > (size_t)tl ? len - 1 - (size_t)tl : 0), esc,
		 tid);
}

static void cg_label(const char *rel, char *out, size_t len)
{
	size_t l = strlen(rel);
	snprintf(out, len, "%s%s", l >= len ? ".." : "", l >= len ? rel + l - (len - 3) : rel);
}

static int open_cgroup(const char *rel, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.2000s/%.300s", target_cgroup_root(), rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "cgroup %s: %s", rel, strerror(errno));
	return fd;
}

/* Swaps to @t; @t is freed when the swap fails. */
static int swap(struct app_ctx *app, struct target *t, char *err, size_t errlen)
{
	if (app_swap_target(app, t, err, errlen) < 0) {
		target_free(t);
		return -1;
	}
	char why[256];
	/* the priming read now: the next tick is a whole interval of the new set (before the run's
	 * loop, as --tasks-top opens the list, its own priming read does it) */
	if (app->loop_ready && app_tick(app, why, sizeof(why)) < 0)
		app_log(app, MSG_WARN, "task view: %s", why);
	return 0;
}

static int count_tasks(struct app_ctx *app, struct taskview *tv, const struct tasktop_busy *b,
		       int n, char *err, size_t errlen)
{
	struct target t;
	if (target_alloc(&t, TARGET_TASKS, n ? n : 1, n) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char label[ROW_LABEL_MAX];
		task_label(&b[i], label, 28); /* a kernel worker's long name is cut */
		set_key(&t, i, ROWS_TASK, b[i].tid, label);
		add_row(&t, b[i].tid, -1, i, i);
	}
	if (swap(app, &t, err, errlen) < 0)
		return -1;
	tv->n = n;
	for (int i = 0; i < n; i++)
		tv->tid[i] = b[i].tid;
	app->rows.unit = ROWS_TASK;
	return 0;
}

static int count_cgroups(struct app_ctx *app, struct taskview *tv, char (*rel)[256], int n,
			 char *err, size_t errlen)
{
	int cpus[APP_MAX_ROWS], nc = 0, c;
	cpuset_for_each(c, &app->cpus_chosen) if (nc < APP_MAX_ROWS) cpus[nc++] = c;
	struct target t;
	if (target_alloc(&t, TARGET_CGROUPS, n * nc > 0 ? n * nc : 1, n) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		int fd = open_cgroup(rel[i], err, errlen);
		if (fd < 0)
			continue; /* gone since the scan */
		char label[ROW_LABEL_MAX];
		cg_label(rel[i], label, sizeof(label));
		set_key(&t, k, ROWS_CGROUP, k, label);
		for (int j = 0; j < nc; j++)
			add_row(&t, -1, fd, cpus[j], k);
		snprintf(tv->cg[k], sizeof(tv->cg[k]), "%s", rel[i]);
		k++;
	}
	if (swap(app, &t, err, errlen) < 0)
		return -1;
	tv->n = k;
	app->rows.unit = ROWS_CGROUP;
	return 0;
}

/* Scans and, when the busiest set is not the one counted (or @force), counts the new one. */
static int follow(struct app_ctx *app, struct taskview *tv, bool force, char *err, size_t errlen)
{
	/* a set is reopened whole: the list is scanned (and the set follows it) every
	 * TASKVIEW_FOLLOW frames */
	if (!force && ++tv->since_scan < TASKVIEW_FOLLOW)
		return 0;
	tv->since_scan = 0;
	tv->budget = fd_budget(app);
	int limit = list_limit(app, tv);
	if (tv->kind == TASKVIEW_TASKS) {
		if (!tv->tt_ready) {
			if (tasktop_init(&tv->tt, "", 1, 0, 0, err, errlen) < 0)
				return -1;
			tv->tt_ready = true;
		}
		if (tasktop_scan(&tv->tt, loop_now_ns(), err, errlen) < 0)
			return -1;
		if (tv->tt.scans < 2) { /* the first list: CPU time over 200 ms */
			usleep(200 * 1000);
			if (tasktop_scan(&tv->tt, loop_now_ns(), err, errlen) < 0)
				return -1;
		}
		struct tasktop_busy *b = calloc((size_t)(limit ? limit : 1), sizeof(*b));
		if (!b) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		int n = (int)tasktop_busiest(&tv->tt, tv->tid, (size_t)tv->n, b, (size_t)limit,
					     &tv->seen);
		bool same = n == tv->n;
		for (int i = 0; same && i < n; i++) {
			bool found = false;
			for (int k = 0; k < tv->n && !found; k++)
				found = tv->tid[k] == b[i].tid;
			same = found;
		}
		if (n == 0 && force)
			snprintf(err, errlen, "no task used CPU time since the last scan");
		int rc = n == 0		  ? (force ? -1 : 0)
			 : same && !force ? 0
					  : count_tasks(app, tv, b, n, err, errlen);
		free(b);
		return rc;
	}
	cg_scan(tv);
	char(*rel)[256] = calloc((size_t)(limit ? limit : 1), sizeof(*rel));
	if (!rel) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int n = cg_choose(tv, limit, rel);
	bool same = n == tv->n;
	for (int i = 0; same && i < n; i++) {
		bool found = false;
		for (int k = 0; k < tv->n && !found; k++)
			found = strcmp(tv->cg[k], rel[i]) == 0;
		same = found;
	}
	if (n == 0 && force)
		snprintf(err, errlen, "no cgroup under %s used CPU time since the last scan",
			 target_cgroup_root());
	int rc = n == 0		  ? (force ? -1 : 0)
		 : same && !force ? 0
				  : count_cgroups(app, tv, rel, n, err, errlen);
	free(rel);
	return rc;
}

/* A listed row's cumulative CPU time in ns: a task's run time (/proc/TID/schedstat, the first
 * field, as the scheduler counts it) or a cgroup's usage_usec (cpu.stat). 0 when gone. */
static bool cpu_time(const struct taskview *tv, long id, char *name, size_t len, uint64_t *ns)
{
	char path[PATH_MAX], line[128];
	if (tv->kind == TASKVIEW_TASKS) {
		snprintf(name, len, "%ld", id);
		snprintf(path, sizeof(path), "/proc/%ld/schedstat", id);
	} else {
		if (id < 0 || id >= tv->n)
			return false;
		snprintf(name, len, "%s", tv->cg[id]);
		snprintf(path, sizeof(path), "%.2000s/%.300s/cpu.stat", target_cgroup_root(),
			 tv->cg[id]);
	}
	FILE *fp = fopen(path, "re");
	bool have = false;
	uint64_t v = 0;
	while (fp && !have && fgets(line, sizeof(line), fp))
		have = tv->kind == TASKVIEW_TASKS ? sscanf(line, "%" SCNu64, &v) == 1
						  : sscanf(line, "usage_usec %" SCNu64, &v) == 1;
	if (fp)
		fclose(fp);
	*ns = tv->kind == TASKVIEW_TASKS ? v : v * 1000;
	return have;
}

/* Each listed row's CPU share since the frame before it was last read for (none for the rows
 * of one per CPU). */
static void update_shares(struct taskview *tv, const struct frame *f)
{
	if (f->seq == tv->sh_seq)
		return; /* read for this frame already */
	tv->sh_seq = f->seq;
	uint64_t now = loop_now_ns();
	struct tv_share prev[TASKVIEW_MAX];
	int nprev = tv->nsh;
	memcpy(prev, tv->sh, sizeof(prev[0]) * (size_t)nprev);
	tv->nsh = 0;
	if (tv->filtered || !f->row_keys || !f->snap)
		return;
	double dt = now > tv->sh_t ? (double)(now - tv->sh_t) : 0;
	tv->sh_t = now;
	for (int r = 0; r < f->snap->nrows && tv->nsh < TASKVIEW_MAX; r++) {
		struct tv_share *s = &tv->sh[tv->nsh];
		char name[sizeof(s->name)];
		s->id = f->row_keys[r].id;
		if (!cpu_time(tv, s->id, name, sizeof(name), &s->ns))
			continue;
		memcpy(s->name, name, sizeof(name));
		s->share = NAN;
		for (int k = 0; k < nprev && dt > 0; k++)
			if (strcmp(prev[k].name, s->name) == 0 && s->ns >= prev[k].ns)
				s->share = (double)(s->ns - prev[k].ns) / dt;
		tv->nsh++;
	}
}

double app_taskview_cpu_share(struct app_ctx *app, long id)
{
	struct taskview *tv = app_observer_state(app, "taskview");
	if (tv && tv->kind != TASKVIEW_OFF) /* read when shown, once a frame: batch never asks */
		update_shares(tv, &app->frame);
	for (int k = 0; tv && tv->kind != TASKVIEW_OFF && !tv->filtered && k < tv->nsh; k++)
		if (tv->sh[k].id == id)
			return tv->sh[k].share;
	return NAN;
}

/* Every frame of the list: its set follows the busiest. */
static void tv_frame(struct observer *o, struct app_ctx *app, const struct frame *f)
{
	(void)f;
	struct taskview *tv = o->state;
	if (!tv || tv->kind == TASKVIEW_OFF || tv->filtered || tv->held)
		return; /* a recording keeps the rows it started with */
	char err[320];
	char before[sizeof(tv->note)];
	snprintf(before, sizeof(before), "%s", tv->note);
	if (follow(app, tv, false, err, sizeof(err)) < 0)
		app_log(app, MSG_WARN, "task view: %s (the set counted before goes on)", err);
	if (tv->note[0] && strcmp(before, tv->note) != 0)
		app_log(app, MSG_WARN, "task view: %s", tv->note);
}

int app_taskview_open(struct app_ctx *app, enum taskview_kind kind, char *err, size_t errlen)
{
	struct taskview *tv = tv_get(app, false);
	bool ours = tv && tv->kind != TASKVIEW_OFF;
	if (app->target.kind != TARGET_CPUS && !ours) {
		snprintf(err, errlen, "view %s: this run counts the %s given on the command line",
			 kind == TASKVIEW_TASKS ? "tasks" : "cgroups",
			 app->target.kind == TARGET_TASKS ? "tasks" : "cgroups");
		return -1;
	}
	if (!source_has(&app->source, SOURCE_CAP_THIS_MACHINE) ||
	    source_has(&app->source, SOURCE_CAP_RECORDED) ||
	    strcmp(app->source.ops->name, "perf")) {
		snprintf(err, errlen,
			 "view %s: counts this machine's %s with perf_event_open (not with the "
			 "sim, a recording or a remote board)",
			 kind == TASKVIEW_TASKS ? "tasks" : "cgroups",
			 kind == TASKVIEW_TASKS ? "tasks" : "cgroups");
		return -1;
	}
	if (!app->session) {
		snprintf(err, errlen, "view: no mode is running");
		return -1;
	}
	tv = tv_get(app, true);
	if (!tv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!ours) {
		tv->saved_unit = app->rows.unit;
		tv->saved_all = app->cpus_all;
	}
	enum taskview_kind was = tv->kind;
	bool was_filtered = tv->filtered;
	if (was != kind) { /* a fresh list */
		tv->n = 0;
		tv->scans = 0;
		tv->ncgs = tv->ncgs_prev = 0;
	}
	tv->kind = kind;
	tv->filtered = false;
	if (kind == TASKVIEW_CGROUPS && tv->scans == 0)
		cg_scan(tv); /* the baseline: the first list is the busiest since now */
	if (kind == TASKVIEW_CGROUPS && tv->scans == 1)
		usleep(200 * 1000); /* cpu.stat usage over 200 ms for the first list */
	if (follow(app, tv, true, err, errlen) < 0) {
		tv->kind = was;
		tv->filtered = was_filtered;
		return -1;
	}
	app->cpus_all = false;
	return 0;
}

int app_taskview_filter(struct app_ctx *app, long id, char *err, size_t errlen)
{
	struct taskview *tv = tv_get(app, false);
	if (!tv || tv->kind == TASKVIEW_OFF || tv->filtered) {
		snprintf(err, errlen, "filter: works on the task or cgroup list (:view tasks)");
		return -1;
	}
	int k = -1;
	for (int i = 0; i < app->target.nkeys; i++)
		if (app->target.keys[i].id == id)
			k = i;
	if (k < 0) {
		snprintf(err, errlen, "filter: no row %ld in the list", id);
		return -1;
	}
	char label[ROW_LABEL_MAX];
	snprintf(label, sizeof(label), "%s", app->target.keys[k].label);
	int cpus[APP_MAX_ROWS], nc = 0, c;
	cpuset_for_each(c, &app->cpus_chosen) if (nc < APP_MAX_ROWS) cpus[nc++] = c;
	struct target t;
	bool task = tv->kind == TASKVIEW_TASKS;
	if (target_alloc(&t, task ? TARGET_TASKS : TARGET_CGROUPS, nc ? nc : 1, nc) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int fd = -1;
	if (!task && (fd = open_cgroup(tv->cg[id], err, errlen)) < 0) {
		target_free(&t);
		return -1;
	}
	t.pid_on_cpu = task;
	for (int j = 0; j < nc; j++) {
		char cpu[16];
		snprintf(cpu, sizeof(cpu), "%d", cpus[j]);
		set_key(&t, j, task ? ROWS_TASK : ROWS_CGROUP, cpus[j], cpu);
		t.keys[j].first_cpu = cpus[j];
		add_row(&t, task ? (int)id : -1, fd, cpus[j], j);
	}
	if (swap(app, &t, err, errlen) < 0)
		return -1;
	tv->filtered = true;
	tv->filter_id = id;
	snprintf(tv->filter_label, sizeof(tv->filter_label), "%s", label);
	return 0;
}

int app_taskview_close(struct app_ctx *app, char *err, size_t errlen)
{
	struct taskview *tv = tv_get(app, false);
	if (!tv || tv->kind == TASKVIEW_OFF)
		return 0;
	struct target t;
	memset(&t, 0, sizeof(t));
	t.go_fd = t.pidfd = -1;
	t.kind = TARGET_CPUS;
	if (app_swap_target(app, &t, err, errlen) < 0)
		return -1;
	char why[256];
	if (app_tick(app, why, sizeof(why)) < 0)
		app_log(app, MSG_WARN, "task view: %s", why);
	app->rows.unit = tv->saved_unit;
	app->cpus_all = tv->saved_all;
	tv->kind = TASKVIEW_OFF;
	tv->filtered = false;
	tv->n = 0;
	return 0;
}

enum taskview_kind app_taskview_kind(const struct app_ctx *app, bool *filtered)
{
	const struct taskview *tv = app_observer_state(app, "taskview");
	if (filtered)
		*filtered = tv && tv->filtered;
	return tv ? tv->kind : TASKVIEW_OFF;
}

int app_taskview_set_count(struct app_ctx *app, int n, char *err, size_t errlen)
{
	if (n < 0 || n > TASKVIEW_MAX) {
		snprintf(err, errlen, "tasks: %d is not 0 (as many as fit) to %d", n, TASKVIEW_MAX);
		return -1;
	}
	struct taskview *tv = tv_get(app, true);
	if (!tv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	tv->want = n;
	return 0;
}

int app_taskview_count(const struct app_ctx *app)
{
	const struct taskview *tv = app_observer_state(app, "taskview");
	return tv ? tv->want : 0;
}

void app_taskview_hold(struct app_ctx *app, bool held)
{
	struct taskview *tv = app_observer_state(app, "taskview");
	if (tv)
		tv->held = held;
}

void app_taskview_fit(struct app_ctx *app, int rows)
{
	struct taskview *tv = app_observer_state(app, "taskview");
	if (tv)
		tv->fit = rows < 1 ? 1 : rows;
}

void app_taskview_status(const struct app_ctx *app, char *buf, size_t len)
{
	const struct taskview *tv = app_observer_state(app, "taskview");
	buf[0] = '\0';
	if (!tv || tv->kind == TASKVIEW_OFF)
		return;
	bool task = tv->kind == TASKVIEW_TASKS;
	if (tv->filtered)
		snprintf(buf, len,
			 "%s %s counted on each CPU (%s): a row is what it did on that CPU, not "
			 "scaled  Esc: back to the %s",
			 task ? "task" : "cgroup", tv->filter_label,
			 task ? "pid=TID, cpu=N" : "PERF_FLAG_PID_CGROUP",
			 task ? "tasks" : "cgroups");
	else
		snprintf(buf, len,
			 "%s: the busiest %d of %zu (%s, scanned every %d refreshes), counted with "
			 "%s%s%s  "
			 "Enter: per CPU  Esc: CPUs  </>: sort",
			 task ? "tasks" : "cgroups", tv->n, tv->seen,
			 task ? "CPU time in /proc" : "usage_usec in cpu.stat", TASKVIEW_FOLLOW,
			 task ? "pid=TID, cpu=-1" : "PERF_FLAG_PID_CGROUP per CPU",
			 tv->note[0] ? "; " : "", tv->note);
}
